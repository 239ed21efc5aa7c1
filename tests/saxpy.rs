//! SAXPY end to end: GL (desktop core and ES profiles) equals the CPU backend and an f64
//! reference.

mod support;

use brook::{args, ContextOptions, Profile, Runtime};
use support::{gl_equals_cpu, gl_with, Input};

const SAXPY: &str = "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}";

fn saxpy_inputs(shape: &[usize]) -> Vec<Input<'_>> {
    let n: usize = shape.iter().product::<usize>() * 4;
    vec![
        Input::Constant(vec![1.75]),
        Input::Data {
            components: 4,
            shape,
            data: (0..n).map(|i| (i % 1013) as f32 * 0.37 - 90.0).collect(),
        },
        Input::Data {
            components: 4,
            shape,
            data: (0..n).map(|i| (i % 511) as f32 * -1.5).collect(),
        },
        Input::Out {
            components: 4,
            shape,
        },
    ]
}

fn check_against_f64(shape: &[usize], out: &[f32]) {
    let n: usize = shape.iter().product::<usize>() * 4;
    assert_eq!(out.len(), n);
    for (i, got) in out.iter().enumerate() {
        let x = ((i % 1013) as f32 * 0.37 - 90.0) as f64;
        let y = ((i % 511) as f32 * -1.5) as f64;
        let exact = 1.75 * x + y;
        let tolerance = 2.0 * f32::EPSILON as f64 * (1.75 * x.abs() + y.abs()).max(1.0);
        assert!(
            (*got as f64 - exact).abs() <= tolerance,
            "element {i}: {got} vs {exact}"
        );
    }
}

#[test]
fn saxpy_on_gl_equals_cpu_and_f64() {
    let gl = Runtime::gl().unwrap();
    for shape in [vec![256, 256], vec![1, 1], vec![7, 13], vec![1000]] {
        // One rounding per operation on both sides; a driver may fuse into an FMA (1 ulp).
        let out = gl_equals_cpu(&gl, SAXPY, "saxpy", &saxpy_inputs(&shape), 1);
        check_against_f64(&shape, &out[0]);
    }
}

#[test]
fn saxpy_on_the_es_profile() {
    let es = Runtime::gl_with(ContextOptions {
        profile: Profile::Es30,
        ..ContextOptions::default()
    })
    .unwrap();
    let shape = [64, 48];
    let out = gl_equals_cpu(&es, SAXPY, "saxpy", &saxpy_inputs(&shape), 1);
    check_against_f64(&shape, &out[0]);
}

#[test]
fn saxpy_under_address_translation() {
    // 3000 elements with 64-texel textures: wrapped into 47 rows of 64.
    let gl = gl_with(Some(64), None);
    let out = gl_equals_cpu(&gl, SAXPY, "saxpy", &saxpy_inputs(&[3000]), 1);
    check_against_f64(&[3000], &out[0]);
    let out = gl_equals_cpu(&gl, SAXPY, "saxpy", &saxpy_inputs(&[3, 5, 7, 11]), 1);
    check_against_f64(&[3, 5, 7, 11], &out[0]);
}

#[test]
fn repeated_calls_see_each_calls_constant() {
    let gl = Runtime::gl().unwrap();
    let program = gl.compile(SAXPY, "saxpy.br").unwrap();
    let s: Vec<_> = (0..3).map(|_| gl.stream_of(4, &[8, 8]).unwrap()).collect();
    s[0].read(&vec![1.0; 256]).unwrap();
    s[1].read(&vec![2.0; 256]).unwrap();
    for k in 0..5 {
        gl.run(&program, "saxpy", args![k as f32, &s[0], &s[1], &s[2]])
            .unwrap();
        assert!(s[2].to_vec().unwrap().iter().all(|v| *v == k as f32 + 2.0));
    }
    let plan = gl
        .plan(&program, "saxpy", args![1.0f32, &s[0], &s[1], &s[2]])
        .unwrap();
    assert_eq!(plan.len(), 1);
    let source = &plan[0].program.as_ref().expect("a draw").source;
    let brook::core::ShaderSource::Raster { fragment, .. } = &**source else {
        panic!("a GLSL program");
    };
    assert!(fragment.contains("texelFetch(x_tex, brook_fragment, 0)"));
}
