//! `streamGatherOp` (fetch-and-op) on GL against the CPU backend and hand-worked values:
//! fetch-and-increment with collisions (each element gets the count before it), a
//! non-commutative user reduction, the original's form (each fetched element combined with
//! itself), float4 elements, a 2D data stream under address
//! translation, clamped indices, plain fetch, errors.

mod support;

use brook::{GatherOp, Runtime, ScatterOp, Stream};
use support::{agree_with_cpu, gl_profiles};

fn stream(rt: &Runtime, components: u8, shape: &[usize], data: &[f32]) -> Stream {
    let s = rt.stream_of(components, shape).unwrap();
    s.read(data).unwrap();
    s
}

#[test]
fn fetch_and_increment_hands_out_the_count_before_each_element() {
    // Textures at most 4 texels wide: 10 fetching elements and the order stream wrap.
    let mut gls = gl_profiles(Some(4), None);
    gls.extend(gl_profiles(None, None));
    // A histogram counter: bins 0..3; -5 clamps to 0, 7 to 3, 1.8 rounds to 2, 0.8 to 1.
    let index = [2.0, 0.0, 2.0, -5.0, 7.0, 1.8, 2.0, 0.8, 3.0, 0.0];
    let got = agree_with_cpu(&gls, 0, |rt| {
        let data = stream(rt, 1, &[4], &[0.0, 100.0, 0.0, 50.0]);
        let idx = stream(rt, 1, &[10], &index);
        let dst = stream(rt, 1, &[10], &[-1.0; 10]);
        rt.gather_op(&dst, &idx, &data, GatherOp::Increment)
            .unwrap();
        vec![dst.to_vec().unwrap(), data.to_vec().unwrap()]
    });
    assert_eq!(
        got[0],
        [0.0, 0.0, 1.0, 1.0, 50.0, 2.0, 3.0, 100.0, 51.0, 2.0]
    );
    assert_eq!(got[1], [3.0, 101.0, 4.0, 52.0]);
}

#[test]
fn thousands_of_collisions_count_like_a_sequential_loop() {
    let gls = gl_profiles(None, None);
    let n = 3000;
    let index: Vec<f32> = (0..n).map(|i| ((i * 7919) % 11) as f32).collect();
    let mut counts = [0.0f32; 11];
    let mut expected = vec![0.0f32; n];
    for i in 0..n {
        let t = index[i] as usize;
        expected[i] = counts[t];
        counts[t] += 2.5;
    }
    let got = agree_with_cpu(&gls, 0, |rt| {
        let data = stream(rt, 1, &[11], &[0.0; 11]);
        let idx = stream(rt, 1, &[n], &index);
        let dst = stream(rt, 1, &[n], &[0.0; 3000]);
        rt.gather_op(&dst, &idx, &data, GatherOp::With(ScatterOp::Add, &[2.5]))
            .unwrap();
        vec![dst.to_vec().unwrap(), data.to_vec().unwrap()]
    });
    assert_eq!(got[0], expected);
    assert_eq!(got[1], counts);
}

#[test]
fn a_user_reduction_updates_float4_elements_in_index_order() {
    let mut gls = gl_profiles(Some(4), None);
    gls.extend(gl_profiles(None, None));
    // r = (r.y, r.z, r.w, r.x * a.x + a.y): not commutative in its collisions.
    let src = "reduce void rot(float4 a<>, reduce float4 r<>) {
        r = float4(r.y, r.z, r.w, r.x * a.x + a.y);
    }";
    let init = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let index = [1.0, 0.0, 1.0, 1.0, 9.0];
    let operand = [2.0, 1.0, 0.0, 0.0];
    let got = agree_with_cpu(&gls, 0, |rt| {
        let program = rt.compile(src, "rot.br").unwrap();
        let data = stream(rt, 4, &[2], &init);
        let idx = stream(rt, 1, &[5], &index);
        let dst = stream(rt, 4, &[5], &[0.0; 20]);
        let op = GatherOp::With(ScatterOp::Reduce(&program, "rot"), &operand);
        rt.gather_op(&dst, &idx, &data, op).unwrap();
        vec![dst.to_vec().unwrap(), data.to_vec().unwrap()]
    });
    let rot = |r: [f32; 4]| [r[1], r[2], r[3], r[0] * 2.0 + 1.0];
    let mut state = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]];
    let mut fetched = vec![];
    for &t in &index {
        let t = (t as usize).min(1);
        fetched.extend(state[t]);
        state[t] = rot(state[t]);
    }
    assert_eq!(got[0], fetched);
    assert_eq!(got[1], state.iter().flatten().copied().collect::<Vec<_>>());
    // Element 0 fetched the initial value, element 2 the once-rotated one.
    assert_eq!(got[0][0..4], [5.0, 6.0, 7.0, 8.0]);
    assert_eq!(got[0][8..12], [6.0, 7.0, 8.0, 11.0]);
}

