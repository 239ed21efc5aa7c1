//! A whole-program fuzzer: random kernels and reductions (`program.rs`) and a random sequence
//! of host calls on random shapes and values — kernel calls (resized inputs, gathers with any
//! subscript, domains, in place), reductions to a value and to a stream, ScatterOp and
//! GatherOp with every combiner — run on the CPU backend and on GL, which must agree exactly
//! (approximate outputs within their built-in's ulp bound). One seed is one case, so a finding
//! is replayed by its seed.

pub mod program;
pub mod special;

use brook::{Arg, GatherOp, IterSpec, Program, Runtime, ScatterOp, Stream};

use program::{Kernel, Param, Reduction, DATA};

pub use crate::support::Samples as Rng;

impl Rng {
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The largest stream the fuzzer makes: every stream then fits the textures of a context with
/// `max_texture_size` 16, which wraps anything wider (address translation).
const MAX_ELEMENTS: usize = 256;

/// One generated case: the Brook source and the host calls on it.
pub struct Case {
    pub seed: u64,
    pub source: String,
    pub kernels: Vec<Kernel>,
    pub reductions: Vec<Reduction>,
    pub calls: Vec<Call>,
    pub streams: Vec<StreamSpec>,
}

/// A stream the case makes, with its contents.
#[derive(Debug, Clone)]
pub struct StreamSpec {
    pub width: u8,
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// How a stream is passed: whole, or a domain `lo..hi` (column first, as `Stream::domain`),
/// or an iterator made for the call.
#[derive(Debug, Clone)]
pub enum Pass {
    Whole(usize),
    Domain(usize, Vec<usize>, Vec<usize>),
    Constant(Vec<f32>),
    /// A 1D iterator of `width` components over `n` elements from `start` by `step` (both
    /// multiples of 1/4, so every value is exact).
    Iter {
        width: u8,
        n: usize,
        start: f32,
        step: f32,
    },
}

#[derive(Debug, Clone)]
pub enum Call {
    /// With `mask`, the call runs under that stream as the write mask.
    Kernel {
        kernel: usize,
        args: Vec<Pass>,
        mask: Option<usize>,
    },
    ReduceValue {
        reduction: usize,
        input: usize,
    },
    ReduceStream {
        reduction: usize,
        input: usize,
        output: usize,
    },
    Scatter {
        dst: usize,
        index: usize,
        data: usize,
        op: Combine,
    },
    GatherOp {
        dst: usize,
        index: usize,
        data: usize,
        op: Fetch,
    },
}

#[derive(Debug, Clone, Copy)]
pub enum Combine {
    Replace,
    Add,
    Min,
    Max,
    Reduce(usize),
}

#[derive(Debug, Clone)]
pub enum Fetch {
    Plain,
    Increment,
    Add(Vec<f32>),
}

fn shape(rng: &mut Rng, max: usize) -> Vec<usize> {
    loop {
        let ranks = if rng.below(4) == 0 { 3 } else { 2 };
        let rank = 1 + rng.below(ranks) as usize;
        let s: Vec<usize> = (0..rank).map(|_| 1 + rng.below(12) as usize).collect();
        let s = if rank == 1 {
            vec![1 + rng.below(max as u64) as usize]
        } else {
            s
        };
        if s.iter().product::<usize>() <= max {
            return s;
        }
    }
}

/// A data value: a multiple of 1/4 within `DATA`.
fn datum(rng: &mut Rng) -> f32 {
    let steps = (DATA.bound * 4.0) as u64;
    (rng.below(2 * steps + 1) as f64 - steps as f64) as f32 / 4.0
}

/// An index value for a stream of extent up to 16: mostly in or near range, sometimes far off,
/// infinite or NaN.
fn index_value(rng: &mut Rng) -> f32 {
    match rng.below(16) {
        0 => f32::INFINITY,
        1 => f32::NEG_INFINITY,
        2 => f32::NAN,
        3 => 1e30,
        4 => -3e9,
        _ => (rng.below(80) as f32 - 20.0) / 4.0,
    }
}

/// `n` indices of `rank` components each.
fn index_stream(rng: &mut Rng, rank: u8, n: usize) -> StreamSpec {
    StreamSpec {
        width: rank,
        shape: vec![n],
        data: (0..n * rank as usize).map(|_| index_value(rng)).collect(),
    }
}

impl Case {
    pub fn generate(seed: u64) -> Case {
        let mut rng = Rng(seed);
        let helpers: Vec<program::Helper> = (0..rng.below(3))
            .map(|k| program::helper(&mut rng, &format!("h{k}")))
            .collect();
        let kernels: Vec<Kernel> = (0..1 + rng.below(2))
            .map(|k| program::kernel(&mut rng, &format!("k{k}"), &helpers))
            .collect();
        let reductions: Vec<Reduction> = (0..rng.below(3))
            .map(|k| {
                let width = 1 + rng.below(4) as u8;
                program::reduction(&mut rng, &format!("r{k}"), width)
            })
            .collect();
        let mut source = String::new();
        for h in &helpers {
            source.push_str(&h.source);
        }
        for k in &kernels {
            source.push_str(&k.source);
        }
        for r in &reductions {
            source.push_str(&r.source);
        }
        let mut case = Case {
            seed,
            source,
            kernels,
            reductions,
            calls: Vec::new(),
            streams: Vec::new(),
        };
        let mut streams = Vec::new();
        for k in 0..case.kernels.len() {
            let call = case.kernel_call(&mut rng, k, &mut streams);
            case.calls.push(call);
        }
        for _ in 0..rng.below(3) {
            let call = case.other_call(&mut rng, &mut streams);
            case.calls.extend(call);
        }
        case.streams = streams;
        case
    }
}

impl Case {
    fn kernel_call(&self, rng: &mut Rng, k: usize, streams: &mut Vec<StreamSpec>) -> Call {
        let kernel = &self.kernels[k];
        let out_shape = shape(rng, MAX_ELEMENTS);
        let mut add = |s: StreamSpec| {
            streams.push(s);
            streams.len() - 1
        };
        // Outputs share a shape; sometimes they are a domain of a larger stream.
        let domain = rng.below(4) == 0;
        let mut args = Vec::new();
        let mut plain_inputs: Vec<(usize, u8)> = Vec::new();
        for p in &kernel.params {
            let pass = match p {
                Param::Input { width, index } => {
                    if !index && rng.below(6) == 0 {
                        // An iterator: start and step multiples of 1/4, so values are exact.
                        let n = 1 + rng.below(MAX_ELEMENTS as u64) as usize;
                        let start = (rng.below(33) as f32 - 16.0) / 4.0;
                        let step = (rng.below(9) as f32 - 4.0) / 4.0;
                        args.push(Pass::Iter {
                            width: *width,
                            n,
                            start,
                            step,
                        });
                        continue;
                    }
                    let s = if rng.below(2) == 0 {
                        out_shape.clone()
                    } else {
                        shape(rng, MAX_ELEMENTS)
                    };
                    let n: usize = s.iter().product::<usize>() * *width as usize;
                    let data = (0..n)
                        .map(|_| if *index { index_value(rng) } else { datum(rng) })
                        .collect();
                    let id = add(StreamSpec {
                        width: *width,
                        shape: s.clone(),
                        data,
                    });
                    if !index && s == out_shape {
                        plain_inputs.push((id, *width));
                    }
                    if rng.below(5) == 0 {
                        // An input domain: a sub-stream.
                        let (lo, hi) = domain_of(rng, &s);
                        args.push(Pass::Domain(id, lo, hi));
                        continue;
                    }
                    Pass::Whole(id)
                }
                Param::Gather { rank, width } => {
                    let s: Vec<usize> = (0..*rank).map(|_| 1 + rng.below(16) as usize).collect();
                    let n: usize = s.iter().product::<usize>() * *width as usize;
                    let data = (0..n).map(|_| datum(rng)).collect();
                    Pass::Whole(add(StreamSpec {
                        width: *width,
                        shape: s,
                        data,
                    }))
                }
                Param::Constant { width } => {
                    Pass::Constant((0..*width).map(|_| datum(rng)).collect())
                }
                Param::Output { width } => {
                    // In place: an input stream of the output's shape and width.
                    if let Some(pos) = plain_inputs.iter().position(|(_, w)| w == width) {
                        if rng.below(3) == 0 && !domain {
                            let (id, _) = plain_inputs.remove(pos);
                            args.push(Pass::Whole(id));
                            continue;
                        }
                    }
                    let n: usize = out_shape.iter().product::<usize>() * *width as usize;
                    let data = (0..n).map(|_| datum(rng)).collect();
                    let id = add(StreamSpec {
                        width: *width,
                        shape: out_shape.clone(),
                        data,
                    });
                    if domain {
                        // A domain of the whole output: lo..hi per dimension, column first.
                        let (lo, hi) = domain_of(rng, &out_shape);
                        args.push(Pass::Domain(id, lo, hi));
                        continue;
                    }
                    Pass::Whole(id)
                }
            };
            args.push(pass);
        }
        // Every output domain must be the same region.
        let outputs: Vec<usize> = kernel
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, Param::Output { .. }))
            .map(|(i, _)| i)
            .collect();
        let first = outputs.iter().find_map(|&i| match &args[i] {
            Pass::Domain(_, lo, hi) => Some((lo.clone(), hi.clone())),
            _ => None,
        });
        if let Some((lo, hi)) = first {
            for &i in &outputs {
                if let Pass::Domain(_, l, h) = &mut args[i] {
                    *l = lo.clone();
                    *h = hi.clone();
                }
            }
        }
        // Sometimes a write mask of the outputs' shape: elements off keep their values.
        let mask = (rng.below(5) == 0).then(|| {
            let n: usize = out_shape.iter().product();
            add(StreamSpec {
                width: 1,
                shape: out_shape.clone(),
                data: (0..n).map(|_| rng.below(2) as f32).collect(),
            })
        });
        Call::Kernel {
            kernel: k,
            args,
            mask,
        }
    }

