//! The page model: one [`Card`] per trace entry, in program order, each pass with its
//! shader, state and pictures. Plain data the template prints; every picture is named by the
//! hash of its PNG, so a texture that did not change between passes is stored once.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::time::Duration;

use brook_core::{Blend, CallTrace, Depth, Draw, PassTrace, ShaderSource, SourceText, TraceEntry};
use brook_glsl::quoted_source_line;

use crate::camera::{Shot, Snap};
use crate::error::ExplainError;
use crate::picture::Picture;

/// The files a page refers to: PNGs and the values under the pointer, by name.
#[derive(Default)]
pub struct Assets {
    /// `images/NAME.png` → its bytes.
    pub images: BTreeMap<String, Vec<u8>>,
    /// Picture name → its values, as a JavaScript array literal.
    pub values: BTreeMap<String, String>,
}

pub struct Card {
    pub index: usize,
    /// `kernel`, `reduction`, `scatter`, `gather-op`, `write mask`, `vout`, `swap`.
    pub kind: &'static str,
    pub title: String,
    /// One line: variant, compile or cache, counts.
    pub summary: String,
    pub source: Vec<SourceLine>,
    /// Where the source shown comes from (`file.br:LINE`).
    pub source_at: String,
    pub notes: Vec<String>,
    pub passes: Vec<PassCard>,
    /// A reduction's or a vout's levels: the first target of each pass after it ran.
    pub ladder: Vec<Rung>,
    pub time: String,
}

pub struct SourceLine {
    pub number: usize,
    pub text: String,
}

