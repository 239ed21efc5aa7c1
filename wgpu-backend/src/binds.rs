//! Bind groups kept for reuse, keyed by the exact buffers they bind.
//!
//! Creating a bind group is a large part of a small kernel call's host time (a descriptor set
//! on Vulkan), and a program that calls the same kernel on the same streams, or ping-pongs
//! two streams with `streamSwap`, binds the same few buffer sets again and again. A
//! hand-written wgpu loop makes those bind groups once; the kernel path does the same here.
//!
//! A bind group is keyed by its pipeline's number and a [`BufferKey`] per bound buffer. A key
//! names one buffer for the life of the process (it is never reused), so a cached group can
//! only be found for the very buffers it binds: a stream dropped and created again gets new
//! keys, and `streamSwap` moves each key with its buffer, so the swapped streams find the
//! group of their new buffers. A bind group keeps its buffers alive in wgpu; so that a kept
//! group never holds a buffer longer than the stream does, dropping a [`KeyedBuffer`] forgets
//! every group that binds it, and dropping a pipeline forgets all of its groups.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A number that names one buffer, never given to another.
pub type BufferKey = u64;

/// The kept bind groups of one device: per pipeline number, per bound buffers' keys.
///
/// Shared (through the `Gpu`) with every keyed buffer and pipeline, which forget their groups
/// when dropped; a mutex rather than a `RefCell` so that streams stay `Send`.
#[derive(Debug, Default)]
pub struct BindGroups {
    kept: Mutex<HashMap<u32, PipelineGroups>>,
}

/// One pipeline's kept bind groups, by the keys of the buffers they bind.
type PipelineGroups = HashMap<Box<[BufferKey]>, wgpu::BindGroup>;

impl BindGroups {
    fn lock(&self) -> MutexGuard<'_, HashMap<u32, PipelineGroups>> {
        // A panic while the map was held leaves it consistent (each change is one insert or
        // removal), so a poisoned lock is still usable.
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bind group of pipeline `pipeline` over the buffers of `keys` (in binding order),
    /// made by `make` the first time and kept.
    pub fn get_or_make(
        &self,
        pipeline: u32,
        keys: &[BufferKey],
        make: impl FnOnce() -> wgpu::BindGroup,
    ) -> wgpu::BindGroup {
        let mut kept = self.lock();
        let groups = kept.entry(pipeline).or_default();
        if let Some(g) = groups.get(keys) {
            return g.clone();
        }
        let g = make();
        groups.insert(keys.into(), g.clone());
        g
    }

    /// Forgets every group that binds the buffer of `key` (it is being dropped).
    pub fn forget_buffer(&self, key: BufferKey) {
        for groups in self.lock().values_mut() {
            groups.retain(|keys, _| !keys.contains(&key));
        }
    }

    /// Forgets every group of `pipeline` (dropped, or one of its calls failed, so a group
    /// wgpu refused is not reused).
    pub fn forget_pipeline(&self, pipeline: u32) {
        self.lock().remove(&pipeline);
    }

    /// How many bind groups are kept, over all pipelines.
    pub fn len(&self) -> usize {
        self.lock().values().map(HashMap::len).sum()
    }
}

/// A buffer with a key of its own, whose kept bind groups are forgotten when it is dropped:
/// a stream's storage, the write mask's copy, a write query's counter.
#[derive(Debug)]
pub struct KeyedBuffer {
    buffer: wgpu::Buffer,
    key: BufferKey,
    binds: Arc<BindGroups>,
}

impl KeyedBuffer {
    pub fn new(buffer: wgpu::Buffer, binds: &Arc<BindGroups>) -> KeyedBuffer {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        KeyedBuffer {
            buffer,
            key: NEXT.fetch_add(1, Ordering::Relaxed),
            binds: binds.clone(),
        }
    }

    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    pub fn key(&self) -> BufferKey {
        self.key
    }
}

impl Drop for KeyedBuffer {
    fn drop(&mut self) {
        self.binds.forget_buffer(self.key);
    }
}
