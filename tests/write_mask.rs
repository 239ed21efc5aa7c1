//! Write masks (depth test on GL, a mask buffer the shader reads on wgpu, 000 §7.4.2) and
//! write queries (occlusion queries on GL, an atomic counter on wgpu) on every backend against
//! the CPU backend and hand-worked values: mask patterns with two outputs and a discarding
//! kernel, a split call (one draw buffer), query counts, and the errors; and the original's C++
//! `write_mask`, whose set mode marks the elements calls write (below `SET_SRC`).

use brook::{ContextOptions, Runtime, Stream};

const SRC: &str = "kernel void twice(float a<>, out float b<>, out float2 c<>) {
    if (a < 0.0) discard;
    b = a * 2.0;
    c = float2(a, 1.0);
}";

const W: usize = 7;
const H: usize = 5;
const N: usize = W * H;

fn stream(rt: &Runtime, components: u8, data: &[f32]) -> Stream {
    let s = rt.stream_of(components, &[H, W]).unwrap();
    s.read(data).unwrap();
    s
}

/// Runs `twice` under `mask` (None: unmasked) inside a write query; returns (b, c, count).
fn masked(rt: &Runtime, mask: Option<&[f32]>) -> (Vec<f32>, Vec<f32>, u64) {
    let program = rt.compile(SRC, "mask.br").unwrap();
    // Every 4th element is negative: the kernel discards it.
    let a: Vec<f32> = (0..N)
        .map(|i| if i % 4 == 3 { -1.0 } else { i as f32 })
        .collect();
    let a = stream(rt, 1, &a);
    let b = stream(rt, 1, &[-7.0; N]);
    let c = stream(rt, 2, &[-9.0; 2 * N]);
    let m;
    if let Some(mask) = mask {
        m = stream(rt, 1, mask);
        rt.set_write_mask(&m).unwrap();
        rt.enable_write_mask().unwrap();
    }
    rt.begin_write_query().unwrap();
    rt.run(&program, "twice", brook::args![&a, &b, &c]).unwrap();
    let count = rt.end_write_query().unwrap();
    rt.disable_write_mask().unwrap();
    (b.to_vec().unwrap(), c.to_vec().unwrap(), count)
}

fn expected(mask: Option<&[f32]>) -> (Vec<f32>, Vec<f32>, u64) {
    let mut b = vec![-7.0; N];
    let mut c = vec![-9.0; 2 * N];
    let mut count = 0;
    for i in 0..N {
        let on = mask.is_none_or(|m| m[i] != 0.0);
        if on && i % 4 != 3 {
            b[i] = 2.0 * i as f32;
            c[2 * i] = i as f32;
            c[2 * i + 1] = 1.0;
            count += 1;
        }
    }
    (b, c, count)
}

fn patterns() -> Vec<(&'static str, Vec<f32>)> {
    let rect = (0..N)
        .map(|i| {
            let (y, x) = (i / W, i % W);
            f32::from((1..4).contains(&y) && (2..6).contains(&x))
        })
        .collect();
    vec![
        ("all", vec![1.0; N]),
        ("none", vec![0.0; N]),
        (
            "checkerboard",
            (0..N).map(|i| ((i / W + i % W) % 2) as f32).collect(),
        ),
        ("rectangle", rect),
        (
            "negative values are on",
            (0..N).map(|i| -(i as f32 % 3.0)).collect(),
        ),
    ]
}

fn runtimes() -> Vec<(&'static str, Runtime)> {
    vec![
        ("cpu", Runtime::cpu()),
        (
            "cpu interpreter",
            Runtime::with_backend(std::rc::Rc::new(brook::CpuBackend::interpreter())),
        ),
        ("gl", Runtime::gl().unwrap()),
        (
            "gl split (one draw buffer)",
            Runtime::gl_with(ContextOptions {
                max_draw_buffers: Some(1),
                ..ContextOptions::default()
            })
            .unwrap(),
        ),
        (
            "gl translated (padding texels)",
            Runtime::gl_with(ContextOptions {
                max_texture_size: Some(6),
                ..ContextOptions::default()
            })
            .unwrap(),
        ),
        ("wgpu", Runtime::wgpu().unwrap()),
    ]
}

