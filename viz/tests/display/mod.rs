//! Whether the window tests can open a window (shared by the window test files).

/// `true` when there is an X display. Without one the test should return, skipped: this
/// prints why, and fails instead where `CI` is set, since CI runs under Xvfb (`.ci/run`) and
/// a missing display there means the window was never tested.
pub fn available() -> bool {
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
