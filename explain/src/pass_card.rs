//! One pass of a card: its draw, state, uniforms, shader (shown once per site, linked after)
//! and the pictures of every texture it binds.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use brook_core::quoted_source_line;
use brook_core::{Blend, Depth, Draw, PassTrace, ShaderSource};

use crate::assets::{image, Assets, Image};
use crate::camera::{Shot, Snap};
use crate::highlight::highlight;
use crate::picture::Picture;
use crate::scatter_points::scatter_points;

pub struct PassCard {
    pub number: usize,
    pub label: String,
    /// (what, value): draw kind, viewport, blending, depth, time.
    pub facts: Vec<(String, String)>,
    pub uniforms: Vec<(String, String)>,
    pub shader: Option<Shader>,
    pub inputs: Vec<Binding>,
    pub targets: Vec<Binding>,
    /// A depth-tested pass's write mask: the depth texture's on and off elements.
    pub mask: Option<Image>,
}

pub struct Shader {
    /// The anchor of the shader's first showing.
    pub anchor: String,
    /// Whether this pass shows it (false: an earlier pass did; the page links there).
    pub first: bool,
    pub stages: Vec<Stage>,
}

pub struct Stage {
    pub name: &'static str,
    pub lines: Vec<GlslLine>,
}

pub struct GlslLine {
    /// The line as coloured, escaped HTML.
    pub html: String,
    /// A quoted Brook line (`// file.br:LINE: text`), highlighted.
    pub quote: bool,
}

/// A texture bound to one unit or draw buffer.
pub struct Binding {
    /// `texture unit 0` / `draw buffer 1`.
    pub slot: String,
    /// The sampler or what the target holds.
    pub name: String,
    pub texture: u32,
    pub before: Option<Image>,
    pub after: Option<Image>,
    /// Why a picture is missing (a read that failed).
    pub problem: Option<String>,
}

/// The card of `pass`, with `mask` (the write mask last set) beside its targets when it
/// tests the depth buffer.
pub fn pass_card(
    number: usize,
    pass: &PassTrace,
    shot: Option<&Shot>,
    mask: Option<&Picture>,
    shown: &mut HashSet<u64>,
    assets: &mut Assets,
) -> PassCard {
    let mut facts = vec![("draw".to_string(), draw(pass.draw))];
    let [x, y, w, h] = pass.viewport;
    facts.push(("viewport".into(), format!("({x}, {y}) {w}×{h} texels")));
    if let Some(blend) = pass.blend {
        facts.push((
            "blending".into(),
            match blend {
                Blend::Add => "add (ONE, ONE)",
                Blend::Min => "min",
                Blend::Max => "max",
            }
            .into(),
        ));
    }
    match pass.depth {
        Some(Depth::Tested { texture }) => facts.push((
            "depth".into(),
            format!("tested against the write mask (depth texture {texture}): masked-off texels keep their values"),
        )),
        Some(Depth::Written { texture }) => facts.push((
            "depth".into(),
            format!("writes the write mask into depth texture {texture}"),
        )),
        None => {}
    }
    if pass.counted {
        facts.push(("query".into(), "samples counted by the write query".into()));
    }
    if pass.discards_outside_domain {
        facts.push((
            "domain".into(),
            "texels outside the domain are discarded".into(),
        ));
    }
    if let Some(shot) = shot {
        facts.push(("time".into(), pass_time(shot)));
    }
    let shader = pass.program.as_ref().map(|p| {
        let mut h = DefaultHasher::new();
        p.source.to_string().hash(&mut h);
        let key = h.finish();
        Shader {
            anchor: format!("shader-{key:016x}"),
            first: shown.insert(key),
            stages: stages(&p.source),
        }
    });
    let mut picture = |snap: Option<&Snap>| -> (Option<Image>, Option<String>) {
        match snap {
            None => (None, None),
            Some(Ok(p)) => (Some(image(p, assets)), None),
            Some(Err(e)) => (None, Some(format!("could not be read: {e}"))),
        }
    };
    let inputs = pass
        .inputs
        .iter()
        .enumerate()
        .map(|(k, (name, texture))| {
            let (before, problem) = picture(shot.and_then(|s| s.inputs.get(k)));
            Binding {
                slot: match pass.draw {
                    Draw::Copy => "source".into(),
                    _ => format!("texture unit {k}"),
                },
                name: name.clone(),
                texture: *texture,
                before,
                after: None,
                problem,
            }
        })
        .collect();
    let mut targets: Vec<Binding> = pass
        .targets
        .iter()
        .enumerate()
        .map(|(k, (name, texture))| {
            let (before, p1) = picture(shot.and_then(|s| s.before.get(k)));
            let (after, p2) = picture(shot.and_then(|s| s.after.get(k)));
            Binding {
                slot: format!("draw buffer {k}"),
                name: name.clone(),
                texture: *texture,
                before,
                after,
                problem: p1.or(p2),
            }
        })
        .collect();
    if let (
        Some(shot),
        Some(Binding {
            after: Some(img), ..
        }),
    ) = (shot, targets.first_mut())
    {
        let (w, h) = (img.texels.0 as f32, img.texels.1 as f32);
        img.points = scatter_points(pass, shot)
            .into_iter()
            .map(|(x, y)| ((x as f32 + 0.5) / w * 100.0, (y as f32 + 0.5) / h * 100.0))
            .collect();
    }
    PassCard {
        mask: mask
            .filter(|_| matches!(pass.depth, Some(Depth::Tested { .. })))
            .map(|m| {
                let mut img = image(m, assets);
                img.caption = format!(
                    "the write mask in the depth buffer: {}×{} elements, white ones are written, \
                     the others fail the depth test",
                    m.width, m.height
                );
                img
            }),
        number,
        label: pass.label.clone(),
        facts,
        uniforms: pass
            .uniforms
            .iter()
            .map(|(n, v)| (n.clone(), v.to_string()))
            .collect(),
        shader,
        inputs,
        targets,
    }
}

fn draw(draw: Draw) -> String {
    match draw {
        Draw::CoveringTriangle => {
            "one triangle covering the viewport: one fragment per output texel".into()
        }
        Draw::Points { first, count } => format!(
            "points {first}..{}: each placed by the vertex shader at its destination texel",
            first + count
        ),
        Draw::Dispatch {
            workgroups: [a, b, c],
        } => {
            format!("compute dispatch of {a}×{b}×{c} workgroups")
        }
        Draw::Copy => "a copy of the source texture (no program)".into(),
        Draw::Clear => "the target set to zero (no program)".into(),
    }
}

fn stages(source: &ShaderSource) -> Vec<Stage> {
    let stage = |name, text: &str| Stage {
        name,
        lines: text
            .lines()
            .zip(highlight(text.lines()))
            .map(|(l, html)| GlslLine {
                html,
                quote: quoted_source_line(l).is_some(),
            })
            .collect(),
    };
    match source {
        ShaderSource::Raster { vertex, fragment } => {
            vec![
                stage("fragment shader", fragment),
                stage("vertex shader", vertex),
            ]
        }
        ShaderSource::Compute(text) => vec![stage("compute shader", text)],
    }
}

/// A pass's time as its card states it: the execution, and apart from it the warm-up draw
/// (the driver's compile at a program's first draw) where the backend ran one.
fn pass_time(shot: &Shot) -> String {
    match shot.warm_up {
        Some(warm) => format!(
            "{:.3?} (drawn after a warm-up draw that wrote nothing and took {warm:.3?}, the driver's compile included)",
            shot.elapsed
        ),
        None => format!("{:.3?}", shot.elapsed),
    }
}
