//! Property test: generated Brook programs give the same bits on native code and on the
//! interpreter.
//!
//! Each case is a program made from a seed: a kernel of random statements (declarations,
//! compound and masked assignments, branches, counted loops with `break`/`continue`,
//! `discard`) over random expressions of floats, vectors, ints and bools (operators,
//! swizzles, constructors, casts, selects, built-ins, gathers, `indexof`, calls of a
//! generated helper, `modf` and `frexp` writing a variable), and a reduction. It runs on streams of
//! random shapes (inputs of the output's shape and resized ones) holding ordinary and
//! special values (zeros of both signs, infinities, NaN, denormals), sometimes under a random
//! write mask. Every output float must
//! be the same bits on both engines (any NaN matching any NaN), and the JIT must take the
//! program (no fallback). A second property does the same for kernels whose every stream
//! holds scalars (with a scalar helper and a two-subscript gather), which native code runs
//! four elements per iteration across SIMD lanes, half of them with every value a scalar and
//! half with vector values too (each component on four lanes of its own): that layout, the
//! one-element one and the interpreter must give the same bits. Proptest varies the seed and the program's size; a failure prints
//! the seed, the size and the program, so a case is reproduced by calling `check(seed, size)`.

use brook_cpu::{CpuArg, CpuStream, Engine, KernelPlan, ReducePlan, ReduceTarget};
use brook_ir::Module;
use proptest::prelude::*;

/// xorshift64*: the generator's own randomness, so a seed is a whole program.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The types expressions have here: float vectors of 1 to 4 components, int, bool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    F(u8),
    I,
    B,
}

