//! Expressions: one rule per `ExprKind`, mirroring the interpreter's evaluation.

use brook_frontend::ir::{
    BinaryOp, Builtin, Expr, ExprKind, FunctionId, ParamClass, Type, UnaryOp,
};

use super::{fits, kind, kinds, literal, no, width, Bind, Compiler, PosSrc, Res, Scope};
use crate::batch::program::{Block, GatherIndex, Ins, Kind, Reg, Val};
use crate::exec::builtin::{float1, float2, float3, float_test, int1, int2, modf};
use crate::exec::{clamp_index, frexp, index_of_value};
use crate::value::Comp;

/// The width of a component-wise result (`ops::width2`): equal widths or a scalar side.
fn width2(na: u8, nb: u8) -> Res<u8> {
    if na == nb || nb == 1 {
        Ok(na)
    } else if na == 1 {
        Ok(nb)
    } else {
        no("component-wise operation on vectors of different widths")
    }
}

/// Component `i` of a value of width `n`, splatting a scalar.
fn lane_of(v: &Val, i: usize) -> Reg {
    if v.regs.len() == 1 {
        v.regs[0]
    } else {
        v.regs[i]
    }
}

fn vector(k: Kind, n: u8) -> Type {
    use brook_frontend::ir::Scalar;
    let s = match k {
        Kind::F => Scalar::Float,
        Kind::I => Scalar::Int,
        Kind::B => Scalar::Bool,
    };
    Type::vector(s, n)
}

fn val_kind(v: &Val) -> Option<Kind> {
    match v.ty {
        Type::Scalar(s) | Type::Vector(s, _) => Some(kind(s)),
        _ => None,
    }
}

/// Whether evaluating `e` can write a variable or discard (an `out` argument, `frexp`/`modf`,
/// any helper call): such expressions must run under the mask, not for every lane.
pub(crate) fn has_effects(e: &Expr) -> bool {
    let any = |es: &[Expr]| es.iter().any(has_effects);
    match &e.kind {
        ExprKind::Call(..) | ExprKind::Builtin(Builtin::Frexp | Builtin::Modf, _) => true,
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::IndexOf(_) => false,
        ExprKind::Unary(_, a)
        | ExprKind::Convert(a)
        | ExprKind::Swizzle(a, _)
        | ExprKind::Member(a, _) => has_effects(a),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => has_effects(a) || has_effects(b),
        ExprKind::Select {
            cond,
            accept,
            reject,
        } => has_effects(cond) || has_effects(accept) || has_effects(reject),
        ExprKind::Construct(p) | ExprKind::Builtin(_, p) => any(p),
        ExprKind::Gather { indices, .. } => any(indices),
    }
}

/// Whether `e` may write a caller variable below its root (an effectful argument of the
/// root, or any effect under another root): reads must then be copied to keep C's
/// left-to-right order.
pub(crate) fn writes_below_root(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call(_, args) | ExprKind::Builtin(_, args) => args.iter().any(has_effects),
        _ => has_effects(e),
    }
}

