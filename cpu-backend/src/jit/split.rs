//! Vectors split into scalars: what lets a kernel with `float2`..`float4` (and `int`/`bool`
//! vector) values and streams run four elements per iteration ([`super::soa`]).
//!
//! [`split`] rewrites such a kernel into one whose every value is a scalar: a vector local
//! becomes one scalar local per component, and a vector expression one scalar expression
//! per component. The four-element layout then holds each component as its own four-lane
//! value (a `float2` becomes two `f32x4`), which is what structure of arrays means for
//! vectors. Brook's vector rules are component by component, so the rewrite is exact: an
//! operator, conversion, constructor, swizzle, `?:` or component-wise built-in on vectors is
//! the same operation on each component (the interpreter applies the same scalar formula to
//! each); a gather with a vector index is a gather with one subscript per component (`.x`
//! the last dimension, as the interpreter reads it); and the built-ins that combine
//! components (`dot`, `length`, `distance`, `normalize`, `cross`, `any`, `all`) are written
//! out with the interpreter's formulas in its order (`dot` is `((0 + x₀y₀) + x₁y₁) + …`,
//! `length` the `sqrt` of that). A stream, constant or gather of vectors stays one
//! parameter; its component `c` is read as `p[c]` (an output written as `o[c] = …`), which
//! the four-element code holds as one four-lane value per component, the four elements'
//! vectors transposed on load and store. Expressions have no effects the rewrite could repeat: a
//! component needed twice is computed twice (Cranelift merges the repeats), and helper calls
//! must take and return scalars.
//!
//! What does not split is refused, and the kernel keeps one element per iteration: matrices,
//! structs, arrays, helpers taking or returning vectors (unless one formula), `frexp`/`modf`,
//! indexing a vector, writes through an index or member.

use brook_ir::{
    Access, BinaryOp, Block, Builtin, Expr, ExprKind, Function, FunctionId, Local, LocalId, Module,
    ParamClass, Place, PlaceRoot, Scalar, Stmt, StmtKind, Type,
};

use std::collections::HashSet;

use super::kernel::{ParamKey, Variant};
use crate::exec::builtin::{formula, Formula, Whole};
use brook_ir::unlowered;

type Res<T> = Result<T, String>;

/// `module` with kernel `id` and the helpers it calls rewritten so that every value in them
/// is a scalar (see the module docs), for calls of shape `variant`; why not, when they cannot
/// be.
pub(crate) fn split(module: &Module, id: FunctionId, variant: &Variant) -> Res<Module> {
    let mut out = module.clone();
    let mut todo = vec![(id, variant.params.as_slice())];
    let mut done = HashSet::new();
    while let Some((id, keys)) = todo.pop() {
        if !done.insert(id) {
            continue;
        }
        let f = module
            .functions
            .get(id.0 as usize)
            .ok_or("no such function")?;
        let f = function(module, f, keys)?;
        brook_ir::walk::any_expr(&f.body, &mut |e| {
            if let ExprKind::Call(callee, _) = e.kind {
                todo.push((callee, &[]));
            }
            false
        });
        out.functions[id.0 as usize] = f;
    }
    Ok(out)
}