impl Ty {
    fn name(self) -> String {
        match self {
            Ty::F(1) => "float".into(),
            Ty::F(n) => format!("float{n}"),
            Ty::I => "int".into(),
            Ty::B => "bool".into(),
        }
    }
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

struct Gen {
    rng: Rng,
    /// Statements still to write.
    budget: usize,
    /// Variables in scope, innermost scope last, and whether they may be assigned (locals
    /// may; inputs, constants and loop counters may not).
    scopes: Vec<Vec<(String, Ty, bool)>>,
    /// Loop nesting (for `break`/`continue`).
    loops: usize,
    /// Writing the kernel: its gather `g`, output `o` and the helper `twist` may be used.
    in_kernel: bool,
    /// Streams of scalars only, no `discard` or `modf`/`frexp`, and (unless `vectors`)
    /// every value a scalar (`float`, `int`, `bool`; no swizzles, vectors, `indexof`): the
    /// kernels native code runs four elements per iteration.
    scalar: bool,
    /// In a `scalar` program, values may still be vectors (swizzles, constructors, `dot`
    /// and the like, `indexof`, gathers with a `float2` index): four elements per iteration
    /// hold each component as its own four lanes.
    vectors: bool,
    /// Writing a side of `?:` or the right side of `&&`/`||` of a scalar program: no helper
    /// calls (that kernel would keep one element per iteration).
    no_calls: bool,
    fresh: usize,
}

impl Gen {
    /// `f`'s expression, without helper calls in a scalar program.
    fn without_calls<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let before = self.no_calls;
        self.no_calls = self.scalar;
        let e = f(self);
        self.no_calls = before;
        e
    }
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn vars(&self, t: Ty) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .filter(|(_, vt, _)| *vt == t)
            .map(|(n, ..)| n.clone())
            .collect()
    }

    fn assignable(&self, t: Ty) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .filter(|(_, vt, w)| *vt == t && *w)
            .map(|(n, ..)| n.clone())
            .collect()
    }

    fn float_literal(&mut self) -> String {
        let x: f32 = *self.rng.pick(&[
            0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.25, 7.0, 1e-3, 1e20, -1e-20, 100.0, 0.74, 1.72,
        ]);
        if x.is_sign_negative() {
            format!("({x:?})")
        } else {
            format!("{x:?}")
        }
    }

    fn expr(&mut self, t: Ty, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(t);
        }
        let d = depth - 1;
        match t {
            Ty::F(n) => self.float_expr(n, d),
            Ty::I => self.int_expr(d),
            Ty::B => self.bool_expr(d),
        }
    }

    fn leaf(&mut self, t: Ty) -> String {
        let vars = self.vars(t);
        if !vars.is_empty() && self.rng.chance(70) {
            return self.rng.pick(&vars).clone();
        }
        match t {
            Ty::F(1) => self.float_literal(),
            Ty::F(n) => {
                let parts: Vec<String> = (0..n).map(|_| self.float_literal()).collect();
                format!("float{n}({})", parts.join(", "))
            }
            Ty::I => match self.rng.below(9) as i32 - 3 {
                i if i < 0 => format!("({i})"),
                i => format!("{i}"),
            },
            Ty::B => self.rng.pick(&["true", "false"]).to_string(),
        }
    }

    fn float_expr(&mut self, n: u8, d: usize) -> String {
        let f = Ty::F(n);
        match self.rng.below(14) {
            0 | 1 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                let rhs = if self.rng.chance(30) { Ty::F(1) } else { f };
                format!("({} {op} {})", self.expr(f, d), self.expr(rhs, d))
            }
            2 => format!("(-({}))", self.expr(f, d)),
            3 => {
                let b = *self.rng.pick(&[
                    "abs", "floor", "ceil", "frac", "sqrt", "sin", "cos", "exp", "log", "round",
                    "saturate", "sign", "rsqrt", "exp2", "atan", "tanh", "degrees",
                ]);
                format!("{b}({})", self.expr(f, d))
            }
            4 => {
                let b = *self
                    .rng
                    .pick(&["max", "min", "pow", "fmod", "atan2", "step", "ldexp"]);
                format!("{b}({}, {})", self.expr(f, d), self.expr(f, d))
            }
            5 => {
                let b = *self.rng.pick(&["clamp", "lerp", "smoothstep"]);
                let (x, y, z) = (self.expr(f, d), self.expr(f, d), self.expr(f, d));
                format!("{b}({x}, {y}, {z})")
            }
            6 if !self.scalar || self.vectors => {
                // A swizzle of a wider (or as wide) vector.
                let m = n.max(2) + self.rng.below((5 - n.max(2)) as usize) as u8;
                let sel: String = (0..n).map(|_| XYZW[self.rng.below(m as usize)]).collect();
                format!("{}.{sel}", self.expr(Ty::F(m), d))
            }
            7 if n > 1 => {
                // A constructor from a scalar and a vector of the rest.
                let first = self.expr(Ty::F(1), d);
                let rest = if n == 2 {
                    self.expr(Ty::F(1), d)
                } else {
                    self.expr(Ty::F(n - 1), d)
                };
                format!("float{n}({first}, {rest})")
            }
            8 => {
                let c = self.expr(Ty::B, d);
                let (y, n) = self.without_calls(|g| (g.expr(f, d), g.expr(f, d)));
                format!("({c} ? {y} : {n})")
            }
            9 if n == 1 && (!self.scalar || self.vectors) => {
                let k = 2 + self.rng.below(3) as u8;
                let b = *self.rng.pick(&["dot", "distance"]);
                if b == "dot" || self.rng.chance(50) {
                    format!(
                        "{b}({}, {})",
                        self.expr(Ty::F(k), d),
                        self.expr(Ty::F(k), d)
                    )
                } else {
                    format!("length({})", self.expr(Ty::F(k), d))
                }
            }
            9 if n == 3 => format!("cross({}, {})", self.expr(f, d), self.expr(f, d)),
            9 if !self.scalar || self.vectors => format!("normalize({})", self.expr(f, d)),
            10 if self.in_kernel && self.scalar => {
                let one = if self.vectors && self.rng.chance(50) {
                    format!("g[{}]", self.expr(Ty::F(2), d))
                } else {
                    let (r, c) = (self.expr(Ty::F(1), d), self.expr(Ty::I, d));
                    format!("g[{r}][{c}]")
                };
                match n {
                    1 => one,
                    _ => format!("float{n}({one})"),
                }
            }
            10 if self.in_kernel => {
                let index = self.expr(Ty::F(2), d);
                let sel: String = (0..n).map(|_| XYZW[self.rng.below(4)]).collect();
                format!("g[{index}].{sel}")
            }
            11 if self.in_kernel && (!self.scalar || self.vectors) => {
                let sel: String = (0..n).map(|_| XYZW[self.rng.below(4)]).collect();
                let out = if self.scalar { "p" } else { "o" };
                format!("indexof({out}).{sel}")
            }
            12 if n == 1 => format!("((float){})", self.expr(Ty::I, d)),
            12 | 13 if self.in_kernel && !self.no_calls && n == if self.scalar { 1 } else { 4 } => {
                format!("twist({}, {})", self.expr(f, d), self.expr(Ty::F(1), d))
            }
            _ => self.leaf(f),
        }
    }

    fn int_expr(&mut self, d: usize) -> String {
        match self.rng.below(6) {
            0 | 1 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "%", "&", "|", "^"]);
                format!("({} {op} {})", self.expr(Ty::I, d), self.expr(Ty::I, d))
            }
            2 => format!("((int){})", self.expr(Ty::F(1), d)),
            3 => {
                let b = *self.rng.pick(&["abs", "max", "min"]);
                if b == "abs" {
                    format!("abs({})", self.expr(Ty::I, d))
                } else {
                    format!("{b}({}, {})", self.expr(Ty::I, d), self.expr(Ty::I, d))
                }
            }
            4 => format!("(-({}))", self.expr(Ty::I, d)),
            _ => self.leaf(Ty::I),
        }
    }

    fn bool_expr(&mut self, d: usize) -> String {
        match self.rng.below(5) {
            0 | 1 => {
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                let t = if self.rng.chance(70) { Ty::F(1) } else { Ty::I };
                format!("({} {op} {})", self.expr(t, d), self.expr(t, d))
            }
            2 => {
                let op = *self.rng.pick(&["&&", "||"]);
                let a = self.expr(Ty::B, d);
                let b = self.without_calls(|g| g.expr(Ty::B, d));
                format!("({a} {op} {b})")
            }
            3 => format!("(!({}))", self.expr(Ty::B, d)),
            _ if self.scalar && !self.vectors => self.leaf(Ty::B),
            _ => {
                let k = 2 + self.rng.below(3) as u8;
                let b = *self.rng.pick(&["any", "all"]);
                // Split into components, `any` is an `||` chain: no helper calls after the first
                // (as on the right of `||`).
                let (x, y) = self.without_calls(|g| (g.expr(Ty::F(k), d), g.expr(Ty::F(k), d)));
                format!("{b}({x} > {y})")
            }
        }
    }

    fn random_type(&mut self) -> Ty {
        if self.scalar && !self.vectors {
            return *self.rng.pick(&[Ty::F(1), Ty::F(1), Ty::I, Ty::B]);
        }
        *self.rng.pick(&[
            Ty::F(1),
            Ty::F(2),
            Ty::F(3),
            Ty::F(4),
            Ty::F(4),
            Ty::I,
            Ty::B,
        ])
    }

    fn block(&mut self, indent: usize, out: &mut String) {
        self.scopes.push(Vec::new());
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.stmt(indent, out);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        let depth = 3;
        match self.rng.below(11) {
            0..=2 => {
                let t = self.random_type();
                let name = self.name("v");
                let e = self.expr(t, depth);
                out.push_str(&format!("{pad}{} {name} = {e};\n", t.name()));
                self.scopes.last_mut().unwrap().push((name, t, true));
            }
            3 | 4 => {
                let t = self.random_type();
                let vars = self.assignable(t);
                if vars.is_empty() {
                    return;
                }
                let v = self.rng.pick(&vars).clone();
                match t {
                    Ty::F(n) if n > 1 && self.rng.chance(40) => {
                        let k = 1 + self.rng.below(n as usize);
                        let mut comps: Vec<usize> = (0..n as usize).collect();
                        let mut mask = String::new();
                        for _ in 0..k {
                            let c = comps.remove(self.rng.below(comps.len()));
                            mask.push(XYZW[c]);
                        }
                        let e = self.expr(Ty::F(k as u8), depth);
                        out.push_str(&format!("{pad}{v}.{mask} = {e};\n"));
                    }
                    Ty::B => {
                        let e = self.expr(t, depth);
                        out.push_str(&format!("{pad}{v} = {e};\n"));
                    }
                    _ => {
                        let op = *self.rng.pick(&["=", "+=", "-=", "*=", "/="]);
                        let e = self.expr(t, depth);
                        out.push_str(&format!("{pad}{v} {op} {e};\n"));
                    }
                }
            }
            5 => {
                let c = self.expr(Ty::B, depth);
                out.push_str(&format!("{pad}if ({c}) {{\n"));
                self.block(indent + 4, out);
                out.push_str(&format!("{pad}}} else {{\n"));
                self.block(indent + 4, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            6 => {
                let i = self.name("i");
                let n = self.rng.below(5);
                out.push_str(&format!("{pad}for (int {i} = 0; {i} < {n}; {i}++) {{\n"));
                self.scopes.push(vec![(i, Ty::I, false)]);
                self.loops += 1;
                self.block(indent + 4, out);
                self.loops -= 1;
                self.scopes.pop();
                out.push_str(&format!("{pad}}}\n"));
            }
            7 if self.loops > 0 => {
                let c = self.expr(Ty::B, 2);
                let what = self.rng.pick(&["break", "continue"]);
                out.push_str(&format!("{pad}if ({c}) {what};\n"));
            }
            8 if !self.scalar && self.rng.chance(30) => {
                let c = self.expr(Ty::B, 2);
                out.push_str(&format!("{pad}if ({c}) discard;\n"));
            }
            9 if !self.scalar => {
                // Built-ins that write their second argument.
                let e = self.expr(Ty::F(1), depth);
                let (v, w) = (self.name("s"), self.name("v"));
                let f = self.rng.pick(&["modf", "frexp"]);
                out.push_str(&format!(
                    "{pad}float {v};\n{pad}float {w} = {f}({e}, {v});\n"
                ));
                let scope = self.scopes.last_mut().unwrap();
                scope.push((v, Ty::F(1), true));
                scope.push((w, Ty::F(1), true));
            }
            _ => {
                let (o, t) = match self.scalar {
                    true => ("p", Ty::F(1)),
                    false => *self.rng.pick(&[("o", Ty::F(4)), ("p", Ty::F(1))]),
                };
                let e = self.expr(t, depth);
                out.push_str(&format!("{pad}{o} = {e};\n"));
            }
        }
    }
}

/// The program of `seed`, with about `size` statements: helpers, the kernel `k`, the
/// reduction `r`.
fn program(seed: u64, size: usize) -> String {
    let mut g = Gen {
        rng: Rng(seed | 1),
        budget: size,
        scopes: Vec::new(),
        loops: 0,
        in_kernel: false,
        scalar: false,
        vectors: false,
        no_calls: false,
        fresh: 0,
    };
    g.scopes.push(vec![
        ("x".into(), Ty::F(4), false),
        ("y".into(), Ty::F(1), false),
    ]);
    let twist = g.expr(Ty::F(4), 3);
    g.scopes.clear();
    g.scopes.push(vec![
        ("a".into(), Ty::F(4), false),
        ("b".into(), Ty::F(1), false),
        ("c".into(), Ty::F(1), false),
        ("k".into(), Ty::I, false),
    ]);
    let mut body = String::new();
    g.in_kernel = true;
    while g.budget > 0 {
        g.budget -= 1;
        g.stmt(4, &mut body);
    }
    g.scopes.clear();
    g.in_kernel = false;
    g.scopes.push(vec![
        ("e".into(), Ty::F(2), false),
        ("acc".into(), Ty::F(2), false),
    ]);
    let fold = g.expr(Ty::F(2), 2);
    format!(
        "float4 twist(float4 x, float y) {{\n    return {twist};\n}}\n\n\
         kernel void k(float4 a<>, float b<>, float c, int k, float4 g[][], out float4 o<>, out float p<>) {{\n{body}}}\n\n\
         reduce void r(float2 e<>, reduce float2 acc<>) {{\n    acc = {fold};\n}}\n"
    )
}

/// Stream data: ordinary values mixed with special ones.
fn data(rng: &mut Rng, floats: usize) -> Vec<f32> {
    const SPECIAL: [f32; 9] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -3e38,
        1.0,
        -1.0,
    ];
    (0..floats)
        .map(|_| {
            if rng.chance(15) {
                *rng.pick(&SPECIAL)
            } else {
                (rng.below(2001) as f32 - 1000.0) * 0.0137
            }
        })
        .collect()
}

