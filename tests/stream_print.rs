//! `streamPrint` (`Stream::print_string`) in the original's exact format, for every element
//! type and the edge values, on every backend.

mod support;

use brook::{format_value, ContextOptions, ElementFormat, MemberFormat, Profile, Runtime};

fn runtimes() -> Vec<Runtime> {
    vec![
        Runtime::cpu(),
        support::gl_with(None, None),
        Runtime::gl_with(ContextOptions {
            profile: Profile::Es30,
            ..ContextOptions::default()
        })
        .expect("a headless GL ES context"),
        support::wgpu(),
    ]
}

#[test]
fn values_print_as_percent_3_2f_with_the_original_edge_cases() {
    let cases = [
        (1.0, "1.00"),
        (-2.5, "-2.50"),
        (0.5, "0.50"),
        (123.456, "123.46"),
        (1e-7, "0.00"),
        (-1e-7, "0.00"),
        (-0.0, "0.00"),
        (0.001, "0.00"),
        (-0.004, "-0.00"),
        (f32::NAN, "NaN"),
        (f32::INFINITY, "inf"),
        (f32::NEG_INFINITY, "inf"),
        (1e10, "10000000000.00"),
    ];
    for (x, want) in cases {
        assert_eq!(format_value(x), want, "{x}");
    }
}

#[test]
fn every_element_type_on_every_backend() {
    for rt in runtimes() {
        let name = rt.backend_name();
        // One component: a space after each, a newline after each row of 3.
        let s = rt.stream_of(1, &[2, 3]).unwrap();
        s.read(&[1.0, -2.5, 1e-7, f32::NAN, f32::INFINITY, f32::NEG_INFINITY])
            .unwrap();
        assert_eq!(
            s.print_string().unwrap(),
            "1.00 -2.50 0.00 \nNaN inf inf \n",
            "{name}"
        );
        // Vectors: braces, nothing between elements, one line for a 1D stream.
        for (n, want) in [
            (2, "{1.00, 2.00}{3.00, 4.00}\n"),
            (3, "{1.00, 2.00, 3.00}{4.00, 5.00, 6.00}\n"),
            (4, "{1.00, 2.00, 3.00, 4.00}{5.00, 6.00, 7.00, 8.00}\n"),
        ] {
            let s = rt.stream_of(n, &[2]).unwrap();
            let data: Vec<f32> = (1..=2 * n as usize).map(|i| i as f32).collect();
            s.read(&data).unwrap();
            assert_eq!(s.print_string().unwrap(), want, "{name} float{n}");
        }
        // A struct element prints all its floats in C layout.
        let format = ElementFormat::structure(vec![
            MemberFormat {
                name: "t".into(),
                components: 1,
            },
            MemberFormat {
                name: "n".into(),
                components: 2,
            },
        ])
        .unwrap();
        let s = rt.stream(format, &[2, 1]).unwrap();
        s.read(&[0.25, 1.0, -1.0, 1e-9, f32::NAN, 2.0]).unwrap();
        assert_eq!(
            s.print_string().unwrap(),
            "{0.25, 1.00, -1.00}\n{0.00, NaN, 2.00}\n",
            "{name} struct"
        );
    }
}
