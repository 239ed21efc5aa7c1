//! What the window test files share: whether a window can open, and how far two pictures
//! differ.

/// `true` when there is an X display. Without one the test should return, skipped: this
/// prints why, and fails instead where `CI` is set, since CI runs under Xvfb (`.ci/run`) and
/// a missing display there means the window was never tested.
pub fn display_available() -> bool {
    if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but DISPLAY is not: run the suite under `xvfb-run -a`, as .ci/run does"
    );
    println!("skipped: no DISPLAY (run under `xvfb-run -a`, as .ci/run does)");
    false
}

/// The largest difference of any channel of any pixel (the pictures have the same size).
pub fn max_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> u8 {
    a.pixels()
        .zip(b.pixels())
        .flat_map(|(p, q)| p.0.into_iter().zip(q.0).map(|(x, y)| x.abs_diff(y)))
        .max()
        .unwrap_or(0)
}
