//! The paper's synthetic kernel (000 §6.1.2): 43 multiply-adds per element on one float4 read,
//! in Brook and as the same arithmetic in a hand-written fragment shader.

pub const MADS: usize = 43;
pub const GLSL_HEADER: &str = "#version 330 core\nuniform sampler2D a;\n";

/// The 43-MAD kernel in Brook, and the same arithmetic as a hand-written fragment shader.
pub fn mad_kernel() -> (String, String) {
    let steps = "    x = x * 0.999 + 0.001;\n".repeat(MADS);
    let brook = format!(
        "kernel void mad(float4 a<>, out float4 r<>) {{\n    float4 x = a;\n{steps}    r = x;\n}}\n"
    );
    let hand = format!(
        "{GLSL_HEADER}out vec4 r;\nvoid main() {{\n    vec4 x = texelFetch(a, ivec2(gl_FragCoord.xy), 0);\n{steps}    r = x;\n}}\n"
    );
    (brook, hand)
}
