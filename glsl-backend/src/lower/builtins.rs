//! Cg's primitive built-ins as GLSL. The composite ones (`lerp`, `smoothstep`, `clamp`, …)
//! never get here: `brook_ir::lower_composites` wrote them as their formulas.

use brook_ir::{unlowered, Builtin, MathMode, Scalar, Type};

use crate::error::GenError;
use crate::math::MathFile;
use crate::prelude::{Helper, Prelude};

/// GLSL for a call of `builtin` on already-lowered `args` of types `arg_types`, giving `ret`.
pub fn lower_builtin(
    builtin: Builtin,
    args: &[String],
    arg_types: &[&Type],
    ret: &Type,
    prelude: &mut Prelude,
    math_mode: MathMode,
) -> Result<String, GenError> {
    use Builtin::*;
    if math_mode == MathMode::Fast {
        if let Some(text) = driver_builtin(builtin, args, arg_types, ret) {
            return Ok(text);
        }
    }
    let call = |name: &str, args: &[String]| format!("{name}({})", args.join(", "));
    // Component-wise functions: splat scalar arguments to the result's width, which every
    // GLSL overload accepts (Cg allows a scalar where GLSL wants a vector, e.g. in `pow`).
    let splat = || -> Vec<String> {
        args.iter()
            .zip(arg_types)
            .map(|(a, t)| match (t, ret) {
                (Type::Scalar(Scalar::Float), Type::Vector(Scalar::Float, n)) => {
                    format!("vec{n}({a})")
                }
                _ => a.clone(),
            })
            .collect()
    };
    // The transcendental functions come from the math library (`math.rs`), not the driver.
    let mut math = |file: MathFile, name: &str, args: &[String]| {
        prelude.require(Helper::Math(file));
        call(name, args)
    };
    Ok(match builtin {
        Exp => math(MathFile::Exp, "brook_exp", args),
        Exp2 => math(MathFile::Exp, "brook_exp2", args),
        Log => math(MathFile::Log, "brook_log", args),
        Log2 => math(MathFile::Log, "brook_log2", args),
        Log10 => math(MathFile::Log, "brook_log10", args),
        Sin => math(MathFile::Trig, "brook_sin", args),
        Cos => math(MathFile::Trig, "brook_cos", args),
        Tan => math(MathFile::Trig, "brook_tan", args),
        Asin => math(MathFile::Asin, "brook_asin", args),
        Acos => math(MathFile::Asin, "brook_acos", args),
        Atan if args.len() == 1 => math(MathFile::Atan, "brook_atan", args),
        Atan | Atan2 => math(MathFile::Atan, "brook_atan2", &splat()),
        Sinh => math(MathFile::Hyperbolic, "brook_sinh", args),
        Cosh => math(MathFile::Hyperbolic, "brook_cosh", args),
        Tanh => math(MathFile::Hyperbolic, "brook_tanh", args),
        Pow => math(MathFile::Pow, "brook_pow", &splat()),
        Ldexp => math(MathFile::Exp, "brook_ldexp", &splat()),
        Abs | Ceil | Cross | Floor | Sign | Sqrt | IsNan | IsInf => call(builtin.name(), args),
        Max | Min => call(builtin.name(), &splat()),
        Dot => {
            prelude.require(Helper::Dot);
            call("brook_dot", args)
        }
        Saturate => {
            prelude.require(Helper::Saturate);
            call("brook_saturate", args)
        }
        Fmod => {
            prelude.require(Helper::Fmod);
            call("brook_fmod", &splat())
        }
        Round => {
            prelude.require(Helper::Round);
            call("brook_round", args)
        }
        IsFinite => {
            prelude.require(Helper::IsFinite);
            call("brook_isfinite", args)
        }
        Any | All => any_all(builtin.name(), &args[0], arg_types[0]),
        Mul => mul(args, arg_types),
        // GLSL's modf is Cg's: fractional part returned, whole part (toward zero) stored.
        Modf => call("modf", args),
        Frexp => {
            prelude.require(Helper::Frexp);
            call("brook_frexp", args)
        }
        Pack4ubyte => {
            prelude.require(Helper::Pack4ubyte);
            call("brook_pack_4ubyte", args)
        }
        Unpack4ubyte => {
            prelude.require(Helper::Pack4ubyte);
            call("brook_unpack_4ubyte", args)
        }
        Clamp | Degrees | Distance | Frac | Length | Lerp | Normalize | Radians | Rsqrt
        | Smoothstep | Step => return Err(GenError::Unsupported(unlowered(builtin))),
    })
}

/// Fast math: the driver's own function for a transcendental Brook's math library provides
/// in the accurate mode (`None` for the others, lowered as in the accurate mode). GLSL has no
/// `log10`: `log2(x)` times `log10(2)`.
fn driver_builtin(
    builtin: Builtin,
    args: &[String],
    arg_types: &[&Type],
    ret: &Type,
) -> Option<String> {
    use Builtin::*;
    let splat = |k: usize| match (arg_types[k], ret) {
        (Type::Scalar(Scalar::Float), Type::Vector(Scalar::Float, n)) => {
            format!("vec{n}({})", args[k])
        }
        _ => args[k].clone(),
    };
    let one = |name: &str| format!("{name}({})", args[0]);
    Some(match builtin {
        Exp => one("exp"),
        Exp2 => one("exp2"),
        Log => one("log"),
        Log2 => one("log2"),
        Log10 => format!("(log2({}) * 0.30102999566398120)", args[0]),
        Sin => one("sin"),
        Cos => one("cos"),
        Tan => one("tan"),
        Asin => one("asin"),
        Acos => one("acos"),
        Atan if args.len() == 1 => one("atan"),
        Atan | Atan2 => format!("atan({}, {})", splat(0), splat(1)),
        Sinh => one("sinh"),
        Cosh => one("cosh"),
        Tanh => one("tanh"),
        Pow => format!("pow({}, {})", splat(0), splat(1)),
        _ => return None,
    })
}

/// Cg's `any`/`all` take numbers as well as booleans: a component counts as true when non-zero.
fn any_all(name: &str, arg: &str, ty: &Type) -> String {
    match ty {
        Type::Vector(Scalar::Bool, _) => format!("{name}({arg})"),
        Type::Vector(Scalar::Float, n) => format!("{name}(notEqual({arg}, vec{n}(0.0)))"),
        Type::Vector(Scalar::Int, n) => format!("{name}(notEqual({arg}, ivec{n}(0)))"),
        Type::Scalar(Scalar::Bool) => format!("({arg})"),
        Type::Scalar(Scalar::Int) => format!("({arg} != 0)"),
        _ => format!("({arg} != 0.0)"),
    }
}

/// Cg `mul` on matrices kept transposed (see `types.rs`): `mul(M, v) = v * Mᵀ` in GLSL terms,
/// `mul(v, M) = Mᵀ * v`, `mul(A, B) = Bᵀ * Aᵀ` — always the operands swapped.
fn mul(args: &[String], arg_types: &[&Type]) -> String {
    let any_matrix = arg_types.iter().any(|t| matches!(t, Type::Matrix { .. }));
    if any_matrix {
        format!("({} * {})", args[1], args[0])
    } else {
        format!("({} * {})", args[0], args[1])
    }
}
