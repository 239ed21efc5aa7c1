//! The paper's synthetic kernel (000 §6.1.2): 43 multiply-adds per element on one float4 read,
//! in Brook and as the same arithmetic in a hand-written fragment shader. The one definition
//! lives in brook-apps (the report measures the kernel-call knee with it); this adds the
//! `#version` line the benches' own linker expects.

#[path = "../../apps/src/synthetic.rs"]
mod synthetic;

/// Multiply-adds per element of the synthetic kernel.
pub const MADS: usize = synthetic::MADS;

/// The start of every hand-written bench shader that reads sampler `a`.
pub const GLSL_HEADER: &str = "#version 330 core\nuniform sampler2D a;\n";

/// The 43-MAD kernel in Brook, and the same arithmetic as a complete hand-written shader.
pub fn mad_kernel() -> (String, String) {
    let (brook, hand) = synthetic::mad_kernel();
    (brook, format!("#version 330 core\n{hand}"))
}
