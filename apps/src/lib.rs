//! The applications of the Brook papers (001 Fig. 3, 000 Fig. 6.3, 003's table, 004), each
//! written five ways — hand-written GL, Brook on GL, on wgpu and on the CPU backend, plain Rust —
//! checked against a reference and timed side by side. `brook-report` prints the table;
//! `benches/apps.rs` tracks the same variants with criterion; `tests/apps.rs` checks them all
//! at a tiny size.

#![warn(missing_docs)]

pub mod app;
pub mod applications;
mod brook_run;
pub mod cost_model;
pub mod data;
pub mod error;
pub mod glkit;
pub mod hand_transfer;
pub mod knee;
pub mod measure;
pub mod report;
pub mod synthetic;
pub mod wgpukit;

pub use app::{App, Baseline, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
pub use error::AppError;
pub use measure::{measure, AppResult, Budget, Ratio, Row, Stage};
