//! The GLSL of viz's views. Each shader maps a pixel (or a vertex) to an element's linear
//! index and fetches its texel through `brook_texel_at`, the layout rule's helper the
//! generated kernels, scatters and scans call too (`brook::glsl::layout_helpers`), so
//! address-translated streams display like direct ones and a change of layout reaches viz.

use std::rc::Rc;

use brook::texture_streams::{GlContext, Profile};

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

pub(crate) const FLAT_FRAGMENT: &str = "
uniform vec4 u_colour;
out vec4 colour;
void main() { colour = u_colour; }
";

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
