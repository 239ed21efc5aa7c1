//! Frame and kernel times for the overlay, smoothed so the numbers can be read.

use std::time::{Duration, Instant};

/// Weight of the newest sample in the moving averages.
const SMOOTHING: f64 = 0.1;

#[derive(Debug)]
pub(crate) struct Stats {
    last_frame: Option<Instant>,
    /// Seconds between frames, smoothed.
    frame: f64,
    /// Seconds of the step (kernels run and finished), smoothed.
    kernels: f64,
    pub steps: u64,
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            last_frame: None,
            frame: 0.0,
            kernels: 0.0,
            steps: 0,
        }
    }

    /// A frame was presented now.
    pub fn frame_done(&mut self, now: Instant) {
        if let Some(last) = self.last_frame {
            self.frame = mix(self.frame, (now - last).as_secs_f64());
        }
        self.last_frame = Some(now);
    }

    /// A step took `took` (its kernels included, waited for with `finish`).
    pub fn step_done(&mut self, took: Duration) {
        self.steps += 1;
        self.kernels = mix(self.kernels, took.as_secs_f64());
    }

    /// The smoothed step time in seconds.
    pub fn kernel_seconds(&self) -> f64 {
        self.kernels
    }

    /// The overlay's first line.
    pub fn line(&self, paused: bool) -> String {
        let fps = if self.frame > 0.0 {
            1.0 / self.frame
        } else {
            0.0
        };
        format!(
            "step {}  {:.1} ms/frame ({:.0} fps)  kernels {:.2} ms{}  h: help",
            self.steps,
            self.frame * 1e3,
            fps,
            self.kernels * 1e3,
            if paused { "  PAUSED" } else { "" }
        )
    }
}

/// The first sample is taken as is; later ones are blended in.
fn mix(average: f64, sample: f64) -> f64 {
    if average == 0.0 {
        sample
    } else {
        average + SMOOTHING * (sample - average)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_steps_and_smooths_times() {
        let mut stats = Stats::new();
        stats.step_done(Duration::from_millis(4));
        stats.step_done(Duration::from_millis(14));
        assert_eq!(stats.steps, 2);
        assert!((stats.kernels - 0.005).abs() < 1e-9);
        let t0 = Instant::now();
        stats.frame_done(t0);
        stats.frame_done(t0 + Duration::from_millis(20));
        assert!((stats.frame - 0.020).abs() < 1e-9);
        let line = stats.line(true);
        assert!(
            line.contains("step 2") && line.contains("20.0 ms/frame") && line.contains("PAUSED")
        );
    }
}