    fn other_call(&self, rng: &mut Rng, streams: &mut Vec<StreamSpec>) -> Option<Call> {
        let mut add = |s: StreamSpec| {
            streams.push(s);
            streams.len() - 1
        };
        let data = |rng: &mut Rng, width: u8, shape: Vec<usize>| {
            let n: usize = shape.iter().product::<usize>() * width as usize;
            StreamSpec {
                width,
                shape,
                data: (0..n).map(|_| datum(rng)).collect(),
            }
        };
        match rng.below(4) {
            0 | 1 if !self.reductions.is_empty() => {
                let r = rng.below(self.reductions.len() as u64) as usize;
                let width = self.reductions[r].width;
                let s = shape(rng, MAX_ELEMENTS);
                let input = add(data(rng, width, s.clone()));
                if rng.below(2) == 0 {
                    return Some(Call::ReduceValue {
                        reduction: r,
                        input,
                    });
                }
                // Each output extent divides the input's.
                let out: Vec<usize> = s
                    .iter()
                    .map(|&e| {
                        let divisors: Vec<usize> = (1..=e).filter(|d| e % d == 0).collect();
                        divisors[rng.below(divisors.len() as u64) as usize]
                    })
                    .collect();
                let output = add(data(rng, width, out));
                Some(Call::ReduceStream {
                    reduction: r,
                    input,
                    output,
                })
            }
            2 => {
                let width = 1 + rng.below(4) as u8;
                let dst_shape = shape(rng, 64);
                let n = 1 + rng.below(40) as usize;
                let rank = dst_shape.len() as u8;
                let dst = add(data(rng, width, dst_shape));
                let index = add(index_stream(rng, rank, n));
                let d = add(data(rng, width, vec![n]));
                let matching: Vec<usize> = (0..self.reductions.len())
                    .filter(|&r| self.reductions[r].width == width)
                    .collect();
                let op = match rng.below(5) {
                    0 => Combine::Replace,
                    1 => Combine::Add,
                    2 => Combine::Min,
                    3 => Combine::Max,
                    _ => match matching.first() {
                        Some(r) => Combine::Reduce(*r),
                        None => Combine::Add,
                    },
                };
                Some(Call::Scatter {
                    dst,
                    index,
                    data: d,
                    op,
                })
            }
            _ => {
                let width = 1 + rng.below(4) as u8;
                let data_shape = shape(rng, 64);
                let rank = data_shape.len() as u8;
                let n = 1 + rng.below(40) as usize;
                let d = add(data(rng, width, data_shape));
                let index = add(index_stream(rng, rank, n));
                let dst = add(data(rng, width, vec![n]));
                let op = match rng.below(3) {
                    0 => Fetch::Plain,
                    1 => Fetch::Increment,
                    _ => Fetch::Add((0..width).map(|_| datum(rng)).collect()),
                };
                Some(Call::GatherOp {
                    dst,
                    index,
                    data: d,
                    op,
                })
            }
        }
    }
}

