//! Element histories (`brcc why`, `Runtime::why`): on small programs whose answers are worked
//! out by hand in the comments, on every backend, the history names the right elements, with
//! the right values, indices and operations.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use brook::prelude::*;
use brook::why::Limits;

const BRCC: &str = env!("CARGO_BIN_EXE_brcc");
const BACKENDS: [&str; 3] = ["gl", "cpu", "wgpu"];

/// `brcc why PATH ELEMENT --backend B EXTRA…`.
fn brcc_why(path: &Path, element: &str, backend: &str, extra: &[&str]) -> Output {
    Command::new(BRCC)
        .arg("why")
        .arg(path)
        .args([element, "--backend", backend])
        .args(extra)
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-cache"),
        )
        .env_remove("BRT_RUNTIME")
        .output()
        .expect("brcc runs")
}

/// `brcc why tests/why/PROGRAM ELEMENT --backend B EXTRA…`: its stdout, having succeeded.
fn why(program: &str, element: &str, backend: &str, extra: &[&str]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/why")
        .join(program);
    let out = brcc_why(&path, element, backend, extra);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{program} {element} on {backend}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Asserts every line of `expected` is a line of `got` (after its tree glyphs).
fn has_lines(got: &str, expected: &[&str], context: &str) {
    let lines: Vec<&str> = got
        .lines()
        .map(|l| l.trim_start_matches(['│', '├', '└', '─', ' ']))
        .collect();
    for e in expected {
        assert!(lines.contains(e), "{context}: no line `{e}` in\n{got}");
    }
}

#[test]
fn a_gather_shows_its_index_rounded_and_clamped() {
    // r = t[i * 1.5] with t = 10 20 30 40: i[1] = 1.7 gives 2.55, floor(2.55 + 0.25) = 2;
    // i[2] = 9 gives 13.5, clamped to the last element, 3.
    for b in BACKENDS {
        let got = why("gather_round.br", "r[1]", b, &[]);
        has_lines(
            &got,
            &[
                "r[1] = 30: kernel `pick` (Brook line 2), operation 3, out `r`",
                "`i` i[1] = 1.7: streamRead(i) from host memory, operation 2",
                "gather `t` at Brook line 3: index 2.5500002 rounds and clamps to [2], t[2] = 30: streamRead(t) from host memory, operation 1",
            ],
            b,
        );
        let got = why("gather_round.br", "r[2]", b, &[]);
        has_lines(
            &got,
            &["gather `t` at Brook line 3: index 13.5 rounds and clamps to [3], t[3] = 40: streamRead(t) from host memory, operation 1"],
            b,
        );
    }
}

#[test]
fn a_2d_reduction_to_a_smaller_stream_gives_its_fold_tree() {
    // b = 2a over a = 1..16 (4×4); s<2,2> = sum of each 2×2 block. s[1][0] folds rows 2-3,
    // columns 0-1 of b: 18 20 / 26 28. Core's plan folds the last dimension first (pass 1:
    // 18+20 = 38, 26+28 = 54), then the rows (pass 2: 38+54 = 92).
    for b in BACKENDS {
        let got = why("reduce_2d.br", "s[1][0]", b, &[]);
        has_lines(
            &got,
            &[
                "s[1][0] = 92: reduction `sum` (Brook line 2), operation 3, the fold of its block of 4 element(s) of `b`, b[2][0] to b[3][1] (pass 2, along dimension 0, folds the last step)",
                "pass 1 folded along dimension 1: 38",
                "pass 1 folded along dimension 1: 54",
                "b[2][0] = 18: kernel `twice` (Brook line 6), operation 2, out `b`",
                "b[3][1] = 28: kernel `twice` (Brook line 6), operation 2, out `b`",
                "`a` a[3][1] = 14: streamRead(a) from host memory, operation 1",
            ],
            b,
        );
        // The fold steps are in index order: b[2][0] before b[2][1], 38 before 54.
        let at = |s: &str| got.find(s).unwrap_or_else(|| panic!("{s} in {got}"));
        assert!(at("b[2][0] = 18") < at("b[2][1] = 20"), "{got}");
        assert!(at(": 38") < at(": 54"), "{got}");
    }
}

#[test]
fn a_scatter_lists_the_points_that_landed_and_how_they_combined() {
    // index 1, 2.8, 1.2 with data 5, 7, 11, added into zeros: 2.8 rounds to 3; points 0 and 2
    // land on dst[1], 0 + 5 = 5, then 5 + 11 = 16, in index order.
    for b in BACKENDS {
        let got = why("scatter_collide.br", "dst[1]", b, &[]);
        has_lines(
            &got,
            &[
                "dst[1] = 16: streamScatterOp with add, operation 4: 2 point(s) landed on it, combined in index order",
                "its value before: dst[1] = 0: streamRead(dst) from host memory, operation 1",
                "point 0: index[0] = 1 rounds and clamps to [1]; combined: 5; data[0] = 5: streamRead(data) from host memory, operation 3",
                "point 2: index[2] = 1.2 rounds and clamps to [1]; combined: 16; data[2] = 11: streamRead(data) from host memory, operation 3",
                // Each point's index is followed back too.
                "its index: index[2] = 1.2: streamRead(index) from host memory, operation 2",
            ],
            b,
        );
        assert!(!got.contains("point 1"), "{got}");
        let got = why("scatter_collide.br", "dst[3]", b, &[]);
        has_lines(
            &got,
            &["point 1: index[1] = 2.8 rounds and clamps to [3]; combined: 7; data[1] = 7: streamRead(data) from host memory, operation 3"],
            b,
        );
    }
}

#[test]
fn a_masked_call_says_whether_the_mask_kept_the_element() {
    // mask 1 0 1: r[1] keeps the 2 read before; r[2] = a[2] + 100 = 103.
    for b in BACKENDS {
        let got = why("masked.br", "r[1]", b, &[]);
        has_lines(
            &got,
            &[
                "r[1] = 2: kept through operation 5 (kernel `bump` (Brook line 2), operation 5: the write mask m[1] is off)",
                "r[1] = 2: streamRead(r) from host memory, operation 2",
            ],
            b,
        );
        let got = why("masked.br", "r[2]", b, &[]);
        has_lines(
            &got,
            &[
                "r[2] = 103: kernel `bump` (Brook line 2), operation 5, out `r`",
                "the write mask m[2] = 1 is on: the element was written",
                "`a` a[2] = 3: streamRead(a) from host memory, operation 1",
            ],
            b,
        );
    }
}

#[test]
fn a_call_under_a_write_mask_object_says_the_history_does_not_know_what_it_wrote() {
    for b in BACKENDS {
        let got = why("write_mask_object.br", "r[0][1]", b, &[]);
        has_lines(
            &got,
            &["r[0][1] = 102: kernel `bump` (Brook line 3), operation 3, under a write mask element histories do not keep (a C++ write_mask, or a loaded mask changed since): whether it wrote this element is not known"],
            b,
        );
    }
}

#[test]
fn a_vout_element_names_the_push_that_made_it() {
    // a = 2 3 4 pushes 2 | 3 30 | 4: o[2] is element 1's second push (30), o[3] element 2's
    // only one.
    for b in BACKENDS {
        let got = why("vout_push.br", "o[2]", b, &[]);
        has_lines(
            &got,
            &[
                "o[2] = 30: kernel `spread` (Brook line 2), operation 2, vout `o`: push 2 of call element [1] (of its 2 push(es))",
                "`a` a[1] = 3: streamRead(a) from host memory, operation 1",
            ],
            b,
        );
        let got = why("vout_push.br", "o[3]", b, &[]);
        has_lines(
            &got,
            &["o[3] = 4: kernel `spread` (Brook line 2), operation 2, vout `o`: push 1 of call element [2] (of its 1 push(es))"],
            b,
        );
    }
}

#[test]
fn names_follow_the_variables_through_brccs_stream_swap() {
    // `now` and `next` trade streams after each of three diffusion steps of
    // 0 0 0 16 16 0 0 0 (r = x[i-1]/4 + x[i]/2 + x[i+1]/4): step 1 gives 0 0 4 12 12 4 0 0,
    // step 2 0 1 5 10 10 5 1 0, step 3 r[3] = 5/4 + 10/2 + 10/4 = 8.75, written into the
    // stream then named `next`, `now` after the last swap. It read x[3] = 10 from the
    // stream step 2 wrote as `next`, `now` when step 3 read it.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/stream_swap.br");
    for b in BACKENDS {
        let out = brcc_why(&path, "now[3]", b, &[]);
        let got = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{b}: {got}");
        for expected in [
            "\nnow[3] = 8.75: the stream `next` held, `now` since a streamSwap\n",
            "└─ next[3] = 8.75: kernel `diffuse` (Brook line 6), operation ",
            "gather `x` at Brook line 9: index 3 rounds and clamps to [3], now[3] = 10: the stream `next` held, `now` since a streamSwap\n",
            "next[3] = 10: kernel `diffuse` (Brook line 6), operation ",
        ] {
            assert!(got.contains(expected), "{b}: no `{expected}` in\n{got}");
        }
    }
}

#[test]
fn the_limits_stop_the_walk_and_say_where() {
    // Depth counts operations: the fold's steps are the reduction's, its elements one deeper.
    let got = why("reduce_2d.br", "s[1][0]", "cpu", &["--depth", "0"]);
    has_lines(
        &got,
        &["b[2][0] = 18: not followed further, depth 0 reached (--depth)"],
        "cpu",
    );
    assert!(!got.contains("a[2][0]"), "{got}");
    assert!(got.contains("(stopped where marked"), "{got}");
    let got = why("reduce_2d.br", "s[1][0]", "cpu", &["--elements", "2"]);
    assert!(got.contains("2 elements shown (--elements)"), "{got}");
}

#[test]
fn bad_elements_are_clear_errors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/why/vout_push.br");
    for (element, message) in [
        ("o[4]", "o[4] is not an element of `o`, of extents <4>"),
        (
            "x[0]",
            "no stream named `x` was recorded; the program's streams: a, o",
        ),
        ("o(1)", "`o(1)` is not an element"),
    ] {
        let out = brcc_why(&path, element, "cpu", &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{element}");
        assert!(stderr.contains(message), "{element}: {stderr}");
    }
}

/// From Rust: names given or `stream#N`, on the CPU and GL.
#[test]
fn rust_programs_ask_with_runtime_why() {
    let source = "kernel void k(float a<>, float t[], out float r<>) { r = a + t[a]; }";
    for rt in [Runtime::cpu(), Runtime::gl().expect("GL")] {
        let program = rt.compile(source, "k.br").unwrap();
        rt.record_history(true).unwrap();
        let a = rt.stream_of(1, &[3]).unwrap();
        let t = rt.stream_of(1, &[3]).unwrap();
        let r = rt.stream_of(1, &[3]).unwrap();
        rt.name_stream(&a, "a");
        a.read(&[2.0, 0.0, 1.0]).unwrap();
        t.read(&[5.0, 6.0, 7.0]).unwrap();
        rt.run(&program, "k", args![&a, &t, &r]).unwrap();
        // r[0] = a[0] + t[2] = 2 + 7.
        let h = rt.why(&r, &[0]).unwrap().to_string();
        let names = h.lines().next().unwrap();
        assert!(names.starts_with("stream#"), "{h}");
        assert!(
            names.contains("[0] = 9: kernel `k` (Brook line 1), operation 3, out `r`"),
            "{h}"
        );
        assert!(
            h.contains("`a` a[0] = 2: streamRead(a) from host memory, operation 1"),
            "{h}"
        );
        assert!(
            h.contains("index 2 rounds and clamps to [2], stream#"),
            "{h}"
        );
        assert!(h.contains("[2] = 7: streamRead(stream#"), "{h}");
        let short = rt
            .why_within(
                &r,
                &[0],
                Limits {
                    depth: 0,
                    elements: 10,
                },
            )
            .unwrap();
        assert!(short.stopped.is_some(), "{short}");
        assert!(rt.why(&r, &[3]).is_err());
        rt.record_history(false).unwrap();
        assert!(rt.why(&r, &[0]).is_err());
    }
}

/// Every program of `tests/programs/` (its `.br` files and its folders of several files),
/// each with the brcc arguments it runs with.
fn test_programs() -> Vec<(String, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut programs: Vec<(String, Vec<String>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, vec![p.to_string_lossy().into_owned()])
        })
        .collect();
    let folders: [(&str, &[&str]); 3] = [
        ("multifile", &["main.cpp", "kernels.br", "more.br"]),
        (
            "original_layout",
            &["main.cpp", "kernels.br", "-D", "SIZE=4", "-DSCALE=3.0f"],
        ),
        ("original_preprocessed", &["main.cpp", "kernels.bri"]),
    ];
    for (name, args) in folders {
        let args = args
            .iter()
            .map(|a| match a.starts_with('-') || a.contains('=') {
                true => a.to_string(),
                false => dir.join(name).join(a).to_string_lossy().into_owned(),
            });
        programs.push((name.into(), args.collect()));
    }
    programs.sort();
    programs
}

