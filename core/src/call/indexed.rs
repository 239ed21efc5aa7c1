//! The checks of `streamScatterOp` and `streamGatherOp`: distinct streams, index widths and
//! counts, element types, the user combiner.

use std::fmt::Display;

use brook_ir::FunctionKind;

use super::check_format;
use super::reduce::reduce_roles;
use crate::backend::{Combiner, Operand, StreamArg};
use crate::error::{fmt_shape, BrookError};
use crate::format::ElementFormat;

/// Checks a `streamScatterOp(dst, index, data, op)`.
pub fn check_scatter(
    dst: &StreamArg,
    index: &StreamArg,
    data: &StreamArg,
    op: &Combiner,
) -> Result<(), BrookError> {
    let call: &dyn Display = &"streamScatterOp";
    not_iterators(
        call,
        [(dst, "destination"), (index, "index"), (data, "data")],
    )?;
    if dst.same_storage(data) || dst.same_storage(index) {
        return Err(BrookError::Aliasing {
            call: call.to_string(),
            message: "the destination cannot also be the index or the data stream".into(),
        });
    }
    check_indexed_args(call, dst, index, data)?;
    check_combiner(call, op, dst.format)
}

/// Checks a `streamGatherOp(dst, index, data, op)`; `update` is the combiner and its
/// operand, if any.
pub fn check_gather_op(
    dst: &StreamArg,
    index: &StreamArg,
    data: &StreamArg,
    update: Option<(&Combiner, Operand)>,
) -> Result<(), BrookError> {
    let call: &dyn Display = &"streamGatherOp";
    not_iterators(
        call,
        [(dst, "destination"), (index, "index"), (data, "data")],
    )?;
    if dst.same_storage(data) || dst.same_storage(index) || data.same_storage(index) {
        return Err(BrookError::Aliasing {
            call: call.to_string(),
            message: "the destination, index and data streams must be three different streams"
                .into(),
        });
    }
    check_indexed_args(call, data, index, dst)?;
    if let Some((op, operand)) = update {
        let floats = data.format.floats_per_element();
        if let Operand::Constant(operand) = operand {
            if operand.len() != floats {
                return Err(BrookError::ArgumentType {
                    call: call.to_string(),
                    param: "operand".into(),
                    message: format!(
                        "the operand has {} floats but an element of the data stream has {floats}",
                        operand.len()
                    ),
                });
            }
        }
        check_combiner(call, op, data.format)?;
    }
    Ok(())
}

fn not_iterators(call: &dyn Display, streams: [(&StreamArg, &str); 3]) -> Result<(), BrookError> {
    for (s, role) in streams {
        if s.iter.is_some() {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: role.into(),
                message: format!(
                    "the {role} stream is an iterator; copy it into a stream with a kernel first"
                ),
            });
        }
    }
    Ok(())
}

/// The shapes and member widths of a ScatterOp or GatherOp, each stream given as (shape,
/// member widths): an index per element of `elements`, with one component per dimension of
/// `addressed`; both of one element layout. Public so that a backend's own entry points
/// (brook-cpu's `run_scatter`) check with the same rule and words.
pub fn check_indexed(
    call: &dyn Display,
    addressed: (&[usize], &[u8]),
    index: (&[usize], &[u8]),
    elements: (&[usize], &[u8]),
) -> Result<(), BrookError> {
    let rank = addressed.0.len();
    let wrong = |param: &str, message: String| BrookError::ArgumentType {
        call: call.to_string(),
        param: param.into(),
        message,
    };
    if index.1 != [rank as u8] {
        return Err(wrong("index", format!(
            "the index stream must have one float per dimension of the indexed stream {} (float{rank}), but its elements have widths {:?}",
            fmt_shape(addressed.0),
            index.1
        )));
    }
    let len = |shape: &[usize]| shape.iter().product::<usize>();
    if len(index.0) != len(elements.0) {
        return Err(BrookError::ShapeMismatch {
            call: call.to_string(),
            message: format!(
                "the index stream {} and the element stream {} must have one element each",
                fmt_shape(index.0),
                fmt_shape(elements.0)
            ),
        });
    }
    if addressed.1 != elements.1 {
        return Err(wrong(
            "data",
            format!(
                "the elements ({:?}) and the indexed stream ({:?}) must have the same member widths",
                elements.1, addressed.1
            ),
        ));
    }
    Ok(())
}

/// [`check_indexed`] of three stream arguments.
fn check_indexed_args(
    call: &dyn Display,
    addressed: &StreamArg,
    index: &StreamArg,
    elements: &StreamArg,
) -> Result<(), BrookError> {
    let (a, i, e) = (
        addressed.format.widths(),
        index.format.widths(),
        elements.format.widths(),
    );
    check_indexed(
        call,
        (addressed.shape, &a),
        (index.shape, &i),
        (elements.shape, &e),
    )
}

/// A user combiner is `reduce void f(T a<>, reduce T r<>)` with nothing else, over the
/// streams' element type.
fn check_combiner(
    call: &dyn Display,
    op: &Combiner,
    format: &ElementFormat,
) -> Result<(), BrookError> {
    let Combiner::Reduce {
        compiled, function, ..
    } = op
    else {
        return Ok(());
    };
    let func = compiled.module.func(*function);
    if func.kind != FunctionKind::Reduce {
        return Err(BrookError::Unknown {
            name: func.name.clone(),
            what: "reduce function",
            message: format!(
                "{call}: `{0}` is not a reduce function; declare it `reduce void {0}(T a<>, reduce T r<>)`",
                func.name
            ),
        });
    }
    let (a, _) = reduce_roles(func)?;
    if func.params.len() != 2 {
        return Err(BrookError::Unsupported {
            call: call.to_string(),
            message: format!(
                "the combiner `{0}` must be `reduce void {0}(T a<>, reduce T r<>)` with no other parameters",
                func.name
            ),
        });
    }
    let p = &func.params[a];
    check_format(
        &compiled.module,
        &|message| BrookError::ArgumentType {
            call: call.to_string(),
            param: p.name.clone(),
            message,
        },
        p,
        format,
    )
}
