//! The papers' synthetic kernel (000 §6.1.2, 001 Fig. 4): 43 multiply-adds per element on one
//! float4 read, in Brook and as the same arithmetic in a hand-written fragment shader. The
//! kernel-call knee is measured with it, in the report and in the root crate's benches.

pub const MADS: usize = 43;
/// Flops per float4 element: a multiply and an add per component per step.
pub const FLOPS_PER_ELEMENT: usize = MADS * 2 * 4;

/// The Brook kernel `mad(float4 a<>, out float4 r<>)`, and the hand-written shader body
/// (after `#version`) reading sampler `a` and writing `r`.
pub fn mad_kernel() -> (String, String) {
    let steps = "    x = x * 0.999 + 0.001;\n".repeat(MADS);
    let brook = format!(
        "kernel void mad(float4 a<>, out float4 r<>) {{\n    float4 x = a;\n{steps}    r = x;\n}}\n"
    );
    let hand = format!(
        "uniform sampler2D a;\nout vec4 r;\nvoid main() {{\n    vec4 x = texelFetch(a, ivec2(gl_FragCoord.xy), 0);\n{steps}    r = x;\n}}\n"
    );
    (brook, hand)
}
