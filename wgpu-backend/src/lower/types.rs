//! Brook types as naga types.
//!
//! - `float`, `int`, `bool` are `f32`, `i32`, `bool`; `floatN`.. are vectors.
//! - `floatRxC` is a naga matrix whose *columns* are the Brook rows (`matRxC<f32>` in WGSL,
//!   R columns of C floats), so `m[i]` is Brook's row `i` with no transposition, and Cg's
//!   `mul` swaps its operands (see `builtins.rs`), as the GLSL back end does.
//! - Structs become naga structs laid out by naga's rules; local arrays fixed-size arrays.

use brook_ir::{self as ir, Scalar as BScalar, Type as BType};
use naga::{Handle, Scalar, StructMember, Type, TypeInner};

use super::builder::{vector_size, Types};

pub fn scalar(s: BScalar) -> Scalar {
    match s {
        BScalar::Float => Scalar::F32,
        BScalar::Int => Scalar::I32,
        BScalar::Bool => Scalar::BOOL,
    }
}

/// The naga type of a Brook value type (`Void` has none).
pub fn naga_type(types: &mut Types, module: &ir::Module, ty: &BType) -> Option<Handle<Type>> {
    Some(match ty {
        BType::Void => return None,
        BType::Scalar(s) => types.scalar(scalar(*s)),
        BType::Vector(s, n) => types.vector(scalar(*s), *n),
        BType::Matrix { rows, cols } => types.get(TypeInner::Matrix {
            columns: vector_size(*rows).expect("2 to 4 rows"),
            rows: vector_size(*cols).expect("2 to 4 columns"),
            scalar: Scalar::F32,
        }),
        BType::Struct(id) => {
            let def = module.struct_def(*id);
            let mut members = Vec::with_capacity(def.members.len());
            let mut end = 0u32;
            let mut align = 1u32;
            for m in &def.members {
                let t = naga_type(types, module, &m.ty).expect("struct members have types");
                let l = types.layout(t);
                let offset = l.alignment.round_up(end);
                end = offset + l.size;
                align = align.max(l.alignment.round_up(1));
                members.push(StructMember {
                    name: Some(m.name.clone()),
                    ty: t,
                    binding: None,
                    offset,
                });
            }
            let span = end.div_ceil(align) * align;
            types.named(&def.name, TypeInner::Struct { members, span })
        }
        BType::Array(elem, n) => {
            let base = naga_type(types, module, elem).expect("array elements have types");
            types.array_of(base, *n)
        }
    })
}

/// The naga type of a Brook type that is known to be a value type.
pub fn value_type(types: &mut Types, module: &ir::Module, ty: &BType) -> Handle<Type> {
    naga_type(types, module, ty).expect("a value type, not void")
}
