//! `streamScatterOp`: the runtime's checks and the combiners a user names.

use brook_frontend::ir::FunctionKind;

use crate::backend::BackendScatterOp;
use crate::error::BrookError;
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
        let call = "streamScatterOp";
        self.check_indexed_streams(call, dst, index, data)?;
        if std::ptr::addr_eq(dst.storage.as_ref(), data.storage.as_ref())
            || std::ptr::addr_eq(dst.storage.as_ref(), index.storage.as_ref())
        {
            return Err(BrookError::Usage(format!(
                "{call}: the destination cannot also be the index or the data stream"
            )));
        }
        let backend = backend_op(call, op)?;
        self.backend
            .scatter(
                dst.storage.as_ref(),
                index.storage.as_ref(),
                data.storage.as_ref(),
                backend,
            )
            .map_err(|e| locate_op(op, e))
    }

    /// The checks ScatterOp and GatherOp share: three streams of this runtime, none an
    /// iterator.
    pub(crate) fn check_indexed_streams(
        &self,
        call: &str,
        dst: &Stream,
        index: &Stream,
        data: &Stream,
    ) -> Result<(), BrookError> {
        for (s, role) in [(dst, "destination"), (index, "index"), (data, "data")] {
            self.own(s, call)?;
            if s.is_iter {
                return Err(BrookError::Usage(format!(
                    "{call}: the {role} stream is an iterator; copy it into a stream with a kernel first"
                )));
            }
        }
        Ok(())
    }
}

/// `error` of a call combining with `op`, placed at its reduce function when it has one.
pub(crate) fn locate_op(op: ScatterOp, error: BrookError) -> BrookError {
    match op {
        ScatterOp::Reduce(program, name) => match program.module().function(name) {
            Some((id, _)) => program.locate(id, error),
            None => error,
        },
        _ => error,
    }
}

/// The backend form of a combiner, its reduce function checked.
pub(crate) fn backend_op<'a>(
    call: &str,
    op: ScatterOp<'a>,
) -> Result<BackendScatterOp<'a>, BrookError> {
    Ok(match op {
        ScatterOp::Replace => BackendScatterOp::Replace,
        ScatterOp::Add => BackendScatterOp::Add,
        ScatterOp::Min => BackendScatterOp::Min,
        ScatterOp::Max => BackendScatterOp::Max,
        ScatterOp::Reduce(program, name) => {
            let (id, func) = program.module().function(name).ok_or_else(|| {
                BrookError::Usage(format!("{call}: the program has no function `{name}`"))
            })?;
            if func.kind != FunctionKind::Reduce {
                return Err(BrookError::Usage(format!(
                    "{call}: `{name}` is not a reduce function; declare it `reduce void {name}(T a<>, reduce T r<>)`"
                )));
            }
            BackendScatterOp::Reduce(program.prepared.as_ref(), id)
        }
    })
}
