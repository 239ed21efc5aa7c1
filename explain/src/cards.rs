//! The page model: one [`Card`] per trace entry, in program order, each pass with its
//! shader, state and pictures ([`crate::pass_card`]). Plain data the template prints.

use std::collections::HashSet;
use std::time::Duration;

use brook_core::{CallTrace, PassTrace, SourceText, TraceEntry};

use crate::assets::{Assets, Image};
use crate::brook_source::{call_sites, excerpt, SourceLine};
use crate::error::ExplainError;
use crate::outcome::Sampled;
use crate::pass_card::{pass_card, PassCard};
use crate::picture::{Picture, MASK_OFF, MASK_ON};
use crate::recording::Recording;
use crate::results::{result_rows, ResultRow};

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
    /// The streams the operation wrote, per backend (on an operation's first card).
    pub results: Vec<ResultRow>,
    /// Elements that differ between backends beyond the tolerance.
    pub differing: usize,
}

/// One trace entry as the timeline lists it, with or without a card.
#[derive(Clone)]
pub struct Outline {
    pub index: usize,
    pub title: String,
    pub passes: usize,
    pub time: String,
    pub differing: usize,
    /// Whether the page has its card.
    pub drawn: bool,
}

pub struct Rung {
    pub label: String,
    pub image: Image,
}

/// The cards of a run: one per trace entry of `recordings[0]` (the primary backend), each
/// pass paired with its shot (when there are shots), and each operation's first card with
/// the streams it wrote on every backend side by side. Entries in the middle of a long group
/// ([`crate::timeline`]) get no card: the timeline lists them.
pub fn cards(
    recordings: &[Recording],
    sources: &[SourceText],
    drawn: &[bool],
    assets: &mut Assets,
) -> Result<(Vec<Card>, Vec<Outline>), ExplainError> {
    let Some(primary) = recordings.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let (trace, shots) = (&primary.trace, &primary.shots);
    let passes: usize = trace.iter().map(|e| e.passes().len()).sum();
    if !shots.is_empty() && shots.len() != passes {
        return Err(ExplainError::Mismatch(format!(
            "{} passes photographed for {passes} passes traced",
            shots.len()
        )));
    }
    let recorded: usize = primary.operations.iter().map(|o| o.entries).sum();
    if recorded > trace.len() {
        return Err(ExplainError::Mismatch(format!(
            "{recorded} trace entries reported by operations, {} traced",
            trace.len()
        )));
    }
    // Entry → the operation it starts, if it is an operation's first entry.
    let mut starts = vec![None; trace.len()];
    let mut at = 0;
    for (k, op) in primary.operations.iter().enumerate() {
        if op.entries > 0 {
            starts[at] = Some(k);
        }
        at += op.entries;
    }
    // Operation → the number of its first card, when the page draws it.
    let mut first_card = vec![None; primary.operations.len()];
    for (index, op) in starts.iter().enumerate() {
        if let Some(op) = op {
            first_card[*op] = drawn
                .get(index)
                .copied()
                .unwrap_or(true)
                .then_some(index + 1);
        }
    }
    let card_of = |op: usize| first_card.get(op).copied().flatten();
    let names: Vec<&str> = recordings.iter().map(|r| r.name.as_str()).collect();
    let mut shots = shots.iter();
    let mut shown = HashSet::new();
    let mut cards = Vec::new();
    let mut outline = Vec::new();
    // The write mask last set, for the depth-tested passes after it.
    let mut mask = None;
    for (index, entry) in trace.iter().enumerate() {
        let mut card = heading(index + 1, entry, sources);
        if let (TraceEntry::WriteMask(_), Some(op)) = (entry, starts[index]) {
            mask = primary.operations[op]
                .outcomes
                .first()
                .and_then(|o| o.sampled.as_ref().ok())
                .and_then(mask_picture);
        }
        let draw = drawn.get(index).copied().unwrap_or(true);
        let mut total = Duration::ZERO;
        let mut warm_ups = Duration::ZERO;
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
                warm_ups += shot.warm_up.unwrap_or_default();
            }
            if draw {
                card.passes.push(pass_card(
                    k + 1,
                    pass,
                    shot,
                    mask.as_ref(),
                    &mut shown,
                    assets,
                ));
            }
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
            if warm_ups > Duration::ZERO {
                card.time += &format!(" (warm-up draws, compile included: {warm_ups:.2?})");
            }
        }
        let mut differing = 0;
        if let Some(op) = starts[index] {
            let per_backend: Vec<_> = recordings
                .iter()
                .map(|r| r.operations.get(op).map(|o| o.outcomes.as_slice()))
                .collect();
            // An operation without a card is still compared (the timeline marks it), its
            // pictures kept out of the site.
            let mut scratch = Assets::default();
            let into = if draw { &mut *assets } else { &mut scratch };
            let (rows, differ) = result_rows(&names, &per_backend, &card_of, into);
            differing = differ;
            if draw {
                card.results = rows;
            }
        }
        card.differing = differing;
        outline.push(Outline {
            index: card.index,
            title: card.title.clone(),
            passes: entry.passes().len(),
            time: card.time.clone(),
            differing,
            drawn: draw,
        });
        if draw {
            cards.push(card);
        }
    }
    Ok((cards, outline))
}

/// A write mask as its depth buffer holds it: on where the element's first float is non-zero.
fn mask_picture(mask: &Sampled) -> Option<Picture> {
    let per = usize::from(mask.components).max(1);
    let on: Vec<bool> = mask.values.chunks(per).map(|e| e[0] != 0.0).collect();
    Picture::of_flags(mask.width, mask.height, mask.step, &on, (MASK_ON, MASK_OFF)).ok()
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
        results: Vec::new(),
        differing: 0,
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
            card.summary = if first.is_empty() {
                "no pass: the two streams exchanged their storage".into()
            } else {
                format!(
                    "no pass: the two streams exchanged their textures {first:?} and {second:?}"
                )
            };
        }
        other => {
            card.kind = "other";
            card.title = other.to_string().lines().next().unwrap_or("").to_string();
        }
    }
    card
}
