//! The shared lowering of composite built-ins: `lerp`, `smoothstep`, `step`, `clamp`,
//! `length`, `distance`, `normalize`, `frac`, `rsqrt`, `degrees` and `radians` are written
//! as their formulas (`formula.rs`) in IR arithmetic and primitive built-ins, once, so every
//! back end implements primitives only and computes each formula in the same order.
//!
//! Each argument is evaluated once, as a call evaluates it:
//! - where every argument the formula reads twice is a plain value (a constant, a local, a
//!   parameter) and no argument has an effect (a helper call, `frexp`/`modf`), the formula
//!   replaces the call in place;
//! - otherwise the call becomes a call of a generated helper function, one per built-in and
//!   argument types, whose parameters bind the arguments (`smoothstep` always: it binds its
//!   clamped ratio to a local of the helper). Helpers are placed before every other function
//!   (a function calls only those before it), and the back ends inline or call them as they
//!   do the program's own helpers.

mod formula;

use std::collections::HashMap;

use crate::module::{
    Expr, ExprKind, Function, FunctionId, FunctionKind, Local, LocalId, Module, Param, ParamClass,
    Stmt, StmtKind, Type,
};
use crate::visit::{walk_expr, VisitMut};
use formula::{Build, Composite};

pub use formula::{DEGREES_PER_RADIAN, RADIANS_PER_DEGREE};

/// Rewrites every call of a composite built-in in `module` into its formula (see the module
/// docs). The result is valid IR when `module` is, and holds no composite built-in.
///
/// Returns how many helpers were placed before the program's functions: a [`FunctionId`]
/// taken from the module before is that much higher after.
pub fn lower_composites(module: &mut Module) -> u32 {
    let n = module.functions.len();
    let mut rewrite = Rewrite {
        first_helper: n as u32,
        helpers: Vec::new(),
        made: HashMap::new(),
        taken: module.functions.iter().map(|f| f.name.clone()).collect(),
    };
    for f in &mut module.functions {
        rewrite.block(&mut f.body);
    }
    // The helpers were numbered after the program's functions; they move before them.
    let k = rewrite.helpers.len() as u32;
    if k == 0 {
        return 0;
    }
    let mut functions = rewrite.helpers;
    functions.append(&mut module.functions);
    let mut renumber = Renumber {
        first_helper: n as u32,
        helpers: k,
    };
    for f in &mut functions {
        renumber.block(&mut f.body);
    }
    module.functions = functions;
    k
}

/// What a back end reports when it meets composite built-in `b`, which
/// [`lower_composites`] rewrites before any back end runs (so meeting one is a bug of
/// whatever ran the back end without it).
pub fn unlowered(b: crate::Builtin) -> String {
    format!(
        "`{}` reached a back end as a call: brook_ir::lower_composites writes it as its formula first",
        b.name()
    )
}

/// The rewrite of the program's functions, making helpers as it goes.
struct Rewrite {
    /// The number the first helper gets while the rewrite runs (the program's function
    /// count).
    first_helper: u32,
    /// The helpers made so far, in order: one only calls those before it.
    helpers: Vec<Function>,
    /// The helper of each built-in and argument types.
    made: HashMap<(Composite, Vec<Type>), u32>,
    /// Function names in use, so no helper takes one.
    taken: Vec<String>,
}

/// A value that may be read twice without evaluating anything twice.
fn plain(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Local(_)
            | ExprKind::Param(_)
    )
}

/// Whether evaluating `e` can do more than compute a value: call a helper (which may
/// discard or write an `out` argument) or write a local (`frexp`, `modf`).
fn has_effect(e: &Expr) -> bool {
    struct Effects(bool);
    impl VisitMut for Effects {
        fn expr(&mut self, e: &mut Expr) {
            if matches!(
                e.kind,
                ExprKind::Call(..)
                    | ExprKind::Builtin(crate::Builtin::Frexp | crate::Builtin::Modf, _)
            ) {
                self.0 = true;
            }
            walk_expr(self, e);
        }
    }
    let mut v = Effects(false);
    v.expr(&mut e.clone());
    v.0
}

