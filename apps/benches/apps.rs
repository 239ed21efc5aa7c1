//! Criterion benches of every application's variants, so regressions are tracked
//! (`cargo bench -p brook-apps`). Quick sizes by default; `BROOK_APPS_SCALE=full` for the
//! papers' sizes. Each application is one comparison: every variant is checked against the
//! application's reference first, then timed in rotated rounds, and the ratios to the
//! hand-written GL version are printed with their intervals.

use std::cell::RefCell;

use brook_apps::{applications, Env, Flavor, Scale};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use criterion::{criterion_group, criterion_main, Criterion};

fn scale() -> Scale {
    match std::env::var("BROOK_APPS_SCALE").as_deref() {
        Ok("full") => Scale::Full,
        _ => Scale::Quick,
    }
}

fn apps(c: &mut Criterion) {
    let env = Env::headless().expect("a headless GL context");
    for app in applications::all() {
        let group_name = format!("app_{}", app.name().to_lowercase().replace(' ', "_"));
        let mut instance = app
            .instance(&env, scale())
            .unwrap_or_else(|e| panic!("{}: {e}", app.name()));
        // The hand-written GL version is the baseline of the ratios.
        instance
            .variants
            .sort_by_key(|(flavor, _)| *flavor != Flavor::HandGl);
        let mut comparison = Comparison::new(
            group_name,
            "per run",
            1,
            instance.reference.clone(),
            Tolerance::Scaled(instance.tolerance.0),
        );
        for (flavor, mut variant) in instance.variants {
            variant.upload().expect("upload");
            let variant = std::rc::Rc::new(RefCell::new(variant));
            let reader = variant.clone();
            comparison = comparison.variant(Variant::new(
                flavor.slug(),
                move |n| {
                    let mut v = variant.borrow_mut();
                    for _ in 0..n {
                        v.compute().expect("compute");
                    }
                    v.sync();
                },
                move || reader.borrow_mut().download().expect("download"),
            ));
        }
        comparison.run(c);
    }
}

criterion_group!(benches, apps);
criterion_main!(benches);
