//! The command line every viz program shares: a window by default, or
//! `--headless --frames N --png out.png` to run N steps without a display and save the view.

use std::path::PathBuf;
use std::time::Instant;

use brook::{BrookError, Runtime};
use clap::{CommandFactory, FromArgMatches, Parser};

use crate::backend::Backend;
use crate::error::VizError;
use crate::image_io::save_png;
use crate::live::{explain_headless, run_headless_on, run_window, LiveOptions, Simulation};

/// What the command line asked for (clap, derive: `--help`, and errors that name the bad
/// argument). A program reads it with `CliOptions::parse()` or `try_parse_from` (clap's
/// [`Parser`]); [`main`] does that for it.
#[derive(Debug, Clone, PartialEq, Parser)]
#[command(
    after_help = "In the window: the side panel chooses the stream, colour map and range, \
                  pauses and steps, shows the element under the cursor and sets the \
                  simulation's constants. Keys: space pause, n or → one step, wheel zoom at \
                  the cursor, drag pan, r reset, s save a PNG of the view, p hide the panel, \
                  h help."
)]
pub struct CliOptions {
    /// Run without a display: --frames steps, then write the view to --png.
    #[arg(long, requires = "png")]
    pub headless: bool,
    /// Steps to run (headless: 100 when absent; in a window: until it is closed).
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Where to save the last frame.
    #[arg(long, value_name = "PATH")]
    pub png: Option<PathBuf>,
    /// Run --frames steps (3 when absent) headless with every call recorded, and write the
    /// pipeline explorer's site (one card per pass, textures before and after) into DIR.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["headless", "png"])]
    pub explain: Option<PathBuf>,
    /// Window or image size, each side 1 to 16384 (side by side: each view's).
    #[arg(long, value_name = "WIDTHxHEIGHT", default_value = "512x512", value_parser = parse_size)]
    pub size: (u32, u32),
    /// The backend to compute on; several, comma-separated (`gl,wgpu,cpu`), run the same
    /// simulation on each side by side, with a view of where they differ.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "gl",
        value_name = "BACKEND"
    )]
    pub backend: Vec<Backend>,
}

/// Steps run headless when `--frames` is not given.
const DEFAULT_HEADLESS_FRAMES: u64 = 100;

/// Steps explained when `--frames` is not given: the first steps show every kind of pass a
/// simulation runs, and a page per step of a long run helps no one.
const DEFAULT_EXPLAINED_FRAMES: u64 = 3;

/// The longest side of the explorer's pictures (larger streams are shown every n-th texel).
const EXPLAIN_MAX_SIDE: u32 = 128;

/// `--size`: `WIDTHxHEIGHT`, each side 1 to 16384.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
    match parsed {
        Some((w, h)) if (1..=16384).contains(&w) && (1..=16384).contains(&h) => Ok((w, h)),
        _ => Err("expected WIDTHxHEIGHT, each 1 to 16384".into()),
    }
}

/// Runs a simulation as `options` say: in a window titled `title`, or headless.
pub fn run_cli<S: Simulation>(
    title: &str,
    options: &CliOptions,
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
) -> Result<(), VizError> {
    if let Some(dir) = &options.explain {
        if options.backend != [Backend::Gl] {
            return Err(VizError::Usage(
                "--explain records GL passes: leave --backend out or make it gl".into(),
            ));
        }
        let frames = options.frames.unwrap_or(DEFAULT_EXPLAINED_FRAMES);
        let recording = explain_headless(make, frames, EXPLAIN_MAX_SIDE)?;
        let site = brook::explain::Options {
            title: format!("{title}: {frames} steps"),
            ..Default::default()
        };
        let summary = brook::explain::write(&recording, &[], dir, &site)?;
        println!(
            "{title}: {frames} steps explained: {} cards, {} passes, {} pictures; open {}",
            summary.cards,
            summary.passes,
            summary.images,
            dir.join("index.html").display()
        );
        return Ok(());
    }
    if options.headless {
        let frames = options.frames.unwrap_or(DEFAULT_HEADLESS_FRAMES);
        let started = Instant::now();
        let run = run_headless_on(&options.backend, make, frames, options.size)?;
        let path = options
            .png
            .as_ref()
            .ok_or_else(|| VizError::Usage("--headless needs --png PATH".into()))?;
        save_png(&run.image, path)?;
        let times: Vec<String> = (run.step_times.iter())
            .map(|(b, t)| format!("{b} {:.2} ms/step", t.as_secs_f64() * 1e3))
            .collect();
        println!(
            "{title}: {frames} steps headless in {:.2} s ({}); wrote {}",
            started.elapsed().as_secs_f64(),
            times.join(", "),
            path.display()
        );
        return Ok(());
    }
    let finished = run_window(
        LiveOptions {
            size: options.size,
            exit_after: options.frames,
            backends: options.backend.clone(),
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

/// `main` for a viz program: parses `std::env::args` (`--help` describes the program as
/// `title`; a bad argument exits with status 2, naming it), runs, and on error prints it and
/// exits with status 1.
pub fn main<S: Simulation>(title: &str, make: impl Fn(&Runtime) -> Result<S, BrookError>) {
    let matches = CliOptions::command().about(title.to_string()).get_matches();
    let options = CliOptions::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Err(e) = run_cli(title, &options, make) {
        eprintln!("{title}: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<CliOptions, String> {
        CliOptions::try_parse_from(std::iter::once("life").chain(s.split_whitespace()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_command_line_is_consistent() {
        CliOptions::command().debug_assert();
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            parse("--headless --frames 40 --png o.png --size 256x128").unwrap(),
            CliOptions {
                headless: true,
                frames: Some(40),
                png: Some(PathBuf::from("o.png")),
                explain: None,
                size: (256, 128),
                backend: vec![Backend::Gl],
            }
        );
        assert_eq!(
            parse("").unwrap(),
            CliOptions {
                headless: false,
                frames: None,
                png: None,
                explain: None,
                size: (512, 512),
                backend: vec![Backend::Gl],
            }
        );
        assert_eq!(
            parse("--backend gl,wgpu,cpu").unwrap().backend,
            [Backend::Gl, Backend::Wgpu, Backend::Cpu]
        );
        assert_eq!(parse("--backend cpu").unwrap().backend, [Backend::Cpu]);
        assert_eq!(parse("--frames 5 --png w.png").unwrap().frames, Some(5));
        assert_eq!(
            parse("--explain site").unwrap().explain,
            Some(PathBuf::from("site"))
        );
    }

    #[test]
    fn errors_name_the_bad_argument() {
        for (args, names) in [
            ("--frames", &["--frames <N>"][..]),
            ("--frames x", &["'x'", "--frames <N>"]),
            ("--size 0x4", &["'0x4'", "--size", "each 1 to 16384"]),
            ("--headless", &["--png <PATH>"]),
            ("--fast", &["'--fast'"]),
            (
                "--backend vulkan",
                &["'vulkan'", "--backend", "gl, wgpu, cpu"],
            ),
            (
                "--explain site --headless --png o.png",
                &["--explain <DIR>", "--headless"],
            ),
        ] {
            let err = parse(args).unwrap_err();
            for name in names {
                assert!(err.contains(name), "{args}: {err}");
            }
        }
    }
}
