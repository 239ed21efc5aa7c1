//! The conformance suite: every `tests/conformance/*.br` case on every backend available
//! (GL desktop core, GL ES 3.0, the CPU's native code and its interpreter, wgpu on its default
//! adapter and on wgpu's GL backend), compared with the case's expected values.
//!
//! Prints a report per backend (`conformance gl: 54 passed, 0 failed`), names every failing
//! case with its backend, element, expected and actual value, and exits non-zero if any case
//! failed. `cargo test --test conformance -- NAME` runs the cases whose file name contains
//! NAME; libtest's flags mean what they mean to libtest (`--skip`, `--exact`, `--list`; see
//! `harness/args.rs`). The run fails when it selects no case, and when a backend cannot be
//! made, unless `BROOK_CONFORMANCE_OPTIONAL` names it (`BROOK_CONFORMANCE_OPTIONAL=wgpu,wgpu-gl`
//! on a machine without Vulkan). The case format is in `tests/conformance/README.md`.
//! `BROOK_CONFORMANCE_DUMP=DIR` writes every output's bits per backend to `DIR/BACKEND.txt`,
//! so two runs (before and after a change) can be compared bit for bit with `diff`.

#[path = "conformance/harness/args.rs"]
mod args;
#[path = "conformance/harness/case.rs"]
mod case;
#[path = "conformance/harness/run.rs"]
mod run;
mod support;

use std::path::PathBuf;

use std::rc::Rc;

use brook::{BrookError, ContextOptions, Profile, Runtime, TraceEntry, WgpuBackend};

fn cases(args: &args::Args) -> Vec<case::Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/conformance exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    let mut broken = Vec::new();
    for p in paths {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if !args.selects(&name) {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("a readable case");
        match case::parse(&name, &text) {
            Ok(c) => out.push(c),
            Err(e) => broken.push(format!("{name}.br {e}")),
        }
    }
    assert!(broken.is_empty(), "malformed cases:\n{}", broken.join("\n"));
    out
}

type Maker = fn() -> Result<Runtime, BrookError>;

/// Every case on the CPU's native code and on its interpreter, compared bit for bit (NaNs
/// alike): the interpreter is the reference the JIT is held to. The trace must show that
/// native code ran every kernel and reduction (no quiet fallback to the interpreter).
/// `native` is `cpu` (four elements per iteration where a kernel allows it) or
/// `cpu-one-element`; the report counts the kernel variants compiled four per iteration.
/// With `fast`, both engines run in fast math (`Runtime::set_fast_math`), whose shorter
/// formulas must agree as bit for bit.
fn same_bits(
    name: &str,
    native: Runtime,
    fast: bool,
    cases: &[case::Case],
    failures: &mut Vec<String>,
) -> String {
    let interpreter = Runtime::cpu_interpreter();
    native.set_fast_math(fast).expect("the CPU takes fast math");
    interpreter
        .set_fast_math(fast)
        .expect("the CPU takes fast math");
    native.set_trace(true);
    let (mut same, mut quads) = (0, 0);
    for c in cases {
        let (a, b) = (run::execute(&native, c), run::execute(&interpreter, c));
        let trace = native.take_trace();
        quads += trace
            .iter()
            .filter(|e| {
                matches!(e, TraceEntry::Kernel(call)
                    if call.variant.contains("four elements per iteration"))
            })
            .count();
        let interpreted = trace.into_iter().find_map(|e| match e {
            TraceEntry::Kernel(call) | TraceEntry::Reduce(call)
                if call.variant.contains(", interpreter") =>
            {
                Some(call.variant)
            }
            _ => None,
        });
        if let Some(variant) = interpreted {
            failures.push(format!(
                "FAIL {} on {name}: the JIT did not take it ({variant})",
                c.name
            ));
        }
        let differs = match (&a, &b) {
            (Ok(Some(x)), Ok(Some(y))) => {
                x.pushed != y.pushed
                    || x.streams.len() != y.streams.len()
                    || x.streams
                        .iter()
                        .zip(&y.streams)
                        .any(|(p, q)| match (&p.2, &q.2) {
                            (Ok(u), Ok(v)) => {
                                u.len() != v.len()
                                    || u.iter().zip(v).any(|(s, t)| {
                                        s.to_bits() != t.to_bits() && !(s.is_nan() && t.is_nan())
                                    })
                            }
                            (u, v) => u.is_ok() != v.is_ok(),
                        })
            }
            (x, y) => {
                x.is_ok() != y.is_ok()
                    || x.as_ref().ok().map(Option::is_some) != y.as_ref().ok().map(Option::is_some)
            }
        };
        if differs {
            failures.push(format!(
                "FAIL {}: {name}'s native code and the interpreter differ",
                c.name
            ));
        } else {
            same += 1;
        }
    }
    format!(
        "conformance {name} vs cpu-interpreter: {same} of {} cases bit-identical \
         ({quads} kernel variants compiled four elements per iteration)",
        cases.len()
    )
}

