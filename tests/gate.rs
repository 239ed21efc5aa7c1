//! Every stream operation passes the runtime's gate (`src/gate/`), which runs a kernel call
//! waiting for a reduction (automatic fusion) before an operation that touches it: nothing is
//! flushed by hand. For each operation, a call waits on every backend and GL layout (and the
//! CPU's interpreter) and the operation touches it; everything the operation sees or leaves
//! must be what running the call at once gives — the CPU without fusion — bit for bit (small
//! integers: every order of summation is exact). Then an operation of a backend's own (over
//! the support's counting backend) gets the waiting call's output without a flush written
//! for it.

mod support;

use brook::core::StreamArg;
use brook::{args, BrookError, GatherOp, Program, Runtime, ScatterOp, Stream, TraceEntry};
use support::counting::Counting;
use support::{ints, runtimes};

const SRC: &str = "
    kernel void twice(float a<>, out float b<>) { b = 2.0 * a; }
    kernel void bump(float a<>, out float b<>) { b = a + 1.0; }
    kernel void positive(float x<>, out float a<>) { if (x < 0.0) discard; a = x; }
    reduce void sum(float a<>, reduce float r<>) { r += a; }";

/// The streams' shape: 64 elements, two-dimensional for reductions to a stream.
const SHAPE: [usize; 2] = [8, 8];
const N: usize = 64;

/// One scenario's runtime and program, and `twice(x, y)`: the call that waits. `y` holds other
/// values before it, so an operation that ran before the call would see them.
struct Case<'a> {
    rt: &'a Runtime,
    p: Program,
    x: Stream,
    y: Stream,
}

impl Case<'_> {
    fn stream(&self, shape: &[usize], salt: usize) -> Stream {
        let s = self.rt.stream_of(1, shape).unwrap();
        s.read(&ints(shape.iter().product(), salt)).unwrap();
        s
    }

    /// Calls `twice(x, y)`: with fusion on, it waits.
    fn call(&self) {
        self.rt
            .run(&self.p, "twice", args![&self.x, &self.y])
            .unwrap();
    }

    /// A `float2` index stream of `n` elements into the 8 × 8 streams, `(column, row)`, each
    /// element `i` landing on element `i * step` (mod 64).
    fn index(&self, n: usize, step: usize) -> Stream {
        let index = self.rt.stream_of(2, &[n]).unwrap();
        let places = (0..n).map(|i| i * step % N);
        let floats: Vec<f32> = places
            .flat_map(|e| [(e % 8) as f32, (e / 8) as f32])
            .collect();
        index.read(&floats).unwrap();
        index
    }

    fn run(&self, kernel: &str, args: &[brook::Arg]) {
        self.rt.run(&self.p, kernel, args).unwrap();
    }

    fn sum(&self, s: &Stream) -> Vec<f32> {
        self.rt.reduce_to_value(&self.p, "sum", s, args![]).unwrap()
    }

    /// The output (read first: reading may run the waiting call, into the trace if it is on)
    /// after how many `twice` calls the trace then shows.
    fn output_then_traced(&self) -> Seen {
        let seen = self.y.to_vec().unwrap();
        [vec![self.traced_calls()], seen].concat()
    }

    /// How many `twice` calls the trace since the last take shows.
    fn traced_calls(&self) -> f32 {
        let trace = self.rt.take_trace();
        let calls = trace
            .iter()
            .filter(|t| matches!(t, TraceEntry::Kernel(c) if c.function == "twice"))
            .count();
        calls as f32
    }
}

/// What an operation saw and left, for comparison.
type Seen = Vec<f32>;

/// The contents of `streams`, one after another, read in that order.
fn contents(streams: &[&Stream]) -> Seen {
    streams.iter().flat_map(|s| s.to_vec().unwrap()).collect()
}

/// A scenario: calls `twice` (or lets the operation under test surround it) and returns what
/// it observed.
type Scenario = fn(&Case) -> Seen;

