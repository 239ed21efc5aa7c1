//! The ray tracer by hand: the same three passes in GLSL — rays into two textures, the
//! nearest hit over every triangle fetched from a `3 × count` vertex texture, then shading.

use super::scene::{Camera, Scene};
use super::Compared;
use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

const SETUP: &str = "
uniform vec4 eye;
uniform vec4 corner;
uniform vec4 dx;
uniform vec4 dy;
layout(location = 0) out vec4 o;
layout(location = 1) out vec4 d;
void main() {
    o = eye;
    d = vec4(normalize(corner.xyz + gl_FragCoord.x * dx.xyz + gl_FragCoord.y * dy.xyz), 0.0);
}
";

const INTERSECT: &str = "
uniform sampler2D origins;
uniform sampler2D directions;
uniform sampler2D tris;
uniform int count;
out vec4 hit;
void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    vec3 o = texelFetch(origins, at, 0).xyz;
    vec3 d = texelFetch(directions, at, 0).xyz;
    float best = 0.0;
    int id = -1;
    for (int i = 0; i < count; i++) {
        vec3 v0 = texelFetch(tris, ivec2(0, i), 0).xyz;
        vec3 edge1 = texelFetch(tris, ivec2(1, i), 0).xyz - v0;
        vec3 edge2 = texelFetch(tris, ivec2(2, i), 0).xyz - v0;
        vec3 pvec = cross(d, edge2);
        float inv_det = 1.0 / dot(edge1, pvec);
        vec3 tvec = o - v0;
        float u = dot(tvec, pvec) * inv_det;
        vec3 qvec = cross(tvec, edge1);
        float v = dot(d, qvec) * inv_det;
        float t = dot(edge2, qvec) * inv_det;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0 && (id < 0 || t < best)) {
            best = t;
            id = i;
        }
    }
    hit = vec4(best, float(id), 0.0, 0.0);
}
";

const SHADE: &str = "
uniform sampler2D origins;
uniform sampler2D directions;
uniform sampler2D hits;
uniform sampler2D tris;
uniform vec4 light;
out vec4 colour;
void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    vec4 hit = texelFetch(hits, at, 0);
    colour = vec4(0.0, -1.0, 0.0, 0.0);
    if (hit.y >= 0.0) {
        int id = int(hit.y);
        vec3 o = texelFetch(origins, at, 0).xyz;
        vec3 d = texelFetch(directions, at, 0).xyz;
        vec3 v0 = texelFetch(tris, ivec2(0, id), 0).xyz;
        vec3 n = normalize(cross(texelFetch(tris, ivec2(1, id), 0).xyz - v0,
                                 texelFetch(tris, ivec2(2, id), 0).xyz - v0));
        if (dot(n, d) > 0.0) {
            n = -n;
        }
        vec3 l = normalize(light.xyz - (o + hit.x * d));
        colour = vec4(hit.x, hit.y, 0.1 + 0.9 * max(dot(n, l), 0.0), 0.0);
    }
}
";

pub struct HandRay<'a> {
    env: &'a Env,
    shaders: [Shader; 3],
    camera: [[f32; 4]; 4],
    light: [f32; 4],
    count: usize,
    vertices: Vec<f32>,
    /// Vertices; ray origins and directions; hits; the shaded image.
    tris: Texture,
    rays: [Texture; 2],
    hits: Texture,
    colours: Texture,
    compared: Compared,
}

/// `v` as a `vec4` uniform.
fn vec4([x, y, z]: [f32; 3]) -> [f32; 4] {
    [x, y, z, 0.0]
}

impl<'a> HandRay<'a> {
    pub fn new(
        env: &'a Env,
        scene: &Scene,
        camera: &Camera,
        compared: Compared,
    ) -> Result<Self, AppError> {
        let ctx = &env.context;
        let (w, h) = (camera.width, camera.height);
        let count = scene.triangles.len();
        let image = || glkit::texture(ctx, w, h, 4, None);
        Ok(HandRay {
            env,
            shaders: [
                Shader::fragment(ctx, SETUP)?,
                Shader::fragment(ctx, INTERSECT)?,
                Shader::fragment(ctx, SHADE)?,
            ],
            camera: [camera.eye, camera.corner, camera.dx, camera.dy].map(vec4),
            light: vec4(scene.light),
            count,
            vertices: scene
                .triangles
                .iter()
                .flatten()
                .flat_map(|&v| vec4(v))
                .collect(),
            tris: glkit::texture(ctx, 3, count, 4, None)?,
            rays: [image()?, image()?],
            hits: image()?,
            colours: image()?,
            compared,
        })
    }
}

impl Variant for HandRay<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(self.tris.upload(glkit::whole(&self.tris), &self.vertices)?)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let [setup, intersect, shade] = &self.shaders;
        let [eye, corner, dx, dy] = self.camera;
        let [o, d] = &self.rays;
        Draw {
            shader: setup,
            samplers: &[],
            uniforms: &[
                ("eye", Uniform::Vec4(eye)),
                ("corner", Uniform::Vec4(corner)),
                ("dx", Uniform::Vec4(dx)),
                ("dy", Uniform::Vec4(dy)),
            ],
            targets: &[o, d],
            viewport: None,
        }
        .cover()?;
        Draw {
            shader: intersect,
            samplers: &[("origins", o), ("directions", d), ("tris", &self.tris)],
            uniforms: &[("count", Uniform::Int(self.count as i32))],
            targets: &[&self.hits],
            viewport: None,
        }
        .cover()?;
        Draw {
            shader: shade,
            samplers: &[
                ("origins", o),
                ("directions", d),
                ("hits", &self.hits),
                ("tris", &self.tris),
            ],
            uniforms: &[("light", Uniform::Vec4(self.light))],
            targets: &[&self.colours],
            viewport: None,
        }
        .cover()
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "Ray")?;
        self.compared.pick(&glkit::read(&self.colours)?)
    }
}
