//! From an element of a recorded stream back to the host's `streamRead`s: the version that
//! holds its value, the operation that made that version, and what the operation read for
//! this element — found by re-evaluating the element on the CPU interpreter with the
//! recorded inputs (kernels, reduction steps, combiners) or from the recorded inputs and
//! core's index rules (scatter and gather-op targets, masks, domains). Kernels and vout
//! here; reductions in `reduce`, scatters and gather-ops in `indexed`.

use brook_core::index::unravel;
use brook_ir::ParamClass;

mod indexed;
mod reduce;

use super::log::{ArgRecord, At, HistoryLog, KernelRecord, Origin};
use super::replay::{in_domain, whole_linear, Replay};
use super::tree::Why;
use super::Limits;

/// Walks one element's history within `limits`.
pub(crate) struct Walker<'a> {
    log: &'a HistoryLog,
    limits: Limits,
    /// Steps made so far.
    steps: usize,
    /// Why the walk stopped following inputs somewhere, if it did.
    pub stopped: Option<String>,
}

impl<'a> Walker<'a> {
    pub fn new(log: &'a HistoryLog, limits: Limits) -> Walker<'a> {
        Walker {
            log,
            limits,
            steps: 0,
            stopped: None,
        }
    }

    /// `stream[…]` for element `linear` of `at`'s stream.
    fn name(&self, at: At, linear: usize) -> String {
        let s = &self.log.streams[at.stream];
        let idx = unravel(linear, &s.shape);
        let subscripts: String = idx[..s.shape.len()]
            .iter()
            .map(|i| format!("[{i}]"))
            .collect();
        format!("{}{subscripts}", s.label_at(at.stream, at.version))
    }

    /// The floats of element `linear` of `at`.
    fn value(&self, at: At, linear: usize) -> &'a [f32] {
        let fpe = self.log.streams[at.stream].floats_per_element();
        let data = &self.log.version(at).contents;
        data.get(linear * fpe..(linear + 1) * fpe).unwrap_or(&[])
    }

    /// The history of element `linear` of version `at`, its line starting with `via` (how the
    /// reader reached it: a gather, a fold step), and its value.
    pub fn element(&mut self, at: At, linear: usize, depth: usize, via: &str) -> Why {
        let mut step = self.step(at, linear, depth, via);
        step.value = self.value(at, linear).to_vec();
        step
    }

    fn step(&mut self, at: At, linear: usize, depth: usize, via: &str) -> Why {
        let head = format!(
            "{via}{} = {}",
            self.name(at, linear),
            show(self.value(at, linear))
        );
        self.steps += 1;
        if depth > self.limits.depth || self.steps > self.limits.elements {
            let why = if depth > self.limits.depth {
                format!("depth {} reached (--depth)", self.limits.depth)
            } else {
                format!("{} elements shown (--elements)", self.limits.elements)
            };
            let text = format!("{head}: not followed further, {why}");
            self.stopped.get_or_insert(why);
            return Why::leaf(text, None);
        }
        let version = self.log.version(at);
        let op = Some(version.op).filter(|&op| op > 0);
        let previous = At {
            version: at.version.wrapping_sub(1),
            ..at
        };
        let name = self.log.streams[at.stream].label_at(at.stream, at.version);
        match &version.origin {
            Origin::Before => {
                let what = match &self.log.streams[at.stream].iter {
                    Some(it) => format!(
                        "iterator from {} to {}, computed",
                        show(&it.start()[..usize::from(it.components())]),
                        show(&it.end()[..usize::from(it.components())])
                    ),
                    None => "held before the recording began".into(),
                };
                Why::leaf(format!("{head}: {what}"), None)
            }
            Origin::HostRead { domain } => {
                let shape = &self.log.streams[at.stream].shape;
                if in_domain(shape, domain.as_ref(), linear).is_none() {
                    self.kept(
                        head,
                        op,
                        "outside the domain streamRead wrote",
                        previous,
                        linear,
                        depth,
                    )
                } else {
                    Why::leaf(
                        format!(
                            "{head}: streamRead({name}) from host memory, operation {}",
                            version.op
                        ),
                        op,
                    )
                }
            }
            Origin::Swap { from } => {
                let input = self.element(*from, linear, depth + 1, "");
                node(
                    format!("{head}: came by streamSwap, operation {}", version.op),
                    op,
                    vec![input],
                )
            }
            // Not an operation: the depth stays.
            Origin::Renamed { before, from } => {
                let input = self.element(*from, linear, depth, "");
                node(
                    format!("{head}: the stream `{before}` held, `{name}` since a streamSwap"),
                    None,
                    vec![input],
                )
            }
            // The copy is the runtime's, not the program's: the element is the one copied.
            Origin::Copy { from } => {
                self.steps -= 1;
                self.element(*from, linear, depth, via)
            }
            Origin::Kernel { call, param } => self.kernel(head, call, *param, at, linear, depth),
            Origin::Reduce(r) => self.reduce(head, r, at, linear, depth),
            Origin::Scatter(s) => self.scatter(head, s, at, linear, depth),
            Origin::GatherOp { call, dst } => self.gather_op(head, call, *dst, linear, depth),
        }
    }

