//! Write masks (depth test on GL, a mask buffer the shader reads on wgpu, 000 §7.4.2) and
//! write queries (occlusion queries on GL, an atomic counter on wgpu) on every backend against
//! the CPU backend and hand-worked values: mask patterns with two outputs and a discarding
//! kernel, a split call (one draw buffer), query counts, and the errors.

use brook::{ContextOptions, Runtime, Stream};

const SRC: &str = "kernel void twice(float a<>, out float b<>, out float2 c<>) {
    if (a < 0.0) discard;
    b = a * 2.0;
    c = float2(a, 1.0);
}";

const W: usize = 7;
const H: usize = 5;
const N: usize = W * H;

fn stream(rt: &Runtime, components: u8, data: &[f32]) -> Stream {
    let s = rt.stream_of(components, &[H, W]).unwrap();
    s.read(data).unwrap();
    s
}

/// Runs `twice` under `mask` (None: unmasked) inside a write query; returns (b, c, count).
fn masked(rt: &Runtime, mask: Option<&[f32]>) -> (Vec<f32>, Vec<f32>, u64) {
    let program = rt.compile(SRC, "mask.br").unwrap();
    // Every 4th element is negative: the kernel discards it.
    let a: Vec<f32> = (0..N)
        .map(|i| if i % 4 == 3 { -1.0 } else { i as f32 })
        .collect();
    let a = stream(rt, 1, &a);
    let b = stream(rt, 1, &[-7.0; N]);
    let c = stream(rt, 2, &[-9.0; 2 * N]);
    let m;
    if let Some(mask) = mask {
        m = stream(rt, 1, mask);
        rt.set_write_mask(&m).unwrap();
        rt.enable_write_mask().unwrap();
    }
    rt.begin_write_query().unwrap();
    rt.run(&program, "twice", brook::args![&a, &b, &c]).unwrap();
    let count = rt.end_write_query().unwrap();
    rt.disable_write_mask().unwrap();
    (b.to_vec().unwrap(), c.to_vec().unwrap(), count)
}

fn expected(mask: Option<&[f32]>) -> (Vec<f32>, Vec<f32>, u64) {
    let mut b = vec![-7.0; N];
    let mut c = vec![-9.0; 2 * N];
    let mut count = 0;
    for i in 0..N {
        let on = mask.is_none_or(|m| m[i] != 0.0);
        if on && i % 4 != 3 {
            b[i] = 2.0 * i as f32;
            c[2 * i] = i as f32;
            c[2 * i + 1] = 1.0;
            count += 1;
        }
    }
    (b, c, count)
}

fn patterns() -> Vec<(&'static str, Vec<f32>)> {
    let rect = (0..N)
        .map(|i| {
            let (y, x) = (i / W, i % W);
            f32::from((1..4).contains(&y) && (2..6).contains(&x))
        })
        .collect();
    vec![
        ("all", vec![1.0; N]),
        ("none", vec![0.0; N]),
        (
            "checkerboard",
            (0..N).map(|i| ((i / W + i % W) % 2) as f32).collect(),
        ),
        ("rectangle", rect),
        (
            "negative values are on",
            (0..N).map(|i| -(i as f32 % 3.0)).collect(),
        ),
    ]
}

fn runtimes() -> Vec<(&'static str, Runtime)> {
    vec![
        ("cpu", Runtime::cpu()),
        ("gl", Runtime::gl().unwrap()),
        (
            "gl split (one draw buffer)",
            Runtime::gl_with(ContextOptions {
                max_draw_buffers: Some(1),
                ..ContextOptions::default()
            })
            .unwrap(),
        ),
        (
            "gl translated (padding texels)",
            Runtime::gl_with(ContextOptions {
                max_texture_size: Some(6),
                ..ContextOptions::default()
            })
            .unwrap(),
        ),
        ("wgpu", Runtime::wgpu().unwrap()),
    ]
}

#[test]
fn masks_keep_masked_off_elements_and_queries_count_written_ones() {
    for (name, rt) in runtimes() {
        assert_eq!(masked(&rt, None), expected(None), "{name}, unmasked");
        for (pattern, mask) in patterns() {
            assert_eq!(
                masked(&rt, Some(&mask)),
                expected(Some(&mask)),
                "{name}, mask {pattern}"
            );
        }
    }
}

#[test]
fn a_disabled_mask_writes_everything_and_calls_outside_a_query_are_not_counted() {
    for (name, rt) in runtimes() {
        let program = rt.compile(SRC, "mask.br").unwrap();
        let a = stream(&rt, 1, &(0..N).map(|i| i as f32).collect::<Vec<_>>());
        let (b, c) = (stream(&rt, 1, &[0.0; N]), stream(&rt, 2, &[0.0; 2 * N]));
        rt.set_write_mask(&stream(&rt, 1, &[0.0; N])).unwrap();
        rt.enable_write_mask().unwrap();
        rt.disable_write_mask().unwrap();
        rt.run(&program, "twice", brook::args![&a, &b, &c]).unwrap();
        rt.begin_write_query().unwrap();
        let count = rt.end_write_query().unwrap();
        assert_eq!(count, 0, "{name}");
        let want: Vec<f32> = (0..N).map(|i| 2.0 * i as f32).collect();
        assert_eq!(b.to_vec().unwrap(), want, "{name}");
    }
}

