//! Brook programs for the host: the C++ that `brcc` compiles for a whole `.br` program, and
//! typed Rust functions for the kernels of a `.br` file, generated from a build script.
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     brook_build::compile("src/kernels.br").unwrap();
//! }
//! ```
//! ```ignore
//! // src/main.rs
//! mod kernels {
//!     include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
//! }
//! kernels::saxpy(&rt, 2.0, &x, &y, &result)?;
//! ```
//!
//! A `.br` file is split into the part the kernel compiler sees (kernels, reductions, the
//! functions, types and constants they use) and host C; see [`Program::parse`].

#![warn(missing_docs)]

mod cpp;
mod host_check;
mod items;
mod program;
mod rust;
mod scan;
mod signature;
mod split;
mod streams;

use std::fmt;
use std::path::{Path, PathBuf};

pub use cpp::{header, translate as cpp, HEADER_NAME};
pub use program::Program;
pub use rust::bindings as rust_bindings;

/// A failed build-script compilation. `Debug` prints the rendered diagnostics too, so
/// `brook_build::compile(…).unwrap()` shows them with their carets.
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.0)
    }
}

impl std::error::Error for Error {}

/// For a build script: checks `path` (relative to the package) and writes typed Rust functions
/// for its kernels to `$OUT_DIR/<file stem>.rs`, which it returns. Cargo reruns the script
/// when the file changes.
pub fn compile(path: impl AsRef<Path>) -> Result<PathBuf, Error> {
    let path = path.as_ref();
    println!("cargo:rerun-if-changed={}", path.display());
    let source = std::fs::read_to_string(path)
        .map_err(|e| Error(format!("could not read `{}`: {e}", path.display())))?;
    let program =
        Program::parse(&source, &path.display().to_string()).map_err(|d| Error(d.render()))?;
    let out_dir = std::env::var_os("OUT_DIR").ok_or_else(|| {
        Error("OUT_DIR is not set: call brook_build::compile from build.rs".into())
    })?;
    let stem = path
        .file_stem()
        .ok_or_else(|| Error(format!("`{}` has no file name", path.display())))?;
    let out = Path::new(&out_dir).join(stem).with_extension("rs");
    std::fs::write(&out, rust_bindings(&program))
        .map_err(|e| Error(format!("could not write `{}`: {e}", out.display())))?;
    Ok(out)
}
