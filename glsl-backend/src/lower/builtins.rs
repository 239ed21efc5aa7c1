//! Cg built-ins as GLSL.

use brook_frontend::ir::{Builtin, Scalar, Type};

use crate::error::GenError;
use crate::prelude::{Helper, Prelude};

/// GLSL for a call of `builtin` on already-lowered `args` of types `arg_types`, giving `ret`.
pub fn lower_builtin(
    builtin: Builtin,
    args: &[String],
    arg_types: &[&Type],
    ret: &Type,
    prelude: &mut Prelude,
) -> Result<String, GenError> {
    use Builtin::*;
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
    Ok(match builtin {
        Abs | Acos | Asin | Ceil | Cos | Cosh | Cross | Degrees | Distance | Dot | Exp | Exp2
        | Floor | Length | Log | Log2 | Normalize | Radians | Sign | Sin | Sinh | Sqrt | Tan
        | Tanh | IsNan | IsInf => call(builtin.name(), args),
        Atan if args.len() == 1 => call("atan", args),
        Atan | Atan2 => call("atan", &splat()),
        Clamp | Max | Min | Pow | Step | Smoothstep => call(builtin.name(), &splat()),
        Frac => call("fract", args),
        Lerp => call("mix", &splat()),
        Rsqrt => call("inversesqrt", args),
        Saturate => format!("clamp({}, 0.0, 1.0)", args[0]),
        Log10 => format!("(log2({}) * 0.30102999566398120)", args[0]),
        Ldexp => format!("({} * exp2({}))", args[0], args[1]),
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
