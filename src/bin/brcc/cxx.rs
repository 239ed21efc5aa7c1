//! The system C++ compiler: found on PATH (or `CXX`), run once per distinct program. Builds
//! are kept in the private build cache ([`crate::cache`]), keyed by a hash of the generated
//! source, the header, the compiler command and brcc's version, so running a program again
//! costs no compilation.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::{self, Cache};

/// `include/brook.hpp`, which every generated file includes.
pub const HEADER: &str = include_str!("../../../include/brook.hpp");

/// Flags for the shared library `brcc run` loads. `brook_*` symbols stay undefined: they
/// resolve against the brcc executable when the library is loaded.
const FLAGS: &[&str] = &["-std=c++11", "-O1", "-fPIC", "-shared"];
#[cfg(target_os = "macos")]
const PLATFORM_FLAGS: &[&str] = &["-undefined", "dynamic_lookup"];
#[cfg(not(target_os = "macos"))]
const PLATFORM_FLAGS: &[&str] = &[];

pub struct Compiler {
    program: PathBuf,
    /// Arguments that came with `CXX` (`CXX="ccache g++"`).
    extra: Vec<String>,
}

impl Compiler {
    /// `CXX` if set, else the first of `c++`, `g++`, `clang++` on PATH.
    pub fn find() -> Result<Compiler, String> {
        if let Ok(cxx) = std::env::var("CXX") {
            let mut words = cxx.split_whitespace().map(String::from);
            let name = words.next().ok_or("CXX is set but empty")?;
            let program = on_path(&name).ok_or_else(|| {
                format!("no C++ compiler: CXX names `{name}`, which was not found")
            })?;
            return Ok(Compiler {
                program,
                extra: words.collect(),
            });
        }
        ["c++", "g++", "clang++"]
            .iter()
            .find_map(|n| on_path(n))
            .map(|program| Compiler {
                program,
                extra: Vec::new(),
            })
            .ok_or_else(|| {
                "no C++ compiler found: install g++ or clang++, or set CXX to one".to_string()
            })
    }

    /// The shared library built from `cpp`, from the cache when it was built before and is
    /// intact (see [`cache::verified`]).
    pub fn build(&self, cpp: &str, cache: &Cache) -> Result<PathBuf, String> {
        let mut hasher = DefaultHasher::new();
        (
            cpp,
            HEADER,
            env!("CARGO_PKG_VERSION"),
            &self.program,
            &self.extra,
            FLAGS,
        )
            .hash(&mut hasher);
        let dir = cache.entry(&format!("brcc-{:016x}", hasher.finish()))?;
        let library = dir.join("program.so");
        if cache::verified(&library) {
            return Ok(library);
        }
        for (name, text) in [(brook_build::HEADER_NAME, HEADER), ("program.cpp", cpp)] {
            let path = dir.join(name);
            cache::write_private(&path, text.as_bytes())
                .map_err(|e| format!("could not write `{}`: {e}", path.display()))?;
        }
        // Build under a name of our own, then rename: concurrent runs never see half a file.
        let partial = dir.join(format!("program.so.{}", std::process::id()));
        let output = Command::new(&self.program)
            .args(&self.extra)
            .args(FLAGS)
            .args(PLATFORM_FLAGS)
            .arg("-I")
            .arg(&dir)
            .arg("-o")
            .arg(&partial)
            .arg(dir.join("program.cpp"))
            .output()
            .map_err(|e| {
                format!(
                    "could not run the C++ compiler `{}`: {e}",
                    self.program.display()
                )
            })?;
        if !output.status.success() {
            return Err(format!(
                "the C++ compiler `{}` failed on the host code:\n{}",
                self.program.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        cache::store(&partial, &library)?;
        Ok(library)
    }
}

/// Writes `cpp` to `path` and `brook.hpp` beside it.
pub fn write_with_header(path: &Path, cpp: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(brook_build::HEADER_NAME), HEADER)?;
    std::fs::write(path, cpp)
}

/// `name` itself if it contains a `/`, else the first executable of that name on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}