#[test]
fn misuse_is_a_clear_error() {
    for (name, rt) in runtimes() {
        let program = rt.compile(SRC, "mask.br").unwrap();
        let err = rt.enable_write_mask().unwrap_err().to_string();
        assert!(err.contains("no write mask is bound"), "{name}: {err}");
        let err = rt.end_write_query().unwrap_err().to_string();
        assert!(err.contains("no write query is open"), "{name}: {err}");
        rt.begin_write_query().unwrap();
        let err = rt.begin_write_query().unwrap_err().to_string();
        assert!(err.contains("already open"), "{name}: {err}");
        rt.end_write_query().unwrap();

        let wrong = rt.stream_of(1, &[W, H]).unwrap();
        wrong.read(&[1.0; N]).unwrap();
        rt.set_write_mask(&wrong).unwrap();
        rt.enable_write_mask().unwrap();
        let a = stream(&rt, 1, &[1.0; N]);
        let (b, c) = (stream(&rt, 1, &[0.0; N]), stream(&rt, 2, &[0.0; 2 * N]));
        let err = rt
            .run(&program, "twice", brook::args![&a, &b, &c])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("write mask has shape <7, 5> but the outputs have shape <5, 7>"),
            "{name}: {err}"
        );
        assert_eq!(b.to_vec().unwrap(), vec![0.0; N], "{name}: nothing written");
    }
}

#[test]
fn write_queries_are_refused_on_es_3_0() {
    let rt = Runtime::gl_with(ContextOptions {
        profile: brook::Profile::Es30,
        ..ContextOptions::default()
    })
    .unwrap();
    let err = rt.begin_write_query().unwrap_err().to_string();
    assert!(err.contains("ANY_SAMPLES_PASSED"), "{err}");
}

#[test]
fn masks_apply_inside_output_domains_with_the_whole_streams_shape() {
    // Columns 2..6 of rows 1..4 (Brook order: x first); the mask is a checkerboard of the
    // whole 5x7 stream, so element (y, x) is written where it is inside the domain, on in
    // the mask, and not discarded by the kernel.
    let (lo, hi) = ([2, 1], [6, 4]);
    let (dw, dh) = (hi[0] - lo[0], hi[1] - lo[1]);
    let checker: Vec<f32> = (0..N).map(|i| ((i / W + i % W) % 2) as f32).collect();
    let a: Vec<f32> = (0..dw * dh)
        .map(|i| if i % 5 == 4 { -1.0 } else { i as f32 })
        .collect();
    let mut want_b = vec![-7.0; N];
    let mut want_count = 0;
    for y in lo[1]..hi[1] {
        for x in lo[0]..hi[0] {
            let (i, k) = (y * W + x, (y - lo[1]) * dw + (x - lo[0]));
            if checker[i] != 0.0 && a[k] >= 0.0 {
                want_b[i] = 2.0 * a[k];
                want_count += 1;
            }
        }
    }
    for (name, rt) in runtimes() {
        let program = rt.compile(SRC, "mask.br").unwrap();
        let input = rt.stream_of(1, &[dh, dw]).unwrap();
        input.read(&a).unwrap();
        let b = stream(&rt, 1, &[-7.0; N]);
        let c = stream(&rt, 2, &[-9.0; 2 * N]);
        rt.set_write_mask(&stream(&rt, 1, &checker)).unwrap();
        rt.enable_write_mask().unwrap();
        rt.begin_write_query().unwrap();
        let (bd, cd) = (b.domain(&lo, &hi).unwrap(), c.domain(&lo, &hi).unwrap());
        rt.run(&program, "twice", brook::args![&input, &bd, &cd])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let count = rt.end_write_query().unwrap();
        rt.disable_write_mask().unwrap();
        assert_eq!(b.to_vec().unwrap(), want_b, "{name}");
        assert_eq!(count, want_count, "{name}");
        let c = c.to_vec().unwrap();
        assert!(
            (0..N).all(|i| (c[2 * i] == -9.0) == (want_b[i] == -7.0)),
            "{name}: c written where b is"
        );
    }
}

#[test]
fn a_reduction_sees_the_values_a_masked_kernel_kept() {
    let src = format!("{SRC}\nreduce void sum(float a<>, reduce float r<>) {{ r += a; }}");
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mask: Vec<f32> = (0..N).map(|i| f32::from(i % 3 == 0)).collect();
    // Masked-off elements keep 100; the rest become 2i (no element is negative here).
    let want: f32 = (0..N)
        .map(|i| if i % 3 == 0 { 2.0 * i as f32 } else { 100.0 })
        .sum();
    for (name, rt) in runtimes() {
        let program = rt.compile(&src, "mask.br").unwrap();
        let (input, b) = (stream(&rt, 1, &a), stream(&rt, 1, &[100.0; N]));
        let c = stream(&rt, 2, &[0.0; 2 * N]);
        rt.set_write_mask(&stream(&rt, 1, &mask)).unwrap();
        rt.enable_write_mask().unwrap();
        rt.run(&program, "twice", brook::args![&input, &b, &c])
            .unwrap();
        rt.disable_write_mask().unwrap();
        let total = rt
            .reduce_to_value(&program, "sum", &b, brook::args![])
            .unwrap();
        assert_eq!(total, vec![want], "{name}");
        // Row sums, reduced to a stream, see them too.
        let rows = rt.stream_of(1, &[H, 1]).unwrap();
        rt.reduce_to_stream(&program, "sum", &b, &rows, brook::args![])
            .unwrap();
        let want_rows: Vec<f32> = (0..H)
            .map(|y| {
                (0..W)
                    .map(|x| y * W + x)
                    .map(|i| if i % 3 == 0 { 2.0 * i as f32 } else { 100.0 })
                    .sum()
            })
            .collect();
        assert_eq!(rows.to_vec().unwrap(), want_rows, "{name}");
    }
}
