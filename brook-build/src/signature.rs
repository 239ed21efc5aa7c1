//! How a kernel parameter is passed from host code, for the C++ stubs and the Rust functions
//! alike: a stream, or a constant of a host type.

use brook_ir::{Module, Param, ParamClass, Scalar, Type};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostParam {
    /// An input, gather or iterator stream.
    Stream,
    /// An output stream.
    Output,
    /// A `vout` output: a whole stream, replaced after the call by the values pushed.
    Vout,
    /// `float`..`float4` (width 1..=4).
    Float(u8),
    /// `int`..`int4`.
    Int(u8),
    Bool,
    /// A `floatRxC` constant (rows, columns), passed row by row.
    Matrix(u8, u8),
    /// A struct constant: its name and its size in floats.
    Struct(String, usize),
    /// A reduction's result: a host value of this form (`Float` or `Struct`), or a stream.
    Reduce(Box<HostParam>),
}

/// The host form of `param`, or why host code cannot pass it.
pub fn host_param(module: &Module, param: &Param) -> Result<HostParam, String> {
    Ok(match param.class {
        ParamClass::Stream | ParamClass::Out | ParamClass::Vout { .. } => {
            element_type(module, param)?;
            match param.class {
                ParamClass::Stream => HostParam::Stream,
                ParamClass::Out => HostParam::Output,
                _ => HostParam::Vout,
            }
        }
        ParamClass::Gather { .. } | ParamClass::Iter => HostParam::Stream,
        ParamClass::Reduce => match constant(module, param)? {
            value @ (HostParam::Float(_) | HostParam::Struct(..)) => {
                HostParam::Reduce(Box::new(value))
            }
            _ => {
                return Err(format!(
                    "parameter `{}`: only float..float4 and structs of them can be reduced from host code",
                    param.name
                ))
            }
        },
        ParamClass::Constant => constant(module, param)?,
    })
}

/// Refuses a stream parameter of a type no stream holds (a struct with `int` or `bool`
/// members, a `bool` stream), so the host call is an error at its line rather than at run
/// time. (`int`..`int4` streams are float ones by then: the front end's `int_streams`.)
fn element_type(module: &Module, param: &Param) -> Result<(), String> {
    match brook_core::ElementFormat::of_type(module, &param.ty) {
        Some(_) => Ok(()),
        None => Err(format!(
            "stream parameter `{}` is of a type streams cannot hold (their elements are float..float4, int..int4, or structs of float..float4)",
            param.name
        )),
    }
}

/// The host form of a value of `param`'s type.
fn constant(module: &Module, param: &Param) -> Result<HostParam, String> {
    Ok(match &param.ty {
        Type::Scalar(Scalar::Float) => HostParam::Float(1),
        Type::Vector(Scalar::Float, n) => HostParam::Float(*n),
        Type::Scalar(Scalar::Int) => HostParam::Int(1),
        Type::Vector(Scalar::Int, n) => HostParam::Int(*n),
        Type::Scalar(Scalar::Bool) => HostParam::Bool,
        Type::Matrix { rows, cols } => HostParam::Matrix(*rows, *cols),
        Type::Struct(id) => {
            let def = module.struct_def(*id);
            let floats = struct_floats(module, &param.ty).ok_or_else(|| {
                format!(
                    "parameter `{}`: struct `{}` has members other than float..float4",
                    param.name, def.name
                )
            })?;
            HostParam::Struct(def.name.clone(), floats)
        }
        other => {
            return Err(format!(
                "parameter `{}`: constants of type {other:?} cannot be passed from host code yet",
                param.name
            ))
        }
    })
}

/// Floats in a struct made only of `float`..`float4` members (the host layout is then packed).
fn struct_floats(module: &Module, ty: &Type) -> Option<usize> {
    let Type::Struct(id) = ty else { return None };
    module
        .struct_def(*id)
        .members
        .iter()
        .map(|m| match m.ty {
            Type::Scalar(Scalar::Float) => Some(1),
            Type::Vector(Scalar::Float, n) => Some(usize::from(n)),
            _ => None,
        })
        .sum()
}