fn main() {
    args::self_check();
    case::self_check();
    // clap prints `--help` (exit 0) or the error naming the bad argument (exit 2).
    let args = args::parse(std::env::args().skip(1)).unwrap_or_else(|e| e.exit());
    if args.ignored_only {
        println!("conformance: no case is ignored; nothing to run");
        return;
    }
    let cases = cases(&args);
    if args.list {
        for c in &cases {
            println!("{}: test", c.name);
        }
        return;
    }
    if cases.is_empty() {
        eprintln!("conformance: FAIL: no case selected by {args:?}");
        std::process::exit(1);
    }
    let optional = support::optional_backends();
    let backends: [(&str, Maker); 6] = [
        ("gl", Runtime::gl),
        ("gles", || {
            Runtime::gl_with(ContextOptions {
                profile: Profile::Es30,
                ..ContextOptions::default()
            })
        }),
        ("cpu", || Ok(Runtime::cpu())),
        ("cpu-interpreter", || Ok(Runtime::cpu_interpreter())),
        ("wgpu", Runtime::wgpu),
        // wgpu's own GL backend: the adapter brook-wgpu falls back to without Vulkan.
        ("wgpu-gl", || {
            let gl = WgpuBackend::new_on(brook::wgpu_backend::wgpu::Backends::GL)?;
            Ok(Runtime::with_backend(Rc::new(gl)))
        }),
    ];
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let mut notes = Vec::new();
    for (name, make) in backends {
        let rt = match make() {
            Ok(rt) => rt,
            Err(e) if optional.iter().any(|o| o == name) => {
                report.push(format!(
                    "conformance {name}: unavailable, allowed by BROOK_CONFORMANCE_OPTIONAL ({e})"
                ));
                continue;
            }
            Err(e) => {
                failures.push(format!(
                    "FAIL backend {name} unavailable ({e}); BROOK_CONFORMANCE_OPTIONAL={name} allows that"
                ));
                continue;
            }
        };
        let (mut passed, mut failed, mut known) = (0, 0, 0);
        let mut dumped = Vec::new();
        for c in &cases {
            let xfail = c.xfail.iter().find(|(b, _)| b == name).map(|(_, why)| why);
            let observed = run::execute(&rt, c);
            dumped.push(run::describe_bits(c, &observed));
            let outcome = observed.and_then(|o| o.map_or(Ok(()), |o| run::check(c, &o)));
            match (outcome, xfail) {
                (Ok(()), None) => passed += 1,
                (Ok(()), Some(_)) => {
                    passed += 1;
                    notes.push(format!(
                        "XPASS {} on {name}: remove its `xfail {name}`",
                        c.name
                    ));
                }
                (Err(problems), Some(why)) => {
                    known += 1;
                    notes.push(format!(
                        "XFAIL {} on {name} ({why}): {}",
                        c.name, problems[0]
                    ));
                }
                (Err(problems), None) => {
                    failed += 1;
                    for p in problems {
                        failures.push(format!("FAIL {} on {name}: {p}", c.name));
                    }
                }
            }
        }
        if let Some(dir) = std::env::var_os("BROOK_CONFORMANCE_DUMP") {
            let path = PathBuf::from(dir).join(format!("{name}.txt"));
            std::fs::write(&path, dumped.concat()).expect("a writable dump directory");
        }
        report.push(format!(
            "conformance {name}: {passed} passed, {failed} failed, {known} known failures ({})",
            rt.describe()
        ));
    }
    report.push(same_bits(
        "cpu",
        Runtime::cpu(),
        false,
        &cases,
        &mut failures,
    ));
    report.push(same_bits(
        "cpu-one-element",
        Runtime::cpu_one_element(),
        false,
        &cases,
        &mut failures,
    ));
    report.push(same_bits(
        "cpu-fast-math",
        Runtime::cpu(),
        true,
        &cases,
        &mut failures,
    ));
    for n in &notes {
        println!("{n}");
    }
    for f in &failures {
        println!("{f}");
    }
    for r in &report {
        println!("{r}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
