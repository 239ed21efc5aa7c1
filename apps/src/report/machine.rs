//! The machine a report was measured on: the papers name their GPU and CPU, and so must we.

use crate::app::Env;

/// CPU model and core count, the GL renderer and version, and the wgpu adapter.
pub fn describe(env: &Env) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let caps = env.context.caps();
    format!(
        "CPU: {cpu}, {threads} threads (rayon: {})\nGL:  {} — {}\n{}",
        rayon::current_num_threads(),
        caps.renderer,
        caps.version,
        env.wgpu.describe()
    )
}
