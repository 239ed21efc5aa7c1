//! Loops on drivers that cap them. llvmpipe (GL) and lavapipe (wgpu over Vulkan) end all of a
//! shader's loops once they have made 65,535 iterations in all (nesting does not help: the
//! count is shared), without an error. Kernels whose loops have constant trip counts within
//! the cap run unchecked; any other records how its loops ended, and a loop the driver cut
//! short fails the call with its Brook line. The CPU backend has no cap. The fuzzer's programs
//! cover short loops of every kind.

mod support;

use brook::core::ShaderSource;
use brook::{args, Arg, BrookError, Program, Runtime, ScatterOp};

use support::{gl_profiles, gl_with};

/// The runtimes on drivers that cap loops here: GL of both profiles, wgpu on lavapipe, and
/// wgpu's GL backend on llvmpipe (last: it releases the thread's EGL context after each use,
/// so Brook's GL runtimes run before it).
fn capped() -> Vec<Runtime> {
    let mut all = gl_profiles(None, None);
    all.push(support::wgpu());
    all.extend(support::wgpu_gl());
    all
}

/// The fragment shader of the first draw a call of kernel `k` runs on GL.
fn first_fragment(gl: &Runtime, program: &Program, args: &[Arg]) -> String {
    let plan = gl.plan(program, "k", args).unwrap();
    plan.iter()
        .find_map(|pass| match pass.program.as_ref().map(|p| &*p.source) {
            Some(ShaderSource::Raster { fragment, .. }) => Some(fragment.clone()),
            _ => None,
        })
        .expect("a GL call draws")
}

/// Runs kernel `k` of `src` over `n` (one element per value), with output streams of
/// `outputs` floats.
fn run(rt: &Runtime, src: &str, n: &[f32], outputs: usize) -> Result<Vec<Vec<f32>>, BrookError> {
    let p = rt.compile(src, "loops.br")?;
    let input = rt.stream_of(1, &[n.len()])?;
    input.read(n)?;
    let outs: Vec<_> = (0..outputs)
        .map(|_| rt.stream_of(1, &[n.len()]))
        .collect::<Result<_, _>>()?;
    let mut call = vec![brook::Arg::Stream(&input)];
    call.extend(outs.iter().map(brook::Arg::Stream));
    rt.run(&p, "k", &call)?;
    outs.iter().map(|o| o.to_vec()).collect()
}

#[test]
fn a_loop_the_driver_would_cut_short_fails_with_its_line_and_the_cap() {
    let n = [100_000.0, 3.0];
    assert_eq!(
        run(&Runtime::cpu(), support::COUNT_TO_N, &n, 1).unwrap(),
        [n.to_vec()]
    );
    for rt in capped() {
        let err =
            run(&rt, support::COUNT_TO_N, &n, 1).expect_err("the driver cuts the loop at 65,535");
        let text = err.to_string();
        assert!(
            text.contains("loops.br:4: for (i = 0.0; i < n; i += 1.0)") && text.contains("65535"),
            "{}: {text}",
            rt.describe()
        );
    }
}

/// wgpu keeps one loop-status buffer for every call that checks its loops: after a call whose
/// loop was cut, the next call on the same runtime starts from a clean status.
#[test]
fn a_call_after_a_cut_loop_is_not_blamed_for_it() {
    let wgpu = support::wgpu();
    let cut = run(&wgpu, support::COUNT_TO_N, &[100_000.0, 3.0], 1);
    assert!(cut.is_err() || !capped_wgpu(&wgpu), "{cut:?}");
    let n = [60_000.0, 0.0, 1.0, 17.0];
    for _ in 0..2 {
        assert_eq!(
            run(&wgpu, support::COUNT_TO_N, &n, 1).unwrap(),
            [n.to_vec()]
        );
    }
}

/// Whether the driver under a wgpu runtime cuts loops.
fn capped_wgpu(rt: &Runtime) -> bool {
    rt.as_wgpu().is_some_and(|b| b.gpu().loop_cap().is_some())
}

#[test]
fn loops_within_the_cap_give_the_cpu_result() {
    let n = [60_000.0, 0.0, 1.0, 17.0];
    for rt in capped() {
        assert_eq!(run(&rt, support::COUNT_TO_N, &n, 1).unwrap(), [n.to_vec()]);
    }
}

