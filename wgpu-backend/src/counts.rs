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

/// A repeated call asks wgpu for what a hand-written wgpu loop asks: one command encoder and
/// one submission per kernel call and per reduction (to a value: with its copy to the host
/// in the same submission, then a mapping and a wait; a kernel call that checks its loops
/// likewise reads its loop status), and no buffer, bind group, pipeline or
/// `write_buffer` after the first call — also for a kernel called with a different constant
/// each time, and for reductions of several passes.
#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::ApiCounts;
    use crate::ops::reduce::ReduceTarget;
    use crate::{KernelArg, WgpuBackend, WgpuProgram, WgpuStream};

    const SRC: &str = "
kernel void scale(float a, float x<>, out float r<>) { r = a * x; }
reduce void sum(float x<>, reduce float s<>) { s += x; }
kernel void count(float n<>, out float r<>) {
    float x = 0.0;
    float i;
    for (i = 0.0; i < n; i += 1.0)
        x += 1.0;
    r = x;
}
";

    /// A backend and [`SRC`] prepared on it.
    fn backend_and_program() -> (WgpuBackend, WgpuProgram) {
        let b = WgpuBackend::new().expect("a wgpu adapter (lavapipe)");
        let p = b.prepare(
            Rc::new(brook_frontend::compile(SRC, "counts.br").expect("compiles")),
            None,
        );
        (b, p)
    }

    /// What `f` asks wgpu for on `b`.
    fn asked(b: &WgpuBackend, f: impl FnOnce()) -> ApiCounts {
        let before = b.api_counts();
        f();
        b.api_counts() - before
    }

    /// A one-float stream of `values`.
    fn stream_of(b: &WgpuBackend, values: &[f32]) -> WgpuStream {
        let s = b.create_stream(&[1], &[values.len()]).expect("a stream");
        b.read(&s, None, values).expect("streamRead");
        s
    }

    /// The values of the one-float stream `s`, read back.
    fn values(b: &WgpuBackend, s: &WgpuStream) -> Vec<f32> {
        let mut out = vec![0.0; s.shape().iter().product()];
        b.write(s, None, &mut out).expect("streamWrite");
        out
    }

    #[test]
    fn repeated_calls_make_nothing_but_their_submissions() {
        let (b, p) = backend_and_program();
        let scale = p.module().function("scale").expect("scale").0;
        let sum = p.module().function("sum").expect("sum").0;
        // 2^18 elements: a reduction of more than one pass.
        let n = 1 << 18;
        let x = b.create_stream(&[1], &[n]).expect("a stream");
        b.read(&x, None, &vec![1.0; n]).expect("streamRead");
        let r = [
            b.create_stream(&[1], &[n]).expect("a stream"),
            b.create_stream(&[1], &[n]).expect("a stream"),
        ];
        let call = |i: usize| {
            let a = [0.5 * (i % 3) as f32];
            let dst = &r[i % 2];
            let args = [
                KernelArg::Constant(&a),
                KernelArg::Stream(&x),
                KernelArg::Stream(dst),
            ];
            b.run_kernel(&p, scale, &args).expect("a kernel call");
            let mut v = [0.0f32];
            b.reduce(&p, sum, dst, &[], ReduceTarget::Value(&mut v))
                .expect("a reduction");
            assert_eq!(v[0], 0.5 * (i % 3) as f32 * n as f32, "call {i}");
        };
        // The first round makes what the calls keep: 3 constants × 2 outputs.
        (0..6).for_each(call);
        let before = b.api_counts();
        (6..12).for_each(call);
        let per_six = b.api_counts() - before;
        assert_eq!(
            per_six,
            ApiCounts {
                submits: 12,
                waits: 6,
                encoders: 12,
                maps: 6,
                ..ApiCounts::default()
            },
            "{per_six}"
        );
    }

    /// A constant that changes every call: once the pipeline keeps its most call-info buffers
    /// ([`crate::pipeline::KEPT_INFOS`]), each call rewrites the least recently used one with
    /// `write_buffer` (as before buffers were kept) and keeps its bind group; every result is
    /// that call's.
    #[test]
    fn a_constant_new_every_call_rewrites_a_kept_info_buffer() {
        let (b, p) = backend_and_program();
        let scale = p.module().function("scale").expect("scale").0;
        let n = 16;
        let x = stream_of(&b, &vec![2.0; n]);
        let r = b.create_stream(&[1], &[n]).expect("a stream");
        let call = |i: usize| {
            let a = [i as f32];
            let args = [
                KernelArg::Constant(&a),
                KernelArg::Stream(&x),
                KernelArg::Stream(&r),
            ];
            b.run_kernel(&p, scale, &args).expect("a kernel call");
        };
        let kept = crate::pipeline::KEPT_INFOS;
        let mut out = vec![0.0; n];
        for i in 0..kept + 20 {
            call(i);
            b.write(&r, None, &mut out).expect("streamWrite");
            assert_eq!(out, vec![2.0 * i as f32; n], "call {i}");
        }
        let before = b.api_counts();
        (kept + 20..kept + 30).for_each(call);
        let per_ten = b.api_counts() - before;
        assert_eq!(
            per_ten,
            ApiCounts {
                submits: 10,
                encoders: 10,
                writes: 10,
                ..ApiCounts::default()
            },
            "{per_ten}"
        );
        b.write(&r, None, &mut out).expect("streamWrite");
        assert_eq!(out, vec![2.0 * (kept + 29) as f32; n]);
    }

    /// A kernel whose loop is bounded by a stream, on a driver that caps loops (lavapipe),
    /// checks its loops: its work and the read-back of its loop status are one submission.
    #[test]
    fn a_loop_checked_call_is_one_submission() {
        let (b, p) = backend_and_program();
        if b.gpu.loop_cap().is_none() {
            println!(
                "skipped: {} caps no loops, so no call checks its loops",
                b.gpu.info.name
            );
            return;
        }
        let count = p.module().function("count").expect("count").0;
        let n = 64;
        let counts: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let x = stream_of(&b, &counts);
        let r = b.create_stream(&[1], &[n]).expect("a stream");
        let call = || {
            let args = [KernelArg::Stream(&x), KernelArg::Stream(&r)];
            b.run_kernel(&p, count, &args).expect("a kernel call");
        };
        call();
        let per_call = asked(&b, call);
        let one_read = ApiCounts {
            submits: 1,
            waits: 1,
            encoders: 1,
            maps: 1,
            ..ApiCounts::default()
        };
        assert_eq!(per_call, one_read, "{per_call}");
        assert_eq!(values(&b, &r), counts);
    }

    /// `streamSetWriteMask` of a mask stream of the mask's size copies into the mask's buffer,
    /// so the masked call after it keeps its bind group: neither makes a buffer or bind group,
    /// and each call writes where that call's mask is open.
    #[test]
    fn reloading_a_mask_of_its_size_keeps_its_buffer() {
        let (b, p) = backend_and_program();
        let scale = p.module().function("scale").expect("scale").0;
        let n = 16;
        let x = stream_of(&b, &vec![2.0; n]);
        let r = b.create_stream(&[1], &[n]).expect("a stream");
        let open = |i: usize, e: usize| (e % 2 == i % 2) as u8 as f32;
        let masks: Vec<_> = (0..2)
            .map(|i| stream_of(&b, &(0..n).map(|e| open(i, e)).collect::<Vec<_>>()))
            .collect();
        let mask = b.create_write_mask(n).expect("a write mask");
        let a = [3.0];
        let call = |i: usize| {
            b.load_write_mask(&mask, &masks[i % 2])
                .expect("streamSetWriteMask");
            b.use_write_mask(Some(&mask), true, false);
            let args = [
                KernelArg::Constant(&a),
                KernelArg::Stream(&x),
                KernelArg::Stream(&r),
            ];
            b.run_kernel(&p, scale, &args)
                .expect("a masked kernel call");
        };
        for i in 0..6 {
            b.read(&r, None, &vec![0.0; n]).expect("streamRead");
            let per_call = asked(&b, || call(i));
            let load_and_call = ApiCounts {
                submits: 2,
                encoders: 2,
                ..ApiCounts::default()
            };
            if i >= 2 {
                assert_eq!(per_call, load_and_call, "call {i}: {per_call}");
            }
            let want: Vec<f32> = (0..n).map(|e| 6.0 * open(i, e)).collect();
            assert_eq!(values(&b, &r), want, "call {i}");
        }
    }

    /// A repeated `streamScatterOp` of each operator with a kernel-free pass makes no buffer
    /// or bind group after its first call (its call-info buffers, bind groups and the
    /// replacing scatter's scratch are kept), and every result is that call's.
    #[test]
    fn repeated_scatters_make_nothing_but_their_submissions() {
        use crate::ops::scatter::ScatterOp;
        let b = WgpuBackend::new().expect("a wgpu adapter (lavapipe)");
        let index = stream_of(&b, &[0.0, 2.0, 2.0, 1.0]);
        let data = stream_of(&b, &[1.0, 2.0, 3.0, 4.0]);
        let dst = b.create_stream(&[1], &[3]).expect("a stream");
        for (op, want) in [
            (ScatterOp::Replace, [1.0, 4.0, 3.0]),
            (ScatterOp::Add, [11.0, 14.0, 15.0]),
            (ScatterOp::Min, [1.0, 4.0, 2.0]),
            (ScatterOp::Max, [10.0, 10.0, 10.0]),
        ] {
            let scatter = || {
                b.read(&dst, None, &[10.0; 3]).expect("streamRead");
                b.scatter(&dst, &index, &data, op).expect("a scatter");
                assert_eq!(values(&b, &dst), want, "{}", op.name());
            };
            scatter();
            let again = asked(&b, scatter);
            assert_eq!(
                (again.buffers, again.bind_groups),
                (0, 0),
                "{}: {again}",
                op.name()
            );
        }
    }
}
