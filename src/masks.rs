//! Write masks, write queries and `streamSwap`: the runtime's side. Which calls are allowed
//! when is brook-core's `WriteMaskState`, kept here for every backend alike.

use std::fmt::Display;

use brook_core::{Backend, BrookError};

use crate::runtime::Runtime;
use crate::stream::Stream;

impl Runtime {
    /// Brook's `streamSetWriteMask`: the write mask of later kernel calls while it is enabled
    /// (see [`Runtime::enable_write_mask`]). Its current contents are taken now (on GL, drawn
    /// into a depth buffer) into the runtime's own write mask, which is bound: set it again
    /// after changing the stream. An element is on (open) where the mask's first float is
    /// non-zero.
    pub fn set_write_mask(&self, mask: &Stream) -> Result<(), BrookError> {
        let call: &dyn Display = &"streamSetWriteMask";
        let mask = self.own(mask, call)?;
        if mask.is_iter() {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: "mask".into(),
                message:
                    "an iterator cannot be a write mask; copy it into a stream with a kernel first"
                        .into(),
            });
        }
        let own = self.own_write_mask(mask.shape())?;
        self.load_and_bind(&own, &mask.arg(None))
    }

    /// Brook's `streamEnableWriteMask` (the original's `write_mask::enableTest`): from now on
    /// a kernel call writes only the output elements whose element of the bound mask is on
    /// (open); the others keep their values (as if discarded).
    /// The output streams must have the mask's shape; a call that writes a domain of them
    /// writes only the elements inside it whose mask element (at their place in the whole
    /// stream) is on. On GL this is the depth test (000 §7.4.2): masked-off elements are not
    /// shaded where the hardware has early-z. Kernels with vout parameters are refused.
    pub fn enable_write_mask(&self) -> Result<(), BrookError> {
        self.masks.borrow_mut().enable(true)
    }

    /// Brook's `streamDisableWriteMask` (`write_mask::disableTest`): kernel calls write every
    /// element again.
    pub fn disable_write_mask(&self) -> Result<(), BrookError> {
        self.masks.borrow_mut().enable(false)
    }

    /// Brook's `streamBeginWriteQuery`: starts counting the elements kernel calls write (on
    /// GL an occlusion query, `GL_SAMPLES_PASSED`; refused on ES 3.0, which lacks it).
    pub fn begin_write_query(&self) -> Result<(), BrookError> {
        self.masks.borrow().check_begin_query()?;
        self.gate.begin_write_query()?;
        self.masks.borrow_mut().query_begun();
        Ok(())
    }

    /// Brook's `streamEndWriteQuery`: the elements written (neither discarded nor masked
    /// off) by the kernel calls since [`Runtime::begin_write_query`]; a split call counts once.
    pub fn end_write_query(&self) -> Result<u64, BrookError> {
        self.masks.borrow_mut().end_query()?;
        self.gate.end_write_query()
    }

    /// Brook's `streamSwap`: exchanges the contents of two streams of the same shape and
    /// element format by swapping their storage (no copy). For ping-pong iterations.
    pub fn swap(&self, a: &Stream, b: &Stream) -> Result<(), BrookError> {
        let call: &dyn Display = &"streamSwap";
        for s in [a, b] {
            self.own(s, call)?;
            if s.is_iter() {
                return Err(BrookError::ArgumentType {
                    call: call.to_string(),
                    param: String::new(),
                    message: "an iterator stream is computed, it has no storage to swap".into(),
                });
            }
        }
        if a.shape() != b.shape() || a.format() != b.format() {
            return Err(BrookError::ShapeMismatch {
                call: call.to_string(),
                message: format!(
                    "streamSwap needs two streams of one shape and element format, got {:?} of {:?} and {:?} of {:?}",
                    a.shape(), a.format(), b.shape(), b.format()
                ),
            });
        }
        let (a, b) = (a.arg(None), b.arg(None));
        if a.same_storage(&b) {
            return Ok(());
        }
        self.gate.swap(&a, &b)
    }
}
