//! NaN, ±inf and −0 through the identities a shader compiler may apply (`x * 0 → 0`,
//! `x - x → 0`, `x + 0 → x`, …), on every backend, against the CPU interpreter. The contract
//! is the table in `docs/semantics.md` ("Special values"): each cell says whether a backend
//! gives the interpreter's bits (`exact`) or may not; every cell is checked here, so a driver
//! that changes either way is noticed.
//!
//! It runs on its own and prints what each backend gave, identity by identity:
//!
//! ```sh
//! cargo test --test special_values -- --nocapture
//! ```
//!
//! A cell that is not `exact` is pinned only on the drivers the table was measured on (Mesa's
//! llvmpipe and lavapipe): elsewhere it is printed, not asserted, so the test can be run on
//! a GPU driver to see what it does.

mod support;

use std::rc::Rc;

use brook::wgpu_backend::WgpuBackend;
use brook::{args, ContextOptions, Profile, Runtime};

/// The inputs every identity is applied to.
const INPUTS: [f32; 5] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 2.0];

/// Each identity: its name in the table and the Brook statements that compute it from `x`
/// into `r`.
const IDENTITIES: [(&str, &str); 12] = [
    ("x * 0", "r = x * 0.0;"),
    ("x + 0", "r = x + 0.0;"),
    ("x - x", "r = x - x;"),
    ("0 - (0 - x)", "r = 0.0 - (0.0 - x);"),
    ("x / x", "r = x / x;"),
    ("x * 1", "r = x * 1.0;"),
    ("x == x", "r = x == x ? 1.0 : 0.0;"),
    ("x != x", "r = x != x ? 1.0 : 0.0;"),
    ("x < x", "r = x < x ? 1.0 : 0.0;"),
    (
        "if (x - x == 0)",
        "if (x - x == 0.0) r = 1.0; else r = 0.0;",
    ),
    (
        "x - x == 0 && x < 3",
        "r = x - x == 0.0 && x < 3.0 ? 1.0 : 0.0;",
    ),
    (
        "while (x - x == 0)",
        "r = 0.0; while (x - x == 0.0 && r < 1.0) r += 1.0;",
    ),
];

/// The reduction row: `Σ x / (x − 3) · 0` over 0..8 (one term is `inf · 0`).
const REDUCTION: &str = "sum x / (x - 3) * 0";

/// The program: kernel `k{i}` computes identity `i`; `near3` and `sum` the reduction row.
fn program() -> String {
    let mut src = String::new();
    for (i, (_, body)) in IDENTITIES.iter().enumerate() {
        src.push_str(&format!(
            "kernel void k{i}(float x<>, out float r<>) {{ {body} }}\n"
        ));
    }
    src.push_str(
        "kernel void near3(float x<>, out float r<>) { r = x / (x - 3.0f) * 0.0f; }\n\
         reduce void sum(float a<>, reduce float r<>) { r += a; }\n",
    );
    src
}

/// Every row's results on `rt`: one list per identity (a value per input), then the
/// reduction's one value.
fn results(rt: &Runtime) -> Vec<Vec<f32>> {
    let p = rt
        .compile(&program(), "special_values.br")
        .unwrap_or_else(|e| panic!("{e}"));
    let x = rt.stream_of(1, &[INPUTS.len()]).unwrap();
    x.read(&INPUTS).unwrap();
    let r = rt.stream_of(1, &[INPUTS.len()]).unwrap();
    let mut rows: Vec<Vec<f32>> = (0..IDENTITIES.len())
        .map(|i| {
            rt.run(&p, &format!("k{i}"), args![&x, &r])
                .unwrap_or_else(|e| panic!("{}: {e}", rt.describe()));
            r.to_vec().unwrap()
        })
        .collect();
    let ramp: Vec<f32> = (0..8).map(|i| i as f32).collect();
    let xs = rt.stream_of(1, &[ramp.len()]).unwrap();
    xs.read(&ramp).unwrap();
    let terms = rt.stream_of(1, &[ramp.len()]).unwrap();
    rows.push(
        rt.map_reduce_to_value(&p, "near3", args![&xs, &terms], "sum", args![])
            .unwrap_or_else(|e| panic!("{}: {e}", rt.describe())),
    );
    rows
}

