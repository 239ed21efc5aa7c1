//! Packing `vout` values after the kernel's dispatch: each element left up to N candidates
//! and a count; an exclusive scan of the counts gives each element's offset, and one
//! dispatch copies the candidates there. The vout stream is cleared first, so what follows
//! the packed values is zero (as on the CPU). The number pushed is read back: the last
//! element's offset plus its count.

use crate::backend::WgpuBackend;
use crate::error::Result;
use crate::gpu::Gpu;
use crate::pipeline::scratch;
use crate::shaders::scan::SCAN_BLOCK;
use crate::shaders::WORKGROUP;
use crate::stream::WgpuStream;
use crate::work::{Grid, Work};

/// The scratch buffers a kernel's vout parameter filled.
pub struct VoutScratch<'a> {
    pub param: String,
    pub stream: &'a WgpuStream,
    pub candidates: wgpu::Buffer,
    pub counts: wgpu::Buffer,
    pub max: u32,
    pub fpe: u32,
}

/// What to read back once the packing has run: per vout, its offsets and counts.
pub struct PendingCounts {
    lasts: Vec<(wgpu::Buffer, wgpu::Buffer)>,
    elements: usize,
}

impl PendingCounts {
    /// How many values each vout received.
    pub fn counts(self, gpu: &Gpu) -> Result<Vec<usize>> {
        let at = (self.elements as u64 - 1) * 4;
        let mut out = Vec::with_capacity(self.lasts.len());
        for (offsets, counts) in &self.lasts {
            let o = gpu.read_back(offsets, at..at + 4)?;
            let c = gpu.read_back(counts, at..at + 4)?;
            let o = u32::from_le_bytes([o[0], o[1], o[2], o[3]]);
            let c = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            out.push((o + c) as usize);
        }
        Ok(out)
    }
}

/// Encodes the packing of every vout of a call of `elements` elements.
pub fn pack_vouts(
    backend: &WgpuBackend,
    work: &mut Work,
    vouts: &[VoutScratch],
    elements: usize,
) -> Result<PendingCounts> {
    let gpu = work.gpu();
    let mut lasts = Vec::with_capacity(vouts.len());
    for v in vouts {
        let bytes = elements as u64 * 4;
        let offsets = scratch(gpu, "brook vout offsets", bytes);
        work.copy(
            &format!("vout {} counts to offsets", v.param),
            &v.counts,
            0,
            &offsets,
            0,
            bytes,
        );
        exclusive_scan(backend, work, &offsets, elements)?;
        let out = v.stream.buffer().expect("checked: a data stream").clone();
        work.clear(&format!("vout {}", v.param), &out, out.size());
        let p = backend.fixed_pipeline("vout compaction", crate::shaders::scan::compact)?;
        let slots = elements as u64 * u64::from(v.max);
        work.dispatch(
            &format!("pack vout {}", v.param),
            &p,
            vec![[slots as u32, 0, v.max, v.fpe], [0; 4]],
            &[
                (&v.counts, 0),
                (&offsets, 0),
                (&v.candidates, 0),
                (&out, v.stream.id()),
            ],
            Grid::linear(slots, WORKGROUP),
        );
        lasts.push((offsets, v.counts.clone()));
    }
    Ok(PendingCounts { lasts, elements })
}

/// Encodes an exclusive prefix sum of the `n` `u32`s of `data`, in place.
pub fn exclusive_scan(
    backend: &WgpuBackend,
    work: &mut Work,
    data: &wgpu::Buffer,
    n: usize,
) -> Result<()> {
    let gpu = work.gpu();
    let scan = backend.fixed_pipeline("scan blocks", crate::shaders::scan::scan_blocks)?;
    let add = backend.fixed_pipeline("add block sums", crate::shaders::scan::add_block_sums)?;
    // Level k scans `levels[k]` (of `sizes[k]` values) into block sums `levels[k + 1]`.
    let mut levels = vec![data.clone()];
    let mut sizes = vec![n as u64];
    loop {
        let size = *sizes.last().expect("a level");
        let blocks = size.div_ceil(u64::from(SCAN_BLOCK));
        let sums = scratch(gpu, "brook scan block sums", blocks * 4);
        let level = levels.len() - 1;
        work.dispatch(
            &format!("scan level {level} ({size} values)"),
            &scan,
            vec![[size as u32, 0, 0, 0]],
            &[(levels.last().expect("a level"), 0), (&sums, 0)],
            Grid::linear(blocks * u64::from(SCAN_BLOCK), SCAN_BLOCK),
        );
        levels.push(sums);
        sizes.push(blocks);
        if blocks == 1 {
            break;
        }
    }
    for k in (0..levels.len() - 2).rev() {
        work.dispatch(
            &format!("add block sums to level {k}"),
            &add,
            vec![[sizes[k] as u32, 0, 0, 0]],
            &[(&levels[k], 0), (&levels[k + 1], 0)],
            Grid::linear(sizes[k], WORKGROUP),
        );
    }
    Ok(())
}
