//! Every kernel's and reduction's WGSL and dispatches, without a device (`brcc wgsl`), for
//! people learning what a Brook function becomes on compute next to `brcc glsl`'s fragment
//! passes.
//!
//! A kernel's shader depends on how it is called (an input of another shape is resized, a
//! domain is offset, a mask is tested); this shows the variant of a one-dimensional call in
//! which every input stream has the output's shape, gathers are whole streams of their
//! declared rank and no write mask applies — the common case.

use std::fmt::Write;

use brook_ir::{FunctionId, FunctionKind, MathMode, Module, ParamClass};

use crate::lower::module::{validate, wgsl};
use crate::shaders::kernel::{kernel_module, ArgShape, KernelVariant};
use crate::shaders::reduce::{reduce_module, ReduceVariant, GROUP, MAX_PER_THREAD};
use crate::shaders::{Resource, WORKGROUP};

/// The WGSL and dispatches of every kernel and reduce function of `module` (from `file`).
pub fn describe(module: &Module, file: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// WGSL for {file} (wgpu compute over storage buffers, printed by naga), each kernel in\n\
         // the variant of a 1D call where every input stream has the output's shape. Binding 0\n\
         // is the call's info uniform (counts, extents, constants); then one storage buffer per\n\
         // stream, elements in C layout."
    );
    for (i, f) in module.functions.iter().enumerate() {
        let id = FunctionId(i as u32);
        let shader = match f.kind {
            FunctionKind::Helper => continue,
            FunctionKind::Kernel => {
                let v = common_kernel_variant(module, id);
                let vouts = v
                    .args
                    .iter()
                    .filter(|a| matches!(a, ArgShape::Vout))
                    .count();
                let _ = writeln!(
                    out,
                    "\n// ===== kernel {}: one dispatch of ceil(N / {WORKGROUP}) workgroups of {WORKGROUP} invocations, one per element of the call{}",
                    f.name,
                    if vouts == 0 {
                        String::new()
                    } else {
                        format!(
                            ",\n// then per vout a scan of the push counts and a compaction dispatch ({vouts} vout(s))"
                        )
                    }
                );
                kernel_module(module, &v, MathMode::Accurate).map(|(m, plan)| (m, plan.resources))
            }
            FunctionKind::Reduce => {
                let _ = writeln!(
                    out,
                    "\n// ===== reduce {}: dispatches of workgroups of {GROUP} invocations, each folding up to\n\
                     // {MAX_PER_THREAD} elements in index order, then a tree in workgroup shared memory; one\n\
                     // dispatch per level until one value per output element remains",
                    f.name
                );
                let extras = f
                    .params
                    .iter()
                    .filter_map(|p| match p.class {
                        ParamClass::Stream | ParamClass::Reduce => None,
                        ParamClass::Gather { rank } => Some(ArgShape::Gather {
                            domain: false,
                            rank,
                        }),
                        _ => Some(ArgShape::Constant),
                    })
                    .collect();
                reduce_module(
                    module,
                    &ReduceVariant {
                        function: id,
                        blocks: false,
                        extras,
                        mapped: None,
                    },
                    MathMode::Accurate,
                )
                .map(|(m, (resources, _))| (m, resources))
            }
        };
        match shader {
            Err(e) => {
                let _ = writeln!(out, "// no WGSL: {}", e.message);
            }
            Ok((mut m, resources)) => match validate(&mut m) {
                Err((message, _)) => {
                    let _ = writeln!(out, "// no WGSL: naga rejects the module: {message}");
                }
                Ok(info) => {
                    let _ = writeln!(out, "// bindings: {}", bindings(&resources));
                    out.push_str(&wgsl(&m, &info));
                }
            },
        }
    }
    out
}

/// `1: x (read), 2: result (read_write)`.
fn bindings(resources: &[Resource]) -> String {
    let list: Vec<String> = resources
        .iter()
        .enumerate()
        .map(|(k, r)| {
            format!(
                "{}: {} ({})",
                k + 1,
                r.name,
                if r.writable { "read_write" } else { "read" }
            )
        })
        .collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

/// The kernel's shader for a 1D call whose inputs all have the output's shape.
fn common_kernel_variant(module: &Module, kernel: FunctionId) -> KernelVariant {
    let f = module.func(kernel);
    KernelVariant {
        kernel,
        args: f
            .params
            .iter()
            .map(|p| match p.class {
                ParamClass::Constant => ArgShape::Constant,
                ParamClass::Gather { rank } => ArgShape::Gather {
                    domain: false,
                    rank,
                },
                ParamClass::Out => ArgShape::Out { domain: false },
                ParamClass::Vout { .. } => ArgShape::Vout,
                ParamClass::Iter => ArgShape::Iter {
                    direct: true,
                    rank: 1,
                },
                ParamClass::Stream | ParamClass::Reduce => ArgShape::Stream {
                    direct: true,
                    domain: false,
                    rank: 1,
                    aliased: false,
                    resize: Default::default(),
                },
            })
            .collect(),
        rank: 1,
        masked: false,
        sets_mask: false,
        counting: false,
        check_loops: false,
        rows: false,
    }
}

#[cfg(test)]
mod tests {
    use super::describe;

    /// A kernel's constant arguments, the loop bound `m` among them, are read from the call's
    /// uniform at an index offset by the opaque zero (`lower::module::info_slot_opaque`), never
    /// at a constant index a driver could inline: lavapipe compiles a shader anew at every
    /// dispatch to inline a loop bound it can see. The stream extents stay plain reads.
    #[test]
    fn constant_arguments_are_read_at_an_opaque_index() {
        let src = "kernel void sum(float a[][], int m, float s, out float r<>) {
            float t = 0.0;
            for (int k = 0; k < m; k++) t += a[k][indexof(r).x];
            r = s * t;
        }";
        let module = brook_frontend::compile(src, "sum.br").expect("compiles");
        let wgsl = describe(&module, "sum.br");
        let opaque: Vec<&str> = (wgsl.lines())
            .filter(|l| l.contains("info[(") && l.contains("u + "))
            .collect();
        assert_eq!(opaque.len(), 2, "m and s, each its own slot read:\n{wgsl}");
        assert!(
            !wgsl.contains("info[3]"),
            "a constant at a plain index:\n{wgsl}"
        );
        assert!(
            wgsl.contains("info[2]"),
            "the extents at a plain index:\n{wgsl}"
        );
    }
}
