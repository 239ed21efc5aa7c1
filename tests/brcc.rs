//! `brcc` end to end: every program under `tests/programs/` runs on GL, on the CPU backend and
//! on wgpu with the expected stdout (compared whitespace-insensitively, like the original's
//! regression suite), and the command's errors are clear and non-zero.
//!
//! Builds share one cache directory under the target dir, so a program's C++ is compiled once
//! per change, and the programs run on several threads (the C++ compiler dominates a cold run).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BRCC: &str = env!("CARGO_BIN_EXE_brcc");

fn brcc(args: &[&str]) -> Command {
    let mut cmd = Command::new(BRCC);
    cmd.args(args)
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-cache"),
        )
        .env_remove("BRT_RUNTIME")
        .env_remove("CXX");
    cmd
}

fn run(mut cmd: impl std::borrow::BorrowMut<Command>) -> Output {
    let cmd = cmd.borrow_mut();
    cmd.output().expect("brcc runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "br"))
        .collect();
    all.sort();
    all
}

/// Runs one program on every backend; the problems found, if any.
fn check_program(path: &Path) -> Vec<String> {
    let expected = std::fs::read_to_string(path.with_extension("out"))
        .expect("an .out file beside each program");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let expected_status = if name == "exit_status.br" { 3 } else { 0 };
    let mut problems = Vec::new();
    let mut outputs = Vec::new();
    let backends = ["cpu", "gl", "wgpu"];
    for backend in backends {
        let o = run(brcc(&["run", path.to_str().unwrap(), "--backend", backend]));
        if o.status.code() != Some(expected_status) {
            problems.push(format!(
                "{name} on {backend}: status {:?}\n{}",
                o.status.code(),
                stderr(&o)
            ));
        } else if words(&stdout(&o)) != words(&expected) {
            problems.push(format!(
                "{name} on {backend}: stdout\n{}\nexpected\n{expected}",
                stdout(&o)
            ));
        }
        outputs.push(stdout(&o));
    }
    for (backend, output) in backends.iter().zip(&outputs).skip(1) {
        if *output != outputs[0] {
            problems.push(format!(
                "{name}: {backend} and cpu print different text\n{output}\n{}",
                outputs[0]
            ));
        }
    }
    problems
}

#[test]
fn every_program_prints_its_expected_output_on_gl_cpu_and_wgpu() {
    let all = programs();
    assert!(all.len() >= 25, "only {} programs", all.len());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let chunks: Vec<&[PathBuf]> = all.chunks(all.len().div_ceil(threads)).collect();
    let problems: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|p| check_program(p))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a checker thread"))
            .collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

fn program(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A program written to a fresh directory, for error cases.
fn scratch(name: &str, text: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-scratch");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn program_arguments_reach_main() {
    let o = run(brcc(&[
        "run",
        &program("runtime_extents.br"),
        "--backend",
        "cpu",
        "--",
        "3",
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        words(&stdout(&o)),
        words("0 1 4 9 16 25\n0 1 2 100 101 102")
    );
}

#[test]
fn brt_runtime_picks_the_backend_and_a_bad_name_is_an_error() {
    let o = run(brcc(&["run", &program("saxpy.br")]).env("BRT_RUNTIME", "cpu"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&stdout(&o))[..2], ["0.50", "2.50"]);
    let o = run(brcc(&["run", &program("saxpy.br")]).env("BRT_RUNTIME", "vulkan"));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown Brook backend `vulkan`"),
        "{}",
        stderr(&o)
    );
    let o = run(brcc(&["run", &program("saxpy.br"), "--backend", "dx9"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown Brook backend `dx9`: expected one of gl, cpu"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_missing_file_is_reported() {
    let o = run(brcc(&["run", "no/such/program.br"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("could not read `no/such/program.br`"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

#[test]
fn kernel_syntax_errors_point_at_the_original_line() {
    let path = scratch(
        "syntax.br",
        "#include <stdio.h>\nint helper(int x) { return x; }\n\nkernel void k(float a<>, out float r<>) {\n    r = a +* 2;\n}\nint main() { return 0; }\n",
    );
    let o = run(brcc(&["check", &path]));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("syntax.br:5:"), "{err}");
    // The source line is shown with a caret under the column of the error.
    let lines: Vec<&str> = err.lines().collect();
    let src = lines
        .iter()
        .position(|l| l.ends_with("r = a +* 2;"))
        .expect("the source line");
    let caret = lines[src + 1].find('^').expect("a caret");
    assert_eq!(&lines[src][caret..caret + 1], "*", "{err}");
}

#[test]
fn kernel_type_errors_are_reported_with_their_line() {
    let path = scratch(
        "types.br",
        "#include <stdio.h>\n\nkernel void k(float a<>, out float r<>) {\n    r = missing * a;\n}\nint main() { return 0; }\n",
    );
    let o = run(brcc(&["run", &path, "--backend", "cpu"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("types.br:4:9"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown identifier `missing`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn host_code_errors_from_the_cxx_compiler_point_at_the_br_file() {
    let path = scratch(
        "host.br",
        "kernel void k(float a<>, out float r<>) { r = a; }\n\nint main() {\n    undeclared_function(3);\n    return 0;\n}\n",
    );
    let o = run(brcc(&["run", &path, "--backend", "cpu"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("host.br:4"), "{}", stderr(&o));
    assert!(stderr(&o).contains("undeclared_function"), "{}", stderr(&o));
}

#[test]
fn operations_this_runtime_lacks_are_named_at_their_line() {
    let path = scratch(
        "indexof.br",
        "kernel void k(float a<>, out float r<>) { r = a; }\nint main() {\n    float a<4>, b<4>;\n    indexof(a);\n    return 0;\n}\n",
    );
    let o = run(brcc(&["check", &path]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("indexof.br:4:5"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`indexof` is not supported"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_kernel_of_a_struct_with_int_members_called_from_host_code_is_an_error_at_the_call() {
    // Streams of int..int4 are float streams (the original's sum_int, `int_streams.br`); a
    // struct's members are laid out in host memory as they are, so one with an `int` member
    // is refused where the call is written, not at run time.
    let path = scratch(
        "int_member.br",
        "struct P { int a; float b; };\nkernel void k(P a<>, out P c<>) { c = a; }\nint main() {\n    P a<4>, c<4>;\n    k(a, c);\n    return 0;\n}\n",
    );
    let o = run(brcc(&["check", &path]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("int_member.br:5:5"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stream parameter `a` is of a type streams cannot hold"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_stream_of_another_threads_runtime_is_an_error() {
    // Each thread has a runtime of its own (tests/programs/runtime_per_thread.br); a stream
    // belongs to the runtime that made it, so another thread's use of it is an error.
    let path = scratch(
        "thread.br",
        "#include <pthread.h>\n#include <stdio.h>\nkernel void k(float a<>, out float r<>) { r = a; }\n\
         static float b<4>;\n\
         static void* work(void*) { brook::initialize(\"cpu\"); float r<4>; printf(\"worker\\n\"); k(b, r); printf(\"not reached\\n\"); return 0; }\n\
         int main() { float v[4] = {1, 2, 3, 4}; streamRead(b, v); pthread_t t; printf(\"main\\n\"); pthread_create(&t, 0, work, 0); pthread_join(t, 0); return 0; }\n",
    );
    for backend in ["cpu", "gl"] {
        let o = run(brcc(&["run", &path, "--backend", backend]));
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_eq!(stdout(&o), "main\nworker\n");
        assert!(
            stderr(&o)
                .contains("brook: error: the stream was made on another thread's Brook runtime"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn runtime_errors_print_a_message_and_exit_non_zero() {
    let path = scratch(
        "shapes.br",
        "#include <stdio.h>\nkernel void k(float a<>, out float r<>, out float s<>) { r = a; s = a; }\n\
         int main() { float a<4>, r<4>, s<5>; printf(\"before\\n\"); k(a, r, s); printf(\"after\\n\"); return 0; }\n",
    );
    let o = run(brcc(&["run", &path, "--backend", "cpu"]));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "before\n");
    assert!(stderr(&o).starts_with("brook: error:"), "{}", stderr(&o));
}

#[test]
fn a_placeholder_stream_reaching_a_kernel_call_is_an_error() {
    let path = scratch(
        "placeholder.br",
        "#include <stdio.h>\nkernel void k(float a<>, out float r<>) { r = a; }\n\
         int main() { float a<0, 0>, r<4>; printf(\"%g\\n\", streamSize(a).x);\n\
         k(a, r); printf(\"after\\n\"); return 0; }\n",
    );
    let o = run(brcc(&["check", &path]));
    assert!(
        o.status.success(),
        "a zero extent declares a placeholder: {}",
        stderr(&o)
    );
    let o = run(brcc(&["run", &path, "--backend", "cpu"]));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "0\n");
    // The error names the call's line and the stream, as the host code wrote them.
    assert!(
        stderr(&o).starts_with("brook: error: ")
            && stderr(&o).contains(
                "placeholder.br:4: stream `a`: a stream with a zero extent is a placeholder"
            ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_reductions_are_runtime_errors() {
    let cases = [
        (
            "float s<10>, r<3>; sum(s, r);",
            "must divide the input shape <10>",
        ),
        ("float2 s<4>; float v; sum(s, v);", "`sum`"),
    ];
    for (i, (body, message)) in cases.into_iter().enumerate() {
        let path = scratch(
            &format!("bad_reduce_{i}.br"),
            &format!(
                "reduce void sum(float a<>, reduce float r<>) {{ r += a; }}\nint main() {{ {body} return 0; }}\n"
            ),
        );
        let o = run(brcc(&["run", &path, "--backend", "cpu"]));
        assert_eq!(o.status.code(), Some(1), "{body}");
        assert!(
            stderr(&o).starts_with("brook: error:") && stderr(&o).contains(message),
            "{body}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_missing_cxx_compiler_is_reported() {
    let o = run(
        brcc(&["run", &program("saxpy.br"), "--backend", "cpu"]).env("CXX", "/nonexistent/c++")
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no C++ compiler: CXX names `/nonexistent/c++`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn cpp_writes_the_translation_and_its_header() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-cpp/saxpy.cpp");
    let o = run(brcc(&[
        "cpp",
        &program("saxpy.br"),
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    let cpp = std::fs::read_to_string(&out).unwrap();
    assert!(
        cpp.contains("void saxpy(float a, const ::brook::stream_arg& x"),
        "{cpp}"
    );
    assert!(
        cpp.contains(
            "::brook::stream x(__brook_program(), \"float4\", ::brook::extents((4)), false, \"x\")"
        ),
        "{cpp}"
    );
    assert!(cpp.contains("#line 8 "), "{cpp}");
    assert!(out.with_file_name("brook.hpp").is_file());
}

#[test]
fn clif_prints_each_kernels_cranelift_ir() {
    let o = run(brcc(&["clif", &program("saxpy.br")]));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(
            "; kernel `saxpy` (rank 2 output; constant, stream, stream, out; \
             one element per iteration)"
        ),
        "{text}"
    );
    // Why not four per iteration: float4 values fill the SIMD lanes already.
    assert!(
        text.contains(
            "; one element per iteration: every vector in `saxpy` is a `float4`, already four \
             lanes wide"
        ),
        "{text}"
    );
    // Or a stream of structs.
    let o = run(brcc(&["clif", &program("struct_gather.br")]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "; one element per iteration: `spheres` in `volume` is not a scalar or vector"
        ),
        "{}",
        stdout(&o)
    );
    // The tile function: its signature, the streams read as f32x4, `a * x + y` on them.
    assert!(
        text.contains("(i64, i64, i64, i64, i64) -> i64 system_v {"),
        "{text}"
    );
    assert!(text.contains("load.f32x4"), "{text}");
    assert!(text.contains("splat.f32x4"), "{text}");
    assert!(text.contains("store.f32x4"), "{text}");
}

#[test]
fn glsl_and_check_describe_the_program() {
    let o = run(brcc(&["glsl", &program("multiple_outputs.br")]));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("// ===== kernel split: 1 pass(es)"), "{text}");
    assert!(text.contains("#version 330 core"), "{text}");
    let o = run(brcc(&["wgsl", &program("multiple_outputs.br")]));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("// ===== kernel split: one dispatch"),
        "{text}"
    );
    assert!(
        text.contains("@compute @workgroup_size(64, 1, 1)"),
        "{text}"
    );
    let o = run(brcc(&["check", &program("struct_gather.br")]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("struct_gather.br: ok\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn every_subcommand_has_help_and_bad_arguments_are_named() {
    for sub in ["run", "cpp", "glsl", "check", "completions"] {
        let o = run(brcc(&[sub, "--help"]));
        assert!(o.status.success(), "{sub}: {}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!("Usage: brcc {sub}")),
            "{sub}: {}",
            stdout(&o)
        );
    }
    let o = run(brcc(&["frobnicate"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unrecognized subcommand 'frobnicate'"),
        "{}",
        stderr(&o)
    );
    let o = run(brcc(&["run", "a.br", "--timeout", "soon"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'soon' for '--timeout <SECONDS>'"),
        "{}",
        stderr(&o)
    );
    let o = run(brcc(&["completions", "bash"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("complete -F _brcc"), "{}", stdout(&o));
}

#[test]
fn timeout_ends_a_hung_program_with_a_message() {
    let path = scratch(
        "forever.br",
        "#include <stdio.h>\nkernel void k(float a<>, out float r<>) { float x = a; while (x >= 0.0) { x = x + 1.0; } r = x; }
         int main() { float a<4>, r<4>; float d[4] = {1, 2, 3, 4}; printf(\"started\\n\"); streamRead(a, d); k(a, r); return 0; }\n",
    );
    let started = std::time::Instant::now();
    let o = run(brcc(&[
        "run",
        &path,
        "--backend",
        "cpu",
        "--timeout",
        "1.5",
    ]));
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    assert_eq!(stdout(&o), "started\n");
    assert!(
        stderr(&o).contains("forever.br` did not finish within 1.5 s (--timeout); stopped"),
        "{}",
        stderr(&o)
    );
    assert!(started.elapsed().as_secs() < 60);
}

#[test]
fn timeout_ends_a_program_hung_while_it_is_loaded() {
    // The static initialiser waits for a thread that needs the dynamic loader's lock, which
    // loading the program holds: the program never gets to `main`.
    let path = scratch(
        "hung_loading.br",
        "#include <stdio.h>\n#include <thread>\n#include <dlfcn.h>
static int hung = [] { printf(\"loading\\n\"); std::thread t([] { dlopen(\"libm.so.6\", RTLD_NOW); }); t.join(); return 0; }();
kernel void k(float a<>, out float r<>) { r = a; }
int main() { printf(\"main %d\\n\", hung); return 0; }
",
    );
    let mut child = brcc(&["run", &path, "--backend", "cpu", "--timeout", "1.5"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("brcc runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() > 60 {
            child.kill().unwrap();
            panic!("--timeout 1.5 did not end a program hung while loading");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("hung_loading.br` did not finish within 1.5 s (--timeout); stopped"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "loading\n", "what it printed is kept");
}

#[test]
fn a_static_initialiser_calling_the_runtime_is_an_error_not_a_hang() {
    let path = scratch(
        "early.br",
        "kernel void k(float a<>, out float r<>) { r = a; }
float s<4>;
float data[4];
         static int early = (streamRead(s, data), 0);
int main() { return early; }
",
    );
    let o = run(brcc(&["run", &path, "--backend", "cpu", "--timeout", "60"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("called the Brook runtime while it was being loaded"),
        "{}",
        stderr(&o)
    );
}

/// A fresh cache directory (XDG_CACHE_HOME) for one test.
fn fresh_cache(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs saxpy.br on the CPU with `XDG_CACHE_HOME=cache`; its output must be saxpy's own.
fn saxpy_in(cache: &Path) -> Output {
    let o =
        run(brcc(&["run", &program("saxpy.br"), "--backend", "cpu"]).env("XDG_CACHE_HOME", cache));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&stdout(&o))[..2], ["0.50", "2.50"], "{}", stdout(&o));
    o
}

/// The one build entry under `cache`: its library and digest.
fn entry(cache: &Path) -> (PathBuf, PathBuf) {
    let dirs: Vec<PathBuf> = std::fs::read_dir(cache.join("brook"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let library = std::fs::read_dir(&dirs[0])
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "so"))
        .expect("a built library");
    let digest = library.with_extension("so.sha3");
    (library, digest)
}

/// A library that announces itself if anything loads it, as another user might plant.
fn planted_library(at: &Path) {
    let src = at.with_extension("planted.cpp");
    std::fs::write(
        &src,
        "#include <cstdio>\n__attribute__((constructor)) static void hi() { std::puts(\"PLANTED\"); }\n\
         extern \"C\" int brook_user_main(int, char**) { std::puts(\"PLANTED\"); return 0; }\n",
    )
    .unwrap();
    let status = Command::new("c++")
        .args(["-shared", "-fPIC", "-o"])
        .arg(at)
        .arg(&src)
        .status()
        .expect("a C++ compiler");
    assert!(status.success());
}

fn sha3_hex(path: &Path) -> String {
    use sha3::Digest;
    sha3::Sha3_256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn the_build_cache_is_owner_only_and_a_replaced_or_corrupt_entry_is_rebuilt() {
    use std::os::unix::fs::PermissionsExt;
    let cache = fresh_cache("cache-planted");
    saxpy_in(&cache);
    let (library, digest) = entry(&cache);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&cache.join("brook")), 0o700);
    assert_eq!(mode(library.parent().unwrap()), 0o700);
    assert_eq!(mode(&library) & 0o077, 0);
    // A library swapped in (its digest no longer matches): rebuilt, never loaded.
    planted_library(&library);
    let o = saxpy_in(&cache);
    assert!(!stdout(&o).contains("PLANTED"), "{}", stdout(&o));
    assert_eq!(
        sha3_hex(&library),
        std::fs::read_to_string(&digest).unwrap()
    );
    // A truncated library: rebuilt, not failed on.
    std::fs::write(&library, b"\x7fELF").unwrap();
    saxpy_in(&cache);
    assert_eq!(
        sha3_hex(&library),
        std::fs::read_to_string(&digest).unwrap()
    );
}

#[test]
fn a_cache_others_can_write_or_own_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let cache = fresh_cache("cache-shared");
    saxpy_in(&cache);
    let (library, digest) = entry(&cache);
    // A planted library whose digest matches, in a cache directory anyone may write to.
    planted_library(&library);
    std::fs::write(&digest, sha3_hex(&library)).unwrap();
    let root = cache.join("brook");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
    let o = saxpy_in(&cache);
    assert!(!stdout(&o).contains("PLANTED"), "{}", stdout(&o));
    let warning = format!(
        "not using the build cache `{}`: is writable by other users (mode 777)",
        root.display()
    );
    assert!(stderr(&o).contains(&warning), "{}", stderr(&o));
    // The same entry owned by another user (only root can arrange that).
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
    if std::os::unix::fs::chown(&library, Some(65534), None).is_ok() {
        std::os::unix::fs::chown(&digest, Some(65534), None).unwrap();
        let o = saxpy_in(&cache);
        assert!(!stdout(&o).contains("PLANTED"), "{}", stdout(&o));
    }
}

#[test]
fn without_a_cache_directory_builds_go_to_a_private_temporary_directory_that_is_removed() {
    let tmp = fresh_cache("cache-none-tmp");
    let o = run(brcc(&["run", &program("saxpy.br"), "--backend", "cpu"])
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOME")
        .env("TMPDIR", &tmp));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&stdout(&o))[..2], ["0.50", "2.50"]);
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The multi-file program's files, as brcc arguments.
fn multifile(dir: &Path) -> Vec<String> {
    ["main.cpp", "kernels.br", "more.br"]
        .iter()
        .map(|f| dir.join(f).to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_program_in_several_files_runs_builds_and_rebuilds_when_its_own_header_changes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/multifile");
    let expected = std::fs::read_to_string(dir.join("main.out")).unwrap();
    let files = multifile(&dir);
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    for backend in ["cpu", "gl", "wgpu"] {
        let mut args = vec!["run"];
        args.extend(&files);
        args.extend(["--backend", backend]);
        let o = run(brcc(&args));
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        assert_eq!(words(&stdout(&o)), words(&expected), "{backend}");
    }
    // `brcc build`: an executable that runs without brcc, arguments and BRT_RUNTIME reaching it.
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("multifile-program");
    let mut args = vec!["build"];
    args.extend(&files);
    args.extend(["-o", exe.to_str().unwrap()]);
    let o = run(brcc(&args));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(Command::new(&exe)
        .args(["x", "y"])
        .env("BRT_RUNTIME", "cpu"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        words(&stdout(&o)),
        words(&expected.replace("0 argument(s)", "2 argument(s)"))
    );
    // A header of the program's own, changed: the next run sees the change.
    let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join("multifile-copy");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["main.cpp", "kernels.br", "more.br", "params.h"] {
        std::fs::copy(dir.join(f), copy.join(f)).unwrap();
    }
    let copied = multifile(&copy);
    let mut args = vec!["run"];
    args.extend(copied.iter().map(String::as_str));
    args.extend(["--backend", "cpu"]);
    let o = run(brcc(&args));
    assert_eq!(words(&stdout(&o)), words(&expected), "{}", stderr(&o));
    let params = std::fs::read_to_string(copy.join("params.h")).unwrap();
    std::fs::write(
        copy.join("params.h"),
        params.replace("SCALE = 2.0f", "SCALE = 4.0f"),
    )
    .unwrap();
    let o = run(brcc(&args));
    assert!(
        stdout(&o).contains("total 500.00"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
}

#[test]
fn a_kernel_file_checks_alone_and_its_cpp_comes_with_a_header() {
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/multifile/kernels.br");
    let o = run(brcc(&["check", kernels.to_str().unwrap()]));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("brcc-header/k.cpp");
    let o = run(brcc(&[
        "cpp",
        kernels.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    let header = std::fs::read_to_string(out.with_extension("hpp")).unwrap();
    assert!(
        header.contains(
            "void energy(const ::brook::stream_arg& b, float scale, const ::brook::stream_arg& e);"
        ),
        "{header}"
    );
    // Run alone, it has no main.
    let o = run(brcc(&[
        "run",
        kernels.to_str().unwrap(),
        "--backend",
        "cpu",
    ]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no `main` function in"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_finds_bad_host_calls_at_their_line_without_running() {
    let path = scratch(
        "bad_calls.br",
        "kernel void k(float a<>, float s, out float r<>) { r = a * s; }\nint main() {\n    float a<4>, r<-2>;\n    k(a, r);\n    k(a, a, r);\n    ::k(a);\n    return 0;\n}\n",
    );
    let o = run(brcc(&["check", &path]));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    for (message, at) in [
        (
            "stream `r` has extent -2: extents must not be negative",
            "bad_calls.br:3:19",
        ),
        (
            "kernel `k` takes 3 argument(s) but is given 2",
            "bad_calls.br:4:5",
        ),
        (
            "argument 2 of kernel `k` (`s`) is a stream, but the parameter is a constant: `a`",
            "bad_calls.br:5:10",
        ),
        (
            "kernel `k` takes 3 argument(s) but is given 1",
            "bad_calls.br:6:7",
        ),
    ] {
        let expected = format!("error: {message}\n  --> ");
        let found = err
            .find(&expected)
            .unwrap_or_else(|| panic!("{message}\n{err}"));
        let location = err[found + expected.len()..].lines().next().unwrap();
        assert!(location.ends_with(at), "{message}: {location}");
    }
}

#[test]
fn check_finds_bad_calls_of_another_files_kernels_at_their_line() {
    let kernels = scratch(
        "cross_kernels.br",
        "kernel void scale(float a<>, float s, out float r<>) { r = a * s; }\n",
    );
    let main = scratch(
        "cross_main.cpp",
        "#include \"cross_kernels.hpp\"\nint main() {\n    float a<4>, r<4>;\n    scale(a, r);\n    scale(a, 2.0f, r);\n    return 0;\n}\n",
    );
    let o = run(brcc(&["check", &main, &kernels]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let expected = "error: kernel `scale` takes 3 argument(s) but is given 2\n  --> ";
    let found = err.find(expected).unwrap_or_else(|| panic!("{err}"));
    let location = err[found + expected.len()..].lines().next().unwrap();
    assert!(location.ends_with("cross_main.cpp:4:5"), "{location}");
    assert!(
        err.contains("    scale(a, r);\n") && err.contains('^'),
        "{err}"
    );
    assert_eq!(
        err.matches("error: ").count(),
        1,
        "the right call passes: {err}"
    );
}

/// A small program whose build is its own cache entry: it prints `k + 1`. Each test names
/// its own (`test`): tests run at once, and a file being rewritten must not be read.
fn numbered_program(test: &str, k: usize) -> String {
    scratch(
        &format!("{test}_{k}.br"),
        &format!(
            "#include <stdio.h>\n\
             kernel void add(float a<>, out float r<>) {{ r = a + {k}.0; }}\n\
             int main() {{\n    float in[1] = {{1}}, out[1];\n    float a<1>, r<1>;\n    \
             streamRead(a, in);\n    add(a, r);\n    streamWrite(r, out);\n    \
             printf(\"%.0f\\n\", out[0]);\n    return 0;\n}}\n"
        ),
    )
}

/// Runs `program` on the CPU with the cache in `cache`, bounded to `max` entries.
fn run_numbered(cache: &Path, program: &str, max: usize) -> Command {
    let mut cmd = brcc(&["run", program, "--backend", "cpu"]);
    cmd.env("XDG_CACHE_HOME", cache)
        .env("BROOK_CACHE_MAX_ENTRIES", max.to_string());
    cmd
}

/// The cache's entry directories.
fn cache_entries(cache: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cache.join("brook"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn the_build_cache_keeps_to_its_bound_the_least_recently_used_going_first() {
    let cache = fresh_cache("cache-bound");
    let programs: Vec<String> = (0..6).map(|k| numbered_program("bound", k)).collect();
    let built = |k: usize| {
        let o = run(run_numbered(&cache, &programs[k], 2));
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(words(&stdout(&o)), [(k + 1).to_string()]);
    };
    built(0);
    built(1);
    let first_two = cache_entries(&cache);
    assert_eq!(first_two.len(), 2);
    // 0 used again (a hit: nothing built), so 1 is the least recently used when 2 comes.
    std::thread::sleep(std::time::Duration::from_millis(20));
    built(0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    built(2);
    let after = cache_entries(&cache);
    assert_eq!(after.len(), 2, "{after:?}");
    for k in 3..6 {
        built(k);
        assert!(cache_entries(&cache).len() <= 2);
    }
    // `--list` names each entry; `--clear` empties the cache.
    let list = run(brcc(&["cache", "--list"]).env("XDG_CACHE_HOME", &cache));
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(
        stdout(&list).contains("2 cached programs"),
        "{}",
        stdout(&list)
    );
    for e in cache_entries(&cache) {
        assert!(
            stdout(&list).contains(&*e.to_string_lossy()),
            "{}",
            stdout(&list)
        );
    }
    let clear = run(brcc(&["cache", "--clear"]).env("XDG_CACHE_HOME", &cache));
    assert!(clear.status.success(), "{}", stderr(&clear));
    assert!(cache_entries(&cache).is_empty());
    // Which entry went when 2 came: rebuild 0 and 1 in a fresh cache and check 1 went.
    let cache = fresh_cache("cache-bound-lru");
    let built_in = |k: usize| {
        let o = run(run_numbered(&cache, &programs[k], 2));
        assert!(o.status.success(), "{}", stderr(&o));
    };
    built_in(0);
    built_in(1);
    let (e0, e1) = {
        let e = cache_entries(&cache);
        let newest = |a: &PathBuf, b: &PathBuf| {
            let t = |p: &PathBuf| {
                std::fs::metadata(p.join(".lock"))
                    .unwrap()
                    .modified()
                    .unwrap()
            };
            t(a) < t(b)
        };
        if newest(&e[0], &e[1]) {
            (e[0].clone(), e[1].clone())
        } else {
            (e[1].clone(), e[0].clone())
        }
    };
    std::thread::sleep(std::time::Duration::from_millis(20));
    built_in(0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    built_in(2);
    let left = cache_entries(&cache);
    assert!(
        left.contains(&e0),
        "{left:?}: program 0 was used last, it stays"
    );
    assert!(
        !left.contains(&e1),
        "{left:?}: program 1 was the least recently used"
    );
}

#[test]
fn concurrent_builds_succeed_while_the_bound_evicts() {
    // Four first builds of one program and four of others at once, with room for one entry:
    // every run succeeds (an entry in use is never removed), and the cache ends within bound.
    let cache = fresh_cache("cache-concurrent");
    let programs: Vec<String> = (0..8).map(|k| numbered_program("concurrent", k)).collect();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let k = if i % 2 == 0 { 0 } else { i };
            let child = run_numbered(&cache, &programs[k], 1)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("brcc runs");
            (k, child)
        })
        .collect();
    for (k, child) in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "program {k}: {}", stderr(&o));
        assert_eq!(words(&stdout(&o)), [(k + 1).to_string()]);
    }
    let left = cache_entries(&cache);
    assert!(left.len() <= 1, "{left:?}");
}

#[test]
fn a_program_laid_out_as_the_originals_runs_with_its_include_paths_and_macros() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/original_layout");
    let expected = std::fs::read_to_string(dir.join("main.out")).unwrap();
    let main = dir.join("main.cpp");
    let kernels = dir.join("kernels.br");
    for backend in ["cpu", "gl", "wgpu"] {
        let o = run(brcc(&[
            "run",
            main.to_str().unwrap(),
            kernels.to_str().unwrap(),
            "-D",
            "SIZE=4",
            "-DSCALE=3.0f",
            "--backend",
            backend,
        ]));
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        assert_eq!(words(&stdout(&o)), words(&expected), "{backend}");
    }
    // A header in another folder, in angle brackets, found through -I.
    let path = scratch(
        "include_path.br",
        "#include <original_host.h>\n#include <stdio.h>\nint main() { printf(\"%d\\n\", ELEMENTS); }\n",
    );
    let headers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let o = run(brcc(&[
        "run",
        &path,
        "-I",
        headers.to_str().unwrap(),
        "--backend",
        "cpu",
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(words(&stdout(&o)), ["6"]);
    let o = run(brcc(&["run", &path, "--backend", "cpu"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("original_host.h"), "{}", stderr(&o));
}

#[test]
fn a_crashing_program_is_reported_with_its_signal_and_keeps_its_output() {
    use std::os::unix::process::ExitStatusExt;
    let path = scratch(
        "crash.br",
        "#include <stdio.h>\nint main() {\n    printf(\"before the crash\\n\");\n    volatile int* p = 0;\n    *p = 1;\n    return 0;\n}\n",
    );
    let o = run(brcc(&["run", &path, "--backend", "cpu"]));
    assert_eq!(o.status.signal(), Some(11), "{}", stderr(&o));
    assert_eq!(words(&stdout(&o)), ["before", "the", "crash"]);
    assert!(
        stderr(&o).contains("`") && stderr(&o).contains("crashed: SIGSEGV"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_program_sees_the_backend_it_runs_on_in_brt_runtime() {
    let path = scratch(
        "which_runtime.br",
        "#include <stdio.h>\n#include <stdlib.h>\nkernel void k(float a<>, out float r<>) { r = a; }\nint main() {\n    printf(\"%s\\n\", getenv(\"BRT_RUNTIME\"));\n    return 0;\n}\n",
    );
    for backend in ["cpu", "wgpu"] {
        let o = run(brcc(&["run", &path, "--backend", backend]));
        assert_eq!(stdout(&o).trim(), backend, "{}", stderr(&o));
    }
    let o = run(brcc(&["run", &path]));
    assert_eq!(stdout(&o).trim(), "gl", "{}", stderr(&o));
}

#[test]
fn the_original_runtimes_internals_and_hand_written_shaders_are_refused_at_their_line() {
    let path = scratch(
        "internals.br",
        "kernel void k(float a<>, out float r<>) { r = a; }\nint main() {\n    __BrtFloat4 v;\n    return 0;\n}\n",
    );
    let o = run(brcc(&["check", &path]));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "`__BrtFloat4` is not supported: it belongs to the original CPU runtime's internals"
        ),
        "{err}"
    );
    assert!(err.contains("internals.br:3:5"), "{err}");
}

#[test]
fn a_bri_file_is_preprocessed_and_its_brh_prototypes_become_its_header() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/original_preprocessed");
    let expected = std::fs::read_to_string(dir.join("main.out")).unwrap();
    let (main, kernels) = (dir.join("main.cpp"), dir.join("kernels.bri"));
    for backend in ["cpu", "gl", "wgpu"] {
        let o = run(brcc(&[
            "run",
            main.to_str().unwrap(),
            kernels.to_str().unwrap(),
            "--backend",
            backend,
        ]));
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        assert_eq!(words(&stdout(&o)), words(&expected), "{backend}");
    }
}

/// `brcc run --fast-math` reaches the runtime: `exp` near its overflow, where llvmpipe's own
/// `exp` is tens of ulps off Brook's, prints other digits on GL with the flag than without
/// it (and the accurate digits again after a fast run: the build cache keeps the modes
/// apart); the CPU's fast `exp` (3 ulp) prints other digits too, within the two bounds.
#[test]
fn fast_math_is_asked_for_on_the_command_line() {
    let path = scratch(
        "fast_math.br",
        "#include <stdio.h>\n\
         kernel void e(float x<>, out float r<>) { r = exp(x); }\n\
         int main() {\n\
             float in[64], out[64];\n\
             for (int i = 0; i < 64; i++) in[i] = 80.0f + i * (8.7f / 64.0f);\n\
             float x<64>, r<64>;\n\
             streamRead(x, in);\n\
             e(x, r);\n\
             streamWrite(r, out);\n\
             for (int i = 0; i < 64; i++) printf(\"%.9g\\n\", out[i]);\n\
             return 0;\n\
         }\n",
    );
    let printed = |backend: &str, fast: bool| {
        let mut args = vec!["run", path.as_str(), "--backend", backend];
        if fast {
            args.push("--fast-math");
        }
        let o = run(brcc(&args));
        assert!(o.status.success(), "{backend} fast={fast}: {}", stderr(&o));
        stdout(&o)
    };
    // The CPU's fast `exp` (3 ulp) differs from its accurate one (1.5 ulp) in some digits,
    // never by more than the two bounds together, and the accurate digits come back.
    let cpu = printed("cpu", false);
    let cpu_fast = printed("cpu", true);
    assert_ne!(cpu_fast, cpu, "--fast-math ran the CPU's accurate exp");
    for (f, a) in cpu_fast.lines().zip(cpu.lines()) {
        let (f, a): (f64, f64) = (f.parse().unwrap(), a.parse().unwrap());
        assert!(
            ((f - a) / a).abs() <= 4.5 * f64::from(f32::EPSILON),
            "the CPU's fast exp {f} is more than 4.5 ulp from its accurate {a}"
        );
    }
    assert_eq!(printed("cpu", false), cpu, "the CPU's accurate mode again");
    let (accurate, fast) = (printed("gl", false), printed("gl", true));
    assert_eq!(
        printed("gl", false),
        accurate,
        "the accurate mode again after a fast run"
    );
    if brook::Runtime::gl().is_ok_and(|gl| gl.describe().contains("llvmpipe")) {
        assert_ne!(fast, accurate, "--fast-math ran Brook's accurate exp on GL");
    }
}