#[test]
fn masks_keep_masked_off_elements_and_queries_count_written_ones() {
    for (name, rt) in runtimes() {
        assert_eq!(masked(&rt, None), expected(None), "{name}, unmasked");
        for (pattern, mask) in patterns() {
            assert_eq!(
                masked(&rt, Some(&mask)),
                expected(Some(&mask)),
                "{name}, mask {pattern}"
            );
        }
    }
}

#[test]
fn a_disabled_mask_writes_everything_and_calls_outside_a_query_are_not_counted() {
    for (name, rt) in runtimes() {
        let program = rt.compile(SRC, "mask.br").unwrap();
        let a = stream(&rt, 1, &(0..N).map(|i| i as f32).collect::<Vec<_>>());
        let (b, c) = (stream(&rt, 1, &[0.0; N]), stream(&rt, 2, &[0.0; 2 * N]));
        rt.set_write_mask(&stream(&rt, 1, &[0.0; N])).unwrap();
        rt.enable_write_mask().unwrap();
        rt.disable_write_mask().unwrap();
        rt.run(&program, "twice", brook::args![&a, &b, &c]).unwrap();
        rt.begin_write_query().unwrap();
        let count = rt.end_write_query().unwrap();
        assert_eq!(count, 0, "{name}");
        let want: Vec<f32> = (0..N).map(|i| 2.0 * i as f32).collect();
        assert_eq!(b.to_vec().unwrap(), want, "{name}");
    }
}

#[test]
fn misuse_is_a_clear_error() {
    for (name, rt) in runtimes() {
        let program = rt.compile(SRC, "mask.br").unwrap();
        let err = rt.enable_write_mask().unwrap_err().to_string();
        assert!(err.contains("no write mask is bound"), "{name}: {err}");
        let err = rt.end_write_query().unwrap_err().to_string();
        assert!(err.contains("no write query is open"), "{name}: {err}");
        rt.begin_write_query().unwrap();
        let err = rt.begin_write_query().unwrap_err().to_string();
        assert!(err.contains("already open"), "{name}: {err}");
        rt.end_write_query().unwrap();

        let wrong = rt.stream_of(1, &[W, H]).unwrap();
        wrong.read(&[1.0; N]).unwrap();
        rt.set_write_mask(&wrong).unwrap();
        rt.enable_write_mask().unwrap();
        let a = stream(&rt, 1, &[1.0; N]);
        let (b, c) = (stream(&rt, 1, &[0.0; N]), stream(&rt, 2, &[0.0; 2 * N]));
        let err = rt
            .run(&program, "twice", brook::args![&a, &b, &c])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("write mask has shape <7, 5> but the outputs have shape <5, 7>"),
            "{name}: {err}"
        );
        assert_eq!(b.to_vec().unwrap(), vec![0.0; N], "{name}: nothing written");
    }
}

#[test]
fn write_queries_are_refused_on_es_3_0() {
    let rt = Runtime::gl_with(ContextOptions {
        profile: brook::Profile::Es30,
        ..ContextOptions::default()
    })
    .unwrap();
    let err = rt.begin_write_query().unwrap_err().to_string();
    assert!(err.contains("ANY_SAMPLES_PASSED"), "{err}");
}

