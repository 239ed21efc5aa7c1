//! `brcc clif`: every kernel's and reduction's Cranelift IR, for people learning what a
//! kernel becomes on the CPU backend (as `brcc glsl` shows what it becomes on GL). A kernel's
//! code depends on how it is called; this shows the variant where every input stream has the
//! output's shape (two dimensions) and gathers have their declared rank.

use std::fmt::Write;

use brook::ir::{FunctionId, FunctionKind};
use brook_build::Program;

pub fn describe(program: &Program) -> String {
    let module = &program.module;
    let mut out = String::new();
    let _ = writeln!(
        out,
        ";; Cranelift IR for {}: what the CPU backend compiles to native code.",
        program.file_name
    );
    for (i, f) in module.functions.iter().enumerate() {
        if f.kind == FunctionKind::Helper {
            continue;
        }
        out.push('\n');
        match brook_cpu::jit::clif_text(module, FunctionId(i as u32)) {
            Ok(text) => out.push_str(&text),
            Err(e) => {
                let _ = writeln!(out, "; {e}");
            }
        }
    }
    out
}
