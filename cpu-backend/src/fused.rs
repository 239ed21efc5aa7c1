//! A kernel computed inside the fold of a reduction of its one output
//! (`Backend::map_reduce`): the output stream is never written.
//!
//! The reduction folds its input run by run of consecutive elements, in the order
//! `docs/semantics.md` fixes (chunks of [`CHUNK`] elements folded in parallel and merged in
//! index order into a value; each output element's block row by row into a stream, see
//! [`crate::reduce`]). Fused, each run is computed by the kernel just before it is folded,
//! into a buffer of at most [`RUN`] elements that stays in the core's cache, instead of read
//! from an output stream the kernel call wrote to memory first. The fold sees the same
//! elements in the same order and the same chunks, so the result is the unfused pair's bit
//! for bit; the kernel's elements are its own bits whether it runs one element or four per
//! iteration ([`crate::jit`]). Native code runs the kernel's compiled tile function on the
//! run (its output address moved so that the run's first element lands at the buffer's
//! start); the interpreter runs the run's elements one by one, as its chunks do.
//!
//! What cannot fuse is refused before anything runs (`brook_core::call::fusion_refused`, the
//! backend then runs the two calls): here only a kernel that is not one `out` stream without
//! vouts, or that can `discard` (a discarded element keeps the output's old value, which the
//! fold would have to read).

use std::cell::RefCell;

use brook_ir::Module;

use crate::args::{Binding, CpuArg};
use crate::error::CpuError;
use crate::exec::Interp;
use crate::jit::{self, code::Code, runtime::VoutTile, slots::Slot};
use crate::kernel::{Bound, Driver, Execution, KernelPlan};
use crate::reduce::{Elements, ReducePlan, ReduceTarget};
use crate::watchdog::Watchdog;

#[cfg(doc)]
use crate::kernel::CHUNK;

/// The most elements the kernel computes before the fold takes them: 16 KiB of `float4`s,
/// which the fold reads back from the first-level cache.
pub const RUN: usize = 1024;

thread_local! {
    /// Each thread's buffer for the run it computes (no allocation per run).
    static BUFFER: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// Each thread's copy of the call's slots with the output's address of the run it
    /// computes (no allocation per run: SGEMV's row sums make a run per row).
    static CTX: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Reduces the output of the kernel call `args` of `kernel` with `reduce` (`extra` binding its
/// constants and gathers) into `output`, computing each element inside the fold: the result
/// of [`KernelPlan::run`] then [`ReducePlan::run`], bit for bit, without writing the
/// kernel's `out` stream (whose contents stay as they were). The kernel has one `out`
/// parameter, no vout, and cannot `discard`. Returns the kernel's and the reduction's
/// executions (engine, compile).
pub fn run_map_reduce(
    module: &Module,
    kernel: &KernelPlan,
    args: &mut [CpuArg],
    reduce: &ReducePlan,
    extra: &mut [CpuArg],
    output: ReduceTarget,
    watchdog: Watchdog,
) -> Result<(Execution, Execution), CpuError> {
    let Bound {
        func,
        bindings,
        outs,
        vouts,
        out_shape,
    } = Bound::new(module, kernel.kernel(), args, None)?;
    let unchecked = |reason: &str| CpuError::precondition(&func.name, reason.to_string());
    let ([out], true, Some(shape)) = (&outs[..], vouts.is_empty(), out_shape) else {
        return Err(unchecked(
            "a kernel computed inside a reduction has one `out` stream and no vout",
        ));
    };
    if brook_ir::walk::can_discard(module, kernel.kernel()) {
        return Err(unchecked(
            "a kernel that can `discard` is not computed inside a reduction",
        ));
    }
    let fpe = out.floats_per_element();
    let mut execution = Execution::planned(kernel.jit());
    let native = kernel.native(
        module,
        &bindings,
        &shape,
        watchdog.is_limited(),
        &mut execution,
    );
    let folded = match native {
        Some(code) => {
            let ctx: Vec<u64> = (code.slots.iter())
                .map(|&s| jit::drive::slot_value(s, &bindings, &shape, &[0 as _], Some(&watchdog)))
                .collect();
            let out_slots = (code.slots.iter().enumerate())
                .filter(|(_, s)| {
                    matches!(s, Slot::Data(p) if matches!(bindings[*p as usize], Binding::Out(_)))
                })
                .map(|(i, _)| i)
                .collect();
            let mapped = Mapped {
                shape: &shape,
                fpe,
                engine: Engine::Native {
                    code: &code,
                    ctx,
                    out_slots,
                    quads: jit::drive::narrow_gathers(&bindings),
                    name: &func.name,
                    watchdog,
                },
            };
            reduce.run_over(module, &mapped, extra, output)?
        }
        None => {
            execution.fell_back(None);
            let out_fpe = [fpe];
            let driver = Driver {
                interp: Interp::new(module).watched(watchdog).in_mode(kernel.math()),
                func,
                bindings: &bindings,
                out_shape: &shape,
                out_fpe: &out_fpe,
                vout_fpe: &[],
            };
            let mapped = Mapped {
                shape: &shape,
                fpe,
                engine: Engine::Interpreted(&driver),
            };
            reduce.run_over(module, &mapped, extra, output)?
        }
    };
    Ok((execution, folded))
}

/// A kernel call's output as a reduction reads it: computed run by run.
struct Mapped<'a> {
    shape: &'a [usize],
    fpe: usize,
    engine: Engine<'a>,
}

/// How [`Mapped`] computes a run.
enum Engine<'a> {
    /// The kernel's compiled tile function, its slots filled for the call except the
    /// output's address (`out_slots`), which each run points at its buffer.
    Native {
        code: &'a Code,
        ctx: Vec<u64>,
        out_slots: Vec<usize>,
        /// Whether the four-element function may run (gathered extents fit its lanes).
        quads: bool,
        name: &'a str,
        watchdog: Watchdog,
    },
    /// The interpreter, as it runs a chunk of the call.
    Interpreted(&'a Driver<'a>),
}

