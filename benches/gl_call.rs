//! The fixed cost of a cached kernel call on GL, against the same call written by hand in
//! glow (issue 16 item 4), in one run:
//!
//! * `constant`: one texel, `o = a * k + 1` with a constant `k` that changes every call (the
//!   hand-written loop sets the uniform every call, too): the host work of a call and the
//!   driver's per-draw cost, not the shading;
//! * `loop`: one texel, a loop bound by a stream's value, so on a driver that cuts loops short
//!   (llvmpipe) Brook checks the loop in every call and reads the check back; the hand-written
//!   shader checks nothing. This ratio is the price of never returning a wrong result;
//! * `43-MAD`: the paper's synthetic kernel on 1 to 4096 elements, the small end of the
//!   kernel-call knee, where the fixed cost of a call still dominates.
//!
//! Every variant is checked against an f64 reference after one call, then timed in rotated
//! rounds (bench-kit). After each table, the CPU time per call of the whole process (the
//! driver's threads too) is printed: on a machine shared with other builds it moves far less
//! than wall time, and with `LP_NUM_THREADS=0` it is the host work of a call alone. Both sides
//! ping-pong (each call reads the previous call's output), as the other kernel benches do, and
//! each timed batch ends with glFinish.

mod common;

use std::cell::RefCell;
use std::time::{Duration, Instant};

use brook::{Arg, Runtime};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use common::brook_kernel::input;
use common::gl_program::{float_texture, link, read_texture, RGBA32F};
use common::mad::{mad_kernel, MADS};
use criterion::Criterion;
use glow::HasContext;

const HAND: &str = "hand-written glow";
const GL: &str = "brook gl";

/// The constant of call `count` (0-based): it changes every call.
fn constant(count: u64) -> f32 {
    1.0 + (count % 2) as f32 * 1e-3
}

/// A ping-pong written by hand: two `w × h` textures, one FBO per direction.
struct Hand<'a> {
    gl: &'a glow::Context,
    program: glow::Program,
    /// The constant `k`, if the shader has one.
    k: Option<glow::UniformLocation>,
    vao: glow::VertexArray,
    textures: [glow::Texture; 2],
    framebuffers: [glow::Framebuffer; 2],
    size: (i32, i32),
    calls: u64,
}

impl<'a> Hand<'a> {
    fn new(gl: &'a glow::Context, fragment: &str, (h, w): (usize, usize)) -> Hand<'a> {
        // SAFETY: bench set-up on the current context.
        unsafe {
            let program = link(gl, fragment);
            gl.uniform_1_i32(gl.get_uniform_location(program, "a").as_ref(), 0);
            let k = gl.get_uniform_location(program, "k");
            let data = input(h * w);
            let size = (w as i32, h as i32);
            let textures = [0, 1].map(|_| float_texture(gl, size.0, size.1, RGBA32F, Some(&data)));
            let framebuffers = [0, 1].map(|i| {
                let fb = gl.create_framebuffer().unwrap();
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fb));
                gl.framebuffer_texture_2d(
                    glow::FRAMEBUFFER,
                    glow::COLOR_ATTACHMENT0,
                    glow::TEXTURE_2D,
                    Some(textures[i]),
                    0,
                );
                fb
            });
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            Hand {
                gl,
                program,
                k,
                vao: gl.create_vertex_array().unwrap(),
                textures,
                framebuffers,
                size,
                calls: 0,
            }
        }
    }

    /// `n` calls, then glFinish.
    fn run(&mut self, n: u64) {
        let gl = self.gl;
        for _ in 0..n {
            let dst = self.calls.is_multiple_of(2) as usize;
            // SAFETY: objects of the current context.
            unsafe {
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.framebuffers[dst]));
                gl.viewport(0, 0, self.size.0, self.size.1);
                gl.use_program(Some(self.program));
                gl.active_texture(glow::TEXTURE0);
                gl.bind_texture(glow::TEXTURE_2D, Some(self.textures[1 - dst]));
                if let Some(location) = &self.k {
                    gl.uniform_1_f32(Some(location), constant(self.calls));
                }
                gl.bind_vertex_array(Some(self.vao));
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
            }
            self.calls += 1;
        }
        // SAFETY: as above.
        unsafe { gl.finish() };
    }

    /// The last call's output.
    fn result(&self) -> Vec<f32> {
        let last = (self.calls % 2 == 1) as usize;
        // SAFETY: the bench's context is current.
        unsafe {
            read_texture(
                self.gl,
                self.textures[last],
                self.size.0,
                self.size.1,
                RGBA32F,
            )
        }
    }
}

