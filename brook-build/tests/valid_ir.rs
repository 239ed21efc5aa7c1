//! The front end only produces valid IR: every Brook file of the repository that compiles —
//! the programs of `tests/programs` (their kernel part, as brcc splits them), the conformance
//! kernels, the front end's corpus — passes `brook_ir::validate`, before and after the shared
//! lowering of composite built-ins.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.br` file under `dir`, recursively.
fn brook_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            brook_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "br") {
            out.push(path);
        }
    }
}

#[test]
fn every_program_compiles_to_valid_ir() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "tests/programs",
        "tests/conformance",
        "frontend/tests/corpus",
    ] {
        brook_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() >= 150, "only {} Brook files found", files.len());
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in &files {
        let source = fs::read_to_string(path).unwrap();
        let name = path.display().to_string();
        // Some cases are meant to fail to compile; only those that compile count.
        let Ok(program) = brook_build::Program::parse(&source, &name) else {
            continue;
        };
        let mut module = program.module;
        checked += 1;
        if let Err(e) = brook_ir::validate(&module) {
            failures.push(format!("{name}: {e} at {:?}", e.span));
            continue;
        }
        brook_ir::lower_composites(&mut module);
        if let Err(e) = brook_ir::validate(&module) {
            failures.push(format!("{name} after lowering: {e} at {:?}", e.span));
        }
    }
    assert!(checked >= 140, "only {checked} programs compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
