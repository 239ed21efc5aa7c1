//! Typed IR → Cranelift IR: the body of a kernel, reduction or helper for one element.
//!
//! Each rule mirrors the interpreter's function of the same name (`coerce`, `binary`,
//! `construct`, `gather`, `call`, …), so the two engines compute the same thing; types are
//! static, so what the interpreter decides per element from a value's variant is decided
//! here once. Variables (locals, parameters, a helper's return value) are Cranelift
//! `Variable`s, so SSA construction takes care of control flow; helpers are inlined (Brook
//! has no recursion). Control flow is real branches: the code runs one element at a time,
//! so no branch ever diverges and nothing needs masking. Code for four elements per
//! iteration ([`super::soa`]) lowers the kernel with its scalars widened to four lanes; a
//! condition there must agree on all four lanes, or the quad leaves for [`Quad::bail`].
//!
//! What the body reads and where it goes when it ends is set up by its driver
//! ([`super::kernel`], [`super::reduce`]): it binds each parameter ([`Bind`]), gives the
//! blocks `return` and `discard` jump to, and reads per-call values through [`Slots`].
//! Constructs this lowering does not take (malformed IR, the few shapes the interpreter
//! rejects at run time) fail with [`Unjittable`], and the call runs on the interpreter,
//! which reports them.

mod address;
mod builtin;
mod call;
mod effects;
mod exp;
mod expr;
mod memory;
pub(crate) mod num;
mod ops;
mod place;
mod stmt;
pub(crate) mod transpose;
mod value;

pub(crate) use address::{gather_ref, position, ravel, resize, GatherRef};
pub(crate) use builtin::componentwise;
pub(crate) use effects::{has_effects, uses_indexof};
pub(crate) use memory::{decode, encode, Layout};
pub(crate) use value::{kinds, members};

use std::rc::Rc;

use brook_ir::{Function, Module, Scalar, Type};
use cranelift_codegen::ir::{Block, InstBuilder, Type as Ty, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

use self::num::{clif_ty, Num, Val};
use super::code::Imports;
use super::slots::{Slot, Slots};
use super::Unjittable;

pub(crate) type Res<T> = Result<T, Unjittable>;

pub(crate) fn no<T>(why: impl Into<String>) -> Res<T> {
    Err(Unjittable(why.into()))
}

/// Where a variable of any type lives: one Cranelift variable per scalar, vector or matrix
/// row.
#[derive(Debug, Clone)]
pub(crate) enum Store {
    Void,
    Num(Scalar, u8, Variable),
    /// A matrix: its column count and one variable per row.
    Mat(u8, Vec<Variable>),
    Agg(Vec<Store>),
}

/// How a parameter of the function being lowered is bound.
#[derive(Debug, Clone)]
pub(crate) enum Bind {
    /// A value: an input element, a constant, an output, an accumulator, a helper argument.
    Value(Store),
    /// A gather: the stream it reads.
    Gather(Rc<GatherRef>),
}

/// The function being lowered: the kernel or reduction itself, or an inlined helper.
pub(crate) struct Scope<'m> {
    pub func: &'m Function,
    pub params: Vec<Bind>,
    /// `indexof` of each parameter; `None` is zero.
    pub positions: Vec<Option<Num>>,
    pub locals: Vec<Store>,
    /// Where `return` jumps.
    pub exit: Block,
    /// A helper's return value.
    pub ret: Option<Store>,
    /// The innermost loops: (`continue` target, `break` target).
    pub loops: Vec<(Block, Block)>,
    /// Per parameter, the index of its vout in the kernel's list (kernels only).
    pub vouts: Vec<Option<VoutParam>>,
    /// Which float values of `func` hold integers, so a gather at them skips the rounding
    /// (the interpreter, the reference, always rounds: the results are the same).
    pub integral: brook_ir::Integral,
}

/// A `vout [max] T v<>` parameter of the kernel.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VoutParam {
    pub index: u32,
    pub max: u32,
    /// Values this element pushed so far (`i32`).
    pub count: Variable,
}

