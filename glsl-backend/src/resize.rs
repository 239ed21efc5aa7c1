//! Brook's implicit resize as GLSL, specialised per index component (see [`Resize`]).

use crate::builder::ShaderBuilder;
use crate::pass::UniformValue;
use crate::prelude::Helper;
use crate::variant::{Axis, Resize};

/// The `ivec4` index of the input element that the element `index` of a call reads from
/// parameter `param` (GLSL name `name`). Components whose extents are equal pass through and
/// those of extent 1 are 0, so only the others divide, by the ratio of the two extents reduced
/// by their gcd (`brook_core::index::resize_ratio`), held in two uniforms: the scaled-from
/// extents are the outputs' (`scale_from` `None`) or parameter `scale_from`'s (a kernel fused
/// into a reduction, whose output is never stored).
pub fn resized_index(
    resize: Resize,
    index: &str,
    (param, name): (u32, &str),
    scale_from: Option<u32>,
    parts: &mut ShaderBuilder,
) -> String {
    if resize.is_identity() {
        return index.to_string();
    }
    let (from, to) = (format!("{name}_resize_from"), format!("{name}_resize_to"));
    if resize.0.contains(&Axis::Scaled) {
        parts.prelude.require(Helper::Resize);
        parts.uniform(
            "ivec4",
            &from,
            UniformValue::ResizeFrom { param, scale_from },
            &format!("extents `{name}` is resized from, reduced by the gcd"),
        );
        parts.uniform(
            "ivec4",
            &to,
            UniformValue::ResizeTo { param, scale_from },
            &format!("extents of `{name}`, reduced by the gcd"),
        );
    }
    let components: Vec<String> = resize
        .0
        .iter()
        .zip(["x", "y", "z", "w"])
        .map(|(axis, c)| match axis {
            Axis::Same => format!("{index}.{c}"),
            Axis::Zero => "0".to_string(),
            Axis::Scaled => format!("brook_resize({index}.{c}, {from}.{c}, {to}.{c})"),
        })
        .collect();
    format!("ivec4({})", components.join(", "))
}
