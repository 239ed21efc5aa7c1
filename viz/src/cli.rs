//! The command line every viz program shares: a window by default, or
//! `--headless --frames N --png out.png` to run N steps without a display and save the view.

use std::path::PathBuf;
use std::time::Instant;

use brook::{BrookError, Runtime};

use crate::error::VizError;
use crate::image_io::save_png;
use crate::live::{run_headless, run_window, LiveOptions, Simulation};

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct CliOptions {
    /// `--headless`: no window; needs `--png`.
    pub headless: bool,
    /// `--frames N`: steps to run (headless: 100 when absent; windowed: until closed).
    pub frames: Option<u64>,
    /// `--png PATH`: where to save the last frame.
    pub png: Option<PathBuf>,
    /// `--size WxH`: window or image size (512×512 when absent).
    pub size: (u32, u32),
}

const USAGE: &str = "options: [--headless] [--frames N] [--png out.png] [--size WIDTHxHEIGHT]\n  \
     a window by default (space pause, n step, wheel/drag zoom and pan, h help);\n  \
     --headless runs N steps without a display and writes the view to --png";

/// Steps run headless when `--frames` is not given.
const DEFAULT_HEADLESS_FRAMES: u64 = 100;

impl CliOptions {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<CliOptions, VizError> {
        let mut options = CliOptions {
            headless: false,
            frames: None,
            png: None,
            size: (512, 512),
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .ok_or_else(|| usage(format!("{name} needs a value")))
            };
            match arg.as_str() {
                "--headless" => options.headless = true,
                "--frames" => {
                    let v = value("--frames")?;
                    options.frames = Some(
                        v.parse()
                            .map_err(|_| usage(format!("--frames {v}: not a count")))?,
                    );
                }
                "--png" => options.png = Some(PathBuf::from(value("--png")?)),
                "--size" => options.size = parse_size(&value("--size")?)?,
                "-h" | "--help" => return Err(usage("".into())),
                other => return Err(usage(format!("unknown argument `{other}`"))),
            }
        }
        if options.headless && options.png.is_none() {
            return Err(usage("--headless needs --png PATH".into()));
        }
        Ok(options)
    }
}

fn parse_size(text: &str) -> Result<(u32, u32), VizError> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
    match parsed {
        Some((w, h)) if (1..=16384).contains(&w) && (1..=16384).contains(&h) => Ok((w, h)),
        _ => Err(usage(format!(
            "--size {text}: expected WIDTHxHEIGHT, each 1 to 16384"
        ))),
    }
}

fn usage(problem: String) -> VizError {
    VizError::Usage(if problem.is_empty() {
        USAGE.to_string()
    } else {
        format!("{problem}\n{USAGE}")
    })
}

/// Runs a simulation as `options` say: in a window titled `title`, or headless.
pub fn run_cli<S: Simulation>(
    title: &str,
    options: &CliOptions,
    make: impl FnOnce(&Runtime) -> Result<S, BrookError>,
) -> Result<(), VizError> {
    if options.headless {
        let frames = options.frames.unwrap_or(DEFAULT_HEADLESS_FRAMES);
        let started = Instant::now();
        let image = run_headless(make, frames, options.size)?;
        let path = options.png.as_ref().expect("checked by CliOptions::parse");
        save_png(&image, path)?;
        println!(
            "{title}: {frames} steps headless in {:.2} s; wrote {}",
            started.elapsed().as_secs_f64(),
            path.display()
        );
        return Ok(());
    }
    let finished = run_window(
        LiveOptions {
            size: options.size,
            exit_after: options.frames,
            ..LiveOptions::new(title)
        },
        make,
    )?;
    if let (Some(image), Some(path)) = (&finished.last_frame, &options.png) {
        save_png(image, path)?;
        println!("{title}: wrote {}", path.display());
    }
    Ok(())
}

/// `main` for a viz program: parses `std::env::args`, runs, and on error prints it and
/// exits with status 1.
pub fn main<S: Simulation>(title: &str, make: impl FnOnce(&Runtime) -> Result<S, BrookError>) {
    let result = CliOptions::parse(std::env::args().skip(1))
        .and_then(|options| run_cli(title, &options, make));
    if let Err(e) = result {
        eprintln!("{title}: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<CliOptions, VizError> {
        CliOptions::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_the_headless_form() {
        let o = parse(&[
            "--headless",
            "--frames",
            "40",
            "--png",
            "o.png",
            "--size",
            "256x128",
        ])
        .unwrap();
        assert!(o.headless);
        assert_eq!(o.frames, Some(40));
        assert_eq!(o.png, Some(PathBuf::from("o.png")));
        assert_eq!(o.size, (256, 128));
        assert_eq!(parse(&[]).unwrap().size, (512, 512));
    }

    #[test]
    fn refuses_bad_arguments_with_the_reason() {
        for (args, reason) in [
            (&["--frames"][..], "needs a value"),
            (&["--frames", "x"][..], "not a count"),
            (&["--size", "0x4"][..], "WIDTHxHEIGHT"),
            (&["--headless"][..], "needs --png"),
            (&["--fast"][..], "unknown argument"),
        ] {
            let err = parse(args).unwrap_err().to_string();
            assert!(err.contains(reason), "{args:?}: {err}");
        }
    }
}
