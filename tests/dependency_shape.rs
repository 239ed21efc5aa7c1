//! The crate graph has the shape `docs/architecture.md` draws (issue 29): the IR at the bottom,
//! no front end below `brook-core`, an explorer that reads the seam rather than GL, GPU
//! backends that do not depend on each other, and a CPU-only build of `brook` with no GPU API
//! in its tree. Read from `cargo tree` on the lock file (offline), so a dependency added in the
//! wrong place fails here rather than in a reader's head.

use std::process::Command;

/// The packages in the normal-dependency tree of `package` built with `features`.
fn tree(package: &str, features: &[&str]) -> Vec<String> {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["tree", "--offline", "--edges", "normal", "--prefix", "none"])
        .args(["--format", "{p}", "--package", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.args(features);
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Asserts that none of `forbidden` is in `package`'s tree.
fn lacks(package: &str, features: &[&str], forbidden: &[&str]) {
    let packages = tree(package, features);
    assert!(packages.iter().any(|p| p == package), "{packages:?}");
    for f in forbidden {
        assert!(
            !packages.iter().any(|p| p == f),
            "`{package}` {features:?} depends on `{f}`"
        );
    }
}

#[test]
fn brook_core_is_below_the_front_end() {
    lacks(
        "brook-core",
        &[],
        &["brook-frontend", "glow", "glutin", "wgpu"],
    );
}

#[test]
fn the_explorer_reads_the_seam_not_gl() {
    lacks(
        "brook-explain",
        &[],
        &[
            "brook-passes",
            "brook-glsl",
            "brook-texture-streams",
            "glow",
            "glutin",
        ],
    );
}

#[test]
fn the_gpu_backends_do_not_depend_on_each_other() {
    // (glow is in brook-wgpu's tree through wgpu's own GL backend, not through brook's.)
    lacks(
        "brook-wgpu",
        &[],
        &["brook-glsl", "brook-passes", "brook-texture-streams"],
    );
    lacks("brook-passes", &[], &["brook-wgpu", "wgpu"]);
}

#[test]
fn a_cpu_only_build_has_no_gpu_api_in_its_tree() {
    lacks(
        "brook",
        &["--no-default-features", "--features", "cpu"],
        &[
            "wgpu",
            "naga",
            "glow",
            "glutin",
            "brook-passes",
            "brook-wgpu",
            "brook-explain",
        ],
    );
    // The default build has every backend, the check above is not vacuous.
    let all = tree("brook", &[]);
    for backend in ["brook-passes", "brook-wgpu", "brook-cpu", "brook-explain"] {
        assert!(all.iter().any(|p| p == backend), "{backend} in {all:?}");
    }
}
