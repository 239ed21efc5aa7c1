//! The passes that pack a vout's candidates into its stream: a work-efficient exclusive scan of
//! the push counts (004 §3.3.3, Blelloch's up-sweep and down-sweep) on the fragment pipeline,
//! then a compaction gather.
//!
//! Every level of the scan is a 1D stream in its own texture, addressed through the one layout
//! rule (element `L` at texel `(L mod W, L div W)`; the widths are uniforms), so the shaders do
//! not depend on sizes and are generated once per context:
//!
//! * **up-sweep** — element `i` of level `l+1` is `s_l[2i] + s_l[2i+1]` (a missing right
//!   neighbour is 0); level 0 is the counts, the top level (one element) their total.
//! * **down-sweep** — the exclusive scan of level `l` from that of level `l+1`:
//!   `x_l[i] = x_{l+1}[i/2] + (i odd ? s_l[i−1] : 0)`, starting from `x_top = 0`.
//! * **compaction** — output element `j` below the total finds the element `e` that pushed it,
//!   the last one with `x_0[e] ≤ j` (a binary search: the offsets never decrease, and elements
//!   that pushed nothing share their successor's offset), and copies candidate `j − x_0[e]` of
//!   `e`; elements past the total are 0.
//!
//! Counts and offsets are floats (R32F): exact below 2²⁴, which the executor enforces.

use crate::builder::{ShaderBuilder, Stage};
use crate::pass::{MemberRef, PassProgram, UniformValue};
use crate::prelude::Helper;
use crate::shader::output_declaration;
use crate::variant::Target;

/// Fetches element `i` of a level stored `width` texels wide.
const LEVEL_FETCH: &str = "\
// Element i of a 1D level, at its texel by the layout rule.
float brook_level(sampler2D level, int width, int i) {
    return texelFetch(level, brook_texel_at(i, width), 0).x;
}
";

/// The linear position of the fragment in the texture it draws.
const MAIN_START: &str = "    int i = brook_linear_at(brook_fragment, brook_output_width);\n";

/// The up-sweep pass: one level of pair sums.
pub fn scan_up_pass(target: &Target) -> PassProgram {
    let mut s = ScanShader::new(
        target,
        "Brook vout scan, up-sweep (004 §3.3.3): each element sums two neighbours of the finer level.",
    );
    s.sampler("brook_finer", "the finer level (push counts at level 0)");
    s.uniform(
        "brook_finer_length",
        UniformValue::ScanLength,
        "elements of the finer level",
    );
    s.main(
        "float",
        "brook_sum_out",

        "    float left = 2 * i < brook_finer_length ? brook_level(brook_finer, brook_finer_width, 2 * i) : 0.0;
    float right = 2 * i + 1 < brook_finer_length ? brook_level(brook_finer, brook_finer_width, 2 * i + 1) : 0.0;
    brook_sum_out = left + right;
",
    )
}

/// The down-sweep pass: one level's exclusive scan from the coarser level's.
pub fn scan_down_pass(target: &Target) -> PassProgram {
    let mut s = ScanShader::new(
        target,
        "Brook vout scan, down-sweep (004 §3.3.3): each element's exclusive prefix sum from its parent's.",
    );
    s.sampler(
        "brook_coarser",
        "exclusive prefix sums of the coarser level",
    );
    s.sampler("brook_sums", "the up-sweep's sums of this level");
    s.main(
        "float",
        "brook_offset_out",
        "    // A right child adds its left sibling's sum to the parent's offset.
    float offset = brook_level(brook_coarser, brook_coarser_width, i / 2);
    if ((i & 1) == 1) offset += brook_level(brook_sums, brook_sums_width, i - 1);
    brook_offset_out = offset;
",
    )
}

