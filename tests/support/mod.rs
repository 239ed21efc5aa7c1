//! Shared helpers for the end-to-end tests: run one Brook program on GL, on wgpu and on the CPU
//! backend.
#![allow(dead_code)] // each test binary uses a subset

pub mod counting;

use brook::{Arg, ContextOptions, Runtime, Stream};

/// A headless GL runtime; `max_texture_size` lowers the limit to force address translation,
/// `max_draw_buffers` to force pass splitting.
pub fn gl_with(max_texture_size: Option<u32>, max_draw_buffers: Option<u32>) -> Runtime {
    Runtime::gl_with(ContextOptions {
        max_texture_size,
        max_draw_buffers,
        ..ContextOptions::default()
    })
    .expect("a headless GL context (Mesa llvmpipe through EGL)")
}

/// A wgpu runtime on the default adapter (lavapipe here).
pub fn wgpu() -> Runtime {
    Runtime::wgpu()
        .expect("a wgpu adapter (lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)")
}

/// An application's own wgpu device and queue, made the way any wgpu app makes them, and a
/// Brook runtime on them (`Runtime::on_wgpu_device`).
pub fn app_wgpu_device() -> (
    brook::wgpu_backend::wgpu::Device,
    brook::wgpu_backend::wgpu::Queue,
    Runtime,
) {
    use brook::wgpu_backend::wgpu;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("an adapter (lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)");
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let rt = Runtime::on_wgpu_device(device.clone(), queue.clone(), adapter.get_info());
    (device, queue, rt)
}

/// The backends `BROOK_CONFORMANCE_OPTIONAL` (comma-separated names) allows to be missing on
/// this machine: the conformance suite's and the tests' one reading of it.
pub fn optional_backends() -> Vec<String> {
    std::env::var("BROOK_CONFORMANCE_OPTIONAL")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A runtime on wgpu's GL backend (Mesa's EGL here), or `None` where the machine has none
/// and `BROOK_CONFORMANCE_OPTIONAL` names `wgpu-gl` ([`optional_backends`]): NVIDIA's EGL
/// gives wgpu no GL device (`Parent device is lost`). Missing without that, it fails the test.
pub fn wgpu_gl() -> Option<Runtime> {
    match brook::WgpuBackend::new_on(brook::wgpu_backend::wgpu::Backends::GL) {
        Ok(b) => Some(Runtime::with_backend(std::rc::Rc::new(b))),
        Err(e) => {
            assert!(
                optional_backends().iter().any(|name| name == "wgpu-gl"),
                "wgpu's GL backend: {e:?} (BROOK_CONFORMANCE_OPTIONAL=wgpu-gl allows that)"
            );
            eprintln!(
                "wgpu's GL backend unavailable, allowed by BROOK_CONFORMANCE_OPTIONAL: {e:?}"
            );
            None
        }
    }
}

/// Desktop GL, GL ES, GL with a 64-texel texture limit (address translation), wgpu, and the
/// CPU: every backend and GL layout a result must not depend on.
pub fn runtimes() -> Vec<Runtime> {
    vec![
        Runtime::gl().unwrap(),
        Runtime::gl_with(ContextOptions {
            profile: brook::Profile::Es30,
            ..ContextOptions::default()
        })
        .unwrap(),
        gl_with(Some(64), None),
        wgpu(),
        Runtime::cpu(),
    ]
}

/// Asserts that `got` (from `backend`) equals the CPU's `cpu` within `ulps`, output by output.
fn assert_agree(backend: &str, got: &[Vec<f32>], cpu: &[Vec<f32>], ulps: u32) {
    assert_eq!(got.len(), cpu.len());
    for (k, (g, c)) in got.iter().zip(cpu).enumerate() {
        assert_eq!(g.len(), c.len(), "output {k} length");
        for (i, (a, b)) in g.iter().zip(c).enumerate() {
            assert!(
                ulp_distance(*a, *b) <= ulps,
                "{backend}: output {k} float {i}: {a} vs CPU {b} (more than {ulps} ulps apart)"
            );
        }
    }
}

/// What one stream argument of a test call holds.
pub enum Input<'a> {
    /// A stream of `components` floats per element, with this data.
    Data {
        components: u8,
        shape: &'a [usize],
        data: Vec<f32>,
    },
    Constant(Vec<f32>),
    /// An output stream of `components` floats per element.
    Out {
        components: u8,
        shape: &'a [usize],
    },
}

/// Runs `kernel` of `source` on `rt` and returns every output's contents, in parameter order.
pub fn run_kernel(rt: &Runtime, source: &str, kernel: &str, inputs: &[Input]) -> Vec<Vec<f32>> {
    let program = rt
        .compile(source, "test.br")
        .unwrap_or_else(|e| panic!("{e}"));
    let streams: Vec<Option<Stream>> = inputs
        .iter()
        .map(|i| match i {
            Input::Data {
                components,
                shape,
                data,
            } => {
                let s = rt.stream_of(*components, shape).unwrap();
                s.read(data).unwrap();
                Some(s)
            }
            Input::Out { components, shape } => Some(rt.stream_of(*components, shape).unwrap()),
            Input::Constant(_) => None,
        })
        .collect();
    let args: Vec<Arg> = inputs
        .iter()
        .zip(&streams)
        .map(|(i, s)| match (i, s) {
            (Input::Constant(v), _) => Arg::Constant(v.clone()),
            (_, Some(s)) => Arg::Stream(s),
            _ => unreachable!(),
        })
        .collect();
    rt.run(&program, kernel, &args)
        .unwrap_or_else(|e| panic!("{}: {e}", rt.backend_name()));
    inputs
        .iter()
        .zip(&streams)
        .filter(|(i, _)| matches!(i, Input::Out { .. }))
        .map(|(_, s)| s.as_ref().unwrap().to_vec().unwrap())
        .collect()
}

