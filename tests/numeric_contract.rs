//! The numeric contract of Brook's built-ins (`brook::ir::accuracy`, printed in
//! docs/limits.md), measured on GL (both profiles), wgpu and the CPU backend: an ulp
//! table per function against an f64 reference, the same bits on every backend for the exact and
//! formula built-ins, C's special values, division by a literal zero, denormals. GL and wgpu
//! compute the transcendentals with the same math library (`glsl-backend/src/math/*.glsl`;
//! wgpu parses it into naga), not the driver's functions, which miss the contract; opt-in
//! fast math uses those, within the bounds docs/limits.md's fast-math table states.

mod support;

use brook::ir::accuracy::{accuracy, Accuracy};
use brook::ir::Builtin;
use brook::{args, Runtime};
use support::{gl_profiles, Samples};

/// Every runtime the contract covers: GL 3.3 core, GL ES 3.0, wgpu and the CPU (last, as
/// [`differences`] takes it).
fn runtimes() -> Vec<Runtime> {
    let mut all = gl_profiles(None, None);
    all.push(support::wgpu());
    all.push(Runtime::cpu());
    all
}

/// `r = EXPR` over the elements of `x` and `y`, on `rt`.
fn map(rt: &Runtime, expr: &str, x: &[f32], y: &[f32]) -> Vec<f32> {
    let src = format!(
        "kernel void f(float x<>, float y<>, out float r<>) {{ float e = 0.0; r = {expr}; }}"
    );
    let p = rt.compile(&src, "f.br").unwrap_or_else(|e| panic!("{e}"));
    let xs = rt.stream_of(1, &[x.len()]).unwrap();
    xs.read(x).unwrap();
    let ys = rt.stream_of(1, &[x.len()]).unwrap();
    ys.read(y).unwrap();
    let r = rt.stream_of(1, &[x.len()]).unwrap();
    rt.run(&p, "f", args![&xs, &ys, &r]).unwrap();
    r.to_vec().unwrap()
}

