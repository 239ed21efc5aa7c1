//! Random Brook programs whose results are exact on every backend, so GL and the CPU must agree
//! bit for bit (up to the sign of zero): every value is a multiple of a power of two small
//! enough that no operation rounds. The generator tracks each expression's bound and grain
//! (values are multiples of 2^-grain with magnitude at most `bound`) and only builds
//! operations whose results stay exactly representable; reassociation by a GL compiler then
//! cannot change a result either. Non-finite values appear only as gather subscripts, whose
//! rule is defined for them. Some outputs apply a transcendental built-in to an exact value at
//! the very end: those are compared by the built-in's ulp bound.

use std::fmt::Write;

use super::Rng;

/// Beyond this, a product or sum could round: 2^24 is float's first gap above 1.
const EXACT: f64 = 16_777_216.0;

/// What is known of an expression's values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Largest magnitude.
    pub bound: f64,
    /// Values are multiples of 2^-grain.
    pub grain: i32,
}

impl Range {
    pub fn of(bound: f64, grain: i32) -> Range {
        Range {
            bound: bound.max(0.0),
            grain: grain.max(0),
        }
    }

    fn exact(self) -> bool {
        self.bound * 2f64.powi(self.grain) < EXACT / 4.0
    }

    fn join(self, o: Range) -> Range {
        Range::of(self.bound.max(o.bound), self.grain.max(o.grain))
    }

    fn add(self, o: Range) -> Range {
        Range::of(self.bound + o.bound, self.grain.max(o.grain))
    }

    fn mul(self, o: Range) -> Range {
        Range::of(self.bound * o.bound, self.grain + o.grain)
    }

    fn integral(self) -> Range {
        Range::of(self.bound + 1.0, 0)
    }
}

/// A float value of 1 to 4 components.
#[derive(Debug, Clone)]
struct Var {
    name: String,
    width: u8,
    range: Range,
}

/// A gather parameter: its name, rank and the range of its elements.
#[derive(Debug, Clone)]
pub struct GatherParam {
    pub name: String,
    pub rank: usize,
    pub width: u8,
}

/// What one kernel's parameters are, for the host side to bind.
#[derive(Debug, Clone)]
pub enum Param {
    /// An input stream of `width` floats; `index` streams may hold non-finite values and are
    /// only used as gather subscripts.
    Input {
        width: u8,
        index: bool,
    },
    Gather {
        rank: usize,
        width: u8,
    },
    Constant {
        width: u8,
    },
    Output {
        width: u8,
    },
}

/// A generated kernel: its source and parameters.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    pub source: String,
    /// Outputs whose values are approximate (a transcendental built-in at the end): the ulp
    /// bound each allows, by output position among the outputs.
    pub approximate: Vec<Option<f64>>,
}

/// A reduce function over `width` floats.
#[derive(Debug, Clone)]
pub struct Reduction {
    pub name: String,
    pub width: u8,
    pub source: String,
}

/// The range of every float the host puts into a data stream or constant.
pub const DATA: Range = Range {
    bound: 64.0,
    grain: 2,
};

fn ty(width: u8) -> &'static str {
    ["float", "float2", "float3", "float4"][width as usize - 1]
}

fn literal(rng: &mut Rng) -> (String, Range) {
    let k = rng.below(33) as i32 - 16;
    let v = k as f64 / 4.0;
    (format!("{v:?}"), Range::of(v.abs(), 2))
}

/// Builds one kernel body.
struct Body<'a> {
    rng: &'a mut Rng,
    vars: Vec<Var>,
    /// Names of plain index streams (non-finite values allowed, subscripts only).
    index_inputs: Vec<String>,
    gathers: Vec<GatherParam>,
    /// Variables assigned inside the loops being generated: not readable there, so their
    /// ranges stay known.
    frozen: Vec<String>,
    text: String,
    indent: usize,
    next_local: usize,
    loops: usize,
    /// Gathers being built around the current expression (subscripts of subscripts).
    gathering: u32,
    /// Helper functions the body may call.
    helpers: Vec<Helper>,
}

/// A function `float NAME(float x, float y)` kernels call, and the range of its result when
/// its arguments are within [`HELPER_ARGS`].
#[derive(Debug, Clone)]
pub struct Helper {
    pub name: String,
    pub result: Range,
    pub source: String,
}