impl Drop for Hand<'_> {
    fn drop(&mut self) {
        // SAFETY: the objects made in `new`, deleted once.
        unsafe {
            for fb in self.framebuffers {
                self.gl.delete_framebuffer(fb);
            }
            for t in self.textures {
                self.gl.delete_texture(t);
            }
            self.gl.delete_program(self.program);
            self.gl.delete_vertex_array(self.vao);
        }
    }
}

/// The same ping-pong through Brook: kernel `f(a, o)`, or `f(a, o, k)` with `with_k`.
struct Brook<'a> {
    rt: &'a Runtime,
    program: brook::Program,
    streams: [brook::Stream; 2],
    with_k: bool,
    calls: u64,
}

impl<'a> Brook<'a> {
    fn new(rt: &'a Runtime, source: &str, with_k: bool, (h, w): (usize, usize)) -> Brook<'a> {
        let program = rt.compile(source, "gl_call.br").unwrap();
        let streams = [0, 1].map(|_| rt.stream_of(4, &[h, w]).unwrap());
        for s in &streams {
            s.read(&input(h * w)).unwrap();
        }
        Brook {
            rt,
            program,
            streams,
            with_k,
            calls: 0,
        }
    }

    fn run(&mut self, n: u64) {
        for _ in 0..n {
            let dst = self.calls.is_multiple_of(2) as usize;
            let mut args = vec![
                Arg::from(&self.streams[1 - dst]),
                Arg::from(&self.streams[dst]),
            ];
            if self.with_k {
                args.push(constant(self.calls).into());
            }
            self.rt.run(&self.program, "f", &args).unwrap();
            self.calls += 1;
        }
        self.rt.finish();
    }

    fn result(&self) -> Vec<f32> {
        let last = (self.calls % 2 == 1) as usize;
        self.streams[last].to_vec().unwrap()
    }
}

/// One comparison on float4 streams of `shape`: `brook` (kernel `f`, taking `k` when
/// `with_k`) against `hand` (a shader reading sampler `a`, and `k` if it declares it); every
/// element after one call must be `first(element)` within `tolerance`.
#[allow(clippy::too_many_arguments)]
fn compare(
    c: &mut Criterion,
    rt: &Runtime,
    name: &str,
    shape: (usize, usize),
    (brook, with_k): (&str, bool),
    hand: &str,
    first: impl Fn(f32) -> f64,
    tolerance: Tolerance,
) {
    let ctx = rt.gl_context().expect("a GL runtime").clone();
    ctx.make_current().unwrap();
    let by_hand = RefCell::new(Hand::new(ctx.gl(), hand, shape));
    let on_gl = RefCell::new(Brook::new(rt, brook, with_k, shape));
    let expected = input(shape.0 * shape.1).into_iter().map(first).collect();
    Comparison::new(name, "per call", 1, expected, tolerance)
        .variant(Variant::new(
            HAND,
            |n| {
                ctx.make_current().unwrap();
                by_hand.borrow_mut().run(n);
            },
            || by_hand.borrow().result(),
        ))
        .variant(Variant::new(
            GL,
            |n| on_gl.borrow_mut().run(n),
            || on_gl.borrow().result(),
        ))
        .run(c);
    let hand_cpu = selected(name, HAND)
        .then(|| {
            cpu_per_call(|n| {
                ctx.make_current().unwrap();
                by_hand.borrow_mut().run(n);
            })
        })
        .flatten();
    let gl_cpu = selected(name, GL)
        .then(|| cpu_per_call(|n| on_gl.borrow_mut().run(n)))
        .flatten();
    if let (Some(hand), Some(gl)) = (hand_cpu, gl_cpu) {
        println!(
            "  CPU time per call, all threads: {HAND} {hand:.1} µs, {GL} {gl:.1} µs, {:.3}×\n",
            gl / hand
        );
    }
}

/// Whether `group/bench` passes the command line's filter (criterion's first argument that
/// is not a flag), so a filtered run (or a profile of one bench) times nothing else.
fn selected(group: &str, bench: &str) -> bool {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    filter.is_none_or(|f| format!("{group}/{bench}").contains(&f))
        && !std::env::args().any(|a| a == "--test")
}

/// CPU time of the whole process (every driver thread too) per call of `calls`, in µs, over
/// rounds of 5000 calls for about 2 s. `None` where `/proc/self/stat` cannot be read.
fn cpu_per_call(mut calls: impl FnMut(u64)) -> Option<f64> {
    let (mut ticks, mut n) = (0u64, 0u64);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        let before = process_ticks()?;
        calls(5000);
        ticks += process_ticks()? - before;
        n += 5000;
    }
    Some(ticks as f64 * 1e6 / CLOCK_TICKS_PER_SECOND / n as f64)
}

