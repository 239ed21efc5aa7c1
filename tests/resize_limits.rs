//! Brook's implicit resize (`i * in / out` per dimension, the ratio reduced by its gcd) where
//! 32-bit products run out: GL and wgpu compute it in 32-bit integers, the CPU in 64. An equal
//! extent passes through (an iterator or stream of the call's shape is never multiplied), a
//! product that fits is exact everywhere — every simple ratio, whatever its extents — and one
//! that would wrap is refused on GL and wgpu, never computed wrongly.

use brook::{args, BrookError, IterSpec, Runtime};

const SRC: &str = "
kernel void copy(float a<>, out float r<>) { r = a; }
kernel void index(iter float i<>, out float r<>) { r = i; }
";

fn runtimes() -> Vec<Runtime> {
    vec![
        Runtime::gl().unwrap(),
        Runtime::wgpu().unwrap(),
        Runtime::cpu(),
    ]
}

/// `copy` from a stream of `from` elements (element i holds i) into one of `to`: the output.
fn copy_resized(rt: &Runtime, from: usize, to: usize) -> Result<Vec<f32>, BrookError> {
    let data: Vec<f32> = (0..from).map(|i| i as f32).collect();
    let p = rt.compile(SRC, "resize.br").unwrap();
    let a = rt.stream_of(1, &[from]).unwrap();
    a.read(&data).unwrap();
    let r = rt.stream_of(1, &[to]).unwrap();
    rt.run(&p, "copy", args![&a, &r])?;
    Ok(r.to_vec().unwrap())
}

#[test]
fn an_iterator_of_the_calls_shape_gives_every_index_past_two_to_the_sixteenth() {
    // 2^20 elements: i * 2^20 wraps 32 bits from i = 2^12, which the wgpu backend multiplied
    // out before equal extents passed through (a bitonic sort came back wrong).
    let n = 1 << 20;
    for rt in runtimes() {
        let p = rt.compile(SRC, "resize.br").unwrap();
        let it = rt
            .iter(IterSpec::new(&[n], 1, [0.0; 4], [n as f32, 0.0, 0.0, 0.0]).unwrap())
            .unwrap();
        let r = rt.stream_of(1, &[n]).unwrap();
        rt.run(&p, "index", args![&it, &r]).unwrap();
        let got = r.to_vec().unwrap();
        let wrong = (0..n).find(|&i| got[i] != i as f32);
        assert_eq!(wrong, None, "{}", rt.describe());
    }
}

#[test]
fn a_resize_whose_products_fit_is_exact_on_every_backend_whatever_its_extents() {
    // 65535 → 65536: i × 65535 < 2^32 for every i < 65536, element i reads ⌊i·65535/65536⌋.
    // 2^17 → 2^16 and 50000 → 100000: i × in passes 2^32, but the ratio reduced by the gcd
    // (2/1, 1/2) multiplies by at most 2.
    let cases = [
        (65_535, 65_536),
        (1 << 17, 1 << 16),
        (50_000, 100_000),
        (60_000, 40_000),
    ];
    for (from, to) in cases {
        for rt in runtimes() {
            let got = copy_resized(&rt, from, to).unwrap();
            let wrong = (0..to).find(|&i| got[i] != (i as u64 * from as u64 / to as u64) as f32);
            assert_eq!(wrong, None, "{from} → {to} on {}", rt.describe());
        }
    }
}

#[test]
fn a_resize_past_32_bit_products_is_refused_on_gl_and_wgpu_and_exact_on_the_cpu() {
    // 100003 (a prime) → 65536: the ratio does not reduce, and 65535 × 100003 reaches 2^32.
    let (from, to) = (100_003usize, 1usize << 16);
    for rt in runtimes() {
        let ran = copy_resized(&rt, from, to);
        if rt.backend_name() == "cpu" {
            let got = ran.unwrap();
            assert!((0..to).all(|i| got[i] == (i as u64 * from as u64 / to as u64) as f32));
        } else {
            let err = ran.unwrap_err();
            assert!(
                matches!(err.unplaced(), BrookError::DeviceLimit { .. }),
                "{}: {err:?}",
                rt.describe()
            );
            let text = err.to_string();
            assert!(
                text.contains("65535 × 100003") && text.contains("32-bit"),
                "{text}"
            );
        }
    }
}
