//! Every application, every variant, at the tiny size: each result must match the
//! application's reference within its stated tolerance (the report checks the full sizes).

use std::time::Duration;

use brook_apps::{applications, measure, Budget, Env, Flavor, Scale};

/// Runs the named application's five variants and fails with every mismatch and error.
fn check(name: &str) {
    let env = Env::headless().expect("a headless GL context");
    let apps = applications::named(&[name.to_string()]).unwrap();
    let instance = apps[0].instance(&env, Scale::Tiny).unwrap();
    assert_eq!(instance.variants.len(), 5, "{name}: five variants");
    let mut stages = 0;
    let result = measure(
        name,
        apps[0].baseline(),
        instance,
        Budget::CHECK_ONLY,
        |_| true,
        Some(&env),
        &mut |_| stages += 1,
    );
    assert!(result.failures.is_empty(), "{name}: {:?}", result.failures);
    // Five warm-ups, one timed round, five checks.
    assert_eq!(stages, 11, "{name}: the stages reported");
    for row in &result.rows {
        // The first compute on a fresh runtime compiles every Brook function it calls.
        let brook = matches!(row.flavor, Flavor::BrookGl | Flavor::BrookCpu);
        assert_eq!(row.compile.is_some(), brook, "{name} {}", row.flavor);
        if let Some(compile) = row.compile {
            assert!(
                compile > Duration::ZERO,
                "{name} {}: nothing compiled",
                row.flavor
            );
        }
        assert!(
            row.passed,
            "{name} {}: error {:.3e} over the tolerance {:.0e}",
            row.flavor, row.error, result.tolerance.0
        );
    }
}

macro_rules! app_tests {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(#[test] fn $test() { check($name); })*

        #[test]
        fn every_application_has_a_test() {
            let tested = [$($name),*];
            for app in applications::all() {
                assert!(tested.contains(&app.name()), "{} has no test here", app.name());
            }
        }
    };
}

app_tests! {
    saxpy => "SAXPY",
    sgemv => "SGEMV",
    sgemv_gather => "SGEMV-gather",
    matvec => "matvec",
    sasum => "SASUM",
    matmul => "matmul",
    life => "Life",
    convolve => "Convolve",
    rotate => "Rotate",
    segment => "Segment",
    scan => "Scan",
    histogram => "Histogram",
    fft => "FFT",
    ray => "Ray",
    bitonic => "Bitonic",
}