#[test]
fn masks_apply_inside_output_domains_with_the_whole_streams_shape() {
    // Columns 2..6 of rows 1..4 (Brook order: x first); the mask is a checkerboard of the
    // whole 5x7 stream, so element (y, x) is written where it is inside the domain, on in
    // the mask, and not discarded by the kernel.
    let (lo, hi) = ([2, 1], [6, 4]);
    let (dw, dh) = (hi[0] - lo[0], hi[1] - lo[1]);
    let checker: Vec<f32> = (0..N).map(|i| ((i / W + i % W) % 2) as f32).collect();
    let a: Vec<f32> = (0..dw * dh)
        .map(|i| if i % 5 == 4 { -1.0 } else { i as f32 })
        .collect();
    let mut want_b = vec![-7.0; N];
    let mut want_count = 0;
    for y in lo[1]..hi[1] {
        for x in lo[0]..hi[0] {
            let (i, k) = (y * W + x, (y - lo[1]) * dw + (x - lo[0]));
            if checker[i] != 0.0 && a[k] >= 0.0 {
                want_b[i] = 2.0 * a[k];
                want_count += 1;
            }
        }
    }
    for (name, rt) in runtimes() {
        let program = rt.compile(SRC, "mask.br").unwrap();
        let input = rt.stream_of(1, &[dh, dw]).unwrap();
        input.read(&a).unwrap();
        let b = stream(&rt, 1, &[-7.0; N]);
        let c = stream(&rt, 2, &[-9.0; 2 * N]);
        rt.set_write_mask(&stream(&rt, 1, &checker)).unwrap();
        rt.enable_write_mask().unwrap();
        rt.begin_write_query().unwrap();
        let (bd, cd) = (b.domain(&lo, &hi).unwrap(), c.domain(&lo, &hi).unwrap());
        rt.run(&program, "twice", brook::args![&input, &bd, &cd])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let count = rt.end_write_query().unwrap();
        rt.disable_write_mask().unwrap();
        assert_eq!(b.to_vec().unwrap(), want_b, "{name}");
        assert_eq!(count, want_count, "{name}");
        let c = c.to_vec().unwrap();
        assert!(
            (0..N).all(|i| (c[2 * i] == -9.0) == (want_b[i] == -7.0)),
            "{name}: c written where b is"
        );
    }
}

#[test]
fn a_reduction_sees_the_values_a_masked_kernel_kept() {
    let src = format!("{SRC}\nreduce void sum(float a<>, reduce float r<>) {{ r += a; }}");
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mask: Vec<f32> = (0..N).map(|i| f32::from(i % 3 == 0)).collect();
    // Masked-off elements keep 100; the rest become 2i (no element is negative here).
    let want: f32 = (0..N)
        .map(|i| if i % 3 == 0 { 2.0 * i as f32 } else { 100.0 })
        .sum();
    for (name, rt) in runtimes() {
        let program = rt.compile(&src, "mask.br").unwrap();
        let (input, b) = (stream(&rt, 1, &a), stream(&rt, 1, &[100.0; N]));
        let c = stream(&rt, 2, &[0.0; 2 * N]);
        rt.set_write_mask(&stream(&rt, 1, &mask)).unwrap();
        rt.enable_write_mask().unwrap();
        rt.run(&program, "twice", brook::args![&input, &b, &c])
            .unwrap();
        rt.disable_write_mask().unwrap();
        let total = rt
            .reduce_to_value(&program, "sum", &b, brook::args![])
            .unwrap();
        assert_eq!(total, vec![want], "{name}");
        // Row sums, reduced to a stream, see them too.
        let rows = rt.stream_of(1, &[H, 1]).unwrap();
        rt.reduce_to_stream(&program, "sum", &b, &rows, brook::args![])
            .unwrap();
        let want_rows: Vec<f32> = (0..H)
            .map(|y| {
                (0..W)
                    .map(|x| y * W + x)
                    .map(|i| if i % 3 == 0 { 2.0 * i as f32 } else { 100.0 })
                    .sum()
            })
            .collect();
        assert_eq!(rows.to_vec().unwrap(), want_rows, "{name}");
    }
}

const SET_SRC: &str = "
kernel void below(float a<>, float t, float v, out float r<>, out float2 s<>) {
    if (a >= t) discard;
    r = v;
    s = float2(v, a);
}
kernel void fill(float v, out float r<>, out float2 s<>) { r = v; s = float2(v, v); }
kernel void single(float v, out float r<>) { r = v; }";

// The original's C++ `write_mask` (`Runtime::create_write_mask`): the set mode marks the
// elements a kernel call wrote (neither discarded nor failing the test), the test then keeps
// them, `clear` opens them again; with both on, each element is written once, by the first
// call that does not discard it.

struct Case {
    rt: Runtime,
    program: brook::Program,
    a: Stream,
    r: Stream,
    s: Stream,
}