/// The backends the table has a column for, by that column's name; why not, where this
/// machine cannot open it (no such driver, or one that fails to start: wgpu's GL backend on
/// an NVIDIA machine says `Device("Parent device is lost")`).
fn make(column: &str) -> Result<Runtime, String> {
    // `gl-fast`, `wgpu-fast`: the backend with fast math on (`Runtime::set_fast_math`).
    if let Some(base) = column.strip_suffix("-fast") {
        let rt = make(base)?;
        rt.set_fast_math(true).map_err(|e| e.to_string())?;
        return Ok(rt);
    }
    let gl = |profile| {
        Runtime::gl_with(ContextOptions {
            profile,
            ..ContextOptions::default()
        })
        .map_err(|e| e.to_string())
    };
    match column {
        "gl" => gl(Profile::Gl33Core),
        "gles" => gl(Profile::Es30),
        "wgpu" => Runtime::wgpu().map_err(|e| e.to_string()),
        "wgpu-gl" => WgpuBackend::new_on(brook::wgpu_backend::wgpu::Backends::GL)
            .map(|b| Runtime::with_backend(Rc::new(b)))
            .map_err(|e| format!("{e:?}")),
        "cpu" => Ok(Runtime::cpu()),
        other => panic!("the special-values table names an unknown backend `{other}`"),
    }
}

/// Mesa's environment variable capping the GL ES version a context reports.
const ES_OVERRIDE: &str = "MESA_GLES_VERSION_OVERRIDE";

/// Set in a child process: the column whose rows it prints for its parent.
const CHILD: &str = "BROOK_SPECIAL_VALUES_COLUMN";

/// One backend's rows and what it is, computed on a thread of its own: wgpu's GL backend
/// releases the thread's EGL context, which a Brook GL runtime on the same thread needs.
/// `gles-3.0` is an ES context capped at 3.0 (no `precise`), which Mesa makes only for a
/// process started with [`ES_OVERRIDE`]: it is measured in a child process. `Err`: the
/// backend cannot be opened here, and why.
fn measure(column: &str) -> Result<(String, Vec<Vec<f32>>), String> {
    if column == "gles-3.0" {
        return measure_in_child("gles", "3.0");
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            let rt = make(column)?;
            Ok((rt.describe(), results(&rt)))
        })
        .join()
        .unwrap_or_else(|_| panic!("{column} failed"))
    })
}

/// Runs `column` in a child process of this test binary with the ES version capped at
/// `es_version`; its description and rows, as [`print_rows_for_a_parent`] prints them, or
/// why the child could not open the backend.
fn measure_in_child(column: &str, es_version: &str) -> Result<(String, Vec<Vec<f32>>), String> {
    let out = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "print_rows_for_a_parent",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, column)
        .env(ES_OVERRIDE, es_version)
        .output()
        .expect("the test binary runs again");
    let text = String::from_utf8_lossy(&out.stdout);
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("UNAVAILABLE ")) {
        return Err(why.to_string());
    }
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut description = String::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(d) = line.strip_prefix("DESCRIPTION ") {
            description = d.to_string();
        } else if let Some(r) = line.strip_prefix("ROW ") {
            rows.push(
                r.split_whitespace()
                    .map(|b| f32::from_bits(b.parse().expect("a float's bits")))
                    .collect(),
            );
        }
    }
    assert!(!rows.is_empty(), "the child printed no rows:\n{text}");
    Ok((description, rows))
}

/// In a child started by [`measure_in_child`]: prints the column's description and rows
/// (as floats' bits). Elsewhere, nothing.
#[test]
fn print_rows_for_a_parent() {
    let Ok(column) = std::env::var(CHILD) else {
        return;
    };
    // The harness prints the test's name before its output, on the same line.
    let rt = match make(&column) {
        Ok(rt) => rt,
        Err(why) => return println!("\nUNAVAILABLE {why}"),
    };
    println!("\nDESCRIPTION {}", rt.describe());
    for row in results(&rt) {
        let bits: Vec<String> = row.iter().map(|v| v.to_bits().to_string()).collect();
        println!("ROW {}", bits.join(" "));
    }
}

