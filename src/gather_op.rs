//! `streamGatherOp`: the runtime's side, and the update operators a user names.

use std::fmt::Display;

use brook_core::call::check_gather_op;
use brook_core::{Backend, BrookError, GatherOpCall, Operand};

use crate::runtime::Runtime;
use crate::scatter::ScatterOp;
use crate::stream::Stream;

/// How `streamGatherOp` updates each fetched data element. The update is a ScatterOp
/// combiner applied with a per-call operand: `data[t] = op(operand, data[t])`.
#[derive(Clone, Copy)]
pub enum GatherOp<'a> {
    /// Brook's null operator: a plain indexed fetch, `data` unchanged.
    Fetch,
    /// Fetch-and-increment (`a = p[i]++`): every float of the element gains 1.
    Increment,
    /// Fetch-and-op with a combiner and its operand, one element of `data`'s type in C layout
    /// floats: `With(ScatterOp::Add, &[k])` is fetch-and-add, `With(ScatterOp::Replace, v)`
    /// an exchange, `With(ScatterOp::Reduce(program, "f"), v)` runs
    /// `reduce void f(T a<>, reduce T r<>)` with `a = v` and `r` the data element.
    With(ScatterOp<'a>, &'a [f32]),
    /// Fetch-and-op of the element with itself: `data[t] = op(data[t], data[t])`, what the
    /// original BrookGPU runs for `streamGatherOp(dst, index, data, f)` with a reduce
    /// function `f` (its runtime passes the fetched element as both of `f`'s arguments):
    /// `WithFetched(ScatterOp::Reduce(program, "f"))`.
    WithFetched(ScatterOp<'a>),
}

impl Runtime {
    /// Brook's `streamGatherOp(dst, index, data, op)`: for every element `i` of `index`, in
    /// index order, `dst[i]` receives `data[index[i]]` as it is before this element's update,
    /// then `op` updates `data[index[i]]`. Several elements hitting one data element see each
    /// other's updates in index order, exactly as a sequential loop over `i` (a
    /// fetch-and-increment counter hands out 0, 1, 2, … plus its start). `index` holds one
    /// `float`..`float4` per element of `dst`, one component per dimension of `data` (`.x` the
    /// column), rounded and clamped as gathers are (`floor(v + 0.25)`, clamped to `data`).
    /// `dst` and `data` have the same element type. On GL each conflict-free round (as
    /// ScatterOp's user reductions use) is a fetch draw and an update draw of points.
    pub fn gather_op(
        &self,
        dst: &Stream,
        index: &Stream,
        data: &Stream,
        op: GatherOp,
    ) -> Result<(), BrookError> {
        let call: &dyn Display = &"streamGatherOp";
        // An iterator as the index: read into a stream first (crate::stream_copies).
        let index_copy = self.materialised(index)?;
        let index = index_copy.as_ref().unwrap_or(index);
        let [dst, index, data] = [dst, index, data].map(|s| self.own(s, call).map(|s| s.arg(None)));
        let (dst, index, data) = (dst?, index?, data?);
        let ones = vec![1.0; data.format.floats_per_element()];
        let update = match op {
            GatherOp::Fetch => None,
            GatherOp::Increment => Some((
                self.combiner(call, ScatterOp::Add)?,
                Operand::Constant(&ones),
            )),
            GatherOp::With(op, operand) => {
                Some((self.combiner(call, op)?, Operand::Constant(operand)))
            }
            GatherOp::WithFetched(op) => Some((self.combiner(call, op)?, Operand::Fetched)),
        };
        let combiner = update.as_ref().map(|(c, _)| *c);
        let located = |e| match combiner {
            Some(c) => c.locate(e),
            None => e,
        };
        check_gather_op(&dst, &index, &data, update.as_ref().map(|(c, o)| (c, *o)))
            .map_err(located)?;
        self.gate
            .gather_op(&GatherOpCall {
                dst,
                index,
                data,
                update,
            })
            .map_err(located)
    }
}
