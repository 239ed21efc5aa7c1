//! The built-in catalogue: every Cg-style built-in with its Brook name, its arity, its typing
//! after checking (what the front end guarantees a back end, and the validator checks) and
//! its accuracy class (`accuracy.rs`).

use crate::accuracy::{accuracy, Accuracy};
use crate::module::{Scalar, Type};

/// The Cg-style built-in functions, overloaded by vector width; the argument and result types
/// are on the `Expr`s. Semantics follow Cg/HLSL (see `docs/semantics.md`). `Frexp` and `Modf`
/// write their second argument, always an `ExprKind::Local` of the first argument's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `abs(x)`: absolute value.
    Abs,
    /// `acos(x)`: arc cosine, in radians.
    Acos,
    /// `all(v)`: whether every component is non-zero (`bool`).
    All,
    /// `any(v)`: whether some component is non-zero (`bool`).
    Any,
    /// `asin(x)`: arc sine, in radians.
    Asin,
    /// `atan(x)`: arc tangent, in radians.
    Atan,
    /// `atan2(y, x)`: the angle of the point `(x, y)`, in `-π..=π`.
    Atan2,
    /// `ceil(x)`: the smallest integer not below `x`.
    Ceil,
    /// `clamp(x, lo, hi)`: `min(max(x, lo), hi)`.
    Clamp,
    /// `cos(x)`
    Cos,
    /// `cosh(x)`: hyperbolic cosine.
    Cosh,
    /// `cross(a, b)`: the cross product of two `float3`s.
    Cross,
    /// `degrees(x)`: radians to degrees.
    Degrees,
    /// `distance(a, b)`: `length(a - b)`.
    Distance,
    /// `dot(a, b)`: the dot product (a scalar).
    Dot,
    /// `exp(x)`: e to the power `x`.
    Exp,
    /// `exp2(x)`: 2 to the power `x`.
    Exp2,
    /// `floor(x)`: the largest integer not above `x`.
    Floor,
    /// `fmod(x, y)`: remainder of `x / y` truncated toward zero (sign of `x`).
    Fmod,
    /// `frac(x)`: `x - floor(x)`.
    Frac,
    /// `frexp(x, out e)`: the mantissa (magnitude in `[0.5, 1)`), storing the exponent in `e`.
    Frexp,
    /// `isfinite(x)`: neither infinite nor NaN (`bool` per component).
    IsFinite,
    /// `isinf(x)`: infinite (`bool` per component).
    IsInf,
    /// `isnan(x)`: NaN (`bool` per component).
    IsNan,
    /// `ldexp(x, e)`: `x * 2^e`.
    Ldexp,
    /// `length(v)`: Euclidean length (a scalar).
    Length,
    /// `lerp(a, b, t)`: `a + t * (b - a)`.
    Lerp,
    /// `log(x)`: natural logarithm.
    Log,
    /// `log2(x)`: base-2 logarithm.
    Log2,
    /// `log10(x)`: base-10 logarithm.
    Log10,
    /// `max(a, b)`
    Max,
    /// `min(a, b)`
    Min,
    /// `modf(x, out i)`: the fractional part, storing the integer part (toward zero) in `i`.
    Modf,
    /// `mul(a, b)`: the matrix product; a vector is a row on the left, a column on the right.
    Mul,
    /// `normalize(v)`: `v / length(v)`.
    Normalize,
    /// `pack_4ubyte(float4) -> float`: each component saturated to [0, 1], scaled to 0..255
    /// and rounded to nearest (halves up), `.x` in the lowest byte; the four bytes are the
    /// bits of the result (Cg). Back ends must move those bits without arithmetic.
    Pack4ubyte,
    /// `pow(x, y)`: `x` to the power `y`.
    Pow,
    /// `radians(x)`: degrees to radians.
    Radians,
    /// `round(x)`: the nearest integer, halves away from zero.
    Round,
    /// `rsqrt(x)`: `1 / sqrt(x)`.
    Rsqrt,
    /// `saturate(x)`: `clamp(x, 0, 1)`.
    Saturate,
    /// `sign(x)`: -1, 0 or 1.
    Sign,
    /// `sin(x)`
    Sin,
    /// `sinh(x)`: hyperbolic sine.
    Sinh,
    /// `smoothstep(lo, hi, x)`: 0 below `lo`, 1 above `hi`, a cubic Hermite curve between.
    Smoothstep,
    /// `sqrt(x)`: square root.
    Sqrt,
    /// `step(edge, x)`: 1 where `x >= edge`, else 0.
    Step,
    /// `tan(x)`
    Tan,
    /// `tanh(x)`: hyperbolic tangent.
    Tanh,
    /// `unpack_4ubyte(float) -> float4`: the four bytes of the argument's bits, lowest first,
    /// each divided by 255 (Cg; the inverse of `pack_4ubyte`).
    Unpack4ubyte,
}

