//! Brook kernels as typed Rust functions: `build.rs` runs `brook_build::compile` on
//! `src/kernels.br`, and `kernels::saxpy(&rt, 2.0, &x, &y, &r)?` is checked by rustc — a
//! wrong constant type or a missing stream is a compile error, not a runtime one. A reduce
//! function becomes two: `kernels::sum(&rt, &x)?` returns the value (`[f32; 4]` for a
//! `float4`), `kernels::sum_to_stream(&rt, &x, &smaller)?` reduces into a smaller stream.
//!
//! `cargo run -p typed-kernels [-- cpu]` (GL by default).

use brook::{BrookError, Runtime};
use clap::Parser;

/// Brook kernels called as typed Rust functions.
#[derive(Debug, Parser)]
struct Cli {
    /// The backend to run on.
    #[arg(default_value = "gl", value_parser = ["gl", "cpu", "wgpu"])]
    backend: String,
}

mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = Runtime::named(&cli.backend).and_then(|rt| demo(&rt)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// What the demo computed, for printing and for the test.
#[derive(Debug, PartialEq)]
struct Results {
    saxpy: Vec<f32>,
    total: [f32; 4],
    as_stream: Vec<f32>,
    particles: Vec<f32>,
    bins: Vec<f32>,
}

fn demo(rt: &Runtime) -> Result<(), BrookError> {
    println!("{}", rt.describe());
    let r = compute(rt)?;
    println!("saxpy:     {:?}", r.saxpy);
    println!("its sum:   {:?}", r.total);
    println!("as stream: {:?}", r.as_stream);
    println!("particles: {:?} (pos.x, pos.y, vel.x, vel.y)", r.particles);
    println!("bins:      {:?}", r.bins);
    Ok(())
}

fn compute(rt: &Runtime) -> Result<Results, BrookError> {
    let (x, y, result) = (
        rt.stream_of(4, &[2])?,
        rt.stream_of(4, &[2])?,
        rt.stream_of(4, &[2])?,
    );
    x.read(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])?;
    y.read(&[0.5; 8])?;
    kernels::saxpy(rt, 2.0, &x, &y, &result)?;
    let total = kernels::sum(rt, &result)?;
    let as_stream = rt.stream_of(4, &[1])?;
    kernels::sum_to_stream(rt, &result, &as_stream)?;

    // A struct stream: its format comes from the struct in kernels.br.
    let particle = kernels::program(rt)?.element_format("Particle")?;
    let (p, next) = (
        rt.stream(particle.clone(), &[2])?,
        rt.stream(particle, &[2])?,
    );
    p.read(&[0.0, 10.0, 1.0, 0.0, 5.0, 5.0, 0.0, 2.0])?;
    kernels::advance(rt, 0.5, [0.0, -4.0], &p, &next)?;

    let samples = rt.stream_of(1, &[5])?;
    samples.read(&[-1.0, 0.0, 2.4, 7.5, 11.0])?;
    let bins = rt.stream_of(1, &[5])?;
    kernels::histogram_bin(rt, 4, 0.0, 10.0, &samples, &bins)?;

    Ok(Results {
        saxpy: result.to_vec()?,
        total,
        as_stream: as_stream.to_vec()?,
        particles: next.to_vec()?,
        bins: bins.to_vec()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_functions_run_on_the_cpu_backend() {
        let r = compute(&Runtime::cpu()).unwrap();
        assert_eq!(r.saxpy, [2.5, 4.5, 6.5, 8.5, 10.5, 12.5, 14.5, 16.5]);
        assert_eq!(r.total, [13.0, 17.0, 21.0, 25.0]);
        assert_eq!(r.as_stream, r.total);
        // vel' = vel + g dt, pos' = pos + vel' dt.
        assert_eq!(r.particles, [0.5, 9.0, 1.0, -2.0, 5.0, 5.0, 0.0, 0.0]);
        assert_eq!(r.bins, [0.0, 0.0, 0.0, 3.0, 3.0]);
    }
}