/// A random non-empty region of `shape`, column first.
fn domain_of(rng: &mut Rng, shape: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for &e in shape.iter().rev() {
        let a = rng.below(e as u64) as usize;
        let b = a + 1 + rng.below((e - a) as u64) as usize;
        lo.push(a);
        hi.push(b);
    }
    (lo, hi)
}

/// What a case left: every stream's contents and every reduction's value, in order, or the
/// error of the call that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub values: Vec<Vec<f32>>,
    pub error: Option<(usize, String)>,
}

impl Case {
    /// Runs the case on `rt`. `Err` is a failure to even compile the source (a generator bug
    /// when the CPU backend says so).
    pub fn run(&self, rt: &Runtime) -> Result<Outcome, String> {
        let program = rt
            .compile(&self.source, "fuzz.br")
            .map_err(|e| e.to_string())?;
        let streams: Vec<Stream> = self
            .streams
            .iter()
            .map(|s| {
                let st = rt.stream_of(s.width, &s.shape).expect("a small stream");
                st.read(&s.data).expect("its data");
                st
            })
            .collect();
        let mut values = Vec::new();
        let mut error = None;
        for (i, call) in self.calls.iter().enumerate() {
            if let Err(e) = self.call(rt, &program, &streams, call, &mut values) {
                error = Some((i, e));
                break;
            }
        }
        for s in &streams {
            values.push(s.to_vec().map_err(|e| e.to_string())?);
        }
        Ok(Outcome { values, error })
    }

