//! Random kernels over special values: inputs drawn from NaN, ±inf, ±0, denormals, the largest
//! finite floats and a few small exact ones, through expressions that nest the identities a
//! shader compiler may apply (`e * 0`, `e + 0`, `e - e`, `e / e`, `0 - (0 - e)`, `e * 1`, `e`
//! compared with itself) among exact arithmetic (sums, products, halving, negation, `abs`).
//! Every operation is IEEE single precision with one rounding, so each backend must give the
//! interpreter's bits (any NaN for a NaN; the sign of zero counts). One seed is one case.

use brook::{Arg, Runtime};

use super::Rng;

/// The values inputs are drawn from.
const PALETTE: [f32; 15] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    f32::MAX,
    f32::MIN,
    1.0,
    -1.0,
    2.0,
    0.5,
    3.0,
    -3.0,
    1.0e30,
    -7.0,
];

/// Values whose products reach denormals, added to the palette in every fourth case: GL may
/// flush a denormal to a zero of its sign (docs/limits.md), which changes
/// whatever follows, so those cases compare the CPU's native code with the interpreter only.
const TINY: [f32; 3] = [1.0e-40, -1.4e-45, f32::MIN_POSITIVE];

/// Literals the expressions use (each exact in any float format).
const LITERALS: [&str; 6] = ["0.0", "1.0", "2.0", "0.5", "(-0.0)", "3.0"];

/// Elements per input stream.
const ELEMENTS: usize = 48;

/// The kernel's outputs, in the order [`SpecialCase::run`] returns them.
const OUTPUTS: [&str; 3] = ["r", "s", "q"];

/// One generated case: a kernel `f(float x<>, float y<>, out float r<>, out float s<>, out
/// float q<>)` and its two inputs: `r` and `s` straight-line expressions, `q` computed under
/// control flow ([`control`]).
pub struct SpecialCase {
    pub seed: u64,
    pub source: String,
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    /// Whether the inputs include denormals ([`TINY`]).
    pub denormals: bool,
}

impl SpecialCase {
    pub fn generate(seed: u64) -> SpecialCase {
        let mut rng = Rng(seed ^ 0x5eed_5bec_1a15);
        let denormals = seed % 4 == 3;
        let palette: Vec<f32> = if denormals {
            PALETTE.iter().chain(&TINY).copied().collect()
        } else {
            PALETTE.to_vec()
        };
        let pick = |rng: &mut Rng| palette[rng.below(palette.len() as u64) as usize];
        let x = (0..ELEMENTS).map(|_| pick(&mut rng)).collect();
        let y = (0..ELEMENTS).map(|_| pick(&mut rng)).collect();
        let mut vars = vec!["x".to_string(), "y".to_string()];
        let mut body = String::new();
        for t in 0..rng.below(3) {
            let e = expr(&mut rng, &vars, 3);
            body.push_str(&format!("    float t{t} = {e};\n"));
            vars.push(format!("t{t}"));
        }
        for out in ["r", "s"] {
            let e = expr(&mut rng, &vars, 3);
            body.push_str(&format!("    {out} = {e};\n"));
        }
        // `q` from a generator of its own, so a seed's `r` and `s` stay what they were
        // before `q` was added (the findings' seeds keep their programs).
        body.push_str(&control(&mut Rng(seed ^ 0xc0de_f10e), &vars));
        let source = format!(
            "kernel void f(float x<>, float y<>, out float r<>, out float s<>, out float q<>) {{\n{body}}}\n"
        );
        SpecialCase {
            seed,
            source,
            x,
            y,
            denormals,
        }
    }

    /// Runs the kernel on `rt`: `r`, `s` then `q`.
    pub fn run(&self, rt: &Runtime) -> Result<Vec<f32>, String> {
        let e = |e: brook::BrookError| e.to_string();
        let p = rt.compile(&self.source, "special.br").map_err(e)?;
        let stream = |data: &[f32]| -> Result<brook::Stream, String> {
            let s = rt.stream_of(1, &[ELEMENTS]).map_err(e)?;
            s.read(data).map_err(e)?;
            Ok(s)
        };
        let (x, y) = (stream(&self.x)?, stream(&self.y)?);
        let zeros = [0.0; ELEMENTS];
        let (r, s, q) = (stream(&zeros)?, stream(&zeros)?, stream(&zeros)?);
        let args = [&x, &y, &r, &s, &q].map(Arg::Stream);
        rt.run(&p, "f", &args).map_err(e)?;
        let mut out = Vec::with_capacity(OUTPUTS.len() * ELEMENTS);
        for o in [&r, &s, &q] {
            out.extend(o.to_vec().map_err(e)?);
        }
        Ok(out)
    }