impl Builtin {
    /// Every built-in with its Brook spelling.
    pub const ALL: &'static [(Builtin, &'static str)] = &[
        (Builtin::Abs, "abs"),
        (Builtin::Acos, "acos"),
        (Builtin::All, "all"),
        (Builtin::Any, "any"),
        (Builtin::Asin, "asin"),
        (Builtin::Atan, "atan"),
        (Builtin::Atan2, "atan2"),
        (Builtin::Ceil, "ceil"),
        (Builtin::Clamp, "clamp"),
        (Builtin::Cos, "cos"),
        (Builtin::Cosh, "cosh"),
        (Builtin::Cross, "cross"),
        (Builtin::Degrees, "degrees"),
        (Builtin::Distance, "distance"),
        (Builtin::Dot, "dot"),
        (Builtin::Exp, "exp"),
        (Builtin::Exp2, "exp2"),
        (Builtin::Floor, "floor"),
        (Builtin::Fmod, "fmod"),
        (Builtin::Frac, "frac"),
        (Builtin::Frexp, "frexp"),
        (Builtin::IsFinite, "isfinite"),
        (Builtin::IsInf, "isinf"),
        (Builtin::IsNan, "isnan"),
        (Builtin::Ldexp, "ldexp"),
        (Builtin::Length, "length"),
        (Builtin::Lerp, "lerp"),
        (Builtin::Log, "log"),
        (Builtin::Log2, "log2"),
        (Builtin::Log10, "log10"),
        (Builtin::Max, "max"),
        (Builtin::Min, "min"),
        (Builtin::Modf, "modf"),
        (Builtin::Mul, "mul"),
        (Builtin::Normalize, "normalize"),
        (Builtin::Pack4ubyte, "pack_4ubyte"),
        (Builtin::Pow, "pow"),
        (Builtin::Radians, "radians"),
        (Builtin::Round, "round"),
        (Builtin::Rsqrt, "rsqrt"),
        (Builtin::Saturate, "saturate"),
        (Builtin::Sign, "sign"),
        (Builtin::Sin, "sin"),
        (Builtin::Sinh, "sinh"),
        (Builtin::Smoothstep, "smoothstep"),
        (Builtin::Sqrt, "sqrt"),
        (Builtin::Step, "step"),
        (Builtin::Tan, "tan"),
        (Builtin::Tanh, "tanh"),
        (Builtin::Unpack4ubyte, "unpack_4ubyte"),
    ];

    /// The built-in a Brook function name denotes, if any.
    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(b, _)| *b)
    }

    /// The built-in's Brook spelling.
    pub fn name(self) -> &'static str {
        Builtin::ALL
            .iter()
            .find(|(b, _)| *b == self)
            .map(|(_, n)| *n)
            .expect("every builtin is listed in Builtin::ALL")
    }

    /// How many arguments a call takes.
    pub fn arity(self) -> usize {
        use Builtin::*;
        match self {
            Atan2 | Cross | Distance | Dot | Fmod | Ldexp | Max | Min | Mul | Pow | Step
            | Frexp | Modf => 2,
            Clamp | Lerp | Smoothstep => 3,
            Abs | Acos | All | Any | Asin | Atan | Ceil | Cos | Cosh | Degrees | Exp | Exp2
            | Floor | Frac | IsFinite | IsInf | IsNan | Length | Log | Log2 | Log10 | Normalize
            | Pack4ubyte | Radians | Round | Rsqrt | Saturate | Sign | Sin | Sinh | Sqrt | Tan
            | Tanh | Unpack4ubyte => 1,
        }
    }

    /// The numeric contract of the built-in (component-wise for vectors).
    pub fn accuracy(self) -> Accuracy {
        accuracy(self)
    }

    /// The result type of a checked call on arguments of types `args`, or `None` when the
    /// checker never produces such a call. Checked calls are exact about their types:
    /// - component-wise functions take every argument at the result's type (a scalar given
    ///   beside vectors is splatted by the checker), in `float`, or in `int` for `abs`, `sign`,
    ///   `min`, `max` and `clamp` when all their arguments were ints;
    /// - `dot` and `distance` take two vectors of one type and give a `float`, `length` one;
    ///   `cross` takes and gives `float3`; `all`/`any` take `bool`..`bool4` and give `bool`;
    ///   `isnan`/`isinf`/`isfinite` give `bool` of their argument's width;
    /// - `mul` is Cg's matrix product (floatRxC × floatC, floatR × floatRxC, floatRxK ×
    ///   floatKxC);
    /// - `pack_4ubyte` takes `float4` to `float`, `unpack_4ubyte` the reverse;
    /// - `frexp` and `modf` take their value and the local they write, both of one float type.
    pub fn result_type(self, args: &[Type]) -> Option<Type> {
        use Builtin::*;
        if args.len() != self.arity() {
            return None;
        }
        let float = |t: &Type| t.scalar() == Some(Scalar::Float) && t.width().is_some();
        let same = args.iter().all(|a| *a == args[0]);
        let first = &args[0];
        match self {
            All | Any => (first.scalar() == Some(Scalar::Bool) && first.width().is_some())
                .then_some(Type::BOOL),
            IsNan | IsInf | IsFinite => {
                float(first).then(|| Type::vector(Scalar::Bool, first.width().unwrap_or(1)))
            }
            Length => float(first).then_some(Type::FLOAT),
            Dot | Distance => (float(first) && same).then_some(Type::FLOAT),
            Cross => {
                let f3 = Type::Vector(Scalar::Float, 3);
                (*first == f3 && same).then_some(f3)
            }
            Mul => mul_type(&args[0], &args[1]),
            Pack4ubyte => (*first == Type::Vector(Scalar::Float, 4)).then_some(Type::FLOAT),
            Unpack4ubyte => (*first == Type::FLOAT).then_some(Type::Vector(Scalar::Float, 4)),
            Abs | Sign | Min | Max | Clamp => {
                let number = matches!(first.scalar(), Some(Scalar::Float | Scalar::Int))
                    && first.width().is_some();
                (number && same).then(|| first.clone())
            }
            Acos | Asin | Atan | Atan2 | Ceil | Cos | Cosh | Degrees | Exp | Exp2 | Floor
            | Fmod | Frac | Frexp | Ldexp | Lerp | Log | Log2 | Log10 | Modf | Normalize | Pow
            | Radians | Round | Rsqrt | Saturate | Sin | Sinh | Smoothstep | Sqrt | Step | Tan
            | Tanh => (float(first) && same).then(|| first.clone()),
        }
    }
}

/// Cg's `mul`: (floatRxC, floatC) → floatR, (floatR, floatRxC) → floatC, (floatRxK,
/// floatKxC) → floatRxC.
fn mul_type(x: &Type, y: &Type) -> Option<Type> {
    match (x, y) {
        (Type::Matrix { rows, cols }, Type::Vector(Scalar::Float, n)) if n == cols => {
            Some(Type::Vector(Scalar::Float, *rows))
        }
        (Type::Vector(Scalar::Float, n), Type::Matrix { rows, cols }) if n == rows => {
            Some(Type::Vector(Scalar::Float, *cols))
        }
        (Type::Matrix { rows, cols: k }, Type::Matrix { rows: k2, cols }) if k == k2 => {
            Some(Type::Matrix {
                rows: *rows,
                cols: *cols,
            })
        }
        _ => None,
    }
}
