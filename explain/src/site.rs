//! Writing the site: `index.html`, `images/*.png` and `values.js` in one directory, every
//! path relative, so it opens from disk with no server and no network.

use std::path::Path;

use askama::Template;

use crate::assets::Assets;
use crate::cards::{cards, Card};
use crate::error::ExplainError;
use crate::recording::Recording;
use crate::Options;
use brook_core::SourceText;

/// The page: its heading and the cards, printed by `templates/index.html`.
#[derive(Template)]
#[template(path = "index.html")]
struct Page<'a> {
    title: &'a str,
    backend: &'a str,
    cards: &'a [Card],
    passes: usize,
    /// Whether the passes have pictures (GL) or not (other backends).
    pictures: bool,
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Cards written: one per trace entry.
    pub cards: usize,
    /// Passes shown on the cards.
    pub passes: usize,
    /// Distinct pictures written (identical pictures share one file).
    pub images: usize,
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
    let mut assets = Assets::default();
    let cards = cards(&recording.trace, &recording.shots, sources, &mut assets)?;
    let passes = cards.iter().map(|c| c.passes.len()).sum();
    let html = Page {
        title: &options.title,
        backend: &recording.backend,
        cards: &cards,
        passes,
        pictures: !recording.shots.is_empty(),
    }
    .render()?;
    let values: String = assets
        .values
        .iter()
        .map(|(name, array)| format!("BROOK_VALUES[\"{name}\"]={array};\n"))
        .collect();
    let values = format!("var BROOK_VALUES={{}};\n{values}");
    let needed = html.len() as u64
        + values.len() as u64
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
    put(&dir.join("index.html"), html.as_bytes())?;
    Ok(Summary {
        cards: cards.len(),
        passes,
        images: assets.images.len(),
        bytes: needed,
    })
}
