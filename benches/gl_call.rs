//! The fixed cost of a cached kernel call on GL, against the same call written by hand in
//! glow (issue 16 item 4), in one run. The first calls draw one texel, so what is timed is the
//! host work of a call and the driver's per-draw cost, not the shading:
//!
//! * `constant`: `o = a * k + 1` with a constant `k` that changes every call (the hand-written
//!   loop sets the uniform every call, too);
//! * `loop`: a kernel whose loop bound comes from a stream's value, so on a driver that cuts
//!   loops short (llvmpipe) Brook checks the loop in every call and reads the check back; the
//!   hand-written shader checks nothing. This ratio is the price of never returning a wrong result.
//! * `43-MAD`: the paper's synthetic kernel on 1 to 4096 elements, the small end of the
//!   kernel-call knee, where the fixed cost of a call still dominates.
//!
//! After the wall times, each group's CPU time per call of the whole process (the driver's
//! threads too) is printed: on a machine shared with other builds it moves far less than wall
//! time. Both sides ping-pong (each call reads the previous call's output), as the other kernel
//! benches do, and each timed batch ends with glFinish.

mod common;

use std::time::{Duration, Instant};

use brook::{Arg, Runtime};
use common::brook_kernel::input;
use common::gl_program::{float_texture, link, RGBA32F};
use common::mad::mad_kernel;
use common::ratios::print_ratios;
use criterion::{BenchmarkId, Criterion};
use glow::HasContext;

const HAND: &str = "hand-written glow";
const GL: &str = "brook gl";

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
    flip: bool,
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
                flip: false,
            }
        }
    }

    fn call(&mut self, k: f32) {
        let (src, dst) = if self.flip { (1, 0) } else { (0, 1) };
        let gl = self.gl;
        // SAFETY: objects of the current context.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.framebuffers[dst]));
            gl.viewport(0, 0, self.size.0, self.size.1);
            gl.use_program(Some(self.program));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.textures[src]));
            if let Some(location) = &self.k {
                gl.uniform_1_f32(Some(location), k);
            }
            gl.bind_vertex_array(Some(self.vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
        }
        self.flip = !self.flip;
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

/// One bench group: Brook kernel `f(a, o)` or `f(a, o, k)` (`with_k`) against `hand` (a
/// shader reading sampler `a`, and `k` if it declares it), on float4 streams of `shape`.
/// Returns the group's name and the CPU time per call of each side.
fn group(
    c: &mut Criterion,
    rt: &Runtime,
    name: &str,
    shape: (usize, usize),
    (brook, with_k): (&str, bool),
    hand: &str,
) -> (String, [Option<f64>; 2]) {
    let ctx = rt.gl_context().expect("a GL runtime").clone();
    ctx.make_current().unwrap();
    let mut by_hand = Hand::new(ctx.gl(), hand, shape);
    let program = rt.compile(brook, "gl_call.br").unwrap();
    let streams = [0, 1].map(|_| rt.stream_of(4, &[shape.0, shape.1]).unwrap());
    for s in &streams {
        s.read(&input(shape.0 * shape.1)).unwrap();
    }
    let mut flip = false;
    let mut hand_calls = |iters: u64| {
        ctx.make_current().unwrap();
        for i in 0..iters {
            by_hand.call(1.0 + (i % 2) as f32 * 1e-3);
        }
        // SAFETY: the context was made current above.
        unsafe { ctx.gl().finish() };
    };
    let mut brook_calls = |iters: u64| {
        for i in 0..iters {
            let (src, dst) = if flip { (1, 0) } else { (0, 1) };
            let k = 1.0 + (i % 2) as f32 * 1e-3;
            let mut args = vec![Arg::from(&streams[src]), Arg::from(&streams[dst])];
            if with_k {
                args.push(k.into());
            }
            rt.run(&program, "f", &args).unwrap();
            flip = !flip;
        }
        rt.finish();
    };
    let mut g = c.benchmark_group(name);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function(BenchmarkId::from_parameter(HAND), |b| {
        b.iter_custom(|iters| timed(|| hand_calls(iters)))
    });
    g.bench_function(BenchmarkId::from_parameter(GL), |b| {
        b.iter_custom(|iters| timed(|| brook_calls(iters)))
    });
    g.finish();
    let cpu = [
        selected(name, HAND)
            .then(|| cpu_per_call(&mut hand_calls))
            .flatten(),
        selected(name, GL)
            .then(|| cpu_per_call(&mut brook_calls))
            .flatten(),
    ];
    (name.to_string(), cpu)
}

/// Whether `group/bench` passes the command line's filter (criterion's first argument that
/// is not a flag), so a filtered run (or a profile of one bench) times nothing else.
fn selected(group: &str, bench: &str) -> bool {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    filter.is_none_or(|f| format!("{group}/{bench}").contains(&f))
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// CPU time of the whole process (every driver thread too) per call of `calls`, in µs, over
/// rounds of 5000 calls for about 2 s: on a machine shared with other work this moves far
/// less than wall time, which counts the time other processes hold the cores. `None` where
/// `/proc/self/stat` cannot be read.
fn cpu_per_call(calls: &mut impl FnMut(u64)) -> Option<f64> {
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
    let mut groups = vec![
        group(
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
        ),
        group(
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
        ),
    ];
    // The knee table's small sizes (issue 16: within 1.05× of hand-written at each).
    let (mad, hand_mad) = mad_kernel();
    let mad = mad.replace("void mad(", "void f(");
    for (h, w) in [(1, 1), (4, 4), (16, 16), (64, 64)] {
        let name = format!("43-MAD call on {} elements", h * w);
        groups.push(group(&mut c, &rt, &name, (h, w), (&mad, false), &hand_mad));
    }
    c.final_summary();
    for (name, cpu) in groups {
        print_ratios(&name, HAND, &[HAND, GL], "per call");
        if let [Some(hand), Some(gl)] = cpu {
            println!(
                "  CPU time per call, all threads: {HAND} {hand:.1} µs, {GL} {gl:.1} µs, {:.3}×",
                gl / hand
            );
        }
    }
}
