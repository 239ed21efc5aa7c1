//! Which constants a GPU back end hides from the driver's compiler, so that Brook's float
//! arithmetic stays IEEE's, operation by operation (`docs/semantics.md`, "Special values").
//!
//! GLSL and Vulkan let a shader compiler apply identities that hold only for finite numbers
//! (`x * 0 → 0`, `x + 0 → x`), and Mesa applies them to what it knows is a constant even
//! where the program asks it not to (GLSL `precise`, SPIR-V `SignedZeroInfNanPreserve`). It
//! knows more constants than the literals: `abs(0.0)`, `1.0 - 1.0`, a local assigned `0.0`,
//! `(x < x ? x : 3.0) - (x < x ? x : 3.0)` once it has decided the comparison, and it folds
//! them in contexts `precise` does not reach (the condition of a `?:`, which Mesa evaluates
//! into a temporary of its own). So in the accurate mode every float constant of the
//! program reaches the driver as a value it cannot know: its bits exclusive-or a zero the
//! host supplies at run time (GL: the uniform `brook_zero`, never set; wgpu: a slot of the
//! call-info uniform the host leaves 0). The value is the constant's, bit for bit; the
//! compiler can only compute with it as with any other input. Fast math
//! ([`MathMode::Fast`]) shows the constants as they are.
//!
//! This is the one statement of the rule; each back end asks [`hidden_constant`] of every
//! expression it lowers.

use crate::module::{Expr, ExprKind, Scalar, Type};

/// How a back end computes floats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum MathMode {
    /// Brook's contract: IEEE single precision operation by operation, special values
    /// included, and the built-ins within `crate::accuracy`'s bounds.
    #[default]
    Accurate,
    /// Opted into (`Runtime::set_fast_math`): the driver may apply its identities and use its
    /// own built-ins; accuracy as `docs/limits.md` states per back end.
    Fast,
}

/// Whether `e` is a float constant that an accurate back end emits hidden (see the module
/// docs): a float literal, or a conversion to float of an expression of literals alone
/// (`float(1 + 2)`; a literal converted by the front end is already a float literal). Larger
/// expressions of literals are built from hidden leaves, so nothing in them is known either.
pub fn hidden_constant(e: &Expr) -> bool {
    let float = |t: &Type| {
        matches!(
            t,
            Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _)
        )
    };
    match &e.kind {
        ExprKind::Float(_) => true,
        ExprKind::Convert(x) => float(&e.ty) && !float(&x.ty) && literals_only(x),
        _ => false,
    }
}

/// Whether `e` is computed from literals alone, so a compiler knows its value.
fn literals_only(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Float(_) | ExprKind::Int(_) | ExprKind::Bool(_) => true,
        ExprKind::Unary(_, x) | ExprKind::Convert(x) | ExprKind::Swizzle(x, _) => literals_only(x),
        ExprKind::Binary(_, a, b) => literals_only(a) && literals_only(b),
        ExprKind::Select {
            cond,
            accept,
            reject,
        } => literals_only(cond) && literals_only(accept) && literals_only(reject),
        ExprKind::Construct(parts) | ExprKind::Builtin(_, parts) => parts.iter().all(literals_only),
        _ => false,
    }
}