#[test]
fn constant_trip_counts_within_the_cap_run_unchecked_and_beyond_it_are_checked() {
    let within = "kernel void k(float n<>, out float r<>) {
        float x = 0.0;
        for (int i = 0; i < 200; i++) { for (int j = 0; j < 200; j++) x += 1.0; }
        r = x + n;
    }";
    let beyond = within.replace("200", "300");
    for gl in gl_profiles(None, None) {
        assert_eq!(run(&gl, within, &[1.0], 1).unwrap(), [[40_001.0]]);
        let program = gl.compile(within, "loops.br").unwrap();
        let (n, r) = (
            gl.stream_of(1, &[1]).unwrap(),
            gl.stream_of(1, &[1]).unwrap(),
        );
        assert!(!first_fragment(&gl, &program, args![&n, &r]).contains("brook_loop_cut"));
        let err = run(&gl, &beyond, &[1.0], 1).unwrap_err().to_string();
        assert!(err.contains("loops.br:3"), "{err}");
    }
    let wgpu = support::wgpu();
    assert_eq!(run(&wgpu, within, &[1.0], 1).unwrap(), [[40_001.0]]);
    let err = run(&wgpu, &beyond, &[1.0], 1).unwrap_err().to_string();
    assert!(err.contains("loops.br:3"), "{err}");
    assert_eq!(
        run(&Runtime::cpu(), &beyond, &[1.0], 1).unwrap(),
        [[90_001.0]]
    );
}

#[test]
fn checked_loops_keep_break_continue_and_do_while_meanings() {
    // Unbounded loops (so checked) exercising every way out of and around a loop.
    let src = "float helper(float n) {
        float s = 0.0;
        float i = 0.0;
        do { i += 1.0; if (i == 2.0) continue; s += i; } while (i < n);
        return s;
    }
    kernel void k(float n<>, out float r<>, out float q<>) {
        float x = 0.0;
        while (1) {
            x += 1.0;
            if (x >= n) break;
        }
        float y = 0.0;
        for (float j = 0.0; j < n; j += 1.0) {
            if (j == 1.0) continue;
            for (float m = 0.0; m < 3.0 + n; m += 1.0) { if (m >= 2.0) break; y += 1.0; }
        }
        r = x + 100.0 * y;
        q = helper(n);
    }";
    let n = [1.0, 2.0, 5.0, 9.0];
    let want = run(&Runtime::cpu(), src, &n, 2).unwrap();
    // Every output split into its own pass too: the first pass then writes the status alone.
    let mut rts = vec![gl_with(None, Some(1)), gl_with(None, Some(2))];
    rts.extend(capped());
    for rt in &rts {
        assert_eq!(run(rt, src, &n, 2).unwrap(), want, "{}", rt.describe());
    }
}

/// A reduce function whose loop runs as often as its input says: no bound is known.
const UNBOUNDED_REDUCE: &str = "reduce void r(float a<>, reduce float s<>) {
    float k = 0.0;
    while (k < a) k += 1.0;
    s += k;
}";

/// Asserts that `call` gives `want` on the CPU and is refused, naming `r` and the cap, on GL
/// and on wgpu (whose shaders for reduce functions cannot report a cut loop).
fn refused_where_capped(
    call: impl Fn(&Runtime, &Program) -> Result<Vec<f32>, BrookError>,
    want: &[f32],
) {
    let on = |rt: &Runtime| call(rt, &rt.compile(UNBOUNDED_REDUCE, "loops.br")?);
    assert_eq!(on(&Runtime::cpu()).unwrap(), want);
    for rt in [Runtime::gl().unwrap(), support::wgpu()] {
        let err = on(&rt).unwrap_err().to_string();
        assert!(
            err.contains("reduce function `r`") && err.contains("65535"),
            "{}: {err}",
            rt.describe()
        );
    }
}

#[test]
fn a_reduction_whose_loops_cannot_be_bounded_is_refused_where_loops_are_capped() {
    let data: Vec<f32> = (0..16).map(|i| i as f32).collect();
    refused_where_capped(
        |rt, p| {
            let s = rt.stream_of(1, &[16])?;
            s.read(&data)?;
            rt.reduce_to_value(p, "r", &s, &[])
        },
        &[120.0],
    );
}

#[test]
fn a_scatter_operator_whose_loops_cannot_be_bounded_is_refused_where_loops_are_capped() {
    refused_where_capped(
        |rt, p| {
            let (data, index, dst) = (
                rt.stream_of(1, &[4])?,
                rt.stream_of(1, &[4])?,
                rt.stream_of(1, &[2])?,
            );
            data.read(&[1.0, 2.0, 3.0, 4.0])?;
            index.read(&[0.0, 1.0, 0.0, 1.0])?;
            dst.read(&[0.0, 0.0])?;
            rt.scatter(&dst, &index, &data, ScatterOp::Reduce(p, "r"))?;
            dst.to_vec()
        },
        &[4.0, 6.0],
    );
}

