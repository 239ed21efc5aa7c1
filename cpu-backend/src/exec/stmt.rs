//! Statements and assignment to places.

use brook_ir::{Access, BinaryOp, ParamClass, Place, PlaceRoot, Stmt, StmtKind, Type};

use super::ops::{self, bad, describe};
use super::{Flow, Frame, Interp, Interrupt};
use crate::error::CpuError;
use crate::value::{Comp, Value};

/// One resolved step of a place path (index expressions already evaluated).
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Member(usize),
    Index(i64),
    Swizzle(&'a [u8]),
}

/// Whether `v` already has type `ty` (scalars, vectors and matrices; structs and arrays are
/// trusted to the front end's type checking).
fn fits(v: &Value, ty: &Type) -> bool {
    match (v, ty) {
        (Value::Float(_, n), Type::Scalar(s) | Type::Vector(s, _)) => {
            *s == brook_ir::Scalar::Float && Some(*n) == ty.width()
        }
        (Value::Int(_, n), Type::Scalar(s) | Type::Vector(s, _)) => {
            *s == brook_ir::Scalar::Int && Some(*n) == ty.width()
        }
        (Value::Bool(_, n), Type::Scalar(s) | Type::Vector(s, _)) => {
            *s == brook_ir::Scalar::Bool && Some(*n) == ty.width()
        }
        (Value::Matrix(m), Type::Matrix { rows, cols }) => m.rows == *rows && m.cols == *cols,
        (Value::Struct(_), Type::Struct(_)) | (Value::Array(_), Type::Array(..)) => true,
        (Value::Void, Type::Void) => true,
        _ => false,
    }
}

/// Converts `v` to `ty` where it is not already (the IR makes conversions explicit, so this
/// is a safety net for assignments and arguments, not a language rule).
pub(crate) fn coerce(v: Value, ty: &Type) -> Result<Value, CpuError> {
    if fits(&v, ty) {
        return Ok(v);
    }
    v.convert_to(ty)
        .ok_or_else(|| bad(format!("cannot convert {} to {ty:?}", describe(&v))))
}

/// The type of a scalar, vector or matrix value (what a store converts to).
fn type_of(v: &Value) -> Option<Type> {
    match v {
        Value::Matrix(m) => Some(Type::Matrix {
            rows: m.rows,
            cols: m.cols,
        }),
        _ => Some(Type::vector(v.scalar_kind()?, v.width())),
    }
}

/// Clamps an index into `0..len` (C leaves out-of-range indexing undefined; the reference
/// reads and writes the nearest element instead of crashing).
pub(crate) fn clamp_index(i: i64, len: usize) -> usize {
    if i <= 0 || len == 0 {
        0
    } else {
        (i as usize).min(len - 1)
    }
}

/// The integer of an index value: ints as they are, floats truncated toward zero (C).
pub(crate) fn index_of_value(v: &Value) -> Result<i64, CpuError> {
    match v.comp(0) {
        Some(Comp::I(i)) => Ok(i as i64),
        Some(Comp::F(x)) => Ok(x as i64),
        Some(Comp::B(b)) => Ok(b as i64),
        None => Err(bad(format!("index of type {}", describe(v)))),
    }
}

/// Reads element/component/row `i` of an array, vector or matrix.
pub(crate) fn index_into(v: &Value, i: i64) -> Result<Value, CpuError> {
    match v {
        Value::Array(parts) => Ok(parts[clamp_index(i, parts.len())].clone()),
        Value::Float(c, n) => Ok(Value::float(c[clamp_index(i, *n as usize)])),
        Value::Int(c, n) => Ok(Value::int(c[clamp_index(i, *n as usize)])),
        Value::Bool(c, n) => Ok(Value::bool(c[clamp_index(i, *n as usize)])),
        Value::Matrix(m) => {
            let r = clamp_index(i, m.rows as usize);
            Ok(Value::Float(m.m[r], m.cols))
        }
        _ => Err(bad(format!("indexing {}", describe(v)))),
    }
}

/// Reads member `i` of a struct.
pub(crate) fn member_of(v: &Value, i: u32) -> Result<Value, CpuError> {
    match v {
        Value::Struct(parts) if (i as usize) < parts.len() => Ok(parts[i as usize].clone()),
        _ => Err(bad(format!("member {i} of {}", describe(v)))),
    }
}

fn load(v: &Value, steps: &[Step]) -> Result<Value, CpuError> {
    let Some((s, rest)) = steps.split_first() else {
        return Ok(v.clone());
    };
    match *s {
        Step::Member(i) => match v {
            Value::Struct(parts) if i < parts.len() => load(&parts[i], rest),
            _ => Err(bad(format!("member {i} of {}", describe(v)))),
        },
        Step::Index(i) => match v {
            Value::Array(parts) => load(&parts[clamp_index(i, parts.len())], rest),
            _ => load(&index_into(v, i)?, rest),
        },
        Step::Swizzle(sel) => {
            let sub = v
                .swizzle(sel)
                .ok_or_else(|| bad(format!("swizzle {sel:?} of {}", describe(v))))?;
            load(&sub, rest)
        }
    }
}

