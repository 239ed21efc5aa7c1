//! Every application, every variant, at the tiny size: each result must match the
//! application's reference within its stated tolerance (the report checks the full sizes).

use std::time::Duration;

use brook_apps::hand_transfer::HandWgpu;
use brook_apps::{applications, knee, measure, Budget, Env, Flavor, Scale};

/// Runs the named application's variants (the five of every application, and its
/// hand-written wgpu ones) and fails with every mismatch and error.
fn check(name: &str) {
    let env = Env::headless().expect("a headless GL context");
    let apps = applications::named(&[name.to_string()]).unwrap();
    let instance = apps[0].instance(&env, Scale::Tiny).unwrap();
    let flavors: Vec<Flavor> = instance.variants.iter().map(|(f, _)| *f).collect();
    let five = [Flavor::HandGl, Flavor::Rust]
        .into_iter()
        .chain(Flavor::BROOK);
    for flavor in five {
        assert!(flavors.contains(&flavor), "{name}: no {flavor} variant");
    }
    let variants = flavors.len();
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
    // A warm-up each, one timed round, a check each, one round of transfers.
    assert_eq!(stages, 2 * variants + 2, "{name}: the stages reported");
    let brook_gl = result.row(Flavor::BrookGl).unwrap();
    let (read, write) = brook_gl
        .transfers_versus_hand
        .expect("Brook GL's transfer ratios");
    assert_eq!((read.rounds, write.rounds), (1, 1), "{name}");
    if flavors.contains(&Flavor::HandWgpu) {
        let ratio = result.brook_wgpu_to_hand_wgpu();
        assert!(
            ratio.is_some(),
            "{name}: Brook wgpu has no ratio to hand wgpu"
        );
    }
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
    segment_fast_math => "Segment-fast-math",
    scan => "Scan",
    histogram => "Histogram",
    fft => "FFT",
    ray => "Ray",
    bitonic => "Bitonic",
}

/// The knee sweep checks every flavour's first call at each size (a wrong one is listed, not
/// timed) and gives each Brook flavour's ratio to hand-written GL over its rotated rounds.
#[test]
fn the_knee_sweep_checks_and_times_every_flavour() {
    let env = Env::headless().expect("a headless GL context");
    let mut sizes = Vec::new();
    let points = knee::sweep(
        &env,
        Scale::Tiny,
        Duration::from_millis(1),
        &mut |done, of| sizes.push((done, of)),
    )
    .unwrap();
    assert_eq!(sizes, [(0, 3), (1, 3), (2, 3)]);
    for p in &points {
        assert!(p.failures.is_empty(), "{}: {:?}", p.elements, p.failures);
        assert_eq!(p.per_call.len(), 3, "{}", p.elements);
        let brook: Vec<Flavor> = p.versus_hand_gl.iter().map(|(f, _)| *f).collect();
        assert_eq!(brook, [Flavor::BrookGl, Flavor::BrookCpu]);
        assert!(p.versus_hand_gl.iter().all(|(_, r)| r.rounds == 6));
    }
    assert_eq!(
        points.iter().map(|p| p.elements).collect::<Vec<_>>(),
        [1, 4, 16]
    );
}

/// The hand-written wgpu read back that Brook wgpu's streamWrite is timed against reads as
/// many floats as Brook's and does the same host work on them: Ray's Brook variant reads its
/// whole image (4 floats a pixel) and picks 3 floats of each compared pixel, where the hand
/// read once read the kept floats alone, then the whole image without the pick.
#[test]
fn the_hand_written_read_back_reads_what_brook_reads() {
    let env = Env::headless().expect("a headless GL context");
    let ray = applications::named(&["Ray".to_string()]).unwrap().remove(0);
    let instance = ray.instance(&env, Scale::Tiny).unwrap();
    let (_, mut brook) = (instance.variants.into_iter())
        .find(|(flavor, _)| *flavor == Flavor::BrookWgpu)
        .expect("a Brook wgpu variant");
    brook.upload().unwrap();
    brook.compute().unwrap();
    let kept = brook.download().unwrap();
    let read = brook.read_floats().expect("Ray reads more than it keeps");
    assert_eq!(read, 13 * 9 * 4, "the whole image");
    assert!(kept.len() < read, "{} floats kept", kept.len());
    let hand = HandWgpu::new(&env.wgpu, &brook.host_inputs(), &kept, read)
        .unwrap()
        .expect("a wgpu runtime with inputs");
    assert_eq!(hand.read_floats(), read);
    // Then the host work Brook's download does on what it read (Ray's pick of the compared
    // pixels), on as many floats, keeping as many.
    let kept_by_hand = std::cell::Cell::new(0);
    hand.download(&|read| {
        assert_eq!(read.len(), 13 * 9 * 4);
        let kept = brook.kept(read)?;
        kept_by_hand.set(kept.len());
        Ok(kept)
    })
    .expect("the hand read back checks what it read");
    assert_eq!(kept_by_hand.get(), kept.len());
}