impl Case {
    /// `a` holds 0..N in order; `r` and `s` are filled with -1.
    fn new(rt: Runtime) -> Case {
        let program = rt.compile(SET_SRC, "set.br").unwrap();
        let a = rt.stream_of(1, &[H, W]).unwrap();
        a.read(&(0..N).map(|i| i as f32).collect::<Vec<_>>())
            .unwrap();
        let r = rt.stream_of(1, &[H, W]).unwrap();
        let s = rt.stream_of(2, &[H, W]).unwrap();
        let case = Case {
            rt,
            program,
            a,
            r,
            s,
        };
        case.fill(-1.0);
        case
    }

    fn fill(&self, v: f32) -> u64 {
        self.counted("fill", brook::args![v, &self.r, &self.s])
    }

    /// `below(a, t, v)`: elements with a < t write v; returns the query's count.
    fn below(&self, t: f32, v: f32) -> u64 {
        self.counted("below", brook::args![&self.a, t, v, &self.r, &self.s])
    }

    fn counted(&self, kernel: &str, args: &[brook::Arg]) -> u64 {
        self.rt.begin_write_query().unwrap();
        self.rt.run(&self.program, kernel, args).unwrap();
        self.rt.end_write_query().unwrap()
    }

    /// `r`, checked against `s` (written together, element by element).
    fn r(&self, name: &str) -> Vec<f32> {
        let (r, s) = (self.r.to_vec().unwrap(), self.s.to_vec().unwrap());
        for i in 0..N {
            assert_eq!(s[2 * i], r[i], "{name}: s written with r at {i}");
        }
        r
    }
}

#[test]
fn set_mode_marks_what_calls_wrote_and_the_test_keeps_it() {
    for (name, rt) in runtimes() {
        let c = Case::new(rt);
        let m = c.rt.create_write_mask(&[H, W]).unwrap();
        c.rt.bind_write_mask(&m).unwrap();
        // Set mode alone: the call writes as without a mask, and marks what it wrote.
        c.rt.enable_write_mask_set().unwrap();
        assert_eq!(c.below(10.0, 5.0), 10, "{name}");
        c.rt.disable_write_mask_set().unwrap();
        // The test: only the elements not set (a >= 10) are written.
        c.rt.enable_write_mask().unwrap();
        assert_eq!(c.fill(7.0), (N - 10) as u64, "{name}");
        let want: Vec<f32> = (0..N).map(|i| if i < 10 { 5.0 } else { 7.0 }).collect();
        assert_eq!(c.r(name), want, "{name}");
        // Set mode again, with the test: a call writing everything sets the rest, so a
        // later call writes nothing.
        c.rt.enable_write_mask_set().unwrap();
        assert_eq!(c.fill(8.0), (N - 10) as u64, "{name}");
        assert_eq!(c.fill(9.0), 0, "{name}");
        let want: Vec<f32> = (0..N).map(|i| if i < 10 { 5.0 } else { 8.0 }).collect();
        assert_eq!(c.r(name), want, "{name}");
        // Cleared, every element is open again.
        c.rt.clear_write_mask(&m).unwrap();
        c.rt.disable_write_mask_set().unwrap();
        assert_eq!(c.fill(1.0), N as u64, "{name}");
        assert_eq!(c.r(name), vec![1.0; N], "{name}");
    }
}

#[test]
fn with_test_and_set_each_element_is_written_by_the_first_call_that_does_not_discard() {
    for (name, rt) in runtimes() {
        let c = Case::new(rt);
        let m = c.rt.create_write_mask(&[H, W]).unwrap();
        c.rt.bind_write_mask(&m).unwrap();
        c.rt.enable_write_mask().unwrap();
        c.rt.enable_write_mask_set().unwrap();
        let counts: Vec<u64> = [(3.0, 10.0), (8.0, 20.0), (3.0, 30.0), (100.0, 40.0)]
            .iter()
            .map(|&(t, v)| c.below(t, v))
            .collect();
        assert_eq!(counts, [3, 5, 0, (N - 8) as u64], "{name}");
        let want: Vec<f32> = (0..N)
            .map(|i| match i {
                0..3 => 10.0,
                3..8 => 20.0,
                _ => 40.0,
            })
            .collect();
        assert_eq!(c.r(name), want, "{name}");
    }
}

