//! Values by IR type: zeros, conversions and construction from components (the
//! interpreter's `Value::zero`, `coerce`/`convert_to` and `from_comps`).

use brook_ir::{Module, Scalar, StructId, StructMember, Type};
use cranelift_frontend::FunctionBuilder;

use super::num::{convert, convert_comp, from_lanes, vconst, zero_scalar, Comp, Num, Val};
use super::{no, Lower, Res};

/// The members of struct `id`.
pub(crate) fn members(module: &Module, id: StructId) -> Res<&[StructMember]> {
    module
        .structs
        .get(id.0 as usize)
        .map(|d| d.members.as_slice())
        .ok_or_else(|| super::Unjittable("unknown struct".into()))
}

/// The kinds of the flattened components of `ty`, in `Value::flatten` order.
pub(crate) fn kinds(ty: &Type, module: &Module, out: &mut Vec<Scalar>) -> Res<()> {
    match ty {
        Type::Void => {}
        Type::Scalar(s) => out.push(*s),
        Type::Vector(s, n) => out.extend(std::iter::repeat_n(*s, *n as usize)),
        Type::Matrix { rows, cols } => out.extend(std::iter::repeat_n(
            Scalar::Float,
            *rows as usize * *cols as usize,
        )),
        Type::Struct(id) => {
            for m in members(module, *id)? {
                kinds(&m.ty, module, out)?;
            }
        }
        Type::Array(elem, n) => {
            for _ in 0..*n {
                kinds(elem, module, out)?;
            }
        }
    }
    Ok(())
}

/// A zero vector of kind `s` and width `n` (> 1).
fn zero_vector(b: &mut FunctionBuilder, s: Scalar, n: u8) -> Num {
    let ty = super::num::clif_ty(s, n);
    Num {
        s,
        n,
        v: vconst(b, ty, [0; 4]),
    }
}

/// The zero value of `ty`: what a declared local starts as.
pub(crate) fn zero(b: &mut FunctionBuilder, ty: &Type, module: &Module) -> Res<Val> {
    Ok(match ty {
        Type::Void => Val::Void,
        Type::Scalar(s) => Val::Num(Num::scalar(*s, zero_scalar(b, *s))),
        Type::Vector(s, n) => Val::Num(zero_vector(b, *s, *n)),
        Type::Matrix { rows, cols } => {
            let row = if *cols == 1 {
                Num::scalar(Scalar::Float, zero_scalar(b, Scalar::Float))
            } else {
                zero_vector(b, Scalar::Float, *cols)
            };
            Val::Mat(vec![row; *rows as usize])
        }
        Type::Struct(id) => Val::Agg(
            members(module, *id)?
                .iter()
                .map(|m| zero(b, &m.ty, module))
                .collect::<Res<_>>()?,
        ),
        Type::Array(elem, n) => {
            let z = zero(b, elem, module)?;
            Val::Agg(vec![z; *n as usize])
        }
    })
}

/// Whether `v` already has type `ty` (the interpreter's `fits`: scalars, vectors and
/// matrices exactly; structs and arrays trusted to the front end).
fn fits(v: &Val, ty: &Type) -> bool {
    match (v, ty) {
        (Val::Num(x), Type::Scalar(s) | Type::Vector(s, _)) => x.s == *s && Some(x.n) == ty.width(),
        (Val::Mat(rows), Type::Matrix { rows: r, cols }) => {
            rows.len() == *r as usize && rows.iter().all(|x| x.n == *cols)
        }
        (Val::Agg(_), Type::Struct(_) | Type::Array(..)) => true,
        (Val::Void, Type::Void) => true,
        _ => false,
    }
}

impl Lower<'_, '_, '_, '_> {
    /// The interpreter's `coerce`: `v` itself when it fits `ty`, else `Value::convert_to`
    /// (kind converted per component, a scalar splats, a wider vector is truncated).
    pub fn coerce(&mut self, v: Val, ty: &Type) -> Res<Val> {
        if fits(&v, ty) {
            return Ok(v);
        }
        match (ty, &v) {
            (Type::Scalar(s) | Type::Vector(s, _), Val::Num(x)) => {
                let want = ty.width().unwrap_or(1);
                if x.n != 1 && x.n < want {
                    return no(format!("cannot convert {v:?} to {ty:?}"));
                }
                let c = convert(self.b, *x, *s);
                Ok(Val::Num(if c.n == 1 {
                    c.widen(self.b, want)
                } else if want == 1 {
                    Num::scalar(c.s, c.lane(self.b, 0))
                } else {
                    Num { n: want, ..c }
                }))
            }
            (Type::Matrix { rows, cols }, Val::Num(x)) if x.n == 1 => {
                let f = convert(self.b, *x, Scalar::Float).widen(self.b, *cols);
                Ok(Val::Mat(vec![f; *rows as usize]))
            }
            (Type::Void, _) => Ok(Val::Void),
            (Type::Struct(_) | Type::Array(..), _) => Ok(v),
            _ => no(format!("cannot convert {v:?} to {ty:?}")),
        }
    }

    /// Builds a value of `ty` from components taken in order (`Value::from_comps`); `None`
    /// when there are too few. Named for the interpreter's `Value::from_comps` it mirrors;
    /// it takes the builder (`self`) that emits the code.
    #[allow(clippy::wrong_self_convention)]
    pub fn from_comps(
        &mut self,
        ty: &Type,
        comps: &mut impl Iterator<Item = Comp>,
    ) -> Res<Option<Val>> {
        let mut take = |b: &mut FunctionBuilder, s: Scalar, n: usize| -> Option<Num> {
            let mut lanes = Vec::with_capacity(n);
            for _ in 0..n {
                let c = comps.next()?;
                lanes.push(convert_comp(b, c, s));
            }
            Some(from_lanes(b, s, &lanes))
        };
        Ok(match ty {
            Type::Void => Some(Val::Void),
            Type::Scalar(s) => take(self.b, *s, 1).map(Val::Num),
            Type::Vector(s, n) => take(self.b, *s, *n as usize).map(Val::Num),
            Type::Matrix { rows, cols } => {
                let mut out = Vec::with_capacity(*rows as usize);
                for _ in 0..*rows {
                    match take(self.b, Scalar::Float, *cols as usize) {
                        Some(r) => out.push(r),
                        None => return Ok(None),
                    }
                }
                Some(Val::Mat(out))
            }
            Type::Struct(id) => {
                let fields = members(self.module, *id)?;
                let mut parts = Vec::with_capacity(fields.len());
                for m in fields {
                    match self.from_comps(&m.ty, comps)? {
                        Some(v) => parts.push(v),
                        None => return Ok(None),
                    }
                }
                Some(Val::Agg(parts))
            }
            Type::Array(elem, n) => {
                let mut parts = Vec::with_capacity(*n as usize);
                for _ in 0..*n {
                    match self.from_comps(elem, comps)? {
                        Some(v) => parts.push(v),
                        None => return Ok(None),
                    }
                }
                Some(Val::Agg(parts))
            }
        })
    }

    /// The zero value of `ty`.
    pub fn zero(&mut self, ty: &Type) -> Res<Val> {
        zero(self.b, ty, self.module)
    }
}
