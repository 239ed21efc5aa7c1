//! The Cranelift IR of a kernel or reduction as text (`brcc clif FILE.br`), for people who
//! want to see what a kernel becomes on the CPU, as the GLSL shows what it becomes on GL.

use std::fmt::Write;

use brook_ir::{FunctionId, FunctionKind, Module, ParamClass};

use super::kernel::{compile as compile_kernel, Along, ParamKey, Variant};
use super::reduce::compile as compile_reduce;
use super::runtime::Call;

/// Why there is no Cranelift IR to show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClifError {
    /// A function id that is not in the module (the id's number).
    #[error("function #{0} does not exist in this module")]
    UnknownFunction(u32),
    /// A helper function (named): it has no code of its own.
    #[error("`{0}` is a helper function: it is inlined into the kernels that call it")]
    Helper(String),
    /// A kernel or reduction the JIT does not take.
    #[error("`{name}` does not compile to native code ({reason}); the interpreter runs it")]
    NotCompiled {
        /// The function.
        name: String,
        /// What the JIT does not take in it.
        reason: String,
    },
}

/// The variant shown: every stream of the output's shape, outputs of two dimensions, gathers
/// of their declared rank, iterators of one dimension.
fn shown_variant(module: &Module, id: FunctionId) -> Variant {
    let func = module.func(id);
    Variant {
        out_rank: 2,
        params: func
            .params
            .iter()
            .map(|p| match p.class {
                ParamClass::Stream => ParamKey::Direct,
                ParamClass::Iter => ParamKey::Iter(vec![Along::Same]),
                ParamClass::Gather { rank } => ParamKey::Gather(rank.max(1)),
                ParamClass::Constant => ParamKey::Constant,
                ParamClass::Out => ParamKey::Out,
                ParamClass::Vout { .. } | ParamClass::Reduce => ParamKey::Vout,
            })
            .collect(),
        watched: false,
        quads: false,
        math: brook_ir::MathMode::Accurate,
    }
}

/// The Cranelift IR of kernel or reduction `id`: a kernel's tile function (for calls whose
/// streams all have the output's shape, of two dimensions), or a reduction's fold, fold of
/// accumulators and update. A header says what the function's arguments and calls are.
pub fn clif_text(module: &Module, id: FunctionId) -> Result<String, ClifError> {
    let func = module
        .functions
        .get(id.0 as usize)
        .ok_or(ClifError::UnknownFunction(id.0))?;
    let not_compiled = |e: super::Unjittable| ClifError::NotCompiled {
        name: func.name.clone(),
        reason: e.0,
    };
    let mut out = String::new();
    let text = match func.kind {
        FunctionKind::Helper => return Err(ClifError::Helper(func.name.clone())),
        FunctionKind::Kernel => {
            let mut variant = shown_variant(module, id);
            let layout = super::soa::eligible(module, id, &variant);
            variant.quads = layout.is_ok();
            let _ = writeln!(
                out,
                "; kernel `{}` ({})\n; fn tile(ctx, start, count, mask, vouts) -> elements written: \
                 runs output elements start..start+count; ctx holds the call's addresses, \
                 extents and constants",
                func.name,
                variant.describe()
            );
            let _ = match layout {
                Ok(()) => writeln!(
                    out,
                    "; fn quads(ctx, start, count, mask, vouts) -> elements run (the second \
                     function): four elements per iteration, lane j of every vector is element \
                     start+4q+j; returns early at a quad whose lanes disagree on a condition, \
                     which tile then runs"
                ),
                Err(why) => writeln!(out, "; one element per iteration: {why}"),
            };
            compile_kernel(module, id, &variant, true)
                .map_err(not_compiled)?
                .clif
                .clone()
        }
        FunctionKind::Reduce => {
            let find = |c: ParamClass| func.params.iter().position(|p| p.class == c);
            let (Some(a), Some(r)) = (find(ParamClass::Stream), find(ParamClass::Reduce)) else {
                return Err(not_compiled(super::Unjittable(
                    "a reduction needs one input stream and one reduce parameter".into(),
                )));
            };
            let ranks: Vec<Option<u8>> = func
                .params
                .iter()
                .map(|p| match p.class {
                    ParamClass::Gather { rank } => Some(rank.max(1)),
                    _ => None,
                })
                .collect();
            let _ = writeln!(
                out,
                "; reduction `{}`: fold(ctx, acc, elements, n), fold(ctx, acc, accumulators, n), \
                 update(ctx, dst, x)",
                func.name
            );
            compile_reduce(module, brook_ir::MathMode::Accurate, id, a, r, &ranks, true)
                .map_err(not_compiled)?
                .clif
                .clone()
        }
    };
    let _ = writeln!(
        out,
        "; calls into Rust, in declaration order (u0:0, u0:1, …):"
    );
    for c in Call::ALL {
        let _ = writeln!(out, ";   {}", c.name());
    }
    out.push_str(&text.unwrap_or_default());
    Ok(out)
}
