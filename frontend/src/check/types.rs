//! Built-in types, type names for messages, and the conversions the language allows.
//!
//! Implicit conversions (assignment, initialisers, arguments, returns, operands) are Cg's:
//! - any scalar kind to any other (`float`, `int`, `bool`): `bool` gives 0 or 1, a number gives
//!   `bool` `x != 0`, `float` to `int` truncates toward zero; likewise component-wise between
//!   vectors of one width (`float2 f = (a < b);`);
//! - a scalar to a vector or matrix (a splat: a one-argument `Construct`), after conversion;
//! - a vector to a scalar or a shorter vector, keeping its first components (Cg's truncation,
//!   which Cg only warns about: `float s = v4;` is `v4.x`).
//!
//! Casts and one-argument constructors convert by the same rules. Each step is explicit in the IR (`Convert`, `Construct`, `Swizzle`).

use brook_ir::{Expr, ExprKind, Scalar, StructDef, Type};

/// The type a built-in type name denotes (`float`, `float1`..`float4`, `int`.., `bool`..,
/// `float2x2`..`float4x4`); `void` is handled separately. Cg's lower-precision types `half`,
/// `fixed` and `shortfixed` (and their vectors) are floats of that width, as the original's
/// CPU backend computed them; so are `char` and `uchar`, which the original's GPU backends
/// emulated with floats (host arrays of them are converted at `streamRead`/`streamWrite`).
pub fn builtin_type(name: &str) -> Option<Type> {
    let float_like = ["float", "half", "shortfixed", "fixed", "uchar", "char"]
        .iter()
        .find_map(|p| name.strip_prefix(p));
    let (scalar, rest) = if let Some(r) = float_like {
        (Scalar::Float, r)
    } else if let Some(r) = name.strip_prefix("int") {
        (Scalar::Int, r)
    } else if let Some(r) = name.strip_prefix("bool") {
        (Scalar::Bool, r)
    } else {
        return None;
    };
    let digit = |s: &str| -> Option<u8> {
        match s {
            "1" => Some(1),
            "2" => Some(2),
            "3" => Some(3),
            "4" => Some(4),
            _ => None,
        }
    };
    if rest.is_empty() {
        return Some(Type::Scalar(scalar));
    }
    if let Some(n) = digit(rest) {
        return Some(Type::vector(scalar, n));
    }
    if scalar == Scalar::Float {
        if let Some((r, c)) = rest.split_once('x') {
            let (r, c) = (digit(r)?, digit(c)?);
            if r >= 2 && c >= 2 {
                return Some(Type::Matrix { rows: r, cols: c });
            }
        }
    }
    None
}

/// Why a Cg matrix type name that is not a type here is not one: Cg also has matrices of
/// `int` and `bool`, and with one row or column.
pub fn matrix_name_hint(name: &str) -> Option<&'static str> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == 'x');
    let shape = &name[base.len()..];
    let (r, c) = shape.split_once('x')?;
    let dim = |d: &str| matches!(d, "1" | "2" | "3" | "4");
    if !dim(r) || !dim(c) {
        return None;
    }
    match base {
        "float" | "half" | "fixed" | "shortfixed" => Some("matrices have 2 to 4 rows and 2 to 4 columns; a single row or column is a `floatN` vector"),
        "int" | "bool" => Some("matrices are of `float` only: `float2x2` .. `float4x4`"),
        _ => None,
    }
}

/// The Brook name of a scalar type (`float`, `int`, `bool`).
pub fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::Float => "float",
        Scalar::Int => "int",
        Scalar::Bool => "bool",
    }
}

/// The Brook spelling of a type, for messages and the pretty-printer.
pub fn type_name(ty: &Type, structs: &[StructDef]) -> String {
    match ty {
        Type::Void => "void".into(),
        Type::Scalar(s) => scalar_name(*s).into(),
        Type::Vector(s, n) => format!("{}{n}", scalar_name(*s)),
        Type::Matrix { rows, cols } => format!("float{rows}x{cols}"),
        Type::Struct(id) => structs
            .get(id.0 as usize)
            .map_or_else(|| format!("struct#{}", id.0), |s| s.name.clone()),
        Type::Array(elem, n) => {
            // `float[3][4]`: the outermost dimension first, as declared.
            let mut dims = vec![*n];
            let mut inner = elem.as_ref();
            while let Type::Array(e, m) = inner {
                dims.push(*m);
                inner = e;
            }
            let mut s = type_name(inner, structs);
            for d in dims {
                s.push_str(&format!("[{d}]"));
            }
            s
        }
    }
}

/// Is `ty` a scalar or vector of int or float?
pub fn is_numeric(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Scalar(Scalar::Float | Scalar::Int) | Type::Vector(Scalar::Float | Scalar::Int, _)
    )
}

/// Is `ty` a scalar or vector (of any kind)?
pub fn is_scalar_or_vector(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(_) | Type::Vector(..))
}

