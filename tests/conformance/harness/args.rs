//! The runner's command line. Cargo hands libtest's flags to every test binary
//! (`cargo test -- --test-threads 1`, `cargo test -- --skip window`), so this runner, which has
//! no libtest harness, reads them as libtest does: a flag's value is never taken for a case
//! filter, `--skip` and `--exact` select cases, `--list` lists them, flags that only shape
//! libtest's output are accepted and ignored, and anything else is an error naming it.

/// What the command line selects.
#[derive(Debug, Default, PartialEq)]
pub struct Args {
    /// Case-name filters: a case runs if its name contains one (or equals one, with `exact`).
    pub filters: Vec<String>,
    /// Cases whose name contains one of these (equals one, with `exact`) are left out.
    pub skip: Vec<String>,
    pub exact: bool,
    /// Print the selected cases' names and run nothing (`--list`).
    pub list: bool,
    /// Run only ignored tests (`--ignored`): this suite has none.
    pub ignored_only: bool,
}

/// libtest flags that take a value (as the next argument or after `=`).
const WITH_VALUE: &[&str] = &[
    "--skip",
    "--test-threads",
    "--color",
    "--format",
    "--logfile",
    "--shuffle-seed",
    "-Z",
];

/// libtest flags without a value that change nothing here.
const IGNORED: &[&str] = &[
    "--nocapture",
    "--no-capture",
    "--show-output",
    "-q",
    "--quiet",
    "--include-ignored",
    "--report-time",
    "--ensure-time",
    "--shuffle",
    "--test",
    "--bench",
    "--force-run-in-process",
];

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut out = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if !arg.starts_with('-') {
            out.filters.push(arg);
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        if WITH_VALUE.contains(&flag.as_str()) {
            let value = match inline {
                Some(v) => v,
                None => args
                    .next()
                    .ok_or_else(|| format!("`{flag}` needs a value"))?,
            };
            if flag == "--skip" {
                out.skip.push(value);
            }
            continue;
        }
        if inline.is_some() {
            return Err(format!("`{flag}` takes no value"));
        }
        match flag.as_str() {
            "--exact" => out.exact = true,
            "--list" => out.list = true,
            "--ignored" => out.ignored_only = true,
            f if IGNORED.contains(&f) => {}
            f => return Err(format!("unknown option `{f}`")),
        }
    }
    Ok(out)
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

/// The parser's rules, checked on every run (this runner has no `#[test]` functions).
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
    assert!(p("--color always --nocapture -q").unwrap().selects("any"));
    assert_eq!(
        p("--frobnicate").unwrap_err(),
        "unknown option `--frobnicate`"
    );
    assert_eq!(p("--skip").unwrap_err(), "`--skip` needs a value");
    assert!(p("--list").unwrap().list);
}
