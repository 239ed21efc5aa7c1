//! What can go wrong writing a site.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// The site would be larger than the cap ([`crate::Options::max_bytes`]).
    #[error(
        "the explorer's site would take {needed} bytes, over the limit of {limit} bytes; \
         explain a shorter run, or raise the limit (`brcc explain --max-mb`, `Options::max_bytes`)"
    )]
    TooLarge { needed: u64, limit: u64 },
    /// The shots do not belong to the trace (a recording made by hand, out of step).
    #[error("the pictures do not match the trace: {0}")]
    Mismatch(String),
    #[error("could not write `{path}`: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the page template failed: {0}")]
    Template(#[from] askama::Error),
}