pub struct PassCard {
    pub number: usize,
    pub label: String,
    /// (what, value): draw kind, viewport, blending, depth, time.
    pub facts: Vec<(String, String)>,
    pub uniforms: Vec<(String, String)>,
    pub shader: Option<Shader>,
    pub inputs: Vec<Binding>,
    pub targets: Vec<Binding>,
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
    pub text: String,
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

#[derive(Clone)]
pub struct Image {
    /// The picture's file and value-table name.
    pub name: String,
    pub texels: (u32, u32),
    pub shown: (u32, u32),
    pub step: u32,
    pub components: u8,
    /// The size drawn in the page, in CSS pixels.
    pub display: (u32, u32),
    pub caption: String,
    /// Whether the page holds its values (for the value under the pointer).
    pub probed: bool,
    /// For a small texture, the linear element index `L` of each texel, row by row: the
    /// address translation `L → (L mod W, L div W)` drawn over the picture (empty: none).
    pub elements: Vec<u32>,
}

pub struct Rung {
    pub label: String,
    pub image: Image,
}

/// The longest side of a picture on the page, in CSS pixels.
const DISPLAY_SIDE: u32 = 160;

/// Textures of at most this many texels are drawn with each texel's element index.
const MAX_NUMBERED: u32 = 256;

/// The cards of `trace`, pairing each pass with its shot (when there are shots).
pub fn cards(
    trace: &[TraceEntry],
    shots: &[Shot],
    sources: &[SourceText],
    assets: &mut Assets,
) -> Result<Vec<Card>, ExplainError> {
    let passes: usize = trace.iter().map(|e| e.passes().len()).sum();
    if !shots.is_empty() && shots.len() != passes {
        return Err(ExplainError::Mismatch(format!(
            "{} passes photographed for {passes} passes traced",
            shots.len()
        )));
    }
    let mut shots = shots.iter();
    let mut shown = HashSet::new();
    let mut cards = Vec::new();
    for (index, entry) in trace.iter().enumerate() {
        let mut card = heading(index + 1, entry, sources);
        let mut total = Duration::ZERO;
        for (k, pass) in entry.passes().iter().enumerate() {
            let shot = shots.next();
            if let Some(shot) = shot {
                if !same_pass(&shot.pass, pass) {
                    return Err(ExplainError::Mismatch(format!(
                        "card {}: pass `{}` was photographed as `{}`",
                        index + 1,
                        pass.label,
                        shot.pass.label
                    )));
                }
                total += shot.elapsed;
            }
            card.passes
                .push(pass_card(k + 1, pass, shot, &mut shown, assets));
        }
        if matches!(entry, TraceEntry::Reduce(_) | TraceEntry::Vout(_)) {
            card.ladder = card
                .passes
                .iter()
                .filter_map(|p| {
                    let image = p.targets.first()?.after.as_ref()?;
                    Some(Rung {
                        label: p.label.clone(),
                        image: image.clone(),
                    })
                })
                .collect();
        }
        if total > Duration::ZERO {
            card.time = format!("{total:.2?} on the GPU");
        }
        cards.push(card);
    }
    Ok(cards)
}

/// Whether a photographed step is the traced pass (the same label, region and bindings).
fn same_pass(shot: &PassTrace, traced: &PassTrace) -> bool {
    shot.label == traced.label
        && shot.viewport == traced.viewport
        && shot.targets == traced.targets
        && shot.inputs == traced.inputs
}

/// The card's heading, source and notes; passes come after.
fn heading(index: usize, entry: &TraceEntry, sources: &[SourceText]) -> Card {
    let mut card = Card {
        index,
        kind: "",
        title: String::new(),
        summary: String::new(),
        source: Vec::new(),
        source_at: String::new(),
        notes: Vec::new(),
        passes: Vec::new(),
        ladder: Vec::new(),
        time: String::new(),
    };
    let call = |card: &mut Card, kind: &'static str, named: bool, c: &CallTrace| {
        card.kind = kind;
        card.title = if named {
            format!("{kind} `{}`", c.function)
        } else {
            c.function.clone()
        };
        let cache = match c.compiled {
            Some(t) => format!("compiled now, in {t:.1?}"),
            None => "programs from the cache".into(),
        };
        card.summary = format!(
            "{} pass(es) · variant {} · {cache}",
            c.passes.len(),
            c.variant
        );
        for s in &c.scratch {
            card.notes.push(format!(
                "`{}` is read and written: textures {:?} were copied to scratch {:?}, drawn \
                 there, then swapped in",
                s.param, s.old, s.new
            ));
        }
        if let Some(line) = c.source_line {
            excerpt(card, &c.function, line, sources);
            let file = card.source_at.rsplit_once(':').map_or("", |(f, _)| f);
            let calls = call_sites(&c.function, sources, file, &card.source);
            if !calls.is_empty() {
                card.notes.push(format!("called at {}", calls.join(", ")));
            }
        }
    };
    match entry {
        TraceEntry::Kernel(c) => call(&mut card, "kernel", true, c),
        TraceEntry::Reduce(c) => call(&mut card, "reduction", true, c),
        TraceEntry::Scatter(c) => call(&mut card, "scatter", false, c),
        TraceEntry::GatherOp(c) => call(&mut card, "gather-op", false, c),
        TraceEntry::WriteMask(c) => call(&mut card, "write mask", false, c),
        TraceEntry::Vout(v) => {
            card.kind = "vout";
            card.title = format!("vout `{}` of kernel `{}`", v.vout, v.kernel);
            card.summary = format!(
                "{} elements pushed {} values · packed in {} pass(es): a scan pyramid up and \
                 down, then compaction",
                v.elements,
                v.pushed,
                v.passes.len()
            );
        }
        TraceEntry::Swap { first, second } => {
            card.kind = "swap";
            card.title = "streamSwap".into();
            card.summary = format!(
                "no pass: the two streams exchanged their textures {first:?} and {second:?}"
            );
        }
        other => {
            card.kind = "other";
            card.title = other.to_string().lines().next().unwrap_or("").to_string();
        }
    }
    card
}

