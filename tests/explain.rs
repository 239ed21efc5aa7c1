//! The pipeline explorer (issue 17): sites written from real runs, checked file by file
//! (a card per trace entry, every picture present and decodable, pictures holding the values
//! the streams hold, the size cap) and loaded in a real browser (headless Chromium).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use brook::core::SourceText;
use brook::explain::{self, ExplainError, Options, Recording};
use brook::{args, Runtime, ScatterOp, TraceEntry};

const SOURCE: &str = "kernel void twice(float a<>, out float b<>) {
    b = 2.0 * a;
}
reduce void sum(float a<>, reduce float r<>) {
    r += a;
}
kernel void dup(float a<>, vout [2] float o<>) {
    o = a;
    push(o);
    push(o);
}
";

fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

/// A run with one call of every kind: kernel, reduction, scatter, write mask and a masked
/// kernel, swap, vout.
fn every_kind(rt: &Runtime, max_side: u32) -> (Recording, Vec<SourceText>) {
    // Every call its own card, in call order, on every backend alike (GL would compute
    // `twice` inside `sum`: brcc_explain_shows_kernels_fused_into_the_reductions_of_their_output).
    rt.set_automatic_fusion(false).unwrap();
    let p = rt.compile(SOURCE, "every.br").unwrap();
    let stream = |n: usize, data: &[f32]| {
        let s = rt.stream_of(1, &[n]).unwrap();
        s.read(data).unwrap();
        s
    };
    let a = stream(64, &ramp(64));
    let b = stream(64, &[0.0; 64]);
    let index = stream(64, &(0..64).map(|i| (i % 4) as f32).collect::<Vec<_>>());
    let dst = stream(4, &[0.0; 4]);
    let mask = stream(64, &(0..64).map(|i| (i % 2) as f32).collect::<Vec<_>>());
    let o = rt.stream_of(1, &[128]).unwrap();
    let (ran, recording) = rt.explain(max_side, |rt| -> Result<(), brook::BrookError> {
        rt.run(&p, "twice", args![&a, &b])?;
        let total = rt.reduce_to_value(&p, "sum", &b, args![])?;
        assert_eq!(total, [4032.0]);
        rt.scatter(&dst, &index, &b, ScatterOp::Add)?;
        rt.set_write_mask(&mask)?;
        rt.enable_write_mask()?;
        rt.run(&p, "twice", args![&b, &b])?;
        rt.disable_write_mask()?;
        rt.swap(&a, &b)?;
        rt.run_vout(&p, "dup", args![&a, &o])?;
        Ok(())
    });
    ran.unwrap();
    (recording, vec![p.source().clone()])
}

