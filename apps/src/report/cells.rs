//! The report's table: one row per application and variant, formatted once into cells and
//! then laid out as aligned text or as Markdown.

use std::time::Duration;

use crate::app::Flavor;
use crate::measure::{AppResult, Ratio, Row};

/// Column titles.
pub const HEADER: [&str; 12] = [
    "application",
    "variant",
    "compute",
    "compile",
    "rate",
    "× hand GL",
    "× hand wgpu",
    "streamRead",
    "streamWrite",
    "read, write ÷ hand",
    "error",
    "check",
];

fn duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// A ratio as the tables print it: the median of per-round ratios and its 95% interval, "≈"
/// where the interval holds 1; fewer than 6 rounds give no 95% interval, so their count is
/// said instead.
pub(crate) fn ratio_text(r: &Ratio) -> String {
    if r.has_interval() {
        format!(
            "{}{:.2}× [{:.2}, {:.2}]",
            if r.is_equal() { "≈" } else { "" },
            r.median,
            r.interval.0,
            r.interval.1
        )
    } else {
        format!(
            "{:.2}× ({} round{})",
            r.median,
            r.rounds,
            if r.rounds == 1 { "" } else { "s" }
        )
    }
}

fn row_cells(result: &AppResult, row: &Row, first: bool) -> Vec<String> {
    let (rate, unit) = result.work.rate(row.compute.as_secs_f64());
    let ratio = match row.versus_hand_gl {
        Some(r) if row.flavor != Flavor::HandGl => ratio_text(&r),
        _ => "—".into(),
    };
    let versus_wgpu = match row.versus_hand_wgpu {
        Some(r) if row.flavor != Flavor::HandWgpu => ratio_text(&r),
        _ => "—".into(),
    };
    vec![
        if first {
            format!("{} ({})", result.name, result.size)
        } else {
            String::new()
        },
        if row.flavor == Flavor::HandGl {
            format!("{} ({})", row.flavor.label(), result.baseline.label())
        } else {
            row.flavor.label().to_string()
        },
        duration(row.compute),
        row.compile.map_or_else(|| "—".into(), duration),
        format!("{rate:.1} {unit}"),
        ratio,
        versus_wgpu,
        duration(row.upload),
        duration(row.download),
        row.transfers_versus_hand.map_or_else(
            || "—".into(),
            |(r, w)| format!("{}, {}", ratio_text(&r), ratio_text(&w)),
        ),
        format!("{:.1e}", row.error),
        if row.passed {
            "ok".to_string()
        } else {
            format!("FAILED (> {:.0e})", result.tolerance.0)
        },
    ]
}

fn table(results: &[AppResult]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for result in results {
        for (i, row) in result.rows.iter().enumerate() {
            rows.push(row_cells(result, row, i == 0));
        }
        for (flavor, why) in &result.failures {
            let mut cells = vec![String::new(); HEADER.len()];
            if result.rows.is_empty() {
                cells[0] = format!("{} ({})", result.name, result.size);
            }
            cells[1] = flavor.label().to_string();
            cells[HEADER.len() - 1] = format!("FAILED: {why}");
            rows.push(cells);
        }
    }
    rows
}

/// The table as aligned text, numbers right-aligned.
pub fn text(results: &[AppResult]) -> String {
    let rows = table(results);
    let header: Vec<String> = HEADER.iter().map(|h| h.to_string()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            // The last column (check) may be long; it is not padded.
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - cell.chars().count();
            let numeric = (2..11).contains(&i);
            if i == cells.len() - 1 {
                out.push_str(cell);
            } else if numeric {
                out.push_str(&format!("{}{cell}  ", " ".repeat(pad)));
            } else {
                out.push_str(&format!("{cell}{}  ", " ".repeat(pad)));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(&header);
    out.push_str(&"─".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
    out.push('\n');
    for row in &rows {
        out.push_str(&line(row));
    }
    out
}

/// The table in GitHub Markdown.
pub fn markdown(results: &[AppResult]) -> String {
    let mut out = format!("| {} |\n", HEADER.join(" | "));
    out.push('|');
    for i in 0..HEADER.len() {
        out.push_str(if (2..11).contains(&i) {
            " ---: |"
        } else {
            " --- |"
        });
    }
    out.push('\n');
    for row in table(results) {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}
