//! Side-by-side ratios from one criterion run: criterion reports each benchmark alone, so
//! after a group has run this reads its medians back and prints them against a baseline.

use std::path::PathBuf;

/// Median time in nanoseconds of `group/bench` from criterion's saved estimates. Criterion
/// writes under the workspace's target directory; a bench runs from its own package's
/// directory, which is the workspace root for the root benches and a member for the others.
pub fn median_ns(group: &str, bench: &str) -> Option<f64> {
    let dirs = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain(["target", "../target"].map(PathBuf::from));
    let path = dirs
        .map(|dir| {
            dir.join("criterion")
                .join(group)
                .join(bench)
                .join("new")
                .join("estimates.json")
        })
        .find(|path| path.exists())?;
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    json["median"]["point_estimate"].as_f64()
}

/// Prints every bench of `group` with its median and its ratio to `baseline`.
pub fn print_ratios(group: &str, baseline: &str, benches: &[&str], per: &str) {
    let Some(base) = median_ns(group, baseline) else {
        println!("(no saved estimate for {group}/{baseline}: ratios skipped)");
        return;
    };
    println!("\n{group}: median {per}, ratio to {baseline}");
    for bench in benches {
        match median_ns(group, bench) {
            Some(t) => println!("  {bench:<28} {:>12}  {:>8.3}×", human(t), t / base),
            None => println!("  {bench:<28} (not run)"),
        }
    }
}

pub fn human(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
