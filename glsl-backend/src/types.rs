//! Brook types as GLSL types.
//!
//! Cg matrices are row-major (`float2x3` is 2 rows of 3) while GLSL's are column-major
//! (`mat2x3` is 2 *columns* of 3). A Cg `floatRxC` is therefore kept as its transpose, the GLSL
//! `matRxC`: the constructor's column-major fill then matches Cg's row-major fill, `m[i]` is row
//! `i` in both, and `mul` swaps its operands (see `builtins.rs`).

use brook_ir::{Module, Scalar, Type};

use crate::names::glsl_name;

/// The GLSL spelling of a type (arrays give their element type; see [`array_suffix`]).
pub fn glsl_type(module: &Module, ty: &Type) -> String {
    match ty {
        Type::Void => "void".into(),
        Type::Scalar(s) => scalar_name(*s).into(),
        Type::Vector(s, n) => format!("{}vec{n}", vector_prefix(*s)),
        Type::Matrix { rows, cols } if rows == cols => format!("mat{rows}"),
        Type::Matrix { rows, cols } => format!("mat{rows}x{cols}"),
        Type::Struct(id) => glsl_name(&module.struct_def(*id).name),
        Type::Array(elem, _) => glsl_type(module, elem),
    }
}

/// `[N]` after a declarator of array type, empty otherwise.
pub fn array_suffix(ty: &Type) -> String {
    match ty {
        Type::Array(elem, n) => format!("[{n}]{}", array_suffix(elem)),
        _ => String::new(),
    }
}

fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::Float => "float",
        Scalar::Int => "int",
        Scalar::Bool => "bool",
    }
}

fn vector_prefix(s: Scalar) -> &'static str {
    match s {
        Scalar::Float => "",
        Scalar::Int => "i",
        Scalar::Bool => "b",
    }
}

/// A zero of the type, used for locals declared without an initialiser (Brook back ends agree
/// that they start at zero, where C and GLSL would leave them undefined).
pub fn zero_value(module: &Module, ty: &Type) -> String {
    match ty {
        Type::Scalar(Scalar::Float) => "0.0".into(),
        Type::Scalar(Scalar::Int) => "0".into(),
        Type::Scalar(Scalar::Bool) => "false".into(),
        Type::Vector(s, _) => format!(
            "{}({})",
            glsl_type(module, ty),
            zero_value(module, &Type::Scalar(*s))
        ),
        Type::Matrix { .. } => format!("{}(0.0)", glsl_type(module, ty)),
        Type::Struct(id) => {
            let def = module.struct_def(*id);
            let parts: Vec<String> = def
                .members
                .iter()
                .map(|m| zero_value(module, &m.ty))
                .collect();
            format!("{}({})", glsl_name(&def.name), parts.join(", "))
        }
        Type::Array(elem, n) => {
            let parts: Vec<String> = (0..*n).map(|_| zero_value(module, elem)).collect();
            format!(
                "{}{}({})",
                glsl_type(module, ty),
                array_suffix(ty),
                parts.join(", ")
            )
        }
        Type::Void => String::new(),
    }
}

/// The GLSL struct declarations of every Brook struct, in declaration order.
pub fn struct_declarations(module: &Module) -> String {
    let mut out = String::new();
    for def in &module.structs {
        out.push_str(&format!("struct {} {{\n", glsl_name(&def.name)));
        for m in &def.members {
            out.push_str(&format!(
                "    {} {}{};\n",
                glsl_type(module, &m.ty),
                glsl_name(&m.name),
                array_suffix(&m.ty)
            ));
        }
        out.push_str("};\n");
    }
    out
}