    fn call(
        &self,
        rt: &Runtime,
        program: &Program,
        streams: &[Stream],
        call: &Call,
        values: &mut Vec<Vec<f32>>,
    ) -> Result<(), String> {
        let e = |e: brook::BrookError| e.to_string();
        match call {
            Call::Kernel { kernel, args, mask } => {
                let domains: Vec<Option<brook::StreamDomain>> = args
                    .iter()
                    .map(|a| match a {
                        Pass::Domain(id, lo, hi) => Some(streams[*id].domain(lo, hi)),
                        _ => None,
                    })
                    .map(|d| d.transpose())
                    .collect::<Result<_, _>>()
                    .map_err(e)?;
                let iters: Vec<Option<Stream>> = args
                    .iter()
                    .map(|a| match a {
                        Pass::Iter {
                            width,
                            n,
                            start,
                            step,
                        } => {
                            let end = start + step * *n as f32;
                            let spec = IterSpec::new(&[*n], *width, [*start; 4], [end; 4])?;
                            rt.iter(spec).map(Some)
                        }
                        _ => Ok(None),
                    })
                    .collect::<Result<_, brook::BrookError>>()
                    .map_err(e)?;
                let bound: Vec<Arg> = args
                    .iter()
                    .zip(domains.iter().zip(&iters))
                    .map(|(a, (d, it))| match (a, d, it) {
                        (Pass::Whole(id), _, _) => Arg::Stream(&streams[*id]),
                        (Pass::Domain(..), Some(d), _) => Arg::Domain(d),
                        (Pass::Constant(v), _, _) => Arg::Constant(v.clone()),
                        (Pass::Iter { .. }, _, Some(it)) => Arg::Stream(it),
                        _ => unreachable!("made above"),
                    })
                    .collect();
                if let Some(m) = mask {
                    rt.set_write_mask(&streams[*m]).map_err(e)?;
                    rt.enable_write_mask().map_err(e)?;
                }
                let ran = rt.run(program, &self.kernels[*kernel].name, &bound);
                if mask.is_some() {
                    rt.disable_write_mask().map_err(e)?;
                }
                ran.map_err(e)
            }
            Call::ReduceValue { reduction, input } => {
                let v = rt
                    .reduce_to_value(
                        program,
                        &self.reductions[*reduction].name,
                        &streams[*input],
                        &[],
                    )
                    .map_err(e)?;
                values.push(v);
                Ok(())
            }
            Call::ReduceStream {
                reduction,
                input,
                output,
            } => rt
                .reduce_to_stream(
                    program,
                    &self.reductions[*reduction].name,
                    &streams[*input],
                    &streams[*output],
                    &[],
                )
                .map_err(e),
            Call::Scatter {
                dst,
                index,
                data,
                op,
            } => {
                let op = match op {
                    Combine::Replace => ScatterOp::Replace,
                    Combine::Add => ScatterOp::Add,
                    Combine::Min => ScatterOp::Min,
                    Combine::Max => ScatterOp::Max,
                    Combine::Reduce(r) => ScatterOp::Reduce(program, &self.reductions[*r].name),
                };
                rt.scatter(&streams[*dst], &streams[*index], &streams[*data], op)
                    .map_err(e)
            }
            Call::GatherOp {
                dst,
                index,
                data,
                op,
            } => {
                let op = match op {
                    Fetch::Plain => GatherOp::Fetch,
                    Fetch::Increment => GatherOp::Increment,
                    Fetch::Add(v) => GatherOp::With(ScatterOp::Add, v),
                };
                rt.gather_op(&streams[*dst], &streams[*index], &streams[*data], op)
                    .map_err(e)
            }
        }
    }