/// A fresh directory under the target dir.
fn site_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("explain")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The `src` of every `<img>` of a page.
fn image_sources(html: &str) -> Vec<String> {
    html.split("<img src=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn a_site_has_a_card_per_operation_and_every_picture_decodes() {
    let rt = support::gl_with(None, None);
    let (recording, sources) = every_kind(&rt, 32);
    let dir = site_dir("every-kind");
    let summary = explain::write(&recording, &sources, &dir, &Options::default()).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();

    assert_eq!(summary.cards, recording.trace.len());
    assert_eq!(
        html.matches("<section class=\"card\"").count(),
        summary.cards
    );
    let passes: usize = recording.trace.iter().map(|e| e.passes().len()).sum();
    assert_eq!((summary.passes, recording.shots.len()), (passes, passes));
    for kind in [
        "kernel",
        "reduction",
        "scatter",
        "write mask",
        "swap",
        "vout",
    ] {
        assert!(
            html.contains(&format!("data-kind=\"{kind}\"")),
            "no {kind} card"
        );
    }
    assert!(html.contains("kernel `twice`") && html.contains("reduction `sum`"));
    // The Brook source of the kernel, and its line quoted in the GLSL, highlighted; both
    // syntax-coloured.
    assert!(visible(&html).contains("b = 2.0 * a;"));
    assert!(
        html.lines().any(|l| l.starts_with("<span class=\"q\">")
            && visible(l) == "    // every.br:2: b = 2.0 * a;"),
        "the quoted line is not marked"
    );
    assert!(html.contains("<span style=\"color:"), "no syntax colouring");
    assert!(html.contains("tested against the write mask"));
    assert!(
        !html.contains("called at"),
        "the Rust host code is not among the sources"
    );
    assert!(html.contains("points 0..64"));
    // The masked call shows the depth buffer's mask beside the kept elements.
    assert!(html.contains("<h4>depth buffer: the write mask</h4>"));
    assert!(html.contains("<figure class=\"kept\""));

    let sources = image_sources(&html);
    assert!(sources.len() > 2 * passes, "{} images", sources.len());
    let mut files: Vec<String> = std::fs::read_dir(dir.join("images"))
        .unwrap()
        .map(|e| format!("images/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    let mut referenced = sources.clone();
    referenced.sort();
    referenced.dedup();
    assert_eq!(
        files, referenced,
        "every picture written is shown, and only those"
    );
    for file in &files {
        let image = image::open(dir.join(file)).unwrap();
        let size = (image.width(), image.height());
        assert!(size.0 <= 32 && size.1 <= 32, "{file}: {size:?}");
    }
    assert_eq!(summary.images, files.len());
    // A ramp and twice the ramp look alike but are two pictures (their values differ).
    let values = std::fs::read_to_string(dir.join("values.js")).unwrap();
    // (Every second texel: max_side 32 for 64 texels.)
    assert!(values.contains("=[0,2,4,6,8,10") && values.contains("=[0,4,8,12,16"));
}

#[test]
fn pictures_hold_the_textures_before_and_after_each_pass() {
    let rt = support::gl_with(None, None);
    let (recording, _) = every_kind(&rt, 128);
    // The first pass is `twice` into `b`: zeros before, 2 × ramp after.
    let first = &recording.shots[0];
    let before = first.before[0].as_ref().unwrap();
    let after = first.after[0].as_ref().unwrap();
    let twice: Vec<f32> = ramp(64).iter().map(|v| 2.0 * v).collect();
    assert_eq!((after.width, after.height), (64, 1));
    assert_eq!(&after.values[..64], &twice[..]);
    assert_eq!(&before.values[..64], &[0.0; 64][..]);
    assert_eq!(after.range, Some((0.0, 126.0)));
    let input = first.inputs[0].as_ref().unwrap();
    assert_eq!(&input.values[..64], &ramp(64)[..]);

    // The reduction's passes shrink their target down to one texel: the ladder.
    let (start, entry) = recording
        .trace
        .iter()
        .scan(0, |at, e| {
            let start = *at;
            *at += e.passes().len();
            Some((start, e))
        })
        .find(|(_, e)| matches!(e, TraceEntry::Reduce(_)))
        .unwrap();
    let sizes: Vec<u32> = (start..start + entry.passes().len())
        .map(|k| {
            let p = recording.shots[k].after[0].as_ref().unwrap();
            let [_, _, w, h] = recording.shots[k].pass.viewport;
            assert!(p.width * p.height >= (w * h) as u32);
            (w * h) as u32
        })
        .collect();
    assert!(
        sizes.len() > 1 && sizes.windows(2).all(|w| w[1] < w[0]),
        "{sizes:?}"
    );
    assert_eq!(*sizes.last().unwrap(), 1);
}

#[test]
fn large_streams_are_downsampled_with_their_extents_stated() {
    let rt = support::gl_with(None, None);
    let p = rt.compile(SOURCE, "every.br").unwrap();
    let a = rt.stream_of(1, &[300, 1000]).unwrap();
    a.read(&ramp(300_000)).unwrap();
    let b = rt.stream_of(1, &[300, 1000]).unwrap();
    let (ran, recording) = rt.explain(100, |rt| rt.run(&p, "twice", args![&a, &b]));
    ran.unwrap();
    let shot = &recording.shots[0];
    let after = shot.after[0].as_ref().unwrap();
    assert_eq!((after.width, after.height, after.step), (1000, 300, 10));
    assert_eq!(after.shown(), (100, 30));
    // The value under the pointer at the last pixel shown.
    assert_eq!(after.values.len(), 100 * 30);
    assert_eq!(after.values[100 * 30 - 1], 2.0 * (290.0 * 1000.0 + 990.0));
    // Every 10th texel of every 10th row: the largest shown is row 290, column 990.
    assert_eq!(after.range, Some((0.0, 2.0 * (290.0 * 1000.0 + 990.0))));
    let dir = site_dir("large");
    explain::write(&recording, &[], &dir, &Options::default()).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("1000×300 texels of float, one in 10 shown each way"));
}

#[test]
fn over_the_size_limit_nothing_is_written_and_the_error_says_so() {
    let rt = support::gl_with(None, None);
    let (recording, sources) = every_kind(&rt, 128);
    let dir = site_dir("too-large");
    let options = Options {
        max_bytes: 10_000,
        ..Options::default()
    };
    let err = explain::write(&recording, &sources, &dir, &options).unwrap_err();
    assert!(
        matches!(err, ExplainError::TooLarge { needed, limit: 10_000 } if needed > 10_000),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("over the limit of 10000 bytes"),
        "{message}"
    );
    assert!(!dir.exists());
}

/// The CPU has no textures to photograph: its cards show the streams each operation wrote,
/// read back after it.
#[test]
fn cpu_cards_show_the_streams_each_operation_wrote() {
    let rt = Runtime::cpu();
    let (recording, sources) = every_kind(&rt, 128);
    assert!(recording.shots.is_empty());
    // twice, sum, scatter, write mask, masked twice, swap, vout.
    assert_eq!(recording.operations.len(), 7);
    let outcome = |op: usize, k: usize| {
        recording.operations[op].outcomes[k]
            .sampled
            .as_ref()
            .unwrap()
            .values
            .clone()
    };
    let twice: Vec<f32> = ramp(64).iter().map(|v| 2.0 * v).collect();
    assert_eq!(outcome(0, 0), twice);
    assert_eq!(outcome(1, 0), [4032.0]);
    // The scatter added b's elements into dst[i % 4].
    let scattered: Vec<f32> = (0..4)
        .map(|j| twice.iter().skip(j).step_by(4).sum())
        .collect();
    assert_eq!(outcome(2, 0), scattered);
    // The masked call doubled b's odd elements only.
    let masked: Vec<f32> = twice
        .iter()
        .enumerate()
        .map(|(i, v)| if i % 2 == 1 { 2.0 * v } else { *v })
        .collect();
    assert_eq!(outcome(4, 0), masked);
    let dir = site_dir("cpu");
    let summary = explain::write(&recording, &sources, &dir, &Options::default()).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(summary.cards, recording.trace.len());
    assert!(
        summary.cards >= 7,
        "a card for the write mask and the swap too"
    );
    assert!(html.contains("data-kind=\"write mask\"") && html.contains("data-kind=\"swap\""));
    assert_eq!(html.matches("<div class=\"binding results\"").count(), 8);
    assert!(!image_sources(&html).is_empty());
    assert!(html.contains("no textures to photograph"));
    let values = std::fs::read_to_string(dir.join("values.js")).unwrap();
    assert!(values.contains("=[0,2,4,6,8,10") && values.contains("=[4032]"));
}

/// `every_kind` on GL, the CPU and wgpu, compared: the same operations, their results
/// side by side, and no element beyond the tolerance — until one is changed.
#[test]
fn backends_side_by_side_agree_and_a_changed_element_is_marked() {
    let runtimes = [
        support::gl_with(None, None),
        Runtime::cpu(),
        support::wgpu(),
    ];
    let mut recordings: Vec<Recording> = Vec::new();
    let mut sources = Vec::new();
    for rt in &runtimes {
        let (recording, s) = every_kind(rt, 128);
        recordings.push(recording);
        sources = s;
    }
    let names: Vec<&str> = recordings.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["gl", "cpu", "wgpu"]);
    let dir = site_dir("side-by-side");
    let summary =
        explain::write_side_by_side(&recordings, &sources, &dir, &Options::default()).unwrap();
    assert_eq!(summary.differing, 0);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    // Seven operations writing eight streams, each shown on all three backends, two of them with a
    // difference picture beside.
    assert_eq!(html.matches("<div class=\"binding results\"").count(), 8);
    assert_eq!(
        html.matches("<div class=\"backend\" data-backend=\"wgpu\"")
            .count(),
        8
    );
    assert_eq!(
        html.matches("<div class=\"diff\" data-differ=\"0\"")
            .count(),
        16
    );
    assert!(html.contains("relative 1e-5 of the larger magnitude"));

    // One element of the CPU's first result off by 1e-4 relative: marked, counted.
    let op = &mut recordings[1].operations[0];
    let sampled = op.outcomes[0].sampled.as_mut().unwrap();
    sampled.values[10] *= 1.0 + 1e-4;
    let summary =
        explain::write_side_by_side(&recordings, &sources, &dir, &Options::default()).unwrap();
    assert_eq!(summary.differing, 1);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("1 of 64 elements differ from gl beyond the tolerance"));
    assert!(html.contains("data-differ=\"1\" data-compared=\"64\""));
    let first = html.split("id=\"card-1\"").nth(1).unwrap();
    assert!(first.starts_with(" data-kind=\"kernel\" data-differing=\"1\""));
}

