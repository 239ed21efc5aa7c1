//! From an element of a recorded stream back to the host's `streamRead`s: the version that
//! holds its value, the operation that made that version, and what the operation read for
//! this element — found by re-evaluating the element on the CPU interpreter with the
//! recorded inputs (kernels, reduction steps, combiners) or from the recorded inputs and
//! core's index rules (scatter and gather-op targets, masks, domains).

use brook_core::index::{gather_component_f, unravel};
use brook_ir::ParamClass;

use super::log::{
    ArgRecord, At, GatherOpRecord, HistoryLog, KernelRecord, Origin, ReduceRecord, ScatterRecord,
};
use super::replay::{combined, in_domain, whole_linear, Replay};
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
        format!("{}{subscripts}", s.label(at.stream))
    }

    /// The floats of element `linear` of `at`.
    fn value(&self, at: At, linear: usize) -> &'a [f32] {
        let fpe = self.log.streams[at.stream].floats_per_element();
        let data = &self.log.version(at).contents;
        data.get(linear * fpe..(linear + 1) * fpe).unwrap_or(&[])
    }

    /// The history of element `linear` of version `at`, its line starting with `via` (how the
    /// reader reached it: a gather, a fold step).
    pub fn element(&mut self, at: At, linear: usize, depth: usize, via: &str) -> Why {
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
        let name = self.log.streams[at.stream].label(at.stream);
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
                        out.push(self.element(*at, whole, depth + 1, &via));
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
            out.push(self.element(*at, whole, depth + 1, &via));
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
                let text = format!(
                    "{head}: {title}, vout `{}`: push {} of call element {element} (of its {} push(es)){}",
                    module.func(call.kernel).params[param].name,
                    push + 1,
                    pushes.len(),
                    agreement(self.value(at, linear), pushes[push])
                );
                let inputs = self.reads(call, &eval, depth);
                return node(text, Some(call.op), inputs);
            }
            seen += pushes.len();
        }
        Why::leaf(
            format!("{head}: {title}: beyond the {seen} values pushed, so zero"),
            Some(call.op),
        )
    }

    fn reduce(
        &mut self,
        head: String,
        r: &ReduceRecord,
        at: At,
        linear: usize,
        depth: usize,
    ) -> Why {
        let module = &r.compiled.module;
        let func = module.func(r.function);
        let op = Some(r.op);
        let title = format!(
            "reduction `{}` (Brook line {}), operation {}",
            func.name,
            r.compiled.line_of(func),
            r.op
        );
        let input = &self.log.streams[r.input.stream];
        let in_shape = r.domain.as_ref().map_or(input.shape.clone(), |d| d.shape());
        let rank = r.plan.input.len();
        let out_shape = &self.log.streams[at.stream].shape;
        let mut target = vec![0; rank];
        let t = unravel(linear, out_shape);
        target[rank - out_shape.len()..].copy_from_slice(&t[..out_shape.len()]);
        let block: Vec<usize> = (0..rank)
            .map(|d| r.plan.input[d] / r.plan.target[d])
            .collect();
        // The block's elements, row-major: each as (its linear position in the whole input).
        let count: usize = block.iter().product();
        let pad = rank - in_shape.len();
        let leaves: Vec<usize> = (0..count)
            .map(|k| {
                let b = unravel(k, &block);
                let idx: Vec<usize> = (0..rank).map(|d| target[d] * block[d] + b[d]).collect();
                let mut lin = 0;
                for d in pad..rank {
                    lin = lin * in_shape[d - pad] + idx[d];
                }
                whole_linear(&input.shape, r.domain.as_ref(), lin)
            })
            .collect();
        let first = leaves
            .first()
            .map_or(String::new(), |&l| self.name(r.input, l));
        let last = leaves
            .last()
            .map_or(String::new(), |&l| self.name(r.input, l));
        let replay = match Replay::new(self.log, &r.extra) {
            Ok(x) => x,
            Err(e) => return Why::leaf(format!("{head}: {title}; could not replay it: {e}"), op),
        };
        // The partials, a grid over the block, folded pass by pass as core's plan says.
        let mut grid: Vec<Part> = leaves.iter().map(|&l| Part::Leaf(l)).collect();
        let mut extents = block.clone();
        for (n, pass) in r.plan.passes.iter().enumerate() {
            if pass.k <= 1 {
                continue;
            }
            let d = pass.dim;
            let groups = extents[d].div_ceil(pass.k);
            let mut next_extents = extents.clone();
            next_extents[d] = groups;
            let size: usize = next_extents.iter().product();
            let mut cells: Vec<Vec<Part>> = (0..size).map(|_| Vec::new()).collect();
            for (k, part) in grid.into_iter().enumerate() {
                let mut idx = unravel(k, &extents);
                idx[d] /= pass.k;
                let mut at = 0;
                for dd in 0..rank {
                    at = at * next_extents[dd] + idx[dd];
                }
                cells[at].push(part);
            }
            grid = cells
                .into_iter()
                .map(|mut parts| {
                    if parts.len() == 1 {
                        parts.pop().expect("one")
                    } else {
                        Part::Fold {
                            pass: n + 1,
                            dim: d,
                            parts,
                        }
                    }
                })
                .collect();
            extents = next_extents;
        }
        let root = grid.into_iter().next();
        let mut inputs = Vec::new();
        let mut text = format!("{head}: {title}, the fold of its block of {count} element(s) of `{}`, {first} to {last}", input.label(r.input.stream));
        match root {
            Some(Part::Fold { parts, pass, dim }) => {
                let folded = self.fold(r, &replay, parts, depth, &mut inputs);
                text.push_str(&format!(
                    " (pass {pass}, along dimension {dim}, folds the last step)"
                ));
                if let Ok(v) = folded {
                    text.push_str(&agreement(self.value(at, linear), &v));
                }
            }
            Some(Part::Leaf(l)) => inputs.push(self.element(r.input, l, depth + 1, "")),
            None => {}
        }
        node(text, op, inputs)
    }

    /// Folds `parts` in order (`r = f(a, r)`, starting from the first), pushing one step per
    /// part onto `out`; returns the folded value.
    fn fold(
        &mut self,
        r: &ReduceRecord,
        replay: &Replay,
        parts: Vec<Part>,
        depth: usize,
        out: &mut Vec<Why>,
    ) -> Result<Vec<f32>, String> {
        let module = &r.compiled.module;
        let mut acc: Option<Vec<f32>> = None;
        for part in parts {
            let (why, value) = match part {
                Part::Leaf(l) => {
                    let v = self.value(r.input, l).to_vec();
                    (self.element(r.input, l, depth + 1, ""), v)
                }
                Part::Fold { pass, dim, parts } => {
                    let mut inner = Vec::new();
                    // A fold step is part of the same operation: no deeper.
                    let v = self.fold(r, replay, parts, depth, &mut inner)?;
                    let text = format!("pass {pass} folded along dimension {dim}: {}", show(&v));
                    (node(text, Some(r.op), inner), v)
                }
            };
            out.push(why);
            acc = Some(match acc {
                None => value,
                Some(a) => replay.combine(self.log, module, r.function, &r.extra, &value, &a)?,
            });
        }
        acc.ok_or_else(|| "an empty block".to_string())
    }

    fn scatter(
        &mut self,
        head: String,
        s: &ScatterRecord,
        at: At,
        linear: usize,
        depth: usize,
    ) -> Why {
        let op = Some(s.op_no);
        let shape = self.log.streams[at.stream].shape.clone();
        let index = &self.log.streams[s.index.stream];
        let points: Vec<(usize, Vec<f32>, Vec<usize>)> = (0..index.shape.iter().product())
            .filter_map(|i| {
                let v = self.value(s.index, i).to_vec();
                let (lin, idx) = target(&v, &shape);
                (lin == linear).then_some((i, v, idx))
            })
            .collect();
        let title = format!(
            "streamScatterOp with {}, operation {}",
            combiner_name(&s.op),
            s.op_no
        );
        if points.is_empty() {
            return self.kept(
                head,
                op,
                &format!("{title}: no point landed on it"),
                s.dst_before,
                linear,
                depth,
            );
        }
        let mut acc = self.value(s.dst_before, linear).to_vec();
        let mut inputs = vec![self.element(s.dst_before, linear, depth + 1, "its value before: ")];
        for (i, v, idx) in &points {
            let x = self.value(s.data, *i).to_vec();
            acc = combined(self.log, &s.op, &x, &acc).unwrap_or_default();
            let element: String = idx.iter().map(|i| format!("[{i}]")).collect();
            let via = format!(
                "point {i}: {} = {} rounds and clamps to {element}; combined: {}; ",
                self.name(s.index, *i),
                show(v),
                show(&acc)
            );
            inputs.push(self.element(s.data, *i, depth + 1, &via));
        }
        let text = format!(
            "{head}: {title}: {} point(s) landed on it, combined in index order{}",
            points.len(),
            agreement(self.value(at, linear), &acc)
        );
        node(text, op, inputs)
    }

    fn gather_op(
        &mut self,
        head: String,
        g: &GatherOpRecord,
        dst: bool,
        linear: usize,
        depth: usize,
    ) -> Why {
        let op = Some(g.op_no);
        let data_shape = self.log.streams[g.data_before.stream].shape.clone();
        let target = |w: &Walker, i: usize| target(w.value(g.index, i), &data_shape).0;
        let title = format!("streamGatherOp, operation {}", g.op_no);
        if dst {
            let t = target(self, linear);
            let earlier = (0..linear).filter(|&j| target(self, j) == t).count();
            let updates = match (&g.update, earlier) {
                (None, _) | (_, 0) => String::new(),
                (Some(_), n) => format!(", after {n} earlier element(s) of the call updated it"),
            };
            let via = format!(
                "fetched via {} = {}: ",
                self.name(g.index, linear),
                show(self.value(g.index, linear))
            );
            let input = self.element(g.data_before, t, depth + 1, &via);
            node(format!("{head}: {title}{updates}"), op, vec![input])
        } else {
            let hits: Vec<usize> = (0..self.log.streams[g.index.stream].shape.iter().product())
                .filter(|&j| target(self, j) == linear)
                .collect();
            if hits.is_empty() {
                return self.kept(
                    head,
                    op,
                    &format!("{title}: no element fetched it"),
                    g.data_before,
                    linear,
                    depth,
                );
            }
            let input = self.element(g.data_before, linear, depth + 1, "its value before: ");
            node(
                format!("{head}: {title}: updated by call element(s) {hits:?}, in that order"),
                op,
                vec![input],
            )
        }
    }
}

/// The element (linear, and per dimension) an index element of a scatter or gather-op names:
/// one float per dimension, column first, rounded and clamped by core's gather rule.
fn target(index: &[f32], shape: &[usize]) -> (usize, Vec<usize>) {
    let rank = shape.len();
    let idx: Vec<usize> = (shape.iter().enumerate())
        .map(|(d, &n)| gather_component_f(index.get(rank - 1 - d).copied().unwrap_or(0.0), n))
        .collect();
    let linear = idx.iter().zip(shape).fold(0, |l, (i, n)| l * n + i);
    (linear, idx)
}

/// A partial result of a reduction's block: an input element, or a fold of partials.
enum Part {
    Leaf(usize),
    Fold {
        pass: usize,
        dim: usize,
        parts: Vec<Part>,
    },
}

fn node(text: String, op: Option<usize>, inputs: Vec<Why>) -> Why {
    Why { text, op, inputs }
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
