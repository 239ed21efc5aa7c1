//! `brcc glsl`: every kernel's GLSL, for people learning what a kernel becomes. A kernel's
//! shaders depend on how it is called (an input of another shape is resized, a large gather
//! is address-translated); this shows the variant where every input stream has the output's
//! shape and gathers are stored directly — the common case.

use std::fmt::Write;

use brook::glsl::{
    generate_kernel, Access, Axis, OutputRegion, Profile, Resize, SourceText, Target, Variant,
};
use brook::ir::{FunctionId, FunctionKind, ParamClass};
use brook_build::Program;

const TARGET: Target = Target {
    profile: Profile::Gl33Core,
    max_draw_buffers: 8,
    loop_cap: None,
    math: brook_ir::MathMode::Accurate,
};

pub fn describe(program: &Program) -> String {
    let module = &program.module;
    let source = SourceText::new(program.file_name.clone(), program.kernel_source.clone());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// GLSL for {} (GL 3.3 core, {} draw buffers), each kernel in the variant where every\n\
         // input stream has the output's shape (read at the fragment) and gathers are direct.",
        program.file_name, TARGET.max_draw_buffers
    );
    for (i, f) in module.functions.iter().enumerate() {
        match f.kind {
            FunctionKind::Helper => continue,
            FunctionKind::Reduce => {
                let _ = writeln!(
                    out,
                    "\n// reduce {}: its passes depend on the reduction's shapes, chosen per call.",
                    f.name
                );
                continue;
            }
            FunctionKind::Kernel => {}
        }
        let variant = Variant {
            params: f
                .params
                .iter()
                .map(|p| match p.class {
                    ParamClass::Stream => Access::AtFragment,
                    ParamClass::Gather { rank } => Access::GatherDirect { rank },
                    ParamClass::Iter => Access::Iter1(Resize([Axis::Same; 4])),
                    _ => Access::Value,
                })
                .collect(),
            // The general case: outputs of any rank, wrapped into their textures.
            output: OutputRegion::Whole { rank: 4 },
        };
        match generate_kernel(
            module,
            FunctionId(i as u32),
            &variant,
            &TARGET,
            Some(&source),
        ) {
            Err(e) => {
                let _ = writeln!(out, "\n// kernel {}: no GLSL: {e}", f.name);
            }
            Ok(k) => {
                let _ = writeln!(
                    out,
                    "\n// ===== kernel {}: {} pass(es)",
                    f.name,
                    k.passes.len()
                );
                for (n, pass) in k.passes.iter().enumerate() {
                    let name = |param: u32| &f.params[param as usize].name;
                    let outputs: Vec<String> = pass
                        .outputs
                        .iter()
                        .map(|m| format!("{}.{}", name(m.param), m.member))
                        .collect();
                    let samplers: Vec<String> = pass
                        .samplers
                        .iter()
                        .enumerate()
                        .map(|(unit, s)| {
                            format!(
                                "unit {unit}: {} = {}.{}",
                                s.uniform,
                                name(s.source.param),
                                s.source.member
                            )
                        })
                        .collect();
                    let uniforms: Vec<String> = pass
                        .uniforms
                        .iter()
                        .map(|u| format!("{} = {:?}", u.uniform, u.value))
                        .collect();
                    let _ = writeln!(
                        out,
                        "// ----- pass {n}\n// writes (output.member): {}\n// textures: {}\n// uniforms: {}\n{}",
                        outputs.join(", "),
                        if samplers.is_empty() { "none".into() } else { samplers.join("; ") },
                        if uniforms.is_empty() { "none".into() } else { uniforms.join("; ") },
                        pass.fragment
                    );
                }
            }
        }
    }
    out
}
