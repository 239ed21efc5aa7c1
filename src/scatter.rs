//! `streamScatterOp`: the runtime's side, and the combiners a user names.

use std::fmt::Display;

use brook_core::call::check_scatter;
use brook_core::{Backend, BrookError, Combiner, ScatterCall};
use brook_ir::FunctionKind;

use crate::program::Program;
use crate::runtime::Runtime;
use crate::stream::Stream;

/// How `streamScatterOp` combines a scattered element with the destination element.
#[derive(Clone, Copy)]
pub enum ScatterOp<'a> {
    /// Brook's null operator: the last element in index order wins.
    Replace,
    /// `SCATTER_ADD`: every float added, collisions in index order.
    Add,
    /// Component-wise minimum.
    Min,
    /// Component-wise maximum.
    Max,
    /// A `reduce void f(T a<>, reduce T r<>)` of `program` taking no other parameters: `a` is
    /// the scattered element, `r` the destination element; collisions combine in index order.
    Reduce(&'a Program, &'a str),
}

impl Runtime {
    /// Brook's `streamScatterOp(dst, index, data, op)`: for every element `i` of `data`, in
    /// index order, `dst[index[i]] = op(data[i], dst[index[i]])`. `index` holds one
    /// `float`..`float4` per element of `data`, one component per dimension of `dst` (`.x` the
    /// column), rounded and clamped as gathers are (`floor(v + 0.25)`, clamped to `dst`).
    /// `data` and `dst` have the same element type. On GL the scatter is point rendering
    /// driven by the index stream on the GPU.
    pub fn scatter(
        &self,
        dst: &Stream,
        index: &Stream,
        data: &Stream,
        op: ScatterOp,
    ) -> Result<(), BrookError> {
        let call: &dyn Display = &"streamScatterOp";
        // Iterators as index or data: read into streams first (crate::stream_copies).
        let (index_copy, data_copy) = (self.materialised(index)?, self.materialised(data)?);
        let index = index_copy.as_ref().unwrap_or(index);
        let data = data_copy.as_ref().unwrap_or(data);
        let [dst, index, data] = [dst, index, data].map(|s| self.own(s, call).map(|s| s.arg(None)));
        let (dst, index, data) = (dst?, index?, data?);
        let op = self.combiner(call, op)?;
        check_scatter(&dst, &index, &data, &op)
            .and_then(|()| {
                self.gate.scatter(&ScatterCall {
                    dst,
                    index,
                    data,
                    op,
                })
            })
            .map_err(|e| op.locate(e))
    }

    /// The backend form of a combiner, its reduce function looked up.
    pub(crate) fn combiner<'a>(
        &self,
        call: &dyn Display,
        op: ScatterOp<'a>,
    ) -> Result<Combiner<'a>, BrookError> {
        Ok(match op {
            ScatterOp::Replace => Combiner::Replace,
            ScatterOp::Add => Combiner::Add,
            ScatterOp::Min => Combiner::Min,
            ScatterOp::Max => Combiner::Max,
            ScatterOp::Reduce(program, name) => {
                let program = self.own_program(program, call)?;
                let (function, _) = program.compiled().function(name, FunctionKind::Reduce)?;
                Combiner::Reduce {
                    program: program.gated(),
                    compiled: program.compiled(),
                    function,
                }
            }
        })
    }
}