/// Same value: the same bits, or both NaN (a NaN's payload is not part of the contract).
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The table of `docs/semantics.md` between its markers: the column names, then each row's
/// identity and cells.
fn contract() -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let (header, rows) = support::doc_table(include_str!("../docs/semantics.md"), "special-values");
    let rows = (rows.into_iter())
        .map(|mut c| {
            let name = c.remove(0);
            (name, c)
        })
        .collect();
    (header[1..].to_vec(), rows)
}

/// Whether the table's measurements apply to this backend: they were made on Mesa.
fn measured_here(description: &str) -> bool {
    let d = description.to_lowercase();
    d.contains("llvmpipe") || d.contains("lavapipe") || d.contains("cpu")
}

fn show(v: f32) -> String {
    if v == 0.0 && v.is_sign_negative() {
        "-0".into()
    } else {
        format!("{v}")
    }
}

#[test]
fn special_values_match_the_contract_on_every_backend() {
    let (columns, rows) = contract();
    let names: Vec<&str> = IDENTITIES
        .iter()
        .map(|(n, _)| *n)
        .chain([REDUCTION])
        .collect();
    let table: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(table, names, "the table's rows are the identities tested");
    let verdict = check(&columns, &rows, &measure_interpreter(), measure);
    println!(
        "inputs [NaN, inf, -inf, -0, 2]; the reduction sums over 0..8{}",
        verdict.report
    );
    assert!(
        verdict.failures.is_empty(),
        "{}",
        verdict.failures.join("\n")
    );
    // The CPU always opens: a run that skipped everything else still checked something.
    assert!(
        verdict.checked > 0,
        "no backend could be opened:{}",
        verdict.report
    );
}

/// What [`check`] found: the report it prints, each cell that broke the contract, and how
/// many backends it checked.
struct Verdict {
    report: String,
    failures: Vec<String>,
    checked: usize,
}

/// Each of `columns` measured by `measure` and held to its cells of `rows` against the
/// interpreter's `reference`. A backend `measure` cannot open is reported as skipped, with
/// why, and is no failure: this machine has no such backend.
fn check(
    columns: &[String],
    rows: &[(String, Vec<String>)],
    reference: &[Vec<f32>],
    measure: impl Fn(&str) -> Result<(String, Vec<Vec<f32>>), String>,
) -> Verdict {
    let mut report = String::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (c, column) in columns.iter().enumerate() {
        let (description, got) = match measure(column) {
            Ok(m) => m,
            Err(why) => {
                report.push_str(&format!(
                    "\n{column}: skipped, cannot be opened here: {why}\n"
                ));
                continue;
            }
        };
        report.push_str(&format!("\n{column}: {description}\n"));
        if column.starts_with("wgpu")
            && !column.starts_with("wgpu-gl")
            && !description.contains("Vulkan")
        {
            // `Runtime::wgpu` falls back to wgpu's GL backend: that is the next column.
            report.push_str("  not checked: no Vulkan adapter here\n");
            continue;
        }
        checked += 1;
        for (r, (name, cells)) in rows.iter().enumerate() {
            let exact = got[r].iter().zip(&reference[r]).all(|(a, b)| same(*a, *b));
            let values: Vec<String> = got[r].iter().map(|v| show(*v)).collect();
            let want: Vec<String> = reference[r].iter().map(|v| show(*v)).collect();
            report.push_str(&format!(
                "  {name:<22} {:<5} [{}]{}\n",
                if exact { "exact" } else { "DIFF" },
                values.join(", "),
                if exact {
                    String::new()
                } else {
                    format!("  interpreter [{}]", want.join(", "))
                }
            ));
            let documented = cells[c].as_str();
            // Fast math lets the driver fold: an exact cell of a fast column is what Mesa's
            // compilers leave alone, which another driver's need not (NVIDIA's folds `x / x`).
            let promised = !column.ends_with("-fast") || measured_here(&description);
            if documented == "exact" && !exact && promised {
                failures.push(format!(
                    "{column} ({description}): `{name}` gave [{}], the interpreter [{}]; the table says exact",
                    values.join(", "),
                    want.join(", ")
                ));
            } else if documented != "exact" && exact && measured_here(&description) {
                failures.push(format!(
                    "{column} ({description}): `{name}` is now exact; the table says `{documented}`: update docs/semantics.md"
                ));
            }
        }
    }
    Verdict {
        report,
        failures,
        checked,
    }
}

