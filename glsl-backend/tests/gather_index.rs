//! The shader text of Brook's gather index rule: a float index is rounded at the call
//! (`floor(v + 0.25)`) unless it is proven integral, and the accessor clamps it in float —
//! against `extent - 1` as floats, computed once per fragment, in a direct layout; against 2^30
//! and then in integers in a wrapped one, whose extents float may not hold exactly. The values
//! themselves are checked against the CPU in the root package's `index_rule` tests.

use brook_glsl::{Access, Placement, Wrap};
use brook_ir::ParamClass;

mod common;

/// The fragment shader of kernel `k`, its gathers reached as `gather`, its input streams of
/// the output's shape.
fn fragment(src: &str, gather: Access) -> String {
    common::fragment(src, |f| {
        (f.params.iter())
            .map(|p| match p.class {
                ParamClass::Gather { .. } => gather,
                ParamClass::Stream => Access::AtFragment,
                _ => Access::Value,
            })
            .collect()
    })
}

const DIRECT_2D: Access = Access::GatherDirect { rank: 2 };

/// The lines of the body of the Brook kernel `k` in the shader.
fn body(text: &str) -> String {
    let start = text.find("void k(").expect("the kernel's function");
    let end = start + text[start..].find("\n}\n").unwrap();
    text[start..end].to_string()
}

#[test]
fn a_direct_float_gather_clamps_in_float_against_the_hoisted_bound() {
    let src = "kernel void k(float a[][], float2 p<>, out float r<>) { r = a[p]; }";
    let text = fragment(src, DIRECT_2D);
    assert!(
        body(&text).contains("brook_gather_a(vec4(floor(p + 0.25), 0.0, 0.0))"),
        "{text}"
    );
    assert!(
        text.contains(
            "float brook_gather_a(vec4 r) { return brook_element_a(ivec4(brook_gather_clamp(r.xy, a_last_f.xy), 0, 0)); }"
        ),
        "{text}"
    );
    // The float bound once per fragment, and the helper: a comparison, a min and a select.
    assert!(text.contains("    a_last_f = vec4(a_last);\n"), "{text}");
    assert!(
        text.contains(
            "ivec2 brook_gather_clamp(vec2 r, vec2 last) { return ivec2(mix(vec2(0.0), min(r, last), greaterThanEqual(r, vec2(0.0)))); }"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "int brook_gather_clamp(float r, float last) { return int(r >= 0.0 ? min(r, last) : 0.0); }"
        ),
        "{text}"
    );
    assert!(!text.contains("isnan"), "{text}");
}

#[test]
fn a_wrapped_float_gather_bounds_the_conversion_then_clamps_in_integers() {
    let src = "kernel void k(float a[], float p<>, out float r<>) { r = a[p]; }";
    let text = fragment(
        src,
        Access::GatherTranslated {
            rank: 1,
            wrap: Wrap::Uniform,
        },
    );
    assert!(
        text.contains(
            "float brook_gather_a(vec4 r) { return brook_element_a(ivec4(min(brook_gather_clamp(r.x, float(1073741824.0)), a_last.x), 0, 0, 0)); }"
        ),
        "{text}"
    );
    assert!(!text.contains("a_last_f"), "{text}");
    // A domain of a direct layout is a rectangle of its texture: float bounds again.
    let text = fragment(
        src,
        Access::GatherDomain {
            rank: 1,
            placement: Placement::Direct,
        },
    );
    assert!(
        text.contains("brook_gather_clamp(r.x, a_last_f.x)"),
        "{text}"
    );
}

#[test]
fn integral_indices_skip_the_rounding() {
    // indexof, integer literals, + - * and negation of them, floor, ceil, round, int values
    // converted, abs/min/max/clamp and selections of them, through locals, swizzles, and
    // vectors built of them; a loop that only adds integers keeps its counter integral.
    let src = "kernel void k(float a[][], float s<>, int n, out float r<>) {
        float2 p = indexof(r).xy;
        float c = 0.0;
        for (int j = 0; j < n; j++) { c += 2.0; }
        float2 q = float2(floor(s), ceil(s)) * 3.0 - round(s);
        float m = max(abs(-p.x), min(c, clamp(float(n), 0.0, 4.0)));
        float t = s > 0.5 ? p.y : float(n);
        r = a[p + float2(-1.0, 1.0)] + a[q] + a[float2(m, t)] + a[p.yx * p.x] + a[float2(1e30, -2.0)];
    }";
    let text = fragment(src, DIRECT_2D);
    let body = body(&text);
    assert!(!body.contains("+ 0.25"), "{body}");
    assert_eq!(body.matches("brook_gather_a(vec4(").count(), 5, "{body}");
}

#[test]
fn values_not_proven_integral_keep_the_rounding() {
    // A constant (a uniform: any float), an input, a gathered value, a quotient, a fraction,
    // a local once given one of those, and a local `modf` writes are rounded at the call.
    let src = "kernel void k(float a[], float b[], float2 axis, float s<>, out float r<>) {
        float2 p = indexof(r).xy;
        float later = p.x;
        later = later + 0.5;
        float w;
        float f = modf(s, w);
        float counted = 0.0;
        counted += 1.0;
        counted *= s;
        r = a[p.x * axis.x] + a[s] + a[b[p.x]] + a[p.x / 2.0] + a[later] + a[w] + a[counted] + f;
    }";
    let text = fragment(src, Access::GatherDirect { rank: 1 });
    let body = body(&text);
    assert_eq!(body.matches("+ 0.25)").count(), 7, "{body}");
    // The one proven integral: the index of b.
    assert!(
        body.contains("brook_gather_b(vec4(p.x, 0.0, 0.0, 0.0))"),
        "{body}"
    );
}
