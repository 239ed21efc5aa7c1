//! The report as a bar chart (PNG or SVG): per application, one bar per variant giving its
//! compute time relative to the hand-written GL version, on a log axis — the papers' figure
//! turned round so that "1×" is the reference GPU implementation.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::app::Flavor;
use crate::error::AppError;
use crate::measure::{AppResult, Ratio};

use super::figure::{color, powers, save, Figure, Format, FONT};

/// Pixels per application (five bars and a gap).
const GROUP: u32 = 74;
const WIDTH: u32 = 1000;
/// Title, axis and legend.
const FRAME: u32 = 150;

/// Draws the chart of `results` (those with a hand-written GL row) into `path`.
pub fn bars(
    results: &[AppResult],
    title: &str,
    path: &Path,
    format: Format,
) -> Result<(), AppError> {
    let shown = results
        .iter()
        .filter(|r| r.row(Flavor::HandGl).is_some())
        .collect();
    save(&Bars { shown, title }, path, format)
}

struct Bars<'a> {
    shown: Vec<&'a AppResult>,
    title: &'a str,
}

impl Figure for Bars<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, FRAME + GROUP * self.shown.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let (chart_area, legend_area) = root.split_vertically(self.size().1 - 40);
        let (lo, hi) = ratio_range(&self.shown);
        let n = self.shown.len();
        // An empty chart still gets a band, for a well-formed axis.
        let rows = n.max(1) as f64;
        // Application i's band is centred on y = n-1-i (the first at the top); only those
        // integers are labelled, with the application's name.
        let name_at = |y: &f64| {
            let band = y.round();
            let i = n as f64 - 1.0 - band;
            if (y - band).abs() > 1e-6 || i < 0.0 {
                return String::new();
            }
            self.shown
                .get(i as usize)
                .map_or(String::new(), |r| r.name.clone())
        };
        // Padded a little so that rounding cannot push the lowest power off the axis.
        let x_range = (lo * 0.999..hi * 1.001).log_scale().base(4.0);
        let mut chart = ChartBuilder::on(&chart_area)
            .caption(self.title, (FONT, 22))
            .margin(12)
            .margin_right(50)
            .x_label_area_size(50)
            .y_label_area_size(130)
            .build_cartesian_2d(x_range, -0.5..rows - 0.5)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(powers(lo, hi, 4.0).len())
            .y_labels(rows as usize)
            .x_desc("compute time relative to hand-written GL (log scale; shorter is faster)")
            .x_label_formatter(&|r| ratio_label(*r))
            .y_label_formatter(&name_at)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 15))
            .draw()?;
        let slot = 0.8 / Flavor::ALL.len() as f64;
        for (b, flavor) in Flavor::ALL.into_iter().enumerate() {
            let fill = color(flavor).filled();
            // Each bar: the median of the per-round ratios, and y from y0 to y1.
            // Brook wgpu's bar also says its ratio to hand-written wgpu (issue 34).
            let bars: Vec<(Ratio, f64, f64, String)> = self
                .shown
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    let top = (n - i) as f64 - 0.6 - b as f64 * slot;
                    let row = r.row(flavor)?;
                    let ratio = row.versus_hand_gl?;
                    let text = match row.versus_hand_wgpu {
                        Some(w) if flavor == Flavor::BrookWgpu => {
                            format!("{:.2} ({:.2}× hand wgpu)", ratio.median, w.median)
                        }
                        _ => format!("{:.2}", ratio.median),
                    };
                    Some((ratio, top - slot * 0.85, top, text))
                })
                .collect();
            chart.draw_series(bars.iter().map(|(ratio, y0, y1, _)| {
                Rectangle::new([(lo, *y0), (ratio.median, *y1)], fill)
            }))?;
            // The ratio's 95% interval over the timed rounds, as a whisker through the bar's end.
            chart.draw_series(bars.iter().map(|(ratio, y0, y1, _)| {
                let ((from, to), y) = (ratio.interval, (y0 + y1) / 2.0);
                PathElement::new([(from, y), (to, y)], BLACK)
            }))?;
            let value =
                TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
            chart.draw_series(bars.iter().map(|(ratio, y0, y1, text)| {
                EmptyElement::at((ratio.interval.1.max(ratio.median), (y0 + y1) / 2.0))
                    + Text::new(text.clone(), (4, 0), value.clone())
            }))?;
        }
        chart.draw_series(LineSeries::new([(1.0, -0.5), (1.0, rows - 0.5)], BLACK))?;
        legend(&legend_area)
    }
}

