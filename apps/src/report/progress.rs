//! The report's progress line (indicatif): which application and variant is running, what it
//! is doing and how long the run has taken, with a line per finished application. Drawn on
//! stderr, and only when stdout is a terminal: a report piped into a file stays quiet.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::measure::Stage;

/// A bar over the applications of one run (and then over the knee's sizes).
pub struct Progress {
    bar: ProgressBar,
    app: String,
    app_started: Instant,
}

impl Progress {
    /// A bar over `apps` applications, drawn only when stdout is a terminal.
    pub fn new(apps: usize) -> Progress {
        let target = if std::io::stdout().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        Progress::to(target, apps)
    }

    /// A bar over `apps` applications drawn on `target`.
    pub fn to(target: ProgressDrawTarget, apps: usize) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(apps as u64), target).with_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:20} {pos}/{len} {wide_msg}",
            )
            .expect("a valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress {
            bar,
            app: String::new(),
            app_started: Instant::now(),
        }
    }

    /// `app` (at `size`) starts.
    pub fn start(&mut self, app: &str, size: &str) {
        self.app = format!("{app} ({size})");
        self.app_started = Instant::now();
        self.bar.set_message(self.app.clone());
    }

    /// The running application reached `stage`.
    pub fn stage(&self, stage: Stage) {
        let what = match stage {
            Stage::WarmingUp(flavor) => format!("{flavor}: upload, compile, first run"),
            Stage::Timing { round, of } => format!("timing, round {round} of at most {of}"),
            Stage::Checking(flavor) => format!("{flavor}: download and check"),
            Stage::Transfers { round, of } => format!("transfers, round {round} of {of}"),
        };
        self.bar.set_message(format!("{}: {what}", self.app));
    }

    /// The running application is done; `passed` says whether every variant matched.
    pub fn finish_app(&self, passed: bool) {
        self.bar.println(format!(
            "{:<40} {} in {:.1} s",
            self.app,
            if passed { "ok" } else { "FAILED" },
            self.app_started.elapsed().as_secs_f64()
        ));
        self.bar.inc(1);
    }

    /// The knee sweep, `done` of `sizes` sizes measured.
    pub fn knee(&self, done: usize, sizes: usize) {
        self.bar.set_length(sizes as u64);
        self.bar.set_position(done as u64);
        self.bar
            .set_message(format!("kernel-call knee: size {} of {sizes}", done + 1));
    }
}

/// Dropped, whether the run finished or failed, the bar leaves the screen, keeping the
/// finished applications' lines.
impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Flavor;

    #[test]
    fn the_bar_names_the_application_and_the_variant() {
        let mut progress = Progress::to(ProgressDrawTarget::hidden(), 2);
        progress.start("SAXPY", "4×4");
        progress.stage(Stage::WarmingUp(Flavor::BrookGl));
        assert_eq!(
            progress.bar.message(),
            "SAXPY (4×4): Brook GL: upload, compile, first run"
        );
        progress.stage(Stage::Timing { round: 3, of: 10 });
        assert!(progress.bar.message().ends_with("round 3 of at most 10"));
        progress.finish_app(true);
        assert_eq!(progress.bar.position(), 1);
        progress.knee(2, 8);
        assert_eq!(
            (progress.bar.position(), progress.bar.length()),
            (2, Some(8))
        );
        let bar = progress.bar.clone();
        drop(progress);
        assert!(bar.is_finished());
    }
}