/// One scenario per operation that can touch the waiting call.
const OPERATIONS: &[(&str, Scenario)] = &[
    ("streamRead into its input", |c| {
        c.call();
        c.x.read(&ints(N, 5)).unwrap();
        contents(&[&c.y, &c.x])
    }),
    ("streamRead into its output", |c| {
        c.call();
        c.y.read(&ints(N, 7)).unwrap();
        c.y.to_vec().unwrap()
    }),
    ("streamRead into a domain of its input", |c| {
        c.call();
        c.x.domain(&[2, 1], &[6, 3])
            .unwrap()
            .read(&[9.0; 8])
            .unwrap();
        contents(&[&c.y, &c.x])
    }),
    ("streamWrite of its output", |c| {
        c.call();
        c.y.to_vec().unwrap()
    }),
    ("streamWrite of a domain of its output", |c| {
        c.call();
        let mut part = vec![0.0; 12];
        c.y.domain(&[1, 2], &[5, 5])
            .unwrap()
            .write(&mut part)
            .unwrap();
        part
    }),
    ("streamPrint of its output", |c| {
        c.call();
        let printed = c.y.print_string().unwrap();
        let numbers = printed.split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-'));
        numbers.filter_map(|t| t.parse().ok()).collect()
    }),
    ("a kernel call reading its output", |c| {
        let z = c.stream(&SHAPE, 2);
        c.call();
        c.run("bump", args![&c.y, &z]);
        contents(&[&z, &c.y])
    }),
    ("a kernel call writing its input", |c| {
        let w = c.stream(&SHAPE, 3);
        c.call();
        c.run("bump", args![&w, &c.x]);
        contents(&[&c.y, &c.x])
    }),
    ("a kernel call reading a domain of its output", |c| {
        let z = c.stream(&[4, 2], 2);
        c.call();
        c.run("bump", args![&c.y.domain(&[3, 2], &[5, 6]).unwrap(), &z]);
        z.to_vec().unwrap()
    }),
    ("a kernel call writing a domain of its output", |c| {
        let w = c.stream(&[3, 4], 3);
        c.call();
        c.run("bump", args![&w, &c.y.domain(&[2, 4], &[6, 7]).unwrap()]);
        c.y.to_vec().unwrap()
    }),
    ("a reduction of its output to a value", |c| {
        c.call();
        [c.sum(&c.y), c.sum(&c.y), c.y.to_vec().unwrap()].concat()
    }),
    ("a reduction of its output to a stream", |c| {
        let r = c.rt.stream_of(1, &[8, 1]).unwrap();
        c.call();
        c.rt.reduce_to_stream(&c.p, "sum", &c.y, &r, args![])
            .unwrap();
        contents(&[&r, &c.y])
    }),
    ("a reduction of its input", |c| {
        c.call();
        [c.sum(&c.x), c.y.to_vec().unwrap()].concat()
    }),
    ("a reduction into its input", |c| {
        let w = c.stream(&[8, 16], 4);
        c.call();
        c.rt.reduce_to_stream(&c.p, "sum", &w, &c.x, args![])
            .unwrap();
        contents(&[&c.y, &c.x])
    }),
    ("a kernel and reduction at once reading its output", |c| {
        let z = c.rt.stream_of(1, &SHAPE).unwrap();
        c.call();
        let total = (c.rt)
            .map_reduce_to_value(&c.p, "bump", args![&c.y, &z], "sum", args![])
            .unwrap();
        [total, c.y.to_vec().unwrap()].concat()
    }),
    ("a scatter into its output", |c| {
        let (index, data) = (c.index(16, 5), c.stream(&[16], 1));
        c.call();
        c.rt.scatter(&c.y, &index, &data, ScatterOp::Add).unwrap();
        c.y.to_vec().unwrap()
    }),
    ("a scatter of its output", |c| {
        let (index, dst) = (c.stream(&SHAPE, 0), c.stream(&[4], 1));
        index
            .read(&(0..N).map(|i| (i % 4) as f32).collect::<Vec<_>>())
            .unwrap();
        c.call();
        c.rt.scatter(&dst, &index, &c.y, ScatterOp::Add).unwrap();
        dst.to_vec().unwrap()
    }),
    ("a scatter into its input", |c| {
        let (index, data) = (c.index(8, 3), c.stream(&[8], 1));
        c.call();
        c.rt.scatter(&c.x, &index, &data, ScatterOp::Replace)
            .unwrap();
        contents(&[&c.y, &c.x])
    }),
    ("a gather-op fetching its output", |c| {
        let (index, dst) = (c.index(16, 5), c.stream(&[16], 1));
        c.call();
        c.rt.gather_op(&dst, &index, &c.y, GatherOp::Fetch).unwrap();
        dst.to_vec().unwrap()
    }),
    ("a gather-op updating its input", |c| {
        let (index, dst) = (c.index(8, 9), c.stream(&[8], 1));
        c.call();
        c.rt.gather_op(&dst, &index, &c.x, GatherOp::Increment)
            .unwrap();
        contents(&[&c.y, &c.x, &dst])
    }),
    (
        "a write mask taken from its output, enabled, then cleared",
        |c| {
            let z = c.stream(&SHAPE, 2);
            c.call();
            c.rt.set_write_mask(&c.y).unwrap();
            c.rt.enable_write_mask().unwrap();
            // Only where 2x is non-zero.
            c.run("bump", args![&c.x, &z]);
            c.rt.disable_write_mask().unwrap();
            c.run("bump", args![&c.x, &c.y]);
            contents(&[&z, &c.y])
        },
    ),
    ("a write mask enabled while it waits", |c| {
        let m = c.stream(&SHAPE, 6);
        c.rt.set_write_mask(&m).unwrap();
        c.call();
        // The call was not masked: enabling the mask now must not mask it.
        c.rt.enable_write_mask().unwrap();
        let seen = c.y.to_vec().unwrap();
        c.rt.disable_write_mask().unwrap();
        seen
    }),
    ("streamSwap of its output", |c| {
        let z = c.stream(&SHAPE, 2);
        c.call();
        c.rt.swap(&c.y, &z).unwrap();
        contents(&[&c.y, &z])
    }),
    ("streamSwap of its input", |c| {
        let w = c.stream(&SHAPE, 3);
        c.call();
        c.rt.swap(&c.x, &w).unwrap();
        contents(&[&c.y, &c.x])
    }),
    ("its output lent and read by the backend itself", |c| {
        c.call();
        let lent = StreamArg {
            storage: c.y.storage().unwrap(),
            format: c.y.format(),
            shape: c.y.shape(),
            domain: None,
            iter: None,
        };
        let mut seen = vec![0.0; N];
        c.rt.backend().write(&lent, &mut seen).unwrap();
        seen
    }),
    ("finish", |c| {
        c.rt.set_trace(true);
        c.call();
        c.rt.finish();
        // It ran by finish, into the trace: reading its output runs nothing more.
        let ran = c.traced_calls();
        let seen = c.y.to_vec().unwrap();
        [vec![ran, c.traced_calls()], seen].concat()
    }),
    ("the trace switched on", |c| {
        c.call();
        // It runs before the trace starts.
        c.rt.set_trace(true);
        c.output_then_traced()
    }),
    ("the trace switched off", |c| {
        c.rt.set_trace(true);
        c.call();
        // It runs into the trace before the trace stops.
        c.rt.set_trace(false);
        c.output_then_traced()
    }),
    ("the trace taken", |c| {
        c.rt.set_trace(true);
        c.call();
        [vec![c.traced_calls()], c.y.to_vec().unwrap()].concat()
    }),
    ("explaining started while it waits", |c| {
        c.call();
        let (seen, recording) = c.rt.explain(64, |_| c.y.to_vec().unwrap());
        [vec![recording.operations.len() as f32], seen].concat()
    }),
    ("explaining ended while it waits", |c| {
        let ((), recording) = c.rt.explain(64, |_| c.call());
        // Its card, with the output it wrote.
        let outcomes = recording.operations.iter().flat_map(|o| &o.outcomes);
        let wrote = outcomes.flat_map(|o| o.sampled.as_ref().unwrap().values.clone());
        [vec![recording.operations.len() as f32], wrote.collect()].concat()
    }),
];

