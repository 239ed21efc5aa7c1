//! `frexp` and `modf`, Cg's built-ins with an out-parameter, on GL and CPU against Rust's f64.

mod support;

use brook::Runtime;
use support::{gl_equals_cpu, Input};

const SRC: &str = "kernel void split(float4 x<>, out float4 mantissa<>, out float4 exponent<>,
                                   out float4 fraction<>, out float4 whole<>) {
    float4 e;
    float4 w;
    mantissa = frexp(x, e);
    exponent = e;
    fraction = modf(x, w);
    whole = w;
}";

#[test]
fn frexp_and_modf_write_their_second_argument() {
    let x = vec![
        8.0, 1.0, 0.75, -3.5, 0.0, 1e-3, 12345.678, -0.5, 2.5, -2.5, 1e30, 3.0e-30, 65536.0, -1.0,
        0.1, 7.0,
    ];
    let shape = [4];
    let inputs = [
        Input::Data {
            components: 4,
            shape: &shape,
            data: x.clone(),
        },
        Input::Out {
            components: 4,
            shape: &shape,
        },
        Input::Out {
            components: 4,
            shape: &shape,
        },
        Input::Out {
            components: 4,
            shape: &shape,
        },
        Input::Out {
            components: 4,
            shape: &shape,
        },
    ];
    // The GPU computes 2^-e through exp2, exact for integer e: results agree bit for bit.
    let out = gl_equals_cpu(&Runtime::gl().unwrap(), SRC, "split", &inputs, 0);
    for (i, v) in x.iter().enumerate() {
        let (m, e) = (out[0][i], out[1][i]);
        if *v == 0.0 {
            assert_eq!((m, e), (0.0, 0.0));
        } else {
            assert!((0.5..1.0).contains(&m.abs()), "frexp({v}) mantissa {m}");
            assert_eq!(
                m as f64 * 2f64.powf(e as f64),
                *v as f64,
                "frexp({v}) = {m} * 2^{e}"
            );
        }
        assert_eq!(out[3][i], v.trunc(), "modf({v}) whole part");
        assert_eq!(out[2][i], v - v.trunc(), "modf({v}) fraction");
    }
}