/// The distance in ulps of `got` from the true value `exact`, by the contract's rules: an
/// overflowing true value must give the infinity of its sign, and a true value below the
/// normal range may give a zero of its sign (denormals may be flushed).
fn ulps(got: f32, exact: f64) -> f64 {
    let rounded = exact as f32;
    if exact.is_nan() || rounded.is_infinite() {
        return if got.to_bits() == rounded.to_bits() || (got.is_nan() && exact.is_nan()) {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if exact.abs() < f32::MIN_POSITIVE as f64 {
        let flushed = got == 0.0 && got.is_sign_negative() == exact.is_sign_negative();
        let denormal_error = (got as f64 - exact).abs() / f64::from(f32::from_bits(1));
        return if flushed { 0.0 } else { denormal_error };
    }
    if !got.is_finite() {
        return f64::INFINITY;
    }
    let ulp = f32::from_bits(rounded.abs().to_bits() + 1) - rounded.abs();
    (got as f64 - exact).abs() / ulp as f64
}

/// One function of the ulp table: its Brook call, where its arguments are drawn from, and the
/// true value.
struct Measured {
    builtin: Builtin,
    expr: &'static str,
    x: (f64, f64),
    y: (f64, f64),
    exact: fn(f64, f64) -> f64,
    /// Arguments worth checking beyond the random ones.
    extra: Vec<(f32, f32)>,
}

fn unary(builtin: Builtin, expr: &'static str, x: (f64, f64)) -> Measured {
    Measured {
        builtin,
        expr,
        x,
        y: (0.0, 0.0),
        exact: reference(builtin),
        extra: Vec::new(),
    }
}

/// The f64 reference of each measured built-in.
fn reference(b: Builtin) -> fn(f64, f64) -> f64 {
    use Builtin::*;
    match b {
        Exp => |x, _| x.exp(),
        Exp2 => |x, _| x.exp2(),
        Log => |x, _| x.ln(),
        Log2 => |x, _| x.log2(),
        Log10 => |x, _| x.log10(),
        Sin => |x, _| x.sin(),
        Cos => |x, _| x.cos(),
        Tan => |x, _| x.tan(),
        Asin => |x, _| x.asin(),
        Acos => |x, _| x.acos(),
        Atan => |x, _| x.atan(),
        // `atan2(x, y)` in the kernel: the first argument is the ordinate, as in C.
        Atan2 => |a, b| a.atan2(b),
        Sinh => |x, _| x.sinh(),
        Cosh => |x, _| x.cosh(),
        Tanh => |x, _| x.tanh(),
        Sqrt => |x, _| x.sqrt(),
        Pow => |x, y| x.powf(y),
        other => panic!("no reference for {other:?}"),
    }
}

/// Floats nearest to multiples of pi/2 and their neighbours: where sin, cos and tan lose
/// everything unless the reduction keeps enough bits of pi.
fn near_quadrants(limit: f64) -> Vec<(f32, f32)> {
    let mut v = Vec::new();
    let mut k = 1.0;
    while k * std::f64::consts::FRAC_PI_2 < limit {
        let f = (k * std::f64::consts::FRAC_PI_2) as f32;
        for d in [-1i32, 0, 1] {
            v.push((f32::from_bits((f.to_bits() as i32 + d) as u32), 0.0));
        }
        k = (k * 1.37).ceil();
    }
    v
}

fn table() -> Vec<Measured> {
    use Builtin::*;
    let all = (-f32::MAX as f64, f32::MAX as f64);
    let positive = (f32::MIN_POSITIVE as f64, f32::MAX as f64);
    let mut rows = vec![
        unary(Exp, "exp(x)", (-103.9, 88.72)),
        unary(Exp2, "exp2(x)", (-149.9, 127.99)),
        unary(Log, "log(x)", positive),
        unary(Log, "log(x)", (0.5, 2.0)),
        unary(Log2, "log2(x)", positive),
        unary(Log2, "log2(x)", (0.5, 2.0)),
        unary(Log10, "log10(x)", positive),
        unary(Sin, "sin(x)", (-10.0, 10.0)),
        unary(Sin, "sin(x)", all),
        unary(Cos, "cos(x)", (-10.0, 10.0)),
        unary(Cos, "cos(x)", all),
        unary(Tan, "tan(x)", (-10.0, 10.0)),
        unary(Tan, "tan(x)", all),
        unary(Asin, "asin(x)", (-1.0, 1.0)),
        unary(Acos, "acos(x)", (-1.0, 1.0)),
        unary(Atan, "atan(x)", all),
        unary(Sinh, "sinh(x)", (-89.4, 89.4)),
        unary(Cosh, "cosh(x)", (-89.4, 89.4)),
        unary(Tanh, "tanh(x)", (-12.0, 12.0)),
        unary(Sqrt, "sqrt(x)", positive),
    ];
    for row in rows.iter_mut() {
        if matches!(row.builtin, Sin | Cos | Tan) && row.x.1 > 100.0 {
            row.extra = near_quadrants(f32::MAX as f64);
        }
        if matches!(row.builtin, Asin | Acos) {
            row.extra = [1.0f32, 0.99999994, 0.5, 0.50000006, 0.49999997]
                .iter()
                .flat_map(|v| [(*v, 0.0), (-v, 0.0)])
                .collect();
        }
    }
    rows.push(Measured {
        builtin: Atan2,
        expr: "atan2(x, y)",
        x: (-1e6, 1e6),
        y: (-1e6, 1e6),
        exact: reference(Atan2),
        extra: Vec::new(),
    });
    for (x, y) in [
        ((0.0, 1e6), (-300.0, 300.0)),
        ((0.5, 2.0), (-2000.0, 2000.0)),
    ] {
        rows.push(Measured {
            builtin: Pow,
            expr: "pow(x, y)",
            x,
            y,
            exact: reference(Pow),
            extra: Vec::new(),
        });
    }
    // Negative bases with integral exponents (C's pow; Cg's reference gives NaN).
    rows.push(Measured {
        builtin: Pow,
        expr: "pow(-x, floor(y))",
        x: (0.0, 100.0),
        y: (-20.0, 20.0),
        exact: |x, y| (-x).powf(y.floor()),
        extra: vec![(2.0, 3.0), (2.0, -3.0), (1.5, 2.0), (0.0, 3.0)],
    });
    rows
}

/// The bound `accuracy` states for `b` at these arguments, in ulps.
fn bound(b: Builtin, x: f32, y: f32) -> f64 {
    match accuracy(b) {
        Accuracy::Ulps(u) => u as f64,
        Accuracy::PowUlps { base, per_unit } => {
            let t = (y as f64 * (x as f64).abs().log2()).abs();
            base as f64 + t / per_unit as f64
        }
        other => panic!("{b:?} is not measured in ulps: {other:?}"),
    }
}

#[test]
fn every_function_meets_its_ulp_bound_on_every_backend() {
    let rts = runtimes();
    let mut failures = Vec::new();
    println!(
        "{:<22} {:>22}  {}",
        "function",
        "arguments",
        rts.iter()
            .map(|r| format!("{:>12}", short(r)))
            .collect::<String>()
    );
    for (n, row) in table().iter().enumerate() {
        let mut rng = Samples(n as u64 + 1);
        let mut args: Vec<(f32, f32)> = (0..16384)
            .map(|_| {
                (
                    rng.in_range(row.x.0, row.x.1),
                    rng.in_range(row.y.0, row.y.1),
                )
            })
            .collect();
        args.extend(&row.extra);
        let (x, y): (Vec<f32>, Vec<f32>) = args.iter().copied().unzip();
        let mut line = format!(
            "{:<22} {:>22}",
            row.expr,
            format!("[{:.3e}, {:.3e}]", row.x.0, row.x.1)
        );
        for rt in &rts {
            let got = map(rt, row.expr, &x, &y);
            let mut worst = (0.0f64, 0.0f32, 0.0f32);
            for (i, g) in got.iter().enumerate() {
                let (xa, ya) = (x[i] as f64, y[i] as f64);
                let e = ulps(*g, (row.exact)(xa, ya));
                let over = e / bound(row.builtin, x[i], y[i]);
                if over > worst.0 / bound(row.builtin, worst.1, worst.2).max(f64::MIN_POSITIVE)
                    || worst.0 == 0.0 && e > 0.0
                {
                    worst = (e, x[i], y[i]);
                }
                if e > bound(row.builtin, x[i], y[i]) && failures.len() < 40 {
                    failures.push(format!(
                        "{}: {} at ({}, {}) = {g}, true {} ({e:.2} ulp > {:.2})",
                        short(rt),
                        row.expr,
                        x[i],
                        y[i],
                        (row.exact)(xa, ya),
                        bound(row.builtin, x[i], y[i])
                    ));
                }
            }
            line.push_str(&format!("{:>12.2}", worst.0));
        }
        println!("{line}");
    }
    assert!(
        failures.is_empty(),
        "arguments beyond the contract (the first 40):\n{}",
        failures.join("\n")
    );
}

fn short(rt: &Runtime) -> String {
    let d = rt.describe();
    if rt.backend_name() == "cpu" {
        "CPU".into()
    } else if rt.backend_name() == "wgpu" {
        "wgpu".into()
    } else if d.contains("ES") {
        "GL ES".into()
    } else {
        "GL".into()
    }
}

#[test]
fn round_takes_halves_away_from_zero_exactly_and_keeps_the_sign_of_zero() {
    let cases: [(f32, f32); 16] = [
        (0.49999997, 0.0),
        (-0.49999997, -0.0),
        (0.5, 1.0),
        (-0.5, -1.0),
        (1.5, 2.0),
        (2.5, 3.0),
        (-2.5, -3.0),
        (8388609.0, 8388609.0),
        (-8388609.0, -8388609.0),
        (16777215.0, 16777215.0),
        (-0.0, -0.0),
        (-0.3, -0.0),
        (0.3, 0.0),
        (f32::INFINITY, f32::INFINITY),
        (f32::NEG_INFINITY, f32::NEG_INFINITY),
        (1e30, 1e30),
    ];
    let (x, want): (Vec<f32>, Vec<f32>) = cases.iter().copied().unzip();
    for rt in &runtimes() {
        for expr in [
            "round(x)",
            "round(float2(x, -x)).x",
            "round(float4(x, x, x, x)).w",
        ] {
            let got = map(rt, expr, &x, &x);
            for ((g, w), x) in got.iter().zip(&want).zip(&x) {
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "{}: {expr} at x = {x}: got {g}, want {w}",
                    rt.describe()
                );
            }
        }
        assert!(map(rt, "round(x)", &[f32::NAN], &[0.0])[0].is_nan());
    }
}

/// Values every function should be tried on: zeros, infinities, NaN, the ends of the float
/// range, halves (for rounding), and ordinary numbers of both signs.
const SPECIAL: [f32; 22] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.5,
    -2.5,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-20,
    -3e-7,
    0.75,
    -1.25,
    3.0,
    100.5,
    -1e30,
];

