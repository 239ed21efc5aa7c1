//! How many times the backend has asked wgpu for the work whose cost is fixed per call: a
//! submission, a wait for the queue, a command encoder, a buffer, a bind group, a pipeline,
//! a `queue.write_buffer`, a mapping. A GPU runs a small kernel in microseconds, so what a
//! call costs beyond that is these; counting them per call is machine-independent (the same
//! on lavapipe as on a discrete GPU), which timings on a shared CPU are not. Tests assert
//! that a repeated call makes no more of them than the same work written by hand
//! (`docs/performance.md`, "Fixed costs per call").

use std::ops::Sub;

/// Counts of wgpu requests since the device was made (see the module's doc).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ApiCounts {
    /// `queue.submit` calls (an empty one included: it flushes `write_buffer`s).
    pub submits: u64,
    /// Waits for the queue to finish (`device.poll` waiting).
    pub waits: u64,
    /// Command encoders made.
    pub encoders: u64,
    /// Buffers made (streams, scratch, call info, staging).
    pub buffers: u64,
    /// Bind groups made.
    pub bind_groups: u64,
    /// Compute pipelines made.
    pub pipelines: u64,
    /// `queue.write_buffer` calls (each a staging copy inside wgpu).
    pub writes: u64,
    /// Buffers mapped to be read on the host (read-backs).
    pub maps: u64,
}

impl Sub for ApiCounts {
    type Output = ApiCounts;

    /// What was asked between two readings (`after - before`).
    fn sub(self, before: ApiCounts) -> ApiCounts {
        ApiCounts {
            submits: self.submits - before.submits,
            waits: self.waits - before.waits,
            encoders: self.encoders - before.encoders,
            buffers: self.buffers - before.buffers,
            bind_groups: self.bind_groups - before.bind_groups,
            pipelines: self.pipelines - before.pipelines,
            writes: self.writes - before.writes,
            maps: self.maps - before.maps,
        }
    }
}

impl std::fmt::Display for ApiCounts {
    /// `1 submit, 0 waits, …` in the order of the fields.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} submits, {} waits, {} encoders, {} buffers, {} bind groups, {} pipelines, {} writes, {} maps",
            self.submits,
            self.waits,
            self.encoders,
            self.buffers,
            self.bind_groups,
            self.pipelines,
            self.writes,
            self.maps
        )
    }
}
