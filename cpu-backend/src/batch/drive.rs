//! Moving one batch of elements between streams and registers.
//!
//! Before a batch runs, every parameter's registers are filled for its lanes: stream
//! elements de-interleaved from the host layout (through the implicit resize when shapes
//! differ), iterator values computed, constants splatted, outputs zeroed (as on GL, an output
//! starts at zero at every element). Afterwards the output registers are interleaved back
//! into the output streams, skipping lanes that executed `discard`, which keep the output's
//! previous contents.

use super::exec::{any, Machine};
use super::program::{Kind, Reg, LANES};
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
    // Multi-dimensional indices only when something reads them (resizing, iterators,
    // `indexof`): SAXPY-like kernels pay nothing for them.
    let needs_idx = io
        .bindings
        .iter()
        .zip(&kernel.params)
        .any(|(b, p)| match b {
            Binding::Stream(s) => s.shape() != io.out_shape || p.position.is_some(),
            Binding::Iter(..) => true,
            Binding::Out(_) => p.position.is_some(),
            _ => false,
        });
    let out_idx: Vec<Index> = if needs_idx {
        (0..n).map(|l| unravel(start + l, io.out_shape)).collect()
    } else {
        Vec::new()
    };
    for (b, p) in io.bindings.iter().zip(&kernel.params) {
        let regs = &mut m.regs;
        match b {
            Binding::Stream(s) => {
                let (fpe, data) = (s.floats_per_element(), s.data());
                if s.shape() == io.out_shape {
                    let rows = &data[start * fpe..(start + n) * fpe];
                    if p.val.regs.iter().all(|r| r.kind == Kind::F) {
                        deinterleave(regs, &p.val.regs, rows, n);
                    } else {
                        for (c, &r) in p.val.regs.iter().enumerate() {
                            fill(regs, r, n, |l| rows[l * fpe + c]);
                        }
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
            // Kernels with vouts never reach the batch engine.
            Binding::Vout(_) => {}
        }
    }
}

fn store(io: &Io, m: &Machine, first: usize, n: usize, slices: &mut [&mut [f32]]) {
    for (b, p) in io.bindings.iter().zip(&m.kernel.params) {
        let Binding::Out(o) = b else { continue };
        let fpe = io.out_fpe[*o];
        let out = &mut slices[*o][first * fpe..(first + n) * fpe];
        if p.val.regs.iter().all(|r| r.kind == Kind::F) && !any(&m.discarded) {
            interleave(&m.regs, &p.val.regs, out, n);
            continue;
        }
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

/// Float registers `regs` from the first `n` elements of `rows` (host layout, one float per
/// register per element), in one pass over the rows. Zipped iterators over slices cut to `n`
/// lanes: no bounds checks in the loop.
fn deinterleave(file: &mut Regs, regs: &[Reg], rows: &[f32], n: usize) {
    let fpe = regs.len();
    let mut lanes: Vec<Vec<f32>> = regs.iter().map(|&r| file.take_f(r)).collect();
    let rows = &rows[..n * fpe];
    match lanes.as_mut_slice() {
        [a] => a[..n].copy_from_slice(rows),
        [a, b, c, d] => {
            let abcd = a[..n].iter_mut().zip(&mut b[..n]).zip(&mut c[..n]);
            for ((((a, b), c), d), e) in abcd.zip(&mut d[..n]).zip(rows.chunks_exact(4)) {
                (*a, *b, *c, *d) = (e[0], e[1], e[2], e[3]);
            }
        }
        lanes => {
            for (l, e) in rows.chunks_exact(fpe).enumerate() {
                for (lane, &x) in lanes.iter_mut().zip(e) {
                    lane[l] = x;
                }
            }
        }
    }
    for (&r, v) in regs.iter().zip(lanes) {
        file.put_f(r, v);
    }
}

/// The inverse of [`deinterleave`]: float registers into `n` host-layout elements.
fn interleave(file: &Regs, regs: &[Reg], out: &mut [f32], n: usize) {
    let fpe = regs.len();
    let lanes: Vec<&[f32]> = regs.iter().map(|&r| &file.f(r)[..n]).collect();
    let out = &mut out[..n * fpe];
    match lanes.as_slice() {
        [a] => out.copy_from_slice(a),
        [a, b, c, d] => {
            let abcd = a.iter().zip(*b).zip(*c).zip(*d);
            for ((((a, b), c), d), e) in abcd.zip(out.chunks_exact_mut(4)) {
                e.copy_from_slice(&[*a, *b, *c, *d]);
            }
        }
        lanes => {
            for (l, e) in out.chunks_exact_mut(fpe).enumerate() {
                for (x, lane) in e.iter_mut().zip(lanes) {
                    *x = lane[l];
                }
            }
        }
    }
}