/// Every pair of special values, then random pairs in `[-1e4, 1e4]` (half of them integral).
fn arguments() -> (Vec<f32>, Vec<f32>) {
    let mut pairs = Vec::new();
    for a in SPECIAL {
        for b in SPECIAL {
            pairs.push((a, b));
        }
    }
    let mut rng = Samples(7);
    for i in 0..4096 {
        let (a, b) = (rng.in_range(-1e4, 1e4), rng.in_range(-1e4, 1e4));
        pairs.push(if i % 2 == 0 {
            (a, b)
        } else {
            (a.round(), b.round())
        });
    }
    pairs.into_iter().unzip()
}

/// The Brook call of each exact or formula built-in, on `x`, `y` (and `x * y + 0.5` as a third
/// argument where there is one).
fn call_of(b: Builtin) -> Option<&'static str> {
    use Builtin::*;
    Some(match b {
        Abs => "abs(x)",
        Ceil => "ceil(x)",
        Floor => "floor(x)",
        Round => "round(x)",
        Sign => "sign(x)",
        Min => "min(x, y)",
        Max => "max(x, y)",
        Clamp => "clamp(x, y, y + 10.0)",
        Saturate => "saturate(x)",
        Step => "step(x, y)",
        Ldexp => "ldexp(x, floor(y / 10.0))",
        Modf => "modf(x, e) + 2.0 * e",
        Frexp => "frexp(x, e) + e",
        Frac => "frac(x)",
        Fmod => "fmod(x, y)",
        Lerp => "lerp(x, y, 0.375)",
        Smoothstep => "smoothstep(x, y, 0.5 * (x + y) + 1.0)",
        Degrees => "degrees(x)",
        Radians => "radians(x)",
        Rsqrt => "rsqrt(x)",
        Dot => "dot(float2(x, 1.5), float2(y, 2.0))",
        Length => "length(float2(x, y))",
        Distance => "distance(float2(x, y), float2(y, 1.0))",
        Normalize => "normalize(float2(x, y)).y",
        Cross => "cross(float3(x, y, 1.0), float3(y, 2.0, x)).z",
        _ => return None,
    })
}