    /// The element kept its previous value through operation `op` (`because`).
    fn kept(
        &mut self,
        head: String,
        op: Option<usize>,
        because: &str,
        previous: At,
        linear: usize,
        depth: usize,
    ) -> Why {
        let number = op.unwrap_or(0);
        let before = self.element(previous, linear, depth, "");
        node(
            format!("{head}: kept through operation {number} ({because})"),
            op,
            vec![before],
        )
    }

    fn kernel(
        &mut self,
        head: String,
        call: &KernelRecord,
        param: usize,
        at: At,
        linear: usize,
        depth: usize,
    ) -> Why {
        let module = &call.compiled.module;
        let func = module.func(call.kernel);
        let op = Some(call.op);
        let line = call.compiled.line_of(func);
        let title = format!(
            "kernel `{}` (Brook line {line}), operation {}",
            func.name, call.op
        );
        let ArgRecord::Output { before, domain } = &call.args[param] else {
            return Why::leaf(format!("{head}: {title}"), op);
        };
        let shape = self.log.streams[at.stream].shape.clone();
        let replay = match Replay::new(self.log, &call.args) {
            Ok(r) => r,
            Err(e) => return Why::leaf(format!("{head}: {title}; could not replay it: {e}"), op),
        };
        let max = match func.params[param].class {
            ParamClass::Vout { max } => Some(max as usize),
            _ => None,
        };
        if let Some(max) = max {
            return self.vout(head, &title, call, &replay, param, max, at, linear, depth);
        }
        let Some(element) = in_domain(&shape, domain.as_ref(), linear) else {
            let because = format!("{title}: outside the domain it wrote");
            return self.kept(head, op, &because, *before, linear, depth);
        };
        if call.untracked_mask {
            return Why::leaf(
                format!("{head}: {title}, under a write mask element histories do not keep (a C++ write_mask, or a loaded mask changed since): whether it wrote this element is not known"),
                op,
            );
        }
        if let Some(mask) = call.mask {
            let fpe = self.log.streams[mask.stream].floats_per_element();
            let on = self
                .log
                .version(mask)
                .contents
                .get(linear * fpe)
                .is_some_and(|&m| m != 0.0);
            if !on {
                let because = format!("{title}: the write mask {} is off", self.name(mask, linear));
                return self.kept(head, op, &because, *before, linear, depth);
            }
        }
        let eval = match replay.kernel_element(
            self.log,
            module,
            call.kernel,
            &call.args,
            &call.shape,
            element,
        ) {
            Ok(e) => e,
            Err(e) => {
                return Why::leaf(format!("{head}: {title}; re-evaluating it failed: {e}"), op)
            }
        };
        let Some(outputs) = &eval.outputs else {
            let because = format!("{title}: this element executed `discard`");
            return self.kept(head, op, &because, *before, linear, depth);
        };
        let mut text = format!("{head}: {title}, out `{}`", func.params[param].name);
        if let Some((_, v)) = outputs.iter().find(|(p, _)| *p == param) {
            text.push_str(&agreement(self.value(at, linear), v));
        }
        let mut inputs = Vec::new();
        if let Some(mask) = call.mask {
            inputs.push(Why::leaf(
                format!(
                    "the write mask {} = {} is on: the element was written",
                    self.name(mask, linear),
                    show(self.value(mask, linear))
                ),
                None,
            ));
        }
        inputs.extend(self.reads(call, &eval, depth));
        read_nothing(&mut text, &inputs);
        node(text, op, inputs)
    }