    /// The first element where `got` differs from the reference `want`, described.
    pub fn compare(&self, want: &[f32], got: &[f32]) -> Option<String> {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let i = want.iter().zip(got).position(|(a, b)| !same(*a, *b))?;
        let (out, k) = (OUTPUTS[i / ELEMENTS], i % ELEMENTS);
        Some(format!(
            "{out}[{k}] with x = {:e}, y = {:e}: interpreter {:e}, got {:e}",
            self.x[k], self.y[k], want[i], got[i]
        ))
    }

    pub fn describe(&self) -> String {
        format!(
            "seed {} (special values)\n{}x = {:?}\ny = {:?}\n",
            self.seed, self.source, self.x, self.y
        )
    }
}

/// A float expression over `vars`, at most `depth` deep.
fn expr(rng: &mut Rng, vars: &[String], depth: u32) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return if rng.below(5) == 0 {
            LITERALS[rng.below(LITERALS.len() as u64) as usize].to_string()
        } else {
            vars[rng.below(vars.len() as u64) as usize].clone()
        };
    }
    let sub = |rng: &mut Rng| expr(rng, vars, depth - 1);
    let a = sub(rng);
    match rng.below(16) {
        // The identities, on any sub-expression.
        0 => format!("({a} * 0.0)"),
        1 => format!("({a} + 0.0)"),
        2 => format!("({a} - {a})"),
        3 => format!("({a} / {a})"),
        4 => format!("(0.0 - (0.0 - {a}))"),
        5 => format!("({a} * 1.0)"),
        6 => {
            let (b, c) = (sub(rng), sub(rng));
            let op = ["==", "!=", "<", "<=", ">", ">="][rng.below(6) as usize];
            format!("({a} {op} {a} ? {b} : {c})")
        }
        7 => format!("(0.0 * {a})"),
        // Exact arithmetic around them.
        8 | 9 => format!("({a} + {})", sub(rng)),
        10 => format!("({a} - {})", sub(rng)),
        11 | 12 => format!("({a} * {})", sub(rng)),
        13 => format!("({a} * 0.5)"),
        14 => format!("(-{a})"),
        _ => format!("abs({a})"),
    }
}

/// Statements computing `q` under a condition over `vars`: an `if`, a `?:`, a `while` or a
/// do-while whose test is that condition (and a bound, so it ends).
fn control(rng: &mut Rng, vars: &[String]) -> String {
    // Parenthesised: `a || b && q < 2.0` would loop for ever where `a` holds.
    let cond = format!("({})", condition(rng, vars));
    let (a, b) = (expr(rng, vars, 2), expr(rng, vars, 2));
    match rng.below(4) {
        0 => format!("    q = 0.0;\n    if ({cond}) q = {a}; else q = {b};\n"),
        1 => format!("    q = {cond} ? {a} : {b};\n"),
        2 => format!("    q = 0.0;\n    while ({cond} && q < 2.0) q += 1.0;\n"),
        _ => format!("    q = 0.0;\n    do {{ q += 1.0; }} while ({cond} && q < 3.0);\n"),
    }
}

/// A comparison of two expressions (half the time of one with itself), or two joined by
/// `&&` or `||`, which Brook evaluates as C does.
fn condition(rng: &mut Rng, vars: &[String]) -> String {
    let compare = |rng: &mut Rng| {
        let a = expr(rng, vars, 2);
        let b = if rng.below(2) == 0 {
            a.clone()
        } else {
            expr(rng, vars, 2)
        };
        let op = ["==", "!=", "<", "<=", ">", ">="][rng.below(6) as usize];
        format!("({a} {op} {b})")
    };
    let first = compare(rng);
    match rng.below(3) {
        0 => first,
        1 => format!("{first} && {}", compare(rng)),
        _ => format!("{first} || {}", compare(rng)),
    }
}
