//! brcc's command line (clap, derive): one variant of [`Command`] per subcommand, each with
//! its own `--help`. A new subcommand is one more variant here and one more arm in `main`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Brook programs as whole C programs: kernels through the Brook compiler, host code through
/// the system C++ compiler.
#[derive(Debug, Parser)]
#[command(
    name = "brcc",
    version,
    after_help = "BRT_RUNTIME=gl|cpu|wgpu picks the backend when --backend is absent (default gl).\n\
                  CXX names the C++ compiler (default: c++, g++ or clang++ from PATH)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand, PartialEq)]
pub enum Command {
    /// Compile and run the program; its output and exit status pass through.
    Run {
        /// The program's files: `.br` files (`.bri`: C-preprocessed first), and `.cpp` files
        /// of host code that include the kernel files' headers (`kernels.hpp` or
        /// `built/kernels.hpp` for `kernels.br`). One defines `main`.
        #[arg(required = true, value_name = "FILES")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        host: HostOptions,
        /// The backend (default: $BRT_RUNTIME, else gl).
        #[arg(long, value_name = "NAME")]
        backend: Option<String>,
        /// Stop the program after this many seconds, with an error (exit status 124).
        #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
        timeout: Option<f64>,
        /// Opt into fast math: GL and wgpu use the driver's `exp`, `log`, `pow`, `sin`, … and
        /// may apply identities that change NaN, ±inf and −0 (`Runtime::set_fast_math`;
        /// accuracy in docs/limits.md).
        #[arg(long)]
        fast_math: bool,
        /// Arguments for the program's `main`, after `--`.
        #[arg(last = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// Run the program with every pass recorded and write the pipeline explorer into DIR: a
    /// static site (DIR/index.html, opens from disk) with one card per stream operation, the
    /// passes it became, their GLSL, and every texture before and after each pass.
    Explain {
        /// The program's files, as for `run`.
        #[arg(required = true, value_name = "FILES")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        host: HostOptions,
        /// The directory to write (created if need be).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// The backend (default: $BRT_RUNTIME, else gl), or several separated by commas
        /// (`gl,cpu,wgpu`): the program runs once on each, and every card shows each one's
        /// results side by side with the elements that differ from the first one's marked.
        /// Only gl has pictures of textures pass by pass; every backend has each operation's
        /// results.
        #[arg(long, value_name = "NAMES")]
        backend: Option<String>,
        /// The longest side of a picture, in pixels; larger textures are shown every n-th texel.
        #[arg(long, value_name = "PIXELS", default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=4096))]
        max_side: u32,
        /// The most the site may take, in MiB; over it, nothing is written and brcc says so.
        #[arg(long, value_name = "MIB", default_value_t = 64)]
        max_mb: u64,
        /// Record the run's history too: a click on an element of a small result picture
        /// shows where its value came from, as `brcc why` does (side by side, also where
        /// another backend's history of it first differs).
        #[arg(long)]
        why: bool,
        /// Arguments for the program's `main`, after `--`.
        #[arg(last = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// Run the program recording every operation, then print where one element's final
    /// value came from: the operation that wrote it and its Brook line, each element it read
    /// (a gather's index, rounded and clamped), and so on back to the host's streamRead.
    Why {
        /// The program's files, as for `run`, then the element: `NAME[i][j]`, NAME a stream
        /// variable of the host code, first dimension first (quote it for the shell); with
        /// --every-stream, the files only.
        #[arg(required = true, num_args = 1.., value_name = "FILES… ELEMENT")]
        args: Vec<String>,
        /// Instead of one element: the first and the last element of every stream the host
        /// code named, each history after the other.
        #[arg(long)]
        every_stream: bool,
        #[command(flatten)]
        host: HostOptions,
        /// The backend (default: $BRT_RUNTIME, else gl).
        #[arg(long, value_name = "NAME")]
        backend: Option<String>,
        /// How many operations back to follow an input.
        #[arg(long, value_name = "N", default_value_t = 8)]
        depth: usize,
        /// How many elements to show in all.
        #[arg(long, value_name = "N", default_value_t = 64)]
        elements: usize,
        /// Arguments for the program's `main`, after `--`.
        #[arg(last = true, value_name = "ARGS")]
        program_args: Vec<String>,
    },
    /// Build the program into an executable that runs it (the backend: $BRT_RUNTIME, else gl).
    Build {
        /// The program's files, as for `run`.
        #[arg(required = true, value_name = "FILES")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        host: HostOptions,
        /// The executable to write.
        #[arg(short, long, value_name = "PROGRAM")]
        output: PathBuf,
    },
    /// Write the generated C++, and beside it brook.hpp and, for a file with kernels, a header
    /// declaring them (OUT.hpp) for hand-written C++ to include.
    Cpp {
        /// The Brook program.
        file: PathBuf,
        /// The C++ file to write (default: FILE's name with `.cpp`, in the current directory).
        #[arg(short, long, value_name = "OUT.cpp")]
        output: Option<PathBuf>,
    },
    /// Print every kernel's GLSL passes.
    Glsl {
        /// The Brook program.
        file: PathBuf,
    },
    /// Print every kernel's WGSL compute shaders and dispatches (the wgpu backend).
    Wgsl {
        /// The Brook program.
        file: PathBuf,
    },
    /// Print every kernel's and reduction's Cranelift IR (the CPU backend's native code).
    Clif {
        /// The Brook program.
        file: PathBuf,
    },
    /// Check the program's kernels and host code (calls, extents) and print diagnostics; run
    /// nothing. A file of kernels only is valid.
    Check {
        /// The program's files.
        #[arg(required = true, value_name = "FILES")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        host: HostOptions,
    },
    /// List or clear the build cache ($XDG_CACHE_HOME/brook, else ~/.cache/brook). It keeps at
    /// most $BROOK_CACHE_MAX_ENTRIES programs (default 64) and $BROOK_CACHE_MAX_BYTES bytes
    /// (default 512 MiB), the least recently used going first.
    #[command(group = clap::ArgGroup::new("what").required(true).args(["list", "clear"]))]
    Cache {
        /// Print each cached program: its directory, size and last use.
        #[arg(long)]
        list: bool,
        /// Remove every cached program not in use by a running brcc.
        #[arg(long)]
        clear: bool,
    },
    /// Print a shell completion script (e.g. `brcc completions bash > /etc/bash_completion.d/brcc`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// What the C++ compiler takes for the host code, as the original's Makefiles passed it.
#[derive(Debug, Args, PartialEq, Default, Clone)]
pub struct HostOptions {
    /// Search DIR for the host code's headers, `#include "…"` and `<…>` alike (after the
    /// program's own directories).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro for the host code, as `-D NAME` or `-D NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
}

/// `--timeout`: a positive, finite number of seconds.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(s),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(s: &str) -> Result<Command, String> {
        Cli::try_parse_from(std::iter::once("brcc").chain(s.split_whitespace()))
            .map(|c| c.command)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            parse("run a.br --backend cpu --timeout 2.5 -- x --backend").unwrap(),
            Command::Run {
                files: vec!["a.br".into()],
                host: HostOptions::default(),
                backend: Some("cpu".into()),
                timeout: Some(2.5),
                fast_math: false,
                args: vec!["x".into(), "--backend".into()]
            }
        );
        assert_eq!(
            parse("cpp a.br -o b.cpp").unwrap(),
            Command::Cpp {
                file: "a.br".into(),
                output: Some("b.cpp".into())
            }
        );
        assert_eq!(
            parse("check a.br").unwrap(),
            Command::Check {
                files: vec!["a.br".into()],
                host: HostOptions::default(),
            }
        );
        assert_eq!(
            parse("explain a.br -o site --max-side 64 -- 3").unwrap(),
            Command::Explain {
                files: vec!["a.br".into()],
                host: HostOptions::default(),
                output: "site".into(),
                backend: None,
                max_side: 64,
                max_mb: 64,
                why: false,
                args: vec!["3".into()]
            }
        );
        assert_eq!(
            parse("why a.br r[1][0] --backend cpu --depth 3 -- 5").unwrap(),
            Command::Why {
                args: vec!["a.br".into(), "r[1][0]".into()],
                every_stream: false,
                host: HostOptions::default(),
                backend: Some("cpu".into()),
                depth: 3,
                elements: 64,
                program_args: vec!["5".into()]
            }
        );
        assert_eq!(
            parse("build main.cpp k.br -o prog -I../common -I inc -D N=3 -DFAST").unwrap(),
            Command::Build {
                files: vec!["main.cpp".into(), "k.br".into()],
                host: HostOptions {
                    include: vec!["../common".into(), "inc".into()],
                    define: vec!["N=3".into(), "FAST".into()],
                },
                output: "prog".into()
            }
        );
    }

    #[test]
    fn errors_name_the_bad_argument() {
        assert!(parse("run").unwrap_err().contains("<FILES>"));
        assert!(parse("glsl a.br -o x").unwrap_err().contains("'-o'"));
        assert!(parse("frob a.br").unwrap_err().contains("'frob'"));
        let err = parse("run a.br --timeout 0").unwrap_err();
        assert!(err.contains("--timeout"), "{err}");
        let err = parse("run a.br --timeout soon").unwrap_err();
        assert!(
            err.contains("`soon` is not a positive number of seconds"),
            "{err}"
        );
    }
}
