//! SAXPY end to end: one Brook kernel on the GL pipeline and on the CPU reference backend.
//!
//! Prints the fragment shader the kernel became, runs it on a 1024×1024 `float4` stream on
//! both backends, and checks that GL and CPU agree with a plain f64 computation.
//!
//! `cargo run --release --example saxpy [-- --size N]`

use std::time::Instant;

use brook::{args, BrookError, Runtime};
use clap::Parser;

/// SAXPY on the GL and CPU backends, checked against f64.
#[derive(Debug, Parser)]
struct Cli {
    /// Side of the square `float4` streams.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=16384))]
    size: u32,
}

const SAXPY: &str = "\
kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}
";

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli.size as usize) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(size: usize) -> Result<(), BrookError> {
    let n = size * size * 4;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 77) as f32 - 38.0).collect();
    let a = 2.5f32;

    let gl = Runtime::gl()?;
    println!("{}\n", gl.describe());
    let gl_result = saxpy_on(&gl, size, a, &x, &y, true)?;
    let cpu = Runtime::cpu();
    println!("{}", cpu.describe());
    let cpu_result = saxpy_on(&cpu, size, a, &x, &y, false)?;

    let mut worst = 0.0f64;
    for i in 0..n {
        let exact = a as f64 * x[i] as f64 + y[i] as f64;
        for got in [gl_result[i], cpu_result[i]] {
            worst = worst.max((got as f64 - exact).abs() / exact.abs().max(1.0));
        }
    }
    let identical = gl_result
        .iter()
        .zip(&cpu_result)
        .filter(|(g, c)| g == c)
        .count();
    println!("\n{size}×{size} float4: GL and CPU agree bit for bit on {identical} of {n} floats; worst relative error against f64: {worst:.2e}");
    if worst > 1e-6 {
        return Err(BrookError::Usage(format!(
            "SAXPY result off by {worst:.2e} relative"
        )));
    }
    println!("SAXPY OK");
    Ok(())
}

fn saxpy_on(
    rt: &Runtime,
    size: usize,
    a: f32,
    x: &[f32],
    y: &[f32],
    show_glsl: bool,
) -> Result<Vec<f32>, BrookError> {
    let program = rt.compile(SAXPY, "saxpy.br")?;
    let shape = [size, size];
    let (xs, ys, rs) = (
        rt.stream_of(4, &shape)?,
        rt.stream_of(4, &shape)?,
        rt.stream_of(4, &shape)?,
    );
    let start = Instant::now();
    xs.read(x)?;
    ys.read(y)?;
    let upload = start.elapsed();
    if show_glsl {
        for pass in rt.plan(&program, "saxpy", args![a, &xs, &ys, &rs])? {
            print!("{pass}");
            if let Some(program) = &pass.program {
                println!("{}", program.source);
            }
        }
    }
    rt.run(&program, "saxpy", args![a, &xs, &ys, &rs])?; // compiles and warms up
    rt.finish();
    let start = Instant::now();
    let calls = 20;
    for _ in 0..calls {
        rt.run(&program, "saxpy", args![a, &xs, &ys, &rs])?;
    }
    rt.finish();
    let per_call = start.elapsed() / calls;
    let start = Instant::now();
    let result = rs.to_vec()?;
    let readback = start.elapsed();
    println!(
        "  {}: streamRead ×2 {:.2} ms, kernel {:.3} ms per call, streamWrite {:.2} ms",
        rt.backend_name(),
        upload.as_secs_f64() * 1e3,
        per_call.as_secs_f64() * 1e3,
        readback.as_secs_f64() * 1e3
    );
    Ok(result)
}
