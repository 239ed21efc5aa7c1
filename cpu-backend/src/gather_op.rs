//! `streamGatherOp(dst, index, data, op)` on the host: a fetch-and-op, sequential in index
//! order (`docs/semantics.md`). For every `i`: `dst[i] = data[index[i]]`, then
//! `data[index[i]] = op(operand, data[index[i]])`, so an element sees the updates of every
//! earlier element hitting the same place (fetch-and-increment hands out 0, 1, 2, …). The
//! operand is a constant, or the fetched element itself ([`Operand::Fetched`]: the original
//! runtime's form for a reduce function as the operator).
//! Index components follow the gather rule, as for ScatterOp ([`scatter_target`]).

use brook_core::Operand;

use crate::error::CpuError;
use crate::kernel::Execution;
use crate::scatter::{check_indexed, scatter_target, Combiner, ScatterCombine};
use crate::stream::CpuStream;

/// `streamGatherOp(dst, index, data, op)`: `update` is `None` for a plain fetch, else the
/// combiner and its operand (one element of `data`'s type, C layout floats, or the fetched
/// element). With a reduce
/// function as the combiner, says which engine ran it and what compiling it cost.
pub fn run_gather_op(
    dst: &mut CpuStream,
    index: &CpuStream,
    data: &mut CpuStream,
    update: Option<(ScatterCombine, Operand)>,
) -> Result<Option<Execution>, CpuError> {
    const OP: &str = "streamGatherOp";
    check_indexed(OP, data, index, dst)?;
    let fpe = data.floats_per_element();
    let mut combiner = match update {
        Some((combine, operand)) => {
            if let Operand::Constant(operand) = operand {
                if operand.len() != fpe {
                    return Err(CpuError::precondition(
                        OP,
                        format!(
                            "the operand has {} floats, an element of the data stream {fpe}",
                            operand.len()
                        ),
                    ));
                }
            }
            Some((Combiner::new(combine, fpe)?, operand))
        }
        None => None,
    };
    let shape = data.shape().to_vec();
    for i in 0..index.len() {
        let t = scatter_target(index, i, &shape);
        let fetched = i * fpe..(i + 1) * fpe;
        dst.data_mut()[fetched.clone()].copy_from_slice(data.element(t));
        match &mut combiner {
            Some((c, Operand::Constant(operand))) => c.apply(data, t, operand)?,
            Some((c, Operand::Fetched)) => c.apply(data, t, &dst.data()[fetched])?,
            None => {}
        }
    }
    Ok(combiner.and_then(|(c, _)| c.execution))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(widths: &[u8], shape: &[usize], data: &[f32]) -> CpuStream {
        CpuStream::from_data(widths, shape, data).unwrap()
    }

    #[test]
    fn fetch_and_increment_hands_out_counts_in_index_order() {
        let index = s(&[1], &[6], &[2.0, 0.0, 2.0, 2.0, -3.0, 9.0]);
        let mut data = s(&[1], &[3], &[10.0, 20.0, 30.0]);
        let mut dst = s(&[1], &[6], &[0.0; 6]);
        run_gather_op(
            &mut dst,
            &index,
            &mut data,
            Some((ScatterCombine::Add, Operand::Constant(&[1.0]))),
        )
        .unwrap();
        // Index 9 clamps to 2, -3 to 0.
        assert_eq!(dst.data(), &[30.0, 10.0, 31.0, 32.0, 11.0, 33.0]);
        assert_eq!(data.data(), &[12.0, 20.0, 34.0]);
    }

    #[test]
    fn a_wrong_operand_is_an_error() {
        let index = s(&[1], &[1], &[0.0]);
        let mut data = s(&[2], &[1], &[0.0, 0.0]);
        let mut dst = s(&[2], &[1], &[0.0, 0.0]);
        let err = run_gather_op(
            &mut dst,
            &index,
            &mut data,
            Some((ScatterCombine::Add, Operand::Constant(&[1.0]))),
        )
        .unwrap_err();
        assert!(err.to_string().contains("operand has 1 floats"), "{err}");
    }

    #[test]
    fn the_fetched_operand_combines_each_element_with_itself_in_index_order() {
        // Add with the fetched element doubles it at every hit: 1 → 2 → 4 at place 0.
        let index = s(&[1], &[4], &[0.0, 1.0, 0.0, 0.0]);
        let mut data = s(&[1], &[2], &[1.0, 5.0]);
        let mut dst = s(&[1], &[4], &[0.0; 4]);
        run_gather_op(
            &mut dst,
            &index,
            &mut data,
            Some((ScatterCombine::Add, Operand::Fetched)),
        )
        .unwrap();
        assert_eq!(dst.data(), &[1.0, 5.0, 2.0, 4.0]);
        assert_eq!(data.data(), &[8.0, 10.0]);
    }
}