fn shape(rng: &mut Rng) -> Vec<usize> {
    if rng.chance(30) {
        vec![1 + rng.below(70)]
    } else {
        vec![1 + rng.below(12), 1 + rng.below(12)]
    }
}

fn same_bits(x: &[f32], y: &[f32]) -> Result<(), String> {
    for (i, (a, b)) in x.iter().zip(y).enumerate() {
        if a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()) {
            return Err(format!("float {i}: native code {a:?}, interpreter {b:?}"));
        }
    }
    Ok(())
}

/// Runs the kernel and the reduction of `seed`'s program on both engines.
fn check(seed: u64, size: usize) -> Result<(), String> {
    let src = program(seed, size);
    let mut module: Module = brook_frontend::compile(&src, "generated.br").map_err(|d| {
        format!(
            "the generator wrote an invalid program:\n{}\n{src}",
            d.render()
        )
    })?;
    // As the runtime hands it to a backend: composite built-ins written as formulas.
    brook_ir::lower_composites(&mut module);
    let mut rng = Rng(seed.rotate_left(17) | 1);
    let out_shape = vec![1 + rng.below(9), 1 + rng.below(9)];
    let a_shape = if rng.chance(50) {
        out_shape.clone()
    } else {
        shape(&mut rng)
    };
    let (b_shape, g_shape) = (shape(&mut rng), vec![1 + rng.below(6), 1 + rng.below(6)]);
    let stream = |rng: &mut Rng, w: u8, s: &[usize]| {
        let n = s.iter().product::<usize>() * w as usize;
        CpuStream::from_data(&[w], s, &data(rng, n)).unwrap()
    };
    let (a, b, g) = (
        stream(&mut rng, 4, &a_shape),
        stream(&mut rng, 1, &b_shape),
        stream(&mut rng, 4, &g_shape),
    );
    let (c, k) = (data(&mut rng, 1), rng.below(7) as f32 - 3.0);
    let initial = (
        stream(&mut rng, 4, &out_shape),
        stream(&mut rng, 1, &out_shape),
    );
    let total: usize = out_shape.iter().product();
    let mask: Option<Vec<bool>> = rng
        .chance(40)
        .then(|| (0..total).map(|_| rng.chance(60)).collect());
    let (kid, _) = module.function("k").unwrap();
    let mut results = Vec::new();
    for plan in [KernelPlan::new(&module, kid), KernelPlan::interpreted(kid)] {
        let (mut o, mut p) = initial.clone();
        let mut args = [
            CpuArg::Stream(&a),
            CpuArg::Stream(&b),
            CpuArg::Constant(c.clone()),
            CpuArg::Constant(vec![k]),
            CpuArg::Gather(&g),
            CpuArg::Out(&mut o),
            CpuArg::Out(&mut p),
        ];
        let run = plan
            .run_masked(&module, &mut args, mask.as_deref())
            .map_err(|e| format!("{e}\n{src}"))?;
        results.push((o, p, run));
    }
    let (native, interpreted) = (&results[0], &results[1]);
    if native.2.execution.engine != Engine::Jit {
        return Err(format!(
            "the JIT did not take the kernel: {:?}\n{src}",
            native.2.execution.fallback
        ));
    }
    same_bits(native.0.data(), interpreted.0.data()).map_err(|e| format!("o {e}\n{src}"))?;
    same_bits(native.1.data(), interpreted.1.data()).map_err(|e| format!("p {e}\n{src}"))?;
    if native.2.written != interpreted.2.written {
        return Err(format!("elements written differ\n{src}"));
    }

    let (rid, _) = module.function("r").unwrap();
    let rows = 4 + rng.below(40);
    let input = stream(&mut rng, 2, &[rows, 3]);
    let mut sums = Vec::new();
    for plan in [ReducePlan::new(&module, rid), ReducePlan::interpreted(rid)] {
        let mut to_value = [0.0; 2];
        plan.run(&module, &input, &mut [], ReduceTarget::Value(&mut to_value))
            .map_err(|e| format!("{e}\n{src}"))?;
        let mut rows = CpuStream::new(&[2], &[input.shape()[0], 1]).unwrap();
        plan.run(&module, &input, &mut [], ReduceTarget::Stream(&mut rows))
            .map_err(|e| format!("{e}\n{src}"))?;
        sums.push((to_value, rows));
    }
    same_bits(&sums[0].0, &sums[1].0).map_err(|e| format!("reduction {e}\n{src}"))?;
    same_bits(sums[0].1.data(), sums[1].1.data())
        .map_err(|e| format!("reduction by rows {e}\n{src}"))?;
    Ok(())
}

