//! Executing batch instructions over the first `n` lanes, under an execution mask.
//!
//! The mask is one `bool` per lane. Expression instructions ignore it; `Store` honours it;
//! control flow narrows it: `If` runs each side with the lanes that take it and merges,
//! `Loop` iterates while any lane is still in the loop, `Break`/`Continue`/`Return`/`Discard`
//! take the current lanes out (recording them for the loop, the function or the element).
//! A block stops early once no lane is active.

use brook_frontend::ir::Module;

use super::program::{BatchKernel, GatherIndex, Ins, Kind, Reg, Val, When};
use super::regs::{by_kind, Lane, Regs};
use crate::error::CpuError;
use crate::exec::builtin::builtin;
use crate::exec::ops::{bool_binary, compare, float_arith, int_arith};
use crate::exec::{clamp_index, coerce};
use crate::shape::{gather_index, ravel, Index};
use crate::stream::CpuStream;
use crate::value::{Comp, Value};
use crate::watchdog::Watchdog;

/// Whether some lane is set. A fold without early exit, so LLVM vectorises it: these
/// checks run after every narrowing instruction and every store, and a byte-at-a-time
/// search over 512 lanes costs more than the arithmetic it guards.
pub(crate) fn any(m: &[bool]) -> bool {
    m.iter().fold(false, |a, &b| a | b)
}

/// Whether every lane is set (see [`any`]).
fn all(m: &[bool]) -> bool {
    m.iter().fold(true, |a, &b| a & b)
}

/// `m &= !x`.
fn clear(m: &mut [bool], x: &[bool]) {
    for (a, &b) in m.iter_mut().zip(x) {
        *a &= !b;
    }
}

/// `x |= m` then `m = false`: the active lanes leave, recorded in `x`.
fn leave(m: &mut [bool], x: &mut [bool]) {
    for (a, b) in m.iter_mut().zip(x) {
        *b |= *a;
        *a = false;
    }
}

/// The per-lane integer of an index register: ints as they are, floats truncated (C).
fn lane_index(regs: &Regs, r: Reg, l: usize) -> i64 {
    match regs.comp(r, l) {
        Comp::I(i) => i as i64,
        Comp::F(x) => x as i64,
        Comp::B(b) => b as i64,
    }
}

fn malformed(reason: impl Into<String>) -> CpuError {
    CpuError::malformed("", reason)
}

/// One worker's state for running a batch kernel.
pub struct Machine<'a> {
    pub module: &'a Module,
    pub kernel: &'a BatchKernel,
    /// The stream behind each gather parameter of the kernel.
    pub gathers: Vec<Option<&'a CpuStream>>,
    pub regs: Regs,
    /// Lanes in the current batch.
    pub n: usize,
    /// Lanes that executed `discard`.
    pub discarded: Vec<bool>,
    returned: Vec<Vec<bool>>,
    broke: Vec<Vec<bool>>,
    lin: Vec<usize>,
    /// Checked at every loop back edge.
    watchdog: Watchdog,
}

