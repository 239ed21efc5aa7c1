//! The language items of issue 20 on native code: each program runs on both engines through
//! `support::run_kernel`, which fails if the JIT does not take a kernel or if any output bit
//! differs from the interpreter's. Values include zeros of both signs, NaN and infinities,
//! so selects and comparisons meet their edge cases.

mod support;
use support::*;

const SRC: &str = r#"
// `?:` with a bool-vector condition (per component), with vector and scalar arms;
// `&&`, `||`, `!` on bool vectors of every width.
kernel void bools(float4 a<>, float4 b<>, out float4 pick<>, out float4 logic<>, out float3 narrow<>) {
    bool4 p = a < b;
    bool4 q = a >= 0.5;
    pick = (p && !q) ? a : b;
    pick.xy = (a.zw == b.zw) ? -1.0 : pick.yx;
    logic = (p || q) + (!p && q) * 2 + !(p || !q) * 4;
    bool2 r = a.xy != a.xy;
    bool3 s = !(a.xyz > b.zyx) || q.xyz;
    narrow = s ? a.wzy : float3(r, r.x && s.z);
}

// Kernels calling value-returning kernels: a vector result, a loop with an early return
// reading a gather, and a call in a condition.
kernel float2 swap_scaled(float2 v<>, float k) {
    return v.yx * k;
}
kernel float first_at_least(float table[], float v) {
    for (int i = 0; i < 5; i++) {
        if (table[i] >= v)
            return i;
    }
    return -1.0;
}
kernel void calls(float4 a<>, float table[], out float4 r<>) {
    float2 s = swap_scaled(a.xy, a.z);
    float at = first_at_least(table, a.w);
    if (first_at_least(table, a.x) > at)
        s += 1.0;
    r = float4(s, at, swap_scaled(float2(at, a.y), 2.0).x);
}

// Non-square matrix constants: a float3x2 argument, a float2x4 built from literals.
kernel void constants(float3x2 m, float4 a<>, out float4 r<>, out float3 c<>) {
    float2x4 k = float2x4(1.0, -0.0, 0.5, 2.0, -3.0, 0.25, 1e30, -1.0);
    float2 kv = mul(k, a);
    c = mul(m, a.zw);
    r = float4(kv, mul(a.xy, k).wy);
}

// Matrix place paths: a row component, an element by dynamic indices, Cg element names,
// compound assignment to a row, a row's write mask.
kernel void places(float4 a<>, float4 b<>, out float4 r0<>, out float4 r1<>, out float4 r2<>) {
    float3x4 m = float3x4(a, b, a * b);
    m[1].y = a.x;
    int i = (int)(abs(b.w)) % 3;
    int j = (int)(abs(a.w)) % 4;
    m[i][j] = b.z;
    m._m01 = -a.y;
    m._m20_m23 = b.xw;
    m[2] *= 2.0;
    m[0].zx += b.yy;
    r0 = m[0];
    r1 = m[1];
    r2 = m[2];
}
"#;

/// Float4 elements cycling through ordinary and special values.
fn values(n: usize, seed: usize) -> CpuStream {
    const V: [f32; 13] = [
        0.0,
        -0.0,
        1.0,
        0.5,
        -2.0,
        3.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.25,
        -1.0,
        2.0,
        7.5,
    ];
    let data: Vec<f32> = (0..n * 4)
        .map(|i| V[(i * (seed + 3) + i / 4 + seed) % V.len()])
        .collect();
    CpuStream::from_data(&[4], &[n], &data).unwrap()
}

const N: usize = 97;

/// Runs kernel `name` of the program on both engines (see `support::run_kernel`).
fn run(name: &str, args: &mut [CpuArg]) {
    let m = brook_frontend::compile(SRC, "language.br").expect("compiles");
    let (id, _) = m.function(name).unwrap();
    run_kernel(&m, id, args).unwrap();
}

