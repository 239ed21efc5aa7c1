//! Write masks and write queries on the CPU backend, with the GL backend's results: masked-off
//! elements keep their values, and a query counts the elements a call wrote (neither
//! discarded nor masked off).

use std::cell::{Cell, RefCell};

use brook_core::{fmt_shape, BrookError, Domain, MaskUse};

use crate::{CpuArg, CpuError, CpuStream};

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
    /// element `i` is masked by the mask element at its place in the whole stream. To tell
    /// written from discarded elements the call runs twice over outputs prefilled with two
    /// different values: a written element gets the same value both times (outputs start at
    /// zero, whatever they held), a discarded one keeps the two prefills.
    pub fn run(
        &self,
        mask: MaskUse,
        args: &mut [CpuArg],
        domain: Option<(&[usize], &Domain)>,
        mut run: impl FnMut(&mut [CpuArg]) -> Result<(), CpuError>,
    ) -> Result<(), BrookError> {
        let before: Vec<CpuStream> = outputs(args).map(|o| o.clone()).collect();
        let Some(region_shape) = before.first().map(|o| o.shape().to_vec()) else {
            return Ok(run(args)?);
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
        let written = if mask.counting {
            let mut prefilled = |value: f32| -> Result<Vec<u32>, BrookError> {
                outputs(args).for_each(|o| o.data_mut().fill(value));
                run(args)?;
                let first = outputs(args).next().expect("there is an output");
                Ok((0..first.len())
                    .map(|i| first.element(i)[0].to_bits())
                    .collect())
            };
            let zero = prefilled(0.0)?;
            let one = prefilled(1.0)?;
            zero.iter().zip(&one).map(|(a, b)| a == b).collect()
        } else {
            run(args)?;
            vec![true; before[0].len()]
        };
        let mut count = 0;
        for (out, old) in outputs(args).zip(&before) {
            let per = out.floats_per_element();
            let data = out.data_mut();
            count = 0;
            for (i, &w) in written.iter().enumerate() {
                if w && on.as_ref().is_none_or(|on| on[i]) {
                    count += 1;
                } else {
                    data[i * per..(i + 1) * per].copy_from_slice(old.element(i));
                }
            }
        }
        if mask.counting {
            self.query.set(self.query.get() + count);
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
