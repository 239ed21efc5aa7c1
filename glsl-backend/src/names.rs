//! Brook names as GLSL identifiers.
//!
//! Generated shaders keep the Brook names so students can read them; only a name GLSL reserves
//! (a keyword, a built-in function we call, a `gl_` prefix, a double underscore) or one of our own
//! `brook_` names is changed, by a `_b` suffix that no reserved word has.

const RESERVED: &[&str] = &[
    "attribute",
    "const",
    "uniform",
    "varying",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "float",
    "int",
    "void",
    "bool",
    "true",
    "false",
    "invariant",
    "discard",
    "return",
    "mat2",
    "mat3",
    "mat4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "vec2",
    "vec3",
    "vec4",
    "ivec2",
    "ivec3",
    "ivec4",
    "bvec2",
    "bvec3",
    "bvec4",
    "uint",
    "uvec2",
    "uvec3",
    "uvec4",
    "lowp",
    "mediump",
    "highp",
    "precision",
    "sampler2D",
    "sampler3D",
    "samplerCube",
    "struct",
    "common",
    "partition",
    "active",
    "asm",
    "class",
    "union",
    "enum",
    "typedef",
    "template",
    "this",
    "packed",
    "resource",
    "goto",
    "inline",
    "noinline",
    "volatile",
    "public",
    "static",
    "extern",
    "external",
    "interface",
    "long",
    "short",
    "double",
    "half",
    "fixed",
    "unsigned",
    "superp",
    "input",
    "output",
    "hvec2",
    "hvec3",
    "hvec4",
    "dvec2",
    "dvec3",
    "dvec4",
    "fvec2",
    "fvec3",
    "fvec4",
    "filter",
    "sizeof",
    "cast",
    "namespace",
    "using",
    "main",
    "texture",
    "texelFetch",
    "mix",
    "fract",
    "inversesqrt",
    "lessThan",
    "lessThanEqual",
    "greaterThan",
    "greaterThanEqual",
    "equal",
    "notEqual",
    "not",
    "trunc",
    "sign",
    "floor",
    "abs",
    "clamp",
    "exp2",
    "log2",
    "atan",
    "isnan",
    "isinf",
    "any",
    "all",
    "dot",
    "min",
    "max",
    "step",
];

/// The GLSL identifier for a Brook name.
pub fn glsl_name(name: &str) -> String {
    let clashes = RESERVED.contains(&name)
        || name.starts_with("gl_")
        || name.starts_with("brook_")
        || name.contains("__")
        || name.ends_with('_');
    if clashes {
        format!("{}_b", name.trim_end_matches('_').replace("__", "_U"))
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::glsl_name;

    #[test]
    fn plain_names_are_kept_and_reserved_ones_renamed() {
        assert_eq!(glsl_name("result"), "result");
        assert_eq!(glsl_name("input"), "input_b");
        assert_eq!(glsl_name("gl_Position"), "gl_Position_b");
        assert_eq!(glsl_name("a__b"), "a_Ub_b");
        assert_eq!(glsl_name("mix"), "mix_b");
        assert_eq!(glsl_name("x_"), "x_b");
    }
}
