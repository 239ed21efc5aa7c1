//! brook-report's command line (clap, derive), in the style of brcc's: `--help` says what each
//! option does, and a bad argument is named in the error (exit status 2).

use std::path::PathBuf;

use clap::Parser;

use brook_apps::{applications, Scale};

/// Runs the papers' applications headless, checks every result against its reference, and
/// prints each variant's compute time, rate and ratio to the hand-written GL version, with
/// streamRead/streamWrite apart — then the cost model and the kernel-call knee.
#[derive(Debug, Parser, PartialEq)]
#[command(
    name = "brook-report",
    version,
    after_help = "Exit status: 0 when every result matched its reference, 1 when one did not, \
                  2 for a bad argument or a machine that cannot run the report.\n\
                  Progress is shown on the terminal only; with stdout redirected the run is quiet."
)]
pub struct Cli {
    /// Smaller sizes (under a minute on llvmpipe); default: the papers' sizes.
    #[arg(long)]
    pub quick: bool,
    /// Run only these applications (comma-separated, any case; --list shows them), and skip
    /// the kernel-call knee unless --knee is given.
    #[arg(long, value_name = "NAMES", value_delimiter = ',', value_parser = application)]
    pub only: Option<Vec<String>>,
    /// Measure the kernel-call knee even with --only.
    #[arg(long)]
    pub knee: bool,
    /// Also write the tables as Markdown.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write every measurement and the machine as JSON (see `report::json::Report`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write a bar chart of the ratios to hand-written GL as PNG.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Also write that bar chart as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write the kernel-call knee as a log–log plot (PNG).
    #[arg(long, value_name = "FILE")]
    pub knee_png: Option<PathBuf>,
    /// Also write the knee plot as SVG.
    #[arg(long, value_name = "FILE")]
    pub knee_svg: Option<PathBuf>,
    /// List the applications and exit.
    #[arg(long)]
    pub list: bool,
}

impl Cli {
    pub fn scale(&self) -> Scale {
        if self.quick {
            Scale::Quick
        } else {
            Scale::Full
        }
    }

    /// Whether the kernel-call knee is measured: always on a full run, with `--only` on request.
    pub fn wants_knee(&self) -> bool {
        self.knee || self.only.is_none()
    }
}

/// `--only`: one application name, spelled as the report prints it (case-insensitive).
fn application(name: &str) -> Result<String, String> {
    applications::named(&[name.to_string()])?;
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(s: &str) -> Result<Cli, String> {
        Cli::try_parse_from(std::iter::once("brook-report").chain(s.split_whitespace()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_every_form() {
        let all = parse(
            "--quick --only saxpy,FFT --knee --markdown r.md --json r.json --png r.png \
             --svg r.svg --knee-png k.png --knee-svg k.svg",
        )
        .unwrap();
        assert_eq!(
            all,
            Cli {
                quick: true,
                only: Some(vec!["saxpy".into(), "FFT".into()]),
                knee: true,
                markdown: Some("r.md".into()),
                json: Some("r.json".into()),
                png: Some("r.png".into()),
                svg: Some("r.svg".into()),
                knee_png: Some("k.png".into()),
                knee_svg: Some("k.svg".into()),
                list: false,
            }
        );
        assert_eq!(all.scale(), Scale::Quick);
        assert!(all.wants_knee());
        let none = parse("").unwrap();
        assert_eq!(none.scale(), Scale::Full);
        assert!(none.wants_knee(), "a full run measures the knee");
        assert!(!parse("--only Life").unwrap().wants_knee());
        assert!(parse("--list").unwrap().list);
    }

    #[test]
    fn errors_name_the_bad_argument() {
        let err = parse("--only SAXPY,Frob").unwrap_err();
        assert!(err.contains("'Frob'") && err.contains("--only"), "{err}");
        assert!(
            err.contains("there are SAXPY"),
            "lists the known names: {err}"
        );
        let err = parse("--png").unwrap_err();
        assert!(err.contains("--png <FILE>"), "{err}");
        let err = parse("--fast").unwrap_err();
        assert!(err.contains("'--fast'"), "{err}");
        let err = parse("extra").unwrap_err();
        assert!(err.contains("'extra'"), "{err}");
    }
}