#[test]
fn exact_and_formula_built_ins_give_the_same_bits_on_every_backend() {
    use Builtin::*;
    // Normal numbers only: a denormal argument or intermediate may be flushed (the denormal
    // test covers that).
    let (x, y) = arguments();
    let normal = |v: &f32| v.abs() >= 1e-18 || *v == 0.0 || !v.is_finite();
    let (x, y): (Vec<f32>, Vec<f32>) = x
        .into_iter()
        .zip(y)
        .filter(|(a, b)| normal(a) && normal(b))
        .unzip();
    let rts = runtimes();
    let mut mismatches = Vec::new();
    for (b, _) in Builtin::ALL {
        if !matches!(accuracy(*b), Accuracy::Exact | Accuracy::Formula(_)) {
            continue;
        }
        let expr = call_of(*b).unwrap_or_else(|| panic!("no test call for {b:?}"));
        // min and max may give either zero for -0 and +0 (IEEE's minNum and maxNum do).
        let zero_sign_free = matches!(b, Min | Max | Clamp | Saturate | Smoothstep);
        // A denormal result may be flushed to a zero of its sign.
        let flushed = |g: f32, w: f32| {
            g == 0.0 && w.abs() < f32::MIN_POSITIVE && g.is_sign_negative() == w.is_sign_negative()
        };
        let same = |g: f32, w: f32| {
            g.to_bits() == w.to_bits()
                || g.is_nan() && w.is_nan()
                || zero_sign_free && g == w
                || flushed(g, w)
        };
        mismatches.extend(
            differences(&rts, expr, &x, &y, |_, g, w| same(g, w))
                .into_iter()
                .map(|(_, m)| m),
        );
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Runs `expr` on every runtime of `rts` (the CPU last) and lists, per other runtime, the first
/// arguments where its result and the CPU's are not `alike(i, got, cpu)`.
fn differences<'a>(
    rts: &'a [Runtime],
    expr: &str,
    x: &[f32],
    y: &[f32],
    alike: impl Fn(usize, f32, f32) -> bool,
) -> Vec<(&'a Runtime, String)> {
    let (cpu, others) = rts.split_last().expect("the CPU runtime");
    let want = map(cpu, expr, x, y);
    let mut found = Vec::new();
    for rt in others {
        let got = map(rt, expr, x, y);
        let wrong: Vec<String> = (0..x.len())
            .filter(|&i| !alike(i, got[i], want[i]))
            .take(6)
            .map(|i| format!("({}, {}): {} vs CPU {}", x[i], y[i], got[i], want[i]))
            .collect();
        if !wrong.is_empty() {
            found.push((rt, format!("{}: {expr} {}", short(rt), wrong.join("; "))));
        }
    }
    found
}

#[test]
fn measured_built_ins_give_c_special_values_on_every_backend() {
    let (x, y) = arguments();
    let specials = SPECIAL.len() * SPECIAL.len();
    let (x, y) = (&x[..specials], &y[..specials]);
    let rts = runtimes();
    let mut mismatches = Vec::new();
    for expr in [
        "exp(x)",
        "exp2(x)",
        "log(x)",
        "log2(x)",
        "log10(x)",
        "sin(x)",
        "cos(x)",
        "tan(x)",
        "asin(x)",
        "acos(x)",
        "atan(x)",
        "sinh(x)",
        "cosh(x)",
        "tanh(x)",
        "sqrt(x)",
        "atan2(x, y)",
        "pow(x, y)",
    ] {
        // Where the true value is not special the ulp table speaks; here the results must
        // match exactly where the CPU gives a zero, an infinity or NaN.
        let binary = expr.contains('y');
        for (_, m) in differences(&rts, expr, x, y, |i, g, w| {
            let special =
                w == 0.0 || !w.is_finite() || !x[i].is_finite() || binary && !y[i].is_finite();
            !special || g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan()
        }) {
            mismatches.push(m);
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn division_by_a_literal_zero_is_ieee_on_every_backend() {
    let x = [3.0, -7.5, 0.0, -0.0, f32::INFINITY, f32::NAN, 1e-30, -1e30];
    for rt in &runtimes() {
        for (expr, want) in [
            ("x / 0.0", x.map(|v| v / 0.0)),
            ("x / -0.0", x.map(|v| v / -0.0)),
            ("(float2(x, 1.0) / 0.0).x", x.map(|v| v / 0.0)),
        ] {
            let got = map(rt, expr, &x, &x);
            for ((g, w), v) in got.iter().zip(&want).zip(&x) {
                assert!(
                    g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                    "{}: {expr} at x = {v}: got {g}, want {w}",
                    short(rt)
                );
            }
        }
    }
}

#[test]
fn integer_division_by_zero_gives_zero_on_every_backend() {
    // C's truncating division for negative operands too, and INT_MIN / -1 wraps.
    let x = [7.0, -7.0, 0.0, 5.0, 7.0, -7.0, -7.0, -2147483648.0];
    let y = [0.0, 0.0, 0.0, 2.0, -2.0, 2.0, -2.0, -1.0];
    let quotient = [0.0, 0.0, 0.0, 2.0, -3.0, -3.0, 3.0, -2147483648.0];
    let remainder = [0.0, 0.0, 0.0, 1.0, 1.0, -1.0, -1.0, 0.0];
    for rt in &runtimes() {
        assert_eq!(
            map(rt, "float(int(x) / int(y))", &x, &y),
            quotient,
            "{}",
            short(rt)
        );
        assert_eq!(
            map(rt, "float(int(x) % int(y))", &x, &y),
            remainder,
            "{}",
            short(rt)
        );
        let v = map(rt, "float((int2(int(x), 1) / int2(int(y), 0)).x)", &x, &y);
        assert_eq!(v, quotient, "{}: int2", short(rt));
    }
}

#[test]
fn denormals_are_kept_on_the_cpu_and_flushed_to_signed_zero_on_gl() {
    let x = [1e-39f32, -1e-39, 3e-45, 1e-38];
    for rt in &runtimes() {
        // A denormal argument passed through, and a denormal result of a product. (Not
        // `+ 0.0`: a flushed −0 plus 0 is +0, as IEEE says, and GL no longer folds it away.)
        let passed = map(rt, "x * 1.0 - 0.0", &x, &x);
        let made = map(rt, "x * 0.5", &[2e-38, -2e-38, 1e-44, 4e-38], &x);
        for (got, want) in [
            (passed, x.map(|v| v * 1.0 - 0.0)),
            (made, [1e-38f32, -1e-38, 5e-45, 2e-38]),
        ] {
            for (g, w) in got.iter().zip(&want) {
                let flushed = *g == 0.0
                    && g.is_sign_negative() == w.is_sign_negative()
                    && w.abs() < f32::MIN_POSITIVE;
                let kept = g.to_bits() == w.to_bits();
                if rt.backend_name() == "cpu" {
                    assert!(kept, "CPU: {g} for {w}");
                } else {
                    assert!(kept || flushed, "{}: {g} for {w}", short(rt));
                }
            }
        }
    }
}

#[test]
fn the_limits_doc_states_the_contract_as_the_code_does() {
    let readme = include_str!("../docs/limits.md");
    let table = readme
        .split("| built-in | bound |")
        .nth(1)
        .expect("docs/limits.md's contract table")
        .split("\n\n")
        .next()
        .unwrap_or("");
    let mut listed = Vec::new();
    for row in table.lines().skip(2) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let (names, bound) = (cells[0], cells[cells.len() - 1]);
        for name in names.split('`').skip(1).step_by(2) {
            let name = name.split('(').next().unwrap_or(name);
            let (b, _) = Builtin::ALL
                .iter()
                .find(|(_, n)| *n == name)
                .unwrap_or_else(|| panic!("`{name}` in docs/limits.md is no built-in"));
            let stated = match accuracy(*b) {
                Accuracy::Exact => bound.starts_with("exact"),
                Accuracy::Ulps(u) => bound.starts_with(&format!("{u} ulp")),
                Accuracy::PowUlps { base, per_unit } => {
                    bound.starts_with(&format!("{base} + "))
                        && bound.contains(&format!("/ {per_unit} ulp"))
                }
                Accuracy::Formula(_) => bound.starts_with("Cg's formula"),
                Accuracy::NotNumeric => false,
            };
            assert!(
                stated,
                "docs/limits.md: `{name}` is listed as `{bound}`, the code says {:?}",
                accuracy(*b)
            );
            listed.push(*b);
        }
    }
    for (b, name) in Builtin::ALL {
        if accuracy(*b) != Accuracy::NotNumeric {
            assert_eq!(
                listed.iter().filter(|l| *l == b).count(),
                1,
                "`{name}` must be in docs/limits.md's table once"
            );
        }
    }
}

/// `saturate` and a clamp to `[0, 1]` keep their meaning inside `max` and `min`, NaN included,
/// checked against values worked by hand on every backend. GL emits `saturate` as a select
/// (`Helper::Saturate`) because Mesa 22.3 folded `max(saturate(x), max(v, c))` with `v` 1.75
/// to 1 in a larger kernel; these short forms did not trigger that fold, so the fuzzer's case
/// itself is the regression test (`tests/fuzz.rs`, `FINDINGS`).
#[test]
fn saturate_and_unit_clamps_inside_max_keep_a_larger_constant() {
    let x = [-3.0, 0.0, 0.25, 0.5, 1.0, 7.5, f32::NAN, f32::INFINITY];
    let y = [0.0; 8];
    let sat = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    type Case = (&'static str, fn(f32) -> f32);
    let cases: [Case; 7] = [
        ("max(saturate(x), 1.75)", |_| 1.75),
        ("max(saturate(x), max(e + 1.75, 0.25))", |_| 1.75),
        ("max(clamp(x, 0.0, 1.0), 1.75)", |_| 1.75),
        ("min(saturate(x), -0.5)", |_| -0.5),
        (
            "(max(saturate(float3(x)), max(float3(e + 1.75), float3(0.25)))).y",
            |_| 1.75,
        ),
        (
            "(float3(2.0) * max(saturate(float3(x, y, x)), max(float3(1.75), float3(0.25)))).z",
            |_| 3.5,
        ),
        ("saturate(x)", |_| f32::NAN),
    ];
    for rt in runtimes() {
        for (expr, expected) in cases {
            let got = map(&rt, expr, &x, &y);
            for (i, (&g, &xi)) in got.iter().zip(&x).enumerate() {
                let want = match expected(xi) {
                    w if w.is_nan() => sat(xi),
                    w => w,
                };
                assert_eq!(
                    g.to_bits(),
                    want.to_bits(),
                    "{}: {expr} at x = {xi} (element {i}) gave {g}, not {want}",
                    short(&rt)
                );
            }
        }
    }
}

/// The worst error in ulps of each row of [`table`] on `rt`, over the same arguments as
/// [`every_function_meets_its_ulp_bound_on_every_backend`] draws.
fn worst_ulps(rt: &Runtime) -> Vec<f64> {
    table()
        .iter()
        .enumerate()
        .map(|(n, row)| {
            let mut rng = Samples(n as u64 + 1);
            let mut args: Vec<(f32, f32)> = (0..16384)
                .map(|_| {
                    (
                        rng.in_range(row.x.0, row.x.1),
                        rng.in_range(row.y.0, row.y.1),
                    )
                })
                .collect();
            args.extend(&row.extra);
            let (x, y): (Vec<f32>, Vec<f32>) = args.iter().copied().unzip();
            let got = map(rt, row.expr, &x, &y);
            got.iter()
                .enumerate()
                .map(|(i, g)| ulps(*g, (row.exact)(x[i] as f64, y[i] as f64)))
                .fold(0.0, f64::max)
        })
        .collect()
}

/// A row of the fast-math table: its call, and per column its bound in ulps (`None`: any).
type FastMathRow = (String, Vec<Option<f64>>);

/// The fast-math table of docs/limits.md: per row of [`table`], its call, and per backend
/// column (`gl`, `gles`, `wgpu`, `cpu`) the worst error stated, in ulps (`any`: unbounded).
fn fast_math_doc() -> (Vec<String>, Vec<FastMathRow>) {
    let (header, rows) = support::doc_table(include_str!("../docs/limits.md"), "fast-math");
    let rows = (rows.into_iter())
        .map(|c| {
            let bounds = c[2..]
                .iter()
                .map(|b| {
                    (b != "any").then(|| {
                        b.parse::<f64>()
                            .unwrap_or_else(|_| panic!("`{b}`: ulps or `any`"))
                    })
                })
                .collect();
            (c[0].clone(), bounds)
        })
        .collect();
    (header[2..].to_vec(), rows)
}

/// Opt-in fast math, per built-in and backend: the worst error over the contract's
/// arguments against the f64 reference, within the bound docs/limits.md states (measured on
/// llvmpipe, lavapipe and the CPU, and asserted there; elsewhere printed). The CPU computes
/// as in the accurate mode but for its shorter `exp` (`brook_cpu::exec::builtin::exp_fast`),
/// so its column is the contract's but there.
#[test]
fn fast_math_meets_the_bounds_the_limits_doc_states() {
    let (columns, rows) = fast_math_doc();
    let exprs: Vec<&str> = table().iter().map(|r| r.expr).collect();
    let documented: Vec<&str> = rows.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        documented, exprs,
        "the fast-math table's rows are the contract's rows"
    );
    let mut failures = Vec::new();
    let mut report = String::new();
    for rt in runtimes() {
        rt.set_fast_math(true).unwrap();
        let column = match (rt.backend_name(), short(&rt).as_str()) {
            ("cpu", _) => "cpu",
            ("wgpu", _) => "wgpu",
            (_, s) if s.contains("ES") || s.contains("es") => "gles",
            _ => "gl",
        };
        let c = columns
            .iter()
            .position(|n| n == column)
            .unwrap_or_else(|| panic!("no `{column}` column"));
        let measured = {
            let d = rt.describe().to_lowercase();
            d.contains("llvmpipe") || d.contains("cpu")
        };
        report.push_str(&format!("\n{column}: {}\n", rt.describe()));
        for ((expr, bounds), worst) in rows.iter().zip(worst_ulps(&rt)) {
            report.push_str(&format!("  {expr:<20} {worst:>14.2}\n"));
            if let Some(bound) = bounds[c] {
                if worst > bound && measured {
                    failures.push(format!(
                        "{column}: {expr} is {worst:.2} ulp off, the table says {bound}"
                    ));
                }
            }
        }
    }
    println!("worst ulps in fast math{report}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Switching modes never reuses the other mode's code: `exp` near its overflow, where
/// llvmpipe's own `exp` is tens of ulps off, gives the accurate bits, then the driver's (on
/// the CPU its own shorter formula's), then the accurate bits again, on one program.
#[test]
fn switching_math_modes_switches_the_compiled_code() {
    let x: Vec<f32> = (0..256).map(|i| 80.0 + i as f32 * (8.7 / 256.0)).collect();
    for rt in runtimes() {
        let run = |fast: bool| {
            rt.set_fast_math(fast).unwrap();
            map(&rt, "exp(x)", &x, &x)
        };
        let (accurate, fast, again) = (run(false), run(true), run(false));
        assert_eq!(
            accurate.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            again.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{}: the accurate mode after fast math",
            rt.describe()
        );
        let differs = accurate.iter().zip(&fast).any(|(a, f)| a != f);
        if rt.backend_name() == "cpu" || rt.describe().contains("llvmpipe") {
            assert!(differs, "{}: fast math ran the accurate exp", rt.describe());
        }
    }
}
