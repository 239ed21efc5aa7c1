//! Criterion benches of every application's four variants, so regressions are tracked
//! (`cargo bench -p brook-apps`). Quick sizes by default; `BROOK_APPS_SCALE=full` for the
//! papers' sizes. Each application is one group; after it, the medians are printed as ratios
//! to the hand-written GL version.

use criterion::{criterion_group, criterion_main, Criterion};

use brook_apps::{applications, Env, Flavor, Scale};

#[path = "../../benches/common/ratios.rs"]
mod ratios;

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
        let instance = app
            .instance(&env, scale())
            .unwrap_or_else(|e| panic!("{}: {e}", app.name()));
        let mut group = c.benchmark_group(&group_name);
        group.sample_size(10);
        let mut slugs = Vec::new();
        for (flavor, mut variant) in instance.variants {
            variant.upload().expect("upload");
            group.bench_function(flavor.slug(), |b| {
                b.iter(|| {
                    variant.compute().expect("compute");
                    variant.sync();
                })
            });
            slugs.push(flavor.slug());
        }
        group.finish();
        ratios::print_ratios(&group_name, Flavor::HandGl.slug(), &slugs, "per run");
    }
}

criterion_group!(benches, apps);
criterion_main!(benches);
