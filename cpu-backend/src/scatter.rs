//! `streamScatterOp(dst, index, data, op)` on the host: for every element `i` of `data`, in
//! index order, `dst[index[i]] = op(data[i], dst[index[i]])` (`docs/semantics.md`).
//!
//! Sequential by definition: collisions combine in index order, so the built-in combiners and a
//! user `reduce` function (associative, not necessarily commutative) give exactly what the GL
//! backend's ordered point draws give. Index components follow the gather rule
//! ([`gather_component_f`]): rounded by `floor(v + 0.25)` and clamped to the destination.

use brook_ir::Module;

use brook_core::BrookError;

use crate::args::CpuArg;
use crate::error::CpuError;
use crate::exec::Frame;
use crate::kernel::Execution;
use crate::reduce::{Native, ReducePlan, Reducer};
use crate::shape::{gather_component_f, ravel, Index};
use crate::stream::CpuStream;

/// How a scattered element combines with the destination element it lands on.
#[derive(Debug, Clone, Copy)]
pub enum ScatterCombine<'a> {
    /// The last element in index order wins (Brook's null operator).
    Replace,
    /// Every float of the element added (`SCATTER_ADD`).
    Add,
    /// Component-wise minimum.
    Min,
    /// Component-wise maximum.
    Max,
    /// A user `reduce void f(T a<>, reduce T r<>)` of the module: `a` is the scattered
    /// element, `r` the destination element. It may take no other parameters.
    Reduce(&'a Module, &'a ReducePlan),
}

/// The destination element (linear position) that index element `linear` of `index` selects.
/// The index has one component per destination dimension, `.x` the last (column).
pub fn scatter_target(index: &CpuStream, linear: usize, dst_shape: &[usize]) -> usize {
    let v = index.element(linear);
    let rank = dst_shape.len();
    let mut idx: Index = [0; 4];
    for d in 0..rank {
        idx[d] = gather_component_f(v[rank - 1 - d], dst_shape[d]);
    }
    ravel(&idx, dst_shape)
}

/// Checks the shapes and formats of a ScatterOp or GatherOp call with brook-core's rule
/// (`index` has one element per element of `elements`, each with one component per dimension
/// of `addressed`; `elements` and `addressed` of one layout), which the runtime checked
/// already: this guards the crate's own entry points, which index by them.
pub fn check_indexed(
    op: &'static str,
    addressed: &CpuStream,
    index: &CpuStream,
    elements: &CpuStream,
) -> Result<(), CpuError> {
    let checked = brook_core::call::check_indexed(
        &op,
        (addressed.shape(), addressed.widths()),
        (index.shape(), index.widths()),
        (elements.shape(), elements.widths()),
    );
    checked.map_err(|e| {
        let reason = match e {
            BrookError::ArgumentType { message, .. }
            | BrookError::ShapeMismatch { message, .. } => message,
            other => other.to_string(),
        };
        CpuError::precondition(op, reason)
    })
}

/// A combiner applied to one destination element at a time, in the caller's order (shared by
/// ScatterOp and GatherOp's update): a built-in, a reduce function's native update, or the
/// interpreter running it.
pub(crate) struct Combiner<'a> {
    builtin: Option<fn(f32, f32) -> f32>,
    native: Option<Native>,
    reducer: Option<(Reducer<'a>, Frame<'a>)>,
    /// For a reduce function: the engine that runs it and what compiling it cost.
    pub(crate) execution: Option<Execution>,
}

impl<'a> Combiner<'a> {
    /// A combiner for elements of `fpe` floats.
    pub(crate) fn new(combine: ScatterCombine<'a>, fpe: usize) -> Result<Self, CpuError> {
        let builtin: fn(f32, f32) -> f32 = match combine {
            ScatterCombine::Replace => |x, _| x,
            ScatterCombine::Add => |x, o| o + x,
            ScatterCombine::Min => f32::min,
            ScatterCombine::Max => f32::max,
            ScatterCombine::Reduce(module, plan) => {
                let no_extra: &'static [CpuArg] = &[];
                let red = plan.reducer(module, fpe, no_extra)?;
                let mut execution = Execution::planned(true);
                let native = plan.native(&red, &mut execution);
                let frame = red.frame();
                return Ok(Combiner {
                    builtin: None,
                    native,
                    reducer: Some((red, frame)),
                    execution: Some(execution),
                });
            }
        };
        Ok(Combiner {
            builtin: Some(builtin),
            native: None,
            reducer: None,
            execution: None,
        })
    }

