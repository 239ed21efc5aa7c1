//! The original's C++ `write_mask`: a mask object the program binds, clears, and lets kernel
//! calls test (write only open elements) and set (mark the elements they write). The rules
//! (which call is allowed when, shapes) are brook-core's `WriteMaskState`; each backend keeps
//! a mask's contents (GL a depth texture, wgpu a buffer, the CPU a flag per element).

use std::any::Any;
use std::fmt::Display;
use std::rc::Rc;

use brook_core::{Backend, BrookError};

use crate::gate::Gate;
use crate::runtime::Runtime;

/// A write mask of one shape, one flag per element, open or set (`Runtime::create_write_mask`).
/// Clones share the mask, as copies of the original's `write_mask` did.
#[derive(Clone)]
pub struct WriteMask {
    gate: Rc<Gate>,
    storage: Rc<dyn Any>,
    shape: Vec<usize>,
}

impl WriteMask {
    /// Its extents, outermost first: those of the output streams it masks.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
}

impl Runtime {
    /// The original's `write_mask::create(h, w)`: a mask of `shape`, every element open.
    pub fn create_write_mask(&self, shape: &[usize]) -> Result<WriteMask, BrookError> {
        let storage = self.gate.made_write_mask(shape)?;
        Ok(self.mask_of(storage, shape))
    }

    fn mask_of(&self, storage: brook_core::BackendMask, shape: &[usize]) -> WriteMask {
        WriteMask {
            gate: self.gate.clone(),
            storage: Rc::from(storage),
            shape: shape.to_vec(),
        }
    }

    /// `write_mask::bind`: later kernel calls test and set `mask` (while the test, or the
    /// set mode, is on). It replaces the mask bound before, also the one
    /// [`Runtime::set_write_mask`] loads.
    pub fn bind_write_mask(&self, mask: &WriteMask) -> Result<(), BrookError> {
        let mask = self.own_mask_handle(mask, &"write_mask::bind")?;
        self.masks
            .borrow_mut()
            .bind(mask.storage.clone(), &mask.shape);
        Ok(())
    }

    /// `write_mask::unbind`: no mask is bound; a kernel call while the test or set mode is
    /// on is then refused.
    pub fn unbind_write_mask(&self) {
        self.masks.borrow_mut().unbind();
    }

    /// `write_mask::clear`: opens every element of `mask`.
    pub fn clear_write_mask(&self, mask: &WriteMask) -> Result<(), BrookError> {
        let mask = self.own_mask_handle(mask, &"write_mask::clear")?;
        self.gate.clear_write_mask(mask.storage.as_ref())
    }

    /// `write_mask::enableSet`: from now on each element a kernel call writes (neither
    /// discarded nor failing the mask's test) becomes set in the bound mask, at its place in
    /// the whole output stream. With the test on too, each element is written once, by the
    /// first call that does not discard it.
    pub fn enable_write_mask_set(&self) -> Result<(), BrookError> {
        self.masks.borrow_mut().enable_set(true)
    }

    /// `write_mask::disableSet`: kernel calls leave the mask as it is.
    pub fn disable_write_mask_set(&self) -> Result<(), BrookError> {
        self.masks.borrow_mut().enable_set(false)
    }

    /// `mask`, checked to be a mask of this runtime.
    fn own_mask_handle<'a>(
        &self,
        mask: &'a WriteMask,
        call: &dyn Display,
    ) -> Result<&'a WriteMask, BrookError> {
        self.check_owner(&mask.gate, call, " (a write mask made by another runtime)")?;
        Ok(mask)
    }

    /// The runtime's own mask of `shape`, which [`Runtime::set_write_mask`] loads: the one
    /// made before when it has that shape.
    pub(crate) fn own_write_mask(&self, shape: &[usize]) -> Result<WriteMask, BrookError> {
        let mut own = self.own_mask.borrow_mut();
        match &*own {
            Some(m) if m.shape == shape => Ok(m.clone()),
            _ => {
                let made = self.mask_of(self.gate.create_write_mask(shape)?, shape);
                *own = Some(made.clone());
                Ok(made)
            }
        }
    }

    /// Loads `mask` from the stream argument `from` and binds it (`streamSetWriteMask`).
    pub(crate) fn load_and_bind(
        &self,
        mask: &WriteMask,
        from: &brook_core::StreamArg,
    ) -> Result<(), BrookError> {
        self.gate.load_write_mask(mask.storage.as_ref(), from)?;
        self.bind_write_mask(mask)
    }
}