/// Side by side with histories recorded on each backend: where one backend's history of an
/// element first differs from the first one's, the first one's tree marks that step. Here
/// the CPU run reads 1.5 where GL reads 1 into `a[1]` (as a backend that computed an input
/// differently would): `r[1] = 2a[1]` differs on both, and the first difference along the
/// history is the read, `a[1]`, not the kernel.
#[test]
fn side_by_side_histories_mark_where_the_backends_first_differ() {
    let source = "kernel void twice(float a<>, out float r<>) { r = a * 2.0; }";
    let runs = [(support::gl_with(None, None), 1.0), (Runtime::cpu(), 1.5)];
    let recordings: Vec<Recording> = runs
        .iter()
        .map(|(rt, a1)| {
            let p = rt.compile(source, "twice.br").unwrap();
            rt.record_history(true).unwrap();
            let (ran, recording) = rt.explain(128, |rt| -> Result<(), brook::BrookError> {
                let a = rt.stream_of(1, &[3]).unwrap();
                let r = rt.stream_of(1, &[3]).unwrap();
                rt.name_stream(&a, "a");
                rt.name_stream(&r, "r");
                a.read(&[0.0, *a1, 2.0])?;
                rt.run(&p, "twice", args![&a, &r])
            });
            ran.unwrap();
            recording
        })
        .collect();
    let dir = site_dir("side-by-side-why");
    let sources = [SourceText::new("twice.br", source)];
    explain::write_side_by_side(&recordings, &sources, &dir, &Options::default()).unwrap();
    let why = std::fs::read_to_string(dir.join("why.js")).unwrap();
    assert!(
        why.contains("{t:\"`a` a[1] = 1: streamRead(a) from host memory\",c:0,r:[\"a\",1],d:\"cpu has 1.5 here\","),
        "{why}"
    );
    // Only element 1's history differs, and only its read is marked.
    assert_eq!(why.matches(",d:").count(), 1, "{why}");
}

