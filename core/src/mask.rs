//! Brook's write mask and write query as a state machine: which calls are allowed in which
//! state, and how the state applies to a kernel call ([`MaskUse`]). The runtime keeps one
//! per backend, so the rules and their messages are the same everywhere; a backend keeps only
//! the masks' contents and the query's counters.
//!
//! A write mask is one flag per element, *open* or *set* (the original's depth buffer: set
//! is a depth a kernel's fragment fails the test against). One mask is *bound* at a time:
//! the original's C++ `write_mask` by `bind`, or the runtime's own mask that
//! `streamSetWriteMask` loads from a stream. Two switches apply it to kernel calls: the
//! *test* (`streamEnableWriteMask`, `enableTest`): a call writes only open elements; the
//! *set* mode (`enableSet`): the elements a call writes become set. Both together let each
//! element be written once, by the first call that does not discard it.

use std::any::Any;
use std::rc::Rc;

use brook_ir::{Function, ParamClass};

use crate::backend::MaskUse;
use crate::error::{fmt_shape, BrookError};

/// The bound mask (the backend's, and its shape), the test and set switches, and whether a
/// query is open.
#[derive(Default, Clone)]
pub struct WriteMaskState {
    bound: Option<(Rc<dyn Any>, Vec<usize>)>,
    test: bool,
    set: bool,
    query_open: bool,
}

fn state(call: &str, message: &str) -> BrookError {
    BrookError::State {
        call: call.into(),
        message: message.into(),
    }
}

impl WriteMaskState {
    /// Binds `mask` (a backend's, of `shape`): later kernel calls test and set it.
    pub fn bind(&mut self, mask: Rc<dyn Any>, shape: &[usize]) {
        self.bound = Some((mask, shape.to_vec()));
    }

    /// Unbinds the mask (`write_mask::unbind`); a kernel call while the test or set mode is
    /// on is then refused.
    pub fn unbind(&mut self) {
        self.bound = None;
    }

    /// The mask's test on (`true`: `streamEnableWriteMask`, `enableTest`) or off.
    pub fn enable(&mut self, on: bool) -> Result<(), BrookError> {
        self.switch(on, "streamEnableWriteMask")?;
        self.test = on;
        Ok(())
    }

    /// The mask's set mode on (`enableSet`) or off (`disableSet`).
    pub fn enable_set(&mut self, on: bool) -> Result<(), BrookError> {
        self.switch(on, "write_mask::enableSet")?;
        self.set = on;
        Ok(())
    }

    fn switch(&self, on: bool, call: &str) -> Result<(), BrookError> {
        if on && self.bound.is_none() {
            return Err(state(
                call,
                "no write mask is bound (streamSetWriteMask, or a write_mask's bind) to enable",
            ));
        }
        Ok(())
    }

    /// Checks that `streamBeginWriteQuery` may start one; [`WriteMaskState::query_begun`]
    /// records it once the backend has.
    pub fn check_begin_query(&self) -> Result<(), BrookError> {
        if self.query_open {
            return Err(state(
                "streamBeginWriteQuery",
                "a write query is already open; end it first",
            ));
        }
        Ok(())
    }

    /// Records the query open, once the backend has begun it.
    pub fn query_begun(&mut self) {
        self.query_open = true;
    }

    /// `streamEndWriteQuery`: closes the open query.
    pub fn end_query(&mut self) -> Result<(), BrookError> {
        if !self.query_open {
            return Err(state(
                "streamEndWriteQuery",
                "no write query is open (streamBeginWriteQuery)",
            ));
        }
        self.query_open = false;
        Ok(())
    }

    /// How the mask and query apply to a call of `func` whose outputs are streams of
    /// `outputs` (the whole streams' shape, also when the call writes a domain of them), and
    /// the mask it tests or sets.
    pub fn for_kernel(
        &self,
        func: &Function,
        outputs: Option<&[usize]>,
    ) -> Result<(MaskUse, Option<Rc<dyn Any>>), BrookError> {
        let use_ = MaskUse {
            masked: self.test,
            sets: self.set,
            counting: self.query_open,
        };
        if use_ == MaskUse::default() {
            return Ok((use_, None));
        }
        let call = format!("kernel `{}`", func.name);
        if func
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Vout { .. }))
        {
            return Err(BrookError::Unsupported {
                call,
                message: "write masks and write queries do not apply to kernels with vout parameters; disable the mask (end the query) first".into(),
            });
        }
        if !(use_.masked || use_.sets) {
            return Ok((use_, None));
        }
        let Some((mask, shape)) = &self.bound else {
            return Err(state(
                &call,
                "the write mask's test or set mode is on but no mask is bound; bind one or disable them",
            ));
        };
        let Some(outputs) = outputs else {
            return Err(BrookError::Unsupported {
                call,
                message: "a write mask applies to a kernel's `out` streams, and this one has none; disable the mask first".into(),
            });
        };
        if shape != outputs {
            return Err(BrookError::ShapeMismatch {
                call,
                message: format!(
                    "the write mask has shape {} but the outputs have shape {}",
                    fmt_shape(shape),
                    fmt_shape(outputs)
                ),
            });
        }
        Ok((use_, Some(mask.clone())))
    }
}
