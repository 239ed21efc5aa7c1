//! The original's C++ `write_mask` (`Runtime::create_write_mask`): the set mode marks the
//! elements a kernel call wrote (neither discarded nor failing the test), the test then keeps
//! them, `clear` opens them again; with both on, each element is written once, by the first
//! call that does not discard it. On every backend (GL split over passes and with padding
//! texels too) against hand-worked values, with write-query counts; and the errors.

use brook::{ContextOptions, Runtime, Stream};

const SRC: &str = "
kernel void below(float a<>, float t, float v, out float r<>, out float2 s<>) {
    if (a >= t) discard;
    r = v;
    s = float2(v, a);
}
kernel void fill(float v, out float r<>, out float2 s<>) { r = v; s = float2(v, v); }
kernel void single(float v, out float r<>) { r = v; }";

const W: usize = 6;
const H: usize = 4;
const N: usize = W * H;

fn runtimes() -> Vec<(&'static str, Runtime)> {
    vec![
        ("cpu", Runtime::cpu()),
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
                max_texture_size: Some(5),
                ..ContextOptions::default()
            })
            .unwrap(),
        ),
        ("wgpu", Runtime::wgpu().unwrap()),
    ]
}

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
        let program = rt.compile(SRC, "set.br").unwrap();
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
        assert_eq!(c.fill(7.0), 14, "{name}");
        let want: Vec<f32> = (0..N).map(|i| if i < 10 { 5.0 } else { 7.0 }).collect();
        assert_eq!(c.r(name), want, "{name}");
        // Set mode again, with the test: a call writing everything sets the rest, so a
        // later call writes nothing.
        c.rt.enable_write_mask_set().unwrap();
        assert_eq!(c.fill(8.0), 14, "{name}");
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
        assert_eq!(counts, [3, 5, 0, 16], "{name}");
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
        let program = rt.compile(SRC, "set.br").unwrap();
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
fn misuse_is_a_clear_error() {
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
            err.contains("write mask has shape <6, 4> but the outputs have shape <4, 6>"),
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