#[test]
fn shots_out_of_step_with_the_trace_are_refused() {
    let rt = support::gl_with(None, None);
    let (mut recording, sources) = every_kind(&rt, 128);
    recording.shots.remove(0);
    let err = explain::write(
        &recording,
        &sources,
        &site_dir("mismatch"),
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ExplainError::Mismatch(_)), "{err}");
}

/// A Chromium-family browser on PATH.
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
    .find(|p| p.is_file())
}

/// [`browser`], or `None` having said the test is skipped; under CI, which installs
/// Chromium (`.ci/run`), a missing one fails instead.
fn browser_or_skip() -> Option<PathBuf> {
    let found = browser();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no Chromium on PATH under CI (.ci/run installs the Debian package `chromium`)"
        );
        eprintln!("skipped: no Chromium on PATH (apt-get install chromium)");
    }
    found
}

/// The `.br` programs of `tests/programs/`, in name order.
fn test_programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .collect();
    programs.sort();
    programs
}

/// A browser profile directory of its own for `page` (tests load pages in parallel), outside
/// the site (the docs' sites are committed).
fn profile_for(page: &Path) -> PathBuf {
    let site = page
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("browser-profiles")
        .join(site.as_ref())
}

/// Takes a 1100×1300 screenshot of `page` into `png`.
fn screenshot(browser: &Path, page: &Path, png: &Path) {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1100,1300",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile_for(page).display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("the browser runs");
    assert!(
        output.status.success(),
        "the screenshot failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The example sites of `docs/explain/` and their screenshots, made by a real browser: with
/// `BROOK_EXPLAIN_SCREENSHOTS=docs/explain` (what `docs/explain/make.sh` sets) the sites and
/// PNGs are written there, otherwise into a temporary directory; either way each page loads
/// with every image and no error, and its screenshot is not blank.
#[test]
fn the_docs_sites_load_and_their_screenshots_are_not_blank() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = match std::env::var_os("BROOK_EXPLAIN_SCREENSHOTS") {
        Some(dir) => root.join(dir),
        None => site_dir("docs"),
    };
    let sites: [(&str, &str, &[&str]); 7] = [
        ("saxpy", "programs/saxpy", &[]),
        ("reduction", "programs/reduce_sum", &[]),
        ("scatter", "programs/scatter", &[]),
        ("mask", "programs/gather_op_and_masks", &[]),
        ("vout", "programs/vout_from_host", &[]),
        ("backends", "programs/saxpy", &["--backend", "gl,cpu,wgpu"]),
        // The page loads with the history of the first element clicked: the panel shows.
        ("why", "why/reduce_2d", &["--why"]),
    ];
    for (name, program, extra) in sites {
        let dir = out.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        let program = Path::new("tests").join(format!("{program}.br"));
        let (status, _, err) = brcc_explain(&program, &dir, extra);
        assert_eq!(status, Some(0), "{name}: {err}");
        let page = dir.canonicalize().unwrap().join("index.html");
        let (status, stderr) = load_in_browser(&browser, &page);
        assert!(status.starts_with("ok: "), "{name}: {status}\n{stderr}");
        let png = out.join(format!("{name}.png"));
        screenshot(&browser, &page, &png);
        let shot = image::open(&png).unwrap().to_rgb8();
        assert_eq!(shot.dimensions(), (1100, 1300), "{name}");
        let colours: std::collections::HashSet<[u8; 3]> = shot.pixels().map(|p| p.0).collect();
        assert!(
            colours.len() > 100,
            "{name}: a blank screenshot ({} colours)",
            colours.len()
        );
    }
}

/// Loads `page` in headless Chromium and returns the page's own status line (what its script
/// found: images loaded, cards shown, errors) and the browser's stderr.
fn load_in_browser(browser: &Path, page: &Path) -> (String, String) {
    let profile = profile_for(page);
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("the browser runs");
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "the browser failed: {stderr}");
    let status = dom
        .split("id=\"explain-status\"")
        .nth(1)
        .and_then(|rest| Some(rest[rest.find('>')? + 1..rest.find("</p>")?].to_string()))
        .unwrap_or_else(|| panic!("no status line in the page the browser shows: {dom}"));
    (status, stderr)
}