    /// What a re-evaluated kernel element read: its stream and iterator elements, constants
    /// and gathers, each followed into its own history.
    fn reads(
        &mut self,
        call: &KernelRecord,
        eval: &brook_cpu::why::ElementEval,
        depth: usize,
    ) -> Vec<Why> {
        let module = &call.compiled.module;
        let func = module.func(call.kernel);
        let mut out = Vec::new();
        for (k, (p, a)) in func.params.iter().zip(&call.args).enumerate() {
            match a {
                ArgRecord::Constant(v) => out.push(Why::leaf(
                    format!("constant `{}` = {}", p.name, show(v)),
                    None,
                )),
                ArgRecord::Input { at, domain } => {
                    if let Some(read) = eval.inputs.iter().find(|r| r.param == k) {
                        let shape = &self.log.streams[at.stream].shape;
                        let whole = whole_linear(shape, domain.as_ref(), read.linear);
                        let via = format!("`{}` ", p.name);
                        let mut step = self.element(*at, whole, depth + 1, &via);
                        step.read = Some((p.name.clone(), whole));
                        out.push(step);
                    }
                }
                ArgRecord::Output { .. } => {}
            }
        }
        for g in &eval.gathers {
            let ArgRecord::Input { at, domain } = &call.args[g.param] else {
                continue;
            };
            let shape = &self.log.streams[at.stream].shape;
            let whole = whole_linear(shape, domain.as_ref(), g.linear);
            let line = call.compiled.source.line_of(g.at);
            let element: String = g.element.iter().map(|i| format!("[{i}]")).collect();
            let via = format!(
                "gather `{}` at Brook line {line}: index {} rounds and clamps to {element}, ",
                func.params[g.param].name,
                show(&g.index)
            );
            let mut step = self.element(*at, whole, depth + 1, &via);
            step.read = Some((func.params[g.param].name.clone(), whole));
            out.push(step);
        }
        out
    }

    /// Element `linear` of a vout stream: which element's which push it is (the call's
    /// elements re-evaluated in order, each keeping at most `max` pushes).
    #[allow(clippy::too_many_arguments)]
    fn vout(
        &mut self,
        head: String,
        title: &str,
        call: &KernelRecord,
        replay: &Replay,
        param: usize,
        max: usize,
        at: At,
        linear: usize,
        depth: usize,
    ) -> Why {
        let module = &call.compiled.module;
        let total: usize = call.shape.iter().product();
        let mut seen = 0;
        for e in 0..total {
            let eval = match replay.kernel_element(
                self.log,
                module,
                call.kernel,
                &call.args,
                &call.shape,
                e,
            ) {
                Ok(v) => v,
                Err(err) => {
                    return Why::leaf(
                        format!("{head}: {title}; re-evaluating it failed: {err}"),
                        Some(call.op),
                    )
                }
            };
            let pushes: Vec<&Vec<f32>> = (eval.pushed.iter())
                .filter(|(p, _)| *p == param)
                .map(|(_, v)| v)
                .take(max)
                .collect();
            if linear < seen + pushes.len() {
                let push = linear - seen;
                let idx = unravel(e, &call.shape);
                let element: String = idx[..call.shape.len()]
                    .iter()
                    .map(|i| format!("[{i}]"))
                    .collect();
                let mut text = format!(
                    "{head}: {title}, vout `{}`: push {} of call element {element} (of its {} push(es)){}",
                    module.func(call.kernel).params[param].name,
                    push + 1,
                    pushes.len(),
                    agreement(self.value(at, linear), pushes[push])
                );
                let inputs = self.reads(call, &eval, depth);
                read_nothing(&mut text, &inputs);
                return node(text, Some(call.op), inputs);
            }
            seen += pushes.len();
        }
        Why::leaf(
            format!("{head}: {title}: beyond the {seen} values pushed, so zero"),
            Some(call.op),
        )
    }
}

/// A kernel element that read nothing (its value from `indexof` or literals alone) says so,
/// so that its step is seen to end the walk rather than lose its inputs.
fn read_nothing(text: &mut String, inputs: &[Why]) {
    if inputs.is_empty() {
        text.push_str(": it read no stream, iterator or constant");
    }
}

fn node(text: String, op: Option<usize>, inputs: Vec<Why>) -> Why {
    Why {
        text,
        op,
        inputs,
        read: None,
        value: Vec::new(),
    }
}

fn combiner_name(op: &super::log::CombinerRecord) -> String {
    use super::log::CombinerRecord as C;
    match op {
        C::Replace => "replace".into(),
        C::Add => "add".into(),
        C::Min => "min".into(),
        C::Max => "max".into(),
        C::Reduce { compiled, function } => format!("`{}`", compiled.module.func(*function).name),
    }
}

/// An element's floats: `4`, `(1, 2.5)`.
pub(crate) fn show(v: &[f32]) -> String {
    match v {
        [x] => format!("{x}"),
        _ => format!(
            "({})",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What the CPU interpreter's re-evaluation says about the backend's value: nothing when they
/// agree (as bits), the interpreter's value when they differ.
fn agreement(backend: &[f32], cpu: &[f32]) -> String {
    let same = backend.len() == cpu.len()
        && backend
            .iter()
            .zip(cpu)
            .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
    if same || backend.is_empty() {
        String::new()
    } else {
        format!(
            " (the CPU interpreter, re-evaluating it, gets {})",
            show(cpu)
        )
    }
}
