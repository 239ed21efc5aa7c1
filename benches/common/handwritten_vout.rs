//! Vout compaction written by hand in glow: the algorithm Brook-GL runs (candidates and counts
//! in one MRT pass, a work-efficient exclusive scan of the counts as up-sweep and down-sweep
//! pyramids of R32F textures, a compaction pass binary-searching the offsets), for the bench
//! kernel `a > 0 pushes a, a > 1 also pushes -a` (N = 2) over a `side × side` float stream. Its
//! textures, framebuffers and programs are made once; a run is draws and one texel read.

use glow::HasContext;

use super::gl_program::{float_texture, link, R32F};

/// Level `i` of a 1D level stored `width` texels wide.
const FETCH: &str = "float level(sampler2D s, int width, int i) { return texelFetch(s, ivec2(i % width, i / width), 0).x; }\n";

const CANDIDATES: &str = "#version 330 core
uniform sampler2D a;
layout(location = 0) out float c0;
layout(location = 1) out float c1;
layout(location = 2) out float count;
void main() {
    float x = texelFetch(a, ivec2(gl_FragCoord.xy), 0).x;
    int n = 0;
    c0 = 0.0;
    c1 = 0.0;
    if (x > 0.0) { c0 = x; n = 1; }
    if (x > 1.0) { if (n == 0) c0 = -x; else c1 = -x; n += 1; }
    count = float(n);
}
";

fn up() -> String {
    format!(
        "#version 330 core
uniform sampler2D finer;
uniform int finer_width;
uniform int finer_length;
uniform int width;
out float sum;
{FETCH}void main() {{
    ivec2 t = ivec2(gl_FragCoord.xy);
    int i = t.y * width + t.x;
    float l = 2 * i < finer_length ? level(finer, finer_width, 2 * i) : 0.0;
    float r = 2 * i + 1 < finer_length ? level(finer, finer_width, 2 * i + 1) : 0.0;
    sum = l + r;
}}
"
    )
}

fn down() -> String {
    format!(
        "#version 330 core
uniform sampler2D coarser;
uniform int coarser_width;
uniform sampler2D sums;
uniform int sums_width;
uniform int width;
out float offset;
{FETCH}void main() {{
    ivec2 t = ivec2(gl_FragCoord.xy);
    int i = t.y * width + t.x;
    float o = level(coarser, coarser_width, i / 2);
    if ((i & 1) == 1) o += level(sums, sums_width, i - 1);
    offset = o;
}}
"
    )
}

fn compact() -> String {
    format!(
        "#version 330 core
uniform sampler2D offsets;
uniform int offsets_width;
uniform sampler2D total;
uniform sampler2D c0;
uniform sampler2D c1;
uniform int candidates_width;
uniform int elements;
uniform int width;
out float result;
{FETCH}void main() {{
    ivec2 t = ivec2(gl_FragCoord.xy);
    int j = t.y * width + t.x;
    if (j >= int(texelFetch(total, ivec2(0), 0).x)) {{ result = 0.0; return; }}
    int lo = 0;
    int hi = elements - 1;
    while (lo < hi) {{
        int mid = (lo + hi + 1) / 2;
        if (int(level(offsets, offsets_width, mid)) <= j) lo = mid; else hi = mid - 1;
    }}
    int k = j - int(level(offsets, offsets_width, lo));
    ivec2 at = ivec2(lo % candidates_width, lo / candidates_width);
    result = k == 0 ? texelFetch(c0, at, 0).x : texelFetch(c1, at, 0).x;
}}
"
    )
}

/// An R32F texture of `len` elements, `width` wide, with its framebuffer.
struct Level {
    texture: glow::Texture,
    framebuffer: glow::Framebuffer,
    width: i32,
    height: i32,
    len: i32,
}

unsafe fn framebuffer(gl: &glow::Context, targets: &[glow::Texture]) -> glow::Framebuffer {
    unsafe {
        let f = gl.create_framebuffer().unwrap();
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(f));
        let mut buffers = Vec::new();
        for (k, t) in targets.iter().enumerate() {
            let attachment = glow::COLOR_ATTACHMENT0 + k as u32;
            gl.framebuffer_texture_2d(glow::FRAMEBUFFER, attachment, glow::TEXTURE_2D, Some(*t), 0);
            buffers.push(attachment);
        }
        gl.draw_buffers(&buffers);
        assert_eq!(
            gl.check_framebuffer_status(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        f
    }
}

/// A 1D level of `len` elements, at most `max` texels wide.
unsafe fn level(gl: &glow::Context, len: usize, max: usize) -> Level {
    unsafe {
        let width = len.min(max) as i32;
        let height = len.div_ceil(max) as i32;
        let texture = float_texture(gl, width, height, R32F, None);
        Level {
            texture,
            framebuffer: framebuffer(gl, &[texture]),
            width,
            height,
            len: len as i32,
        }
    }
}

pub struct HandVout<'a> {
    gl: &'a glow::Context,
    vao: glow::VertexArray,
    side: i32,
    input: glow::Texture,
    candidates: [glow::Texture; 3],
    candidates_fb: glow::Framebuffer,
    programs: [glow::Program; 4],
    /// Up-sweep levels 1..=top.
    sums: Vec<Level>,
    /// Exclusive scans of levels 0..=top (the top one cleared to 0).
    offsets: Vec<Level>,
    output: Level,
}

