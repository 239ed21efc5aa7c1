//! A shader that naga's validator refuses is reported at the Brook line its bad expression
//! came from (every naga expression and statement carries the Brook byte range it lowers),
//! as a driver's GLSL compile error is mapped back on the GL backend.

use brook_wgpu::shaders::kernel::{kernel_module, ArgShape, KernelVariant};
use brook_wgpu::{Source, WgpuBackend, WgpuError};

const SRC: &str = "kernel void k(float a<>, out float r<>) {\n    float t = a;\n    r = t;\n}\n";

#[test]
fn a_validation_failure_points_at_the_brook_line() {
    let module = brook_frontend::compile(SRC, "prog.br").unwrap();
    let variant = KernelVariant {
        kernel: brook_ir::FunctionId(0),
        args: vec![
            ArgShape::Stream {
                direct: true,
                domain: false,
                rank: 1,
                aliased: false,
            },
            ArgShape::Out { domain: false },
        ],
        rank: 1,
        masked: false,
        counting: false,
        check_loops: false,
    };
    let (mut naga_module, plan) =
        kernel_module(&module, &variant, brook_ir::MathMode::Accurate).unwrap();
    // Break the lowered `r = t;` (line 3): store through something that is not a pointer.
    let line3 = SRC.find("r = t").unwrap() as u32;
    let span = naga::Span::new(line3, line3 + 5);
    let (_, f) = naga_module.functions.iter_mut().next().unwrap();
    let not_a_pointer = f
        .expressions
        .append(naga::Expression::Literal(naga::Literal::F32(1.0)), span);
    let value = f
        .expressions
        .append(naga::Expression::Literal(naga::Literal::F32(2.0)), span);
    f.body.push(
        naga::Statement::Store {
            pointer: not_a_pointer,
            value,
        },
        span,
    );

    let b = WgpuBackend::new().unwrap();
    let source = Source::new("prog.br", SRC);
    let err = brook_wgpu::pipeline::build(
        b.gpu(),
        "kernel k".into(),
        naga_module,
        plan.resources,
        "k",
        Some(&source),
    )
    .err()
    .expect("the module is invalid");
    match &err {
        WgpuError::Shader {
            function, place, ..
        } => {
            assert_eq!(function, "k");
            assert_eq!(place, "prog.br:3", "{err}");
        }
        other => panic!("expected a shader error, got {other}"),
    }
    assert!(
        err.to_string()
            .starts_with("prog.br:3: the compute shader generated for `k` is invalid"),
        "{err}"
    );
}
