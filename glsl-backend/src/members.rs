//! How a stream parameter's elements are stored: one float texture per member.

use brook_ir::{Function, Module, ParamClass, Scalar, Type};

use crate::error::GenError;
use crate::names::glsl_name;
use crate::pass::MemberRef;
use crate::types::glsl_type;

/// The float members (name suffix, components) a stream of element type `ty` is stored as.
pub fn stream_members(module: &Module, ty: &Type) -> Result<Vec<(String, u8)>, GenError> {
    let float_width = |t: &Type| match t {
        Type::Scalar(Scalar::Float) => Some(1),
        Type::Vector(Scalar::Float, n) => Some(*n),
        _ => None,
    };
    let members = match ty {
        Type::Struct(id) => {
            let def = module.struct_def(*id);
            def.members
                .iter()
                .map(|m| float_width(&m.ty).map(|w| (glsl_name(&m.name), w)))
                .collect::<Option<Vec<_>>>()
        }
        t => float_width(t).map(|w| vec![(String::new(), w)]),
    };
    members.ok_or_else(|| {
        GenError::Unsupported(format!(
            "streams of `{}` cannot be stored in float textures: stream elements are float, float2, float3, float4 or structs of them",
            glsl_type(module, ty)
        ))
    })
}

/// Every member of every parameter of `class`, in parameter order, with its component count.
pub fn member_slots(
    module: &Module,
    func: &Function,
    class: ParamClass,
) -> Result<Vec<(MemberRef, u8)>, GenError> {
    let mut slots = Vec::new();
    for (i, p) in func.params.iter().enumerate() {
        if p.class == class {
            for (m, (_, width)) in stream_members(module, &p.ty)?.into_iter().enumerate() {
                slots.push((
                    MemberRef {
                        param: i as u32,
                        member: m as u32,
                    },
                    width,
                ));
            }
        }
    }
    Ok(slots)
}