#[test]
fn the_original_form_combines_each_fetched_element_with_itself() {
    // `streamGatherOp(dst, index, data, f)` with a reduce function: the original runtime hands
    // the fetched element to `f` as both arguments. Here `f` is not symmetric, so a swap of
    // its arguments or a stale fetch changes the result. 2D data, textures 4 texels wide.
    let mut gls = gl_profiles(Some(4), None);
    gls.extend(gl_profiles(None, None));
    let src = "reduce void step(float2 a<>, reduce float2 r<>) { r = float2(r.x * a.y + 1.0, r.y - a.x); }";
    let init: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
    // (column, row) pairs into a 2×3 stream; (5, -1) clamps to (2, 0).
    let index = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 5.0, -1.0, 1.0, 1.0, 0.0, 0.0];
    let got = agree_with_cpu(&gls, 0, |rt| {
        let program = rt.compile(src, "step.br").unwrap();
        let data = stream(rt, 2, &[2, 3], &init);
        let idx = stream(rt, 2, &[6], &index);
        let dst = stream(rt, 2, &[6], &[0.0; 12]);
        let op = GatherOp::WithFetched(ScatterOp::Reduce(&program, "step"));
        rt.gather_op(&dst, &idx, &data, op).unwrap();
        vec![dst.to_vec().unwrap(), data.to_vec().unwrap()]
    });
    let step = |[x, y]: [f32; 2]| [x * y + 1.0, y - x];
    let mut state: Vec<[f32; 2]> = init.chunks(2).map(|c| [c[0], c[1]]).collect();
    let mut fetched = vec![];
    for p in index.chunks(2) {
        let (col, row) = ((p[0] as usize).min(2), (p[1].max(0.0) as usize).min(1));
        let t = row * 3 + col;
        fetched.extend(state[t]);
        state[t] = step(state[t]);
    }
    assert_eq!(got[0], fetched);
    assert_eq!(got[1], state.iter().flatten().copied().collect::<Vec<_>>());
    // Element (0, 0) of data was fetched three times: (0, 0.5), then (1, 0.5), then (1.5, -0.5).
    assert_eq!(got[0][0..2], [0.0, 0.5]);
    assert_eq!(got[0][4..6], [1.0, 0.5]);
    assert_eq!(got[0][10..12], [1.5, -0.5]);
}

#[test]
fn a_2d_data_stream_under_translation_and_a_plain_fetch() {
    let mut gls = gl_profiles(Some(8), None);
    gls.extend(gl_profiles(None, None));
    // <3, 10> wraps in textures 8 wide; index vectors are (column, row), some clamp.
    let index = [9.0, 2.0, 0.0, 0.0, 12.0, -1.0, 9.0, 2.0, 4.0, 1.0];
    let init: Vec<f32> = (0..30).map(|i| i as f32).collect();
    for op in ["fetch", "max"] {
        let got = agree_with_cpu(&gls, 0, |rt| {
            let data = stream(rt, 1, &[3, 10], &init);
            let idx = stream(rt, 2, &[5], &index);
            let dst = stream(rt, 1, &[5], &[0.0; 5]);
            let op = match op {
                "fetch" => GatherOp::Fetch,
                _ => GatherOp::With(ScatterOp::Max, &[25.0]),
            };
            rt.gather_op(&dst, &idx, &data, op).unwrap();
            vec![dst.to_vec().unwrap(), data.to_vec().unwrap()]
        });
        if op == "fetch" {
            assert_eq!(got[0], [29.0, 0.0, 9.0, 29.0, 14.0]);
            assert_eq!(got[1], init);
        } else {
            // The second hit on element 29 sees it unchanged (max(25, 29)); 0, 9, 14 became 25.
            assert_eq!(got[0], [29.0, 0.0, 9.0, 29.0, 14.0]);
            let mut expected = init.clone();
            for t in [0, 9, 14] {
                expected[t] = 25.0;
            }
            assert_eq!(got[1], expected);
        }
    }
}

#[test]
fn mismatched_streams_and_operands_are_clear_errors() {
    for rt in [Runtime::cpu(), support::gl_with(None, None)] {
        let data = stream(&rt, 1, &[2, 2], &[0.0; 4]);
        let idx = stream(&rt, 1, &[2], &[0.0, 1.0]);
        let dst = stream(&rt, 1, &[2], &[0.0; 2]);
        let err = rt
            .gather_op(&dst, &idx, &data, GatherOp::Increment)
            .unwrap_err();
        assert!(err.to_string().contains("one float per dimension"), "{err}");
        let data = stream(&rt, 1, &[3], &[0.0; 3]);
        let err = rt
            .gather_op(&data, &idx, &data, GatherOp::Increment)
            .unwrap_err();
        assert!(err.to_string().contains("three different"), "{err}");
        let err = rt
            .gather_op(
                &dst,
                &idx,
                &data,
                GatherOp::With(ScatterOp::Add, &[1.0, 2.0]),
            )
            .unwrap_err();
        assert!(err.to_string().contains("operand has 2 floats"), "{err}");
        let wide = stream(&rt, 2, &[2], &[0.0; 4]);
        let err = rt
            .gather_op(&wide, &idx, &data, GatherOp::Fetch)
            .unwrap_err();
        assert!(err.to_string().contains("same member widths"), "{err}");
    }
}
