//! Side-by-side comparisons for the benches: every variant of the same work (Brook on each
//! backend, the hand-written version on the same API) is
//!
//! 1. **checked** once against a reference before anything is timed, so a variant that skips
//!    work or computes the wrong thing fails the run instead of "winning" ([`check()`](check::check));
//! 2. **timed in rotated rounds**: each round times a batch of every variant, the order
//!    rotating from round to round so that no variant always runs first or after the same
//!    neighbour ([`rounds`]);
//! 3. **reported with its noise**: a median per variant and, for each ratio to the baseline,
//!    the median of the per-round ratios with a distribution-free 95% interval; a ratio whose
//!    interval holds 1.0 is reported as equal ([`stats`], [`table`]).
//!
//! Only what ran in this process appears in a table. Criterion still measures each variant on
//! its own for its reports ([`Comparison::run`]).

#![warn(missing_docs)]

//!
//! Without its default feature `criterion`, the crate is the statistics alone ([`stats`]), for
//! brook-report's rotated rounds.

pub mod check;
#[cfg(feature = "criterion")]
pub mod comparison;
pub mod rounds;
pub mod stats;
pub mod table;

pub use check::{check, Tolerance};
#[cfg(feature = "criterion")]
pub use comparison::{Comparison, Variant};
pub use table::{human, Row, Table};
