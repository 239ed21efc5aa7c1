//! The system C++ compiler: found on PATH (or `CXX`), run once per distinct program. Builds
//! are kept in the private build cache ([`crate::cache`]), keyed by a hash of the generated
//! source, the header, the compiler command and brcc's version, so running a program again
//! costs no compilation.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::{self, Cache};
use crate::cli::HostOptions;
use crate::sources::Translation;

/// `include/brook.hpp`, which every generated file includes.
pub const HEADER: &str = include_str!("../../../include/brook.hpp");

/// Flags for the shared library `brcc run` loads. `brook_*` symbols stay undefined: they
/// resolve against the brcc executable when the library is loaded.
const FLAGS: &[&str] = &["-std=c++11", "-O1", "-fPIC", "-shared"];
#[cfg(target_os = "macos")]
const PLATFORM_FLAGS: &[&str] = &["-undefined", "dynamic_lookup"];
/// `-Bsymbolic`: the program's own calls of its functions bind inside the library. brcc exports
/// its symbols (`-rdynamic`) and the program keeps `main` its name: without this, a call of
/// `main` from `brook_user_main` would reach brcc's.
#[cfg(not(target_os = "macos"))]
const PLATFORM_FLAGS: &[&str] = &["-Wl,-Bsymbolic"];

pub struct Compiler {
    program: PathBuf,
    /// Arguments that came with `CXX` (`CXX="ccache g++"`).
    extra: Vec<String>,
    /// `-I` and `-D` from brcc's command line.
    host: HostOptions,
}

impl Compiler {
    /// `CXX` if set, else the first of `c++`, `g++`, `clang++` on PATH; `host` adds include
    /// directories and macros.
    pub fn find(host: HostOptions) -> Result<Compiler, String> {
        if let Ok(cxx) = std::env::var("CXX") {
            let mut words = cxx.split_whitespace().map(String::from);
            let name = words.next().ok_or("CXX is set but empty")?;
            let program = on_path(&name).ok_or_else(|| {
                format!("no C++ compiler: CXX names `{name}`, which was not found")
            })?;
            return Ok(Compiler {
                program,
                extra: words.collect(),
                host,
            });
        }
        ["c++", "g++", "clang++"]
            .iter()
            .find_map(|n| on_path(n))
            .map(|program| Compiler {
                program,
                extra: Vec::new(),
                host,
            })
            .ok_or_else(|| {
                "no C++ compiler found: install g++ or clang++, or set CXX to one".to_string()
            })
    }

