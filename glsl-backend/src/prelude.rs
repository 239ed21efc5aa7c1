//! Helper functions a shader may need, emitted only when used.
//!
//! GLSL has no built-in with Cg's meaning for these, so each gets a small, overloaded
//! function; the comments say which Cg rule it implements.

use std::collections::BTreeSet;

use crate::math::MathFile;

/// A helper the generated code calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Helper {
    /// A file of the math library (`math.rs`): Cg's transcendental functions to a stated accuracy.
    Math(MathFile),
    /// Cg `fmod`: the remainder with the sign of `x` (`x - y * trunc(x / y)`); GLSL `mod` floors.
    Fmod,
    /// Cg `round`: halves away from zero; GLSL `round` may pick either way.
    Round,
    /// Cg `dot` by its defining formula, added in component order as the other backends do
    /// (GLSL's `dot` may add in another order; `length`, `distance` and `normalize` are
    /// written with it by `brook_ir::lower_composites`).
    Dot,
    /// Cg `isfinite`.
    IsFinite,
    /// Cg `saturate` without GLSL's `clamp(x, 0.0, 1.0)`, which Mesa turns into its `fsat`
    /// instruction: Mesa 22.3's optimiser then rewrites `max(fsat(a), b)` as `fsat(max(a, b))`
    /// even for a constant `b` above 1, so `max(saturate(x), 1.75)` gave 1 on llvmpipe.
    Saturate,
    /// Integer `/` and `%` as C defines them for negative operands (GLSL leaves `%` of a
    /// negative undefined; llvmpipe gives 7 % -2 = 7), and 0 for a zero divisor, as on the CPU
    /// (llvmpipe gives -1 for x % 0).
    IntDivision,
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
    /// Brook's clamp of a rounded float index to `[0, last]` in float, NaN to 0, for 1 to 4
    /// components.
    GatherClamp,
    /// Brook's whole gather index rule (rounding and clamp) on a `vec4` index.
    GatherIndex,
    /// Float comparisons computed into a `brook_precise` local (`brook_lt`, … `brook_ne`):
    /// `precise` covers what is stored in a precise variable, and NVIDIA's compiler does not
    /// carry it through a comparison whose result only selects (`mix`, an eager `&&`):
    /// `x - x == 0.0 && x < 3.0 ? 1.0 : 0.0` gave 1 for `x = -inf` there (folding `x - x`).
    PreciseCompare,
    /// Cg's `c ? a : b` with a `bool` vector `c`: component by component (GLSL 3.30 has no
    /// `mix` on booleans, and `mix` on floats is not exact with infinities).
    Select,
    /// Cg `pack_4ubyte` / `unpack_4ubyte`: four unit floats as the bytes of one float's bits.
    Pack4ubyte,
    /// `brook_loop_cut`: the Brook line of a loop the driver ended early (`loops.rs`).
    LoopCheck,
    /// `brook_zero`, an int uniform no pass sets: GL starts every uniform at zero when a
    /// program is linked, and a compiler cannot fold what it cannot see. Constant operands are
    /// made opaque with it (`lower/expr.rs`), and the loop checks read it ([`Helper::LoopCheck`]).
    Zero,
}

/// The set of helpers one shader uses.
#[derive(Debug, Default, Clone)]
pub struct Prelude {
    used: BTreeSet<Helper>,
    /// Loops with a run-time check so far, each with its own count of exits (`LOOP_CHECK`).
    checked_loops: usize,
}

impl Prelude {
    pub fn require(&mut self, helper: Helper) {
        // Helpers are emitted in declaration order, so one may call those declared before it.
        if helper == Helper::GatherIndex {
            self.used.insert(Helper::GatherClamp);
        }
        if helper == Helper::Addressing {
            self.used.insert(Helper::Layout);
        }
        if helper == Helper::LoopCheck {
            self.used.insert(Helper::Zero);
        }
        if let Helper::Math(file) = helper {
            self.used
                .extend(file.needs().iter().map(|f| Helper::Math(*f)));
        }
        self.used.insert(helper);
    }

    /// The number of a new checked loop, whose exit count is `brook_left{n}`.
    pub fn checked_loop(&mut self) -> usize {
        self.require(Helper::LoopCheck);
        self.checked_loops += 1;
        self.checked_loops - 1
    }

    /// The GLSL text of every helper required so far.
    pub fn source(&self) -> String {
        let mut s: String = self.used.iter().map(|h| helper_source(*h)).collect();
        if self.checked_loops > 0 {
            let counts: Vec<String> = (0..self.checked_loops)
                .map(|n| format!("brook_left{n} = 0"))
                .collect();
            s.push_str(&format!("int {};\n", counts.join(", ")));
        }
        s
    }
}

