//! The cost model of 001 §5.2, measured: a program that streamReads n records, runs a kernel
//! on them and streamWrites the result takes `T_gpu = n (T_r + K_gpu)` on the GPU and
//! `T_cpu = n K_cpu` on the CPU. The GPU wins when the computational intensity
//! `γ = K_gpu / T_r` exceeds `1 / (s − 1)`, where `s = K_cpu / K_gpu` is the kernel speedup.
//! The figures come from the report's SAXPY rows.

use crate::app::{Flavor, Work};
use crate::measure::AppResult;

/// SAXPY's records are float4 elements; each costs 2 flops per float.
const SAXPY_FLOPS_PER_RECORD: f64 = 8.0;

/// The model's terms, in seconds per record.
#[derive(Clone, Copy, Debug)]
pub struct CostModel {
    /// How many records (float4 elements) SAXPY's measured run processed.
    pub records: f64,
    /// streamRead of the inputs plus streamWrite of the result, per record (Brook GL).
    pub t_r: f64,
    /// Kernel time per record on GL (Brook).
    pub k_gpu: f64,
    /// Kernel time per record on the CPU (the plain-Rust version, the best CPU code we have).
    pub k_cpu: f64,
}

impl CostModel {
    /// The model from SAXPY's measured rows, if it has the Brook GL and Rust ones.
    pub fn from_saxpy(saxpy: &AppResult) -> Option<CostModel> {
        let Work::Flops(flops) = saxpy.work else {
            return None;
        };
        let records = flops / SAXPY_FLOPS_PER_RECORD;
        let gl = saxpy.row(Flavor::BrookGl)?;
        let cpu = saxpy.row(Flavor::Rust)?;
        Some(CostModel {
            records,
            t_r: (gl.upload + gl.download).as_secs_f64() / records,
            k_gpu: gl.compute.as_secs_f64() / records,
            k_cpu: cpu.compute.as_secs_f64() / records,
        })
    }

    /// `s = K_cpu / K_gpu`.
    pub fn speedup(&self) -> f64 {
        self.k_cpu / self.k_gpu
    }

    /// `γ = K_gpu / T_r`.
    pub fn intensity(&self) -> f64 {
        self.k_gpu / self.t_r
    }

    /// The paper's verdict: the GPU outperforms the CPU iff `T_r < K_cpu − K_gpu`.
    pub fn gpu_wins(&self) -> bool {
        self.t_r < self.k_cpu - self.k_gpu
    }

    /// The model's terms, speed-up and verdict as a paragraph for the report.
    pub fn describe(&self) -> String {
        let ns = |s: f64| s * 1e9;
        let s = self.speedup();
        let needed = if s > 1.0 {
            format!("{:.3}", 1.0 / (s - 1.0))
        } else {
            "unreachable (s ≤ 1: the kernel is no faster on the GPU)".to_string()
        };
        format!(
            "Cost model (001 §5.2) from SAXPY, {n:.0} float4 records:\n\
             \x20 T_r   = {tr:8.2} ns/record  (streamRead + streamWrite on Brook GL)\n\
             \x20 K_gpu = {kg:8.2} ns/record  (Brook GL kernel)\n\
             \x20 K_cpu = {kc:8.2} ns/record  (plain Rust)\n\
             \x20 speedup s = K_cpu/K_gpu = {s:.3}; computational intensity γ = K_gpu/T_r = {g:.3}; \
             the GPU needs γ > 1/(s−1) = {needed}\n\
             \x20 T_gpu = n(T_r + K_gpu) = {tg:.2} ms, T_cpu = n K_cpu = {tc:.2} ms: {verdict}",
            n = self.records,
            tr = ns(self.t_r),
            kg = ns(self.k_gpu),
            kc = ns(self.k_cpu),
            g = self.intensity(),
            tg = self.records * (self.t_r + self.k_gpu) * 1e3,
            tc = self.records * self.k_cpu * 1e3,
            verdict = if self.gpu_wins() {
                "the GPU wins"
            } else {
                "the CPU wins"
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(t_r: f64, k_gpu: f64, k_cpu: f64) -> CostModel {
        CostModel {
            records: 1e6,
            t_r,
            k_gpu,
            k_cpu,
        }
    }

    #[test]
    fn the_verdict_follows_the_papers_inequality() {
        // s = 4, so the GPU needs γ > 1/3: T_r = 1 gives γ = 1 and the GPU wins.
        let m = model(1.0, 1.0, 4.0);
        assert_eq!(m.speedup(), 4.0);
        assert_eq!(m.intensity(), 1.0);
        assert!(m.gpu_wins());
        // The same kernels with transfers four times dearer: γ = 1/4 < 1/3, the CPU wins.
        assert!(!model(4.0, 1.0, 4.0).gpu_wins());
        // γ > 1/(s−1) and T_r < K_cpu − K_gpu are the same condition.
        for (t_r, k_gpu, k_cpu) in [(0.5, 1.0, 2.0), (2.0, 1.0, 2.5), (0.1, 3.0, 3.05)] {
            let m = model(t_r, k_gpu, k_cpu);
            let by_intensity = m.speedup() > 1.0 && m.intensity() > 1.0 / (m.speedup() - 1.0);
            assert_eq!(m.gpu_wins(), by_intensity, "{m:?}");
        }
    }
}
