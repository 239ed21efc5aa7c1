//! `vout`/`push` through the runtime on every backend: GL (candidate pass, work-efficient scan
//! of the push counts, compaction) and wgpu must give the CPU backend's counts and packed
//! streams exactly, since pushed values are only copied.

mod support;

use brook::{args, ElementFormat, MemberFormat, Runtime, Stream};
use support::gl_profiles;

/// The original BrookGPU vout pattern: element `a` pushes itself `a` times.
const REPEAT: &str = r#"
kernel void repeat(float a<>, vout [4] float o<>) {
    float i;
    for (i = 0; i < a; i++) {
        o = a;
        push(o);
    }
}
"#;

/// A stream of `components` floats with this data, on `rt`.
fn input(rt: &Runtime, components: u8, shape: &[usize], data: &[f32]) -> Stream {
    let s = rt.stream_of(components, shape).unwrap();
    s.read(data).unwrap();
    s
}

/// Runs `kernel` with `inputs` (data streams) then `outs` (out and vout streams of these
/// formats and shapes, filled with stale values) on the CPU, on every GL profile and on wgpu,
/// asserts that the counts and the output streams agree bit for bit, and returns the CPU's
/// counts and output contents.
fn vout_agrees(
    source: &str,
    kernel: &str,
    inputs: &[(u8, &[usize], Vec<f32>)],
    outs: &[(ElementFormat, &[usize])],
) -> (Vec<usize>, Vec<Vec<f32>>) {
    let mut runtimes = gl_profiles(None, None);
    runtimes.push(support::wgpu());
    vout_agrees_on(&runtimes, source, kernel, inputs, outs)
}

/// [`vout_agrees`] on these runtimes.
fn vout_agrees_on(
    runtimes: &[Runtime],
    source: &str,
    kernel: &str,
    inputs: &[(u8, &[usize], Vec<f32>)],
    outs: &[(ElementFormat, &[usize])],
) -> (Vec<usize>, Vec<Vec<f32>>) {
    let run = |rt: &Runtime| {
        let p = rt.compile(source, "vout.br").unwrap();
        let ins: Vec<Stream> = inputs
            .iter()
            .map(|(c, shape, data)| input(rt, *c, shape, data))
            .collect();
        let outs: Vec<Stream> = outs
            .iter()
            .map(|(f, shape)| {
                let s = rt.stream(f.clone(), shape).unwrap();
                // Stale contents, to see that a vout's tail is zeroed.
                s.read(&vec![-9.0; s.len() * f.floats_per_element()])
                    .unwrap();
                s
            })
            .collect();
        let args: Vec<brook::Arg> = ins.iter().chain(&outs).map(brook::Arg::Stream).collect();
        let counts = rt
            .run_vout(&p, kernel, &args)
            .unwrap_or_else(|e| panic!("{}: {e}", rt.backend_name()));
        let data: Vec<Vec<f32>> = outs.iter().map(|s| s.to_vec().unwrap()).collect();
        (counts, data)
    };
    let on_cpu = run(&Runtime::cpu());
    for rt in runtimes {
        let got = run(rt);
        assert_eq!(got.0, on_cpu.0, "{}: counts", rt.describe());
        for (k, (g, c)) in got.1.iter().zip(&on_cpu.1).enumerate() {
            assert_eq!(g, c, "{}: vout {k}", rt.describe());
        }
    }
    on_cpu
}

fn floats(n: u8) -> ElementFormat {
    ElementFormat::scalar(n).unwrap()
}

#[test]
fn runtime_packs_pushes_in_element_order_and_returns_the_count() {
    let (counts, data) = vout_agrees(
        REPEAT,
        "repeat",
        &[(1, &[2, 2], vec![3.0, 0.0, 1.0, 2.0])],
        &[(floats(1), &[16])],
    );
    assert_eq!(counts, vec![6]);
    assert_eq!(&data[0][..6], &[3.0, 3.0, 3.0, 1.0, 2.0, 2.0]);
    assert!(data[0][6..].iter().all(|&x| x == 0.0));
}

#[test]
fn zero_one_and_n_pushes_per_element_and_pushes_past_n_dropped() {
    // 0..=5 pushes requested per element, room for 4: 5 becomes 4, as on the CPU.
    let a: Vec<f32> = (0..100 * 100).map(|i| ((i * 7) % 6) as f32).collect();
    let (counts, data) = vout_agrees(
        REPEAT,
        "repeat",
        &[(1, &[100, 100], a.clone())],
        &[(floats(1), &[40_000])],
    );
    let expected: Vec<f32> = a
        .iter()
        .flat_map(|&x| std::iter::repeat_n(x, (x as usize).min(4)))
        .collect();
    assert_eq!(counts, vec![expected.len()]);
    assert_eq!(&data[0][..expected.len()], expected.as_slice());
    // Nobody pushes, and everybody pushes N.
    let (counts, _) = vout_agrees(
        REPEAT,
        "repeat",
        &[(1, &[7], vec![0.0; 7])],
        &[(floats(1), &[28])],
    );
    assert_eq!(counts, vec![0]);
    let (counts, data) = vout_agrees(
        REPEAT,
        "repeat",
        &[(1, &[7], vec![4.0; 7])],
        &[(floats(1), &[28])],
    );
    assert_eq!(counts, vec![28]);
    assert!(data[0].iter().all(|&x| x == 4.0));
}