/// The write query (which ES 3.0 lacks), the same way.
const QUERY: Scenario = |c| {
    let z = c.stream(&SHAPE, 2);
    c.call();
    // The waiting call is not counted: only the positive elements of x are.
    c.rt.begin_write_query().unwrap();
    c.run("positive", args![&c.x, &z]);
    let counted = c.rt.end_write_query().unwrap() as f32;
    [vec![counted], c.y.to_vec().unwrap()].concat()
};

fn observe(rt: &Runtime, scenario: Scenario) -> Seen {
    let p = rt.compile(SRC, "gate.br").unwrap();
    let (x, y) = inputs(rt);
    scenario(&Case { rt, p, x, y })
}

#[test]
fn every_operation_touching_a_waiting_call_sees_what_running_it_at_once_gives() {
    let cpu = Runtime::cpu();
    cpu.set_automatic_fusion(false).unwrap();
    let reference: Vec<Seen> = (OPERATIONS.iter())
        .map(|(_, f)| observe(&cpu, *f))
        .collect();
    let mut rts = runtimes();
    rts.push(Runtime::cpu_interpreter());
    for rt in rts {
        rt.set_automatic_fusion(true).unwrap();
        for ((name, scenario), want) in OPERATIONS.iter().zip(&reference) {
            assert_eq!(&observe(&rt, *scenario), want, "{}: {name}", rt.describe());
        }
    }
}