/// `f` split, its parameters bound as `keys` (a helper's: none).
fn function(module: &Module, f: &Function, keys: &[ParamKey]) -> Res<Function> {
    let mut s = Split {
        module,
        func: f,
        keys,
        locals: Vec::with_capacity(f.locals.len()),
        map: Vec::with_capacity(f.locals.len()),
        hoisted: Vec::new(),
        hoist: true,
    };
    for l in &f.locals {
        let (kind, n) =
            shape(&l.ty).map_err(|_| format!("`{}` is not a scalar or vector", l.name))?;
        let first = s.locals.len() as u32;
        for component in XYZW.iter().take(n) {
            let name = match n {
                1 => l.name.clone(),
                _ => format!("{}.{}", l.name, component),
            };
            s.locals.push(Local {
                name,
                ty: Type::Scalar(kind),
            });
        }
        s.map.push((first..first + n as u32).map(LocalId).collect());
    }
    let body = s.block(&f.body)?;
    Ok(Function {
        locals: s.locals,
        body,
        ..f.clone()
    })
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// The component kind and count of a scalar or vector type (`void` counts as one, for
/// helper calls run for their effect).
fn shape(ty: &Type) -> Res<(Scalar, usize)> {
    match ty {
        Type::Void => Ok((Scalar::Float, 1)),
        Type::Scalar(s) => Ok((*s, 1)),
        Type::Vector(s, n) => Ok((*s, *n as usize)),
        _ => Err(format!("a value of type {ty:?}")),
    }
}

/// The rewrite of one kernel.
struct Split<'a> {
    /// The module, for the helpers a call inlines ([`formula_of_call`]).
    module: &'a Module,
    func: &'a Function,
    /// How the function's parameters are bound (for a gather's rank).
    keys: &'a [ParamKey],
    /// The new locals: one scalar per component of each old local.
    locals: Vec<Local>,
    /// Per old local, its components' new locals.
    map: Vec<Vec<LocalId>>,
    /// The components of the vector gathers in the statement being split, each declared in
    /// a local of its own just before it: the four-element code then loads the gather once
    /// for all its components (`Lower::gather`), where one expression per component would
    /// load it once per component.
    hoisted: Vec<Stmt>,
    /// Whether the expression being split is evaluated once, before its statement (not a
    /// loop's condition): only then may its gathers be hoisted.
    hoist: bool,
}

/// A scalar expression of kind `s`.
fn scalar(kind: ExprKind, s: Scalar, like: &Expr) -> Expr {
    Expr {
        kind,
        ty: Type::Scalar(s),
        span: like.span,
    }
}

/// `e` converted to kind `s` (itself when it has that kind).
fn convert(e: Expr, s: Scalar) -> Expr {
    if e.ty == Type::Scalar(s) {
        return e;
    }
    let span = e.span;
    Expr {
        kind: ExprKind::Convert(Box::new(e)),
        ty: Type::Scalar(s),
        span,
    }
}

/// `a op b` on scalars of kind `s`.
fn binary(op: BinaryOp, a: Expr, b: Expr, s: Scalar) -> Expr {
    let span = a.span;
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Type::Scalar(s),
        span,
    }
}

/// `xs` as `n` components: itself, or a scalar repeated (Brook's splat).
fn spread(xs: Vec<Expr>, n: usize) -> Res<Vec<Expr>> {
    match xs.len() {
        k if k == n => Ok(xs),
        1 => Ok(vec![xs[0].clone(); n]),
        k => Err(format!("{k} components where {n} were wanted")),
    }
}