#[test]
fn a_real_browser_loads_every_picture_with_no_errors() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let rt = support::gl_with(None, None);
    let (recording, sources) = every_kind(&rt, 128);
    let dir = site_dir("browser");
    let summary = explain::write(&recording, &sources, &dir, &Options::default()).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let images = html.matches("<img ").count();
    // The scatter's 64 points drawn on its destination: element i lands on dst[i % 4], the
    // first point at the centre of texel 0 of 4, the second of texel 1.
    assert!(html.contains("where the 64 points landed"));
    assert!(html.contains("<i style=\"left: 12.50%; top: 50.00%\"></i><i style=\"left: 37.50%;"));
    let page = dir.canonicalize().unwrap().join("index.html");
    let (status, stderr) = load_in_browser(&browser, &page);
    // The first picture with values is `a` (0, 1, 2, …) on the first pass's texture unit.
    assert_eq!(
        status,
        format!(
            "ok: {} cards, {images} images loaded, pointer read texel (0, 0) · 1D element 0 = 0",
            summary.cards
        ),
        "browser log: {stderr}"
    );
    assert!(!stderr.contains("Uncaught"), "{stderr}");

    // The check itself fails when a picture is missing.
    let first = image_sources(&html)[0].clone();
    std::fs::remove_file(dir.join(&first)).unwrap();
    let (status, _) = load_in_browser(&browser, &page);
    assert!(
        status.starts_with("error:") && status.contains("did not load"),
        "{status}"
    );
}

/// `brcc explain` on every program of `tests/programs/` (sharing `tests/brcc.rs`'s build
/// cache, so the C++ is compiled once): the program behaves as under `brcc run` (its
/// stdout and status), and the site has as many cards as brcc reports operations.
/// What every site `brcc explain` writes of a test program must show (`stdout` and `stderr`
/// are brcc's): the program's own output, its exit status, every operation in the timeline
/// with a card for each but the middle of long repeats, and every picture present and
/// decodable. The click test below checks this of each program it explains.
fn site_problem(
    path: &Path,
    dir: &Path,
    status: Option<i32>,
    out: &str,
    err: &str,
) -> Option<String> {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
    let expected_status = if name == "exit_status" { 3 } else { 0 };
    if status != Some(expected_status) {
        return Some(format!("{name}: status {status:?}: {err}"));
    }
    if out.split_whitespace().ne(expected.split_whitespace()) {
        return Some(format!("{name}: printed\n{out}\nexpected\n{expected}"));
    }
    let Ok(html) = std::fs::read_to_string(dir.join("index.html")) else {
        return Some(format!("{name}: no index.html: {err}"));
    };
    if name == "saxpy" && !html.contains("saxpy.br:19</p>") {
        return Some("saxpy: the card does not name the call's line".into());
    }
    let cards = html.matches("<section class=\"card\"").count();
    let operations = html.matches("<li").count() - html.matches("<li><details").count();
    let reported = format!(": {operations} operations ({cards} cards), ");
    if (cards == 0 && operations > 0) || !err.contains(&reported) {
        return Some(format!(
            "{name}: {operations} operations, {cards} cards, but brcc said {err}"
        ));
    }
    image_sources(&html)
        .iter()
        .find(|src| image::open(dir.join(src)).is_err())
        .map(|src| format!("{name}: {src} does not load"))
}

/// `brcc explain PROGRAM -o DIR [extra…]` in the repository root (a relative `PROGRAM` is
/// the page's title as written): its status, stdout and stderr.
fn brcc_explain(program: &Path, dir: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_brcc"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("explain")
        .arg(program)
        .arg("-o")
        .arg(dir)
        .args(extra)
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-cache"),
        )
        .env_remove("BRT_RUNTIME")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `brcc explain` of a `.br` program that calls a kernel, then reduces its output, in a loop:
/// on GL each reduction's card is the fused pass computing the kernel, and the kernel's own
/// card comes once, last, where `streamWrite` reads its output.
#[test]
fn brcc_explain_shows_kernels_fused_into_the_reductions_of_their_output() {
    let program = Path::new("tests/programs/fused_reduction.br");
    let dir = site_dir("brcc-fused");
    let (status, out, err) = brcc_explain(program, &dir, &[]);
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out.matches("4950.0").count(), 3, "{out}");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let kinds: Vec<&str> = html
        .split("class=\"card\" id=\"card-")
        .skip(1)
        .filter_map(|card| card.split("data-kind=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(kinds, ["reduction", "reduction", "reduction", "kernel"]);
    assert_eq!(
        html.matches("kernel `absolute` fused into pass 1").count(),
        3,
        "every reduction computes the kernel"
    );
}

/// `brcc explain --why`: every element of a small result picture carries its history (as
/// `brcc why` gives it, `tests/why.rs`), and in a real browser a click on an element shows it
/// in the panel, its steps linking to their cards; on every backend.
#[test]
fn brcc_explain_why_shows_an_elements_history_on_click() {
    let program = Path::new("tests/why/reduce_2d.br");
    for backend in ["gl", "cpu", "wgpu"] {
        let dir = site_dir(&format!("brcc-why-{backend}"));
        let (status, _, err) = brcc_explain(program, &dir, &["--why", "--backend", backend]);
        assert_eq!(status, Some(0), "{err}");
        let why = std::fs::read_to_string(dir.join("why.js")).unwrap();
        // s = the 2×2 block sums of b = 2a (a = 1..16): s[1][0] = 18 + 20 + 26 + 28, on the
        // reduction's card (2), its elements from the kernel's (1); the text numbers
        // operations as the cards do (`brcc why` says operation 3 and 2, counting the read).
        assert!(
            why.contains("{t:\"s[1][0] = 92: reduction `sum` (Brook line 2), card 2,"),
            "{backend}: {why}"
        );
        assert!(
            why.contains(
                "{t:\"b[3][1] = 28: kernel `twice` (Brook line 6), card 1, out `b`\",c:1,"
            ),
            "{backend}"
        );
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert_eq!(
            html.matches(" data-why=\"").count(),
            2,
            "{backend}: b and s"
        );
        let Some(browser) = browser() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "no Chromium on PATH under CI"
            );
            continue;
        };
        let page = dir.canonicalize().unwrap().join("index.html");
        let (status, stderr) = load_in_browser(&browser, &page);
        // b[0][0] read a[0][0]: on GL its texel is marked in the pass's picture of `a_tex`;
        // the other backends' cards have no pass pictures.
        let marked = if backend == "gl" { 1 } else { 0 };
        assert!(
            status.starts_with("ok: ") && status.ends_with(&format!(", history b[0][0] = 2: kernel `twice` (Brook line 6), card 1, out `b` (2 steps, 1 card links, {marked} texels marked, the picture's value)")),
            "{backend}: {status}\n{stderr}"
        );
    }
}

/// `brcc explain --why` on every program of `tests/programs/`, each on one backend in turn
/// (gl, cpu, wgpu: every backend explains a third of them, since a run and a page load per
/// program and backend would take a quarter of an hour here; the ignored
/// `brcc_explain_why_click_shows_each_programs_value_on_every_backend` runs the whole grid):
/// each site shows what [`site_problem`] asks, and, loaded in headless Chromium, the page
/// clicks the first element of the first picture with histories, and its panel shows that
/// element's history with the value the picture holds. Every program whose results include a
/// small stream has such a picture.
#[test]
fn brcc_explain_why_click_shows_each_programs_value() {
    let cases = test_programs()
        .into_iter()
        .enumerate()
        .map(|(k, path)| (path, ["gl", "cpu", "wgpu"][k % 3]))
        .collect();
    click_each_programs_value(cases);
}

/// The whole grid of the test above: every program of `tests/programs/` on every backend.
#[test]
#[ignore = "a quarter of an hour: every program on every backend, each loaded in Chromium"]
fn brcc_explain_why_click_shows_each_programs_value_on_every_backend() {
    let cases = test_programs()
        .into_iter()
        .flat_map(|path| ["gl", "cpu", "wgpu"].map(|backend| (path.clone(), backend)))
        .collect();
    click_each_programs_value(cases);
}

