//! Statements and assigned places: only locals and outputs are written, conditions are `bool`
//! scalars, `break`/`continue` sit in loops, loop steps are assignments and expressions, and
//! `return` matches the function.

use super::expr::{binary_type, element_type};
use super::{FnCheck, Invalid, Res};
use crate::module::{Access, Block, Expr, ParamClass, Place, PlaceRoot, Stmt, StmtKind, Type};
use crate::span::Span;

impl FnCheck<'_> {
    pub(super) fn block(&mut self, b: &Block) -> Res {
        b.iter().try_for_each(|s| self.stmt(s))
    }

    fn condition(&mut self, c: &Expr) -> Res {
        self.expr(c)?;
        Self::same("condition", &Type::BOOL, &c.ty, c.span)
    }

    fn stmt(&mut self, s: &Stmt) -> Res {
        let span = s.span;
        match &s.kind {
            StmtKind::Decl { local, init } => {
                let ty = self.local_type(local.0, span)?.clone();
                if let Some(e) = init {
                    self.expr(e)?;
                    Self::same("initialiser", &ty, &e.ty, e.span)?;
                }
                Ok(())
            }
            StmtKind::Assign { target, op, value } => {
                self.place(target, span)?;
                self.expr(value)?;
                match op {
                    None => Self::same("assigned value", &target.ty, &value.ty, value.span),
                    Some(op) => {
                        let ty = binary_type(*op, &target.ty, &value.ty).ok_or((
                            span,
                            Invalid::Operands {
                                what: format!("{}=", op.symbol()),
                                operands: vec![target.ty.clone(), value.ty.clone()],
                            },
                        ))?;
                        Self::same("compound assignment", &target.ty, &ty, span)
                    }
                }
            }
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.condition(cond)?;
                self.block(then)?;
                self.block(otherwise)
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                ..
            } => {
                self.block(init)?;
                if let Some(c) = cond {
                    self.condition(c)?;
                }
                if let Some(bad) = step
                    .iter()
                    .find(|s| !matches!(s.kind, StmtKind::Assign { .. } | StmtKind::Expr(_)))
                {
                    return Err((bad.span, Invalid::LoopStep));
                }
                self.loops += 1;
                let inside = self.block(step).and_then(|()| self.block(body));
                self.loops -= 1;
                inside
            }
            StmtKind::Break if self.loops == 0 => Err((span, Invalid::OutsideLoop("break"))),
            StmtKind::Continue if self.loops == 0 => Err((span, Invalid::OutsideLoop("continue"))),
            StmtKind::Break | StmtKind::Continue | StmtKind::Discard => Ok(()),
            StmtKind::Return(value) => {
                let ret = &self.func.ret;
                match value {
                    None if *ret == Type::Void => Ok(()),
                    Some(e) if *ret != Type::Void => {
                        self.expr(e)?;
                        Self::same("returned value", ret, &e.ty, e.span)
                    }
                    _ => Err((span, Invalid::Return(ret.clone()))),
                }
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Push { param, value } => {
                let (class, ty) = self.param_class(*param, span)?;
                if !matches!(class, ParamClass::Vout { .. }) {
                    return Err((
                        span,
                        Invalid::ParamUse {
                            param: *param,
                            class,
                            used: "pushed onto",
                        },
                    ));
                }
                let ty = ty.clone();
                self.expr(value)?;
                Self::same("pushed value", &ty, &value.ty, value.span)
            }
        }
    }

    /// A place: a local or an output parameter, then steps each fitting the type before it,
    /// ending at the place's type.
    fn place(&mut self, p: &Place, span: Span) -> Res {
        let mut ty = match p.root {
            PlaceRoot::Local(l) => self.local_type(l.0, span)?.clone(),
            PlaceRoot::Param(i) => {
                let (class, ty) = self.param_class(i, span)?;
                if !class.is_output() {
                    return Err((
                        span,
                        Invalid::ParamUse {
                            param: i,
                            class,
                            used: "assigned",
                        },
                    ));
                }
                ty.clone()
            }
        };
        for step in &p.path {
            ty = match step {
                Access::Member(m) => self.member_type(&ty, *m, span)?,
                Access::Swizzle(comps) => {
                    let n = ty.width().unwrap_or(0);
                    let repeats = comps
                        .iter()
                        .enumerate()
                        .any(|(i, c)| comps[..i].contains(c));
                    let s = ty.scalar().filter(|_| !matches!(ty, Type::Matrix { .. }));
                    match s {
                        Some(s)
                            if !comps.is_empty() && !repeats && comps.iter().all(|&c| c < n) =>
                        {
                            Type::vector(s, comps.len() as u8)
                        }
                        _ => {
                            return Err((
                                span,
                                Invalid::Access(format!("write mask {comps:?} of a {ty:?}")),
                            ))
                        }
                    }
                }
                Access::Index(i) => {
                    self.expr(i)?;
                    Self::same("index", &Type::INT, &i.ty, i.span)?;
                    element_type(&ty)
                        .ok_or_else(|| (span, Invalid::Access(format!("indexing a {ty:?}"))))?
                }
            };
        }
        Self::same("assigned place", &ty, &p.ty, span)
    }
}
