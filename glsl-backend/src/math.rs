//! Cg's transcendental built-ins as GLSL of our own (the `math/*.glsl` files), so that a kernel's
//! `exp`, `log`, `sin`, `pow`, … meet one accuracy contract whatever the driver's versions do
//! (README, "Limits and guarantees"; `brook_frontend::accuracy` states the bounds). llvmpipe's
//! own functions miss it by far: `exp` by up to 60 ulp near 88, `atan` by ~350 ulp near 0,
//! `asin`, `sinh` and `tanh` give nonsense below 1e-7, `sin(1e20)` is 1, `pow` of a negative
//! base is NaN.
//!
//! Each function is built from IEEE operations (+, -, *, /, sqrt, floor) and bit manipulation
//! only: argument reduction (Cody-Waite with constants split so products are exact, Payne-Hanek
//! for large trigonometric arguments), then a short polynomial whose truncation error is far
//! below float's precision. The scalar versions are written out in GLSL; the vector overloads
//! apply them per component.
//!
//! The wgpu backend runs the same functions: it parses [`scalar_library`] with naga's GLSL
//! front end and calls them from its kernels' naga modules, so the algorithms and coefficients
//! live here only.

/// One file of the math library, emitted only when a shader calls into it. The order is the
/// order of emission: each file calls only the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MathFile {
    /// `brook_scale` (x 2^n), `brook_inf`, `brook_nan`.
    Scale,
    /// `brook_exp`, `brook_exp2`, `brook_ldexp`.
    Exp,
    /// `brook_log`, `brook_log2`, `brook_log10`.
    Log,
    /// `brook_sin`, `brook_cos`, `brook_tan`.
    Trig,
    /// `brook_atan`, `brook_atan2`.
    Atan,
    /// `brook_asin`, `brook_acos`.
    Asin,
    /// `brook_sinh`, `brook_cosh`, `brook_tanh`.
    Hyperbolic,
    /// `brook_pow`.
    Pow,
}

impl MathFile {
    /// The files this one calls into.
    pub fn needs(self) -> &'static [MathFile] {
        use MathFile::*;
        match self {
            Scale => &[],
            Exp | Log | Trig | Atan | Asin => &[Scale],
            Hyperbolic => &[Scale, Exp],
            Pow => &[Scale, Exp, Log],
        }
    }

    /// The GLSL text: the scalar functions, then vector overloads of the public ones.
    pub fn source(self) -> String {
        let (text, public) = self.parts();
        let mut s = text.to_string();
        for (name, arity) in public {
            s.push_str(&componentwise(name, *arity));
        }
        s
    }

    /// The scalar functions' text, and the public ones with their arities.
    fn parts(self) -> (&'static str, &'static [(&'static str, usize)]) {
        use MathFile::*;
        match self {
            Scale => (include_str!("math/scale.glsl"), &[]),
            Exp => (
                include_str!("math/exp.glsl"),
                &[("brook_exp", 1), ("brook_exp2", 1), ("brook_ldexp", 2)],
            ),
            Log => (
                include_str!("math/log.glsl"),
                &[("brook_log", 1), ("brook_log2", 1), ("brook_log10", 1)],
            ),
            Trig => (
                include_str!("math/trig.glsl"),
                &[("brook_sin", 1), ("brook_cos", 1), ("brook_tan", 1)],
            ),
            Atan => (
                include_str!("math/atan.glsl"),
                &[("brook_atan", 1), ("brook_atan2", 2)],
            ),
            Asin => (
                include_str!("math/asin.glsl"),
                &[("brook_asin", 1), ("brook_acos", 1)],
            ),
            Hyperbolic => (
                include_str!("math/hyperbolic.glsl"),
                &[("brook_sinh", 1), ("brook_cosh", 1), ("brook_tanh", 1)],
            ),
            Pow => (include_str!("math/pow.glsl"), &[("brook_pow", 2)]),
        }
    }

    /// Every file, in the order of emission.
    pub const ALL: [MathFile; 8] = {
        use MathFile::*;
        [Scale, Exp, Log, Trig, Atan, Asin, Hyperbolic, Pow]
    };
}

/// The scalar functions of every file, in order, as one GLSL text (no vector overloads): what a
/// backend that compiles GLSL itself parses (the wgpu backend, through naga's GLSL front end).
pub fn scalar_library() -> String {
    MathFile::ALL.iter().map(|f| f.parts().0).collect()
}

/// `vecN NAME(vecN a, …)` for N = 2..4, applying the scalar `NAME` to each component.
fn componentwise(name: &str, arity: usize) -> String {
    let mut s = String::new();
    for n in 2..=4 {
        let params: Vec<String> = (0..arity).map(|a| format!("vec{n} a{a}")).collect();
        let comps: Vec<String> = ["x", "y", "z", "w"][..n]
            .iter()
            .map(|c| {
                let args: Vec<String> = (0..arity).map(|a| format!("a{a}.{c}")).collect();
                format!("{name}({})", args.join(", "))
            })
            .collect();
        s.push_str(&format!(
            "vec{n} {name}({}) {{ return vec{n}({}); }}\n",
            params.join(", "),
            comps.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_overloads_apply_the_scalar_function_per_component() {
        assert!(MathFile::Pow
            .source()
            .contains("vec2 brook_pow(vec2 a0, vec2 a1) { return vec2(brook_pow(a0.x, a1.x), brook_pow(a0.y, a1.y)); }"));
    }

    #[test]
    fn every_file_needs_only_files_emitted_before_it() {
        for f in MathFile::ALL {
            assert!(f.needs().iter().all(|n| *n < f), "{f:?}");
        }
    }
}
