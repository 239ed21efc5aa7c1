//! Write masks and write queries on the CPU backend, with the GL backend's results: elements
//! the mask's test leaves off keep their values (the kernel does not even run there), the set
//! mode marks the elements a call wrote, and a query counts the elements a call wrote
//! (neither discarded nor masked off), as the kernel call reports them.

use std::any::Any;
use std::cell::{Cell, RefCell};

use brook_core::{BrookError, Domain, MaskUse};

use crate::{CpuArg, CpuError, CpuStream, KernelRun};

/// A write mask: one flag per element of its shape, `true` where open (a tested call may
/// write the element), `false` where set.
pub struct CpuMask {
    open: RefCell<Vec<bool>>,
}

impl CpuMask {
    /// A mask of `len` elements, every one open.
    pub fn new(len: usize) -> CpuMask {
        CpuMask {
            open: RefCell::new(vec![true; len]),
        }
    }

    /// Opens every element.
    pub fn clear(&self) {
        self.open.borrow_mut().fill(true);
    }

    /// Takes `from`'s contents: open where an element's first float is non-zero.
    pub fn load(&self, from: &CpuStream) {
        *self.open.borrow_mut() = (0..from.len()).map(|i| from.element(i)[0] != 0.0).collect();
    }
}

/// The backend's mask of a kernel call, or an error naming `call`.
pub fn cpu_mask<'a>(mask: &'a dyn Any, call: &str) -> Result<&'a CpuMask, BrookError> {
    mask.downcast_ref()
        .ok_or_else(|| BrookError::ForeignStream {
            call: format!("{call} (a write mask of another backend)"),
        })
}

/// The open query's count; which calls are allowed when is the runtime's business
/// (brook-core's `WriteMaskState`).
#[derive(Default)]
pub struct CpuMasking {
    /// Elements written since the open query began.
    query: Cell<u64>,
}

/// A kernel call's run: on its arguments, the mask's test (`Some`: which elements may run)
/// and, in set mode, where to mark the elements that wrote.
pub type MaskedRun<'r> = dyn FnMut(&mut [CpuArg], Option<&[bool]>, Option<&mut [bool]>) -> Result<KernelRun, CpuError>
    + 'r;

impl CpuMasking {
    pub fn begin_query(&self) {
        self.query.set(0);
    }

    pub fn end_query(&self) -> u64 {
        self.query.take()
    }

    /// Runs a kernel call (`run`, on `args`) under `write_mask` as `mask` says and counts it
    /// into the open query. The outputs are whole streams, or with `domain` (the whole output
    /// streams' shape and the domain) copies of that region: the mask has the whole streams'
    /// shape (the runtime checked it), and region element `i` uses the mask element at its
    /// place in the whole stream. `run` skips the elements the test leaves off (they keep
    /// their values), marks those that wrote, and says how many did.
    pub fn run(
        &self,
        mask: MaskUse,
        write_mask: Option<&CpuMask>,
        args: &mut [CpuArg],
        domain: Option<(&[usize], &Domain)>,
        run: &mut MaskedRun,
    ) -> Result<(), BrookError> {
        let Some(write_mask) = write_mask.filter(|_| mask.masked || mask.sets) else {
            let done = run(args, None, None)?;
            self.count(mask, &done);
            return Ok(());
        };
        let places: Option<Vec<usize>> =
            domain.map(|(whole, d)| d.linear_positions(whole).collect());
        // One copy of the mask (of its region, with a domain), so `run` and the marking
        // below need no borrow of it.
        let region_open: Vec<bool> = {
            let open = write_mask.open.borrow();
            match &places {
                Some(places) => places.iter().map(|&l| open[l]).collect(),
                None => open.clone(),
            }
        };
        let test = mask.masked.then_some(region_open.as_slice());
        let mut wrote = mask.sets.then(|| vec![false; region_open.len()]);
        let done = run(args, test, wrote.as_deref_mut())?;
        self.count(mask, &done);
        if let Some(wrote) = wrote {
            let mut open = write_mask.open.borrow_mut();
            for (i, _) in wrote.iter().enumerate().filter(|(_, w)| **w) {
                open[places.as_ref().map_or(i, |p| p[i])] = false;
            }
        }
        Ok(())
    }

    fn count(&self, mask: MaskUse, done: &KernelRun) {
        if mask.counting {
            self.query.set(self.query.get() + done.written as u64);
        }
    }
}