/// The table's cells of column `name` alone, named `name`.
fn column_of(name: &str) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let (columns, rows) = contract();
    let c = columns
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("the table has no column `{name}`"));
    let rows = rows
        .into_iter()
        .map(|(identity, cells)| (identity, vec![cells[c].clone()]))
        .collect();
    (vec![name.to_string()], rows)
}

#[test]
fn a_backend_that_cannot_open_is_skipped_with_its_reason() {
    // An ES 3.0 context in a process whose ES versions Mesa caps at 2.0: it cannot be had.
    let (columns, rows) = column_of("gles");
    if !mesa_caps_es_versions() {
        return;
    }
    let verdict = check(&columns, &rows, &measure_interpreter(), |column| {
        measure_in_child(column, "2.0")
    });
    let skipped = "gles: skipped, cannot be opened here: ";
    let line = (verdict.report.lines())
        .find(|l| l.starts_with(skipped))
        .unwrap_or_else(|| panic!("no skip reported:{}", verdict.report));
    println!("{line}");
    assert!(line.len() > skipped.len(), "a skip says why: {line}");
    assert!(
        verdict.failures.is_empty(),
        "{}",
        verdict.failures.join("\n")
    );
    assert_eq!(verdict.checked, 0, "{}", verdict.report);
}

#[test]
fn a_backend_that_opens_with_other_answers_than_the_table_fails() {
    let reference = measure_interpreter();
    // ES 3.0 has no `precise`: `x - x` folds there, where the `gles` column (ES 3.2) says
    // exact. Measured in a child process, as `gles-3.0` is.
    let (columns, rows) = column_of("gles");
    if !mesa_caps_es_versions() {
        return;
    }
    let verdict = check(&columns, &rows, &reference, |column| {
        measure_in_child(column, "3.0")
    });
    assert_eq!(verdict.checked, 1, "{}", verdict.report);
    assert!(
        (verdict.failures.iter()).any(|f| f.contains("`x - x` gave") && f.contains("says exact")),
        "a folded `x - x` is not noticed:\n{}",
        verdict.report
    );
    // The other way: the CPU's exact rows against a column that says they are not.
    let (_, fast) = column_of("gl-fast");
    let verdict = check(&["cpu".to_string()], &fast, &reference, measure);
    assert!(
        (verdict.failures.iter()).any(|f| f.contains("`x * 0` is now exact")),
        "an exact cell the table calls inexact is not noticed:\n{}",
        verdict.report
    );
}

/// Whether this machine's GL is Mesa, whose [`ES_OVERRIDE`] the two tests of the checker
/// use to make an ES context it cannot open or one without `precise`; elsewhere (NVIDIA's GL
/// ignores the variable) they say so and check nothing.
fn mesa_caps_es_versions() -> bool {
    let Ok(rt) = make("gles") else {
        return true;
    };
    let mesa = rt.describe().contains("Mesa");
    if !mesa {
        println!(
            "not Mesa ({}): {ES_OVERRIDE} has no effect here",
            rt.describe()
        );
    }
    mesa
}

/// The interpreter's rows: the reference every column is compared with.
fn measure_interpreter() -> Vec<Vec<f32>> {
    let rows = results(&Runtime::cpu_interpreter());
    // The interpreter computes IEEE single precision: the identities do not hold for special
    // values, so the reference really tells a folded result from an exact one.
    assert!(
        rows[0][0].is_nan() && rows[0][1].is_nan(),
        "NaN·0 and inf·0 are NaN"
    );
    assert!(
        rows[1][3] == 0.0 && rows[1][3].is_sign_positive(),
        "-0 + 0 is +0"
    );
    assert!(
        rows[IDENTITIES.len()][0].is_nan(),
        "the reduction meets inf·0"
    );
    rows
}