/// One history of `brcc why --every-stream`'s output: the element, its root line's value
/// and every line, its tree glyphs left in.
struct Printed {
    element: String,
    value: String,
    lines: Vec<String>,
}

impl Printed {
    /// The histories `brcc why --every-stream` printed after the program's own output.
    fn all(stdout: &str) -> Vec<Printed> {
        let mut out: Vec<Printed> = Vec::new();
        for line in stdout.lines() {
            if let Some(rest) = line.strip_prefix("where ") {
                if let Some((element, _)) = rest.split_once(" came from (") {
                    out.push(Printed {
                        element: element.into(),
                        value: String::new(),
                        lines: Vec::new(),
                    });
                    continue;
                }
            }
            if let Some(p) = out
                .last_mut()
                .filter(|_| !line.starts_with("(stopped where"))
            {
                if p.lines.is_empty() {
                    p.value = line
                        .strip_prefix(&format!("{} = ", p.element))
                        .and_then(|v| v.split(": ").next())
                        .unwrap_or("")
                        .to_string();
                }
                p.lines.push(line.into());
            }
        }
        out
    }

    /// The history's shape: its lines with every number left out (the backends' values
    /// differ in their last bits, and a gather's index may round to a neighbour).
    fn structure(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|l| {
                let mut s = String::new();
                let mut chars = l.chars().peekable();
                while let Some(c) = chars.next() {
                    if !c.is_ascii_digit() {
                        s.push(c);
                        continue;
                    }
                    if s.ends_with('-') {
                        s.pop();
                    }
                    s.push('#');
                    let mut last = c;
                    while let Some(&n) = chars.peek() {
                        let exponent = n == 'e' || (n == '-' && last == 'e');
                        if !(n.is_ascii_digit() || n == '.' || exponent) {
                            break;
                        }
                        last = n;
                        chars.next();
                    }
                }
                s
            })
            .collect()
    }
}

