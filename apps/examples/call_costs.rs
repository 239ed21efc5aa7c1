//! What one compute of each application costs Brook wgpu beyond the same passes written by
//! hand in wgpu, at sizes where fixed per-call costs dominate (issue 34): for each
//! application, Brook wgpu's and the hand-written version's median compute (each followed
//! by its wait for the queue, as `brook-report` times them), their ratio with its 95%
//! interval from rotated rounds, the part of each median until `compute` returned (the
//! host's: checks, encoding, submissions; the rest is the wait for the device, so on a GPU a
//! gap in the first is Brook's host code and a gap in the rest its shaders or transfers),
//! and the wgpu requests Brook made per compute (submissions,
//! waits, encoders, buffers, bind groups, pipelines, `write_buffer`s, mappings), which are
//! the same on every machine.
//!
//! `cargo run --release -p brook-apps --example call_costs -- [--scale tiny|quick|full]
//! [--rounds N] [NAME…]` (names: prefixes of `brook-report --list`'s, any case). Tiny sizes
//! (default) show the fixed costs; at a size where the ratio grows the difference is in the
//! shaders' execution, not in the calls. Each variant's result is checked first.

use std::time::Instant;

use brook_apps::{applications, AppError, Env, Flavor, Ratio, Scale, Tolerance, Variant};
use brook_bench_kit::stats::median;

fn main() -> Result<(), AppError> {
    let mut scale = Scale::Tiny;
    let mut rounds = 60;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--scale" => {
                scale = match args.next().as_deref() {
                    Some("full") => Scale::Full,
                    Some("quick") => Scale::Quick,
                    _ => Scale::Tiny,
                }
            }
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).unwrap_or(rounds),
            name => names.push(name.to_lowercase()),
        }
    }
    let env = Env::headless()?;
    let backend = (env.runtime(Flavor::BrookWgpu).as_wgpu())
        .ok_or_else(|| AppError::Wgpu("the wgpu runtime has no wgpu backend".into()))?;
    println!("{}", backend.describe());
    for app in applications::all() {
        let name = app.name().to_lowercase();
        if !names.is_empty() && !names.iter().any(|n| name.starts_with(n.as_str())) {
            continue;
        }
        let instance = app.instance(&env, scale)?;
        let (reference, tolerance) = (instance.reference, instance.tolerance);
        let mut brook = None;
        let mut hand = None;
        for (flavor, v) in instance.variants {
            match flavor {
                Flavor::BrookWgpu => brook = Some(v),
                Flavor::HandWgpu => hand = Some(v),
                _ => {}
            }
        }
        let (Some(mut brook), Some(mut hand)) = (brook, hand) else {
            continue;
        };
        for v in [&mut brook, &mut hand] {
            checked(v.as_mut(), &reference, tolerance, app.name())?;
        }
        let before = backend.api_counts();
        for _ in 0..10 {
            brook.compute()?;
            brook.sync();
        }
        let counts = backend.api_counts() - before;
        let (mut b, mut h, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        let (mut b_host, mut h_host) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Rotated: each goes first in every other round.
            let ((tb, hb), (th, hh)) = if round % 2 == 0 {
                let tb = micros(brook.as_mut())?;
                (tb, micros(hand.as_mut())?)
            } else {
                let th = micros(hand.as_mut())?;
                (micros(brook.as_mut())?, th)
            };
            b.push(tb);
            h.push(th);
            b_host.push(hb);
            h_host.push(hh);
            ratios.push(tb / th);
        }
        let ratio = Ratio::of(&ratios).expect("rounds were run");
        println!(
            "{:18} Brook wgpu {:>9.1} µs  hand wgpu {:>9.1} µs  ratio {:.2}× [{:.2}, {:.2}]  until compute returns: Brook {:.1} µs, hand {:.1} µs  Brook per compute ×10: {counts}",
            app.name(),
            median(&b),
            median(&h),
            ratio.median,
            ratio.interval.0,
            ratio.interval.1,
            median(&b_host),
            median(&h_host),
        );
    }
    Ok(())
}

/// Uploads, computes once and checks the result against the reference.
fn checked(
    v: &mut dyn Variant,
    reference: &[f64],
    tolerance: Tolerance,
    app: &str,
) -> Result<(), AppError> {
    v.upload()?;
    v.compute()?;
    v.sync();
    let error = Tolerance::error(reference, &v.download()?)?;
    if error > tolerance.0 {
        return Err(AppError::Mismatch(format!("{app}: error {error:.1e}")));
    }
    Ok(())
}

/// One compute and the wait for its work, in µs, and of that the time until `compute`
/// returned: the host's part (checking, encoding, submitting), which is what differs where
/// the GPU's part is the same.
fn micros(v: &mut dyn Variant) -> Result<(f64, f64), AppError> {
    v.sync();
    let start = Instant::now();
    v.compute()?;
    let host = start.elapsed();
    v.sync();
    let micros = |d: std::time::Duration| d.as_secs_f64() * 1e6;
    Ok((micros(start.elapsed()), micros(host)))
}
