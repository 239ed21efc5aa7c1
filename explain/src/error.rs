//! What can go wrong writing a site.

use std::path::PathBuf;

/// Why the explorer's site was not written.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// The site would be larger than the cap ([`crate::Options::max_bytes`]).
    #[error(
        "the explorer's site would take {needed} bytes, over the limit of {limit} bytes; \
         explain a shorter run, or raise the limit (`brcc explain --max-mb`, `Options::max_bytes`)"
    )]
    TooLarge {
        /// Bytes the site would take.
        needed: u64,
        /// The cap it went over.
        limit: u64,
    },
    /// The shots do not belong to the trace (a recording made by hand, out of step).
    #[error("the pictures do not match the trace: {0}")]
    Mismatch(String),
    /// A file of the site could not be written.
    #[error("could not write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The HTML template could not be rendered (a bug of the explorer, not of the program).
    #[error("the page template failed: {0}")]
    Template(#[from] askama::Error),
}
