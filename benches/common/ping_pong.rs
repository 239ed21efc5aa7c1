//! A Brook kernel `k(float a, float4 x<>, float4 y<>, out float4 r<>)` timed the way the benches
//! time calls: three streams, each call reading the previous call's result (llvmpipe skips
//! draws whose output a later draw overwrites), and a `finish` at the end of each batch.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use brook::{args, Program, Runtime, Stream};
use brook_bench_kit::Variant;

/// The inputs every SAXPY-shaped bench uses: `x` small, `y` integers, 4 floats per element.
pub fn inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    (
        (0..n * 4).map(|i| (i % 97) as f32 * 0.01).collect(),
        (0..n * 4).map(|i| (i % 89) as f32).collect(),
    )
}

pub struct PingPong<'a> {
    rt: &'a Runtime,
    program: Program,
    kernel: &'a str,
    a: f32,
    streams: [Stream; 3],
    flip: bool,
}

impl<'a> PingPong<'a> {
    /// Compiles `source` and makes `x` and two `y` streams of `shape` on `rt`.
    pub fn new(rt: &'a Runtime, source: &str, kernel: &'a str, a: f32, shape: &[usize]) -> Self {
        let (x, y) = inputs(shape.iter().product());
        let program = rt.compile(source, "bench.br").unwrap();
        let streams = [0, 1, 2].map(|_| rt.stream_of(4, shape).unwrap());
        streams[0].read(&x).unwrap();
        streams[1].read(&y).unwrap();
        streams[2].read(&y).unwrap();
        PingPong {
            rt,
            program,
            kernel,
            a,
            streams,
            flip: false,
        }
    }

    /// Runs `iters` calls and waits for them; returns the time taken.
    pub fn time(&mut self, iters: u64) -> Duration {
        let s = &self.streams;
        let start = Instant::now();
        for _ in 0..iters {
            let (src, dst) = if self.flip { (2, 1) } else { (1, 2) };
            self.rt
                .run(
                    &self.program,
                    self.kernel,
                    args![self.a, &s[0], &s[src], &s[dst]],
                )
                .unwrap();
            self.flip = !self.flip;
        }
        self.rt.finish();
        start.elapsed()
    }

    /// The last call's result (`y` before any call).
    pub fn result(&self) -> Vec<f32> {
        self.streams[if self.flip { 2 } else { 1 }]
            .to_vec()
            .unwrap()
    }

    /// These calls as a comparison's variant named `name`: timed batches, checked on the
    /// last call's result.
    pub fn into_variant(self, name: &str) -> Variant<'a> {
        let calls = Rc::new(RefCell::new(self));
        let read = calls.clone();
        Variant::new(
            name,
            move |n| {
                calls.borrow_mut().time(n);
            },
            move || read.borrow().result(),
        )
    }
}
