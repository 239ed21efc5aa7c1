//! The `MAP_READ` staging buffers that reads back copy through, kept between reads.
//!
//! A staging buffer made for each read costs its allocation and, on a CPU driver
//! (lavapipe) or any buffer in host memory, a page fault for every page the copy first
//! touches: on a 16 MB streamWrite that was as much as the copy itself. So a read back takes a
//! kept buffer large enough for it and gives it back when unmapped. The pool is bounded
//! ([`KEPT_BYTES`]), so one huge read does not pin its staging memory for the device's life,
//! and the buffers are freed with the pool (the [`Gpu`](crate::gpu::Gpu)).

use std::cell::RefCell;

/// The most bytes of staging buffers kept between reads: room for the largest stream a
/// report's application reads back (Segment's 2048² `float2`, 32 MB) and the small reads
/// (reductions' values, status words) beside it.
pub const KEPT_BYTES: u64 = 64 << 20;

/// Staging buffers not in use, most recently given back last.
pub(crate) struct StagingPool {
    kept: RefCell<Vec<wgpu::Buffer>>,
    /// The most bytes kept.
    limit: u64,
}

impl Default for StagingPool {
    fn default() -> Self {
        StagingPool::keeping(KEPT_BYTES)
    }
}

impl StagingPool {
    /// A pool keeping at most `limit` bytes of buffers.
    fn keeping(limit: u64) -> Self {
        StagingPool {
            kept: RefCell::default(),
            limit,
        }
    }

    /// A staging buffer of at least `size` bytes (a multiple of `COPY_BUFFER_ALIGNMENT`): the
    /// smallest kept one that is large enough, else a new one of `size`.
    pub fn take(&self, gpu: &crate::gpu::Gpu, size: u64) -> wgpu::Buffer {
        let mut kept = self.kept.borrow_mut();
        let fitting = (kept.iter().enumerate())
            .filter(|(_, b)| b.size() >= size)
            .min_by_key(|(_, b)| b.size())
            .map(|(i, _)| i);
        match fitting {
            Some(i) => kept.remove(i),
            None => gpu.create_buffer(&wgpu::BufferDescriptor {
                label: Some("brook read-back"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    /// Keeps `buffer` (unmapped) for the next read, dropping the oldest kept buffers while
    /// the pool would hold more than its limit; a buffer larger than that is dropped.
    pub fn give(&self, buffer: wgpu::Buffer) {
        if buffer.size() > self.limit {
            return;
        }
        let mut kept = self.kept.borrow_mut();
        kept.push(buffer);
        while kept.iter().map(wgpu::Buffer::size).sum::<u64>() > self.limit {
            kept.remove(0);
        }
    }

    /// The bytes of staging memory kept now.
    pub fn kept_bytes(&self) -> u64 {
        self.kept.borrow().iter().map(wgpu::Buffer::size).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::Gpu;

    #[test]
    fn a_kept_buffer_serves_the_next_read_and_the_pool_stays_bounded() {
        let gpu = Gpu::headless().expect("a wgpu adapter");
        let take = |pool: &StagingPool, size| pool.take(&gpu, size);
        let pool = StagingPool::keeping(4096);
        let a = take(&pool, 1024);
        assert_eq!(a.size(), 1024);
        pool.give(a.clone());
        // The kept buffer serves a smaller read.
        assert_eq!(take(&pool, 512), a);
        assert_eq!(pool.kept_bytes(), 0);
        pool.give(a.clone());
        // The smallest fitting buffer is taken; the others stay.
        let b = take(&pool, 2048);
        assert_ne!(b, a);
        pool.give(b.clone());
        assert_eq!(take(&pool, 1500), b);
        assert_eq!(pool.kept_bytes(), 1024);
        pool.give(b);
        // Over the limit, the oldest go first; a buffer above the limit is not kept.
        let c = take(&pool, 3000);
        pool.give(c.clone());
        assert_eq!(pool.kept_bytes(), 3000);
        assert_eq!(take(&pool, 1), c);
        pool.give(c);
        pool.give(take(&pool, 8192));
        assert_eq!(pool.kept_bytes(), 3000);
    }
}
