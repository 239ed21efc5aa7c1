use brook_wgpu::shaders::kernel::{kernel_module, ArgShape, KernelVariant};

#[test]
fn saxpy_validates() {
    let m = brook_frontend::compile(
        "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }",
        "t.br",
    )
    .unwrap();
    let v = KernelVariant {
        kernel: brook_frontend::ir::FunctionId(0),
        args: vec![
            ArgShape::Constant,
            ArgShape::Stream {
                direct: true,
                domain: false,
                rank: 1,
            },
            ArgShape::Stream {
                direct: false,
                domain: false,
                rank: 1,
            },
            ArgShape::Out { domain: false },
        ],
        rank: 1,
        masked: false,
        counting: false,
    };
    let (module, _) = kernel_module(&m, &v).unwrap();
    let info = brook_wgpu::lower::module::validate(&module)
        .map_err(|e| e.0)
        .unwrap();
    println!("{}", brook_wgpu::lower::module::wgsl(&module, &info));
}