impl Split<'_> {
    fn block(&mut self, b: &Block) -> Res<Block> {
        let outer = std::mem::take(&mut self.hoisted);
        let mut out = Vec::with_capacity(b.len());
        for s in b {
            self.stmt(s, &mut out)?;
        }
        self.hoisted = outer;
        Ok(out)
    }

    /// `st` split, after the declarations of the gathers it hoisted.
    fn stmt(&mut self, st: &Stmt, out: &mut Block) -> Res<()> {
        let mut own = Vec::new();
        self.statement(st, &mut own)?;
        out.append(&mut self.hoisted);
        out.append(&mut own);
        Ok(())
    }

    fn statement(&mut self, st: &Stmt, out: &mut Block) -> Res<()> {
        let mut push = |kind| {
            out.push(Stmt {
                kind,
                span: st.span,
            })
        };
        match &st.kind {
            StmtKind::Decl { local, init } => {
                let parts = self.map[local.0 as usize].clone();
                let init = match init {
                    Some(e) => Some(spread(self.comps(e)?, parts.len())?),
                    None => None,
                };
                for (c, l) in parts.into_iter().enumerate() {
                    let init = init.as_ref().map(|xs| xs[c].clone());
                    push(StmtKind::Decl { local: l, init });
                }
            }
            StmtKind::Assign { target, op, value } => self.assign(st, target, *op, value, out)?,
            StmtKind::Expr(e) => push(StmtKind::Expr(self.one(e)?)),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => push(StmtKind::If {
                cond: self.one(cond)?,
                then: self.block(then)?,
                otherwise: self.block(otherwise)?,
            }),
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => push(StmtKind::Loop {
                init: self.block(init)?,
                cond: {
                    self.hoist = false;
                    let c = cond.as_ref().map(|c| self.one(c)).transpose();
                    self.hoist = true;
                    c?
                },
                step: self.block(step)?,
                body: self.block(body)?,
                test_first: *test_first,
            }),
            StmtKind::Return(e) => push(StmtKind::Return(
                e.as_ref().map(|e| self.one(e)).transpose()?,
            )),
            StmtKind::Block(b) => push(StmtKind::Block(self.block(b)?)),
            StmtKind::Push { .. } => return Err("`push`".into()),
            k @ (StmtKind::Break | StmtKind::Continue | StmtKind::Discard) => push(k.clone()),
        }
        Ok(())
    }

    /// `target (op)= value`, one assignment per component written. When the value reads the
    /// variable it writes, every component's value goes to a temporary first, so a later
    /// component does not read an earlier one's new value (`v = v.yx`).
    fn assign(
        &mut self,
        st: &Stmt,
        target: &Place,
        op: Option<BinaryOp>,
        value: &Expr,
        out: &mut Block,
    ) -> Res<()> {
        // The variable's components, each a scalar place.
        let parts: Vec<Place> = match target.root {
            PlaceRoot::Param(p) => match self.func.params.get(p as usize).map(|p| &p.ty) {
                Some(Type::Scalar(_)) if target.path.is_empty() => vec![target.clone()],
                Some(&Type::Vector(s, n)) => (0..n)
                    .map(|c| Place {
                        root: target.root,
                        path: vec![Access::Index(Box::new(int(c, value)))],
                        ty: Type::Scalar(s),
                    })
                    .collect(),
                _ => return Err("an output that is not a scalar or vector".into()),
            },
            PlaceRoot::Local(l) => self.map[l.0 as usize]
                .iter()
                .map(|&c| Place {
                    root: PlaceRoot::Local(c),
                    path: Vec::new(),
                    ty: self.locals[c.0 as usize].ty.clone(),
                })
                .collect(),
        };
        let written: Vec<Place> = match target.path.as_slice() {
            [] => parts,
            [Access::Swizzle(sel)] => sel
                .iter()
                .map(|&c| {
                    parts
                        .get(c as usize)
                        .cloned()
                        .ok_or("a swizzle past the end")
                })
                .collect::<Result<_, _>>()?,
            _ => return Err("an assignment through an index or member".into()),
        };
        let mut values = spread(self.comps(value)?, written.len())?;
        if written.len() > 1 && reads(value, target.root) {
            for v in values.iter_mut() {
                let t = LocalId(self.locals.len() as u32);
                self.locals.push(Local {
                    name: "split".into(),
                    ty: v.ty.clone(),
                });
                let read = scalar(ExprKind::Local(t), shape(&v.ty)?.0, v);
                let init = std::mem::replace(v, read);
                out.push(Stmt {
                    kind: StmtKind::Decl {
                        local: t,
                        init: Some(init),
                    },
                    span: st.span,
                });
            }
        }
        for (target, value) in written.into_iter().zip(values) {
            out.push(Stmt {
                kind: StmtKind::Assign { target, op, value },
                span: st.span,
            });
        }
        Ok(())
    }

    /// The rewrite of an expression that must be one scalar (or `void`).
    fn one(&mut self, e: &Expr) -> Res<Expr> {
        let mut xs = self.comps(e)?;
        match xs.len() {
            1 => Ok(xs.remove(0)),
            n => Err(format!("{n} components where a scalar was wanted")),
        }
    }

    /// `e`'s components, each a scalar expression, as many as `e`'s type has.
    fn comps(&mut self, e: &Expr) -> Res<Vec<Expr>> {
        let (s, n) = shape(&e.ty)?;
        let each = |xs: Vec<Vec<Expr>>, f: &dyn Fn(Vec<Expr>) -> ExprKind| -> Res<Vec<Expr>> {
            let xs: Vec<Vec<Expr>> = xs.into_iter().map(|x| spread(x, n)).collect::<Res<_>>()?;
            Ok((0..n)
                .map(|c| scalar(f(xs.iter().map(|x| x[c].clone()).collect()), s, e))
                .collect())
        };
        let out = match &e.kind {
            ExprKind::Float(_) | ExprKind::Int(_) | ExprKind::Bool(_) => vec![e.clone()],
            ExprKind::Local(l) => self.map[l.0 as usize]
                .iter()
                .map(|&c| scalar(ExprKind::Local(c), s, e))
                .collect(),
            ExprKind::Param(p) => match self.func.params.get(*p as usize).map(|p| &p.ty) {
                Some(Type::Scalar(_)) => vec![e.clone()],
                // A stream or constant of vectors: one component each (the four-element
                // code holds component `c` of four elements as one vector).
                Some(Type::Vector(..)) => {
                    (0..n as u8).map(|c| component(e.clone(), c, s)).collect()
                }
                _ => return Err("a parameter that is not a scalar or vector".into()),
            },
            ExprKind::Unary(op, a) => {
                let a = self.comps(a)?;
                each(vec![a], &|x| ExprKind::Unary(*op, Box::new(x[0].clone())))?
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.comps(a)?, self.comps(b)?);
                each(vec![a, b], &|x| {
                    ExprKind::Binary(*op, Box::new(x[0].clone()), Box::new(x[1].clone()))
                })?
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                let (c, y, r) = (self.comps(cond)?, self.comps(accept)?, self.comps(reject)?);
                each(vec![c, y, r], &|x| ExprKind::Select {
                    cond: Box::new(x[0].clone()),
                    accept: Box::new(x[1].clone()),
                    reject: Box::new(x[2].clone()),
                })?
            }
            // The interpreter's `convert_to`: kind per component, a scalar splats, a wider
            // vector is cut.
            ExprKind::Convert(a) => {
                let a = self.comps(a)?;
                let a = if a.len() == 1 { spread(a, n)? } else { a };
                take(a, n)?.into_iter().map(|x| convert(x, s)).collect()
            }
            // `from_comps`: the parts' components in order, each converted; a lone scalar
            // splats.
            ExprKind::Construct(parts) => {
                let mut all = Vec::new();
                for p in parts {
                    all.extend(self.comps(p)?);
                }
                if parts.len() == 1 && all.len() == 1 {
                    all = spread(all, n)?;
                }
                take(all, n)?.into_iter().map(|x| convert(x, s)).collect()
            }
            ExprKind::Swizzle(a, sel) => {
                let a = self.comps(a)?;
                let pick = |c: u8| match a.len() {
                    1 => Ok(a[0].clone()),
                    _ => a.get(c as usize).cloned().ok_or("a swizzle past the end"),
                };
                sel.iter().map(|&c| pick(c)).collect::<Result<_, _>>()?
            }
            ExprKind::IndexOf(_) => (0..4u8)
                .map(|c| scalar(ExprKind::Swizzle(Box::new(e.clone()), vec![c]), s, e))
                .collect(),
            ExprKind::Gather { param, indices } if n == 1 => vec![scalar(
                ExprKind::Gather {
                    param: *param,
                    indices: self.gather_indices(*param, indices)?,
                },
                s,
                e,
            )],
            ExprKind::Builtin(bi, args) => self.builtin(*bi, args, e, s, n)?,
            // A helper on vectors that is one formula (the shared lowering's, such as
            // `normalize`'s, or the program's own): its formula, split.
            ExprKind::Call(f, args) if !scalar_call(self.module, *f, e) => {
                let inlined = formula_of_call(self.module, *f, args)
                    .ok_or("a helper on vectors that is not one formula")?;
                self.comps(&inlined)?
            }
            ExprKind::Call(f, args) if n == 1 => {
                let args = args.iter().map(|a| self.one(a)).collect::<Res<_>>()?;
                vec![Expr {
                    kind: ExprKind::Call(*f, args),
                    ..e.clone()
                }]
            }
            // A gather of vectors: component `c` of the element each lane's indices pick.
            ExprKind::Gather { param, indices } => {
                let whole = Expr {
                    kind: ExprKind::Gather {
                        param: *param,
                        indices: self.gather_indices(*param, indices)?,
                    },
                    ..e.clone()
                };
                let parts = (0..n as u8).map(|c| component(whole.clone(), c, s));
                match self.hoist {
                    true => parts.map(|part| self.declared(part)).collect(),
                    false => parts.collect(),
                }
            }
            ExprKind::Call(..) => return Err("a helper returning a vector".into()),
            ExprKind::Member(..) => return Err("a struct member".into()),
            ExprKind::Index(..) => return Err("an index".into()),
        };
        match out.len() == n {
            true => Ok(out),
            false => Err(format!("{} components for a {:?}", out.len(), e.ty)),
        }
    }

    /// A new local holding scalar `value`, declared with it in [`Split::hoisted`], read.
    fn declared(&mut self, value: Expr) -> Expr {
        let t = LocalId(self.locals.len() as u32);
        self.locals.push(Local {
            name: "gather".into(),
            ty: value.ty.clone(),
        });
        let read = Expr {
            kind: ExprKind::Local(t),
            ..value.clone()
        };
        self.hoisted.push(Stmt {
            span: value.span,
            kind: StmtKind::Decl {
                local: t,
                init: Some(value),
            },
        });
        read
    }

    /// A gather's subscripts, one scalar each: a vector index becomes one subscript per
    /// component (`.x` the last dimension; components past the rank are unread).
    fn gather_indices(&mut self, param: u32, indices: &[Expr]) -> Res<Vec<Expr>> {
        match indices {
            [one] => {
                let rank = match self.keys.get(param as usize) {
                    Some(ParamKey::Gather(r)) => *r as usize,
                    _ => return Err("a gather of no known rank".into()),
                };
                let mut v = self.comps(one)?;
                v.truncate(rank);
                v.reverse();
                Ok(v)
            }
            many => many.iter().map(|i| self.one(i)).collect(),
        }
    }

    /// A built-in call's components: component-wise ones per component, the others written
    /// out as the interpreter computes them (`exec/builtin.rs`).
    fn builtin(
        &mut self,
        bi: Builtin,
        args: &[Expr],
        e: &Expr,
        s: Scalar,
        n: usize,
    ) -> Res<Vec<Expr>> {
        let call = |bi: Builtin, xs: Vec<Expr>, s: Scalar| scalar(ExprKind::Builtin(bi, xs), s, e);
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            xs.push(self.comps(a)?);
        }
        let floats = |x: &[Expr]| {
            x.iter()
                .map(|c| convert(c.clone(), Scalar::Float))
                .collect::<Vec<_>>()
        };
        // `dot`: `s = 0; s += x[i] * y[i]` in component order.
        let dot = |x: &[Expr], y: &[Expr]| -> Res<Expr> {
            if x.len() != y.len() {
                return Err("dot of different widths".into());
            }
            let (x, y) = (floats(x), floats(y));
            let zero = scalar(ExprKind::Float(0.0), Scalar::Float, e);
            Ok(x.into_iter().zip(y).fold(zero, |acc, (a, b)| {
                let m = binary(BinaryOp::Mul, a, b, Scalar::Float);
                binary(BinaryOp::Add, acc, m, Scalar::Float)
            }))
        };
        let whole = match formula(bi) {
            Formula::Float1(_) | Formula::Float2(_) | Formula::Test(_) => {
                let xs: Vec<Vec<Expr>> =
                    xs.into_iter().map(|x| spread(x, n)).collect::<Res<_>>()?;
                return Ok((0..n)
                    .map(|c| call(bi, xs.iter().map(|x| x[c].clone()).collect(), s))
                    .collect());
            }
            Formula::Whole(w) => w,
            Formula::Out => return Err(format!("`{}()`", bi.name())),
            Formula::Composite => return Err(unlowered(bi)),
        };
        Ok(match (whole, xs.as_slice()) {
            (Whole::Dot, [x, y]) => vec![dot(x, y)?],
            (Whole::Cross, [a, b]) if a.len() == 3 && b.len() == 3 => {
                let (a, b) = (floats(a), floats(b));
                let term = |i: usize, j: usize| {
                    let l = binary(BinaryOp::Mul, a[i].clone(), b[j].clone(), Scalar::Float);
                    let r = binary(BinaryOp::Mul, a[j].clone(), b[i].clone(), Scalar::Float);
                    binary(BinaryOp::Sub, l, r, Scalar::Float)
                };
                vec![term(1, 2), term(2, 0), term(0, 1)]
            }
            (Whole::All | Whole::Any, [x]) if x.iter().all(|c| c.ty == Type::BOOL) => {
                let op = match whole {
                    Whole::All => BinaryOp::And,
                    _ => BinaryOp::Or,
                };
                let mut it = x.iter().cloned();
                let first = it.next().ok_or("an empty vector")?;
                vec![it.fold(first, |acc, c| binary(op, acc, c, Scalar::Bool))]
            }
            _ => return Err(format!("`{}()`", bi.name())),
        })
    }
}

