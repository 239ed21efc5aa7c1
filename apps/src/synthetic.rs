//! The papers' synthetic kernel (000 §6.1.2, 001 Fig. 4): 43 multiply-adds per element on one
//! float4 read, in Brook and as the same arithmetic in a hand-written fragment shader. The
//! kernel-call knee is measured with it, in the report and in the root crate's benches.

/// Multiply-adds per element: the papers' count.
pub const MADS: usize = 43;
/// Flops per float4 element: a multiply and an add per component per step.
pub const FLOPS_PER_ELEMENT: usize = MADS * 2 * 4;
/// Each step is `x = x * SCALE + OFFSET`: from values in [0, 1] it stays there.
const SCALE: f32 = 0.999;
const OFFSET: f32 = 0.001;

/// The Brook kernel `mad(float4 a<>, out float4 r<>)`, and the hand-written shader body
/// (after `#version`) reading sampler `a` and writing `r`.
pub fn mad_kernel() -> (String, String) {
    let steps = format!("    x = x * {SCALE} + {OFFSET};\n").repeat(MADS);
    let brook = format!(
        "kernel void mad(float4 a<>, out float4 r<>) {{\n    float4 x = a;\n{steps}    r = x;\n}}\n"
    );
    let hand = format!(
        "uniform sampler2D a;\nout vec4 r;\nvoid main() {{\n    vec4 x = texelFetch(a, ivec2(gl_FragCoord.xy), 0);\n{steps}    r = x;\n}}\n"
    );
    (brook, hand)
}

/// One call of the kernel on `input`, in f64 with the constants as the kernels' f32 literals
/// hold them: what every variant's result is checked against.
pub fn mad_reference(input: &[f32]) -> Vec<f64> {
    let (scale, offset) = (f64::from(SCALE), f64::from(OFFSET));
    input
        .iter()
        .map(|&x| (0..MADS).fold(f64::from(x), |x, _| x * scale + offset))
        .collect()
}

/// The check's tolerance, absolute on values in [0, 1]: each step rounds a product and a sum
/// by at most ε/2 each, and the factor 0.999 only shrinks earlier errors, so 43 steps stay
/// within 43ε; twice that is allowed (fused multiply-adds round less, not more).
pub const TOLERANCE: f64 = 2.0 * MADS as f64 * f32::EPSILON as f64;