/// One swatch and label per variant, in a row under the axis.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let mut x = 142;
    for flavor in Flavor::ALL {
        area.draw(&Rectangle::new(
            [(x, 12), (x + 14, 26)],
            color(flavor).filled(),
        ))?;
        area.draw(&Text::new(flavor.label(), (x + 20, 19), style.clone()))?;
        let (width, _) = area.estimate_text_size(flavor.label(), &style)?;
        x += 44 + width as i32;
    }
    Ok(())
}

/// `4×`, `1×`, `1/4×`.
fn ratio_label(r: f64) -> String {
    if r >= 1.0 {
        format!("{r:.0}×")
    } else {
        format!("1/{:.0}×", 1.0 / r)
    }
}

/// Powers of 4 around every ratio shown, at least 1/4 to 4.
fn ratio_range(results: &[&AppResult]) -> (f64, f64) {
    let ratios = results
        .iter()
        .flat_map(|r| Flavor::ALL.map(|f| r.ratio_to_hand_gl(f)))
        .flatten();
    let (mut lo, mut hi) = (0.25f64, 4.0f64);
    for r in ratios.filter(|r| r.is_finite() && *r > 0.0) {
        while r < lo {
            lo /= 4.0;
        }
        while r > hi {
            hi *= 4.0;
        }
    }
    (lo, hi)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::{Baseline, Tolerance, Work};
    use crate::measure::Row;
    use crate::report::figure::tests::{assert_png, assert_svg};

    /// An application whose variants took `millis` each, hand-written GL first; each ratio's
    /// interval is ±10%.
    pub(crate) fn result(name: &str, millis: &[(Flavor, f64)]) -> AppResult {
        let hand = millis
            .iter()
            .find(|(f, _)| *f == Flavor::HandGl)
            .map(|m| m.1);
        let versus = |ms: f64| {
            hand.map(|h| Ratio {
                median: ms / h,
                interval: (0.9 * ms / h, 1.1 * ms / h),
                rounds: 15,
            })
        };
        AppResult {
            name: name.into(),
            baseline: Baseline::SamePasses,
            size: "4×4".into(),
            work: Work::Flops(1e6),
            tolerance: Tolerance(1e-5),
            rows: millis
                .iter()
                .map(|&(flavor, ms)| Row {
                    flavor,
                    upload: Duration::from_micros(120),
                    compute: Duration::from_secs_f64(ms / 1e3),
                    compile: (flavor == Flavor::BrookGl).then(|| Duration::from_millis(30)),
                    download: Duration::from_micros(80),
                    runs: 10,
                    error: 1e-7,
                    passed: true,
                    versus_hand_gl: versus(ms),
                    transfers_versus_hand: None,
                    versus_hand_wgpu: None,
                })
                .collect(),
            failures: vec![],
        }
    }

    #[test]
    fn the_bar_chart_is_written_as_png_and_svg_with_every_label() {
        let results = [
            result(
                "SAXPY",
                &[
                    (Flavor::HandGl, 1.0),
                    (Flavor::BrookGl, 1.1),
                    (Flavor::BrookWgpu, 3.0),
                    (Flavor::BrookCpu, 40.0),
                    (Flavor::Rust, 0.1),
                ],
            ),
            result("FFT", &[(Flavor::HandGl, 2.0), (Flavor::BrookGl, 2.5)]),
            // Without a hand-written GL row there is nothing to compare with: not drawn.
            result("Lonely", &[(Flavor::Rust, 1.0)]),
        ];
        assert_eq!(
            ratio_range(&results.iter().collect::<Vec<_>>()),
            (1.0 / 16.0, 64.0)
        );
        let dir = std::env::temp_dir().join(format!("brook-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (png, svg) = (dir.join("bars.png"), dir.join("bars.svg"));
        bars(&results, "Brook on test", &png, Format::Png).unwrap();
        bars(&results, "Brook on test", &svg, Format::Svg).unwrap();
        assert_png(&png, (WIDTH, FRAME + 2 * GROUP));
        let mut labels: Vec<&str> = Flavor::ALL.iter().map(|f| f.label()).collect();
        labels.extend(["Brook on test", "SAXPY", "FFT", "40.00", "1/16×", "64×"]);
        assert_svg(&svg, &labels);
        assert!(!std::fs::read_to_string(&svg).unwrap().contains("Lonely"));
        // Nothing to compare: an empty chart with its axis and legend, not an error.
        bars(&results[2..], "Nothing", &png, Format::Png).unwrap();
        assert_png(&png, (WIDTH, FRAME + GROUP));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