/// The lowering state of one compiled function.
pub(crate) struct Lower<'m, 'a, 'f, 'i> {
    pub b: &'a mut FunctionBuilder<'f>,
    pub module: &'m Module,
    pub imports: &'a mut Imports<'i>,
    pub slots: Slots,
    pub ptr: Ty,
    /// Where `discard` jumps.
    pub discard: Block,
    /// The tile's vout state (a pointer), for kernels with vouts.
    pub vout_state: Option<cranelift_codegen::ir::Value>,
    /// The time limit's check at loop back edges, in code for calls with one.
    pub watch: Option<Watch>,
    /// In code running four elements per iteration ([`super::soa`]): the quad's state;
    /// `None` in code for one element.
    pub soa: Option<Quad>,
    /// In that code, the components of the vector gather the statements just lowered
    /// declared (split hoists a gather's components into consecutive declarations): the
    /// gather's parameter and subscripts, and its components. Only consecutive
    /// declarations of one block share it ([`Lower::stmt`] forgets it otherwise).
    pub gathered: Option<(u32, &'m [brook_ir::Expr], Vec<Num>)>,
    /// Which formulas the built-ins compile to (the interpreter's in the same mode).
    pub math: brook_ir::MathMode,
}

/// The quad of four elements code for four elements per iteration is running.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Quad {
    /// Where the quad goes when its lanes disagree on a condition.
    pub bail: Block,
    /// `indexof` of the output, component by component (`.x` first), each an `f32x4` of the
    /// four elements' values; `None` when the kernel does not use it.
    pub position: Option<[Num; 4]>,
}

/// How code compiled for a call with a time limit checks it: every loop back edge counts
/// down, and every [`crate::watchdog::NATIVE_CHECK_EVERY`] of them the code asks the
/// watchdog whether the time is up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Watch {
    /// Back edges left before the next check (`i64`).
    pub countdown: Variable,
    /// Where the code goes when the time is up.
    pub expired: Block,
}

/// Starts a compiled function in `b`: an entry block taking the signature's parameters, where
/// the slot loads go, then a block where `body` emits the rest with the parameters. `earlier`
/// are the slots of functions built before that share this one's `ctx` (their order is kept);
/// built-ins compute as `math` asks. Returns what `body` returns and the slots read.
pub(crate) fn function<'m, 'f, 'i, R>(
    b: &mut FunctionBuilder<'f>,
    imports: &mut Imports<'i>,
    module: &'m Module,
    math: brook_ir::MathMode,
    ptr: Ty,
    earlier: &[Slot],
    body: impl FnOnce(&mut Lower<'m, '_, 'f, 'i>, &[Value]) -> Res<R>,
) -> Res<(R, Vec<Slot>)> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let setup = b.create_block();
    let at = b.ins().jump(setup, &[]);
    b.switch_to_block(setup);
    b.seal_block(setup);
    let discard = b.create_block();
    let mut l = Lower {
        b,
        module,
        imports,
        slots: Slots::new(params[0], at),
        ptr,
        discard,
        vout_state: None,
        watch: None,
        soa: None,
        gathered: None,
        math,
    };
    for &s in earlier {
        l.slots.reserve(s);
    }
    let r = body(&mut l, &params)?;
    Ok((r, std::mem::take(&mut l.slots.list)))
}