/// The Brook function `name` defined at `line`: from that line to its closing brace (at most
/// 40 lines), from the source that has it there.
fn excerpt(card: &mut Card, name: &str, line: usize, sources: &[SourceText]) {
    let at = |s: &SourceText| s.text.lines().nth(line.wrapping_sub(1)).map(str::to_string);
    let Some((source, _)) = sources
        .iter()
        .filter_map(|s| at(s).map(|l| (s, l)))
        .find(|(_, l)| l.contains(name))
        .or_else(|| sources.iter().find_map(|s| at(s).map(|l| (s, l))))
    else {
        return;
    };
    card.source_at = format!("{}:{line}", source.name);
    let mut depth = 0i32;
    let mut opened = false;
    for (k, text) in source.text.lines().skip(line - 1).take(40).enumerate() {
        card.source.push(SourceLine {
            number: line + k,
            text: text.to_string(),
        });
        for c in text.chars() {
            match c {
                '{' => (depth, opened) = (depth + 1, true),
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            break;
        }
    }
}

/// `file:LINE` of every line outside the function's own excerpt where `name(` is called:
/// the host code's calls (the trace knows the function, not which call ran).
fn call_sites(
    name: &str,
    sources: &[SourceText],
    own_file: &str,
    own: &[SourceLine],
) -> Vec<String> {
    let own: Vec<usize> = own.iter().map(|l| l.number).collect();
    let called = |text: &str| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].trim_start();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('(')
        })
    };
    sources
        .iter()
        .flat_map(|s| {
            s.text.lines().enumerate().filter_map(move |(k, text)| {
                (called(text) && !text.trim_start().starts_with("//"))
                    .then(|| (s.name.as_str(), k + 1))
            })
        })
        .filter(|(file, line)| *file != own_file || !own.contains(line))
        .map(|(file, line)| format!("{file}:{line}"))
        .collect()
}

fn pass_card(
    number: usize,
    pass: &PassTrace,
    shot: Option<&Shot>,
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
        facts.push(("time".into(), format!("{:.3?}", shot.elapsed)));
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
    let targets = pass
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
    PassCard {
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
            .map(|l| GlslLine {
                text: l.to_string(),
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

/// The page's image of `picture`, its PNG (and values) added to the assets once.
fn image(picture: &Picture, assets: &mut Assets) -> Image {
    // Two textures can look alike (a ramp and twice it) yet hold different values: the
    // name covers what the page says about the picture, not only its pixels.
    let mut h = DefaultHasher::new();
    picture.png.hash(&mut h);
    (picture.width, picture.height, picture.step).hash(&mut h);
    picture
        .range
        .map(|(lo, hi)| (lo.to_bits(), hi.to_bits()))
        .hash(&mut h);
    picture.values.iter().for_each(|v| v.to_bits().hash(&mut h));
    let name = format!("{:016x}", h.finish());
    let probed = !picture.values.is_empty();
    if !assets.images.contains_key(&name) {
        assets.images.insert(name.clone(), picture.png.clone());
        if probed {
            assets
                .values
                .insert(name.clone(), js_array(&picture.values));
        }
    }
    let shown = picture.shown();
    let numbered = picture.step == 1 && shown.0 * shown.1 <= MAX_NUMBERED;
    let texel = (DISPLAY_SIDE as f32 / shown.0.max(shown.1) as f32).clamp(1.0, 24.0);
    let texel = if numbered { texel.max(22.0) } else { texel };
    // A 1D stream is one row: drawn at least a finger tall.
    let display = (
        ((shown.0 as f32 * texel) as u32).max(1),
        ((shown.1 as f32 * texel) as u32).max(12),
    );
    let kind = match picture.components {
        1 => "float".to_string(),
        n => format!("float{n}"),
    };
    let mut caption = format!("{}×{} texels of {kind}", picture.width, picture.height);
    if picture.step > 1 {
        caption += &format!(", one in {} shown each way", picture.step);
    }
    match picture.range {
        Some((lo, hi)) => caption += &format!(" · values {lo} … {hi}"),
        None => caption += " · no finite value",
    }
    if picture.not_finite > 0 {
        caption += &format!(" · {} not finite (magenta)", picture.not_finite);
    }
    Image {
        name,
        texels: (picture.width, picture.height),
        shown,
        step: picture.step,
        components: picture.components,
        display,
        caption,
        probed,
        elements: if numbered {
            (0..shown.0 * shown.1).collect()
        } else {
            Vec::new()
        },
    }
}

/// `[1,2.5,NaN]`, as JavaScript reads it.
fn js_array(values: &[f32]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|v| {
            if v.is_nan() {
                "NaN".into()
            } else if v.is_infinite() {
                if *v > 0.0 { "Infinity" } else { "-Infinity" }.into()
            } else {
                format!("{v}")
            }
        })
        .collect();
    format!("[{}]", items.join(","))
}
