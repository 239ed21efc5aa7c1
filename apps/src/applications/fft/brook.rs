//! The Brook FFT: a bit-reversal kernel, then one butterfly kernel called once per radix-2
//! stage, first along the rows and then along the columns. Index arithmetic is done in the
//! kernels on whole-number floats, as the paper's kernels do; twiddles are gathered.

use brook::{args, Program, Runtime, Stream};

use super::Signal;
use crate::app::Variant;
use crate::brook_run::Inputs;
use crate::error::AppError;

const BROOK: &str = "
// The low `bits` bits of the whole number `v`, reversed.
float reverse(float value, float bits) {
    float v = value;
    float r = 0.0;
    for (float b = 0.0; b < bits; b += 1.0) {
        float rest = floor(v * 0.5);
        r = r * 2.0 + (v - 2.0 * rest);
        v = rest;
    }
    return r;
}

// Puts each element where decimation in time wants it: at its bit-reversed column and row.
kernel void bitreverse(float4 re[][], float4 im[][], float2 bits,
                       out float4 ore<>, out float4 oim<>) {
    float2 at = indexof(ore).xy;
    float2 from = float2(reverse(at.x, bits.x), reverse(at.y, bits.y));
    ore = re[from];
    oim = im[from];
}

// One radix-2 stage along `axis` (float2(1, 0): rows, float2(0, 1): columns): butterflies of
// `span` elements; the twiddle exp(-2 pi i p / span) is twiddle[p * stride].
kernel void butterfly(float4 re[][], float4 im[][], float2 twiddle[], float2 axis,
                      float span, float stride, out float4 ore<>, out float4 oim<>) {
    float2 at = indexof(ore).xy;
    float halfspan = span * 0.5;
    float k = fmod(dot(at, axis), span);
    float p = (k < halfspan) ? k : k - halfspan;
    float2 even = at - axis * (k - p);
    float2 odd = even + axis * halfspan;
    float2 w = twiddle[p * stride];
    float4 ore_odd = re[odd];
    float4 oim_odd = im[odd];
    float4 tr = w.x * ore_odd - w.y * oim_odd;
    float4 ti = w.x * oim_odd + w.y * ore_odd;
    float s = (k < halfspan) ? 1.0 : -1.0;
    ore = re[even] + s * tr;
    oim = im[even] + s * ti;
}
";

pub struct BrookFft<'a> {
    rt: &'a Runtime,
    program: Program,
    width: usize,
    height: usize,
    /// The signal's real and imaginary planes, then the twiddle table.
    inputs: Inputs,
    /// Two (real, imaginary) pairs to ping-pong between; the result ends in `scratch[result]`.
    scratch: [[Stream; 2]; 2],
    result: usize,
}

impl<'a> BrookFft<'a> {
    pub fn new(rt: &'a Runtime, signal: Signal) -> Result<Self, AppError> {
        let shape = [signal.height, signal.width];
        let twiddles = signal.twiddles();
        let mut inputs = Inputs::default();
        inputs.add(rt, 4, &shape, signal.re)?;
        inputs.add(rt, 4, &shape, signal.im)?;
        inputs.add(rt, 2, &[twiddles.len() / 2], twiddles)?;
        let pair = || -> Result<[Stream; 2], AppError> {
            Ok([rt.stream_of(4, &shape)?, rt.stream_of(4, &shape)?])
        };
        Ok(BrookFft {
            rt,
            program: rt.compile(BROOK, "fft.br")?,
            width: signal.width,
            height: signal.height,
            inputs,
            scratch: [pair()?, pair()?],
            result: 0,
        })
    }
}

impl Variant for BrookFft<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (re, im, twiddle) = (self.inputs.get(0), self.inputs.get(1), self.inputs.get(2));
        let bits = [
            self.width.trailing_zeros() as f32,
            self.height.trailing_zeros() as f32,
        ];
        let [ore, oim] = &self.scratch[0];
        self.rt
            .run(&self.program, "bitreverse", args![re, im, bits, ore, oim])?;
        let longest = self.width.max(self.height);
        let rows = Signal::spans(self.width).map(|s| ([1.0, 0.0], s));
        let columns = Signal::spans(self.height).map(|s| ([0.0, 1.0], s));
        let mut current = 0;
        for (axis, span) in rows.chain(columns) {
            let ([re, im], [ore, oim]) = (&self.scratch[current], &self.scratch[1 - current]);
            let stride = (longest / span) as f32;
            self.rt.run(
                &self.program,
                "butterfly",
                args![re, im, twiddle, axis, span as f32, stride, ore, oim],
            )?;
            current = 1 - current;
        }
        self.result = current;
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let [re, im] = &self.scratch[self.result];
        let mut result = re.to_vec()?;
        result.extend(im.to_vec()?);
        Ok(result)
    }
}
