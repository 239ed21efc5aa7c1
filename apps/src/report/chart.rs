//! The report as a bar chart (PNG): per application, one bar per variant giving its compute
//! time relative to the hand-written GL version, on a log axis — the papers' figure turned
//! round so that "1×" is the reference GPU implementation.

use std::path::Path;

use crate::app::Flavor;
use crate::error::AppError;
use crate::measure::AppResult;

use super::canvas::{log_position, Canvas, Color, GRID, INK};

const COLORS: [(Flavor, Color); 5] = [
    (Flavor::HandGl, [90, 90, 90]),
    (Flavor::BrookGl, [31, 119, 180]),
    (Flavor::BrookWgpu, [148, 103, 189]),
    (Flavor::BrookCpu, [255, 127, 14]),
    (Flavor::Rust, [44, 160, 44]),
];
const BAR: i64 = 12;
const LEFT: i64 = 230;
const RIGHT: i64 = 40;
const TOP: i64 = 60;
const WIDTH: u32 = 1000;

/// Draws the chart of `results` (those with a hand-written GL row) into `path`.
pub fn bars(results: &[AppResult], title: &str, path: &Path) -> Result<(), AppError> {
    let shown: Vec<&AppResult> = results
        .iter()
        .filter(|r| r.row(Flavor::HandGl).is_some())
        .collect();
    let group = BAR * COLORS.len() as i64 + 14;
    let height = TOP + group * shown.len() as i64 + 70;
    let mut canvas = Canvas::new(WIDTH, height as u32);
    canvas.text(10, 10, title, 2, INK);
    let (lo, hi) = ratio_range(&shown);
    let right = canvas.width() - RIGHT;
    let axis_y = TOP + group * shown.len() as i64;
    // Grid lines at powers of 4 (1/64 … 64), the 1× line darker.
    let mut tick = lo;
    while tick <= hi * 1.0001 {
        let x = log_position(tick, lo, hi, LEFT, right);
        let is_one = (tick - 1.0).abs() < 1e-9;
        canvas.line(
            (x, TOP - 6),
            (x, axis_y),
            1,
            if is_one { INK } else { GRID },
        );
        let label = if tick >= 1.0 {
            format!("{tick:.0}x")
        } else {
            format!("1/{:.0}x", 1.0 / tick)
        };
        canvas.text(
            x - Canvas::text_width(&label, 1) / 2,
            axis_y + 6,
            &label,
            1,
            INK,
        );
        tick *= 4.0;
    }
    let note = "compute time relative to hand-written GL (log scale; shorter is faster)";
    canvas.text(LEFT, axis_y + 22, note, 1, INK);
    for (i, result) in shown.iter().enumerate() {
        let y0 = TOP + group * i as i64;
        canvas.text(10, y0 + group / 2 - 8, result.name.as_str(), 2, INK);
        for (b, (flavor, color)) in COLORS.iter().enumerate() {
            let Some(ratio) = result.ratio_to_hand_gl(*flavor) else {
                continue;
            };
            let y = y0 + b as i64 * BAR;
            let x = log_position(ratio, lo, hi, LEFT, right);
            canvas.rect(LEFT, y, x.max(LEFT + 1), y + BAR - 3, *color);
            canvas.text(x + 4, y + 1, &format!("{ratio:.2}"), 1, INK);
        }
    }
    // The legend, under the axis note.
    let mut x = LEFT;
    for (flavor, color) in COLORS {
        canvas.rect(x, axis_y + 40, x + 10, axis_y + 50, color);
        canvas.text(x + 14, axis_y + 41, flavor.label(), 1, INK);
        x += 30 + Canvas::text_width(flavor.label(), 1);
    }
    canvas.save(path)
}

/// Powers of 4 around every ratio shown, at least 1/4 to 4.
fn ratio_range(results: &[&AppResult]) -> (f64, f64) {
    let ratios = results
        .iter()
        .flat_map(|r| COLORS.iter().filter_map(|(f, _)| r.ratio_to_hand_gl(*f)));
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
