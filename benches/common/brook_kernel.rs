//! The Brook side of a kernel bench: one float4 input and float4 outputs, ping-ponging as
//! [`super::handwritten_kernel::HandKernel`] does, each timed batch ended by `finish`.

use std::time::{Duration, Instant};

use brook::{Arg, Runtime};

/// A Brook kernel of one float4 input and `outputs` float4 outputs, ping-ponging the input with
/// output 0 as the hand-written version does.
pub struct BrookKernel<'a> {
    rt: &'a Runtime,
    program: brook::Program,
    kernel: &'static str,
    streams: Vec<brook::Stream>,
    flip: bool,
}

impl<'a> BrookKernel<'a> {
    pub fn new(
        rt: &'a Runtime,
        src: &str,
        kernel: &'static str,
        shape: &[usize],
        outputs: usize,
    ) -> Self {
        let program = rt.compile(src, "bench.br").unwrap();
        let data = input(shape.iter().product());
        let streams: Vec<_> = (0..outputs + 1)
            .map(|_| rt.stream_of(4, shape).unwrap())
            .collect();
        streams[0].read(&data).unwrap();
        streams[1].read(&data).unwrap();
        BrookKernel {
            rt,
            program,
            kernel,
            streams,
            flip: false,
        }
    }

    pub fn time(&mut self, iters: u64) -> Duration {
        let start = Instant::now();
        for _ in 0..iters {
            let (src, dst) = if self.flip { (1, 0) } else { (0, 1) };
            let mut args: Vec<Arg> = vec![(&self.streams[src]).into(), (&self.streams[dst]).into()];
            args.extend(self.streams[2..].iter().map(Arg::from));
            self.rt.run(&self.program, self.kernel, &args).unwrap();
            self.flip = !self.flip;
        }
        self.rt.finish();
        start.elapsed()
    }

    /// Every output of the last call, output 0 first (before any call, output 0 is the input).
    pub fn result(&self) -> Vec<f32> {
        let last = if self.flip { 1 } else { 0 };
        std::iter::once(last)
            .chain(2..self.streams.len())
            .flat_map(|s| self.streams[s].to_vec().unwrap())
            .collect()
    }
}

pub fn input(n: usize) -> Vec<f32> {
    (0..n * 4).map(|i| (i % 97) as f32 * 0.01).collect()
}
