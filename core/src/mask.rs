//! Brook's write mask and write query as a state machine: which calls are allowed in which
//! state, and how the state applies to a kernel call ([`MaskUse`]). The runtime keeps one
//! per backend, so the rules and their messages are the same everywhere; a backend keeps only
//! the mask's contents and the query's counters.

use brook_ir::{Function, ParamClass};

use crate::backend::MaskUse;
use crate::error::{fmt_shape, BrookError};

/// The mask last set (by its shape), whether it is enabled, and whether a query is open.
#[derive(Debug, Default, Clone)]
pub struct WriteMaskState {
    mask_shape: Option<Vec<usize>>,
    enabled: bool,
    query_open: bool,
}

fn state(call: &str, message: &str) -> BrookError {
    BrookError::State {
        call: call.into(),
        message: message.into(),
    }
}

impl WriteMaskState {
    /// `streamSetWriteMask` of a mask of `shape` (the backend has taken its contents).
    pub fn set(&mut self, shape: &[usize]) {
        self.mask_shape = Some(shape.to_vec());
    }

    /// `streamEnableWriteMask` (`true`) or `streamDisableWriteMask`.
    pub fn enable(&mut self, on: bool) -> Result<(), BrookError> {
        if on && self.mask_shape.is_none() {
            return Err(state(
                "streamEnableWriteMask",
                "no write mask was set (streamSetWriteMask) before enabling it",
            ));
        }
        self.enabled = on;
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
    /// `outputs` (the whole streams' shape, also when the call writes a domain of them).
    pub fn for_kernel(
        &self,
        func: &Function,
        outputs: Option<&[usize]>,
    ) -> Result<MaskUse, BrookError> {
        let use_ = MaskUse {
            masked: self.enabled,
            counting: self.query_open,
        };
        if use_ == MaskUse::default() {
            return Ok(use_);
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
        if let (true, Some(mask), Some(outputs)) = (self.enabled, &self.mask_shape, outputs) {
            if mask != outputs {
                return Err(BrookError::ShapeMismatch {
                    call,
                    message: format!(
                        "the write mask has shape {} but the outputs have shape {}",
                        fmt_shape(mask),
                        fmt_shape(outputs)
                    ),
                });
            }
        }
        Ok(use_)
    }
}
