//! The page model: one [`Card`] per trace entry, in program order, each pass with its
//! shader, state and pictures ([`crate::pass_card`]). Plain data the template prints.

use std::collections::HashSet;
use std::time::Duration;

use brook_core::{CallTrace, PassTrace, SourceText, TraceEntry};

use crate::assets::{Assets, Image};
use crate::brook_source::{call_sites, excerpt, SourceLine};
use crate::camera::Shot;
use crate::error::ExplainError;
use crate::pass_card::{pass_card, PassCard};

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

pub struct Rung {
    pub label: String,
    pub image: Image,
}

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