    /// The shared library built from the translated files, from the cache when it was built
    /// before and is intact (see [`cache::verified`]).
    pub fn build(&self, t: &Translation, cache: &Cache) -> Result<PathBuf, String> {
        let mut hasher = DefaultHasher::new();
        (
            &t.sources,
            &t.headers,
            &t.include_dirs,
            HEADER,
            env!("CARGO_PKG_VERSION"),
            &self.program,
            &self.extra,
            &self.host.include,
            &self.host.define,
            FLAGS,
            PLATFORM_FLAGS,
        )
            .hash(&mut hasher);
        let dir = cache.entry(&format!("brcc-{:016x}", hasher.finish()))?;
        let forwards = forwarding_headers(t);
        let files = std::iter::once((brook_build::HEADER_NAME, HEADER))
            .chain(
                t.headers
                    .iter()
                    .map(|(n, text)| (n.as_str(), text.as_str())),
            )
            .chain(forwards.iter().map(|(n, text)| (n.as_str(), text.as_str())))
            .chain(
                t.sources
                    .iter()
                    .map(|(n, text)| (n.as_str(), text.as_str())),
            );
        for sub in FORWARDING_DIRS {
            private_dir(&dir.join(sub))?;
        }
        for (name, text) in files {
            let path = dir.join(name);
            cache::write_private(&path, text.as_bytes())
                .map_err(|e| format!("could not write `{}`: {e}", path.display()))?;
        }
        // The program's own headers are part of the build: their contents name the library.
        let library = dir.join(format!("program-{:016x}.so", self.own_headers(t, &dir)?));
        if cache::verified(&library) {
            return Ok(library);
        }
        // Build under a name of our own, then rename: concurrent runs never see half a file.
        let partial = dir.join(format!("program.so.{}", std::process::id()));
        let output = self
            .command(t, &dir)
            .args(FLAGS)
            .args(PLATFORM_FLAGS)
            .arg("-o")
            .arg(&partial)
            .args(t.sources.iter().map(|(n, _)| dir.join(n)))
            .output()
            .map_err(|e| self.not_run(e))?;
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

    /// The compiler with its `CXX` words, the include directories and the macros: the build
    /// directory (brook.hpp, the generated headers), then each input file's directory (for
    /// `"…"` and `<…>` alike, as the original's `-I.` did), then `-I` directories.
    fn command(&self, t: &Translation, dir: &Path) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.extra).arg("-I").arg(dir);
        for d in t.include_dirs.iter().chain(&self.host.include) {
            cmd.arg("-I").arg(d);
        }
        for d in &self.host.define {
            cmd.arg(format!("-D{d}"));
        }
        cmd
    }

    /// `file` through the C preprocessor (macros expanded, includes read, no line markers),
    /// with its folder and the `-I` folders searched and the `-D` macros defined.
    pub fn preprocess(&self, file: &Path) -> Result<String, String> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.extra).args(["-E", "-P", "-x", "c"]);
        let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
        for d in dir
            .into_iter()
            .chain(self.host.include.iter().map(PathBuf::as_path))
        {
            cmd.arg("-I").arg(d);
        }
        for d in &self.host.define {
            cmd.arg(format!("-D{d}"));
        }
        let output = cmd.arg(file).output().map_err(|e| self.not_run(e))?;
        if !output.status.success() {
            return Err(format!(
                "the C preprocessor (`{} -E`) failed on `{}`:\n{}",
                self.program.display(),
                file.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        String::from_utf8(output.stdout)
            .map_err(|_| format!("`{}` is not UTF-8 once preprocessed", file.display()))
    }

    fn not_run(&self, e: std::io::Error) -> String {
        format!(
            "could not run the C++ compiler `{}`: {e}",
            self.program.display()
        )
    }

    /// A hash of the headers the program includes with `#include "…"` (0 when it includes
    /// none), found by the compiler's `-MM`.
    fn own_headers(&self, t: &Translation, dir: &Path) -> Result<u64, String> {
        if !t.programs.iter().any(|p| p.source.contains("#include")) {
            return Ok(0);
        }
        let output = self
            .command(t, dir)
            .arg("-MM")
            .args(t.sources.iter().map(|(n, _)| dir.join(n)))
            .output()
            .map_err(|e| self.not_run(e))?;
        if !output.status.success() {
            // The build that follows reports the problem at its line.
            return Ok(1);
        }
        let mut hasher = DefaultHasher::new();
        let deps = String::from_utf8_lossy(&output.stdout).replace("\\\n", " ");
        for line in deps.lines() {
            let files = line.split_once(':').map_or("", |(_, f)| f);
            for file in files.split_whitespace().map(Path::new) {
                if !file.starts_with(dir) {
                    (file, std::fs::read(file).ok()).hash(&mut hasher);
                }
            }
        }
        Ok(hasher.finish())
    }
}

/// The folders of [`forwarding_headers`] inside the build directory.
const FORWARDING_DIRS: &[&str] = &["brook", "built"];

/// Headers at the original's include paths, each including ours: host code written for the
/// original includes `<brook/brook.hpp>` or `<brook/brt.hpp>`, and a kernel file's generated
/// header as `"built/NAME.hpp"` (its Makefiles put brcc's output in `built/`).
fn forwarding_headers(t: &Translation) -> Vec<(String, String)> {
    let to = |name: &str| format!("#include \"../{name}\"\n");
    ["brook/brook.hpp", "brook/brt.hpp"]
        .iter()
        .map(|path| (path.to_string(), to(brook_build::HEADER_NAME)))
        .chain(
            t.headers
                .iter()
                .map(|(name, _)| (format!("built/{name}"), to(name))),
        )
        .collect()
}

/// A folder inside the (owner-only, checked) build directory, created owner-only: only this
/// user can have made it, so what it holds is as trusted as the build directory.
fn private_dir(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            Err(format!("could not create `{}`: {e}", path.display()))
        }
        _ => Ok(()),
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