impl VisitMut for Rewrite {
    fn expr(&mut self, e: &mut Expr) {
        walk_expr(self, e);
        // A formula may hold another composite (`distance` is `length(a - b)`).
        while let ExprKind::Builtin(b, args) = &mut e.kind {
            let Some(c) = Composite::of(*b) else { break };
            let args = std::mem::take(args);
            let ty = e.ty.clone();
            *e = self.lower(c, args, &ty, e.span);
        }
    }
}

impl Rewrite {
    /// The call of composite `c` on `args` (already rewritten), giving `ty`, as its formula
    /// or a call of its helper.
    fn lower(&mut self, c: Composite, args: Vec<Expr>, ty: &Type, span: crate::Span) -> Expr {
        let build = Build { span };
        let inline = match c.reused() {
            Some(reused) => reused.iter().all(|&i| plain(&args[i])) && !args.iter().any(has_effect),
            None => false,
        };
        if inline {
            return build.formula(c, args, ty);
        }
        let helper = self.helper(c, &args, ty, span);
        Expr {
            kind: ExprKind::Call(FunctionId(helper), args),
            ty: ty.clone(),
            span,
        }
    }

    /// The number of the helper computing `c` on arguments like `args`, made if needed.
    fn helper(&mut self, c: Composite, args: &[Expr], ty: &Type, span: crate::Span) -> u32 {
        let types: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        if let Some(&id) = self.made.get(&(c, types.clone())) {
            return id;
        }
        let build = Build { span };
        let params: Vec<Expr> = types
            .iter()
            .enumerate()
            .map(|(i, t)| Expr {
                kind: ExprKind::Param(i as u32),
                ty: t.clone(),
                span,
            })
            .collect();
        let mut locals = Vec::new();
        let mut body = Vec::new();
        let stmt = |kind| Stmt { kind, span };
        let value = match c {
            Composite::Smoothstep => {
                let [e0, e1, x] = <[Expr; 3]>::try_from(params).expect("smoothstep has three");
                locals.push(Local {
                    name: "t".into(),
                    ty: ty.clone(),
                });
                body.push(stmt(StmtKind::Decl {
                    local: LocalId(0),
                    init: Some(build.smoothstep_ratio(e0, e1, x, ty)),
                }));
                let t = Expr {
                    kind: ExprKind::Local(LocalId(0)),
                    ty: ty.clone(),
                    span,
                };
                build.formula(c, vec![t], ty)
            }
            _ => build.formula(c, params, ty),
        };
        body.push(stmt(StmtKind::Return(Some(value))));
        // The body may call other composites (`distance` is `length(a - b)`): their helpers
        // are made first, so they come before this one.
        self.block(&mut body);
        let base = format!("{:?}_{}", c, type_name(&types[0])).to_lowercase();
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.push(name.clone());
        let names = ["a", "b", "c"];
        let function = Function {
            name,
            kind: FunctionKind::Helper,
            params: types
                .iter()
                .zip(names)
                .map(|(t, p)| Param {
                    name: p.into(),
                    ty: t.clone(),
                    declared: None,
                    class: ParamClass::Constant,
                    span,
                })
                .collect(),
            ret: ty.clone(),
            locals,
            body,
            span,
        };
        let id = self.first_helper + self.helpers.len() as u32;
        self.helpers.push(function);
        self.made.insert((c, types), id);
        id
    }
}

/// `float3`, `int`, … for a helper's name.
fn type_name(ty: &Type) -> String {
    match ty {
        Type::Scalar(s) => format!("{s:?}"),
        Type::Vector(s, n) => format!("{s:?}{n}"),
        other => format!("{other:?}"),
    }
}

/// Function numbers after the helpers move to the front.
struct Renumber {
    first_helper: u32,
    helpers: u32,
}

impl VisitMut for Renumber {
    fn expr(&mut self, e: &mut Expr) {
        if let ExprKind::Call(f, _) = &mut e.kind {
            f.0 = if f.0 >= self.first_helper {
                f.0 - self.first_helper
            } else {
                f.0 + self.helpers
            };
        }
        walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests;
