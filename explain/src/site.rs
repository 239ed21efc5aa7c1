//! Writing the site: `index.html`, `images/*.png`, `values.js` and `why.js` (element
//! histories, where the run recorded them) in one directory, every
//! path relative, so it opens from disk with no server and no network.

use std::path::Path;

use askama::Template;

use crate::assets::Assets;
use crate::cards::{cards, Card};
use crate::compare::{ABSOLUTE_TOLERANCE, RELATIVE_TOLERANCE};
use crate::error::ExplainError;
use crate::recording::Recording;
use crate::timeline::{drawn, timeline, Group};
use crate::Options;
use brook_core::SourceText;

/// The page: its heading, the timeline and the cards, printed by `templates/index.html`.
#[derive(Template)]
#[template(path = "index.html")]
struct Page<'a> {
    title: &'a str,
    /// Each backend's description, the primary's first.
    backends: Vec<&'a str>,
    /// The backends' short names, as the results panels head their columns.
    names: Vec<&'a str>,
    cards: &'a [Card],
    groups: &'a [Group],
    /// Trace entries (operations' steps), all of them, with a card or not.
    entries: usize,
    passes: usize,
    /// Whether the passes have pictures (GL) or not (other backends).
    pictures: bool,
    /// The tolerance the comparison uses, as the page states it.
    tolerance: String,
    /// Elements that differ between backends, over the whole run.
    differing: usize,
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Trace entries: one card each, unless a long group of repeated calls left it out.
    pub operations: usize,
    /// Cards drawn.
    pub cards: usize,
    /// Passes shown on the cards.
    pub passes: usize,
    /// Distinct pictures written (identical pictures share one file).
    pub images: usize,
    /// Elements that differ between the backends beyond the tolerance (0 with one backend).
    pub differing: usize,
    /// Bytes written in all.
    pub bytes: u64,
}

/// Writes the site of `recording` into `dir` (created if need be): one card per trace entry,
/// Brook source quoted from `sources`. Nothing is written when the site would exceed
/// `options.max_bytes`.
pub fn write(
    recording: &Recording,
    sources: &[SourceText],
    dir: &Path,
    options: &Options,
) -> Result<Summary, ExplainError> {
    write_side_by_side(std::slice::from_ref(recording), sources, dir, options)
}

/// Writes the site of one program run on several backends (the same operations in the same
/// order): the cards are the first backend's, and each operation's card shows the streams it
/// wrote on every backend side by side, with the elements that differ from the first backend
/// beyond the tolerance ([`crate::compare`]) drawn and counted. Brook lines are quoted from
/// `sources` and from the sources the first recording saw compiled.
pub fn write_side_by_side(
    recordings: &[Recording],
    sources: &[SourceText],
    dir: &Path,
    options: &Options,
) -> Result<Summary, ExplainError> {
    let Some(primary) = recordings.first() else {
        return Err(ExplainError::Mismatch("no recording to write".into()));
    };
    // The sources given, then those the runtime saw compiled while recording.
    let mut known = sources.to_vec();
    for s in &primary.sources {
        if !known.contains(s) {
            known.push(s.clone());
        }
    }
    let mut assets = Assets::default();
    let drawn = drawn(&primary.trace);
    let (cards, outline) = cards(recordings, &known, &drawn, &mut assets)?;
    let groups = timeline(&primary.trace, &outline);
    let passes = outline.iter().map(|o| o.passes).sum();
    let differing = outline.iter().map(|o| o.differing).sum();
    let html = Page {
        title: &options.title,
        backends: recordings.iter().map(|r| r.backend.as_str()).collect(),
        names: recordings.iter().map(|r| r.name.as_str()).collect(),
        cards: &cards,
        groups: &groups,
        entries: outline.len(),
        passes,
        pictures: !primary.shots.is_empty(),
        tolerance: format!(
            "relative {RELATIVE_TOLERANCE:e} of the larger magnitude, at least {ABSOLUTE_TOLERANCE:e}"
        ),
        differing,
    }
    .render()?;
    let values: String = assets
        .values
        .iter()
        .map(|(name, array)| format!("BROOK_VALUES[\"{name}\"]={array};\n"))
        .collect();
    let values = format!("var BROOK_VALUES={{}};\n{values}");
    let why = format!("var BROOK_WHY=[{}];\n", assets.histories.join(",\n"));
    let needed = html.len() as u64
        + values.len() as u64
        + why.len() as u64
        + assets.images.values().map(|b| b.len() as u64).sum::<u64>();
    if needed > options.max_bytes {
        return Err(ExplainError::TooLarge {
            needed,
            limit: options.max_bytes,
        });
    }
    let images = dir.join("images");
    let put = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|source| ExplainError::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    std::fs::create_dir_all(&images).map_err(|source| ExplainError::Write {
        path: images.clone(),
        source,
    })?;
    for (name, png) in &assets.images {
        put(&images.join(format!("{name}.png")), png)?;
    }
    put(&dir.join("values.js"), values.as_bytes())?;
    put(&dir.join("why.js"), why.as_bytes())?;
    put(&dir.join("index.html"), html.as_bytes())?;
    Ok(Summary {
        operations: outline.len(),
        cards: cards.len(),
        differing,
        passes,
        images: assets.images.len(),
        bytes: needed,
    })
}
