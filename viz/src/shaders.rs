//! The shaders of viz's views, in GLSL (GL streams, drawn from their textures) and WGSL (wgpu
//! streams, drawn from their storage buffers), side by side: the two languages cannot share
//! source, so each GLSL shader has its WGSL twin right below it, statement for statement, and
//! `tests/wgpu_views.rs` pins the pair equal (every view kind and colour map drawn both ways,
//! pixel for pixel). What the views share beyond the per-pixel arithmetic — the colour maps'
//! stops, the ranges, the content rectangle — is computed once on the host and passed in.
//!
//! The GLSL fetches an element's texel through `brook_texel_at`, the layout rule's helper the
//! generated kernels, scatters and scans call too (`brook::glsl::layout_helpers`), so
//! address-translated streams display like direct ones and a change of layout reaches viz.
//! The WGSL reads the buffer in C order (`element`), as the wgpu backend stores streams.

use std::rc::Rc;

use brook::texture_streams::{GlContext, Profile};

use crate::view::{View, ViewKind};

/// Image views: one triangle over the viewport (the kernels' own vertex shader), and a
/// fragment shader that finds the element under each pixel of the content rectangle.
pub(crate) const IMAGE_FRAGMENT: &str = "
uniform sampler2D u_tex;
uniform int u_mode;          // 0 scalar, 1 vector, 2 rgb, 3 rgba
uniform int u_component;
uniform vec2 u_range;        // the values mapped to 0 and 1
uniform vec3 u_stops[16];    // the colour map, evenly spaced
uniform int u_stop_count;
uniform vec4 u_rect;         // content rectangle in framebuffer pixels: x, y, width, height
uniform ivec2 u_grid;        // elements shown per row (the last extent), rows
uniform int u_width;         // the texture's width W
uniform vec3 u_background;
out vec4 colour;

vec3 colormap(float t) {
    float s = clamp(t, 0.0, 1.0) * float(u_stop_count - 1);
    int i = min(int(floor(s)), u_stop_count - 2);
    return mix(u_stops[i], u_stops[i + 1], s - float(i));
}

vec3 hsv(float h, float s, float v) {
    vec3 k = clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
    return v * mix(vec3(1.0), k, s);
}

void main() {
    vec2 p = (gl_FragCoord.xy - u_rect.xy) / u_rect.zw;
    if (p.x < 0.0 || p.y < 0.0 || p.x >= 1.0 || p.y >= 1.0) {
        colour = vec4(u_background, 1.0);
        return;
    }
    // Row 0 at the top, like the array printed row by row.
    int column = min(int(p.x * float(u_grid.x)), u_grid.x - 1);
    int row = min(int((1.0 - p.y) * float(u_grid.y)), u_grid.y - 1);
    int linear = row * u_grid.x + column;
    vec4 v = texelFetch(u_tex, brook_texel_at(linear, u_width), 0);
    vec3 rgb;
    if (u_mode == 0) {
        float x = v[u_component];
        rgb = (isnan(x) || isinf(x)) ? vec3(1.0, 0.0, 1.0)
                                     : colormap((x - u_range.x) / (u_range.y - u_range.x));
    } else if (u_mode == 1) {
        float turn = atan(v.y, v.x) / 6.28318530718;
        rgb = hsv(fract(turn + 1.0), 1.0, clamp(length(v.xy) / u_range.y, 0.0, 1.0));
    } else if (u_mode == 2) {
        rgb = clamp(v.rgb, 0.0, 1.0);
    } else {
        ivec2 cell = ivec2(gl_FragCoord.xy) / 8;
        float checker = (cell.x + cell.y) % 2 == 0 ? 0.4 : 0.6;
        rgb = mix(vec3(checker), clamp(v.rgb, 0.0, 1.0), clamp(v.a, 0.0, 1.0));
    }
    colour = vec4(rgb, 1.0);
}
";

/// [`IMAGE_FRAGMENT`] for a wgpu stream: `element` replaces the texel fetch, and `frame` turns
/// wgpu's top-down `@builtin(position)` in a target of `frame.z` rows placed at `frame.xy` into
/// GL's bottom-up `gl_FragCoord`, so the rectangle, the rows and the checkerboard are those
/// of the GL view. WGSL has no `isnan`/`isinf` (`special` tests the exponent bits) and its
/// `%` truncates (`modulo` is GLSL's `mod`).
pub(crate) const IMAGE_WGSL: &str = "
struct Image {
    rect: vec4<f32>,
    range: vec2<f32>,
    grid: vec2<i32>,
    background: vec4<f32>,
    mode: i32,
    component: i32,
    stop_count: i32,
    pad: i32,
    fetch: vec4<i32>,
    frame: vec4<f32>,
    stops: array<vec4<f32>, 16>,
}
@group(0) @binding(1) var<uniform> u: Image;

