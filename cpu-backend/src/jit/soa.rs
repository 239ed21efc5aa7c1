//! Four elements per iteration (structure of arrays) for kernels on streams of scalars and
//! vectors.
//!
//! A kernel first has its vector values split into one scalar per component
//! ([`super::split`]); the kernel, every value then a `float`, `int` or `bool` scalar (or one
//! component of a vector stream, constant or gather), runs four consecutive
//! output elements per loop iteration, one 128-bit vector per scalar value holding it for
//! the four elements (lane `j` is element `start + j`). The lowering needs no second set of
//! rules for that: a kernel whose scalars all become four-wide vectors ([`widened`]) computes,
//! lane by lane, what the scalar kernel computes per element, because Brook's operators,
//! conversions and component-wise built-ins act on each component of a vector as on a scalar
//! (the same IEEE operations and the same Rust formulas, so the same bits). Only what is not
//! component-wise is lowered differently for it (see [`super::lower::Lower::soa`]): a gather
//! loads each lane's element by its own index, literals splat, and a branch or loop condition
//! must hold for all four lanes or for none.
//!
//! When the four lanes disagree on a condition, the quad *bails out*: its code has stored
//! nothing yet (outputs live in registers until the end of the element body), so the tile
//! function returns, and the driver runs those four elements through the one-element
//! function, then the next quads through this one again ([`super::drive`]). A tile's last
//! `count % 4` elements run one at a time too. So every element's result comes from code that
//! takes the same path through the kernel as the interpreter, lane for lane.
//!
//! A stream of `n`-component vectors is read and written transposed: the four elements'
//! `4n` consecutive floats are `n` vector loads, shuffled into one four-lane value per
//! component ([`super::lower::transpose`]), and back on the way out; a vector constant is
//! each component in four lanes; a gather of vectors loads each lane's component.
//!
//! [`eligible`] decides which kernels: not one whose vectors are all `float4` (its
//! one-element code fills the lanes already), and the ones that stay simple: every value scalar once
//! vectors are split (no matrix, struct or array anywhere in the kernel or the helpers it
//! calls, no helper taking or returning a vector), every stream read at the
//! element's own position (a stream of the output's shape, so four consecutive elements are
//! four consecutive elements in every input and output) or gathered, `indexof` only as one
//! component of a stream's or output's position (`indexof(o).x`, per lane), no `discard`,
//! `vout` or write mask. Everything else keeps the one-element layout.

use std::collections::HashSet;

use brook_ir::visit::{walk_expr, walk_place, walk_stmt, VisitMut};
use brook_ir::{
    Access, BinaryOp, Builtin, Expr, ExprKind, FunctionId, Module, Place, PlaceRoot, Stmt,
    StmtKind, Type,
};

use super::kernel::{ParamKey, Variant};
use super::lower::{componentwise, has_effects};
use super::select::selects;
use super::split::split;

/// Why kernel `id` of `module`, called as `variant`, keeps one element per iteration; `Ok`
/// when it runs four.
pub(crate) fn eligible(module: &Module, id: FunctionId, variant: &Variant) -> Result<(), String> {
    scalar_kernel(module, id, variant).map(|_| ())
}

