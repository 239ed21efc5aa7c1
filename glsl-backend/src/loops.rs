//! The GL side of loops on drivers that cap them (`brook_core::loops`): which kernels check
//! their loops at run time (`lower/stmt.rs`: each loop records whether it ended by its own
//! condition or `break`, and the pass reports the Brook line of one that did not).

use brook_core::loops::{unbounded_loops_message, within_cap};
use brook_ir::{FunctionId, Module};

use crate::error::GenError;
use crate::variant::Target;

/// Whether kernel `f` must check its loops at run time on `target`: its driver caps loop
/// iterations and `f`'s loops are not known to stay within the cap.
pub fn needs_loop_check(module: &Module, f: FunctionId, target: &Target) -> bool {
    target
        .loop_cap
        .is_some_and(|cap| !within_cap(module, f, 1, cap))
}

/// For shaders that cannot report a cut loop (reduction and scatter passes, which call `f`
/// `calls` times per fragment): an error unless `f`'s loops are known to stay within the
/// driver's cap, so a result is never silently wrong.
pub fn refuse_uncheckable_loops(
    module: &Module,
    f: FunctionId,
    calls: u32,
    target: &Target,
) -> Result<(), GenError> {
    match target.loop_cap {
        Some(cap) if !within_cap(module, f, calls, cap) => Err(GenError::Unsupported(
            unbounded_loops_message(&module.func(f).name, cap),
        )),
        _ => Ok(()),
    }
}