/// The range helper functions' arguments must lie in.
const HELPER_ARGS: Range = Range {
    bound: 1024.0,
    grain: 4,
};

impl Body<'_> {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    fn readable(&self) -> Vec<Var> {
        self.vars
            .iter()
            .filter(|v| !self.frozen.contains(&v.name))
            .cloned()
            .collect()
    }

    /// A scalar float expression.
    fn scalar(&mut self, depth: u32) -> (String, Range) {
        let (e, r, w) = self.value(depth);
        if w == 1 {
            return (e, r);
        }
        let c = ["x", "y", "z", "w"][self.rng.below(w as u64) as usize];
        (format!("({e}).{c}"), r)
    }

    /// An expression of exactly `width` components.
    fn of_width(&mut self, width: u8, depth: u32) -> (String, Range) {
        let (e, r, w) = self.value(depth);
        if w == width {
            return (e, r);
        }
        if w == 1 {
            return (format!("{}({e})", ty(width)), r);
        }
        if w > width {
            let sw: String = ["x", "y", "z", "w"][..width as usize].concat();
            return (format!("({e}).{sw}"), r);
        }
        // Widen with scalars.
        let mut parts = vec![e];
        let mut range = r;
        for _ in w..width {
            let (s, sr) = self.scalar(depth.saturating_sub(1));
            parts.push(s);
            range = range.join(sr);
        }
        (format!("{}({})", ty(width), parts.join(", ")), range)
    }

    /// Any float expression: (text, range, width).
    fn value(&mut self, depth: u32) -> (String, Range, u8) {
        let leaf = depth == 0 || self.rng.below(4) == 0;
        if leaf {
            return self.leaf();
        }
        let pick = self.rng.below(15);
        let (a, ra, wa) = self.value(depth - 1);
        let binary = |me: &mut Self, f: &dyn Fn(Range, Range) -> Range, op: &str| {
            let (b, rb) = me.of_width(wa, depth - 1);
            let r = f(ra, rb);
            if r.exact() {
                Some((format!("({a} {op} {b})"), r, wa))
            } else {
                None
            }
        };
        let made = match pick {
            0 => binary(self, &Range::add, "+"),
            1 => binary(self, &Range::add, "-"),
            2 => binary(self, &Range::mul, "*"),
            3 => Some((format!("(-({a}))"), ra, wa)),
            4 => Some((format!("abs({a})"), ra, wa)),
            5 => {
                let f = ["floor", "ceil", "round"][self.rng.below(3) as usize];
                Some((format!("{f}({a})"), ra.integral(), wa))
            }
            6 => Some((format!("frac({a})"), Range::of(1.0, ra.grain), wa)),
            7 => {
                let (b, rb) = self.of_width(wa, depth - 1);
                let f = ["min", "max"][self.rng.below(2) as usize];
                Some((format!("{f}({a}, {b})"), ra.join(rb), wa))
            }
            8 => {
                // A comparison picks one of two values.
                let (x, rx) = self.scalar(depth - 1);
                let (y, ry) = self.scalar(depth - 1);
                let (b, rb) = self.of_width(wa, depth - 1);
                let cmp = ["<", "<=", ">", ">=", "==", "!="][self.rng.below(6) as usize];
                let _ = (rx, ry);
                Some((format!("({x} {cmp} {y} ? {a} : {b})"), ra.join(rb), wa))
            }
            9 => {
                let r = Range::of(ra.bound / 2.0, ra.grain + 1);
                r.exact().then(|| (format!("({a} * 0.5)"), r, wa))
            }
            10 => {
                let lo = -(self.rng.below(8) as f64);
                let hi = self.rng.below(8) as f64;
                Some((
                    format!("clamp({a}, {lo:?}, {hi:?})"),
                    Range::of(lo.abs().max(hi), ra.grain),
                    wa,
                ))
            }
            11 => {
                // lerp with a weight the grain can carry exactly.
                let (b, rb) = self.of_width(wa, depth - 1);
                let t = [0.0, 0.25, 0.5, 0.75, 1.0][self.rng.below(5) as usize];
                let r = ra.add(ra.add(rb).mul(Range::of(1.0, 2)));
                r.exact().then(|| (format!("lerp({a}, {b}, {t:?})"), r, wa))
            }
            12 => {
                let f = ["sign", "saturate"][self.rng.below(2) as usize];
                Some((format!("{f}({a})"), Range::of(1.0, ra.grain), wa))
            }
            13 => {
                let (i, bound) = self.int_expr(depth - 1);
                Some((format!("float({i})"), Range::of(bound, 0), 1))
            }
            _ => self.call_helper(depth - 1),
        };
        made.unwrap_or((a, ra, wa))
    }

    /// An int expression and its bound: C's truncating `/` and `%`, 0 for a zero divisor.
    fn int_expr(&mut self, depth: u32) -> (String, f64) {
        if depth == 0 || self.rng.below(3) == 0 {
            return match self.rng.below(3) {
                0 => {
                    let k = self.rng.below(19) as i64 - 9;
                    (format!("({k})"), k.unsigned_abs() as f64)
                }
                _ => {
                    let (e, r) = self.scalar(0);
                    (format!("int(floor({e}))"), r.bound + 1.0)
                }
            };
        }
        let (a, ba) = self.int_expr(depth - 1);
        let (b, bb) = self.int_expr(depth - 1);
        let (op, bound) = match self.rng.below(5) {
            0 => ("+", ba + bb),
            1 => ("-", ba + bb),
            2 => ("*", ba * bb),
            3 => ("/", ba),
            _ => ("%", ba.min(bb)),
        };
        if bound < EXACT / 4.0 {
            (format!("({a} {op} {b})"), bound)
        } else {
            (a, ba)
        }
    }

    /// A call of a helper function on arguments within its parameters' range.
    fn call_helper(&mut self, depth: u32) -> Option<(String, Range, u8)> {
        let helpers = self.helpers.clone();
        let h = helpers.get(self.rng.below(helpers.len().max(1) as u64) as usize)?;
        let mut args = Vec::new();
        for _ in 0..2 {
            let (e, r) = self.scalar(depth);
            if r.bound > HELPER_ARGS.bound || r.grain > HELPER_ARGS.grain {
                return None;
            }
            args.push(e);
        }
        Some((format!("{}({})", h.name, args.join(", ")), h.result, 1))
    }

    fn leaf(&mut self) -> (String, Range, u8) {
        let readable = self.readable();
        let pick = self.rng.below(10);
        if pick < 5 && !readable.is_empty() {
            let v = &readable[self.rng.below(readable.len() as u64) as usize];
            return (v.name.clone(), v.range, v.width);
        }
        if pick < 8 && !self.gathers.is_empty() && self.gathering < 2 {
            return self.gather();
        }
        let (l, r) = literal(self.rng);
        (l, r, 1)
    }

    /// `t[index]` with an index that may be anything: out of range, fractional, or from an
    /// index stream (infinite, NaN).
    fn gather(&mut self) -> (String, Range, u8) {
        let g = self.gathers[self.rng.below(self.gathers.len() as u64) as usize].clone();
        self.gathering += 1;
        let subscript = |me: &mut Self| -> String {
            if !me.index_inputs.is_empty() && me.rng.below(3) == 0 {
                let i =
                    me.index_inputs[me.rng.below(me.index_inputs.len() as u64) as usize].clone();
                let (l, _) = literal(me.rng);
                return format!("({i} + {l})");
            }
            let (e, _) = me.scalar(1);
            e
        };
        let text = if g.rank == 1 {
            format!("{}[{}]", g.name, subscript(self))
        } else if self.rng.below(2) == 0 {
            let (r, c) = (subscript(self), subscript(self));
            format!("{}[{r}][{c}]", g.name)
        } else {
            let (c, r) = (subscript(self), subscript(self));
            format!("{}[float2({c}, {r})]", g.name)
        };
        self.gathering -= 1;
        (text, DATA, g.width)
    }

    fn local(&mut self, depth: u32) {
        let width = 1 + self.rng.below(4) as u8;
        let (e, r) = self.of_width(width, depth);
        let name = format!("v{}", self.next_local);
        self.next_local += 1;
        self.line(&format!("{} {name} = {e};", ty(width)));
        self.vars.push(Var {
            name,
            width,
            range: r,
        });
    }

    fn statements(&mut self, count: usize, depth: u32) {
        for _ in 0..count {
            match self.rng.below(6) {
                0 | 1 => self.local(depth),
                2 => self.assign(depth),
                3 if self.indent < 4 => self.branch(depth),
                4 if self.indent < 4 && self.loops < 2 => self.loop_(depth),
                _ => self.local(depth),
            }
        }
    }

    /// `v = e;` or `v += e;` on a variable declared before.
    fn assign(&mut self, depth: u32) {
        let candidates: Vec<usize> = (0..self.vars.len())
            .filter(|&i| self.vars[i].name.starts_with('v'))
            .collect();
        if candidates.is_empty() {
            return self.local(depth);
        }
        let i = candidates[self.rng.below(candidates.len() as u64) as usize];
        let (name, width, old) = (
            self.vars[i].name.clone(),
            self.vars[i].width,
            self.vars[i].range,
        );
        let (e, r) = self.of_width(width, depth);
        let (text, range) = if self.rng.below(2) == 0 && old.add(r).exact() {
            (format!("{name} += {e};"), old.add(r))
        } else {
            (format!("{name} = {e};"), r)
        };
        self.line(&text);
        // In a loop or branch the old range still applies too.
        self.vars[i].range = if self.indent > 1 {
            old.join(range)
        } else {
            range
        };
    }

    fn branch(&mut self, depth: u32) {
        let (x, _) = self.scalar(1);
        let (y, _) = self.scalar(1);
        self.line(&format!("if ({x} < {y}) {{"));
        let saved = self.vars.len();
        self.indent += 1;
        let n = 1 + self.rng.below(3) as usize;
        self.statements(n, depth);
        self.vars.truncate(saved);
        self.indent -= 1;
        self.line("} else {");
        self.indent += 1;
        self.statements(1, depth);
        self.vars.truncate(saved);
        self.indent -= 1;
        self.line("}");
    }

    /// A counted loop: variables from outside that the body accumulates into grow by at most
    /// the trip count times the addend's range, and are not read inside it.
    fn loop_(&mut self, depth: u32) {
        let trips = 1 + self.rng.below(6) as usize;
        let i = format!("i{}", self.loops);
        self.loops += 1;
        let outside: Vec<usize> = (0..self.vars.len())
            .filter(|&k| {
                self.vars[k].name.starts_with('v') && !self.frozen.contains(&self.vars[k].name)
            })
            .collect();
        let target =
            (!outside.is_empty()).then(|| outside[self.rng.below(outside.len() as u64) as usize]);
        self.line(&format!("for (int {i} = 0; {i} < {trips}; {i}++) {{"));
        self.indent += 1;
        let saved = self.vars.len();
        self.vars.push(Var {
            name: format!("float({i})"),
            width: 1,
            range: Range::of(trips as f64, 0),
        });
        let frozen_before = self.frozen.len();
        if let Some(t) = target {
            self.frozen.push(self.vars[t].name.clone());
        }
        let n = 1 + self.rng.below(3) as usize;
        // Locals of the body only: assignments inside would need a fixed point.
        for _ in 0..n {
            self.local(depth);
        }
        if let Some(t) = target {
            let (name, width, old) = (
                self.vars[t].name.clone(),
                self.vars[t].width,
                self.vars[t].range,
            );
            let (e, r) = self.of_width(width, depth);
            let grown = old.add(r.mul(Range::of(trips as f64, 0)));
            if grown.exact() {
                self.line(&format!("{name} += {e};"));
                self.vars[t].range = grown;
            }
        }
        self.frozen.truncate(frozen_before);
        self.vars.truncate(saved);
        self.indent -= 1;
        self.line("}");
    }
}