/// Whether a call of `f` giving `e` takes and returns scalars only.
fn scalar_call(module: &Module, f: FunctionId, e: &Expr) -> bool {
    let scalars = |t: &Type| matches!(t, Type::Scalar(_) | Type::Void);
    scalars(&e.ty)
        && module
            .functions
            .get(f.0 as usize)
            .is_some_and(|c| c.params.iter().all(|p| scalars(&p.ty)))
}

/// The value of a call of `f` on `args` as one expression, when `f`'s body is declarations
/// of locals with their values and then `return` of a value, and its parameters are plain
/// values: each parameter replaced by its argument, each local by its value. An argument
/// read twice is computed twice, as split components are (Cranelift merges the repeats).
fn formula_of_call(module: &Module, f: FunctionId, args: &[Expr]) -> Option<Expr> {
    let callee = module.functions.get(f.0 as usize)?;
    if !callee
        .params
        .iter()
        .all(|p| p.class == ParamClass::Constant)
    {
        return None;
    }
    let mut locals: Vec<Option<Expr>> = vec![None; callee.locals.len()];
    for st in &callee.body {
        match &st.kind {
            StmtKind::Decl {
                local,
                init: Some(init),
            } => {
                let value = substitute(init, args, &locals)?;
                *locals.get_mut(local.0 as usize)? = Some(value);
            }
            StmtKind::Return(Some(value)) => return substitute(value, args, &locals),
            _ => return None,
        }
    }
    None
}