/// `sysconf(_SC_CLK_TCK)` on Linux.
const CLOCK_TICKS_PER_SECOND: f64 = 100.0;

/// User and system time of this process so far, in clock ticks.
fn process_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let rt = Runtime::gl().expect("a headless GL context");
    // a · 1 + 1: exact.
    compare(
        &mut c,
        &rt,
        "1-element call with a constant",
        (1, 1),
        (
            "kernel void f(float4 a<>, out float4 o<>, float k) { o = a * k + 1.0; }",
            true,
        ),
        "#version 330 core\nuniform sampler2D a;\nuniform float k;\nout vec4 o;\n\
         void main() { o = texelFetch(a, ivec2(0), 0) * k + 1.0; }\n",
        |a| f64::from(a) + 1.0,
        Tolerance::Relative(f64::from(f32::EPSILON)),
    );
    // The element's x is 0, so its loop runs no iteration: o = a (the check per call is what
    // is timed, not the loop).
    compare(
        &mut c,
        &rt,
        "1-element call with a loop bound by a stream value",
        (1, 1),
        (
            "kernel void f(float4 a<>, out float4 o<>, float k) {\n\
             float4 s = a;\n\
             int i;\n\
             for (i = 0; i < (int)(a.x * k * 2.0); i++) { s = s * 0.5 + 1.0; }\n\
             o = s;\n}\n",
            true,
        ),
        "#version 330 core\nuniform sampler2D a;\nuniform float k;\nout vec4 o;\n\
         void main() { vec4 a0 = texelFetch(a, ivec2(0), 0);\n\
         vec4 s = a0;\n\
         for (int i = 0; i < int(a0.x * k * 2.0); i++) { s = s * 0.5 + 1.0; }\n\
         o = s; }\n",
        f64::from,
        Tolerance::Relative(f64::from(f32::EPSILON)),
    );
    // The knee table's small sizes (issue 16: within 1.05× of hand-written at each). 43
    // multiply-adds, each one f32 rounding (or none, fused).
    let (mad, hand_mad) = mad_kernel();
    let mad = mad.replace("void mad(", "void f(");
    let mads = |a: f32| (0..MADS).fold(f64::from(a), |x, _| x * 0.999 + 0.001);
    for (h, w) in [(1, 1), (4, 4), (16, 16), (64, 64)] {
        let name = format!("43-MAD call on {} elements", h * w);
        compare(
            &mut c,
            &rt,
            &name,
            (h, w),
            (&mad, false),
            &hand_mad,
            mads,
            Tolerance::Relative(MADS as f64 * 2.0 * f64::from(f32::EPSILON)),
        );
    }
    c.final_summary();
}