#[test]
fn a_cut_is_found_wherever_the_shared_count_runs_out() {
    let cases = [
        // The inner loop finishes many times, then is cut in a later run.
        "kernel void k(float n<>, out float r<>) {
            float x = 0.0;
            for (float i = 0.0; i < n; i += 1.0) {
                for (float j = 0.0; j < n; j += 1.0) x += 1.0;
            }
            r = x;
        }",
        // Two loops in sequence: the first finishes, the second is cut.
        "kernel void k(float n<>, out float r<>) {
            float x = 0.0;
            for (float i = 0.0; i < n * n * 0.75; i += 1.0) x += 1.0;
            for (float j = 0.0; j < n * n * 0.75; j += 1.0) x += 1.0;
            r = x;
        }",
        // Neighbouring elements loop in different loops, each within the cap on its own: the
        // driver's count is shared by the elements it shades together.
        "kernel void k(float n<>, out float r<>) {
            float x = 0.0;
            float a = indexof(r).x == 0.0 ? n * n * 0.45 : 0.0;
            float b = indexof(r).x == 1.0 ? n * n * 0.45 : 0.0;
            for (float i = 0.0; i < a; i += 1.0) x += 1.0;
            for (float j = 0.0; j < b; j += 1.0) x += 1.0;
            r = x;
        }",
    ];
    let n = [300.0, 300.0];
    for src in cases {
        let on_cpu = run(&Runtime::cpu(), src, &n, 1).unwrap();
        assert!(on_cpu[0].iter().all(|v| *v >= 40_500.0), "{on_cpu:?}");
        for rt in capped() {
            match run(&rt, src, &n, 1) {
                Err(e) => assert!(e.to_string().contains("did not finish"), "{e}"),
                Ok(v) => panic!("{}: no error, results {v:?} for\n{src}", rt.describe()),
            }
        }
    }
}

#[test]
fn thirty_nested_loops_are_refused_on_gl_and_wgpu_before_the_driver_compiles_them() {
    let open: String = (0..30)
        .map(|d| format!("for (int i{d} = 0; i{d} < 1; i{d}++) {{\n"))
        .collect();
    let src = format!(
        "kernel void k(float n<>, out float r<>) {{\nfloat x = 0.0;\n{open}x += n;\n{}\nr = x;\n}}",
        "}".repeat(30)
    );
    assert_eq!(run(&Runtime::cpu(), &src, &[2.0], 1).unwrap(), [[2.0]]);
    for rt in [Runtime::gl().unwrap(), support::wgpu()] {
        let err = run(&rt, &src, &[2.0], 1).unwrap_err().to_string();
        // The thirteenth loop, on line 3 + 12, is the one past the limit.
        assert!(
            err.contains("nests loops more than 12 deep")
                && err.contains(":15: ")
                && err.contains("for (int i12 = 0;"),
            "{}: {err}",
            rt.describe()
        );
    }
}

#[test]
fn a_loop_bounded_by_a_kernel_constant_is_checked_only_when_the_call_needs_it() {
    let src = "kernel void k(float a<>, int m, out float r<>) {
        float x = 0.0;
        for (int i = 0; i < m; i++) x += a;
        r = x;
    }";
    let cases = [(1000, false), (70_000, true)];
    for gl in gl_profiles(None, None) {
        let p = gl.compile(src, "loops.br").unwrap();
        let a = gl.stream_of(1, &[2]).unwrap();
        a.read(&[1.0, 2.0]).unwrap();
        let r = gl.stream_of(1, &[2]).unwrap();
        for (m, checked) in cases {
            assert_eq!(
                first_fragment(&gl, &p, args![&a, m, &r]).contains("brook_loop_cut"),
                checked,
                "m = {m}"
            );
            let ran = gl.run(&p, "k", args![&a, m, &r]);
            if checked {
                assert!(ran.unwrap_err().to_string().contains("loops.br:3"));
            } else {
                ran.unwrap();
                assert_eq!(r.to_vec().unwrap(), [m as f32, 2.0 * m as f32]);
            }
        }
    }
}

#[test]
fn a_loop_bounded_by_a_kernel_constant_gives_the_exact_answer_or_its_line_on_wgpu() {
    let src = "kernel void k(float a<>, float n, out float r<>) {
        float x = 0.0;
        for (float i = 0; i < n; i += 1) x += 1;
        r = x + a;
    }";
    let rt = support::wgpu();
    let p = rt.compile(src, "loops.br").unwrap();
    let (a, r) = (
        rt.stream_of(1, &[2]).unwrap(),
        rt.stream_of(1, &[2]).unwrap(),
    );
    a.read(&[0.0, 0.5]).unwrap();
    rt.run(&p, "k", args![&a, 60_000.0f32, &r]).unwrap();
    assert_eq!(r.to_vec().unwrap(), [60_000.0, 60_000.5]);
    let err = rt
        .run(&p, "k", args![&a, 100_000.0f32, &r])
        .expect_err("lavapipe cuts the loop at 65,535")
        .to_string();
    assert!(
        err.contains("loops.br:3: for (float i = 0; i < n; i += 1)") && err.contains("65535"),
        "{err}"
    );
}
