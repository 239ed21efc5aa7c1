//! Why a kernel could not be turned into GLSL.

use brook_frontend::Span;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenError {
    #[error("{0}")]
    Unsupported(String),
    #[error("{message}")]
    At { message: String, span: Span },
    #[error("`{0}` is not a kernel of this program")]
    NotAKernel(String),
    #[error("`{0}` is not a reduce function of this program")]
    NotAReduction(String),
    #[error("kernel `{kernel}` has {params} parameters but the call describes {given}")]
    VariantMismatch {
        kernel: String,
        params: usize,
        given: usize,
    },
}

/// brook-core's compile budget refusal, at the statement it is about.
impl From<brook_core::budget::OverBudget> for GenError {
    fn from(e: brook_core::budget::OverBudget) -> GenError {
        GenError::At {
            message: e.message,
            span: e.span,
        }
    }
}
