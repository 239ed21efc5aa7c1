//! Helper functions a shader may need, emitted only when used.
//!
//! GLSL has no built-in with Cg's meaning for these, so each gets a small, overloaded
//! function; the comments say which Cg rule it implements.

use std::collections::BTreeSet;

/// A helper the generated code calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Helper {
    /// Cg `fmod`: the remainder with the sign of `x` (`x - y * trunc(x / y)`); GLSL `mod` floors.
    Fmod,
    /// Cg `round`: halves away from zero; GLSL `round` may pick either way.
    Round,
    /// Cg `isfinite`.
    IsFinite,
    /// Cg `frexp` (GLSL has it only from 4.00): mantissa in [0.5, 1), exponent stored.
    Frexp,
    /// The layout rule itself: the texel of a linear position and back (`brook_texel_at`,
    /// `brook_linear_at`). Every shader that turns elements into texels calls these.
    Layout,
    /// Element indices and their linear positions, and the texel of an index
    /// (`brook_linearize`, `brook_unlinearize`, `brook_texel`); needs [`Helper::Layout`].
    Addressing,
    /// Brook's implicit resize along one index component.
    Resize,
    /// Brook's gather rounding of a float index, `floor(v + 0.25)`, for 1 to 4 components.
    GatherRound,
    /// Brook's whole gather index rule (rounding and clamp) on a `vec4` index.
    GatherIndex,
    /// Cg's `c ? a : b` with a `bool` vector `c`: component by component (GLSL 3.30 has no
    /// `mix` on booleans, and `mix` on floats is not exact with infinities).
    Select,
    /// Cg `pack_4ubyte` / `unpack_4ubyte`: four unit floats as the bytes of one float's bits.
    Pack4ubyte,
}

/// The set of helpers one shader uses.
#[derive(Debug, Default, Clone)]
pub struct Prelude {
    used: BTreeSet<Helper>,
}

impl Prelude {
    pub fn require(&mut self, helper: Helper) {
        if helper == Helper::Addressing {
            self.used.insert(Helper::Layout);
        }
        self.used.insert(helper);
    }

    /// The GLSL text of every helper required so far.
    pub fn source(&self) -> String {
        self.used.iter().map(|h| helper_source(*h)).collect()
    }
}

/// The layout rule's helpers, for shaders written outside this crate (viz's views): the same
/// text generated shaders get.
pub fn layout_helpers() -> &'static str {
    LAYOUT
}

const GEN_FLOAT: [&str; 4] = ["float", "vec2", "vec3", "vec4"];
const GEN_BOOL: [&str; 4] = ["bool", "bvec2", "bvec3", "bvec4"];

fn helper_source(helper: Helper) -> String {
    match helper {
        Helper::Fmod => overloads("// Cg fmod: remainder with the sign of x.\n", |t, _| {
            format!("{t} brook_fmod({t} x, {t} y) {{ return x - y * trunc(x / y); }}\n")
        }),
        Helper::Round => overloads("// Cg round: halves away from zero.\n", |t, _| {
            format!("{t} brook_round({t} x) {{ return sign(x) * floor(abs(x) + 0.5); }}\n")
        }),
        Helper::IsFinite => overloads("// Cg isfinite.\n", |t, i| {
            let b = GEN_BOOL[i];
            if i == 0 {
                format!("{b} brook_isfinite({t} x) {{ return !(isnan(x) || isinf(x)); }}\n")
            } else {
                format!(
                    "{b} brook_isfinite({t} x) {{ return not(bvec{n}(ivec{n}(isnan(x)) + ivec{n}(isinf(x)))); }}\n",
                    n = i + 1
                )
            }
        }),
        Helper::Frexp => FREXP.to_string(),
        Helper::Layout => LAYOUT.to_string(),
        Helper::Addressing => ADDRESSING.to_string(),
        Helper::Resize => RESIZE.to_string(),
        Helper::GatherRound => {
            let int = ["int", "ivec2", "ivec3", "ivec4"];
            overloads(
                "// Brook's gather rounding: floor(v + 0.25), so texel-centre coordinates from any source land on their element.\n",
                |t, i| {
                    let n = int[i];
                    format!("{n} brook_gather_round({t} v) {{ return {n}(floor(v + 0.25)); }}\n")
                },
            )
        }
        Helper::GatherIndex => GATHER_INDEX.to_string(),
        Helper::Select => select_source(),
        Helper::Pack4ubyte => PACK_4UBYTE.to_string(),
    }
}

fn select_source() -> String {
    let mut s =
        String::from("// Cg's ?: with a bool vector condition: each component from its side.\n");
    for prefix in ["", "i", "b"] {
        for n in 2..=4 {
            let t = format!("{prefix}vec{n}");
            let parts: Vec<String> = ["x", "y", "z", "w"][..n]
                .iter()
                .map(|c| format!("c.{c} ? a.{c} : b.{c}"))
                .collect();
            s.push_str(&format!(
                "{t} brook_select(bvec{n} c, {t} a, {t} b) {{ return {t}({}); }}\n",
                parts.join(", ")
            ));
        }
    }
    s
}