impl<'m> Lower<'m, '_, '_, '_> {
    /// `if t { yes } else { no }` as blocks; emission continues after both.
    pub fn if_else(
        &mut self,
        s: &mut Scope<'m>,
        t: Value,
        yes: impl FnOnce(&mut Self, &mut Scope<'m>) -> Res<()>,
        no: impl FnOnce(&mut Self, &mut Scope<'m>) -> Res<()>,
    ) -> Res<()> {
        let (then, otherwise, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(t, then, &[], otherwise, &[]);
        self.b.seal_block(then);
        self.b.seal_block(otherwise);
        self.b.switch_to_block(then);
        yes(self, s)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(otherwise);
        no(self, s)?;
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// `for (i = from; i < to; i++)`: `body` emits one iteration, `i` in hand, from a block
    /// of its own, and ends in (or jumps from anywhere to) the `next` block it is given;
    /// `step` emits what else every iteration does at `next`. Emission continues after the
    /// loop.
    pub fn count_loop(
        &mut self,
        from: Value,
        to: Value,
        body: impl FnOnce(&mut Self, Value, Block) -> Res<()>,
        step: impl FnOnce(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let i = self.b.declare_var(cranelift_codegen::ir::types::I64);
        self.b.def_var(i, from);
        let (head, run, next, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let at = self.b.use_var(i);
        let done = self.b.ins().icmp(
            cranelift_codegen::ir::condcodes::IntCC::SignedGreaterThanOrEqual,
            at,
            to,
        );
        // The exit first: see [`Lower::loop_test`].
        self.b.ins().brif(done, exit, &[], run, &[]);
        self.b.switch_to_block(run);
        self.b.seal_block(run);
        body(self, at, next)?;
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        self.b.seal_block(next);
        step(self)?;
        let following = self.b.ins().iadd_imm_s(at, 1);
        self.b.def_var(i, following);
        self.b.ins().jump(head, &[]);
        self.b.seal_block(head);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        Ok(())
    }

    /// A loop back edge: under a time limit, counts down and every so often asks the
    /// watchdog, leaving for [`Watch::expired`] when the time is up (the interpreter checks
    /// at the same place, after the step).
    pub fn back_edge(&mut self) {
        let Some(w) = self.watch else {
            return;
        };
        let types = cranelift_codegen::ir::types::I64;
        let left = self.b.use_var(w.countdown);
        let left = self.b.ins().iadd_imm_s(left, -1);
        self.b.def_var(w.countdown, left);
        let (check, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(left, go, &[], check, &[]);
        self.b.switch_to_block(check);
        self.b.seal_block(check);
        let state = self.slots.get(self.b.func, Slot::Watchdog, self.ptr);
        let time_up = self.imports.get(self.b.func, super::runtime::Call::TimeUp);
        let call = self.b.ins().call(time_up, &[state]);
        let up = self.b.inst_results(call)[0];
        let every = self
            .b
            .ins()
            .iconst(types, crate::watchdog::NATIVE_CHECK_EVERY);
        self.b.def_var(w.countdown, every);
        self.b.ins().brif(up, w.expired, &[], go, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
    }

    /// A loop's test: to `exit` when `more` (an `i8` truth) is false, else to `run`.
    ///
    /// The exit is the branch's first target on purpose. Cranelift 0.135 hoists
    /// loop-invariant values (slot loads, `indexof`, a gather's bounds) out of a loop only
    /// while elaborating blocks it knows to be inside it, and it forgets the loop once it has
    /// visited a block outside it; it visits a block's dominator-tree children in reverse
    /// post-order, where a branch's later target comes first. With the exit first, the body
    /// is visited before the exit and its invariant values leave the loop (with the body
    /// first they stayed in it, computed once per iteration).
    pub fn loop_test(&mut self, more: Value, run: Block, exit: Block) {
        let done = self
            .b
            .ins()
            .icmp_imm_s(cranelift_codegen::ir::condcodes::IntCC::Equal, more, 0);
        self.b.ins().brif(done, exit, &[], run, &[]);
    }

    /// Fresh variables for a value of `ty`.
    pub fn declare(&mut self, ty: &Type) -> Res<Store> {
        Ok(match ty {
            Type::Void => Store::Void,
            Type::Scalar(s) => Store::Num(*s, 1, self.b.declare_var(clif_ty(*s, 1))),
            Type::Vector(s, n) => Store::Num(*s, *n, self.b.declare_var(clif_ty(*s, *n))),
            Type::Matrix { rows, cols } => Store::Mat(
                *cols,
                (0..*rows)
                    .map(|_| self.b.declare_var(clif_ty(Scalar::Float, *cols)))
                    .collect(),
            ),
            Type::Struct(id) => Store::Agg(
                members(self.module, *id)?
                    .iter()
                    .map(|m| self.declare(&m.ty))
                    .collect::<Res<_>>()?,
            ),
            Type::Array(elem, n) => {
                Store::Agg((0..*n).map(|_| self.declare(elem)).collect::<Res<_>>()?)
            }
        })
    }

    /// Fresh variables for `ty`, holding `v`.
    pub fn var(&mut self, ty: &Type, v: &Val) -> Res<Store> {
        let s = self.declare(ty)?;
        self.write(&s, v)?;
        Ok(s)
    }

    pub fn read(&mut self, s: &Store) -> Val {
        match s {
            Store::Void => Val::Void,
            Store::Num(sc, n, v) => Val::Num(Num {
                s: *sc,
                n: *n,
                v: self.b.use_var(*v),
            }),
            Store::Mat(cols, rows) => Val::Mat(
                rows.iter()
                    .map(|&r| Num {
                        s: Scalar::Float,
                        n: *cols,
                        v: self.b.use_var(r),
                    })
                    .collect(),
            ),
            Store::Agg(parts) => Val::Agg(parts.iter().map(|p| self.read(p)).collect()),
        }
    }

    /// Assigns `v`, which must already have the variable's type.
    pub fn write(&mut self, s: &Store, v: &Val) -> Res<()> {
        match (s, v) {
            (Store::Void, _) => {}
            (Store::Num(sc, n, var), Val::Num(x)) if x.s == *sc && x.n == *n => {
                self.b.def_var(*var, x.v)
            }
            (Store::Mat(cols, rows), Val::Mat(xs)) if rows.len() == xs.len() => {
                for (&r, x) in rows.iter().zip(xs) {
                    if x.n != *cols {
                        return no("matrix of another shape");
                    }
                    self.b.def_var(r, x.v);
                }
            }
            (Store::Agg(parts), Val::Agg(xs)) if parts.len() == xs.len() => {
                for (p, x) in parts.iter().zip(xs) {
                    self.write(p, x)?;
                }
            }
            _ => return no(format!("store of {v:?} into {s:?}")),
        }
        Ok(())
    }

    /// Continues emitting in a fresh block nothing jumps to (after `break`, `return`, …),
    /// so the statements after a jump still have somewhere to go.
    pub fn unreachable_rest(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        self.b.seal_block(dead);
    }
}
