//! Cg's transcendental built-ins as GLSL of our own (the `glsl/*.glsl` files), so that a kernel's
//! `exp`, `log`, `sin`, `pow`, … meet one accuracy contract whatever the driver's versions do
//! (docs/limits.md; `brook_ir::accuracy` states the bounds). llvmpipe's
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
//! Both GPU backends run these functions: GL emits each file a shader needs, with vector
//! overloads (`brook_glsl`'s `math.rs`); wgpu parses [`scalar_library`] with naga's GLSL front
//! end and calls them from its kernels' naga modules. So the algorithms and coefficients live
//! here only, in a crate of data that neither backend has to depend on the other for.

#![warn(missing_docs)]

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

    /// The scalar functions of the file, as GLSL text.
    pub fn scalar_source(self) -> &'static str {
        self.parts().0
    }

    /// The public functions of the file (those kernels call) with their arities.
    pub fn public(self) -> &'static [(&'static str, usize)] {
        self.parts().1
    }

    /// The scalar functions' text, and the public ones with their arities.
    fn parts(self) -> (&'static str, &'static [(&'static str, usize)]) {
        use MathFile::*;
        match self {
            Scale => (include_str!("../glsl/scale.glsl"), &[]),
            Exp => (
                include_str!("../glsl/exp.glsl"),
                &[("brook_exp", 1), ("brook_exp2", 1), ("brook_ldexp", 2)],
            ),
            Log => (
                include_str!("../glsl/log.glsl"),
                &[("brook_log", 1), ("brook_log2", 1), ("brook_log10", 1)],
            ),
            Trig => (
                include_str!("../glsl/trig.glsl"),
                &[("brook_sin", 1), ("brook_cos", 1), ("brook_tan", 1)],
            ),
            Atan => (
                include_str!("../glsl/atan.glsl"),
                &[("brook_atan", 1), ("brook_atan2", 2)],
            ),
            Asin => (
                include_str!("../glsl/asin.glsl"),
                &[("brook_asin", 1), ("brook_acos", 1)],
            ),
            Hyperbolic => (
                include_str!("../glsl/hyperbolic.glsl"),
                &[("brook_sinh", 1), ("brook_cosh", 1), ("brook_tanh", 1)],
            ),
            Pow => (include_str!("../glsl/pow.glsl"), &[("brook_pow", 2)]),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_needs_only_files_emitted_before_it() {
        for f in MathFile::ALL {
            assert!(f.needs().iter().all(|n| *n < f), "{f:?}");
        }
    }

    #[test]
    fn the_library_holds_every_public_function() {
        let text = scalar_library();
        for f in MathFile::ALL {
            for (name, _) in f.public() {
                assert!(text.contains(&format!("float {name}(")), "{name}");
            }
        }
    }
}
