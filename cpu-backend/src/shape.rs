//! Shape rules shared by every operation: index arithmetic, implicit resizing, gather
//! rounding and `indexof` positions, from `brook-core` (every backend follows the same
//! ones), and the gather rule for the interpreter's index values.

pub use brook_core::index::{
    gather_component_f, gather_component_i, last_bound, position, ravel, resize_index, unravel,
    Index,
};

use crate::value::Comp;

/// Brook's gather rule for an index component of any kind.
pub fn gather_index(c: Comp, extent: usize) -> usize {
    match c {
        Comp::F(x) => gather_component_f(x, extent),
        Comp::I(i) => gather_component_i(i, extent),
        Comp::B(b) => gather_component_i(b as i32, extent),
    }
}
