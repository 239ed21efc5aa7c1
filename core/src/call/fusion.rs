//! When a kernel call may be computed inside the reduction of its output
//! (`Backend::map_reduce`) without changing what the two calls give: the part of the rule
//! every backend shares. A backend refuses more where its own mechanism needs it (GL: loops
//! its driver caps, struct elements, a reduce function with arguments, `brook_glsl::fusion_refused`).

use brook_ir::ParamClass;

use crate::backend::{KernelCall, MaskUse, ReduceCall, ReduceOutput};
use brook_ir::walk::can_discard;

/// Why the kernel call `kernel` cannot be computed inside the reduction `reduce` of its one
/// output into `output`, or `None` when it can. Refused: a kernel with more than one output
/// or a vout; an output that is a domain; a write mask or query applying to the call (the
/// elements written are the mask's choice, and counted); a kernel that can `discard` (the
/// element keeps the output's old value, which the fused fold would have to read); a
/// reduction target the kernel reads or writes, or a gather of the reduce function that is
/// the kernel's output (it would read elements never written).
pub fn fusion_refused(
    kernel: &KernelCall,
    reduce: &ReduceCall,
    output: &ReduceOutput,
) -> Option<&'static str> {
    let func = kernel.function();
    let mut outputs = (func.params.iter().zip(kernel.args)).filter(|(p, _)| p.class.is_output());
    let Some((param, arg)) = outputs.next() else {
        return Some("the kernel has no output");
    };
    if outputs.next().is_some() || param.class != ParamClass::Out {
        return Some("the kernel has more than one output, or a vout");
    }
    let Some(out) = arg
        .stream()
        .filter(|s| s.domain.is_none() && s.iter.is_none())
    else {
        return Some("the kernel writes a domain of its output");
    };
    if kernel.mask != MaskUse::default() {
        return Some("a write mask or write query applies to the kernel");
    }
    let feeds_back = match output {
        ReduceOutput::Stream(target) => (kernel.args.iter())
            .filter_map(|a| a.stream())
            .any(|s| s.same_storage(target)),
        ReduceOutput::Value(_) => false,
    };
    if feeds_back {
        return Some("the reduction writes a stream of the kernel call");
    }
    if (reduce.extra.iter().filter_map(|a| a.stream())).any(|s| s.same_storage(out)) {
        return Some("the reduce function gathers from the kernel's output");
    }
    if can_discard(&kernel.compiled.module, kernel.kernel) {
        return Some("the kernel can `discard`");
    }
    None
}
