//! Write masks and write queries on the CPU backend, with the GL backend's results: masked-off
//! elements keep their values (the kernel does not even run there), and a query counts the
//! elements a call wrote (neither discarded nor masked off), as the kernel call reports them.

use std::cell::{Cell, RefCell};

use brook_cpu::{CpuArg, CpuError, CpuStream, KernelRun};
use brook_texture_streams::Domain;

use crate::error::BrookError;
use crate::host_values::domain_elements;

/// The CPU backend's mask and query state.
#[derive(Default)]
pub struct CpuMasking {
    /// The mask last set: its shape and which elements are on.
    mask: RefCell<Option<(Vec<usize>, Vec<bool>)>>,
    enabled: Cell<bool>,
    /// Elements written since the open query began.
    query: Cell<Option<u64>>,
}

impl CpuMasking {
    pub fn set(&self, mask: &CpuStream) {
        let on = (0..mask.len()).map(|i| mask.element(i)[0] != 0.0).collect();
        *self.mask.borrow_mut() = Some((mask.shape().to_vec(), on));
    }

    pub fn enable(&self, on: bool) -> Result<(), BrookError> {
        if on && self.mask.borrow().is_none() {
            return Err(BrookError::Usage(
                "streamEnableWriteMask: no write mask was set (streamSetWriteMask) before enabling it".into(),
            ));
        }
        self.enabled.set(on);
        Ok(())
    }

    pub fn begin_query(&self) -> Result<(), BrookError> {
        if self.query.get().is_some() {
            return Err(BrookError::Usage(
                "streamBeginWriteQuery: a write query is already open; end it first".into(),
            ));
        }
        self.query.set(Some(0));
        Ok(())
    }

    pub fn end_query(&self) -> Result<u64, BrookError> {
        self.query.take().ok_or_else(|| {
            BrookError::Usage(
                "streamEndWriteQuery: no write query is open (streamBeginWriteQuery)".into(),
            )
        })
    }

    /// Whether a call must go through [`CpuMasking::run`] (a mask enabled or a query open).
    pub fn active(&self) -> bool {
        self.enabled.get() || self.query.get().is_some()
    }

    /// Runs a kernel call (`run`, on `args`) under the mask and counts it into the open query.
    /// The outputs are whole streams, or with `domain` (the whole output streams' shape and
    /// the domain) copies of that region: the mask has the whole streams' shape, and region
    /// element `i` is masked by the mask element at its place in the whole stream. `run`
    /// skips the elements the mask leaves off (they keep their values) and says how many
    /// elements wrote their outputs (neither masked off nor discarded).
    pub fn run(
        &self,
        kernel: &str,
        args: &mut [CpuArg],
        domain: Option<(&[usize], &Domain)>,
        mut run: impl FnMut(&mut [CpuArg], Option<&[bool]>) -> Result<KernelRun, CpuError>,
    ) -> Result<(), BrookError> {
        let Some(region_shape) = outputs(args).next().map(|o| o.shape().to_vec()) else {
            run(args, None)?;
            return Ok(());
        };
        let shape = domain.map_or(region_shape, |(whole, _)| whole.to_vec());
        let mask = self.mask.borrow();
        let on: Option<Vec<bool>> = match (&*mask, self.enabled.get()) {
            (Some((mask_shape, on)), true) => {
                if *mask_shape != shape {
                    return Err(BrookError::Usage(format!(
                        "kernel `{kernel}`: the write mask has shape {mask_shape:?} but the outputs have shape {shape:?}"
                    )));
                }
                Some(match domain {
                    Some((whole, d)) => domain_elements(whole, d).map(|l| on[l]).collect(),
                    None => on.clone(),
                })
            }
            _ => None,
        };
        let done = run(args, on.as_deref())?;
        if let Some(total) = self.query.get() {
            self.query.set(Some(total + done.written as u64));
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
