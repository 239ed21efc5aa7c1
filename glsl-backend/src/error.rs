//! Why a kernel could not be turned into GLSL.

use brook_ir::Span;

/// What the GLSL generator could not do with a program the front end accepted; the GL
/// backend reports each as `BrookError::Unsupported` (placed at its statement for `At`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenError {
    /// A language feature or a size GLSL cannot express (yet), said in Brook's terms.
    #[error("{0}")]
    Unsupported(String),
    /// The same, about one place in the Brook source.
    #[error("{message}")]
    At {
        /// What cannot be generated there.
        message: String,
        /// Where, in the Brook source.
        span: Span,
    },
    /// A kernel asked for by a name the program has no kernel of.
    #[error("`{0}` is not a kernel of this program")]
    NotAKernel(String),
    /// A reduce function asked for by a name the program has no reduce function of.
    #[error("`{0}` is not a reduce function of this program")]
    NotAReduction(String),
    /// A [`crate::Variant`] describing another number of parameters than the kernel has.
    #[error("kernel `{kernel}` has {params} parameters but the call describes {given}")]
    VariantMismatch {
        /// The kernel.
        kernel: String,
        /// Its parameters.
        params: usize,
        /// Parameters the variant describes.
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