/// The compaction pass of one element member of `width` components (1 to 4) of a vout with
/// room for `candidates` pushes per element (at least 1).
pub fn compact_pass(target: &Target, candidates: u32, width: u8) -> PassProgram {
    let mut s = ScanShader::new(
        target,
        &format!("Brook vout compaction: output element j copies the push it is, from one of {candidates} candidate(s) of the element that made it."),
    );
    s.sampler(
        "brook_offsets",
        "exclusive prefix sums of the push counts, one per element of the call",
    );
    s.sampler(
        "brook_total",
        "top of the up-sweep: texel (0, 0) holds the number of pushes",
    );
    for k in 0..candidates {
        let (name, what) = (
            format!("brook_candidate_{k}"),
            format!("candidate {k} of every element of the call (this member)"),
        );
        if k == 0 {
            s.sampler(&name, &what);
        } else {
            s.sampler_only(&name, &what);
        }
    }
    s.uniform(
        "brook_elements",
        UniformValue::ScanLength,
        "elements of the call",
    );
    let storage = ["float", "vec2", "vec4", "vec4"][width.clamp(1, 4) as usize - 1];
    let swizzle = [".x", ".xy", "", ""][width.clamp(1, 4) as usize - 1];
    let mut body = String::from(
        "    int total = int(texelFetch(brook_total, ivec2(0), 0).x);
    if (i >= total) {
        brook_packed_out = ",
    );
    body.push_str(&format!("{storage}(0.0);\n        return;\n    }}\n"));
    body.push_str(
        "    // The last element whose offset is at most i made push i (offsets never decrease).
    int lo = 0;
    int hi = brook_elements - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (int(brook_level(brook_offsets, brook_offsets_width, mid)) <= i) lo = mid; else hi = mid - 1;
    }
    int k = i - int(brook_level(brook_offsets, brook_offsets_width, lo));
    ivec2 at = brook_texel_at(lo, brook_candidate_0_width);
    vec4 pushed;
",
    );
    for k in 0..candidates {
        let fetch = format!("pushed = texelFetch(brook_candidate_{k}, at, 0);");
        body.push_str(&match k {
            _ if candidates == 1 => format!("    {fetch}\n"),
            0 => format!("    if (k == 0) {fetch}\n"),
            _ if k + 1 == candidates => format!("    else {fetch}\n"),
            _ => format!("    else if (k == {k}) {fetch}\n"),
        });
    }
    body.push_str(&format!("    brook_packed_out = pushed{swizzle};\n"));
    s.main(storage, "brook_packed_out", &body)
}

/// A scan or compaction shader on the one builder. Sampler `k` reads the texture the
/// executor binds on unit `k`; `NAME_width` is that texture's width.
struct ScanShader {
    title: String,
    shader: ShaderBuilder<'static>,
    profile: crate::variant::Profile,
}

impl ScanShader {
    fn new(target: &Target, title: &str) -> ScanShader {
        let mut shader = ShaderBuilder::new(Stage::Fragment, None);
        shader.prelude.require(Helper::Layout);
        shader.uniform(
            "int",
            "brook_output_width",
            UniformValue::OutputWidth,
            "texture width of the level drawn",
        );
        ScanShader {
            title: title.to_string(),
            shader,
            profile: target.profile,
        }
    }

    fn uniform(&mut self, name: &str, value: UniformValue, what: &str) {
        self.shader.uniform("int", name, value, what);
    }

    /// A sampler and its `NAME_width` uniform.
    fn sampler(&mut self, name: &str, what: &str) {
        let unit = self.sampler_only(name, what);
        self.uniform(
            &format!("{name}_width"),
            UniformValue::SampledWidth(unit),
            "its texture width",
        );
    }

    /// A sampler whose texture has the width of another's; returns its unit.
    fn sampler_only(&mut self, name: &str, what: &str) -> u32 {
        let unit = self.shader.samplers.len() as u32;
        let source = MemberRef {
            param: 0,
            member: unit,
        };
        self.shader.sampler(name, source, what)
    }

    /// The pass writing `output` (of GLSL type `storage`) with `body`.
    fn main(mut self, storage: &str, output: &str, body: &str) -> PassProgram {
        self.shader.accessors.push_str(LEVEL_FETCH);
        let outputs = output_declaration(0, storage, output);
        let body = format!("{MAIN_START}{body}");
        PassProgram {
            fragment: self
                .shader
                .text(self.profile, &self.title, &outputs, "", &body),
            outputs: vec![MemberRef {
                param: 0,
                member: 0,
            }],
            samplers: self.shader.samplers,
            uniforms: self.shader.uniforms,
            loop_status: None,
        }
    }
}
