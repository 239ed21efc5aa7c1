//! Turning measured results into what people read: a text table like the papers' figure, the
//! same table in Markdown, and a bar chart as PNG.

pub(crate) mod canvas;
mod cells;
pub mod chart;
pub mod machine;

pub use cells::{markdown, text, HEADER};
