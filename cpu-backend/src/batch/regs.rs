//! The register file of one worker: `LANES` values per register, one vector per register.
//!
//! Variables are written by instructions; literals are filled once when the file is made
//! and only read. An instruction takes its destination out of the file (a move of the
//! vector, not a copy), computes into it while reading its operands, and puts it back, so
//! there is no aliasing to reason about and no `unsafe`.

use super::program::{BatchKernel, Kind, Reg, LANES};
use crate::value::Comp;

#[derive(Debug, Default)]
struct Arena {
    f: Vec<Vec<f32>>,
    i: Vec<Vec<i32>>,
    b: Vec<Vec<bool>>,
}

impl Arena {
    fn new(counts: [usize; 3]) -> Arena {
        Arena {
            f: vec![vec![0.0; LANES]; counts[0]],
            i: vec![vec![0; LANES]; counts[1]],
            b: vec![vec![false; LANES]; counts[2]],
        }
    }
}

#[derive(Debug)]
pub struct Regs {
    vars: Arena,
    consts: Arena,
}

impl Regs {
    pub fn new(k: &BatchKernel) -> Regs {
        let mut consts = Arena::new(k.const_counts);
        for (r, c) in &k.consts {
            let id = r.id as usize;
            match *c {
                Comp::F(x) => consts.f[id].fill(x),
                Comp::I(x) => consts.i[id].fill(x),
                Comp::B(x) => consts.b[id].fill(x),
            }
        }
        Regs {
            vars: Arena::new(k.vars),
            consts,
        }
    }

    fn arena(&self, r: Reg) -> &Arena {
        if r.konst {
            &self.consts
        } else {
            &self.vars
        }
    }

    pub fn f(&self, r: Reg) -> &[f32] {
        debug_assert_eq!(r.kind, Kind::F);
        &self.arena(r).f[r.id as usize]
    }

    pub fn i(&self, r: Reg) -> &[i32] {
        debug_assert_eq!(r.kind, Kind::I);
        &self.arena(r).i[r.id as usize]
    }

    pub fn b(&self, r: Reg) -> &[bool] {
        debug_assert_eq!(r.kind, Kind::B);
        &self.arena(r).b[r.id as usize]
    }

    pub fn take_f(&mut self, r: Reg) -> Vec<f32> {
        std::mem::take(&mut self.vars.f[r.id as usize])
    }

    pub fn take_i(&mut self, r: Reg) -> Vec<i32> {
        std::mem::take(&mut self.vars.i[r.id as usize])
    }

    pub fn take_b(&mut self, r: Reg) -> Vec<bool> {
        std::mem::take(&mut self.vars.b[r.id as usize])
    }

    pub fn put_f(&mut self, r: Reg, v: Vec<f32>) {
        self.vars.f[r.id as usize] = v;
    }

    pub fn put_i(&mut self, r: Reg, v: Vec<i32>) {
        self.vars.i[r.id as usize] = v;
    }

    pub fn put_b(&mut self, r: Reg, v: Vec<bool>) {
        self.vars.b[r.id as usize] = v;
    }

    /// Exchanges the lanes of two variables of one kind (a move when `b` is dead after).
    pub fn swap(&mut self, a: Reg, b: Reg) {
        debug_assert!(a.kind == b.kind && !a.konst && !b.konst);
        let (i, j) = (a.id as usize, b.id as usize);
        match a.kind {
            Kind::F => self.vars.f.swap(i, j),
            Kind::I => self.vars.i.swap(i, j),
            Kind::B => self.vars.b.swap(i, j),
        }
    }

    /// Lane `l` of any register as a component.
    pub fn comp(&self, r: Reg, l: usize) -> Comp {
        match r.kind {
            Kind::F => Comp::F(self.f(r)[l]),
            Kind::I => Comp::I(self.i(r)[l]),
            Kind::B => Comp::B(self.b(r)[l]),
        }
    }

    /// Sets lane `l` of a variable, converting `c` to its kind (C's rules).
    pub fn set(&mut self, r: Reg, l: usize, c: Comp) {
        let id = r.id as usize;
        match r.kind {
            Kind::F => self.vars.f[id][l] = c.to_f32(),
            Kind::I => self.vars.i[id][l] = c.to_i32(),
            Kind::B => self.vars.b[id][l] = c.to_bool(),
        }
    }
}

/// A lane type of the register file: `f32`, `i32` or `bool`.
pub trait Lane: Copy + Default {
    fn get(regs: &Regs, r: Reg) -> &[Self];
    fn take(regs: &mut Regs, r: Reg) -> Vec<Self>;
    fn put(regs: &mut Regs, r: Reg, v: Vec<Self>);
    fn comp(self) -> Comp;
    fn from_comp(c: Comp) -> Self;
}

impl Lane for f32 {
    fn get(regs: &Regs, r: Reg) -> &[f32] {
        regs.f(r)
    }
    fn take(regs: &mut Regs, r: Reg) -> Vec<f32> {
        regs.take_f(r)
    }
    fn put(regs: &mut Regs, r: Reg, v: Vec<f32>) {
        regs.put_f(r, v)
    }
    fn comp(self) -> Comp {
        Comp::F(self)
    }
    fn from_comp(c: Comp) -> f32 {
        c.to_f32()
    }
}

impl Lane for i32 {
    fn get(regs: &Regs, r: Reg) -> &[i32] {
        regs.i(r)
    }
    fn take(regs: &mut Regs, r: Reg) -> Vec<i32> {
        regs.take_i(r)
    }
    fn put(regs: &mut Regs, r: Reg, v: Vec<i32>) {
        regs.put_i(r, v)
    }
    fn comp(self) -> Comp {
        Comp::I(self)
    }
    fn from_comp(c: Comp) -> i32 {
        c.to_i32()
    }
}

impl Lane for bool {
    fn get(regs: &Regs, r: Reg) -> &[bool] {
        regs.b(r)
    }
    fn take(regs: &mut Regs, r: Reg) -> Vec<bool> {
        regs.take_b(r)
    }
    fn put(regs: &mut Regs, r: Reg, v: Vec<bool>) {
        regs.put_b(r, v)
    }
    fn comp(self) -> Comp {
        Comp::B(self)
    }
    fn from_comp(c: Comp) -> bool {
        c.to_bool()
    }
}

/// Runs `$body` with `$T` the lane type of kind `$k`.
macro_rules! by_kind {
    ($k:expr, $T:ident => $body:expr) => {
        match $k {
            $crate::batch::program::Kind::F => {
                type $T = f32;
                $body
            }
            $crate::batch::program::Kind::I => {
                type $T = i32;
                $body
            }
            $crate::batch::program::Kind::B => {
                type $T = bool;
                $body
            }
        }
    };
}
pub(crate) use by_kind;
