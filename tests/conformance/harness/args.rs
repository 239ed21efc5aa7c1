//! The runner's command line, parsed by clap. Cargo hands libtest's flags to every test binary
//! (`cargo test -- --test-threads 1`, `cargo test -- --skip window`), so this runner, which has
//! no libtest harness, accepts them as libtest does: a flag's value is never taken for a case
//! filter, `--skip` and `--exact` select cases, `--list` lists them, flags that only shape
//! libtest's output are accepted (hidden from `--help`) and ignored, and anything else is
//! clap's error naming it.

use clap::Parser;

/// What the command line selects.
#[derive(Debug, Default, PartialEq, Parser)]
#[command(
    name = "conformance",
    about = "Runs tests/conformance/*.br on every backend and compares each with its expected values",
    disable_version_flag = true
)]
pub struct Args {
    /// Case-name filters: a case runs if its name contains one (or equals one, with --exact).
    pub filters: Vec<String>,
    /// Cases whose name contains this (equals it, with --exact) are left out; may repeat.
    #[arg(long)]
    pub skip: Vec<String>,
    /// Filters and --skip match whole case names.
    #[arg(long)]
    pub exact: bool,
    /// Print the selected cases' names and run nothing.
    #[arg(long)]
    pub list: bool,
    /// Run only ignored cases: this suite has none, so nothing runs.
    #[arg(long = "ignored")]
    pub ignored_only: bool,
    /// libtest's flags that only shape its output or scheduling: accepted, changing nothing.
    #[command(flatten)]
    libtest: Ignored,
}

/// libtest flags cargo may pass through that mean nothing to this runner.
#[derive(Debug, Default, PartialEq, clap::Args)]
struct Ignored {
    #[arg(long, hide = true)]
    test_threads: Option<String>,
    #[arg(long, hide = true)]
    color: Option<String>,
    #[arg(long, hide = true)]
    format: Option<String>,
    #[arg(long, hide = true)]
    logfile: Option<String>,
    #[arg(long, hide = true)]
    shuffle_seed: Option<String>,
    #[arg(short = 'Z', hide = true)]
    unstable: Vec<String>,
    #[arg(long, hide = true, visible_alias = "no-capture")]
    nocapture: bool,
    #[arg(long, hide = true)]
    show_output: bool,
    #[arg(short, long, hide = true)]
    quiet: bool,
    #[arg(long, hide = true)]
    include_ignored: bool,
    #[arg(long, hide = true)]
    report_time: bool,
    #[arg(long, hide = true)]
    ensure_time: bool,
    #[arg(long, hide = true)]
    shuffle: bool,
    #[arg(long, hide = true)]
    test: bool,
    #[arg(long, hide = true)]
    bench: bool,
    #[arg(long, hide = true)]
    force_run_in_process: bool,
}

/// Parses the arguments after the program name; the error is clap's message.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, clap::Error> {
    Args::try_parse_from(std::iter::once("conformance".to_string()).chain(args))
}

impl Args {
    /// Whether the case named `name` runs.
    pub fn selects(&self, name: &str) -> bool {
        let hits = |pattern: &String| {
            if self.exact {
                name == pattern
            } else {
                name.contains(pattern.as_str())
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(hits)) && !self.skip.iter().any(hits)
    }
}

/// The command line's rules, checked on every run (this runner has no `#[test]` functions).
pub fn self_check() {
    let p = |s: &str| parse(s.split_whitespace().map(String::from));
    let threads = p("--test-threads 1").unwrap();
    assert!(threads.filters.is_empty(), "a flag's value is no filter");
    let skip = p("--skip window").unwrap();
    assert!(skip.selects("saxpy") && !skip.selects("window_size"));
    let exact = p("gather --exact --skip=gather_rank2").unwrap();
    assert!(exact.selects("gather") && !exact.selects("gather_rank2"));
    assert!(
        !exact.selects("gather_clamp"),
        "--exact filters by whole names"
    );
    assert!(p("--color always --nocapture -q -Z unstable-options")
        .unwrap()
        .selects("any"));
    let unknown = p("--frobnicate").unwrap_err().to_string();
    assert!(unknown.contains("--frobnicate"), "{unknown}");
    let bare = p("--skip").unwrap_err().to_string();
    assert!(bare.contains("--skip"), "{bare}");
    assert!(p("--list").unwrap().list);
}