/// The layout rule's helpers, for shaders written outside this crate (viz's views): the same
/// text generated shaders get.
pub fn layout_helpers() -> &'static str {
    LAYOUT
}

/// The float types of 1 to 4 components.
pub(crate) const GEN_FLOAT: [&str; 4] = ["float", "vec2", "vec3", "vec4"];
/// The int types of 1 to 4 components.
pub(crate) const GEN_INT: [&str; 4] = ["int", "ivec2", "ivec3", "ivec4"];
const GEN_BOOL: [&str; 4] = ["bool", "bvec2", "bvec3", "bvec4"];

fn helper_source(helper: Helper) -> String {
    match helper {
        Helper::Math(file) => crate::math::source(file),
        Helper::Fmod => overloads("// Cg fmod: remainder with the sign of x.\n", |t, _| {
            format!("{t} brook_fmod({t} x, {t} y) {{ return x - y * trunc(x / y); }}\n")
        }),
        Helper::Round => overloads(
            "// Cg round: halves away from zero. From trunc, so no addition rounds (0.49999997 + 0.5\n// is 1.0 in float) and -0.3 keeps its sign (-0.0).\n",
            |t, i| {
                let pick = if i == 0 {
                    "abs(x - t) >= 0.5 ? t + sign(x) : t".to_string()
                } else {
                    format!("mix(t, t + sign(x), greaterThanEqual(abs(x - t), {t}(0.5)))")
                };
                format!("{t} brook_round({t} x) {{ {t} t = trunc(x); return {pick}; }}\n")
            },
        ),
        Helper::Dot => overloads(
            "// Cg dot by its formula (brook_ir::accuracy), added in component order.\n",
            |t, i| {
                format!(
                    "float brook_dot({t} a, {t} b) {{ return {dot}; }}\n",
                    dot = dot_in_order(i + 1)
                )
            },
        ),
        Helper::IntDivision => {
            let mut s = String::from("// Integer / and % truncating toward zero, 0 for a zero divisor (as C, and the CPU backend).\n");
            for t in ["int", "ivec2", "ivec3", "ivec4"] {
                // Divide by 1 where the divisor is 0, then zero those components.
                let (zero, safe) = if t == "int" {
                    ("int(b != 0)".to_string(), "b + int(b == 0)".to_string())
                } else {
                    (format!("{t}(notEqual(b, {t}(0)))"), format!("b + {t}(equal(b, {t}(0)))"))
                };
                s.push_str(&format!(
                    "{t} brook_idiv({t} a, {t} b) {{ return {zero} * (a / ({safe})); }}\n\
                     {t} brook_imod({t} a, {t} b) {{ return {zero} * (a - b * (a / ({safe}))); }}\n"
                ));
            }
            s
        }
        Helper::Saturate => overloads(
            "// Cg saturate as a select, not clamp: Mesa's fsat is rewritten wrongly inside max().\n// A NaN gives 0, as max ignores it.\n",
            |t, i| {
                let pick = if i == 0 {
                    "x >= 1.0 ? 1.0 : max(x, 0.0)".to_string()
                } else {
                    format!("mix(max(x, 0.0), {t}(1.0), greaterThanEqual(x, {t}(1.0)))")
                };
                format!("{t} brook_saturate({t} x) {{ return {pick}; }}\n")
            },
        ),
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
        Helper::GatherClamp => {
            overloads(GATHER_CLAMP_COMMENT, |t, i| {
                let n = GEN_INT[i];
                let pick = if i == 0 {
                    "r >= 0.0 ? min(r, last) : 0.0".to_string()
                } else {
                    format!("mix({t}(0.0), min(r, last), greaterThanEqual(r, {t}(0.0)))")
                };
                format!("{n} brook_gather_clamp({t} r, {t} last) {{ return {n}({pick}); }}\n")
            })
        }
        Helper::GatherIndex => gather_index_source(),
        Helper::Select => select_source(),
        Helper::PreciseCompare => precise_compare_source(),
        Helper::Pack4ubyte => PACK_4UBYTE.to_string(),
        Helper::LoopCheck => LOOP_CHECK.to_string(),
        Helper::Zero => {
            "uniform int brook_zero; // never set, so 0 (GL zeroes uniforms at link); the compiler cannot know that\n".to_string()
        }
    }
}

/// Brook's comparisons: the operator, the suffix of its [`Helper::PreciseCompare`] helper,
/// and GLSL's component-wise built-in for vectors.
pub(crate) const COMPARISONS: [(&str, &str, &str); 6] = [
    ("<", "lt", "lessThan"),
    ("<=", "le", "lessThanEqual"),
    (">", "gt", "greaterThan"),
    (">=", "ge", "greaterThanEqual"),
    ("==", "eq", "equal"),
    ("!=", "ne", "notEqual"),
];