fn colormap(t: f32) -> vec3<f32> {
    let s = clamp(t, 0.0, 1.0) * f32(u.stop_count - 1);
    let i = min(i32(floor(s)), u.stop_count - 2);
    return mix(u.stops[i].xyz, u.stops[i + 1].xyz, s - f32(i));
}

fn modulo(x: vec3<f32>, y: f32) -> vec3<f32> {
    return x - y * floor(x / y);
}

fn hsv(h: f32, s: f32, v: f32) -> vec3<f32> {
    let k = clamp(abs(modulo(h * 6.0 + vec3<f32>(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0,
                  vec3<f32>(0.0), vec3<f32>(1.0));
    return v * mix(vec3<f32>(1.0), k, s);
}

fn special(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;
}

@fragment fn image(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let frag = u.frame.xy + vec2<f32>(position.x, u.frame.z - position.y);
    let p = (frag - u.rect.xy) / u.rect.zw;
    if (p.x < 0.0 || p.y < 0.0 || p.x >= 1.0 || p.y >= 1.0) {
        return vec4<f32>(u.background.xyz, 1.0);
    }
    let column = min(i32(p.x * f32(u.grid.x)), u.grid.x - 1);
    let row = min(i32((1.0 - p.y) * f32(u.grid.y)), u.grid.y - 1);
    let linear = row * u.grid.x + column;
    let v = element(linear, u.fetch);
    var rgb: vec3<f32>;
    if (u.mode == 0) {
        let x = v[u.component];
        if (special(x)) {
            rgb = vec3<f32>(1.0, 0.0, 1.0);
        } else {
            rgb = colormap((x - u.range.x) / (u.range.y - u.range.x));
        }
    } else if (u.mode == 1) {
        let turn = atan2(v.y, v.x) / 6.28318530718;
        rgb = hsv(fract(turn + 1.0), 1.0, clamp(length(v.xy) / u.range.y, 0.0, 1.0));
    } else if (u.mode == 2) {
        rgb = clamp(v.xyz, vec3<f32>(0.0), vec3<f32>(1.0));
    } else {
        let cell = vec2<i32>(frag) / 8;
        let checker = select(0.6, 0.4, (cell.x + cell.y) % 2 == 0);
        rgb = mix(vec3<f32>(checker), clamp(v.xyz, vec3<f32>(0.0), vec3<f32>(1.0)),
                  clamp(v.w, 0.0, 1.0));
    }
    return vec4<f32>(rgb, 1.0);
}
";

/// Plots and points: one vertex per element, fetched in the vertex shader (no vertex buffer;
/// the vertex id is the element's linear index), drawn as a line strip or as points.
pub(crate) const ELEMENT_VERTEX: &str = "
uniform sampler2D u_tex;
uniform int u_mode;          // 0 plot: (index, component); 1 points: (.x, .y)
uniform int u_component;
uniform int u_width;
uniform int u_count;
uniform vec4 u_rect;
uniform vec2 u_viewport;
uniform vec4 u_bounds;       // x lo, x hi, y lo, y hi
uniform float u_point_size;

void main() {
    int linear = gl_VertexID;
    vec4 v = texelFetch(u_tex, brook_texel_at(linear, u_width), 0);
    vec2 q = u_mode == 0
        ? vec2((float(linear) + 0.5) / float(u_count), v[u_component])
        : v.xy;
    if (u_mode == 1) {
        q.x = (q.x - u_bounds.x) / (u_bounds.y - u_bounds.x);
    }
    q.y = (q.y - u_bounds.z) / (u_bounds.w - u_bounds.z);
    vec2 pixel = u_rect.xy + q * u_rect.zw;
    gl_Position = vec4(pixel / u_viewport * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = u_point_size;
}
";

/// [`ELEMENT_VERTEX`] for a wgpu stream. WGSL has no point size: a point is two triangles
/// (six vertices) covering the square GL rasterises for `gl_PointSize`. The target is the
/// area at `origin` (GL pixels), `viewport` pixels, of a framebuffer of `window.xy` pixels.
pub(crate) const ELEMENT_WGSL: &str = "
struct Elements {
    rect: vec4<f32>,
    bounds: vec4<f32>,
    colour: vec4<f32>,
    viewport: vec2<f32>,
    origin: vec2<f32>,
    mode: i32,
    component: i32,
    count: i32,
    point_size: f32,
    fetch: vec4<i32>,
    window: vec4<f32>,
}
@group(0) @binding(1) var<uniform> e: Elements;

var<private> corners: array<vec2<f32>, 6> = array<vec2<f32>, 6>(
    vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
    vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
);

@vertex fn elements(@builtin(vertex_index) id: u32) -> @builtin(position) vec4<f32> {
    var linear = i32(id);
    var corner = vec2<f32>(0.0);
    if (e.mode == 1) {
        linear = i32(id / 6u);
        // GL's point keeps the pixels whose centres lie on its lower edge and drops those on
        // its upper edge; wgpu's triangles do the opposite (their y runs down): a shift down
        // by one sub-pixel step (1/256) makes the triangles' choice GL's.
        corner = corners[id % 6u] * (e.point_size * 0.5) - vec2<f32>(0.0, 1.0 / 256.0);
    }
    let v = element(linear, e.fetch);
    var q: vec2<f32>;
    if (e.mode == 0) {
        q = vec2<f32>((f32(linear) + 0.5) / f32(e.count), v[e.component]);
    } else {
        q = v.xy;
        q.x = (q.x - e.bounds.x) / (e.bounds.y - e.bounds.x);
    }
    q.y = (q.y - e.bounds.z) / (e.bounds.w - e.bounds.z);
    let centre = e.rect.xy + q * e.rect.zw;
    // GL drops a point whose centre is outside the viewport (`window.xy`, the whole
    // framebuffer), even where its square would reach in.
    let outside = any(centre < vec2<f32>(0.0)) || any(centre > e.window.xy);
    if (e.mode == 1 && outside) {
        return vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    let pixel = centre - e.origin + corner;
    return vec4<f32>(pixel / e.viewport * 2.0 - 1.0, 0.0, 1.0);
}

@fragment fn flat() -> @location(0) vec4<f32> {
    return e.colour;
}
";

pub(crate) const FLAT_FRAGMENT: &str = "
uniform vec4 u_colour;
out vec4 colour;
void main() { colour = u_colour; }
";

/// What every WGSL view reads: the stream's buffer, and element `linear`'s member as a
/// `vec4` the way `texelFetch` returns a texel of `fetch.z` channels (missing ones 0, alpha 1);
/// `fetch` is (floats per element, the member's offset, its components, unused).
pub(crate) const ELEMENT_FETCH_WGSL: &str = "
@group(0) @binding(0) var<storage, read> floats: array<f32>;

fn element(linear: i32, fetch: vec4<i32>) -> vec4<f32> {
    var v = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    let base = linear * fetch.x + fetch.y;
    for (var c = 0; c < fetch.z; c++) {
        v[c] = floats[base + c];
    }
    return v;
}
";

/// One triangle over the target (the WGSL of `brook::glsl::vertex_shader`), for image views
/// and fills.
pub(crate) const FULLSCREEN_WGSL: &str = "
@vertex fn fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}
";

/// The fill of a rectangle (the scissor's) with one colour: the WGSL of the GL renderer's
/// scissored clears.
pub(crate) const FILL_WGSL: &str = "
@group(0) @binding(0) var<uniform> fill_colour: vec4<f32>;

@fragment fn fill() -> @location(0) vec4<f32> {
    return fill_colour;
}
";

/// What the image shaders' `mode` is for an image view (0 scalar, 1 vector, 2 RGB, 3 RGBA),
/// and the colour map's stops of a scalar view.
pub(crate) fn image_mode(view: &View) -> (i32, Vec<[f32; 3]>) {
    match view.kind {
        ViewKind::Scalar { map, .. } => (0, map.stops_f32()),
        ViewKind::Vector { .. } => (1, Vec::new()),
        ViewKind::Rgb => (2, Vec::new()),
        _ => (3, Vec::new()),
    }
}

/// The kernels' vertex shader for this context: one triangle over the viewport.
pub(crate) fn fullscreen_vertex(ctx: &Rc<GlContext>) -> String {
    brook::glsl::vertex_shader(match ctx.profile() {
        Profile::Gl33Core => brook::glsl::Profile::Gl33Core,
        Profile::Es30 => brook::glsl::Profile::Es30,
    })
}

/// `body` with the context's `#version` header and the layout rule's helpers.
pub(crate) fn with_header(ctx: &Rc<GlContext>, body: &str) -> String {
    format!(
        "{}{}{body}",
        ctx.glsl_header(),
        brook::glsl::layout_helpers()
    )
}
