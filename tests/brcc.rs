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
fn bad_reductions_and_swaps_are_runtime_errors() {
    let cases = [
        (
            "float s<10>, r<3>; sum(s, r);",
            "must divide the input shape <10>",
        ),
        ("float2 s<4>; float v; sum(s, v);", "`sum`"),
        (
            "float a<4>, b<5>; streamSwap(a, b);",
            "streamSwap needs two streams of one shape",
        ),
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
        cpp.contains("static void saxpy(float a, const ::brook::stream_arg& x"),
        "{cpp}"
    );
    assert!(
        cpp.contains("::brook::stream x(__brook_program(), \"float4\", ::brook::extents((4)))"),
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
        text.contains("; kernel `saxpy` (rank 2 output; constant, stream, stream, out)"),
        "{text}"
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
    let o = run(brcc(&["frobnicate"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("usage:"), "{}", stderr(&o));
}
