//! Every program under `tests/corpus/*.br` compiles, and its pretty-printed IR matches the
//! golden `tests/corpus/*.ir` file. Run with `BLESS=1` to (re)write the golden files.

use std::fs;
use std::path::{Path, PathBuf};

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_compiles_and_matches_golden_ir() {
    let bless = std::env::var_os("BLESS").is_some();
    let files = corpus_files();
    assert!(files.len() >= 13, "corpus is missing files");
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = fs::read_to_string(&path).unwrap();
        let module = match brook_frontend::compile(&source, &name) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{name} failed to compile:\n{}", d.render()));
                continue;
            }
        };
        let printed = brook_frontend::pretty(&module);
        // Printing is deterministic.
        assert_eq!(printed, brook_frontend::pretty(&module));
        let golden = path.with_extension("ir");
        if bless {
            fs::write(&golden, &printed).unwrap();
            continue;
        }
        match fs::read_to_string(&golden) {
            Ok(expected) if expected == printed => {}
            Ok(expected) => failures.push(format!(
                "{name}: pretty output differs from {}\n--- expected\n{expected}\n--- actual\n{printed}",
                golden.display()
            )),
            Err(_) => failures.push(format!(
                "{name}: no golden file {} (run with BLESS=1)",
                golden.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
