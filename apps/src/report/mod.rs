//! Turning measured results into what people read: a text table like the papers' figure, the
//! same table in Markdown, a bar chart as PNG or SVG, every figure as JSON, and the progress
//! line while they are measured.

mod cells;
pub mod chart;
pub mod figure;
pub mod json;
pub mod machine;
pub mod progress;

pub(crate) use cells::ratio_text;
pub use cells::{markdown, text, HEADER};