/// Functions whose results are compared by their ulp bound; the argument range that keeps
/// each in its domain.
const APPROXIMATE: [(&str, f64); 8] = [
    ("exp", 0.0),
    ("log", 1.0),
    ("sin", 0.0),
    ("cos", 0.0),
    ("atan", 0.0),
    ("sqrt", 1.0),
    ("tanh", 0.0),
    ("exp2", 0.0),
];

/// A random helper function named `name`, with a loop and a branch now and then.
pub fn helper(rng: &mut Rng, name: &str) -> Helper {
    let mut body = Body {
        rng,
        vars: ["x", "y"]
            .iter()
            .map(|n| Var {
                name: n.to_string(),
                width: 1,
                range: HELPER_ARGS,
            })
            .collect(),
        index_inputs: Vec::new(),
        gathers: Vec::new(),
        frozen: Vec::new(),
        text: String::new(),
        indent: 1,
        next_local: 0,
        loops: 0,
        gathering: 0,
        helpers: Vec::new(),
    };
    let n = body.rng.below(4) as usize;
    body.statements(n, 2);
    let (e, result) = body.scalar(2);
    body.line(&format!("return {e};"));
    Helper {
        name: name.into(),
        result,
        source: format!("float {name}(float x, float y) {{\n{}}}\n", body.text),
    }
}