fn overloads(comment: &str, one: impl Fn(&str, usize) -> String) -> String {
    let mut s = comment.to_string();
    for (i, t) in GEN_FLOAT.iter().enumerate() {
        s.push_str(&one(t, i));
    }
    s
}

/// The layout rule of every stream (brook-texture-streams' `Layout`): the element with linear
/// position `L` lives at texel `(L mod W, L div W)` of a texture `W` texels wide. This is the
/// only place generated GLSL (and viz) divides by a texture width: scatter, scan, the write
/// mask and the views call these, so a change of layout is one change here.
const LAYOUT: &str = "\
// The layout rule: linear position L lives at texel (L mod W, L div W) of a texture W wide.
ivec2 brook_texel_at(int linear, int width) {
    return ivec2(linear % width, linear / width);
}
// The linear position held by a texel of a texture W wide.
int brook_linear_at(ivec2 texel, int width) {
    return texel.y * width + texel.x;
}
";

/// Element indices of any rank and their linear positions (and the output index of a wrapped
/// output).
///
/// An element index is an `ivec4` whose `.x` is the last (fastest) dimension, like Brook's
/// `indexof`; an extent vector has 1 in unused dimensions. Everything is 32-bit integer
/// arithmetic, so addresses are exact for every stream that fits in a texture.
const ADDRESSING: &str = "\
// Row-major linear position of an element: .x is the last (fastest) dimension.
int brook_linearize(ivec4 index, ivec4 extent) {
    return ((index.w * extent.z + index.z) * extent.y + index.y) * extent.x + index.x;
}
// The element at a linear position.
ivec4 brook_unlinearize(int linear, ivec4 extent) {
    ivec4 index;
    index.x = linear % extent.x; linear /= extent.x;
    index.y = linear % extent.y; linear /= extent.y;
    index.z = linear % extent.z;
    index.w = linear / extent.z;
    return index;
}
// The texel holding an element.
ivec2 brook_texel(ivec4 index, ivec4 extent, int width) {
    return brook_texel_at(brook_linearize(index, extent), width);
}
";

/// The bytes are moved as bits (`uintBitsToFloat`), never through float arithmetic, so every
/// pattern survives that the texture keeps.
const PACK_4UBYTE: &str = "\
// Cg pack_4ubyte: each component saturated, scaled to 0..255 and rounded, .x in the lowest
// byte; the four bytes are the bits of the result.
float brook_pack_4ubyte(vec4 v) {
    uvec4 b = uvec4(floor(clamp(v, 0.0, 1.0) * 255.0 + 0.5));
    return uintBitsToFloat(b.x | (b.y << 8) | (b.z << 16) | (b.w << 24));
}
// Cg unpack_4ubyte: the four bytes of the bits, lowest first, each divided by 255.
vec4 brook_unpack_4ubyte(float f) {
    uint u = floatBitsToUint(f);
    return vec4(uvec4(u, u >> 8, u >> 16, u >> 24) & 255u) / 255.0;
}
";

const GATHER_INDEX: &str = "\
// Brook's gather index rule: floor(v + 0.25), clamped to the stream.
ivec4 brook_gather_index(vec4 v, ivec4 extent) {
    return clamp(ivec4(floor(v + 0.25)), ivec4(0), extent - 1);
}
";

/// Only the index components whose extents differ call it (see `Resize`): the division is the
/// expensive part of a resized access.
const RESIZE: &str = "\
// Implicit resize: output element i reads input element floor(i * in / out) along a dimension.
int brook_resize(int i, int from_extent, int to_extent) {
    return int((uint(i) * uint(to_extent)) / uint(from_extent));
}
";

/// `x = m * 2^e` with `|m|` in `[0.5, 1)`; zero, infinities and NaN give `(x, 0)`. The scale by
/// `2^-e` is split in two so that neither factor leaves the normal float range.
const FREXP: &str = "\
// Cg frexp: x = m * 2^e with |m| in [0.5, 1); 0, inf and NaN give (x, 0).
float brook_frexp(float x, out float e) {
    if (x == 0.0 || isinf(x) || isnan(x)) { e = 0.0; return x; }
    e = floor(log2(abs(x))) + 1.0;
    float half_e = floor(e * 0.5);
    float m = x * exp2(-half_e) * exp2(half_e - e);
    if (abs(m) >= 1.0) { m *= 0.5; e += 1.0; }
    if (abs(m) < 0.5) { m *= 2.0; e -= 1.0; }
    return m;
}
vec2 brook_frexp(vec2 x, out vec2 e) { return vec2(brook_frexp(x.x, e.x), brook_frexp(x.y, e.y)); }
vec3 brook_frexp(vec3 x, out vec3 e) { return vec3(brook_frexp(x.x, e.x), brook_frexp(x.y, e.y), brook_frexp(x.z, e.z)); }
vec4 brook_frexp(vec4 x, out vec4 e) {
    return vec4(brook_frexp(x.x, e.x), brook_frexp(x.y, e.y), brook_frexp(x.z, e.z), brook_frexp(x.w, e.w));
}
";
