//! Element histories (`brcc why`, `Runtime::why`): on small programs whose answers are worked
//! out by hand in the comments, on every backend, the history names the right elements, with
//! the right values, indices and operations.

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

/// Every stream of every program of `tests/programs/` has a history on the CPU: its first
/// element's, which names it and its value and ends at data the program made (the streams
/// are listed by asking for one that does not exist, each one's rank by asking for `[0]`).
#[test]
fn every_test_program_has_histories() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut programs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .collect();
    programs.sort();
    let mut asked = 0;
    for program in &programs {
        let listed = brcc_why(program, "no_such_stream[0]", "cpu", &[]);
        let stderr = String::from_utf8_lossy(&listed.stderr).into_owned();
        let Some((_, names)) = stderr.split_once("the program's streams: ") else {
            assert!(
                stderr.contains("no stream named"),
                "{}: {stderr}",
                program.display()
            );
            continue;
        };
        for name in names.lines().next().unwrap().split(", ") {
            let first = brcc_why(program, &format!("{name}[0]"), "cpu", &[]);
            let error = String::from_utf8_lossy(&first.stderr).into_owned();
            let element = match error.split_once("of extents <") {
                Some((_, rest)) => {
                    let rank = rest.split('>').next().unwrap().split(',').count();
                    format!("{name}{}", "[0]".repeat(rank))
                }
                None => format!("{name}[0]"),
            };
            let out = brcc_why(program, &element, "cpu", &[]);
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            let context = format!(
                "{} {element}: {}",
                program.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let history = stdout
                .split_once(&format!("where {element} came from"))
                .unwrap_or_else(|| panic!("{context}\n{stdout}"))
                .1;
            assert!(
                history.contains(&format!("\n{element} = ")),
                "{context}\n{history}"
            );
            assert!(!history.contains("failed"), "{context}\n{history}");
            assert!(!history.contains("could not"), "{context}\n{history}");
            asked += 1;
        }
    }
    assert!(asked > 100, "only {asked} streams asked about");
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