#[test]
fn bool_vectors_select_and_logic() {
    let (a, b) = (values(N, 0), values(N, 1));
    let (mut pick, mut logic, mut narrow) =
        (zeros(&[4], &[N]), zeros(&[4], &[N]), zeros(&[3], &[N]));
    run(
        "bools",
        &mut [
            CpuArg::Stream(&a),
            CpuArg::Stream(&b),
            CpuArg::Out(&mut pick),
            CpuArg::Out(&mut logic),
            CpuArg::Out(&mut narrow),
        ],
    );
    // Element 0 by the rule itself.
    let a0 = &a.data()[..4];
    let b0 = &b.data()[..4];
    let p: Vec<bool> = a0.iter().zip(b0).map(|(x, y)| x < y).collect();
    let q: Vec<bool> = a0.iter().map(|x| *x >= 0.5).collect();
    let expect: Vec<f32> = (0..4)
        .map(|c| {
            // Written as the Brook expressions under test are, De Morgan's form included.
            #[allow(clippy::nonminimal_bool)]
            let l = (p[c] || q[c]) as u8 + 2 * (!p[c] && q[c]) as u8 + 4 * !(p[c] || !q[c]) as u8;
            l as f32
        })
        .collect();
    assert_eq!(&logic.data()[..4], expect.as_slice());
}

#[test]
fn kernels_calling_value_returning_kernels() {
    let a = values(N, 2);
    let table = CpuStream::from_data(&[1], &[5], &[-1.0, 0.0, 0.5, 2.0, 7.0]).unwrap();
    let mut r = zeros(&[4], &[N]);
    run(
        "calls",
        &mut [
            CpuArg::Stream(&a),
            CpuArg::Gather(&table),
            CpuArg::Out(&mut r),
        ],
    );
    // `at` is the first table index whose entry is at least a.w.
    for e in 0..N {
        let w = a.data()[4 * e + 3];
        let at = [-1.0, 0.0, 0.5, 2.0, 7.0]
            .iter()
            .position(|&t| t >= w)
            .map_or(-1.0, |i| i as f32);
        assert_eq!(r.data()[4 * e + 2], at, "element {e}");
    }
}

#[test]
fn non_square_matrix_constants() {
    // Row by row.
    let k = vec![1.0, -2.0, 0.5, f32::NAN, -0.0, 3.0];
    let a = values(N, 3);
    let (mut r, mut c) = (zeros(&[4], &[N]), zeros(&[3], &[N]));
    run(
        "constants",
        &mut [
            CpuArg::Constant(k),
            CpuArg::Stream(&a),
            CpuArg::Out(&mut r),
            CpuArg::Out(&mut c),
        ],
    );
    // c = mul(m, a.zw): row 0 is 1*z - 2*w, summed from 0.
    for e in 0..N {
        let (z, w) = (a.data()[4 * e + 2], a.data()[4 * e + 3]);
        let want = 0.0 + 1.0 * z + -2.0 * w;
        let got = c.data()[3 * e];
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "element {e}: {got} vs {want}"
        );
    }
}

#[test]
fn matrix_place_paths() {
    let (a, b) = (values(N, 4), values(N, 5));
    let mut rows = [zeros(&[4], &[N]), zeros(&[4], &[N]), zeros(&[4], &[N])];
    let [r0, r1, r2] = &mut rows;
    run(
        "places",
        &mut [
            CpuArg::Stream(&a),
            CpuArg::Stream(&b),
            CpuArg::Out(r0),
            CpuArg::Out(r1),
            CpuArg::Out(r2),
        ],
    );
    // Row 1 is b with .y replaced by a.x, unless the dynamic element write hit it.
    for e in 0..N {
        let (ae, be) = (&a.data()[4 * e..4 * e + 4], &b.data()[4 * e..4 * e + 4]);
        let i = (be[3].abs() as i32) % 3;
        let j = (ae[3].abs() as i32) % 4;
        let got = &rows[1].data()[4 * e..4 * e + 4];
        if i != 1 || j != 1 {
            assert_eq!(got[1].to_bits(), ae[0].to_bits(), "element {e}");
        }
    }
}
