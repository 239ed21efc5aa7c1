//! Read-only walks over IR bodies, for the few facts the generator needs up front.

use brook_ir::{Block, ExprKind};

pub use brook_ir::walk::callees;

/// Whether `block` uses `indexof`.
pub fn uses_indexof(block: &Block) -> bool {
    brook_ir::walk::any_expr(block, &mut |e| matches!(e.kind, ExprKind::IndexOf(_)))
}