#[test]
fn sizes_that_are_not_powers_of_two() {
    for shape in [&[1][..], &[7], &[1000, 3], &[3, 1000]] {
        let n: usize = shape.iter().product();
        let a: Vec<f32> = (0..n).map(|i| ((i * 13 + 5) % 3) as f32).collect();
        let (counts, data) = vout_agrees(
            REPEAT,
            "repeat",
            &[(1, shape, a.clone())],
            &[(floats(1), &[4 * n])],
        );
        let expected: Vec<f32> = a
            .iter()
            .flat_map(|&x| std::iter::repeat_n(x, x as usize))
            .collect();
        assert_eq!(counts, vec![expected.len()], "{shape:?}");
        assert_eq!(&data[0][..expected.len()], expected.as_slice(), "{shape:?}");
    }
}

#[test]
fn wrapped_layouts_of_candidates_levels_and_vout_streams() {
    // Textures at most 128 wide: the 1000x3 call, its scan levels and the vout all wrap.
    let n = 3000;
    let a: Vec<f32> = (0..n).map(|i| ((i * 11) % 4) as f32).collect();
    let gls = gl_profiles(Some(128), None);
    let (counts, data) = vout_agrees_on(
        &gls,
        REPEAT,
        "repeat",
        &[(1, &[1000, 3], a.clone())],
        &[(floats(1), &[4 * n])],
    );
    let expected: Vec<f32> = a
        .iter()
        .flat_map(|&x| std::iter::repeat_n(x, x as usize))
        .collect();
    assert_eq!(counts, vec![expected.len()]);
    assert_eq!(&data[0][..expected.len()], expected.as_slice());
}

#[test]
fn pushes_under_divergent_control_flow_and_discard() {
    // Each element takes its own path: pushes in both branches, in a loop with break and
    // continue, and elements that push then discard keep none of their pushes.
    let src = r#"
kernel void paths(float a<>, out float kept<>, vout [3] float2 o<>) {
    float i;
    kept = a;
    if (fmod(a, 2.0) == 0.0) {
        o = float2(a, 0.0);
        push(o);
    } else {
        for (i = 0; i < 10; i++) {
            if (i == 1) continue;
            if (i > a / 7.0) break;
            o = float2(a, i);
            push(o);
        }
    }
    if (fmod(a, 5.0) == 3.0) discard;
}
"#;
    let n = 257;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (counts, data) = vout_agrees(
        src,
        "paths",
        &[(1, &[n], a)],
        &[(floats(1), &[n]), (floats(2), &[3 * n])],
    );
    // Recompute the CPU's answer independently.
    let mut expected = Vec::new();
    for x in 0..n {
        let x = x as f32;
        if x % 5.0 == 3.0 {
            continue;
        }
        let mut pushed = Vec::new();
        if x % 2.0 == 0.0 {
            pushed.push([x, 0.0]);
        } else {
            for i in 0..10 {
                if i == 1 {
                    continue;
                }
                if i as f32 > x / 7.0 {
                    break;
                }
                pushed.push([x, i as f32]);
            }
        }
        expected.extend(pushed.into_iter().take(3).flatten());
    }
    assert_eq!(counts, vec![expected.len() / 2]);
    assert_eq!(&data[1][..expected.len()], expected.as_slice());
    // The discarding elements kept their stale `kept` values.
    assert_eq!(data[0][3], -9.0);
    assert_eq!(data[0][4], 4.0);
}

#[test]
fn struct_and_float4_elements_and_two_vouts() {
    let src = r#"
typedef struct { float2 p; float w; } Pt;
kernel void split(float4 a<>, vout [2] Pt pts<>, vout [1] float4 big<>) {
    pts.p = a.xy;
    pts.w = a.z;
    if (a.w > 0.0) push(pts);
    if (a.w > 1.0) { pts.w = -a.z; push(pts); }
    big = a;
    if (a.x > 50.0) push(big);
}
"#;
    let n = 100;
    let a: Vec<f32> = (0..n)
        .flat_map(|i| [i as f32, (i * 2) as f32, (i * 3) as f32, (i % 3) as f32])
        .collect();
    let pt = ElementFormat::structure(vec![
        MemberFormat {
            name: "p".into(),
            components: 2,
        },
        MemberFormat {
            name: "w".into(),
            components: 1,
        },
    ])
    .unwrap();
    let (counts, data) = vout_agrees(
        src,
        "split",
        &[(4, &[n], a)],
        &[(pt, &[2 * n]), (floats(4), &[n])],
    );
    let two = (0..n).filter(|i| i % 3 == 2).count();
    let one = (0..n).filter(|i| i % 3 == 1).count();
    assert_eq!(counts, vec![2 * two + one, 49]);
    // Element 1 pushes once, element 2 twice (the second with -z).
    assert_eq!(
        &data[0][..9],
        &[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 2.0, 4.0, -6.0]
    );
    assert_eq!(&data[1][..4], &[51.0, 102.0, 153.0, 0.0]);
}

