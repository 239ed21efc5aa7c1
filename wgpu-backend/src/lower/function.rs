//! A Brook function as a naga function.
//!
//! Parameters, by class:
//! - input streams, iterators and constants arrive by value and are copied into a local at
//!   the start (Brook lets a function assign to them; naga arguments are immutable);
//! - `out` and `reduce` parameters arrive as pointers to the caller's variable: a kernel's
//!   outputs start at the zero its entry point gives them, a reduction's accumulator holds
//!   the partial result;
//! - a `vout [N]` parameter arrives as two pointers: an array of N candidates and the number
//!   pushed so far (the entry point packs them, see `shaders/vout.rs`);
//! - gathers are not arguments: the instance's binding names the buffer they read.
//!
//! `discard` abandons the element: it sets the module's `brook_discarded` flag and returns;
//! every call of a function that may discard is followed by a check of the flag that returns
//! too, so the whole call chain unwinds and the entry point writes nothing.

use std::collections::HashMap;

use brook_ir::{self as ir, FunctionId, ParamClass};
use naga::{Expression, Function, GlobalVariable, Handle, Type};

use super::builder::FnBuilder;
use super::module::{
    function_pointer, info_slot, info_slot_opaque, visit_block, Binding, LoopCheck, OpaqueZero,
    ShaderModule, StreamAccess,
};
use super::types::value_type;
use super::{naga_span, Lowered};

/// How a Brook parameter is reached inside the function.
#[derive(Debug, Clone, Copy)]
pub enum ParamSlot {
    /// A pointer to the variable holding the value (a local copy, or the caller's output).
    Var(Handle<Expression>),
    /// A gather: read from a stream buffer.
    Gather(Option<GatherSlot>),
}

/// A gather parameter's stream, with its bounds loaded once at the function's start (a
/// gather usually sits in a loop, and the driver may not hoist uniform loads out of it).
#[derive(Debug, Clone, Copy)]
pub struct GatherSlot {
    pub access: StreamAccess,
    /// The extents the call sees, `vec4<u32>` (`.x` the last dimension).
    pub extents: Handle<Expression>,
    /// `extents - 1`, as `vec4<u32>`: the clamp bounds.
    pub last: Handle<Expression>,
    /// For a domain: its first element and the whole stream's extents.
    pub domain: Option<(Handle<Expression>, Handle<Expression>)>,
}

/// A vout parameter's candidates array and push count (pointers).
#[derive(Debug, Clone, Copy)]
pub struct VoutSlot {
    pub candidates: Handle<Expression>,
    pub count: Handle<Expression>,
    pub max: u32,
}

/// What every function of a module shares, seen from one function being lowered.
pub struct Env<'a> {
    pub brook: &'a ir::Module,
    pub discard: Handle<GlobalVariable>,
    pub positions: &'a [Option<Handle<GlobalVariable>>],
    pub callees: &'a HashMap<(FunctionId, Binding), Handle<Function>>,
    /// Per Brook function: whether calling it may set the discard flag.
    pub may_discard: &'a [bool],
    pub loop_check: Option<LoopCheck>,
    pub zero: Option<OpaqueZero>,
    pub math: ir::MathMode,
}

/// The state of one function being lowered.
pub struct FnLower<'a, 't> {
    pub b: FnBuilder<'t>,
    pub env: Env<'a>,
    pub func: &'a ir::Function,
    pub binding: &'a [Option<u32>],
    pub params: Vec<ParamSlot>,
    /// Per parameter: its candidates and count, for vouts.
    pub vouts: Vec<Option<VoutSlot>>,
    pub locals: Vec<Handle<Expression>>,
    /// The naga type of the function's result, if it returns a value.
    pub ret: Option<Handle<Type>>,
    /// Inside a loop's continuing block, where `return` is not allowed: a call that
    /// discards is checked by the loop's `break if` instead.
    pub in_continuing: bool,
    /// With a loop check: one exit count per loop of the function, zeroed at its start and
    /// never reset (`stmt.rs`), taken in the order the loops are lowered.
    pub loop_counts: std::vec::IntoIter<Handle<Expression>>,
    /// The exit counts of the loops being lowered, innermost last: a `break` adds to it.
    pub open_loops: Vec<Handle<Expression>>,
    /// Which float values hold integers, so a gather at them skips the rounding.
    pub integral: ir::Integral,
}

/// Lowers Brook function `f` for `binding`; `callees` holds the instances it calls.
pub fn lower_function(
    sm: &mut ShaderModule,
    f: FunctionId,
    binding: &Binding,
    callees: &HashMap<(FunctionId, Binding), Handle<Function>>,
    suffix: &str,
) -> Lowered<Function> {
    let brook = sm.brook;
    let func = brook.func(f);
    let name = if suffix.is_empty() {
        format!("brook_{}", func.name)
    } else {
        format!("brook_{}_{suffix}", func.name)
    };
    let ShaderModule {
        types,
        discard,
        info,
        streams,
        positions,
        may_discard,
        loop_check,
        zero,
        math,
        ..
    } = sm;
    let env = Env {
        brook,
        discard: *discard,
        positions,
        callees,
        may_discard,
        loop_check: *loop_check,
        zero: *zero,
        math: *math,
    };
    let mut b = FnBuilder::new(types, &name);
    b.span = naga_span(func.span);
    let ret = super::types::naga_type(b.types, brook, &func.ret);
    if let Some(ty) = ret {
        b.function.result = Some(naga::FunctionResult { ty, binding: None });
    }
    let (params, vouts) = declare_params(&mut b, brook, func, binding, streams, *info);
    let mut locals = Vec::with_capacity(func.locals.len());
    for l in &func.locals {
        let ty = value_type(b.types, brook, &l.ty);
        locals.push(b.local(&l.name, ty));
    }
    let mut loop_counts = Vec::new();
    if env.loop_check.is_some() {
        let i32_ty = b.types.i32();
        visit_block(&func.body, &mut |s| {
            if matches!(s.kind, ir::StmtKind::Loop { .. }) {
                loop_counts.push(b.local(&format!("brook_left{}", loop_counts.len()), i32_ty));
            }
        });
    }
    let mut lower = FnLower {
        b,
        env,
        func,
        binding,
        params,
        vouts,
        locals,
        ret,
        in_continuing: false,
        loop_counts: loop_counts.into_iter(),
        open_loops: Vec::new(),
        integral: ir::Integral::of(func),
    };
    lower.block(&func.body)?;
    // A function returning a value whose body can end without `return` (the checker allows
    // only paths that return, but naga wants every path to end): return zero.
    if let Some(ty) = lower.ret {
        let z = lower.b.zero(ty);
        lower.b.ret(Some(z));
    }
    Ok(lower.b.finish())
}

