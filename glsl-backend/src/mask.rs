//! The pass that draws a write mask into a depth texture (000 §7.4.2): one texel of the mask
//! per fragment, depth 1.0 where the mask's first float is non-zero (open), 0.5 elsewhere
//! (set), and 0.0 on the layout's padding texels. Kernel passes draw at depth 0.5: with the
//! test `LESS` only open texels pass (the mask's test), with `LEQUAL` every element's texel
//! and no padding (the set mode alone); writing depth marks the texels drawn as set.

use crate::builder::{ShaderBuilder, Stage};
use crate::pass::{MemberRef, PassProgram, UniformValue};
use crate::prelude::Helper;
use crate::variant::Target;

/// The mask-drawing pass; its one sampler reads the mask stream's first member.
pub fn mask_pass(target: &Target) -> PassProgram {
    let mut shader = ShaderBuilder::new(Stage::Fragment, None);
    shader.prelude.require(Helper::Layout);
    let mask = MemberRef {
        param: 0,
        member: 0,
    };
    shader.sampler("brook_mask", mask, "the mask stream's first member");
    shader.uniform(
        "int",
        "brook_elements",
        UniformValue::ElementCount,
        "elements of the stream (the texels past them are padding)",
    );
    shader.uniform(
        "int",
        "brook_output_width",
        UniformValue::OutputWidth,
        "texture width of the stream",
    );
    shader.uniform(
        "bool",
        "brook_all",
        UniformValue::MaskAll,
        "every element on (a write query without a mask)",
    );
    let body =
        "    bool inside = brook_linear_at(brook_fragment, brook_output_width) < brook_elements;
    bool on = brook_all || texelFetch(brook_mask, brook_fragment, 0).x != 0.0;
    gl_FragDepth = !inside ? 0.0 : on ? 1.0 : 0.5;
";
    let title = "Brook write mask: depth 1.0 where the element's mask is on (open), 0.5 where it is off (set), 0.0 past the stream.";
    PassProgram {
        fragment: shader.text(target.profile, title, "", "", body),
        outputs: Vec::new(),
        samplers: shader.samplers,
        uniforms: shader.uniforms,
        loop_status: None,
    }
}
