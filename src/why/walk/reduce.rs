//! A reduction's element: the block of input elements it folds and the fold tree, pass by
//! pass as brook-core's `ReducePlan` says, each partial re-evaluated with the reduce function.

use brook_core::index::unravel;

use super::{agreement, node, show, Walker};
use crate::why::log::{At, ReduceRecord};
use crate::why::replay::{whole_linear, Replay};
use crate::why::tree::Why;

impl Walker<'_> {
    pub(super) fn reduce(
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
        let mut text = format!("{head}: {title}, the fold of its block of {count} element(s) of `{}`, {first} to {last}", input.label_at(r.input.stream, r.input.version));
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
