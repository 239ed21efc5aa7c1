//! Moving one batch of elements between streams and registers.
//!
//! Before a batch runs, every parameter's registers are filled for its lanes: stream
//! elements de-interleaved from the host layout (through the implicit resize when shapes
//! differ), iterator values computed, constants splatted, outputs zeroed (as on GL, an output
//! starts at zero at every element). Afterwards the output registers are interleaved back
//! into the output streams, skipping lanes that executed `discard`, which keep the output's
//! previous contents.

use super::exec::Machine;
use super::program::{Reg, LANES};
use super::regs::{by_kind, Lane, Regs};
use crate::error::CpuError;
use crate::kernel::Binding;
use crate::shape::{position, ravel, resize_index, unravel, Index};
use crate::value::Comp;

/// The call's bindings, shared by every chunk.
pub(crate) struct Io<'a> {
    pub bindings: &'a [Binding<'a>],
    pub out_shape: &'a [usize],
    pub out_fpe: &'a [usize],
}

/// Runs elements `base..base + count`, whose outputs are `slices` (one per output).
pub(crate) fn run_chunk(
    io: &Io,
    m: &mut Machine,
    base: usize,
    count: usize,
    slices: &mut [&mut [f32]],
) -> Result<(), CpuError> {
    let mut done = 0;
    while done < count {
        let n = LANES.min(count - done);
        load(io, m, base + done, n);
        m.run(n)?;
        store(io, m, done, n, slices);
        done += n;
    }
    Ok(())
}

/// Fills lanes `0..n` of register `r` from `f(lane)`, converted to the register's kind as a
/// stream element is decoded (ints truncate, bools are `!= 0`).
fn fill(regs: &mut Regs, r: Reg, n: usize, f: impl Fn(usize) -> f32) {
    by_kind!(r.kind, T => {
        let mut v = T::take(regs, r);
        for (l, x) in v[..n].iter_mut().enumerate() {
            *x = T::from_comp(Comp::F(f(l)));
        }
        T::put(regs, r, v);
    })
}

fn positions(regs: &mut Regs, p: Option<[Reg; 4]>, idx: &[Index], rank: usize) {
    if let Some(p) = p {
        for (j, &r) in p.iter().enumerate() {
            fill(regs, r, idx.len(), |l| position(&idx[l], rank)[j]);
        }
    }
}

fn load(io: &Io, m: &mut Machine, start: usize, n: usize) {
    let kernel = m.kernel;
    let out_idx: Vec<Index> = (0..n).map(|l| unravel(start + l, io.out_shape)).collect();
    for (b, p) in io.bindings.iter().zip(&kernel.params) {
        let regs = &mut m.regs;
        match b {
            Binding::Stream(s) => {
                let (fpe, data) = (s.floats_per_element(), s.data());
                if s.shape() == io.out_shape {
                    let rows = &data[start * fpe..(start + n) * fpe];
                    for (c, &r) in p.val.regs.iter().enumerate() {
                        fill(regs, r, n, |l| rows[l * fpe + c]);
                    }
                    positions(regs, p.position, &out_idx, s.rank());
                } else {
                    let idx: Vec<Index> = out_idx
                        .iter()
                        .map(|i| resize_index(i, io.out_shape, s.shape()))
                        .collect();
                    let lin: Vec<usize> = idx.iter().map(|i| ravel(i, s.shape())).collect();
                    for (c, &r) in p.val.regs.iter().enumerate() {
                        fill(regs, r, n, |l| data[lin[l] * fpe + c]);
                    }
                    positions(regs, p.position, &idx, s.rank());
                }
            }
            Binding::Iter(it, steps) => {
                let idx: Vec<Index> = out_idx
                    .iter()
                    .map(|i| resize_index(i, io.out_shape, &it.shape))
                    .collect();
                let vals: Vec<[f32; 4]> = idx.iter().map(|i| it.value_at(i, steps)).collect();
                for (c, &r) in p.val.regs.iter().enumerate() {
                    fill(regs, r, n, |l| vals[l][c]);
                }
                positions(regs, p.position, &idx, it.shape.len());
            }
            Binding::Constant(v) => {
                let mut comps = Vec::new();
                v.flatten(&mut comps);
                for (&r, &c) in p.val.regs.iter().zip(&comps) {
                    by_kind!(r.kind, T => {
                        let mut lanes = T::take(regs, r);
                        lanes[..n].fill(T::from_comp(c));
                        T::put(regs, r, lanes);
                    })
                }
            }
            Binding::Out(_) => {
                for &r in &p.val.regs {
                    fill(regs, r, n, |_| 0.0);
                }
                positions(regs, p.position, &out_idx, io.out_shape.len());
            }
            Binding::Gather(_) | Binding::External => {}
        }
    }
}

fn store(io: &Io, m: &Machine, first: usize, n: usize, slices: &mut [&mut [f32]]) {
    for (b, p) in io.bindings.iter().zip(&m.kernel.params) {
        let Binding::Out(o) = b else { continue };
        let fpe = io.out_fpe[*o];
        let out = &mut slices[*o][first * fpe..(first + n) * fpe];
        for (c, &r) in p.val.regs.iter().enumerate() {
            by_kind!(r.kind, T => {
                let lanes = &T::get(&m.regs, r)[..n];
                for (l, (x, &gone)) in lanes.iter().zip(&m.discarded).enumerate() {
                    if !gone {
                        out[l * fpe + c] = x.comp().to_f32();
                    }
                }
            })
        }
    }
}
