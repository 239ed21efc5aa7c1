//! Elements written through indices: a scatter's destination (the points that landed on it,
//! combined in index order) and a gather-op's destination and data (what each fetched, which
//! elements updated it), the indices rounded and clamped by core's gather rule, and each
//! index element followed back as any other element.

use brook_core::index::gather_component_f;

use super::{agreement, combiner_name, node, show, Walker};
use crate::why::log::{At, GatherOpRecord, ScatterRecord};
use crate::why::replay::combined;
use crate::why::tree::Why;

impl Walker<'_> {
    /// The history of index element `i` of a scatter or gather-op, below the element it
    /// took there: where the index itself came from.
    fn index(&mut self, index: At, i: usize, depth: usize) -> Why {
        self.element(index, i, depth + 1, "its index: ")
    }

    pub(super) fn scatter(
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
            let mut point = self.element(s.data, *i, depth + 1, &via);
            point.inputs.push(self.index(s.index, *i, depth));
            inputs.push(point);
        }
        let text = format!(
            "{head}: {title}: {} point(s) landed on it, combined in index order{}",
            points.len(),
            agreement(self.value(at, linear), &acc)
        );
        node(text, op, inputs)
    }

    pub(super) fn gather_op(
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
            let mut input = self.element(g.data_before, t, depth + 1, &via);
            input.inputs.push(self.index(g.index, linear, depth));
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