#[test]
fn split_candidate_passes_give_the_same_result() {
    // Two draw buffers: the 4 candidates and the count of `o` need three kernel passes.
    let cpu = Runtime::cpu();
    let gl = support::gl_with(None, Some(2));
    let a: Vec<f32> = (0..50).map(|i| (i % 5) as f32).collect();
    let run = |rt: &Runtime| {
        let p = rt.compile(REPEAT, "vout.br").unwrap();
        let i = input(rt, 1, &[50], &a);
        let o = rt.stream_of(1, &[200]).unwrap();
        let n = rt.run_vout(&p, "repeat", args![&i, &o]).unwrap();
        (n, o.to_vec().unwrap())
    };
    assert_eq!(run(&gl), run(&cpu));
    gl.set_trace(true);
    run(&gl);
    let trace = gl.take_trace();
    let brook::TraceEntry::Kernel(k) = &trace[0] else {
        panic!("the kernel pass comes first: {trace:?}");
    };
    // The push counts are cleared (and the loop status, on a driver that caps loops: the
    // kernel's loop is bounded by an input), then three draws.
    let draws = k.passes.iter().filter(|p| p.program.is_some()).count();
    let status = k.passes.iter().any(|p| p.label.contains("loop status"));
    assert_eq!((k.passes.len(), draws), (4 + usize::from(status), 3), "{k}");
}

#[test]
fn a_stream_without_room_for_n_per_element_is_refused_on_every_backend() {
    for rt in [
        Runtime::cpu(),
        support::gl_with(None, None),
        support::wgpu(),
    ] {
        let p = rt.compile(REPEAT, "vout.br").unwrap();
        let i = input(&rt, 1, &[10], &[1.0; 10]);
        let o = rt.stream_of(1, &[39]).unwrap();
        let err = rt
            .run_vout(&p, "repeat", args![&i, &o])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("needs room for 40"),
            "{}: {err}",
            rt.backend_name()
        );
        assert!(err.contains("has 39"), "{}: {err}", rt.backend_name());
    }
}

#[test]
fn the_trace_and_the_glsl_show_the_scan_and_compaction_passes() {
    let gl = support::gl_with(None, None);
    let p = gl.compile(REPEAT, "vout.br").unwrap();
    let i = input(&gl, 1, &[100], &[1.0; 100]);
    let o = gl.stream_of(1, &[400]).unwrap();
    let plan = gl.plan(&p, "repeat", args![&i, &o]).unwrap();
    let texts: Vec<&str> = plan
        .iter()
        .filter_map(|p| match p.program.as_ref().map(|p| &*p.source) {
            Some(brook::core::ShaderSource::Raster { fragment, .. }) => Some(fragment.as_str()),
            _ => None,
        })
        .collect();
    assert!(texts[0].contains("brook_o_count"), "{}", texts[0]);
    assert!(texts.iter().any(|t| t.contains("up-sweep")));
    assert!(texts.iter().any(|t| t.contains("down-sweep")));
    assert!(texts.iter().any(|t| t.contains("compaction")));
    gl.set_trace(true);
    assert_eq!(gl.run_vout(&p, "repeat", args![&i, &o]).unwrap(), vec![100]);
    let trace = gl.take_trace();
    let brook::TraceEntry::Vout(v) = &trace[1] else {
        panic!("the vout packing follows the kernel: {trace:?}");
    };
    // 100 elements: 7 levels up (50, 25, 13, 7, 4, 2, 1), the top's offset cleared, 7 down,
    // one compaction.
    let ups = v
        .passes
        .iter()
        .filter(|p| p.label.starts_with("up-sweep"))
        .count();
    let downs = v
        .passes
        .iter()
        .filter(|p| p.label.starts_with("down-sweep"))
        .count();
    assert_eq!((ups, downs, v.passes.len()), (7, 7, 16));
    assert_eq!(v.pushed, 100);
    let printed = trace[1].to_string();
    assert!(
        printed.contains("vout `o` of kernel `repeat`: 100 elements pushed 100 values"),
        "{printed}"
    );
}

#[test]
fn vout_calls_under_a_write_mask_are_refused_on_every_backend() {
    for rt in [
        Runtime::cpu(),
        support::gl_with(None, None),
        support::wgpu(),
    ] {
        let p = rt.compile(REPEAT, "vout.br").unwrap();
        let i = input(&rt, 1, &[4], &[1.0; 4]);
        let o = rt.stream_of(1, &[16]).unwrap();
        rt.set_write_mask(&input(&rt, 1, &[4], &[1.0; 4])).unwrap();
        rt.enable_write_mask().unwrap();
        let err = rt
            .run_vout(&p, "repeat", args![&i, &o])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("do not apply to kernels with vout"),
            "{}: {err}",
            rt.backend_name()
        );
    }
}