/// Explains each (program, backend) with `--why`, checks the site ([`site_problem`]), clicks
/// an element in Chromium (where there is one), and checks that the panel shows its history
/// with the picture's value; at most five programs may have no small result to click.
fn click_each_programs_value(cases: Vec<(PathBuf, &'static str)>) {
    assert!(cases.len() >= 25, "the test programs are missing");
    let browser = browser_or_skip();
    let check = |(path, backend): &(PathBuf, &str)| -> Result<bool, String> {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = site_dir(&format!("brcc-why-all-{name}-{backend}"));
        let (status, out, err) = brcc_explain(path, &dir, &["--why", "--backend", backend]);
        if let Some(problem) = site_problem(path, &dir, status, &out, &err) {
            return Err(format!("on {backend}: {problem}"));
        }
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        let clickable = html.contains(" data-why=\"");
        let Some(browser) = &browser else {
            return Ok(clickable);
        };
        let page = dir.canonicalize().unwrap().join("index.html");
        let (status, stderr) = load_in_browser(browser, &page);
        let shown = status.starts_with("ok: ")
            && status.contains(", history ")
            && status.ends_with(", the picture's value)");
        match (clickable, status.starts_with("ok: ")) {
            (true, true) if shown => Ok(true),
            (false, true) if !status.contains(", history ") => Ok(false),
            _ => Err(format!("{name} on {backend}: {status}\n{stderr}")),
        }
    };
    let results = support::in_two_threads(&cases, check);
    let problems: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    // A program without a small result has nothing to click, on any backend.
    let programs = cases
        .iter()
        .map(|(path, _)| path)
        .collect::<std::collections::BTreeSet<_>>();
    let runs_per_program = cases.len() / programs.len().max(1);
    let unclicked = results.iter().filter(|r| matches!(r, Ok(false))).count();
    assert!(
        unclicked <= 5 * runs_per_program,
        "{unclicked} of {} explained programs had no element to click",
        cases.len()
    );
}

/// `brcc explain --backend gl,cpu,wgpu`: the program runs on each (its output printed once
/// per run), and the page compares every operation's results, finding no difference.
#[test]
fn brcc_compares_backends_side_by_side() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/saxpy.br");
    let dir = site_dir("brcc-backends");
    let (status, out, err) = brcc_explain(&program, &dir, &["--backend", "gl,cpu,wgpu"]);
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out.matches("0.50 2.50 4.50 6.50").count(), 3, "{out}");
    assert!(
        err.contains(", 0 elements differ between backends"),
        "{err}"
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for backend in ["gl", "cpu", "wgpu"] {
        assert!(html.contains(&format!(
            "<div class=\"backend\" data-backend=\"{backend}\""
        )));
    }
    assert!(html.contains("0 of 4 elements differ from gl beyond the tolerance"));
    let (status, _, err) = brcc_explain(&program, &dir, &["--backend", "gl,vulkan"]);
    assert_eq!(status, Some(1));
    assert!(err.contains("vulkan"), "{err}");
}

/// `brcc explain` on the multi-file program (C++ host code and two Brook files), on GL and the
/// CPU: it prints what `brcc run` prints once per backend, every operation has its card and
/// every picture loads; and on the typed-kernels example's Brook file, which has no `main`
/// (its host is Rust), a clear error.
#[test]
fn brcc_explains_the_multifile_program_and_refuses_one_without_main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = Path::new("tests/programs/multifile");
    let dir = site_dir("brcc-multifile");
    let o = Command::new(env!("CARGO_BIN_EXE_brcc"))
        .current_dir(root)
        .arg("explain")
        .args(["main.cpp", "kernels.br", "more.br"].map(|f| files.join(f)))
        .arg("-o")
        .arg(&dir)
        .args(["--backend", "gl,cpu"])
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-cache"),
        )
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    let expected = std::fs::read_to_string(root.join(files).join("main.out")).unwrap();
    let twice = format!("{expected}{expected}");
    assert!(out.split_whitespace().eq(twice.split_whitespace()), "{out}");
    assert!(
        err.contains(": 4 operations (4 cards), ") && err.contains(", 0 elements differ"),
        "{err}"
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(html.matches("<section class=\"card\"").count(), 4);
    assert!(html.contains("kernels.br:") && html.contains("more.br:"));
    for src in image_sources(&html) {
        image::open(dir.join(&src)).unwrap_or_else(|e| panic!("{src}: {e}"));
    }

    let kernels = Path::new("examples/typed-kernels/src/kernels.br");
    let (status, _, err) = brcc_explain(kernels, &site_dir("brcc-typed-kernels"), &[]);
    assert_eq!(status, Some(1));
    assert!(
        err.contains("no `main` function in examples/typed-kernels/src/kernels.br"),
        "{err}"
    );
}