impl<'a> Machine<'a> {
    pub fn new(
        module: &'a Module,
        kernel: &'a BatchKernel,
        gathers: Vec<Option<&'a CpuStream>>,
        watchdog: Watchdog,
    ) -> Machine<'a> {
        Machine {
            module,
            kernel,
            gathers,
            regs: Regs::new(kernel),
            n: 0,
            discarded: Vec::new(),
            returned: Vec::new(),
            broke: Vec::new(),
            lin: Vec::new(),
            watchdog,
        }
    }

    /// Runs the kernel body on the first `n` lanes (parameters already loaded).
    pub fn run(&mut self, n: usize) -> Result<(), CpuError> {
        self.n = n;
        self.discarded.clear();
        self.discarded.resize(n, false);
        self.returned.push(vec![false; n]);
        let mut mask = vec![true; n];
        let kernel = self.kernel;
        let r = self.block(&kernel.body, &mut mask);
        self.returned.pop();
        r
    }

    fn block(&mut self, block: &'a [Ins], mask: &mut Vec<bool>) -> Result<(), CpuError> {
        for ins in block {
            if self.ins(ins, mask)? && !any(mask) {
                break;
            }
        }
        Ok(())
    }

    /// Executes one instruction; `true` when it may have narrowed the mask.
    fn ins(&mut self, ins: &'a Ins, mask: &mut Vec<bool>) -> Result<bool, CpuError> {
        let n = self.n;
        match ins {
            Ins::FArith { op, d, a, b } => {
                self.op2::<f32, f32>(*d, *a, *b, |x, y, o| float_arith(*op, x, y, o))
            }
            Ins::FCmp { op, d, a, b } => {
                self.op2::<f32, bool>(*d, *a, *b, |x, y, o| compare(*op, x, y, o))
            }
            Ins::IArith { op, d, a, b } => {
                self.op2::<i32, i32>(*d, *a, *b, |x, y, o| int_arith(*op, x, y, o))
            }
            Ins::ICmp { op, d, a, b } => {
                self.op2::<i32, bool>(*d, *a, *b, |x, y, o| compare(*op, x, y, o))
            }
            Ins::BBin { op, d, a, b } => {
                self.op2::<bool, bool>(*d, *a, *b, |x, y, o| bool_binary(*op, x, y, o))
            }
            Ins::Neg { d, a } => match a.kind {
                Kind::F => self.map1::<f32, f32>(*d, *a, |x| -x),
                _ => self.map1::<i32, i32>(*d, *a, i32::wrapping_neg),
            },
            Ins::Conv { d, a } => by_kind!(a.kind, A => by_kind!(d.kind, D => {
                self.map1::<A, D>(*d, *a, |x| D::from_comp(x.comp()))
            })),
            Ins::Copy { d, a } => by_kind!(a.kind, T => self.map1::<T, T>(*d, *a, |x| x)),
            Ins::Select { c, d, a, b } => by_kind!(d.kind, T => {
                let mut out = T::take(&mut self.regs, *d);
                let (cv, av, bv) = (self.regs.b(*c), T::get(&self.regs, *a), T::get(&self.regs, *b));
                for l in 0..n {
                    out[l] = if cv[l] { av[l] } else { bv[l] };
                }
                T::put(&mut self.regs, *d, out);
            }),
            Ins::F1 { f, d, a } => self.map1::<f32, f32>(*d, *a, f),
            Ins::FTest { f, d, a } => self.map1::<f32, bool>(*d, *a, f),
            Ins::I1 { f, d, a } => self.map1::<i32, i32>(*d, *a, f),
            Ins::F2 { f, d, a, b } => self.op2::<f32, f32>(*d, *a, *b, |x, y, o| {
                for ((o, &p), &q) in o.iter_mut().zip(x).zip(y) {
                    *o = f(p, q);
                }
                true
            }),
            Ins::I2 { f, d, a, b } => self.op2::<i32, i32>(*d, *a, *b, |x, y, o| {
                for ((o, &p), &q) in o.iter_mut().zip(x).zip(y) {
                    *o = f(p, q);
                }
                true
            }),
            Ins::F3 { f, d, a, b, c } => {
                let mut out = self.regs.take_f(*d);
                let (x, y, z) = (self.regs.f(*a), self.regs.f(*b), self.regs.f(*c));
                for l in 0..n {
                    out[l] = f(x[l], y[l], z[l]);
                }
                self.regs.put_f(*d, out);
            }
            Ins::Split { f, d0, d1, a } => {
                let (mut o0, mut o1) = (self.regs.take_f(*d0), self.regs.take_f(*d1));
                let x = self.regs.f(*a);
                for l in 0..n {
                    (o0[l], o1[l]) = f(x[l]);
                }
                self.regs.put_f(*d0, o0);
                self.regs.put_f(*d1, o1);
            }
            Ins::PerLane { b, args, d } => self.per_lane(*b, args, d)?,
            Ins::Gather {
                param,
                name,
                index,
                d,
            } => self.gather(*param, name, index, d)?,
            Ins::Pick { index, cands, d } => {
                for l in 0..n {
                    let k = clamp_index(lane_index(&self.regs, *index, l), cands.len());
                    for (&dr, &sr) in d.iter().zip(&cands[k]) {
                        let c = self.regs.comp(sr, l);
                        self.regs.set(dr, l, c);
                    }
                }
            }
            Ins::Store {
                dst,
                src,
                when,
                moves,
            } => self.store(dst, src, when, *moves, mask),
            Ins::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.regs.b(*cond);
                let mut t: Vec<bool> = mask.iter().zip(c).map(|(&m, &c)| m & c).collect();
                let mut e: Vec<bool> = mask.iter().zip(c).map(|(&m, &c)| m & !c).collect();
                if any(&t) {
                    self.block(then, &mut t)?;
                }
                if any(&e) {
                    self.block(otherwise, &mut e)?;
                }
                for ((m, t), e) in mask.iter_mut().zip(t).zip(e) {
                    *m = t | e;
                }
                return Ok(true);
            }
            Ins::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                self.looped(init, cond.as_ref(), step, body, *test_first, mask)?;
                return Ok(true);
            }
            Ins::Break => {
                let top = self
                    .broke
                    .last_mut()
                    .ok_or_else(|| malformed("break outside a loop"))?;
                leave(mask, top);
                return Ok(true);
            }
            Ins::Continue => {
                mask.fill(false);
                return Ok(true);
            }
            Ins::Return => {
                let top = self
                    .returned
                    .last_mut()
                    .ok_or_else(|| malformed("return outside a function"))?;
                leave(mask, top);
                return Ok(true);
            }
            Ins::Discard => {
                leave(mask, &mut self.discarded);
                return Ok(true);
            }
            Ins::Call { body } => {
                self.returned.push(vec![false; n]);
                let mut inner = mask.clone();
                let r = self.block(body, &mut inner);
                self.returned.pop();
                r?;
                clear(mask, &self.discarded);
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn op2<A: Lane, D: Lane>(
        &mut self,
        d: Reg,
        a: Reg,
        b: Reg,
        f: impl FnOnce(&[A], &[A], &mut [D]) -> bool,
    ) {
        let n = self.n;
        let mut out = D::take(&mut self.regs, d);
        f(
            &A::get(&self.regs, a)[..n],
            &A::get(&self.regs, b)[..n],
            &mut out[..n],
        );
        D::put(&mut self.regs, d, out);
    }

    fn map1<A: Lane, D: Lane>(&mut self, d: Reg, a: Reg, f: impl Fn(A) -> D) {
        let n = self.n;
        let mut out = D::take(&mut self.regs, d);
        for (o, &x) in out[..n].iter_mut().zip(&A::get(&self.regs, a)[..n]) {
            *o = f(x);
        }
        D::put(&mut self.regs, d, out);
    }

    fn store(&mut self, dst: &[Reg], src: &[Reg], when: &[When], moves: bool, mask: &[bool]) {
        let n = self.n;
        let guarded;
        let m: &[bool] = if when.is_empty() {
            mask
        } else {
            guarded = (0..n)
                .map(|l| {
                    mask[l]
                        && when.iter().all(|w| {
                            clamp_index(lane_index(&self.regs, w.reg, l), w.len) == w.value
                        })
                })
                .collect::<Vec<bool>>();
            &guarded
        };
        let full = all(m);
        for (&d, &s) in dst.iter().zip(src) {
            if d == s {
                continue;
            }
            if full && moves {
                self.regs.swap(d, s);
                continue;
            }
            by_kind!(d.kind, T => {
                let mut out = T::take(&mut self.regs, d);
                let sv = &T::get(&self.regs, s)[..n];
                if full {
                    out[..n].copy_from_slice(sv);
                } else {
                    for ((o, &x), &on) in out[..n].iter_mut().zip(sv).zip(m) {
                        if on {
                            *o = x;
                        }
                    }
                }
                T::put(&mut self.regs, d, out);
            })
        }
    }

    fn looped(
        &mut self,
        init: &'a [Ins],
        cond: Option<&'a (Vec<Ins>, Reg)>,
        step: &'a [Ins],
        body: &'a [Ins],
        test_first: bool,
        mask: &mut Vec<bool>,
    ) -> Result<(), CpuError> {
        let start = mask.clone();
        self.block(init, mask)?;
        let mut live = mask.clone();
        let mut first = true;
        loop {
            if test_first || !first {
                if let Some((ops, c)) = cond {
                    self.block(ops, &mut live)?;
                    let cv = self.regs.b(*c);
                    for (m, &t) in live.iter_mut().zip(cv) {
                        *m &= t;
                    }
                }
            }
            first = false;
            if !any(&live) {
                break;
            }
            self.broke.push(vec![false; self.n]);
            let mut lanes = live.clone();
            let r = self.block(body, &mut lanes);
            let broke = self.broke.pop().unwrap_or_default();
            r?;
            clear(&mut live, &broke);
            self.exited(&mut live);
            self.block(step, &mut live)?;
            if !any(&live) {
                break;
            }
            self.watchdog.check()?;
        }
        *mask = start;
        self.exited(mask);
        Ok(())
    }

    /// Removes lanes that returned from the current function or discarded.
    fn exited(&self, m: &mut [bool]) {
        if let Some(r) = self.returned.last() {
            clear(m, r);
        }
        clear(m, &self.discarded);
    }

    /// A value of `v`'s type rebuilt from lane `l` of its registers.
    fn value(&self, v: &Val, l: usize) -> Result<Value, CpuError> {
        Value::from_comps(
            &v.ty,
            self.module,
            &mut v.regs.iter().map(|&r| self.regs.comp(r, l)),
        )
        .ok_or_else(|| malformed("value of the wrong size"))
    }

    fn per_lane(
        &mut self,
        b: brook_frontend::ir::Builtin,
        args: &[Val],
        d: &Val,
    ) -> Result<(), CpuError> {
        let mut comps = Vec::with_capacity(16);
        for l in 0..self.n {
            let vals = args
                .iter()
                .map(|a| self.value(a, l))
                .collect::<Result<Vec<_>, _>>()?;
            let mut r = builtin(b, &vals)?;
            if let (Some(have), Some(want)) = (r.scalar_kind(), d.ty.scalar()) {
                if have != want {
                    r = coerce(r, &d.ty)?;
                }
            }
            comps.clear();
            r.flatten(&mut comps);
            for (&dr, &c) in d.regs.iter().zip(&comps) {
                self.regs.set(dr, l, c);
            }
        }
        Ok(())
    }

    /// `a[i]`, `a[r][c]`, `a[v]` (the interpreter's `gather`, per lane).
    fn gather(
        &mut self,
        param: usize,
        name: &str,
        index: &GatherIndex,
        d: &Val,
    ) -> Result<(), CpuError> {
        let stream = self.gathers.get(param).copied().flatten().ok_or_else(|| {
            malformed(format!(
                "gather from parameter #{param}, which is not a gather"
            ))
        })?;
        let shape = stream.shape();
        let rank = shape.len();
        let fpe = stream.floats_per_element();
        if fpe != d.regs.len() {
            return Err(malformed(format!(
                "gather argument `{name}` has the wrong element type"
            )));
        }
        if let GatherIndex::Subscripts(s) = index {
            if s.len() > rank {
                return Err(CpuError::Unsupported(format!(
                    "gathering `{name}` with {} subscripts from a stream of {rank} dimension(s)",
                    s.len()
                )));
            }
        }
        let mut lin = std::mem::take(&mut self.lin);
        lin.clear();
        for l in 0..self.n {
            let mut idx: Index = [0; 4];
            match index {
                GatherIndex::Vector(v) => {
                    for (k, &r) in v.iter().enumerate().take(rank) {
                        let dim = rank - 1 - k;
                        idx[dim] = gather_index(self.regs.comp(r, l), shape[dim]);
                    }
                }
                GatherIndex::Subscripts(s) => {
                    let off = rank - s.len();
                    for (j, &r) in s.iter().enumerate() {
                        idx[off + j] = gather_index(self.regs.comp(r, l), shape[off + j]);
                    }
                }
            }
            lin.push(ravel(&idx, shape));
        }
        let data = stream.data();
        for (c, &dr) in d.regs.iter().enumerate() {
            for (l, &e) in lin.iter().enumerate() {
                self.regs.set(dr, l, Comp::F(data[e * fpe + c]));
            }
        }
        self.lin = lin;
        Ok(())
    }
}