/// `e` with parameters replaced by `args` and locals by their values; `None` where `e`
/// reads what a formula cannot replace (a gather, `indexof`, a local without a value).
fn substitute(e: &Expr, args: &[Expr], locals: &[Option<Expr>]) -> Option<Expr> {
    struct Subst<'a> {
        args: &'a [Expr],
        locals: &'a [Option<Expr>],
        ok: bool,
    }
    impl brook_ir::visit::VisitMut for Subst<'_> {
        fn expr(&mut self, e: &mut Expr) {
            let by = match &e.kind {
                ExprKind::Param(p) => self.args.get(*p as usize).cloned(),
                ExprKind::Local(l) => self.locals.get(l.0 as usize).cloned().flatten(),
                ExprKind::Gather { .. } | ExprKind::IndexOf(_) => None,
                _ => return brook_ir::visit::walk_expr(self, e),
            };
            match by {
                Some(x) => *e = x,
                None => self.ok = false,
            }
        }
    }
    let mut v = Subst {
        args,
        locals,
        ok: true,
    };
    let mut out = e.clone();
    brook_ir::visit::VisitMut::expr(&mut v, &mut out);
    v.ok.then_some(out)
}

/// The first `n` of `xs` (the interpreter's truncation of a wider vector).
fn take(mut xs: Vec<Expr>, n: usize) -> Res<Vec<Expr>> {
    if xs.len() < n {
        return Err("too few components".into());
    }
    xs.truncate(n);
    Ok(xs)
}

/// Whether `e` reads the variable `root`.
fn reads(e: &Expr, root: PlaceRoot) -> bool {
    brook_ir::walk::any_in(e, &mut |x| match (&x.kind, root) {
        (ExprKind::Local(m), PlaceRoot::Local(l)) => *m == l,
        (ExprKind::Param(m), PlaceRoot::Param(p)) => *m == p,
        _ => false,
    })
}

/// The `int` literal `c`, where `like` is.
fn int(c: u8, like: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Int(c as i32),
        ty: Type::INT,
        span: like.span,
    }
}

/// Component `c` (of kind `s`) of `whole`, a vector parameter or gather: `whole[c]`, which
/// the four-element code reads as one vector holding that component of four elements.
fn component(whole: Expr, c: u8, s: Scalar) -> Expr {
    let span = whole.span;
    let index = int(c, &whole);
    Expr {
        kind: ExprKind::Index(Box::new(whole), Box::new(index)),
        ty: Type::Scalar(s),
        span,
    }
}
