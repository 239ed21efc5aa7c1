//! Scratch buffers kept between calls, by what they are for: a reduction's partial sums per
//! pass and size, a kernel's loop status, a replacing scatter's winners. A hand-written wgpu
//! loop makes such buffers once; made per call, each costs a buffer (memory on a GPU) and,
//! since a fresh buffer has no key, a bind group of its own. Kept, they are keyed ([`KeyedBuffer`]), so the bind groups
//! that bind them are kept too (`binds.rs`).
//!
//! Reusing one is safe: all work goes to one queue in order, and each use is a whole
//! submission's (a reduction's passes; a kernel call that reads its loop status back before
//! returning; a scatter, which clears its winners in the submission that uses them).

use std::cell::RefCell;

use crate::binds::{BufferKey, KeyedBuffer};
use crate::gpu::Gpu;
use crate::pipeline::scratch;

/// The most buffers kept (the oldest dropped first): more than the passes of the few
/// reductions a program repeats.
const KEPT: usize = 32;

/// What a kept buffer is for: its use, the number it has in that use (a pass), its bytes.
type Purpose = (&'static str, usize, u64);

/// Scratch buffers by use and size.
#[derive(Default)]
pub struct KeptScratch {
    kept: RefCell<Vec<(Purpose, KeyedBuffer)>>,
}

impl KeptScratch {
    /// The kept buffer for `use_` number `slot` (a pass) of `bytes` bytes, made the first
    /// time, with its key.
    pub fn get(
        &self,
        gpu: &Gpu,
        use_: &'static str,
        slot: usize,
        bytes: u64,
    ) -> (wgpu::Buffer, BufferKey) {
        let id = (use_, slot, bytes);
        let mut kept = self.kept.borrow_mut();
        if let Some((_, b)) = kept.iter().find(|(k, _)| *k == id) {
            return (b.buffer().clone(), b.key());
        }
        if kept.len() >= KEPT {
            // Dropping its keyed buffer forgets the bind groups that bind it.
            kept.remove(0);
        }
        let b = KeyedBuffer::new(scratch(gpu, use_, bytes), &gpu.binds);
        let found = (b.buffer().clone(), b.key());
        kept.push((id, b));
        found
    }
}