/// `module` with kernel `id` as four elements per iteration run it: its vectors split into
/// scalars ([`split`]), every value then a scalar; or why the kernel keeps one element per
/// iteration. (The check walks a copy of each body: the walk is the checker's mutable one.)
pub(crate) fn scalar_kernel(
    module: &Module,
    id: FunctionId,
    variant: &Variant,
) -> Result<Module, String> {
    // Checked on the kernel as written: splitting drops the components nothing reads, and
    // with them any helper call inside them, which could `discard`.
    if brook_ir::walk::can_discard(module, id) {
        return Err("`discard`".into());
    }
    let f = module.func(id);
    for (p, key) in f.params.iter().zip(&variant.params) {
        match key {
            ParamKey::Direct | ParamKey::Gather(_) | ParamKey::Constant | ParamKey::Out => {}
            _ => return Err(format!("parameter `{}` is not read at the element", p.name)),
        }
        // Streams and constants of scalars or vectors (each component read and written as
        // its own four-lane value); values inside may be vectors (split).
        if !matches!(p.ty, Type::Scalar(_) | Type::Vector(..)) {
            return Err(format!(
                "`{}` in `{}` is not a scalar or vector",
                p.name, f.name
            ));
        }
    }
    if full_width(f) {
        return Err(format!(
            "every vector in `{}` is a `float4`, already four lanes wide",
            f.name
        ));
    }
    let split = selects(split(module, id, variant)?);
    let mut check = Check {
        module: &split,
        seen: HashSet::new(),
        kernel: Some(variant.params.as_slice()),
        why: None,
    };
    check.function(id);
    match check.why {
        Some(why) => Err(why),
        None => Ok(split),
    }
}

/// The walk of [`eligible`] over a kernel and the helpers it calls.
struct Check<'m> {
    module: &'m Module,
    seen: HashSet<u32>,
    /// How the kernel's parameters are bound, while walking the kernel (not a helper).
    kernel: Option<&'m [ParamKey]>,
    /// The first reason found.
    why: Option<String>,
}

impl Check<'_> {
    fn fail(&mut self, why: impl Into<String>) {
        self.why.get_or_insert_with(|| why.into());
    }

    fn function(&mut self, id: FunctionId) {
        if self.why.is_some() || !self.seen.insert(id.0) {
            return;
        }
        let Some(f) = self.module.functions.get(id.0 as usize) else {
            return self.fail("no such function");
        };
        // The kernel's own parameters were checked against their binding.
        let params = f.params.iter().filter(|_| self.kernel.is_none());
        let params = params.map(|p| (&p.name, &p.ty));
        let locals = f.locals.iter().map(|l| (&l.name, &l.ty));
        if let Some((name, _)) = params.chain(locals).find(|(_, ty)| !scalar(ty)) {
            return self.fail(format!("`{name}` in `{}` is not a scalar", f.name));
        }
        if f.ret != Type::Void && !scalar(&f.ret) {
            return self.fail(format!("`{}` does not return a scalar", f.name));
        }
        let mut body = f.body.clone();
        self.block(&mut body);
    }
}

