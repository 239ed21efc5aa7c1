//! The compile-time budget on GL and wgpu (`brook_core::budget`; both compile through Mesa
//! here): a kernel whose inlined size would keep the driver's compiler busy for minutes is
//! refused at the statement that takes it past, before the driver sees it; the CPU backend
//! runs it.

mod support;

use brook::{args, Runtime};
use support::{gl_profiles, wgpu};

/// `f0` has `body` statements; `f{l}` calls `f{l-1}` twice, so the kernel is about
/// 2^levels · body statements once every call is inlined.
fn call_tree(levels: usize, body: usize) -> String {
    let mut src = String::from("float f0(float a) {\n    float x = a;\n");
    for i in 0..body {
        src.push_str(&format!("    x = x * 0.5 + {i}.0;\n"));
    }
    src.push_str("    return x;\n}\n");
    for l in 1..=levels {
        src.push_str(&format!(
            "float f{l}(float x) {{ return f{p}(x) + f{p}(x + 1.0); }}\n",
            p = l - 1
        ));
    }
    src.push_str(&format!(
        "kernel void k(float a<>, out float b<>) {{\n    b = f{levels}(a);\n}}\n"
    ));
    src
}

fn run(rt: &Runtime, src: &str) -> Result<Vec<f32>, brook::BrookError> {
    let p = rt.compile(src, "tree.br")?;
    let (a, b) = (rt.stream_of(1, &[2])?, rt.stream_of(1, &[2])?);
    a.read(&[1.0, 2.0])?;
    rt.run(&p, "k", args![&a, &b])?;
    b.to_vec()
}

#[test]
fn kernels_past_the_budget_are_refused_at_their_line_before_the_driver_compiles() {
    let (small, huge) = (call_tree(4, 10), call_tree(13, 10));
    let line = huge.lines().count() - 1;
    let on_cpu = run(&Runtime::cpu(), &small).unwrap();
    assert!(run(&Runtime::cpu(), &huge).unwrap()[0].is_finite());
    for rt in gl_profiles(None, None).into_iter().chain([wgpu()]) {
        assert_eq!(run(&rt, &small).unwrap(), on_cpu, "{}", rt.describe());
        let err = run(&rt, &huge).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("tree.br:{line}: "))
                && err.contains("more than 25000 statements once every function call is inlined")
                && err.contains("b = f13(a);"),
            "{err}"
        );
    }
}