#[test]
fn a_write_query_does_not_count_the_waiting_call() {
    let cpu = Runtime::cpu();
    cpu.set_automatic_fusion(false).unwrap();
    let want = observe(&cpu, QUERY);
    for rt in runtimes() {
        if rt.begin_write_query().is_err() {
            continue; // ES 3.0 has no occlusion query.
        }
        rt.end_write_query().unwrap();
        rt.set_automatic_fusion(true).unwrap();
        assert_eq!(observe(&rt, QUERY), want, "{}", rt.describe());
    }
}

/// `finish` runs a waiting call (it waits for all work issued): one the CPU's time limit
/// stops fails there, and the next operation that can return an error returns it, though it
/// touches none of the call's streams.
#[test]
fn finish_runs_the_waiting_call() {
    let cpu = Runtime::cpu();
    cpu.set_automatic_fusion(true).unwrap();
    let p = cpu.compile(support::FOREVER, "forever.br").unwrap();
    let [x, y, z] = [0; 3].map(|_| cpu.stream_of(1, &[4]).unwrap());
    x.read(&[0.0; 4]).unwrap();
    cpu.set_time_limit(Some(std::time::Duration::from_millis(50)))
        .unwrap();
    cpu.run(&p, "forever", args![&x, &y]).expect("deferred");
    cpu.finish();
    let err = z
        .read(&[1.0; 4])
        .expect_err("finish ran it and kept its error");
    assert!(err.to_string().contains("`forever`"), "{err}");
    z.read(&[1.0; 4]).expect("reported once");
}

/// The waiting call's output in the texture GL lends, read from the texture itself.
#[test]
fn gl_textures_lend_the_waiting_calls_output() {
    let gl = Runtime::gl().unwrap();
    let p = gl.compile(SRC, "gate.br").unwrap();
    let (x, y) = inputs(&gl);
    gl.run(&p, "twice", args![&x, &y]).unwrap();
    let textures = y.gl_textures().unwrap().expect("a GL stream has textures");
    let mut seen = vec![0.0; N];
    textures.write(&mut seen).unwrap();
    let want: Vec<f32> = ints(N, 0).iter().map(|v| 2.0 * v).collect();
    assert_eq!(seen, want);
}

