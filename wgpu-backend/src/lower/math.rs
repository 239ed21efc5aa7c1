//! Cg's transcendental built-ins (`exp`, `log`, `sin`, `atan2`, `pow`, …) as GL computes them:
//! GL's math library (`brook_math::scalar_library`, the `math/glsl/*.glsl` files), parsed once with
//! naga's GLSL front end into a naga module that every shader module starts from
//! (`ShaderModule::new`), so a kernel calls `brook_exp` by handle and both backends run the
//! same range reductions, polynomials and special-value rules. naga's own `exp`, `sin`, … are
//! the driver's, and lavapipe's miss the accuracy contract (`brook_ir::accuracy`): `exp`
//! by up to 60 ulp near 88, `sin(1e20)` is 1, `atan(-0)` is +0, `pow(0, -1)` is 0.
//!
//! Functions a shader does not call are dropped when its module is finished
//! (`module::validate` compacts it), so the driver compiles only what is used.

use std::sync::OnceLock;

use naga::{Function, Handle};

/// The library as a naga module: its scalar functions, their types and constants, and no
/// entry point.
pub fn library() -> &'static naga::Module {
    static LIBRARY: OnceLock<naga::Module> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        // The GLSL front end parses whole shaders: a version and an empty compute entry point
        // around the functions, which it keeps though nothing calls them.
        let text = format!(
            "#version 450\nlayout(local_size_x = 1) in;\n{}\nvoid main() {{}}\n",
            brook_math::scalar_library()
        );
        let options = naga::front::glsl::Options::from(naga::ShaderStage::Compute);
        let mut module = naga::front::glsl::Frontend::default()
            .parse(&options, &text)
            .unwrap_or_else(|e| panic!("brook's math library does not parse as GLSL: {e:?}"));
        module.entry_points.clear();
        module
    })
}

/// The handle of library function `name` (`brook_exp`, …), valid in every shader module,
/// which starts from [`library`].
pub fn function(name: &str) -> Handle<Function> {
    library()
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(name))
        .map(|(h, _)| h)
        .unwrap_or_else(|| panic!("brook's math library has no `{name}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_parses_and_validates_with_its_public_functions() {
        let m = library();
        for name in [
            "brook_exp",
            "brook_exp2",
            "brook_log",
            "brook_log2",
            "brook_log10",
            "brook_sin",
            "brook_cos",
            "brook_tan",
            "brook_asin",
            "brook_acos",
            "brook_atan",
            "brook_atan2",
            "brook_sinh",
            "brook_cosh",
            "brook_tanh",
            "brook_pow",
            "brook_ldexp",
        ] {
            assert!(m.functions[function(name)].result.is_some(), "{name}");
        }
        let mut v = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        );
        let info = v.validate(m).unwrap_or_else(|e| panic!("{e:?}"));
        // Traces show a shader as WGSL: the library must be writable as WGSL too.
        let wgsl = crate::lower::module::wgsl(m, &info);
        assert!(
            wgsl.contains("fn brook_sin(") && wgsl.contains("fn brook_pow("),
            "{wgsl}"
        );
    }
}
