//! The shader text of resized inputs, iterators and gathers: components whose extents match
//! pass through, those of extent 1 are 0, only the others divide, and a direct layout's index
//! is its texel — so the common resizes (a row vector over a matrix) and gathers from 1D and 2D
//! streams cost no integer division per fragment.

use brook_glsl::{Access, Axis, Placement, Resize, Wrap};

mod common;

/// The fragment shader of kernel `k`, its parameters reached as `params`.
fn fragment(src: &str, params: Vec<Access>) -> String {
    common::fragment(src, |_| params)
}

/// The shader without its comments, which quote Brook source.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

const MUL: &str = "kernel void k(float a<>, float x<>, out float t<>) { t = a * x; }";

#[test]
fn resize_classes_follow_the_extents() {
    use Axis::*;
    // x<1,n> over <n,n>: the column passes through, the single row is 0.
    assert_eq!(
        Resize::between(&[9, 9], &[1, 9]),
        Resize([Same, Zero, Same, Same])
    );
    // A 1D input is a row: left-padded with 1.
    assert_eq!(
        Resize::between(&[9, 9], &[9]),
        Resize([Same, Zero, Same, Same])
    );
    // A column of row sums over a matrix, and a matrix into a column.
    assert_eq!(
        Resize::between(&[9, 9], &[9, 1]),
        Resize([Zero, Same, Same, Same])
    );
    assert_eq!(
        Resize::between(&[9, 1], &[9, 9]),
        Resize([Zero, Same, Same, Same])
    );
    // Repeat and stride, and a higher-rank input read through its last dimensions.
    assert_eq!(
        Resize::between(&[10], &[5]),
        Resize([Scaled, Same, Same, Same])
    );
    assert_eq!(
        Resize::between(&[4, 5], &[2, 15]),
        Resize([Scaled, Scaled, Same, Same])
    );
    assert_eq!(
        Resize::between(&[5], &[3, 5]),
        Resize([Same, Zero, Same, Same])
    );
    assert!(Resize::between(&[3, 4], &[3, 4]).is_identity());
}

#[test]
fn a_direct_row_vector_over_a_matrix_divides_nowhere() {
    let resize = Resize::between(&[64, 64], &[1, 64]);
    let text = fragment(
        MUL,
        vec![
            Access::AtFragment,
            Access::Resized(resize, Placement::Direct),
            Access::Value,
        ],
    );
    assert!(
        text.contains("brook_index_x = ivec4(brook_output_index.x, 0, brook_output_index.z, brook_output_index.w);"),
        "{text}"
    );
    assert!(
        text.contains("texelFetch(x_tex, (brook_index_x).xy, 0)"),
        "{text}"
    );
    let code = code(&text);
    assert!(!code.contains('/') && !code.contains('%'), "{code}");
    assert!(
        !code.contains("brook_resize") && !code.contains("x_width"),
        "{code}"
    );
}

#[test]
fn only_scaled_components_divide() {
    // <2,15> into <4,5>: rows repeat and columns stride, each through one scalar division.
    let resize = Resize::between(&[4, 5], &[2, 15]);
    let text = fragment(
        MUL,
        vec![
            Access::AtFragment,
            Access::Resized(resize, Placement::Direct),
            Access::Value,
        ],
    );
    // The ratio is the call's extents against the input's, each reduced by the gcd (uniforms).
    assert!(text.contains("ivec4(brook_resize(brook_output_index.x, x_resize_from.x, x_resize_to.x), brook_resize(brook_output_index.y, x_resize_from.y, x_resize_to.y), brook_output_index.z, brook_output_index.w)"), "{text}");
    assert!(
        text.contains("uniform ivec4 x_resize_from;")
            && text.contains("uniform ivec4 x_resize_to;"),
        "{text}"
    );
    assert_eq!(code(&text).matches(" / ").count(), 1, "{text}");
    // A wrapped input is translated from its index.
    let text = fragment(
        MUL,
        vec![
            Access::AtFragment,
            Access::Resized(resize, Placement::Translated(Wrap::Uniform)),
            Access::Value,
        ],
    );
    assert!(
        text.contains("texelFetch(x_tex, brook_texel(brook_index_x, x_extent, x_width), 0)"),
        "{text}"
    );
}

#[test]
fn iterators_of_the_output_shape_read_the_output_index() {
    let src = "kernel void k(iter float2 it<>, out float2 r<>) { r = it; }";
    let text = fragment(
        src,
        vec![Access::IterNd(Resize([Axis::Same; 4])), Access::Value],
    );
    assert!(
        text.contains("brook_index_it = brook_output_index;"),
        "{text}"
    );
    assert!(!code(&text).contains('/'), "{text}");
}

#[test]
fn gathers_round_and_clamp_only_the_components_of_their_rank() {
    let src =
        "kernel void k(float a[][], float x[], out float r<>) { r = a[indexof(r).x][2] * x[3]; }";
    let text = fragment(
        src,
        vec![
            Access::GatherDirect { rank: 2 },
            Access::GatherDirect { rank: 1 },
            Access::Value,
        ],
    );
    assert!(
        text.contains(
            "float brook_gather_a(ivec4 i) { return brook_element_a(ivec4(clamp(i.xy, ivec2(0), a_last.xy), 0, 0)); }"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "float brook_gather_x(ivec4 i) { return brook_element_x(ivec4(clamp(i.x, 0, x_last.x), 0, 0, 0)); }"
        ),
        "{text}"
    );
    // Among int subscripts a float one is clamped to int's range at the call (here without
    // the rounding: `indexof` is integral), an int one is used as it is.
    assert!(
        text.contains(
            "brook_gather_a(ivec4(2, brook_gather_clamp(vec4(brook_index_r).x, float(1073741824.0)), 0, 0))"
        ),
        "{text}"
    );
    assert!(text.contains("brook_gather_x(ivec4(3, 0, 0, 0))"), "{text}");
    // The clamp's bound is computed once per fragment, not per gather.
    assert!(text.contains("    a_last = a_extent - 1;\n"), "{text}");
    assert!(text.contains("texelFetch(x_tex, (index).xy, 0)"), "{text}");
    let code = code(&text);
    assert!(!code.contains('/') && !code.contains('%'), "{code}");
    // A rank-4 stream is wrapped and uses every component.
    let text = fragment(
        src,
        vec![
            Access::GatherTranslated {
                rank: 4,
                wrap: Wrap::Uniform,
            },
            Access::GatherDirect { rank: 1 },
            Access::Value,
        ],
    );
    assert!(
        text.contains("brook_element_a(clamp(i, ivec4(0), a_last))"),
        "{text}"
    );
    assert!(
        text.contains("brook_texel(index, a_extent, a_width)"),
        "{text}"
    );
    // In a texture 2^k wide, a mask and a shift by a constant: no width uniform, no division.
    let text = fragment(
        src,
        vec![
            Access::GatherTranslated {
                rank: 4,
                wrap: Wrap::PowerOfTwo(14),
            },
            Access::GatherDirect { rank: 1 },
            Access::Value,
        ],
    );
    assert!(
        text.contains("brook_texel_at_pow2(brook_linearize(index, a_extent), 14)"),
        "{text}"
    );
    assert!(!text.contains("a_width"), "{text}");
}
