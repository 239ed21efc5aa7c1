//! Brook's typed IR as naga IR: the compiler back end of this crate.
//!
//! Shaped like one of naga's own back ends, in reverse: naga's `back/` modules walk a
//! `naga::Module` and write text; these walk a Brook function and write a `naga::Module`.
//!
//! - [`builder`]: the vocabulary for appending naga expressions and statements (emit ranges,
//!   blocks, spans).
//! - [`types`]: Brook types as naga types.
//! - [`values`]: values taken apart into scalars and rebuilt (conversions, constructors, the
//!   stream element codec).
//! - [`function`]: a Brook function as a naga function (parameters, locals, discard).
//! - [`math`]: GL's math library parsed into naga, which Cg's transcendentals call.
//! - [`expr`], [`ops`], [`builtins`]: expressions, operators and Cg's built-ins, with the
//!   CPU backend's semantics (it is the reference).
//! - [`stmt`], [`place`]: statements and assignments.
//! - [`address`]: Brook's index rules (row-major linearisation, implicit resize, gather
//!   rounding and clamping).
//! - [`module`]: one shader module: functions instantiated per call site's bindings, the
//!   shared globals, validation, WGSL for people.
//!
//! The entry points that run these functions (kernels, reductions, scatters, scans) are in
//! `crate::shaders`.

pub mod address;
pub mod builder;
pub mod builtins;
pub mod expr;
pub mod function;
pub mod math;
pub mod module;
pub mod ops;
pub mod place;
pub mod stmt;
pub mod types;
pub mod values;

pub use builder::FnBuilder;
pub use module::ShaderModule;

use brook_ir::Span as BrookSpan;

/// A construct the back end cannot lower, at a Brook source range.
#[derive(Debug, Clone, PartialEq)]
pub struct LowerError {
    pub message: String,
    pub span: BrookSpan,
}

pub type Lowered<T> = Result<T, LowerError>;

/// The naga span of a Brook span (both are byte ranges of the Brook source).
pub fn naga_span(s: BrookSpan) -> naga::Span {
    if s.start == 0 && s.end == 0 {
        naga::Span::UNDEFINED
    } else {
        naga::Span::new(s.start, s.end)
    }
}
