//! The conformance suite (`tests/conformance/*.br` of the workspace) on wgpu, on the default
//! adapter and on wgpu's GL backend: every case run through this crate's API and compared
//! with the values the case expects. The case
//! format and parser are the workspace harness's own (`tests/conformance/harness/case.rs`).

#[path = "../../tests/conformance/harness/case.rs"]
#[allow(dead_code)]
mod case;
#[path = "support/case_run.rs"]
mod case_run;
mod support;

use std::path::PathBuf;

use brook_wgpu::WgpuBackend;
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
    let mut report = Vec::new();
    let mut failures = 0;
    // The default adapter (a GPU, else lavapipe), then wgpu's GL backend, its fallback.
    for (name, backend) in [
        ("wgpu", support::backend()),
        (
            "wgpu-gl",
            WgpuBackend::new_on(wgpu::Backends::GL).expect("wgpu's GL backend"),
        ),
    ] {
        failures += run_all(name, &backend, &paths, filter.as_deref(), &mut report);
    }
    for r in &report {
        println!("{r}");
    }
    assert_eq!(failures, 0, "{}", report.join("\n"));
}

/// Runs every case on `backend`; returns the failures and reports into `report`.
fn run_all(
    name: &str,
    backend: &WgpuBackend,
    paths: &[PathBuf],
    filter: Option<&str>,
    report: &mut Vec<String>,
) -> usize {
    let (mut passed, mut failed, mut known) = (0, 0, 0);
    for p in paths {
        let case_name = p.file_stem().unwrap().to_string_lossy().to_string();
        if filter.is_some_and(|f| !case_name.contains(f)) {
            continue;
        }
        let text = std::fs::read_to_string(p).unwrap();
        let c = case::parse(&case_name, &text).unwrap_or_else(|e| panic!("{case_name}: {e}"));
        let xfail = c
            .xfail
            .iter()
            .find(|(b, _)| b == name)
            .map(|(_, w)| w.clone());
        match (run_case(backend, &c), xfail) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => {
                passed += 1;
                report.push(format!(
                    "XPASS {case_name} on {name}: remove its `xfail {name}`"
                ));
            }
            (Err(p), Some(why)) => {
                known += 1;
                report.push(format!("XFAIL {case_name} on {name} ({why}): {}", p[0]));
            }
            (Err(problems), None) => {
                failed += 1;
                for p in problems {
                    report.push(format!("FAIL {case_name} on {name}: {p}"));
                }
            }
        }
    }
    report.push(format!(
        "conformance {name}: {passed} passed, {failed} failed, {known} known failures ({})",
        backend.describe()
    ));
    failed
}
