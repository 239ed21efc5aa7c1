//! Stream shapes: 1 to 4 extents, outermost first, row-major (the last dimension fastest), as
//! C declares arrays and Brook declares streams (`float a<rows, cols>`).

use crate::error::StreamError;

/// The most dimensions a Brook stream may have.
pub const MAX_RANK: usize = 4;

/// The element count of a valid shape, or why the shape is not one.
pub fn element_count(shape: &[usize]) -> Result<usize, StreamError> {
    if shape.is_empty() || shape.len() > MAX_RANK {
        return Err(StreamError::Shape(format!(
            "a stream has 1 to {MAX_RANK} dimensions, not {} ({shape:?})",
            shape.len()
        )));
    }
    if let Some(k) = shape.iter().position(|&e| e == 0) {
        return Err(StreamError::Shape(format!(
            "dimension {k} of {shape:?} is 0; every extent must be at least 1"
        )));
    }
    shape
        .iter()
        .try_fold(1usize, |n, &e| n.checked_mul(e))
        .ok_or_else(|| StreamError::Shape(format!("the element count of {shape:?} overflows")))
}

/// The row-major strides of `shape`: the last dimension has stride 1.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(element_count(&[3, 5]), Ok(15));
        assert!(element_count(&[]).is_err());
        assert!(element_count(&[1, 2, 3, 4, 5]).is_err());
        assert!(element_count(&[4, 0]).is_err());
        assert!(element_count(&[usize::MAX, 2]).is_err());
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(strides(&[2, 3, 4]), [12, 4, 1]);
        assert_eq!(strides(&[7]), [1]);
    }
}