/// A program of 5,000 calls (a kernel and a swap, 2,500 times): one group in the timeline,
/// cards for its first and last repetitions only, a site of bounded size that a browser
/// opens with no errors.
#[test]
fn five_thousand_calls_make_a_small_page_with_a_collapsible_timeline() {
    let rt = Runtime::cpu();
    let p = rt.compile(SOURCE, "every.br").unwrap();
    let a = rt.stream_of(1, &[16]).unwrap();
    a.read(&ramp(16)).unwrap();
    let b = rt.stream_of(1, &[16]).unwrap();
    let (ran, recording) = rt.explain(128, |rt| -> Result<(), brook::BrookError> {
        for _ in 0..2500 {
            rt.run(&p, "twice", args![&a, &b])?;
            rt.swap(&a, &b)?;
        }
        Ok(())
    });
    ran.unwrap();
    assert_eq!(recording.trace.len(), 5000);
    let dir = site_dir("five-thousand");
    let summary =
        explain::write(&recording, &[p.source().clone()], &dir, &Options::default()).unwrap();
    // Cards for three repetitions at each end: 12, and 2 more where the first call is a
    // variant of its own (the CPU may run it on the interpreter while native code compiles).
    assert_eq!(summary.operations, 5000);
    assert!(
        (12..=14).contains(&summary.cards),
        "{} cards",
        summary.cards
    );
    assert!(summary.bytes < 600_000, "{} bytes", summary.bytes);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(html.matches("<details class=\"group\"").count(), 1);
    // The whole run but its first call or two is one group of a kernel call and a swap.
    let line = html
        .split("<details class=\"group\"><summary>")
        .nth(1)
        .and_then(|rest| rest.split("</summary>").next())
        .unwrap();
    assert!(
        line.contains("streamSwap") && line.contains("twice"),
        "{line}"
    );
    assert!(
        line.contains(&format!("{} without a card)", 5000 - summary.cards))
            && (line.contains(" × 2499 (4998 operations")
                || line.contains(" × 2500 (5000 operations")),
        "{line}"
    );
    // The last operation has its card.
    assert!(html.contains("id=\"card-5000\""));
    let Some(browser) = browser() else {
        eprintln!("browser part skipped: no Chromium on PATH");
        return;
    };
    let page = dir.canonicalize().unwrap().join("index.html");
    let (status, stderr) = load_in_browser(&browser, &page);
    assert!(
        status.starts_with(&format!("ok: {} cards, ", summary.cards)),
        "{status}\n{stderr}"
    );
}

/// Address translation drawn: on a device whose textures are 8 texels wide at most, a 1D
/// stream of 40 elements wraps into an 8×5 texture, each texel numbered with its element.
#[test]
fn a_wrapped_stream_is_drawn_with_its_element_indices() {
    let rt = support::gl_with(Some(8), None);
    let p = rt.compile(SOURCE, "every.br").unwrap();
    let a = rt.stream_of(1, &[40]).unwrap();
    a.read(&ramp(40)).unwrap();
    let b = rt.stream_of(1, &[40]).unwrap();
    let (ran, recording) = rt.explain(128, |rt| rt.run(&p, "twice", args![&a, &b]));
    ran.unwrap();
    let after = recording.shots[0].after[0].as_ref().unwrap();
    assert_eq!((after.width, after.height), (8, 5));
    // Element 19 lives at texel (19 mod 8, 19 div 8) = (3, 2).
    assert_eq!(after.values[2 * 8 + 3], 38.0);
    let dir = site_dir("wrapped");
    explain::write(&recording, &[], &dir, &Options::default()).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("grid-template-columns: repeat(8, 1fr)\"><span>0</span><span>1</span>"));
    assert!(html.contains("<span>39</span></div>"));
}

/// The text a reader sees of some HTML: tags dropped, entities undone.
fn visible(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every viz example, run with `--explain DIR --frames 2`: a site with a card per operation,
/// each quoting the kernel's Brook source (compiled inside the run, so taken from the
/// recording), and every picture decoding. The examples are built by `cargo test`.
#[test]
fn every_example_explains_its_first_steps() {
    let examples = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples");
    let mut problems = Vec::new();
    for (name, source) in [
        ("life", "life.br"),
        ("gray_scott", "gray_scott.br"),
        ("cloth", "cloth.br"),
        ("mandelbrot", "mandelbrot.br"),
        ("segmentation", "segment.br"),
    ] {
        let dir = site_dir(&format!("example-{name}"));
        let o = Command::new(examples.join(name))
            .args(["--explain", dir.to_str().unwrap(), "--frames", "2"])
            .output()
            .unwrap_or_else(|e| panic!("{name}: {e} (cargo test builds the examples)"));
        let out = String::from_utf8_lossy(&o.stdout);
        if !o.status.success() {
            problems.push(format!(
                "{name}: {:?}: {}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ));
            continue;
        }
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        let cards = html.matches("<section class=\"card\"").count();
        let quoted = html.matches(&format!("Brook source ({source}:")).count();
        if cards == 0 || quoted != cards || !out.contains(&format!("{cards} cards")) {
            problems.push(format!(
                "{name}: {cards} cards, {quoted} quoting {source}; said {out}"
            ));
        }
        if let Some(src) = image_sources(&html)
            .iter()
            .find(|src| image::open(dir.join(src)).is_err())
        {
            problems.push(format!("{name}: {src} does not load"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