#[test]
fn a_domain_sets_and_tests_the_mask_at_its_place_in_the_whole_stream() {
    // Columns 1..4 of rows 1..3 (x first): set there, then a whole-stream call under the
    // test writes every other element.
    let (lo, hi) = ([1, 1], [4, 3]);
    let inside = |i: usize| (1..3).contains(&(i / W)) && (1..4).contains(&(i % W));
    for (name, rt) in runtimes() {
        let program = rt.compile(SET_SRC, "set.br").unwrap();
        let r = rt.stream_of(1, &[H, W]).unwrap();
        r.read(&[0.0; N]).unwrap();
        let m = rt.create_write_mask(&[H, W]).unwrap();
        rt.bind_write_mask(&m).unwrap();
        rt.enable_write_mask_set().unwrap();
        rt.run(
            &program,
            "single",
            brook::args![2.0f32, &r.domain(&lo, &hi).unwrap()],
        )
        .unwrap();
        rt.disable_write_mask_set().unwrap();
        rt.enable_write_mask().unwrap();
        rt.begin_write_query().unwrap();
        rt.run(&program, "single", brook::args![3.0f32, &r])
            .unwrap();
        assert_eq!(rt.end_write_query().unwrap(), (N - 6) as u64, "{name}");
        let want: Vec<f32> = (0..N).map(|i| if inside(i) { 2.0 } else { 3.0 }).collect();
        assert_eq!(r.to_vec().unwrap(), want, "{name}");
    }
}

#[test]
fn a_loaded_mask_is_bound_in_place_of_a_write_mask_and_set_mode_applies_to_it() {
    for (name, rt) in runtimes() {
        let c = Case::new(rt);
        let m = c.rt.create_write_mask(&[H, W]).unwrap();
        c.rt.bind_write_mask(&m).unwrap();
        let on = c.rt.stream_of(1, &[H, W]).unwrap();
        on.read(&(0..N).map(|i| (i % 2) as f32).collect::<Vec<_>>())
            .unwrap();
        c.rt.set_write_mask(&on).unwrap();
        c.rt.enable_write_mask().unwrap();
        c.rt.enable_write_mask_set().unwrap();
        assert_eq!(c.fill(4.0), (N / 2) as u64, "{name}");
        assert_eq!(c.fill(5.0), 0, "{name}");
        // Rebinding the write mask (never written) opens every element again.
        c.rt.bind_write_mask(&m).unwrap();
        c.rt.disable_write_mask_set().unwrap();
        assert_eq!(c.fill(6.0), N as u64, "{name}");
    }
}

#[test]
fn set_mode_misuse_is_a_clear_error() {
    for (name, rt) in runtimes() {
        let c = Case::new(rt);
        let err = c.rt.enable_write_mask_set().unwrap_err().to_string();
        assert!(err.contains("no write mask is bound"), "{name}: {err}");
        let m = c.rt.create_write_mask(&[W, H]).unwrap();
        c.rt.bind_write_mask(&m).unwrap();
        c.rt.enable_write_mask_set().unwrap();
        let err =
            c.rt.run(&c.program, "fill", brook::args![1.0f32, &c.r, &c.s])
                .unwrap_err()
                .to_string();
        assert!(
            err.contains("write mask has shape <7, 5> but the outputs have shape <5, 7>"),
            "{name}: {err}"
        );
        c.rt.unbind_write_mask();
        let err =
            c.rt.run(&c.program, "fill", brook::args![1.0f32, &c.r, &c.s])
                .unwrap_err()
                .to_string();
        assert!(err.contains("no mask is bound"), "{name}: {err}");
        assert_eq!(c.r(name), vec![-1.0; N], "{name}: nothing written");
        let other = Runtime::cpu();
        let foreign = other.create_write_mask(&[H, W]).unwrap();
        let err = c.rt.bind_write_mask(&foreign).unwrap_err().to_string();
        assert!(err.contains("another runtime"), "{name}: {err}");
    }
}