impl<'a> HandVout<'a> {
    /// The bench's call on `data` (`side × side`), packing into a stream of `capacity` floats.
    pub fn new(gl: &'a glow::Context, side: usize, data: &[f32], capacity: usize) -> HandVout<'a> {
        const MAX: usize = 4096;
        unsafe {
            let vao = gl.create_vertex_array().unwrap();
            let s = side as i32;
            let input = float_texture(gl, s, s, R32F, Some(data));
            let candidates = [
                float_texture(gl, s, s, R32F, None),
                float_texture(gl, s, s, R32F, None),
                float_texture(gl, s, s, R32F, None),
            ];
            let candidates_fb = framebuffer(gl, &candidates);
            let programs = [
                link(gl, CANDIDATES),
                link(gl, &up()),
                link(gl, &down()),
                link(gl, &compact()),
            ];
            let mut lengths = vec![side * side];
            while *lengths.last().unwrap() > 1 {
                lengths.push(lengths.last().unwrap().div_ceil(2));
            }
            let sums = lengths[1..].iter().map(|&n| level(gl, n, MAX)).collect();
            let offsets = lengths.iter().map(|&n| level(gl, n, MAX)).collect();
            let output = level(gl, capacity, MAX);
            assert_eq!(gl.get_error(), glow::NO_ERROR);
            HandVout {
                gl,
                vao,
                side: s,
                input,
                candidates,
                candidates_fb,
                programs,
                sums,
                offsets,
                output,
            }
        }
    }

    unsafe fn draw(
        &self,
        program: usize,
        target: &Level,
        textures: &[glow::Texture],
        ints: &[(&str, i32)],
    ) {
        let gl = self.gl;
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(target.framebuffer));
            gl.viewport(0, 0, target.width, target.height);
            self.bind(program, textures, &[("width", target.width)]);
            self.bind(program, &[], ints);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
        }
    }

    /// Uses `program` with `textures` on units 0.. (named by the program's sampler order) and
    /// the named ints.
    unsafe fn bind(&self, program: usize, textures: &[glow::Texture], ints: &[(&str, i32)]) {
        let gl = self.gl;
        let p = self.programs[program];
        let samplers: &[&str] = match program {
            0 => &["a"],
            1 => &["finer"],
            2 => &["coarser", "sums"],
            _ => &["offsets", "total", "c0", "c1"],
        };
        unsafe {
            gl.use_program(Some(p));
            for (unit, (t, name)) in textures.iter().zip(samplers).enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(*t));
                gl.uniform_1_i32(gl.get_uniform_location(p, name).as_ref(), unit as i32);
            }
            for (name, v) in ints {
                gl.uniform_1_i32(gl.get_uniform_location(p, name).as_ref(), *v);
            }
        }
    }

    /// One call: candidates, scan, compaction; returns the number of pushes (read back).
    pub fn run(&self) -> usize {
        let gl = self.gl;
        let n = self.side * self.side;
        unsafe {
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.candidates_fb));
            gl.viewport(0, 0, self.side, self.side);
            self.bind(0, &[self.input], &[]);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            let counts = self.candidates[2];
            for (l, sum) in self.sums.iter().enumerate() {
                let (finer, width, len) = match l {
                    0 => (counts, self.side, n),
                    _ => (
                        self.sums[l - 1].texture,
                        self.sums[l - 1].width,
                        self.sums[l - 1].len,
                    ),
                };
                self.draw(
                    1,
                    sum,
                    &[finer],
                    &[("finer_width", width), ("finer_length", len)],
                );
            }
            let top = self.offsets.last().unwrap();
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(top.framebuffer));
            gl.clear_buffer_f32_slice(glow::COLOR, 0, &[0.0; 4]);
            for l in (0..self.sums.len()).rev() {
                let coarser = &self.offsets[l + 1];
                let (sums, sums_width) = match l {
                    0 => (counts, self.side),
                    _ => (self.sums[l - 1].texture, self.sums[l - 1].width),
                };
                let ints = [("coarser_width", coarser.width), ("sums_width", sums_width)];
                self.draw(2, &self.offsets[l], &[coarser.texture, sums], &ints);
            }
            let total = self.sums.last().unwrap();
            let textures = [
                self.offsets[0].texture,
                total.texture,
                self.candidates[0],
                self.candidates[1],
            ];
            let ints = [
                ("offsets_width", self.offsets[0].width),
                ("candidates_width", self.side),
                ("elements", n),
            ];
            self.draw(3, &self.output, &textures, &ints);
            let mut texel = [0.0f32; 1];
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(total.framebuffer));
            gl.read_pixels(
                0,
                0,
                1,
                1,
                glow::RED,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(&mut texel))),
            );
            texel[0] as usize
        }
    }

    /// The packed stream's first `len` floats.
    pub fn packed(&self, len: usize) -> Vec<f32> {
        let gl = self.gl;
        let mut out = vec![0.0f32; (self.output.width * self.output.height) as usize];
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.output.framebuffer));
            gl.read_pixels(
                0,
                0,
                self.output.width,
                self.output.height,
                glow::RED,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(&mut out))),
            );
        }
        out.truncate(len);
        out
    }
}

impl Drop for HandVout<'_> {
    fn drop(&mut self) {
        let gl = self.gl;
        unsafe {
            for l in self.sums.iter().chain(&self.offsets).chain([&self.output]) {
                gl.delete_framebuffer(l.framebuffer);
                gl.delete_texture(l.texture);
            }
            gl.delete_framebuffer(self.candidates_fb);
            for t in self.candidates.iter().chain([&self.input]) {
                gl.delete_texture(*t);
            }
            for p in self.programs {
                gl.delete_program(p);
            }
            gl.delete_vertex_array(self.vao);
        }
    }
}