/// Runs on GL (with `gl`), on wgpu and on the CPU backend and asserts that GL's and wgpu's
/// outputs agree with the CPU's within `ulps` units in the last place (0 = bit for bit);
/// returns the GL outputs.
pub fn gl_equals_cpu(
    gl: &Runtime,
    source: &str,
    kernel: &str,
    inputs: &[Input],
    ulps: u32,
) -> Vec<Vec<f32>> {
    let on_gl = run_kernel(gl, source, kernel, inputs);
    let on_cpu = run_kernel(&Runtime::cpu(), source, kernel, inputs);
    assert_agree(&gl.describe(), &on_gl, &on_cpu, ulps);
    let on_wgpu = run_kernel(&wgpu(), source, kernel, inputs);
    assert_agree("wgpu", &on_wgpu, &on_cpu, ulps);
    on_gl
}

pub fn ulp_distance(a: f32, b: f32) -> u32 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 {
            i32::MIN - bits
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

/// Small integers with repeats, signs and zeros (`salt` shifts them): every order of
/// summing them is exact, so results compare bit for bit.
pub fn ints(n: usize, salt: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7 + 3 + salt) % 13) as f32 - 6.0)
        .collect()
}

/// 0, 1, 2, … as floats: every element distinct, so misplaced reads are caught.
pub fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

/// GL runtimes of both profiles, desktop 3.3 core and ES 3.0, with these lowered limits.
pub fn gl_profiles(max_texture_size: Option<u32>, max_draw_buffers: Option<u32>) -> Vec<Runtime> {
    [brook::Profile::Gl33Core, brook::Profile::Es30]
        .into_iter()
        .map(|profile| {
            Runtime::gl_with(ContextOptions {
                profile,
                max_texture_size,
                max_draw_buffers,
            })
            .expect("a headless GL context of this profile (Mesa llvmpipe through EGL)")
        })
        .collect()
}

/// Runs `f` on the CPU backend, on every runtime of `gls` and on wgpu, asserts that each
/// result equals the CPU's within `ulps` (0 = bit for bit), and returns the CPU's results.
pub fn agree_with_cpu(
    gls: &[Runtime],
    ulps: u32,
    f: impl Fn(&Runtime) -> Vec<Vec<f32>>,
) -> Vec<Vec<f32>> {
    let on_cpu = f(&Runtime::cpu());
    for gl in gls {
        assert_agree(&gl.describe(), &f(gl), &on_cpu, ulps);
    }
    let wgpu = wgpu();
    assert_agree(&wgpu.describe(), &f(&wgpu), &on_cpu, ulps);
    on_cpu
}

/// SplitMix64: deterministic samples without a dependency.
pub struct Samples(pub u64);

impl Samples {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Half uniform in `[lo, hi]`, half with a magnitude uniform in its exponent (down to
    /// 2^-40, or the smallest normal where the range reaches it) and either sign the range
    /// allows: small and large arguments get as many samples as the middle.
    pub fn in_range(&mut self, lo: f64, hi: f64) -> f32 {
        if self.next() & 1 == 0 {
            return (lo + (hi - lo) * self.unit()) as f32;
        }
        let top = lo.abs().max(hi.abs()).log2();
        let bottom = (top - 40.0).max(-126.0);
        let magnitude = (bottom + (top - bottom) * self.unit()).exp2();
        let negative = lo < 0.0 && (hi <= 0.0 || self.next() & 1 == 0);
        let v = if negative { -magnitude } else { magnitude };
        v.clamp(lo, hi) as f32
    }
}

/// A kernel whose loop never ends (`forever.br`: its statements on lines 1 to 4), for the
/// CPU's time limit.
pub const FOREVER: &str =
    "kernel void forever(float x<>, out float y<>) {\n  float a = x;\n  while (a > -1.0) { a += 1.0; }\n  y = a;\n}";

/// A kernel whose loop runs `n` times (a driver's iteration cap cuts it short for large `n`).
pub const COUNT_TO_N: &str = "kernel void k(float n<>, out float r<>) {
    float x = 0.0;
    float i;
    for (i = 0.0; i < n; i += 1.0)
        x += 1.0;
    r = x;
}";

/// The markdown table of `doc` between `<!-- name -->` and `<!-- end name -->` (the tables
/// the docs state and the tests pin): its header's cells, then each row's, trimmed and
/// without backticks; the `| --- |` line is skipped.
pub fn doc_table(doc: &str, name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let begin = format!("<!-- {name} -->");
    let start = doc
        .find(&begin)
        .unwrap_or_else(|| panic!("the table `{begin}` in the doc"));
    let end = doc[start..]
        .find(&format!("<!-- end {name} -->"))
        .unwrap_or_else(|| panic!("the end of the table `{begin}`"))
        + start;
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`').to_string())
            .collect()
    };
    let mut lines = doc[start..end].lines().filter(|l| l.starts_with('|'));
    let header = cells(lines.next().expect("the table's header"));
    (header, lines.skip(1).map(cells).collect())
}

/// `f` of every item, in two threads (the test machine's cores), in order: for tests that run
/// a program per file of `tests/programs/`.
pub fn in_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let half = items.len().div_ceil(2).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(half)
            .map(|chunk| s.spawn(move || chunk.iter().map(f).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}