/// The scalar program of `seed`, with about `size` statements: the helper `twist` and the
/// kernel `k`, every stream and (unless `vectors`) every value a scalar.
fn scalar_program(seed: u64, size: usize, vectors: bool) -> String {
    let mut g = Gen {
        rng: Rng(seed | 1),
        budget: size,
        scopes: vec![vec![
            ("x".into(), Ty::F(1), false),
            ("y".into(), Ty::F(1), false),
        ]],
        loops: 0,
        in_kernel: false,
        scalar: true,
        vectors,
        no_calls: false,
        fresh: 0,
    };
    let twist = g.expr(Ty::F(1), 3);
    g.scopes = vec![vec![
        ("b".into(), Ty::F(1), false),
        ("n".into(), Ty::I, false),
        ("c".into(), Ty::F(1), false),
        ("k".into(), Ty::I, false),
    ]];
    let mut body = String::from("    int n = (int)m;\n");
    g.in_kernel = true;
    while g.budget > 0 {
        g.budget -= 1;
        g.stmt(4, &mut body);
    }
    format!(
        "float twist(float x, float y) {{\n    return {twist};\n}}\n\n\
         kernel void k(float b<>, float m<>, float c, int k, float g[][], out float p<>) {{\n{body}}}\n"
    )
}

/// Runs the kernel of `seed`'s scalar program (with vector values when `vectors`) with
/// native code four elements per iteration, with native code one element per iteration and
/// on the interpreter, on streams of the output's shape (so the first runs four per
/// iteration, which it must say).
fn check_scalar(seed: u64, size: usize, vectors: bool) -> Result<(), String> {
    let src = scalar_program(seed, size, vectors);
    let mut module: Module = brook_frontend::compile(&src, "scalar.br").map_err(|d| {
        format!(
            "the generator wrote an invalid program:\n{}\n{src}",
            d.render()
        )
    })?;
    // As the runtime hands it to a backend: composite built-ins written as formulas.
    brook_ir::lower_composites(&mut module);
    let mut rng = Rng(seed.rotate_left(23) | 1);
    let out_shape = shape(&mut rng);
    let stream = |rng: &mut Rng, s: &[usize]| {
        let n = s.iter().product::<usize>();
        CpuStream::from_data(&[1], s, &data(rng, n)).unwrap()
    };
    let b = stream(&mut rng, &out_shape);
    let ints: Vec<f32> = data(&mut rng, b.len()).iter().map(|x| x.trunc()).collect();
    let n = CpuStream::from_data(&[1], &out_shape, &ints).unwrap();
    let g_shape = [1 + rng.below(6), 1 + rng.below(6)];
    let g = stream(&mut rng, &g_shape);
    let (c, k) = (data(&mut rng, 1), rng.below(7) as f32 - 3.0);
    let initial = stream(&mut rng, &out_shape);
    let (kid, _) = module.function("k").unwrap();
    let mut results = Vec::new();
    let plans = [
        KernelPlan::new(&module, kid),
        KernelPlan::one_element(&module, kid),
        KernelPlan::interpreted(kid),
    ];
    for plan in plans {
        let mut p = initial.clone();
        let mut args = [
            CpuArg::Stream(&b),
            CpuArg::Stream(&n),
            CpuArg::Constant(c.clone()),
            CpuArg::Constant(vec![k]),
            CpuArg::Gather(&g),
            CpuArg::Out(&mut p),
        ];
        let run = plan
            .run_masked(&module, &mut args, None)
            .map_err(|e| format!("{e}\n{src}"))?;
        results.push((p, run));
    }
    let layout = |r: &brook_cpu::KernelRun| {
        r.execution
            .compiled
            .as_ref()
            .map(|c| c.variant.clone())
            .unwrap_or_default()
    };
    if !layout(&results[0].1).ends_with("; four elements per iteration")
        || !layout(&results[1].1).ends_with("; one element per iteration")
    {
        // `brcc clif`'s header says why a kernel keeps one element per iteration.
        let why =
            brook_cpu::jit::clif_text(&module, kid).map(|t| t.lines().nth(2).map(String::from));
        return Err(format!(
            "layouts: {:?}, {:?} ({why:?})\n{src}",
            results[0].1.execution, results[1].1.execution
        ));
    }
    // Four per iteration against one first (what this layout adds), then against the
    // interpreter.
    let (quads, one) = (results[0].0.data(), results[1].0.data());
    same_bits(quads, one).map_err(|e| format!("quads vs one element: {e}\n{src}"))?;
    same_bits(one, results[2].0.data())
        .map_err(|e| format!("one element vs the interpreter: {e}\n{src}"))?;
    Ok(())
}

proptest! {
    // 64 cases take about a second in a debug build; `PROPTEST_CASES=5000` searches harder.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn native_code_matches_the_interpreter(seed in any::<u64>(), size in 1usize..40) {
        if let Err(e) = check(seed, size) {
            panic!("seed {seed}, size {size}: {e}");
        }
    }

    #[test]
    fn four_elements_per_iteration_match_one_and_the_interpreter(
        seed in any::<u64>(),
        size in 1usize..40,
        vectors in any::<bool>(),
    ) {
        if let Err(e) = check_scalar(seed, size, vectors) {
            panic!("seed {seed}, size {size}, vectors {vectors}: {e}");
        }
    }
}