/// A random kernel named `name`, which may call `helpers`.
pub fn kernel(rng: &mut Rng, name: &str, helpers: &[Helper]) -> Kernel {
    let mut params = Vec::new();
    let mut decls = Vec::new();
    let mut vars = Vec::new();
    let mut index_inputs = Vec::new();
    let mut gathers = Vec::new();
    let inputs = rng.below(3);
    for k in 0..inputs {
        let width = 1 + rng.below(4) as u8;
        let index = width == 1 && rng.below(3) == 0;
        let n = format!("a{k}");
        decls.push(format!("{} {n}<>", ty(width)));
        if index {
            index_inputs.push(n);
        } else {
            vars.push(Var {
                name: n,
                width,
                range: DATA,
            });
        }
        params.push(Param::Input { width, index });
    }
    for k in 0..rng.below(3) {
        let rank = 1 + rng.below(2) as usize;
        let width = 1 + rng.below(4) as u8;
        let n = format!("t{k}");
        decls.push(format!("{} {n}{}", ty(width), "[]".repeat(rank)));
        gathers.push(GatherParam {
            name: n,
            rank,
            width,
        });
        params.push(Param::Gather { rank, width });
    }
    for k in 0..rng.below(2) {
        let width = 1 + rng.below(4) as u8;
        let n = format!("c{k}");
        decls.push(format!("{} {n}", ty(width)));
        vars.push(Var {
            name: n,
            width,
            range: DATA,
        });
        params.push(Param::Constant { width });
    }
    let outputs = 1 + rng.below(3) as usize;
    let mut body = Body {
        rng,
        vars,
        index_inputs,
        gathers,
        frozen: Vec::new(),
        text: String::new(),
        indent: 1,
        next_local: 0,
        loops: 0,
        gathering: 0,
        helpers: helpers.to_vec(),
    };
    if body.rng.below(3) == 0 {
        body.vars.push(Var {
            name: "indexof(o0)".into(),
            width: 4,
            range: Range::of(256.0, 0),
        });
    }
    let n = 1 + body.rng.below(6) as usize;
    body.statements(n, 3);
    let mut approximate = Vec::new();
    for k in 0..outputs {
        let width = 1 + body.rng.below(4) as u8;
        let (e, _) = body.of_width(width, 3);
        let (f, floor) = APPROXIMATE[body.rng.below(APPROXIMATE.len() as u64) as usize];
        if body.rng.below(4) == 0 {
            // Into the function's domain and away from overflow: |e| is at most 2^22.
            let arg = if floor > 0.0 {
                format!("(abs({e}) + 1.0)")
            } else {
                format!("clamp({e}, -20.0, 20.0)")
            };
            body.line(&format!("o{k} = {f}({arg});"));
            let bound = match brook::ir::accuracy::accuracy(builtin(f)) {
                brook::ir::accuracy::Accuracy::Ulps(u) => u as f64,
                _ => 0.5,
            };
            approximate.push(Some(bound));
        } else {
            body.line(&format!("o{k} = {e};"));
            approximate.push(None);
        }
        decls.push(format!("out {} o{k}<>", ty(width)));
        params.push(Param::Output { width });
    }
    let mut source = String::new();
    let _ = writeln!(source, "kernel void {name}({}) {{", decls.join(", "));
    source.push_str(&body.text);
    source.push_str("}\n");
    Kernel {
        name: name.into(),
        params,
        source,
        approximate,
    }
}

fn builtin(name: &str) -> brook::ir::Builtin {
    brook::ir::Builtin::ALL
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(b, _)| *b)
        .expect("a built-in")
}

/// A random associative reduction over `width` floats (sum, min or max: the fold order Brook
/// fixes makes even sums exact and equal on every backend).
pub fn reduction(rng: &mut Rng, name: &str, width: u8) -> Reduction {
    let t = ty(width);
    let body = match rng.below(3) {
        0 => "r += a;",
        1 => "r = min(r, a);",
        _ => "r = max(r, a);",
    };
    Reduction {
        name: name.into(),
        width,
        source: format!("reduce void {name}({t} a<>, reduce {t} r<>) {{ {body} }}\n"),
    }
}