/// The waiting call's output in the buffer wgpu lends, copied by the application itself.
#[test]
fn wgpu_buffers_lend_the_waiting_calls_output() {
    use brook::wgpu_backend::wgpu;
    let rt = support::wgpu();
    rt.set_automatic_fusion(true).unwrap();
    let p = rt.compile(SRC, "gate.br").unwrap();
    let (x, y) = inputs(&rt);
    rt.run(&p, "twice", args![&x, &y]).unwrap();
    let backend = rt.as_wgpu().unwrap();
    let (device, queue) = (backend.device(), backend.queue());
    let bytes = (N * 4) as u64;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let buffer = y
            .wgpu_buffer()
            .unwrap()
            .expect("a wgpu stream has a buffer");
        encoder.copy_buffer_to_buffer(&buffer, 0, &staging, 0, bytes);
    }
    queue.submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |m| m.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let seen: Vec<f32> =
        bytemuck::cast_slice(&staging.slice(..).get_mapped_range().unwrap()).to_vec();
    let want: Vec<f32> = ints(N, 0).iter().map(|v| 2.0 * v).collect();
    assert_eq!(seen, want);
}

/// `twice`'s input and output on `rt`, holding different values (so an operation that ran
/// before the call would see the output's old ones).
fn inputs(rt: &Runtime) -> (Stream, Stream) {
    let (x, y) = (
        rt.stream_of(1, &SHAPE).unwrap(),
        rt.stream_of(1, &SHAPE).unwrap(),
    );
    x.read(&ints(N, 0)).unwrap();
    y.read(&ints(N, 1)).unwrap();
    (x, y)
}

/// An operation of a backend's own: the sum of a stream's floats, from its storage as the
/// runtime lends it ([`Stream::storage`]), read by the backend under the support's
/// `Counting`. No flush is written for it: lending passes the gate.
fn total(backend: &Counting, stream: &Stream) -> Result<f32, BrookError> {
    let lent = StreamArg {
        storage: stream.storage()?,
        format: stream.format(),
        shape: stream.shape(),
        domain: None,
        iter: None,
    };
    let mut values = vec![0.0; stream.len() * stream.floats_per_element()];
    backend.inner.write(&lent, &mut values)?;
    Ok(values.iter().sum())
}

#[test]
fn a_new_operation_gets_the_waiting_calls_output_without_a_flush_of_its_own() {
    // The CPU, saying it fuses (so automatic fusion is on by default and calls wait),
    // counting the kernel calls that reach it.
    let counting = Counting::cpu(true);
    let rt = Runtime::with_backend(counting.clone());
    let kernels = || counting.calls("run_kernel");
    let (x, y) = inputs(&rt);
    // `twice(x, y)`, waiting: of a fresh program each time, as a kernel whose call waited
    // for no reduction runs at once from then on.
    let call = || {
        let p = rt.compile(SRC, "gate.br").unwrap();
        rt.run(&p, "twice", args![&x, &y]).unwrap();
    };
    call();
    assert_eq!(kernels(), 0, "a backend that fuses: the call waits");
    let want: f32 = ints(N, 0).iter().map(|v| 2.0 * v).sum();
    assert_eq!(total(&counting, &y).unwrap(), want);
    assert_eq!(kernels(), 1, "lending its output ran it");
    // Its input lent: the borrower may change it, so the call runs first.
    call();
    assert_eq!(
        total(&counting, &x).unwrap(),
        ints(N, 0).iter().sum::<f32>()
    );
    assert_eq!(kernels(), 2);
    // A stream it does not use: it keeps waiting.
    let z = rt.stream_of(1, &SHAPE).unwrap();
    z.read(&[1.0; N]).unwrap();
    call();
    assert_eq!(total(&counting, &z).unwrap(), N as f32);
    assert_eq!(kernels(), 2, "still waiting");
    assert_eq!(total(&counting, &y).unwrap(), want);
    assert_eq!(kernels(), 3);
}