    /// The ulp bound an output float of value list `list` allows (0 for exact ones), by which
    /// kernel call's output stream it is.
    fn tolerance(&self, list: usize) -> f64 {
        // Reduction values come first in `values`, in call order; streams after.
        let reduced = self
            .calls
            .iter()
            .filter(|c| matches!(c, Call::ReduceValue { .. }))
            .count();
        let Some(stream) = list.checked_sub(reduced) else {
            return 0.0;
        };
        for call in &self.calls {
            let Call::Kernel { kernel, args, .. } = call else {
                continue;
            };
            let k = &self.kernels[*kernel];
            let mut out = 0;
            for (p, a) in k.params.iter().zip(args) {
                if let Param::Output { .. } = p {
                    let id = match a {
                        Pass::Whole(id) | Pass::Domain(id, ..) => *id,
                        Pass::Constant(_) | Pass::Iter { .. } => continue,
                    };
                    if id == stream {
                        if let Some(bound) = k.approximate[out] {
                            return bound;
                        }
                    }
                    out += 1;
                }
            }
        }
        0.0
    }

    /// Where `gl` differs from `cpu`, described; `None` when they agree.
    pub fn compare(&self, cpu: &Outcome, gl: &Outcome) -> Option<String> {
        if cpu.error.is_some() != gl.error.is_some() {
            return Some(format!(
                "errors differ: CPU {:?}, GL {:?}",
                cpu.error, gl.error
            ));
        }
        if cpu.error.is_some() {
            return None;
        }
        for (k, (c, g)) in cpu.values.iter().zip(&gl.values).enumerate() {
            let ulps = self.tolerance(k);
            for (i, (a, b)) in c.iter().zip(g).enumerate() {
                if !agree(*a, *b, ulps) {
                    return Some(format!(
                        "value list {k} (of {}), float {i}: CPU {a} vs GL {b} (allowed {ulps} ulp)",
                        cpu.values.len()
                    ));
                }
            }
        }
        None
    }

    pub fn describe(&self) -> String {
        let mut s = format!("seed {}\n--- source\n{}--- calls\n", self.seed, self.source);
        for c in &self.calls {
            s.push_str(&format!("{c:?}\n"));
        }
        s.push_str("--- streams\n");
        for (i, st) in self.streams.iter().enumerate() {
            s.push_str(&format!(
                "{i}: float{} {:?} {:?}\n",
                st.width, st.shape, st.data
            ));
        }
        s
    }
}

fn agree(a: f32, b: f32, ulps: f64) -> bool {
    if a == b || a.is_nan() && b.is_nan() {
        return true;
    }
    if ulps == 0.0 {
        return false;
    }
    // A denormal may be flushed; otherwise within the bound of the built-in at the end.
    if a.abs() < f32::MIN_POSITIVE && b == 0.0 {
        return true;
    }
    let ulp = f32::from_bits(a.abs().to_bits() + 1) - a.abs();
    ((a - b).abs() / ulp) as f64 <= ulps
}
