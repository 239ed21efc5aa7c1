//! Streams of `int` elements (`int a<>`, `out int2 c<>`, `int g[]`, `reduce int r<>`; C's
//! `unsigned int` is `int` here), as the original ran them: its GPU backends kept such
//! streams in float textures ("in the GPU the integers are emulated with floats", its
//! `sum_uint` test says), while its CPU backend computed on ints.
//!
//! Streams here hold floats, so once a module is checked each such parameter is declared
//! `float` of its width (its source type kept in [`Param::declared`]) and its body converts
//! where it meets the stream, so every back end runs it unchanged:
//! - an input element or a gathered one is converted to `int` where the body reads it;
//! - an `out` or `reduce` parameter becomes an `int` local (a `reduce` one starting at the
//!   accumulator's value, an `out` one at zero), converted to the output at every `return`
//!   and at the end, as `shadow` copies a read output;
//! - a `vout` one becomes an `int` local too, converted where it is `push`ed;
//! - a call of a kernel taking such a parameter as a value converts the argument.
//!
//! The body thus computes on ints (C's division, `%`, bit operations), and an element is
//! exact as long as it is an integer of at most 2^24 in magnitude, the contract in
//! `docs/semantics.md`.

use std::collections::HashMap;

use super::shadow::into_locals;
use super::types::convert_to;
use brook_ir::visit::{walk_expr, walk_stmt, VisitMut};
use brook_ir::{
    Expr, ExprKind, Function, FunctionId, Local, LocalId, Module, Param, ParamClass, Place,
    PlaceRoot, Scalar, Stmt, StmtKind, Type,
};

/// Lowers every stream parameter of `int` elements in `module` to a float one.
pub fn lower(module: &mut Module) {
    // Functions only call functions declared before them, so a callee is lowered first.
    let mut lowered: HashMap<FunctionId, Vec<u32>> = HashMap::new();
    for (k, f) in module.functions.iter_mut().enumerate() {
        let params = lower_function(f, &lowered);
        if !params.is_empty() {
            lowered.insert(FunctionId(k as u32), params);
        }
    }
}

/// Whether streams cannot hold `p`'s element type, but floats standing for it can.
fn is_int_stream(p: &Param) -> bool {
    let stream = matches!(
        p.class,
        ParamClass::Stream
            | ParamClass::Out
            | ParamClass::Gather { .. }
            | ParamClass::Reduce
            | ParamClass::Vout { .. }
    );
    stream
        && matches!(
            p.ty,
            Type::Scalar(Scalar::Int) | Type::Vector(Scalar::Int, _)
        )
}

/// `float` of `ty`'s width.
fn float_of(ty: &Type) -> Type {
    Type::vector(Scalar::Float, ty.width().unwrap_or(1))
}

/// Lowers `f`'s `int` stream parameters (and converts its calls of the functions in
/// `lowered`); the positions of the parameters lowered.
fn lower_function(f: &mut Function, lowered: &HashMap<FunctionId, Vec<u32>>) -> Vec<u32> {
    let ints: Vec<u32> = (0..f.params.len() as u32)
        .filter(|&i| is_int_stream(&f.params[i as usize]))
        .collect();
    let mut map = Vec::new();
    let mut prologue = Vec::new();
    let mut copy_out = Vec::new();
    for &i in &ints {
        let p = &mut f.params[i as usize];
        let int_ty = p.ty.clone();
        p.ty = float_of(&int_ty);
        p.declared = Some(int_ty.clone());
        let (class, name, span) = (p.class, p.name.clone(), p.span);
        if !class.is_output() {
            continue;
        }
        let local = LocalId(f.locals.len() as u32);
        f.locals.push(Local {
            name,
            ty: int_ty.clone(),
        });
        map.push((i, local));
        let float_ty = float_of(&int_ty);
        let read = |kind: ExprKind, ty: Type| Expr { kind, ty, span };
        let init = (class == ParamClass::Reduce)
            .then(|| convert_to(read(ExprKind::Param(i), float_ty.clone()), int_ty.clone()));
        prologue.push(Stmt {
            kind: StmtKind::Decl { local, init },
            span,
        });
        // A `vout` one is written by its `push`es, which convert.
        if let ParamClass::Vout { .. } = class {
            continue;
        }
        copy_out.push(Stmt {
            kind: StmtKind::Assign {
                target: Place {
                    root: PlaceRoot::Param(i),
                    path: Vec::new(),
                    ty: float_ty.clone(),
                },
                op: None,
                value: convert_to(read(ExprKind::Local(local), int_ty), float_ty),
            },
            span,
        });
    }
    let mut conversions = Conversions {
        params: &f.params,
        ints: &ints,
        lowered,
    };
    conversions.block(&mut f.body);
    if map.is_empty() {
        return ints;
    }
    into_locals(&mut f.body, &map, prologue, copy_out);
    ints
}

/// Converts where a body meets its lowered parameters' float storage: input and gathered
/// elements read, values pushed, arguments of calls to lowered functions.
struct Conversions<'a> {
    params: &'a [Param],
    ints: &'a [u32],
    lowered: &'a HashMap<FunctionId, Vec<u32>>,
}

impl Conversions<'_> {
    fn is_int(&self, param: u32) -> bool {
        self.ints.contains(&param)
    }
}

impl VisitMut for Conversions<'_> {
    fn expr(&mut self, e: &mut Expr) {
        walk_expr(self, e);
        let stored = match &e.kind {
            ExprKind::Param(i) => {
                self.is_int(*i) && self.params[*i as usize].class == ParamClass::Stream
            }
            ExprKind::Gather { param, .. } => self.is_int(*param),
            _ => false,
        };
        if stored {
            let read = Expr {
                ty: float_of(&e.ty),
                ..e.clone()
            };
            *e = convert_to(read, e.ty.clone());
        } else if let ExprKind::Call(id, args) = &mut e.kind {
            for &k in self.lowered.get(id).into_iter().flatten() {
                let arg = &mut args[k as usize];
                let ty = float_of(&arg.ty);
                *arg = convert_to(arg.clone(), ty);
            }
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        walk_stmt(self, s);
        if let StmtKind::Push { param, value } = &mut s.kind {
            if self.is_int(*param) {
                let ty = float_of(&value.ty);
                *value = convert_to(value.clone(), ty);
            }
        }
    }
}
