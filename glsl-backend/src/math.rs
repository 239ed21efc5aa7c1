//! Cg's transcendental built-ins as GLSL: the math library's files (`brook_math`), each
//! emitted only when a shader calls into it, with vector overloads applying the scalar
//! functions per component.

pub use brook_math::MathFile;

/// The GLSL text of `file`: its scalar functions, then vector overloads of the public ones.
pub fn source(file: MathFile) -> String {
    let mut s = file.scalar_source().to_string();
    for (name, arity) in file.public() {
        s.push_str(&componentwise(name, *arity));
    }
    s
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
        assert!(source(MathFile::Pow).contains("vec2 brook_pow(vec2 a0, vec2 a1) { return vec2(brook_pow(a0.x, a1.x), brook_pow(a0.y, a1.y)); }"));
    }
}