fn declare_params(
    b: &mut FnBuilder,
    brook: &ir::Module,
    func: &ir::Function,
    binding: &[Option<u32>],
    streams: &[Option<StreamAccess>],
    info: Option<Handle<GlobalVariable>>,
) -> (Vec<ParamSlot>, Vec<Option<VoutSlot>>) {
    let mut slots = Vec::with_capacity(func.params.len());
    let mut vouts = vec![None; func.params.len()];
    for (i, p) in func.params.iter().enumerate() {
        let bound = binding.get(i).copied().flatten();
        let slot = match p.class {
            ParamClass::Gather { .. } => {
                let access = bound.and_then(|k| streams.get(k as usize).copied().flatten());
                ParamSlot::Gather(access.zip(info).map(|(a, info)| gather_slot(b, a, info)))
            }
            ParamClass::Out | ParamClass::Reduce => {
                let ty = value_type(b.types, brook, &p.ty);
                let ptr = function_pointer(b.types, ty);
                ParamSlot::Var(b.argument(&p.name, ptr))
            }
            ParamClass::Vout { max } => {
                let ty = value_type(b.types, brook, &p.ty);
                let arr = b.types.array_of(ty, max);
                let arr_ptr = function_pointer(b.types, arr);
                let i32_ty = b.types.i32();
                let count_ptr = function_pointer(b.types, i32_ty);
                let value_ptr = function_pointer(b.types, ty);
                let value = b.argument(&p.name, value_ptr);
                let candidates = b.argument(&format!("{}_candidates", p.name), arr_ptr);
                let count = b.argument(&format!("{}_count", p.name), count_ptr);
                vouts[i] = Some(VoutSlot {
                    candidates,
                    count,
                    max,
                });
                ParamSlot::Var(value)
            }
            ParamClass::Stream | ParamClass::Iter | ParamClass::Constant => {
                let ty = value_type(b.types, brook, &p.ty);
                let arg = b.argument(&p.name, ty);
                ParamSlot::Var(b.local_with(&p.name, ty, arg))
            }
        };
        slots.push(slot);
    }
    (slots, vouts)
}

/// Loads a gather's bounds (see [`GatherSlot`]).
fn gather_slot(
    b: &mut FnBuilder,
    access: StreamAccess,
    info: Handle<GlobalVariable>,
) -> GatherSlot {
    let extents = info_slot(b, info, access.extent_slot);
    let one = b.u32(1);
    let one = b.splat(one, 4);
    let last = b.sub(extents, one);
    let domain = access
        .domain
        .map(|(lo, full)| (info_slot(b, info, lo), info_slot(b, info, full)));
    GatherSlot {
        access,
        extents,
        last,
        domain,
    }
}

impl FnLower<'_, '_> {
    /// The module's opaque zero (`OpaqueZero`) as a `u32`, where the module has one.
    pub fn opaque_zero(&mut self) -> Option<Handle<Expression>> {
        let z = self.env.zero?;
        let slot = info_slot(&mut self.b, z.info, z.slot);
        Some(self.b.index(slot, 3))
    }

    /// The opaque zero read at an index offset by itself (`info_slot_opaque`), for a branch
    /// that tests it alone: lavapipe (Mesa 22.3) inlines a uniform read at a constant index
    /// whose value alone decides a branch, and compiles the shader anew at every dispatch to
    /// do so; a value read at an index it cannot fold is not inlined.
    pub fn branch_zero(&mut self) -> Option<Handle<Expression>> {
        let z = self.env.zero?;
        let slot = info_slot_opaque(&mut self.b, z, z.slot);
        Some(self.b.index(slot, 3))
    }

    /// `discard`: raise the flag and leave the function.
    pub fn discard(&mut self) {
        let flag = self.b.global(self.env.discard);
        let t = self.b.bool(true);
        self.b.store(flag, t);
        self.return_zero();
    }

    /// Returns from the function, with a zero value if it returns one.
    pub fn return_zero(&mut self) {
        let v = self.ret.map(|ty| self.b.zero(ty));
        self.b.ret(v);
    }

    /// After a call that may discard: leave too if it did.
    pub fn check_discard(&mut self) {
        if self.in_continuing {
            return;
        }
        let flag = self.b.global(self.env.discard);
        let d = self.b.load(flag);
        let ret = self.ret;
        self.b.when(d, |b| {
            let v = ret.map(|ty| b.zero(ty));
            b.ret(v);
        });
    }
}
