//! The conformance suite (`tests/conformance/*.br` of the workspace) on wgpu: every case
//! run through this crate's API and compared with the values the case expects. The case
//! format and parser are the workspace harness's own (`tests/conformance/harness/case.rs`).

#[path = "../../tests/conformance/harness/case.rs"]
#[allow(dead_code)]
mod case;
#[path = "support/case_run.rs"]
mod case_run;
mod support;

use std::path::PathBuf;

use case_run::run_case;

#[test]
fn conformance_cases_on_wgpu() {
    case::self_check();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let filter = std::env::var("BROOK_CASE").ok();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/conformance exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .collect();
    paths.sort();
    let backend = support::backend();
    let (mut passed, mut failed, mut known) = (0, 0, 0);
    let mut report = Vec::new();
    for p in paths {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let c = case::parse(&name, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let xfail = c
            .xfail
            .iter()
            .find(|(b, _)| b == "wgpu")
            .map(|(_, w)| w.clone());
        match (run_case(&backend, &c), xfail) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => {
                passed += 1;
                report.push(format!("XPASS {name} on wgpu: remove its `xfail wgpu`"));
            }
            (Err(p), Some(why)) => {
                known += 1;
                report.push(format!("XFAIL {name} on wgpu ({why}): {}", p[0]));
            }
            (Err(problems), None) => {
                failed += 1;
                for p in problems {
                    report.push(format!("FAIL {name} on wgpu: {p}"));
                }
            }
        }
    }
    for r in &report {
        println!("{r}");
    }
    println!(
        "conformance wgpu: {passed} passed, {failed} failed, {known} known failures ({})",
        backend.describe()
    );
    assert_eq!(failed, 0, "{}", report.join("\n"));
}
