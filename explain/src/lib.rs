//! The pipeline explorer: a Brook run as a static web site a teacher puts on a projector.
//!
//! One card per stream operation, in program order: the Brook function it ran, the passes it
//! became, and for each pass its GLSL (the quoted Brook lines highlighted), draw kind,
//! viewport, blending, depth test, uniforms and time, and every texture bound — per texture
//! unit and per draw buffer — as a picture of its contents before and after the pass
//! (colour-mapped like viz, large ones downsampled with their extents stated, the value
//! under the pointer). A reduction and a vout also show their ladder of shrinking levels, a
//! scatter its points on the destination (`scatter_points`), a depth-tested pass
//! the write mask beside the kept elements.
//!
//! Every card also shows the streams its operation wrote, read back by the runtime after it
//! ([`Recorder::operation`]): the only pictures the CPU and wgpu have, and what
//! [`write_side_by_side`] compares across backends ([`compare`] states the tolerance and why).
//! Long runs are grouped in the timeline and the middle of long groups gets no card
//! (`timeline`), so 5,000 calls make a page a browser opens at once.
//!
//! Recording: [`Recorder::start`] turns the backend's pass trace on and, where the backend
//! observes its passes (GL), installs brook-core's
//! [`PassObserver`](brook_core::PassObserver) that reads what each pass binds back before
//! and after it runs; the runtime reports each operation ([`Recorder::operation`]);
//! [`Recorder::finish`] collects all of it. Nothing is read back unless a run is
//! being explained. [`write`](fn@write) turns the recording into `index.html`, `images/*.png` and
//! `values.js`: no server, no network, every path relative. The facade wraps this as
//! `Runtime::explain`, and `brcc explain FILE.br -o DIR [--backend gl,cpu,wgpu]` runs a whole
//! program so, once per backend.

#![warn(missing_docs)]

mod assets;
mod brook_source;
mod camera;
mod cards;
mod colormap;
pub mod compare;
mod error;
mod highlight;
mod history;
mod outcome;
mod pass_card;
mod picture;
mod recording;
mod results;
mod scatter_points;
mod site;
mod timeline;

pub use camera::{Film, Shot, Snap};
pub use colormap::{ColorMap, MAX_STOPS};
pub use error::ExplainError;
pub use history::HistoryStep;
pub use outcome::{Operation, Outcome, Sampled, StreamContents};
pub use picture::{Picture, MAX_VALUE_PIXELS};
pub use recording::{Recorder, Recording};
pub use site::{write, write_side_by_side, Summary};

/// How a site is made.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The page's heading (the program's name).
    pub title: String,
    /// The most bytes the site may take; over it, [`write`](fn@write) writes nothing and says so.
    pub max_bytes: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            title: "Brook program".into(),
            max_bytes: 64 << 20,
        }
    }
}
