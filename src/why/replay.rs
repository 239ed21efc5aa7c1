//! Re-evaluating one element of a recorded operation on the CPU interpreter, with the
//! inputs that operation read (their recorded versions): what a history knows about a
//! kernel's reads, a reduction's partial results and a scatter's combining comes from here.

use brook_core::index::{ravel, unravel};
use brook_core::Domain;
use brook_cpu::why::ElementEval;
use brook_cpu::{CpuArg, CpuStream};
use brook_ir::{FunctionId, Module, ParamClass};

use super::log::{ArgRecord, CombinerRecord, HistoryLog};

/// The recorded arguments of a call as the CPU engines take them: streams rebuilt from their
/// versions (a domain cut out, as a call binds it), constants as they were.
pub(crate) struct Replay {
    streams: Vec<Option<CpuStream>>,
    constants: Vec<Option<Vec<f32>>>,
}

impl Replay {
    pub fn new(log: &HistoryLog, args: &[ArgRecord]) -> Result<Replay, String> {
        let mut streams = Vec::new();
        let mut constants = Vec::new();
        for a in args {
            let (s, c) = match a {
                ArgRecord::Input { at, domain } => {
                    let stream = &log.streams[at.stream];
                    if stream.iter.is_some() && domain.is_none() {
                        (None, None)
                    } else {
                        let data = &log.version(*at).contents;
                        let (shape, data) = cut(
                            &stream.shape,
                            stream.floats_per_element(),
                            data,
                            domain.as_ref(),
                        );
                        let s = CpuStream::from_data(&stream.widths, &shape, &data)
                            .map_err(|e| e.to_string())?;
                        (Some(s), None)
                    }
                }
                ArgRecord::Constant(v) => (None, Some(v.clone())),
                ArgRecord::Output { .. } => (None, None),
            };
            streams.push(s);
            constants.push(c);
        }
        Ok(Replay { streams, constants })
    }

    /// The arguments for `func`'s parameters: `None` for outputs.
    fn args<'a>(
        &'a self,
        log: &'a HistoryLog,
        func: &brook_ir::Function,
        args: &'a [ArgRecord],
    ) -> Vec<Option<CpuArg<'a>>> {
        (func.params.iter().zip(args).enumerate())
            .map(|(k, (p, a))| match a {
                ArgRecord::Output { .. } => None,
                ArgRecord::Constant(_) => self.constants[k].clone().map(CpuArg::Constant),
                ArgRecord::Input { at, .. } => match (&self.streams[k], p.class) {
                    (Some(s), ParamClass::Gather { .. }) => Some(CpuArg::Gather(s)),
                    (Some(s), _) => Some(CpuArg::Stream(s)),
                    (None, _) => log.streams[at.stream].iter.as_ref().map(CpuArg::Iter),
                },
            })
            .collect()
    }

    /// Element `linear` of a call of `kernel` of shape `shape`, its reads logged.
    pub fn kernel_element(
        &self,
        log: &HistoryLog,
        module: &Module,
        kernel: FunctionId,
        args: &[ArgRecord],
        shape: &[usize],
        linear: usize,
    ) -> Result<ElementEval, String> {
        let cpu_args = self.args(log, module.func(kernel), args);
        brook_cpu::why::element(module, kernel, &cpu_args, shape, linear).map_err(|e| e.to_string())
    }

    /// One step of reduce function `f`, bound with these extra arguments (in `f`'s parameter
    /// order, its element and accumulator left out).
    pub fn combine(
        &self,
        log: &HistoryLog,
        module: &Module,
        f: FunctionId,
        extra: &[ArgRecord],
        a: &[f32],
        r: &[f32],
    ) -> Result<Vec<f32>, String> {
        let func = module.func(f);
        let params: Vec<&brook_ir::Param> = (func.params.iter())
            .filter(|p| !matches!(p.class, ParamClass::Stream | ParamClass::Reduce))
            .collect();
        let cpu_args: Vec<CpuArg> = (params.iter().zip(extra).enumerate())
            .filter_map(|(k, (p, a))| match a {
                ArgRecord::Constant(_) => self.constants[k].clone().map(CpuArg::Constant),
                ArgRecord::Input { at, .. } => match (&self.streams[k], p.class) {
                    (Some(s), _) => Some(CpuArg::Gather(s)),
                    (None, _) => log.streams[at.stream].iter.as_ref().map(CpuArg::Iter),
                },
                ArgRecord::Output { .. } => None,
            })
            .collect();
        brook_cpu::why::combine(module, f, &cpu_args, a, r).map_err(|e| e.to_string())
    }
}

/// A built-in or reduce-function combiner applied to element `x` and accumulator `acc`, as a
/// scatter combines (`acc` the destination).
pub(crate) fn combined(
    log: &HistoryLog,
    op: &CombinerRecord,
    x: &[f32],
    acc: &[f32],
) -> Result<Vec<f32>, String> {
    let each = |f: fn(f32, f32) -> f32| Ok(x.iter().zip(acc).map(|(x, o)| f(*x, *o)).collect());
    match op {
        CombinerRecord::Replace => Ok(x.to_vec()),
        CombinerRecord::Add => each(|x, o| o + x),
        CombinerRecord::Min => each(f32::min),
        CombinerRecord::Max => each(f32::max),
        CombinerRecord::Reduce { compiled, function } => {
            let none = Replay {
                streams: Vec::new(),
                constants: Vec::new(),
            };
            none.combine(log, &compiled.module, *function, &[], x, acc)
        }
    }
}

/// `data` (elements of `fpe` floats of a stream of `shape`) cut to `domain`: the domain's
/// shape and elements, in order.
fn cut(
    shape: &[usize],
    fpe: usize,
    data: &[f32],
    domain: Option<&Domain>,
) -> (Vec<usize>, Vec<f32>) {
    match domain {
        None => (shape.to_vec(), data.to_vec()),
        Some(d) => {
            let out = (d.linear_positions(shape))
                .flat_map(|l| data[l * fpe..(l + 1) * fpe].iter().copied())
                .collect();
            (d.shape(), out)
        }
    }
}

/// The position in the whole stream of element `linear` of its `domain` (itself without one).
pub(crate) fn whole_linear(shape: &[usize], domain: Option<&Domain>, linear: usize) -> usize {
    match domain {
        None => linear,
        Some(d) => {
            let mut idx = unravel(linear, &d.shape());
            for (i, lo) in idx.iter_mut().zip(d.lo()) {
                *i += lo;
            }
            ravel(&idx, shape)
        }
    }
}

/// The position within `domain` of element `linear` of the whole stream, when it lies inside.
pub(crate) fn in_domain(shape: &[usize], domain: Option<&Domain>, linear: usize) -> Option<usize> {
    match domain {
        None => Some(linear),
        Some(d) => {
            let mut idx = unravel(linear, shape);
            for (k, i) in idx.iter_mut().enumerate().take(shape.len()) {
                if *i < d.lo()[k] || *i >= d.hi()[k] {
                    return None;
                }
                *i -= d.lo()[k];
            }
            Some(ravel(&idx, &d.shape()))
        }
    }
}
