//! The pass that draws a write mask into a depth texture (000 §7.4.2): one texel of the mask
//! per fragment, depth 1.0 where the mask's first float is non-zero and 0.0 elsewhere (and on
//! the layout's padding texels). A masked kernel pass later draws at depth 0.5 with the test
//! `LESS`, so the texels whose mask is off keep their values.

use crate::shader::{MemberRef, PassProgram, SamplerSlot, UniformSlot, UniformValue};
use crate::variant::Target;

const MASK_FRAGMENT: &str = "// Brook write mask: depth 1.0 where the element's mask is on, 0.0 where it is off or past the stream.
uniform sampler2D brook_mask; // the mask stream's first member
uniform int brook_elements; // elements of the stream (the texels past them are padding)
uniform int brook_output_width; // texture width of the stream
uniform bool brook_all; // every element on (a write query without a mask)
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    bool inside = t.y * brook_output_width + t.x < brook_elements;
    bool on = inside && (brook_all || texelFetch(brook_mask, t, 0).x != 0.0);
    gl_FragDepth = on ? 1.0 : 0.0;
}
";

/// The mask-drawing pass; its one sampler reads the mask stream's first member.
pub fn mask_pass(target: &Target) -> PassProgram {
    let uniform = |name: &str, value| UniformSlot {
        uniform: name.into(),
        value,
    };
    PassProgram {
        fragment: format!("{}{MASK_FRAGMENT}", target.profile.header()),
        outputs: Vec::new(),
        samplers: vec![SamplerSlot {
            uniform: "brook_mask".into(),
            source: MemberRef {
                param: 0,
                member: 0,
            },
        }],
        uniforms: vec![
            uniform("brook_elements", UniformValue::ElementCount),
            uniform("brook_output_width", UniformValue::OutputWidth),
            uniform("brook_all", UniformValue::MaskAll),
        ],
    }
}
