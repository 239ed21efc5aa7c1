//! Write masks and write queries.
//!
//! `streamSetWriteMask` copies the mask stream (its contents at that moment, as on the
//! CPU); while the mask is enabled, a kernel's invocation stores its outputs only where the
//! mask element's first float is non-zero (the whole output stream's element, for a domain).
//! A write query is an atomic counter every invocation that stores its outputs increments
//! (neither discarded nor masked off); ending the query reads it back.

use brook_ir::{Function, ParamClass};

use super::KernelArg;
use crate::backend::WgpuBackend;
use crate::binds::{BufferKey, KeyedBuffer};
use crate::error::{Result, WgpuError};
use crate::pipeline::scratch;
use crate::stream::WgpuStream;
use crate::trace::{CallTrace, Step};

#[derive(Default)]
pub struct MaskState {
    /// The mask's copy, its shape and floats per element.
    mask: Option<(KeyedBuffer, Vec<usize>, u32)>,
    pub(crate) enabled: bool,
    /// The open query's counter.
    query: Option<KeyedBuffer>,
}

/// How the mask and query apply to one kernel call: the buffers to bind, with their keys.
pub struct CallMasking {
    pub mask: Option<(wgpu::Buffer, BufferKey)>,
    pub mask_fpe: u32,
    pub counting: bool,
    pub counter: Option<(wgpu::Buffer, BufferKey)>,
}

#[doc(hidden)]
impl WgpuBackend {
    /// `streamSetWriteMask(mask)`.
    pub fn set_write_mask(&self, mask: &WgpuStream) -> Result<()> {
        self.own("streamSetWriteMask", &[mask])?;
        let src = mask
            .buffer()
            .ok_or_else(|| WgpuError::precondition("streamSetWriteMask", "an iterator mask"))?
            .clone();
        let gpu = &self.gpu;
        let copy = gpu.scoped("streamSetWriteMask", || {
            let copy = scratch(gpu, "brook write mask", src.size());
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&src, 0, &copy, 0, src.size());
            gpu.queue.submit([enc.finish()]);
            Ok(KeyedBuffer::new(copy, &gpu.binds))
        })?;
        self.record(CallTrace {
            op: "streamSetWriteMask".into(),
            compiled: None,
            steps: vec![Step::Copy {
                what: "the mask stream to the mask".into(),
                bytes: src.size(),
            }],
        });
        self.mask.borrow_mut().mask = Some((
            copy,
            mask.shape().to_vec(),
            mask.floats_per_element() as u32,
        ));
        Ok(())
    }

    /// `streamEnableWriteMask` (`true`) / `streamDisableWriteMask`.
    pub fn enable_write_mask(&self, on: bool) -> Result<()> {
        let mut m = self.mask.borrow_mut();
        if on && m.mask.is_none() {
            return Err(WgpuError::precondition(
                "streamEnableWriteMask",
                "no write mask was set",
            ));
        }
        m.enabled = on;
        Ok(())
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
            gpu.queue.write_buffer(&c, 0, &[0; 4]);
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

    /// The mask and query of a kernel call with `args` whose outputs have call shape `shape`.
    pub(crate) fn masking_for_call(
        &self,
        kernel: &str,
        has_vouts: bool,
        args: &[KernelArg],
        func: &Function,
        _shape: &[usize],
    ) -> Result<CallMasking> {
        let m = self.mask.borrow();
        let active = m.enabled || m.query.is_some();
        if active && has_vouts {
            return Err(WgpuError::precondition(
                format_args!("kernel `{kernel}`"),
                "a write mask or query on a kernel with vouts",
            ));
        }
        let whole = func
            .params
            .iter()
            .zip(args)
            .find(|(p, _)| p.class == ParamClass::Out)
            .map(|(_, a)| a.stream().shape().to_vec());
        let mask = match (&m.mask, m.enabled, &whole) {
            (Some((buf, mshape, fpe)), true, Some(whole)) => {
                if mshape != whole {
                    return Err(WgpuError::precondition(
                        format_args!("kernel `{kernel}`"),
                        "a write mask of another shape than the outputs",
                    ));
                }
                Some((buf, *fpe))
            }
            _ => None,
        };
        Ok(CallMasking {
            mask_fpe: mask.as_ref().map_or(0, |(_, f)| *f),
            mask: mask.map(|(b, _)| (b.buffer().clone(), b.key())),
            counting: m.query.is_some() && whole.is_some(),
            counter: m.query.as_ref().map(|c| (c.buffer().clone(), c.key())),
        })
    }
}
