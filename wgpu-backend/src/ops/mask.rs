//! Write masks and write queries.
//!
//! A write mask is a buffer of floats, `fpe` per element, open where an element's first
//! float is non-zero: `write_mask::clear` fills it with 1.0 (the runtime clears a mask the
//! program creates; its own mask is loaded at once), and
//! `streamSetWriteMask` replaces it with a copy of the mask stream (its contents at that
//! moment, as on the CPU). Under the mask's test a kernel's invocation stores its outputs
//! only where its element is open (the whole output stream's element, for a domain); in set
//! mode an invocation that stores its outputs (neither discarded nor failing the test) stores
//! 0.0 into its element's first float, so it is set. A write query is an atomic counter
//! every invocation that stores its outputs increments; ending the query reads it back.

use std::cell::{Cell, RefCell};

use brook_ir::{Function, ParamClass};

use super::KernelArg;
use crate::backend::WgpuBackend;
use crate::binds::{BufferKey, KeyedBuffer};
use crate::error::{Result, WgpuError};
use crate::pipeline::scratch;
use crate::stream::WgpuStream;
use crate::trace::{CallTrace, Step};

/// A write mask's buffer and its floats per element.
pub struct WgpuMask {
    buffer: RefCell<KeyedBuffer>,
    fpe: Cell<u32>,
}

/// The mask and switches of the kernel call about to run (the seam sets them from brook-core's
/// `MaskUse`), and the open query.
#[derive(Default)]
pub struct MaskState {
    /// The bound mask's buffer, key and floats per element, while the call tests or sets it.
    pub(crate) call_mask: Option<(wgpu::Buffer, BufferKey, u32)>,
    pub(crate) test: bool,
    pub(crate) sets: bool,
    /// The open query's counter.
    query: Option<KeyedBuffer>,
}

/// How the mask and query apply to one kernel call: the buffers to bind, with their keys.
pub struct CallMasking {
    pub mask: Option<(wgpu::Buffer, BufferKey)>,
    pub mask_fpe: u32,
    pub test: bool,
    pub sets: bool,
    pub counting: bool,
    pub counter: Option<(wgpu::Buffer, BufferKey)>,
}

#[doc(hidden)]
impl WgpuBackend {
    /// `write_mask::create`: a mask of `elements` elements, undefined until cleared or loaded.
    pub fn create_write_mask(&self, elements: usize) -> Result<WgpuMask> {
        let gpu = &self.gpu;
        let buffer = gpu.scoped("write_mask::create", || {
            let b = scratch(gpu, "brook write mask", (elements.max(1) * 4) as u64);
            Ok(KeyedBuffer::new(b, &gpu.binds))
        })?;
        Ok(WgpuMask {
            buffer: RefCell::new(buffer),
            fpe: Cell::new(1),
        })
    }

    /// `write_mask::clear`: every element open (every float 1.0).
    pub fn clear_write_mask(&self, mask: &WgpuMask) -> Result<()> {
        let buffer = mask.buffer.borrow();
        let ones: Vec<u8> = (0..buffer.buffer().size() / 4)
            .flat_map(|_| 1.0f32.to_le_bytes())
            .collect();
        self.gpu.write_buffer(buffer.buffer(), 0, &ones);
        Ok(())
    }

    /// `streamSetWriteMask(from)` into `mask`.
    pub fn load_write_mask(&self, mask: &WgpuMask, from: &WgpuStream) -> Result<()> {
        self.own("streamSetWriteMask", &[from])?;
        let src = from
            .buffer()
            .ok_or_else(|| WgpuError::precondition("streamSetWriteMask", "an iterator mask"))?
            .clone();
        let gpu = &self.gpu;
        let fresh = gpu.scoped("streamSetWriteMask", || {
            // A mask of the size it had keeps its buffer and key, so the next masked call
            // finds its kept bind group; only a mask of another size gets a new buffer.
            let current = mask.buffer.borrow();
            let fresh = (current.buffer().size() != src.size()).then(|| {
                let b = scratch(gpu, "brook write mask", src.size());
                KeyedBuffer::new(b, &gpu.binds)
            });
            let dst = fresh.as_ref().unwrap_or(&*current).buffer();
            let mut enc = gpu.encoder("brook write mask");
            enc.copy_buffer_to_buffer(&src, 0, dst, 0, src.size());
            gpu.submit(Some(enc.finish()));
            Ok(fresh)
        })?;
        self.record(CallTrace {
            op: "streamSetWriteMask".into(),
            compiled: None,
            steps: vec![Step::Copy {
                what: "the mask stream to the mask".into(),
                bytes: src.size(),
            }],
        });
        if let Some(fresh) = fresh {
            *mask.buffer.borrow_mut() = fresh;
        }
        mask.fpe.set(from.floats_per_element() as u32);
        Ok(())
    }

    /// The kernel call about to run tests (`test`) or sets (`sets`) `mask`, or none.
    pub fn use_write_mask(&self, mask: Option<&WgpuMask>, test: bool, sets: bool) {
        let mut m = self.mask.borrow_mut();
        m.call_mask = mask.map(|mask| {
            let b = mask.buffer.borrow();
            (b.buffer().clone(), b.key(), mask.fpe.get())
        });
        m.test = test;
        m.sets = sets;
    }

    /// `streamBeginWriteQuery`.
    pub fn begin_write_query(&self) -> Result<()> {
        let mut m = self.mask.borrow_mut();
        if m.query.is_some() {
            return Err(WgpuError::precondition(
                "streamBeginWriteQuery",
                "a write query is already open",
            ));
        }
        let gpu = &self.gpu;
        let counter = gpu.scoped("streamBeginWriteQuery", || {
            let c = scratch(gpu, "brook write query", 4);
            gpu.write_buffer(&c, 0, &[0; 4]);
            Ok(KeyedBuffer::new(c, &gpu.binds))
        })?;
        m.query = Some(counter);
        Ok(())
    }

    /// `streamEndWriteQuery`: the elements written since the query began.
    pub fn end_write_query(&self) -> Result<u64> {
        let counter = self.mask.borrow_mut().query.take().ok_or_else(|| {
            WgpuError::precondition("streamEndWriteQuery", "no write query is open")
        })?;
        let bytes = self.gpu.read_back(counter.buffer(), 0..4)?;
        Ok(u64::from(u32::from_le_bytes([
            bytes[0], bytes[1], bytes[2], bytes[3],
        ])))
    }

    /// The mask and query of a kernel call with `args` (brook-core checked the mask's shape
    /// against the outputs').
    pub(crate) fn masking_for_call(
        &self,
        kernel: &str,
        has_vouts: bool,
        args: &[KernelArg],
        func: &Function,
    ) -> Result<CallMasking> {
        let m = self.mask.borrow();
        let mask = m.call_mask.as_ref().filter(|_| m.test || m.sets);
        let active = mask.is_some() || m.query.is_some();
        if active && has_vouts {
            return Err(WgpuError::precondition(
                format_args!("kernel `{kernel}`"),
                "a write mask or query on a kernel with vouts",
            ));
        }
        let has_outs = func
            .params
            .iter()
            .zip(args)
            .any(|(p, _)| p.class == ParamClass::Out);
        let mask = mask.filter(|_| has_outs);
        Ok(CallMasking {
            mask_fpe: mask.map_or(0, |(_, _, f)| *f),
            test: mask.is_some() && m.test,
            sets: mask.is_some() && m.sets,
            mask: mask.map(|(b, k, _)| (b.clone(), *k)),
            counting: m.query.is_some() && has_outs,
            counter: m.query.as_ref().map(|c| (c.buffer().clone(), c.key())),
        })
    }
}