impl Mapped<'_> {
    /// Computes elements `start..start + dst.len() / fpe` of the output into `dst`.
    fn compute(&self, start: usize, dst: &mut [f32]) -> Result<(), CpuError> {
        let n = dst.len() / self.fpe;
        match &self.engine {
            Engine::Native {
                code,
                ctx,
                out_slots,
                quads,
                name,
                watchdog,
            } => {
                // The code stores element `i` at `data + i * fpe` floats: with `data` moved
                // back by `start` elements, the run's elements land in `dst`.
                let data = (dst.as_mut_ptr() as u64).wrapping_sub((start * self.fpe * 4) as u64);
                CTX.with_borrow_mut(|run_ctx| {
                    run_ctx.clear();
                    run_ctx.extend_from_slice(ctx);
                    for &s in out_slots {
                        run_ctx[s] = data;
                    }
                    let mut vouts = VoutTile::new(Vec::new());
                    // SAFETY: `run_ctx` holds the call's slots, its inputs borrowed by the
                    // bindings for the whole reduction, and the output's address points
                    // elements `start..start + n` at `dst`, which nothing else touches
                    // meanwhile.
                    unsafe {
                        jit::drive::run_elements(code, run_ctx, start, n, None, *quads, &mut vouts)
                    }
                    .map_err(|jit::drive::TimeUp| watchdog.stopped(name))
                })?;
            }
            Engine::Interpreted(driver) => {
                driver.run_chunk(start, n, None, &mut [dst], &mut [], None)?;
            }
        }
        Ok(())
    }
}

impl Elements for Mapped<'_> {
    fn shape(&self) -> &[usize] {
        self.shape
    }

    fn floats_per_element(&self) -> usize {
        self.fpe
    }

    fn runs(
        &self,
        start: usize,
        count: usize,
        fold: &mut dyn FnMut(&[f32]) -> Result<(), CpuError>,
    ) -> Result<(), CpuError> {
        BUFFER.with_borrow_mut(|buffer| {
            let end = start + count;
            let mut at = start;
            while at < end {
                let n = RUN.min(end - at);
                if buffer.len() < n * self.fpe {
                    buffer.resize(RUN * self.fpe, 0.0);
                }
                let run = &mut buffer[..n * self.fpe];
                self.compute(at, run)?;
                fold(run)?;
                at += n;
            }
            Ok(())
        })
    }
}