    /// `dst[t] = op(x, dst[t])`.
    pub(crate) fn apply(
        &mut self,
        dst: &mut CpuStream,
        t: usize,
        x: &[f32],
    ) -> Result<(), CpuError> {
        let fpe = dst.floats_per_element();
        if let Some(f) = self.builtin {
            let out = &mut dst.data_mut()[t * fpe..(t + 1) * fpe];
            for (o, x) in out.iter_mut().zip(x) {
                *o = f(*x, *o);
            }
        } else if let Some(native) = &self.native {
            native.update(&mut dst.data_mut()[t * fpe..(t + 1) * fpe], x);
        } else if let Some((red, frame)) = &mut self.reducer {
            let acc = red.element(dst, t);
            let r = red.combine(frame, acc, red.value(x))?;
            r.encode(&mut dst.data_mut()[t * fpe..(t + 1) * fpe]);
        }
        Ok(())
    }
}

/// `streamScatterOp(dst, index, data, op)`. With a reduce function as `op`, says which
/// engine ran it and what compiling it cost (`None` for a built-in combiner).
pub fn run_scatter(
    dst: &mut CpuStream,
    index: &CpuStream,
    data: &CpuStream,
    combine: ScatterCombine,
) -> Result<Option<Execution>, CpuError> {
    check_indexed("streamScatterOp", dst, index, data)?;
    let shape = dst.shape().to_vec();
    let mut combiner = Combiner::new(combine, dst.floats_per_element())?;
    for i in 0..data.len() {
        combiner.apply(dst, scatter_target(index, i, &shape), data.element(i))?;
    }
    Ok(combiner.execution)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(widths: &[u8], shape: &[usize], data: &[f32]) -> CpuStream {
        CpuStream::from_data(widths, shape, data).unwrap()
    }

    #[test]
    fn collisions_combine_in_index_order_and_indices_clamp() {
        let index = s(&[1], &[5], &[1.0, 3.0, 1.0, -7.0, 99.0]);
        let data = s(&[1], &[5], &[10.0, 20.0, 30.0, 40.0, 50.0]);
        let mut dst = s(&[1], &[4], &[1.0, 1.0, 1.0, 1.0]);
        run_scatter(&mut dst, &index, &data, ScatterCombine::Add).unwrap();
        assert_eq!(dst.data(), &[41.0, 41.0, 1.0, 71.0]);
        let mut dst = s(&[1], &[4], &[1.0, 1.0, 1.0, 1.0]);
        run_scatter(&mut dst, &index, &data, ScatterCombine::Replace).unwrap();
        assert_eq!(dst.data(), &[40.0, 30.0, 1.0, 50.0]);
    }

    #[test]
    fn a_2d_index_is_column_first() {
        let index = s(&[2], &[1], &[2.0, 1.0]);
        let data = s(&[1], &[1], &[5.0]);
        let mut dst = s(&[1], &[2, 3], &[0.0; 6]);
        run_scatter(&mut dst, &index, &data, ScatterCombine::Max).unwrap();
        assert_eq!(dst.data(), &[0.0, 0.0, 0.0, 0.0, 0.0, 5.0]);
    }

    #[test]
    fn a_wrong_index_width_is_an_error() {
        let index = s(&[1], &[1], &[0.0]);
        let data = s(&[1], &[1], &[5.0]);
        let mut dst = s(&[1], &[2, 3], &[0.0; 6]);
        let err = run_scatter(&mut dst, &index, &data, ScatterCombine::Add).unwrap_err();
        assert!(err.to_string().contains("one float per dimension"), "{err}");
    }
}