fn store(v: &mut Value, steps: &[Step], x: Value) -> Result<(), CpuError> {
    let Some((s, rest)) = steps.split_first() else {
        *v = match type_of(v) {
            Some(ty) => coerce(x, &ty)?,
            None => x,
        };
        return Ok(());
    };
    match *s {
        Step::Member(i) => match v {
            Value::Struct(parts) if i < parts.len() => store(&mut parts[i], rest, x),
            _ => Err(bad(format!("member {i} of {}", describe(v)))),
        },
        Step::Index(i) => match v {
            Value::Array(parts) => {
                let k = clamp_index(i, parts.len());
                store(&mut parts[k], rest, x)
            }
            Value::Matrix(m) => {
                let r = clamp_index(i, m.rows as usize);
                let mut row = Value::Float(m.m[r], m.cols);
                store(&mut row, rest, x)?;
                if let Value::Float(c, _) = row {
                    m.m[r] = c;
                }
                Ok(())
            }
            _ => {
                let k = clamp_index(i, v.width() as usize);
                let mut c = index_into(v, i)?;
                store(&mut c, rest, x)?;
                v.set_comp(k, c.comp(0).ok_or_else(|| bad("component store"))?);
                Ok(())
            }
        },
        Step::Swizzle(sel) => {
            let mut sub = v
                .swizzle(sel)
                .ok_or_else(|| bad(format!("write mask {sel:?} on {}", describe(v))))?;
            store(&mut sub, rest, x)?;
            for (k, &j) in sel.iter().enumerate() {
                let c = sub.comp(k).ok_or_else(|| bad("write mask"))?;
                // A swizzle of a scalar (`x.x = …`) writes the scalar itself.
                let j = if v.width() == 1 { 0 } else { j as usize };
                v.set_comp(j, c);
            }
            Ok(())
        }
    }
}

impl<'a> Interp<'a> {
    pub(crate) fn exec_block(
        &self,
        f: &mut Frame<'a>,
        block: &'a [Stmt],
    ) -> Result<Flow, Interrupt> {
        for s in block {
            match self.exec(f, s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    pub(crate) fn cond(&self, f: &mut Frame<'a>, e: &'a brook_ir::Expr) -> Result<bool, Interrupt> {
        let v = self.eval(f, e)?;
        Ok(v.truth()
            .ok_or_else(|| bad(format!("condition of type {}", describe(&v))))?)
    }

    fn exec(&self, f: &mut Frame<'a>, s: &'a Stmt) -> Result<Flow, Interrupt> {
        match &s.kind {
            StmtKind::Decl { local, init } => {
                let l = local.0 as usize;
                let ty = &f
                    .func
                    .locals
                    .get(l)
                    .ok_or_else(|| bad(format!("local #{l} does not exist")))?
                    .ty;
                let v = match init {
                    Some(e) => coerce(self.eval(f, e)?, ty)?,
                    None => Value::zero(ty, self.module),
                };
                f.locals[l] = v;
            }
            StmtKind::Assign { target, op, value } => self.assign(f, target, *op, value)?,
            StmtKind::Expr(e) => {
                self.eval(f, e)?;
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                return if self.cond(f, cond)? {
                    self.exec_block(f, then)
                } else {
                    self.exec_block(f, otherwise)
                };
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                if let Flow::Return(v) = self.exec_block(f, init)? {
                    return Ok(Flow::Return(v));
                }
                let mut first = true;
                loop {
                    if *test_first || !first {
                        if let Some(c) = cond {
                            if !self.cond(f, c)? {
                                break;
                            }
                        }
                    }
                    first = false;
                    match self.exec_block(f, body)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Normal | Flow::Continue => {}
                    }
                    if let Flow::Return(v) = self.exec_block(f, step)? {
                        return Ok(Flow::Return(v));
                    }
                    self.watchdog.check()?;
                }
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.eval(f, e)?),
                    None => None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Block(b) => return self.exec_block(f, b),
            StmtKind::Discard => return Err(Interrupt::Discard),
            StmtKind::Push { param, value } => {
                let max = match f.func.params.get(*param as usize).map(|p| p.class) {
                    Some(ParamClass::Vout { max }) => max as usize,
                    _ => return Err(bad(format!("push onto parameter {param}, not a vout")).into()),
                };
                // Room for `max` values per element (as on GL): later pushes are dropped.
                if f.pushed.iter().filter(|(p, _)| p == param).count() < max {
                    let ty = &f.func.params[*param as usize].ty;
                    let v = coerce(self.eval(f, value)?, ty)?;
                    f.pushed.push((*param, v));
                }
            }
        }
        Ok(Flow::Normal)
    }

    /// `target = value` or `target op= value`.
    fn assign(
        &self,
        f: &mut Frame<'a>,
        target: &'a Place,
        op: Option<BinaryOp>,
        value: &'a brook_ir::Expr,
    ) -> Result<(), Interrupt> {
        let mut steps = Vec::new();
        for a in &target.path {
            steps.push(match a {
                Access::Member(i) => Step::Member(*i as usize),
                Access::Swizzle(sel) => Step::Swizzle(sel),
                Access::Index(e) => Step::Index(index_of_value(&self.eval(f, e)?)?),
            });
        }
        let rhs = self.eval(f, value)?;
        let root = match target.root {
            PlaceRoot::Local(l) => f.locals.get_mut(l.0 as usize),
            PlaceRoot::Param(p) => f.params.get_mut(p as usize),
        }
        .ok_or_else(|| bad(format!("assignment to missing {:?}", target.root)))?;
        let new = match op {
            None => rhs,
            Some(op) => ops::binary(op, &load(root, &steps)?, &rhs)?,
        };
        store(root, &steps, new)?;
        Ok(())
    }
}