impl<'m> Compiler<'m> {
    pub(crate) fn expr(&mut self, s: &mut Scope<'m>, e: &'m Expr, out: &mut Block) -> Res<Val> {
        let scalar = |ty: Type, r: Reg| Val { ty, regs: vec![r] };
        Ok(match &e.kind {
            ExprKind::Float(x) => scalar(Type::FLOAT, self.konst(Comp::F(*x))),
            ExprKind::Int(i) => scalar(Type::INT, self.konst(Comp::I(*i))),
            ExprKind::Bool(b) => scalar(Type::BOOL, self.konst(Comp::B(*b))),
            ExprKind::Local(l) => {
                let v = s
                    .locals
                    .get(l.0 as usize)
                    .cloned()
                    .ok_or_else(|| super::Unbatchable("missing local".into()))?;
                self.read(v, out)
            }
            ExprKind::Param(p) => match s.params.get(*p as usize) {
                Some(Bind::Value(v)) => {
                    let v = v.clone();
                    self.read(v, out)
                }
                _ => return no("a gather parameter read without a subscript"),
            },
            ExprKind::Unary(op, a) => {
                let v = self.expr(s, a, out)?;
                self.unary(*op, v, out)?
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) if has_effects(b) => {
                self.short_circuit(s, *op, a, b, out)?
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(s, a, out)?;
                let y = self.expr(s, b, out)?;
                self.binary(*op, x, y, out)?
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => self.select(s, cond, accept, reject, out)?,
            ExprKind::Convert(a) => {
                let v = self.expr(s, a, out)?;
                self.coerce(v, &e.ty, out)?
            }
            ExprKind::Construct(parts) => self.construct(s, &e.ty, parts, out)?,
            ExprKind::Swizzle(a, sel) => {
                let v = self.expr(s, a, out)?;
                swizzle(&v, sel)?
            }
            ExprKind::Member(a, i) => {
                let v = self.expr(s, a, out)?;
                self.member(&v, *i)?
            }
            ExprKind::Index(a, i) => {
                let v = self.expr(s, a, out)?;
                match literal(i) {
                    Some(lit) => index_static(
                        &v,
                        index_of_value(&lit).map_err(|e| super::Unbatchable(e.to_string()))?,
                        self.module,
                    )?,
                    None => {
                        let iv = self.expr(s, i, out)?;
                        self.index_dynamic(&v, iv.regs[0], out)?
                    }
                }
            }
            ExprKind::Gather { param, indices } => self.gather(s, *param, indices, out)?,
            ExprKind::IndexOf(p) => match s.positions.get(*p as usize) {
                Some(PosSrc::Kernel(k)) => {
                    self.positions_used[*k] = true;
                    Val {
                        ty: Type::Vector(brook_frontend::ir::Scalar::Float, 4),
                        regs: self.positions[*k].to_vec(),
                    }
                }
                Some(PosSrc::Zero) => {
                    self.zero(&Type::Vector(brook_frontend::ir::Scalar::Float, 4))?
                }
                None => return no("indexof of a missing parameter"),
            },
            ExprKind::Builtin(b @ (Builtin::Frexp | Builtin::Modf), args) => {
                self.split_builtin(s, *b, args, out)?
            }
            ExprKind::Builtin(b, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.expr(s, a, out)?);
                }
                let r = self.builtin(*b, vals, &e.ty, out)?;
                match (val_kind(&r), e.ty.scalar()) {
                    (Some(have), Some(want)) if have != kind(want) => self.coerce(r, &e.ty, out)?,
                    _ => r,
                }
            }
            ExprKind::Call(f, args) => self.call(s, *f, args, out)?,
        })
    }

    /// A variable's value: its registers, or a copy when the statement writes variables
    /// mid-expression.
    fn read(&mut self, v: Val, out: &mut Block) -> Val {
        if !self.copy_reads {
            return v;
        }
        let regs = v
            .regs
            .iter()
            .map(|&a| {
                let d = self.reg(a.kind);
                out.push(Ins::Copy { d, a });
                d
            })
            .collect();
        Val { ty: v.ty, regs }
    }

    /// The interpreter's `coerce`: the value itself when it fits `ty`, else `convert_to`.
    pub(crate) fn coerce(&mut self, v: Val, ty: &Type, out: &mut Block) -> Res<Val> {
        if fits(&v.ty, ty) {
            return Ok(v);
        }
        match ty {
            Type::Scalar(sc) | Type::Vector(sc, _) => {
                let (want, n) = (width(ty) as usize, width(&v.ty) as usize);
                if n == 0 || (n != 1 && n < want) {
                    return no(format!("cannot convert {:?} to {ty:?}", v.ty));
                }
                let regs = (0..want)
                    .map(|i| self.conv(lane_of(&v, i), kind(*sc), out))
                    .collect();
                Ok(Val {
                    ty: ty.clone(),
                    regs,
                })
            }
            Type::Matrix { rows, cols } if width(&v.ty) == 1 => {
                let r = self.conv(v.regs[0], Kind::F, out);
                Ok(Val {
                    ty: ty.clone(),
                    regs: vec![r; *rows as usize * *cols as usize],
                })
            }
            Type::Void => Ok(Val {
                ty: Type::Void,
                regs: Vec::new(),
            }),
            Type::Struct(_) | Type::Array(..) => Ok(v),
            Type::Matrix { .. } => no(format!("cannot convert {:?} to {ty:?}", v.ty)),
        }
    }

    /// Builds a value of `ty` from components in order, converting each to its kind
    /// (`Value::from_comps`).
    pub(crate) fn build_from(&mut self, ty: &Type, comps: &[Reg], out: &mut Block) -> Res<Val> {
        let mut ks = Vec::new();
        kinds(ty, self.module, &mut ks)?;
        if comps.len() < ks.len() {
            return no(format!("too few components to construct {ty:?}"));
        }
        let regs = ks
            .iter()
            .zip(comps)
            .map(|(&k, &r)| self.conv(r, k, out))
            .collect();
        Ok(Val {
            ty: ty.clone(),
            regs,
        })
    }

    fn unary(&mut self, op: UnaryOp, v: Val, out: &mut Block) -> Res<Val> {
        let k = match (&v.ty, op) {
            (Type::Matrix { .. }, UnaryOp::Neg) => Kind::F,
            _ => val_kind(&v).ok_or_else(|| super::Unbatchable("unary operator".into()))?,
        };
        let n = v.regs.len() as u8;
        let ty = v.ty.clone();
        let map = |c: &mut Self, f: &mut dyn FnMut(&mut Self, Reg) -> Reg| {
            v.regs.iter().map(|&a| f(c, a)).collect::<Vec<_>>()
        };
        Ok(match (op, k) {
            (UnaryOp::Neg, Kind::F | Kind::I) => Val {
                regs: map(self, &mut |c, a| {
                    let d = c.reg(k);
                    out.push(Ins::Neg { d, a });
                    d
                }),
                ty,
            },
            (UnaryOp::Not, _) => {
                let zero = self.konst(match k {
                    Kind::F => Comp::F(0.0),
                    Kind::I => Comp::I(0),
                    Kind::B => Comp::B(false),
                });
                Val {
                    regs: map(self, &mut |c, a| {
                        let d = c.reg(Kind::B);
                        out.push(match k {
                            Kind::F => Ins::FCmp {
                                op: BinaryOp::Eq,
                                d,
                                a,
                                b: zero,
                            },
                            Kind::I => Ins::ICmp {
                                op: BinaryOp::Eq,
                                d,
                                a,
                                b: zero,
                            },
                            Kind::B => Ins::BBin {
                                op: BinaryOp::Eq,
                                d,
                                a,
                                b: zero,
                            },
                        });
                        d
                    }),
                    ty: vector(Kind::B, n),
                }
            }
            (UnaryOp::BitNot, Kind::I) => {
                let ones = self.konst(Comp::I(-1));
                Val {
                    regs: map(self, &mut |c, a| {
                        let d = c.reg(Kind::I);
                        out.push(Ins::IArith {
                            op: BinaryOp::BitXor,
                            d,
                            a,
                            b: ones,
                        });
                        d
                    }),
                    ty,
                }
            }
            _ => return no(format!("operator {op:?} on {ty:?}")),
        })
    }

    /// Component-wise `op` on two values of kind `k` (already converted), result kind `rk`.
    fn zip(&mut self, op: BinaryOp, x: &Val, y: &Val, k: Kind, out: &mut Block) -> Res<Val> {
        use BinaryOp::*;
        let n = width2(x.regs.len() as u8, y.regs.len() as u8)?;
        let cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge);
        let ok = match k {
            Kind::F => cmp || matches!(op, Add | Sub | Mul | Div | Rem),
            Kind::I => !matches!(op, And | Or),
            Kind::B => matches!(op, Eq | Ne | BitXor | BitAnd | BitOr | And | Or),
        };
        if !ok {
            return no(format!("operator {op:?} on {k:?}"));
        }
        let rk = if cmp || k == Kind::B { Kind::B } else { k };
        let regs = (0..n as usize)
            .map(|i| {
                let (a, b, d) = (lane_of(x, i), lane_of(y, i), self.reg(rk));
                out.push(match (k, cmp) {
                    (Kind::F, false) => Ins::FArith { op, d, a, b },
                    (Kind::F, true) => Ins::FCmp { op, d, a, b },
                    (Kind::I, false) => Ins::IArith { op, d, a, b },
                    (Kind::I, true) => Ins::ICmp { op, d, a, b },
                    (Kind::B, _) => Ins::BBin { op, d, a, b },
                });
                d
            })
            .collect();
        Ok(Val {
            ty: vector(rk, n),
            regs,
        })
    }

    /// Every component converted to kind `k`, keeping the width.
    fn as_kind(&mut self, v: &Val, k: Kind, out: &mut Block) -> Res<Val> {
        let n = width(&v.ty);
        if n == 0 {
            return no(format!("{:?} where a scalar or vector is expected", v.ty));
        }
        let regs = v.regs.iter().map(|&r| self.conv(r, k, out)).collect();
        Ok(Val {
            ty: vector(k, n),
            regs,
        })
    }

    /// The interpreter's `ops::binary`.
    pub(crate) fn binary(&mut self, op: BinaryOp, x: Val, y: Val, out: &mut Block) -> Res<Val> {
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let (x, y) = (
                self.as_kind(&x, Kind::B, out)?,
                self.as_kind(&y, Kind::B, out)?,
            );
            return self.zip(op, &x, &y, Kind::B, out);
        }
        match (&x.ty, &y.ty) {
            (Type::Matrix { rows, cols }, _) | (_, Type::Matrix { rows, cols }) => {
                let (rows, cols) = (*rows, *cols);
                if !matches!(
                    op,
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
                ) {
                    return no("operator on matrices");
                }
                let flat = |c: &mut Self, v: &Val, out: &mut Block| -> Res<Val> {
                    match v.ty {
                        Type::Matrix { rows: r, cols: k } if (r, k) == (rows, cols) => {
                            Ok(v.clone())
                        }
                        Type::Scalar(
                            brook_frontend::ir::Scalar::Float | brook_frontend::ir::Scalar::Int,
                        ) => c.as_kind(v, Kind::F, out),
                        _ => no("matrix operands of different shapes"),
                    }
                };
                let (a, b) = (flat(self, &x, out)?, flat(self, &y, out)?);
                let n = (rows as usize) * (cols as usize);
                let regs = (0..n)
                    .map(|i| {
                        let d = self.reg(Kind::F);
                        out.push(Ins::FArith {
                            op,
                            d,
                            a: lane_of(&a, i),
                            b: lane_of(&b, i),
                        });
                        d
                    })
                    .collect();
                Ok(Val {
                    ty: Type::Matrix { rows, cols },
                    regs,
                })
            }
            _ => match (val_kind(&x), val_kind(&y)) {
                (Some(a), Some(b)) if a == b => self.zip(op, &x, &y, a, out),
                (Some(_), Some(_)) => {
                    let (x, y) = (
                        self.as_kind(&x, Kind::F, out)?,
                        self.as_kind(&y, Kind::F, out)?,
                    );
                    self.zip(op, &x, &y, Kind::F, out)
                }
                _ => no(format!("operator {op:?} on {:?} and {:?}", x.ty, y.ty)),
            },
        }
    }

    /// `a && b` / `a || b` whose right side has effects: evaluated only where C would.
    fn short_circuit(
        &mut self,
        s: &mut Scope<'m>,
        op: BinaryOp,
        a: &'m Expr,
        b: &'m Expr,
        out: &mut Block,
    ) -> Res<Val> {
        let x = self.expr(s, a, out)?;
        if width(&x.ty) != 1 {
            return no("short-circuit operator on vectors");
        }
        let t = self.conv(x.regs[0], Kind::B, out);
        let d = self.reg(Kind::B);
        out.push(Ins::Copy { d, a: t });
        let mut rhs = Vec::new();
        let y = self.expr(s, b, &mut rhs)?;
        if width(&y.ty) != 1 {
            return no("short-circuit operator on vectors");
        }
        let yt = self.conv(y.regs[0], Kind::B, &mut rhs);
        rhs.push(Ins::Store {
            dst: vec![d],
            src: vec![yt],
            when: Vec::new(),
            moves: false,
        });
        let (then, otherwise) = if op == BinaryOp::And {
            (rhs, Vec::new())
        } else {
            (Vec::new(), rhs)
        };
        out.push(Ins::If {
            cond: t,
            then,
            otherwise,
        });
        Ok(Val {
            ty: Type::BOOL,
            regs: vec![d],
        })
    }

    fn select(
        &mut self,
        s: &mut Scope<'m>,
        cond: &'m Expr,
        accept: &'m Expr,
        reject: &'m Expr,
        out: &mut Block,
    ) -> Res<Val> {
        let c = self.expr(s, cond, out)?;
        if width(&c.ty) == 1 && (has_effects(accept) || has_effects(reject)) {
            // Only the chosen side runs, as in C.
            let t = self.conv(c.regs[0], Kind::B, out);
            let (mut then, mut otherwise) = (Vec::new(), Vec::new());
            let y = self.expr(s, accept, &mut then)?;
            let d = self.alloc(&y.ty)?;
            then.push(Ins::Store {
                dst: d.regs.clone(),
                src: y.regs,
                when: Vec::new(),
                moves: false,
            });
            let n = self.expr(s, reject, &mut otherwise)?;
            let n = self.coerce(n, &d.ty, &mut otherwise)?;
            if n.regs.len() != d.regs.len() {
                return no("select of different types");
            }
            otherwise.push(Ins::Store {
                dst: d.regs.clone(),
                src: n.regs,
                when: Vec::new(),
                moves: false,
            });
            out.push(Ins::If {
                cond: t,
                then,
                otherwise,
            });
            return Ok(d);
        }
        let y = self.expr(s, accept, out)?;
        let n = self.expr(s, reject, out)?;
        let cw = width(&c.ty) as usize;
        if cw == 0 || (cw > 1 && (y.regs.len() < cw || n.regs.len() < cw)) {
            return no("select with this condition");
        }
        if cw == 1 && y.regs.len() != n.regs.len() {
            return no("select of different types");
        }
        let conds: Vec<Reg> = c.regs.iter().map(|&r| self.conv(r, Kind::B, out)).collect();
        let regs = y
            .regs
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                if cw > 1 && i >= cw {
                    return a;
                }
                let c = if cw == 1 { conds[0] } else { conds[i] };
                let b = self.conv(n.regs[i], a.kind, out);
                let d = self.reg(a.kind);
                out.push(Ins::Select { c, d, a, b });
                d
            })
            .collect();
        Ok(Val { ty: y.ty, regs })
    }

    /// The interpreter's `construct`.
    fn construct(
        &mut self,
        s: &mut Scope<'m>,
        ty: &Type,
        parts: &'m [Expr],
        out: &mut Block,
    ) -> Res<Val> {
        let mut vals = Vec::with_capacity(parts.len());
        for p in parts {
            vals.push(self.expr(s, p, out)?);
        }
        match ty {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => {
                if let [one] = vals.as_slice() {
                    if width(&one.ty) == 1 || matches!(one.ty, Type::Matrix { .. }) {
                        return self.coerce(one.clone(), ty, out);
                    }
                    return self.build_from(ty, &one.regs, out);
                }
                // Structs and arrays contribute no components here (`Value::width` is 0).
                let comps: Vec<Reg> = vals
                    .iter()
                    .filter(|v| width(&v.ty) > 0 || matches!(v.ty, Type::Matrix { .. }))
                    .flat_map(|v| v.regs.iter().copied())
                    .take(16)
                    .collect();
                self.build_from(ty, &comps, out)
            }
            Type::Struct(id) => {
                let members = &self.module.struct_def(*id).members;
                if members.len() == vals.len() {
                    let mut regs = Vec::new();
                    for (m, v) in members.iter().zip(vals) {
                        regs.extend(self.coerce(v, &m.ty, out)?.regs);
                    }
                    return Ok(Val {
                        ty: ty.clone(),
                        regs,
                    });
                }
                let comps: Vec<Reg> = vals.iter().flat_map(|v| v.regs.iter().copied()).collect();
                self.build_from(ty, &comps, out)
            }
            Type::Array(elem, n) => {
                if *n as usize == vals.len() {
                    let mut regs = Vec::new();
                    for v in vals {
                        regs.extend(self.coerce(v, elem, out)?.regs);
                    }
                    return Ok(Val {
                        ty: ty.clone(),
                        regs,
                    });
                }
                let comps: Vec<Reg> = vals.iter().flat_map(|v| v.regs.iter().copied()).collect();
                self.build_from(ty, &comps, out)
            }
            Type::Void => no("constructing void"),
        }
    }

    pub(crate) fn member(&mut self, v: &Val, i: u32) -> Res<Val> {
        let Type::Struct(id) = v.ty else {
            return no("member of a non-struct");
        };
        let members = &self.module.struct_def(id).members;
        let mut off = 0;
        for (k, m) in members.iter().enumerate() {
            let mut ks = Vec::new();
            kinds(&m.ty, self.module, &mut ks)?;
            if k == i as usize {
                return Ok(Val {
                    ty: m.ty.clone(),
                    regs: v.regs[off..off + ks.len()].to_vec(),
                });
            }
            off += ks.len();
        }
        no("missing member")
    }

    /// `v[i]` with `i` computed per lane: one candidate per element, picked per lane.
    pub(crate) fn index_dynamic(&mut self, v: &Val, index: Reg, out: &mut Block) -> Res<Val> {
        let cands = elements(v, self.module)?;
        let ty = cands[0].ty.clone();
        let d = self.alloc(&ty)?;
        out.push(Ins::Pick {
            index,
            cands: cands.into_iter().map(|c| c.regs).collect(),
            d: d.regs.clone(),
        });
        Ok(d)
    }

    fn gather(
        &mut self,
        s: &mut Scope<'m>,
        p: u32,
        indices: &'m [Expr],
        out: &mut Block,
    ) -> Res<Val> {
        let Some(Bind::Gather(k)) = s.params.get(p as usize).cloned() else {
            return no("gather from a parameter that is not a gather");
        };
        let elem = s.func.params[p as usize].ty.clone();
        let index = if let [one] = indices {
            GatherIndex::Vector(self.expr(s, one, out)?.regs)
        } else {
            let mut regs = Vec::new();
            for e in indices {
                let v = self.expr(s, e, out)?;
                regs.push(
                    *v.regs
                        .first()
                        .ok_or_else(|| super::Unbatchable("gather index".into()))?,
                );
            }
            GatherIndex::Subscripts(regs)
        };
        let d = self.alloc(&elem)?;
        out.push(Ins::Gather {
            param: k,
            name: s.func.params[p as usize].name.clone(),
            index,
            d: d.clone(),
        });
        Ok(d)
    }

    /// `frexp(x, e)` / `modf(x, ip)`: the second result is stored into the variable.
    fn split_builtin(
        &mut self,
        s: &mut Scope<'m>,
        b: Builtin,
        args: &'m [Expr],
        out: &mut Block,
    ) -> Res<Val> {
        let [x, slot] = args else {
            return no("frexp/modf arity");
        };
        let x = self.expr(s, x, out)?;
        let x = self.as_kind(&x, Kind::F, out)?;
        let f: fn(f32) -> (f32, f32) = if b == Builtin::Modf { modf } else { frexp };
        let (mut r0, mut r1) = (Vec::new(), Vec::new());
        for &a in &x.regs {
            let (d0, d1) = (self.reg(Kind::F), self.reg(Kind::F));
            out.push(Ins::Split { f, d0, d1, a });
            r0.push(d0);
            r1.push(d1);
        }
        let target = match slot.kind {
            ExprKind::Local(l) => s.locals.get(l.0 as usize).cloned(),
            ExprKind::Param(p) => match s.params.get(p as usize) {
                Some(Bind::Value(v)) => Some(v.clone()),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| {
            super::Unbatchable("frexp/modf into something other than a variable".into())
        })?;
        let second = Val {
            ty: x.ty.clone(),
            regs: r1,
        };
        let second = self.coerce(second, &slot.ty, out)?;
        self.store(target.regs, second.regs, Vec::new(), out)?;
        Ok(Val { ty: x.ty, regs: r0 })
    }

    /// Built-ins: component-wise ones become lane loops over the interpreter's formulas; the
    /// others run the interpreter's `builtin` per lane.
    fn builtin(&mut self, b: Builtin, args: Vec<Val>, ty: &Type, out: &mut Block) -> Res<Val> {
        let all_ints = !args.is_empty() && args.iter().all(|a| val_kind(a) == Some(Kind::I));
        let n = |i: usize| args.get(i).map(|a| a.regs.len() as u8);
        if all_ints && (int1(b).is_some() || int2(b).is_some() || b == Builtin::Clamp) {
            if let Some(f) = int1(b) {
                let regs = args[0]
                    .regs
                    .iter()
                    .map(|&a| {
                        let d = self.reg(Kind::I);
                        out.push(Ins::I1 { f, d, a });
                        d
                    })
                    .collect();
                return Ok(Val {
                    ty: args[0].ty.clone(),
                    regs,
                });
            }
            let imap2 = |c: &mut Self,
                         f: fn(i32, i32) -> i32,
                         x: &Val,
                         y: &Val,
                         out: &mut Block|
             -> Res<Val> {
                let w = width2(x.regs.len() as u8, y.regs.len() as u8)?;
                let regs = (0..w as usize)
                    .map(|i| {
                        let d = c.reg(Kind::I);
                        out.push(Ins::I2 {
                            f,
                            d,
                            a: lane_of(x, i),
                            b: lane_of(y, i),
                        });
                        d
                    })
                    .collect();
                Ok(Val {
                    ty: vector(Kind::I, w),
                    regs,
                })
            };
            if args.len() < 2 || (b == Builtin::Clamp && args.len() < 3) {
                return no("built-in arity");
            }
            if let Some(f) = int2(b) {
                return imap2(self, f, &args[0], &args[1], out);
            }
            let lo = imap2(self, i32::max, &args[0], &args[1], out)?;
            return imap2(self, i32::min, &lo, &args[2], out);
        }
        let componentwise = float1(b).is_some()
            || float2(b).is_some()
            || float3(b).is_some()
            || float_test(b).is_some();
        if !componentwise {
            let d = self.alloc(ty)?;
            out.push(Ins::PerLane {
                b,
                args,
                d: d.clone(),
            });
            return Ok(d);
        }
        let fl: Vec<Val> = args
            .iter()
            .map(|a| self.as_kind(a, Kind::F, out))
            .collect::<Res<_>>()?;
        let need = if float3(b).is_some() {
            3
        } else if float2(b).is_some() {
            2
        } else {
            1
        };
        if fl.len() < need {
            return no("built-in arity");
        }
        let w = match need {
            1 => n(0).unwrap_or(0),
            2 => width2(n(0).unwrap_or(0), n(1).unwrap_or(0))?,
            _ => {
                let w = fl
                    .iter()
                    .take(3)
                    .map(|a| a.regs.len() as u8)
                    .max()
                    .unwrap_or(1);
                if fl
                    .iter()
                    .take(3)
                    .any(|a| a.regs.len() != 1 && a.regs.len() as u8 != w)
                {
                    return no("built-in arguments of different widths");
                }
                w
            }
        };
        let test = float_test(b);
        let rk = if test.is_some() { Kind::B } else { Kind::F };
        let regs = (0..w as usize)
            .map(|i| {
                let d = self.reg(rk);
                let a = lane_of(&fl[0], i);
                out.push(if let Some(f) = test {
                    Ins::FTest { f, d, a }
                } else if let Some(f) = float1(b) {
                    Ins::F1 { f, d, a }
                } else if let Some(f) = float2(b) {
                    Ins::F2 {
                        f,
                        d,
                        a,
                        b: lane_of(&fl[1], i),
                    }
                } else {
                    let f = float3(b).expect("checked above");
                    Ins::F3 {
                        f,
                        d,
                        a,
                        b: lane_of(&fl[1], i),
                        c: lane_of(&fl[2], i),
                    }
                });
                d
            })
            .collect();
        Ok(Val {
            ty: vector(rk, w),
            regs,
        })
    }

    /// An inlined call of a helper (the interpreter's `call`): arguments by value, gathers
    /// and `indexof` pass through stream parameters, `out` arguments copied back.
    fn call(
        &mut self,
        s: &mut Scope<'m>,
        fid: FunctionId,
        args: &'m [Expr],
        out: &mut Block,
    ) -> Res<Val> {
        let module = self.module;
        let callee = module
            .functions
            .get(fid.0 as usize)
            .ok_or_else(|| super::Unbatchable("unknown function".into()))?;
        if callee.params.len() != args.len() {
            return no("call arity");
        }
        let mut params = Vec::with_capacity(args.len());
        let mut positions = Vec::with_capacity(args.len());
        for (p, a) in callee.params.iter().zip(args) {
            let from = match a.kind {
                ExprKind::Param(q) => Some(q as usize),
                _ => None,
            };
            positions.push(
                from.and_then(|q| s.positions.get(q).copied())
                    .unwrap_or(PosSrc::Zero),
            );
            if let ParamClass::Gather { .. } = p.class {
                match from.and_then(|q| s.params.get(q)) {
                    Some(Bind::Gather(k)) => params.push(Bind::Gather(*k)),
                    _ => return no("a gather argument that is not a gather parameter"),
                }
                continue;
            }
            let v = self.expr(s, a, out)?;
            let v = self.coerce(v, &p.ty, out)?;
            let fresh = self.alloc(&p.ty)?;
            if fresh.regs.len() != v.regs.len() {
                return no("argument of the wrong type");
            }
            for (&d, &a) in fresh.regs.iter().zip(&v.regs) {
                let a = self.conv(a, d.kind, out);
                out.push(Ins::Copy { d, a });
            }
            params.push(Bind::Value(fresh));
        }
        let locals = callee
            .locals
            .iter()
            .map(|l| self.alloc(&l.ty))
            .collect::<Res<Vec<_>>>()?;
        let ret = match callee.ret {
            Type::Void => None,
            ref t => Some(self.alloc(t)?),
        };
        let mut inner = Scope {
            func: callee,
            params,
            positions,
            locals,
            ret: ret.clone(),
        };
        let saved = std::mem::replace(&mut self.copy_reads, false);
        let body = self.block(&mut inner, &callee.body)?;
        self.copy_reads = saved;
        out.push(Ins::Call { body });
        for (i, p) in callee.params.iter().enumerate() {
            if p.class != ParamClass::Out {
                continue;
            }
            let Bind::Value(v) = inner.params[i].clone() else {
                continue;
            };
            let target = match args[i].kind {
                ExprKind::Local(l) => s.locals.get(l.0 as usize).cloned(),
                ExprKind::Param(q) => match s.params.get(q as usize) {
                    Some(Bind::Value(t)) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(t) = target {
                let v = self.coerce(v, &args[i].ty, out)?;
                self.store(t.regs, v.regs, Vec::new(), out)?;
            }
        }
        Ok(ret.unwrap_or(Val {
            ty: Type::Void,
            regs: Vec::new(),
        }))
    }
}

/// `v.sel` (`Value::swizzle`): a scalar repeats.
pub(crate) fn swizzle(v: &Val, sel: &[u8]) -> Res<Val> {
    let n = width(&v.ty) as usize;
    let Some(k) = val_kind(v) else {
        return no("swizzle of a non-vector");
    };
    if n == 0 || sel.is_empty() || sel.len() > 4 {
        return no("swizzle");
    }
    let mut regs = Vec::with_capacity(sel.len());
    for &c in sel {
        let c = c as usize;
        regs.push(if n == 1 {
            v.regs[0]
        } else if c < n {
            v.regs[c]
        } else {
            return no("swizzle beyond the vector");
        });
    }
    Ok(Val {
        ty: vector(k, sel.len() as u8),
        regs,
    })
}

/// The elements `v[i]` may select: array elements, vector components or matrix rows.
pub(crate) fn elements(v: &Val, module: &brook_frontend::ir::Module) -> Res<Vec<Val>> {
    Ok(match &v.ty {
        Type::Array(elem, n) => {
            let mut ks = Vec::new();
            kinds(elem, module, &mut ks)?;
            let w = ks.len();
            (0..*n as usize)
                .map(|i| Val {
                    ty: (**elem).clone(),
                    regs: v.regs[i * w..(i + 1) * w].to_vec(),
                })
                .collect()
        }
        Type::Scalar(sc) | Type::Vector(sc, _) => v
            .regs
            .iter()
            .map(|&r| Val {
                ty: Type::Scalar(*sc),
                regs: vec![r],
            })
            .collect(),
        Type::Matrix { rows, cols } => (0..*rows as usize)
            .map(|r| Val {
                ty: Type::Vector(brook_frontend::ir::Scalar::Float, *cols),
                regs: v.regs[r * *cols as usize..(r + 1) * *cols as usize].to_vec(),
            })
            .collect(),
        _ => return no(format!("indexing {:?}", v.ty)),
    })
}

/// `v[i]` with a constant `i`, clamped like the interpreter's `index_into`.
pub(crate) fn index_static(v: &Val, i: i64, module: &brook_frontend::ir::Module) -> Res<Val> {
    let mut els = elements(v, module)?;
    let k = clamp_index(i, els.len());
    Ok(els.swap_remove(k))
}