/// Wraps `e` in a `Convert` to `ty` unless it already has that type. Scalar literals are
/// converted in place (`1` as a float is the literal `1.0`).
pub fn convert_to(e: Expr, ty: Type) -> Expr {
    if e.ty == ty {
        return e;
    }
    let span = e.span;
    let folded = match (&e.kind, &ty) {
        (ExprKind::Int(v), &Type::FLOAT) => Some(ExprKind::Float(*v as f32)),
        (ExprKind::Int(v), &Type::BOOL) => Some(ExprKind::Bool(*v != 0)),
        (ExprKind::Float(v), &Type::BOOL) => Some(ExprKind::Bool(*v != 0.0)),
        (ExprKind::Float(v), &Type::INT) if v.is_finite() && v.abs() < 2.0e9 => {
            Some(ExprKind::Int(*v as i32))
        }
        (ExprKind::Bool(b), &Type::FLOAT) => Some(ExprKind::Float(f32::from(u8::from(*b)))),
        (ExprKind::Bool(b), &Type::INT) => Some(ExprKind::Int(i32::from(*b))),
        _ => None,
    };
    if let Some(kind) = folded {
        return Expr { kind, ty, span };
    }
    Expr {
        kind: ExprKind::Convert(Box::new(e)),
        ty,
        span,
    }
}

/// Changes the scalar kind of a scalar/vector expression, keeping its width.
pub fn with_scalar(e: Expr, s: Scalar) -> Expr {
    match e.ty.width() {
        Some(w) => {
            let ty = Type::vector(s, w);
            convert_to(e, ty)
        }
        None => e,
    }
}

/// Splats a scalar expression to `ty` (a vector or matrix type).
pub fn splat(e: Expr, ty: Type) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Construct(vec![e]),
        ty,
        span,
    }
}

/// The implicit conversion of `e` to `target`, or `e` back if there is none.
pub fn coerce(e: Expr, target: &Type) -> Result<Expr, Expr> {
    if &e.ty == target {
        return Ok(e);
    }
    match (e.ty.clone(), target) {
        (Type::Scalar(_) | Type::Vector(..), Type::Scalar(t) | Type::Vector(t, _)) => {
            let (n, m) = (e.ty.width().unwrap_or(1), target.width().unwrap_or(1));
            if n == m {
                Ok(convert_to(e, target.clone()))
            } else if n == 1 {
                let e = convert_to(e, Type::Scalar(*t));
                Ok(splat(e, target.clone()))
            } else if m < n {
                Ok(convert_to(truncate(e, m), target.clone()))
            } else {
                Err(e)
            }
        }
        (Type::Scalar(_), Type::Matrix { .. }) => {
            let e = convert_to(e, Type::FLOAT);
            Ok(splat(e, target.clone()))
        }
        _ => Err(e),
    }
}

/// The first `m` components of vector `e` (`.x` when `m` is 1), keeping its scalar kind.
fn truncate(e: Expr, m: u8) -> Expr {
    let s = e.ty.scalar().unwrap_or(Scalar::Float);
    let span = e.span;
    Expr {
        kind: ExprKind::Swizzle(Box::new(e), (0..m).collect()),
        ty: Type::vector(s, m),
        span,
    }
}

/// Folds an integer constant expression (literals, `+ - * / % << >> & | ^`, negation,
/// int conversions of such expressions).
pub fn fold_int(e: &Expr) -> Option<i64> {
    use brook_ir::{BinaryOp as B, UnaryOp as U};
    match &e.kind {
        ExprKind::Int(v) => Some(i64::from(*v)),
        ExprKind::Float(v) if e.ty == Type::INT => Some(*v as i64),
        ExprKind::Unary(U::Neg, a) => fold_int(a)?.checked_neg(),
        ExprKind::Unary(U::BitNot, a) => Some(!fold_int(a)?),
        ExprKind::Convert(a) if e.ty == Type::INT => match &a.kind {
            ExprKind::Float(v) => Some(*v as i64),
            _ => fold_int(a),
        },
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (fold_int(a)?, fold_int(b)?);
            match op {
                B::Add => a.checked_add(b),
                B::Sub => a.checked_sub(b),
                B::Mul => a.checked_mul(b),
                B::Div => a.checked_div(b),
                B::Rem => a.checked_rem(b),
                B::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                B::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                B::BitAnd => Some(a & b),
                B::BitOr => Some(a | b),
                B::BitXor => Some(a ^ b),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(builtin_type("float"), Some(Type::FLOAT));
        assert_eq!(builtin_type("float1"), Some(Type::FLOAT));
        assert_eq!(builtin_type("int3"), Some(Type::Vector(Scalar::Int, 3)));
        assert_eq!(
            builtin_type("float3x4"),
            Some(Type::Matrix { rows: 3, cols: 4 })
        );
        assert_eq!(builtin_type("float5"), None);
        assert_eq!(builtin_type("half"), Some(Type::FLOAT));
        assert_eq!(builtin_type("fixed3"), Some(Type::Vector(Scalar::Float, 3)));
        assert_eq!(builtin_type("char"), Some(Type::Scalar(Scalar::Float)));
        assert_eq!(builtin_type("uchar4"), Some(Type::Vector(Scalar::Float, 4)));
        assert_eq!(
            builtin_type("shortfixed4"),
            Some(Type::Vector(Scalar::Float, 4))
        );
        assert_eq!(builtin_type("floaty"), None);
        assert_eq!(builtin_type("bool2x2"), None);
    }
}
