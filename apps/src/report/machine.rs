//! The machine a report was measured on: the papers name their GPU and CPU, and so must we.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::app::Env;

/// CPU model and core count, the GL renderer and version, and the wgpu adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// The CPU's model name (`/proc/cpuinfo`), else the architecture.
    pub cpu: String,
    /// Hardware threads available to this process.
    pub threads: usize,
    /// Threads in rayon's pool (the CPU backend and the plain-Rust variants).
    pub rayon_threads: usize,
    /// `GL_RENDERER`, e.g. `llvmpipe (LLVM 19.1.7, 256 bits)`.
    pub gl_renderer: String,
    /// `GL_VERSION`.
    pub gl_version: String,
    /// The wgpu runtime's own description of its adapter and backend.
    pub wgpu: String,
}

impl Machine {
    /// The machine `env` runs on.
    pub fn of(env: &Env) -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|m| m.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let caps = env.context.caps();
        Machine {
            cpu,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rayon_threads: rayon::current_num_threads(),
            gl_renderer: caps.renderer.clone(),
            gl_version: caps.version.clone(),
            wgpu: env.wgpu.describe(),
        }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CPU: {}, {} threads (rayon: {})\nGL:  {} — {}\n{}",
            self.cpu,
            self.threads,
            self.rayon_threads,
            self.gl_renderer,
            self.gl_version,
            self.wgpu
        )
    }
}
