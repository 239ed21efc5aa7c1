//! A kernel call whose output only feeds a reduction (`Backend::map_reduce`): computed inside
//! the reduction's first pass when that gives the unfused pair's result, run as a kernel
//! call then a reduction otherwise.

use brook_core::call::CallName;
use brook_core::{Backend, BrookError, KernelCall, ReduceCall, ReduceOutput};
use brook_glsl::{fusion_refused, Variant};

use super::kernel::kernel_classes;
use super::storage::{hold, kernel_args};
use super::GlBackend;
use crate::args::{variant_for, KernelArg};
use crate::encode::reduce::{mapped_variant, Map};
use crate::error::call_error;

impl GlBackend {
    pub(super) fn map_reduction(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        let func = kernel.function();
        let name = CallName("kernel", &func.name);
        let held = hold(kernel.args, &name)?;
        let args = kernel_args(&held, kernel_classes(func));
        let Some(variant) = self.fused_variant(kernel, reduce, &args)? else {
            drop(args);
            drop(held);
            self.run_kernel(kernel)?;
            self.reduce(reduce, output)?;
            return Ok(false);
        };
        let map = Map {
            kernel: kernel.kernel,
            args: &args,
            variant: &variant,
        };
        self.reduction(reduce, output, Some(map))
            .map_err(|e| e.placed(reduce.compiled))?;
        Ok(true)
    }

    /// The variant the kernel is computed as inside the reduction, or `None` where the
    /// generator refuses the kernel ([`fusion_refused`]); what every backend refuses
    /// (`brook_core::call::fusion_refused`) the runtime's gate has already run apart.
    fn fused_variant(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        args: &[KernelArg],
    ) -> Result<Option<Variant>, BrookError> {
        let func = kernel.function();
        let Some(out) = args.iter().find_map(|a| match a {
            KernelArg::Out(s) => Some(*s),
            _ => None,
        }) else {
            return Ok(None);
        };
        let variant = variant_for(func, args, &out).map_err(|m| call_error(&func.name, m))?;
        let variant = mapped_variant(variant, args);
        let k = reduce.plan.passes.first().map_or(1, |p| p.k) as u8;
        let module = &kernel.compiled.module;
        let refused = fusion_refused(
            module,
            kernel.kernel,
            &variant,
            reduce.function,
            k,
            &self.target.get(),
        );
        Ok(refused.is_none().then_some(variant))
    }
}
