//! Write masks and write queries on the CPU backend, with the GL backend's results: masked-off
//! elements keep their values (the kernel does not even run there), and a query counts the
//! elements a call wrote (neither discarded nor masked off), as the kernel call reports them.

use std::cell::{Cell, RefCell};

use brook_core::{fmt_shape, BrookError, Domain, MaskUse};

use crate::{CpuArg, CpuError, CpuStream, KernelRun};

/// The mask last set and the open query's count; which calls are allowed when is the
/// runtime's business (brook-core's `WriteMaskState`).
#[derive(Default)]
pub struct CpuMasking {
    /// The mask last set: its shape and which elements are on.
    mask: RefCell<Option<(Vec<usize>, Vec<bool>)>>,
    /// Elements written since the open query began.
    query: Cell<u64>,
}

impl CpuMasking {
    pub fn set(&self, mask: &CpuStream) {
        let on = (0..mask.len()).map(|i| mask.element(i)[0] != 0.0).collect();
        *self.mask.borrow_mut() = Some((mask.shape().to_vec(), on));
    }

    pub fn begin_query(&self) {
        self.query.set(0);
    }

    pub fn end_query(&self) -> u64 {
        self.query.take()
    }

    /// Runs a kernel call (`run`, on `args`) under the mask and counts it into the open query.
    /// The outputs are whole streams, or with `domain` (the whole output streams' shape and
    /// the domain) copies of that region: the mask has the whole streams' shape, and region
    /// element `i` is masked by the mask element at its place in the whole stream. `run`
    /// skips the elements the mask leaves off (they keep their values) and says how many
    /// elements wrote their outputs (neither masked off nor discarded).
    pub fn run(
        &self,
        mask: MaskUse,
        args: &mut [CpuArg],
        domain: Option<(&[usize], &Domain)>,
        mut run: impl FnMut(&mut [CpuArg], Option<&[bool]>) -> Result<KernelRun, CpuError>,
    ) -> Result<(), BrookError> {
        let Some(region_shape) = outputs(args).next().map(|o| o.shape().to_vec()) else {
            run(args, None)?;
            return Ok(());
        };
        let shape = domain.map_or(region_shape, |(whole, _)| whole.to_vec());
        let set = self.mask.borrow();
        let on: Option<Vec<bool>> = match (&*set, mask.masked) {
            (Some((mask_shape, on)), true) => {
                if *mask_shape != shape {
                    return Err(BrookError::ShapeMismatch {
                        call: "a masked kernel call".into(),
                        message: format!(
                            "the write mask has shape {} but the outputs have shape {}",
                            fmt_shape(mask_shape),
                            fmt_shape(&shape)
                        ),
                    });
                }
                Some(match domain {
                    Some((whole, d)) => d.linear_positions(whole).map(|l| on[l]).collect(),
                    None => on.clone(),
                })
            }
            _ => None,
        };
        let done = run(args, on.as_deref())?;
        if mask.counting {
            self.query.set(self.query.get() + done.written as u64);
        }
        Ok(())
    }
}

fn outputs<'a, 'b: 'a>(
    args: &'a mut [CpuArg<'b>],
) -> impl Iterator<Item = &'a mut CpuStream> + use<'a, 'b> {
    args.iter_mut().filter_map(|a| match a {
        CpuArg::Out(o) => Some(&mut **o),
        _ => None,
    })
}