fn precise_compare_source() -> String {
    let mut s = String::from(
        "// Float comparisons kept in a precise local, so their operands are computed exactly as written.\n",
    );
    for (sym, name, vector) in COMPARISONS {
        for (i, t) in GEN_FLOAT.iter().enumerate() {
            let (b, test) = if i == 0 {
                (GEN_BOOL[0], format!("a {sym} b"))
            } else {
                (GEN_BOOL[i], format!("{vector}(a, b)"))
            };
            s.push_str(&format!(
                "{b} brook_{name}(brook_precise {t} a, brook_precise {t} b) {{ brook_precise {b} r = {test}; return r; }}\n"
            ));
        }
    }
    s
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

/// `a.x * b.x + a.y * b.y + …` over `n` components, added left to right (a scalar for n = 1).
fn dot_in_order(n: usize) -> String {
    if n == 1 {
        return "a * b".into();
    }
    let terms: Vec<String> = ["x", "y", "z", "w"][..n]
        .iter()
        .map(|c| format!("a.{c} * b.{c}"))
        .collect();
    let mut sum = terms[0].clone();
    for t in &terms[1..] {
        sum = format!("({sum} + {t})");
    }
    sum
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
// The same for W = 2^k, k a constant: a mask and a shift (L is never negative).
ivec2 brook_texel_at_pow2(int linear, int k) {
    return ivec2(linear & ((1 << k) - 1), linear >> k);
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

/// Scatter and GatherOp's index (`scatter.rs`), of any stream: clamped in float to
/// [`GATHER_FLOAT_BOUND`], then to the stream in integers.
fn gather_index_source() -> String {
    format!(
        "// Brook's gather index rule: floor(v + 0.25), clamped to the stream.\n\
         ivec4 brook_gather_index(vec4 v, ivec4 extent) {{\n    \
         return min(brook_gather_clamp(floor(v + 0.25), vec4({GATHER_FLOAT_BOUND})), extent - 1);\n}}\n"
    )
}

/// Brook's clamp of a float index component already rounded by `floor(v + 0.25)` (or proven
/// integral, see `brook_ir::integral`): `[0, last]`, NaN element 0 (`brook-semantics.md`,
/// docs/limits.md), the same on every backend; +inf and values past the end read the
/// last element, -inf and values before the start element 0. One comparison, one `min` and
/// one select in float, then the conversion: a NaN fails `r >= 0.0` and never reaches `min`,
/// whose result is exact for the other operands; and GLSL's float → int conversion, undefined
/// outside int's range (llvmpipe gives INT_MIN), only sees values in `[0, last]`. `last` must
/// be an integer float: `extent - 1` itself where every extent is exact in float (a direct
/// layout's are at most a texture side), or [`GATHER_FLOAT_BOUND`], past every extent, with
/// the stream's clamp after the conversion in integers.
const GATHER_CLAMP_COMMENT: &str = "// Brook's gather clamp of a rounded index r: to [0, last] in float, NaN to 0 (NaN >= 0.0 is\n// false, so min never sees one), then to int (undefined past int's range, never reached).\n";

/// 2^30: above any extent a stream can have (16384² texels), exact in float and in int.
pub const GATHER_FLOAT_BOUND: &str = "1073741824.0";

/// The state of the run-time loop check (`loops.rs`, `lower/stmt.rs`). A loop the driver ends
/// is invisible to the compiler, which assumes loops end only by their exits; so each loop `n`
/// counts its exits in its own `brook_left{n}` (declared after this, `Prelude::source`), never
/// reset, and compares the count with the one before it. A compiler must not be able to prove
/// them one apart: `brook_zero` ([`Helper::Zero`]), which the compiler cannot assume is 0, is
/// added where it keeps the count in a register only the exits write.
const LOOP_CHECK: &str = "\
// Per checked loop, the times it was left through its condition or a break: a loop the
// driver cut short (llvmpipe ends a shader's loops after 65,535 iterations) leaves it as it was.
// The Brook line of the first loop cut short; 0: none.
int brook_loop_cut = 0;
";

/// Only the index components whose extents differ call it (see `Resize`): the division is the
/// expensive part of a resized access.
const RESIZE: &str = "\
// Implicit resize: output element i reads input element floor(i * in / out) along a dimension,
// computed as floor(i * to / from) with to/from the ratio in/out reduced by its gcd.
int brook_resize(int i, int from, int to) {
    return int((uint(i) * uint(to)) / uint(from));
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