/// Whether two printed values agree within what the backends' float arithmetic may differ
/// by (the explorer's side-by-side tolerance: `explain/src/compare.rs`).
fn close(a: &str, b: &str) -> bool {
    let numbers = |v: &str| -> Vec<f64> {
        v.trim_matches(['(', ')'])
            .split(", ")
            .map(|x| x.parse().unwrap_or(f64::NAN))
            .collect()
    };
    let (a, b) = (numbers(a), numbers(b));
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= 1e-3 * x.abs().max(y.abs()) + 1e-6
        })
}

/// `brcc why --every-stream` on every program of `tests/programs/` on every backend: the
/// first and last element of every stream the host code named has a history on each, which
/// names the element and its value, follows every input back to where it began (a host
/// `streamRead`, an iterator, data from before the program's first operation) or says which
/// limit stopped it, never fails to re-evaluate, and on the CPU the interpreter's
/// re-evaluation of every step gets exactly what the JIT wrote. The backends' histories have
/// the same steps, and the same values within float tolerance.
#[test]
fn every_test_program_has_histories_that_agree_on_every_backend() {
    let programs = test_programs();
    assert!(programs.len() > 70, "{}", programs.len());
    let check = |(name, args): &(String, Vec<String>)| -> Vec<String> {
        let mut problems = Vec::new();
        let mut per_backend = Vec::new();
        for backend in ["cpu", "gl", "wgpu"] {
            let out = Command::new(BRCC)
                .args(["why", "--every-stream", "--backend", backend])
                .args(args)
                .env(
                    "XDG_CACHE_HOME",
                    Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-cache"),
                )
                .env_remove("BRT_RUNTIME")
                .output()
                .expect("brcc runs");
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let status = if name == "exit_status" { 3 } else { 0 };
            if out.status.code() != Some(status) {
                problems.push(format!(
                    "{name} on {backend}: status {:?}: {stderr}",
                    out.status.code()
                ));
                continue;
            }
            let printed = Printed::all(&stdout);
            for p in &printed {
                let context = format!("{name} {} on {backend}", p.element);
                let text = p.lines.join("\n");
                if p.value.is_empty() {
                    problems.push(format!("{context}: no value\n{text}"));
                }
                for bad in ["failed", "could not"] {
                    if text.contains(bad) {
                        problems.push(format!("{context}: `{bad}`\n{text}"));
                    }
                }
                if backend == "cpu" && text.contains("re-evaluating it, gets") {
                    problems.push(format!(
                        "{context}: the interpreter disagrees with the JIT\n{text}"
                    ));
                }
                // Each leaf (a line no deeper line follows) ends the walk where it began.
                for (k, line) in p.lines.iter().enumerate() {
                    let depth =
                        |l: &str| l.len() - l.trim_start_matches(['│', '├', '└', '─', ' ']).len();
                    let leaf = p
                        .lines
                        .get(k + 1)
                        .is_none_or(|next| depth(next) <= depth(line));
                    let ends = [
                        "streamRead(",
                        "iterator from",
                        "held before the recording began",
                        "not followed further",
                        "constant `",
                        "the write mask",
                        "beyond the",
                        "it read no stream",
                    ];
                    if leaf && !ends.iter().any(|e| line.contains(e)) {
                        problems.push(format!(
                            "{context}: a step that ends nowhere: {line}\n{text}"
                        ));
                    }
                }
            }
            if printed.is_empty() && stdout.contains("where ") {
                problems.push(format!("{name} on {backend}: unreadable output\n{stdout}"));
            }
            per_backend.push((backend, printed));
        }
        if let [(_, cpu), others @ ..] = &per_backend[..] {
            for (backend, printed) in others {
                let elements =
                    |p: &[Printed]| p.iter().map(|p| p.element.clone()).collect::<Vec<_>>();
                if elements(cpu) != elements(printed) {
                    problems.push(format!(
                        "{name}: cpu asked {:?}, {backend} {:?}",
                        elements(cpu),
                        elements(printed)
                    ));
                    continue;
                }
                for (c, o) in cpu.iter().zip(printed) {
                    if !close(&c.value, &o.value) {
                        problems.push(format!(
                            "{name} {}: cpu {}, {backend} {}",
                            c.element, c.value, o.value
                        ));
                    }
                    if c.structure() != o.structure() {
                        problems.push(format!(
                            "{name} {}: cpu's history\n{}\n{backend}'s\n{}",
                            c.element,
                            c.lines.join("\n"),
                            o.lines.join("\n")
                        ));
                    }
                }
            }
        }
        problems
    };
    let problems: Vec<String> = support::in_two_threads(&programs, check)
        .into_iter()
        .flatten()
        .collect();
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

/// An output domain (the rest kept), a swap (the element came from the other stream) and a
/// kernel fused into a reduction (run apart while recording, so its output has a history),
/// on the CPU and on GL, which fuses such calls otherwise.
#[test]
fn domains_swaps_and_fused_calls_keep_their_histories() {
    let source = "kernel void inc(float a<>, out float r<>) { r = a + 1.0; }
reduce void sum(float a<>, reduce float r<>) { r = r + a; }";
    for rt in [Runtime::cpu(), Runtime::gl().expect("GL")] {
        let program = rt.compile(source, "inc.br").unwrap();
        rt.record_history(true).unwrap();
        let [a, r, t] = ["a", "r", "t"].map(|name| {
            let s = rt.stream_of(1, &[4]).unwrap();
            rt.name_stream(&s, name);
            s
        });
        let s = rt.stream_of(1, &[2]).unwrap();
        rt.name_stream(&s, "s");
        a.read(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        r.read(&[0.0; 4]).unwrap();
        // r[1..3] = a + 1, a resized to the call's shape <2> (a[0], a[2]): r = 0 2 4 0.
        let middle = r.domain(&[1], &[3]).unwrap();
        rt.run(&program, "inc", args![&a, &middle]).unwrap();
        let h = rt.why(&r, &[0]).unwrap().to_string();
        assert!(h.starts_with("r[0] = 0: kept through operation 3 (kernel `inc` (Brook line 1), operation 3: outside the domain it wrote)"), "{h}");
        let h = rt.why(&r, &[2]).unwrap().to_string();
        assert!(h.starts_with("r[2] = 4: kernel `inc`"), "{h}");
        assert!(h.contains("`a` a[2] = 3: streamRead(a)"), "{h}");
        // a and r swap: a[2] is r's 4, made by `inc`.
        rt.swap(&a, &r).unwrap();
        let h = rt.why(&a, &[2]).unwrap().to_string();
        assert!(
            h.starts_with("a[2] = 4: came by streamSwap, operation 4"),
            "{h}"
        );
        assert!(h.contains("r[2] = 4: kernel `inc`"), "{h}");
        // t = a + 1 = 1 3 5 1, summed in pairs: s[1] = 5 + 1 = 6.
        rt.map_reduce_to_stream(&program, "inc", args![&a, &t], "sum", &s, &[])
            .unwrap();
        let h = rt.why(&s, &[1]).unwrap().to_string();
        assert!(
            h.starts_with("s[1] = 6: reduction `sum` (Brook line 2)"),
            "{h}"
        );
        assert!(h.contains("t[2] = 5: kernel `inc`"), "{h}");
        assert!(h.contains("t[3] = 1: kernel `inc`"), "{h}");
    }
}