impl VisitMut for Check<'_> {
    fn stmt(&mut self, s: &mut Stmt) {
        match &s.kind {
            StmtKind::Discard => self.fail("`discard`"),
            StmtKind::Push { .. } => self.fail("`push`"),
            StmtKind::Assign { target, .. }
                if !target.path.is_empty() && component_of(target).is_none() =>
            {
                self.fail("an assignment to part of a value")
            }
            _ => {}
        }
        walk_stmt(self, s);
    }

    fn place(&mut self, p: &mut Place) {
        if !scalar(&p.ty) {
            self.fail("an assignment of a non-scalar");
        }
        if component_of(p).is_none() {
            walk_place(self, p);
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        if e.ty != Type::Void && !scalar(&e.ty) {
            return self.fail("a value that is not a scalar");
        }
        match &e.kind {
            // Both sides run on every lane: the skipped one must have nothing to skip.
            ExprKind::Binary(BinaryOp::And | BinaryOp::Or, _, c) if has_effects(self.module, c) => {
                self.fail("a short-circuit operator with a helper call")
            }
            ExprKind::Select { accept, reject, .. }
                if has_effects(self.module, accept) || has_effects(self.module, reject) =>
            {
                self.fail("`?:` with a helper call")
            }
            ExprKind::Construct(xs) if xs.len() != 1 => self.fail("a constructor"),
            ExprKind::Builtin(bi, _)
                if !componentwise(*bi) || matches!(bi, Builtin::Frexp | Builtin::Modf) =>
            {
                self.fail(format!("`{}()`", bi.name()))
            }
            ExprKind::Call(f, _) => {
                let kernel = self.kernel.take();
                self.function(*f);
                self.kernel = kernel;
            }
            // One component of a stream's position, lane by lane (not walked into: the
            // position itself is a `float4`).
            ExprKind::Swizzle(a, sel) => match (&a.kind, self.kernel) {
                (ExprKind::IndexOf(p), Some(keys))
                    if sel.len() == 1
                        && matches!(
                            keys.get(*p as usize),
                            Some(ParamKey::Direct | ParamKey::Out)
                        ) =>
                {
                    return
                }
                _ => self.fail("a swizzle"),
            },
            // One component of a vector stream, constant or gather (split's `component`):
            // what is walked is a gather's subscripts.
            ExprKind::Index(whole, c) if literal(c).is_some() => match &whole.kind {
                ExprKind::Param(_) => return,
                ExprKind::Gather { indices, .. } => {
                    let mut indices = indices.clone();
                    return indices.iter_mut().for_each(|i| self.expr(i));
                }
                _ => self.fail("an index"),
            },
            ExprKind::Member(..) => self.fail("a struct member"),
            ExprKind::Index(..) => self.fail("an index"),
            ExprKind::IndexOf(_) => self.fail("`indexof`"),
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// Whether kernel `f` has a vector parameter and every vector parameter and local is four
/// wide: its one-element code already fills every SIMD lane (SAXPY and matmul on
/// `float4`), and four elements per iteration only add the transposes. Measured with
/// `brook-report`: matmul's Brook CPU ÷ Brook GL went from 0.38–0.39 to 0.84 four per
/// iteration; the lanes bench's `float4` SAXPY was equal (docs/cpu-backend.md). (Kernels
/// on scalar streams keep four per iteration whatever their values.)
fn full_width(f: &brook_ir::Function) -> bool {
    let vector = |t: &&Type| matches!(t, Type::Vector(..));
    let params: Vec<&Type> = f.params.iter().map(|p| &p.ty).filter(vector).collect();
    let locals = f.locals.iter().map(|l| &l.ty).filter(vector);
    !params.is_empty()
        && params
            .into_iter()
            .chain(locals)
            .all(|t| matches!(t, Type::Vector(_, 4)))
}

fn scalar(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(_))
}

fn literal(e: &Expr) -> Option<i32> {
    match e.kind {
        ExprKind::Int(c) => Some(c),
        _ => None,
    }
}

/// The component a place writes when it is one component of a vector output (split's
/// `o[c] = …`).
fn component_of(p: &Place) -> Option<i32> {
    match (p.root, p.path.as_slice()) {
        (PlaceRoot::Param(_), [Access::Index(c)]) => literal(c),
        _ => None,
    }
}

/// `module` with every scalar type made a four-wide vector of its kind: what the lowering of
/// an eligible kernel reads (parameters', locals', results' and expressions' types).
pub(crate) fn widened(module: &Module) -> Module {
    let mut m = module.clone();
    for f in &mut m.functions {
        f.params.iter_mut().for_each(|p| wide_param(&mut p.ty));
        f.locals.iter_mut().for_each(|l| wide(&mut l.ty));
        wide(&mut f.ret);
        Widen.block(&mut f.body);
    }
    m
}

fn wide(ty: &mut Type) {
    if let Type::Scalar(s) = *ty {
        *ty = Type::Vector(s, 4);
    }
}

/// A parameter's type four elements wide: a scalar a vector of the four, a vector of `n`
/// components `n` such vectors, component by component (structure of arrays).
fn wide_param(ty: &mut Type) {
    match *ty {
        Type::Vector(s, n) => *ty = Type::Array(Box::new(Type::Vector(s, 4)), n as u32),
        _ => wide(ty),
    }
}

/// The walk of [`widened`]: every expression's and assigned place's type.
struct Widen;

impl VisitMut for Widen {
    fn expr(&mut self, e: &mut Expr) {
        wide(&mut e.ty);
        walk_expr(self, e);
    }

    fn place(&mut self, p: &mut Place) {
        wide(&mut p.ty);
        walk_place(self, p);
    }
}
