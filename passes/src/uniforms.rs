//! Filling a pass's uniforms.
//!
//! Values are computed when a pass is encoded ([`uniforms_of`], from what the mechanism knows:
//! a kernel call's arguments, a reduction step's block sizes, a scatter's streams) and set
//! when it is executed ([`apply`]), so the pass trace shows exactly what each uniform held.

use brook_core::index::resize_ratio;
use brook_core::UniformData;
use brook_glsl::UniformValue;
use brook_ir::{Function, Module, Scalar, Type};
use glow::HasContext;

use crate::args::{KernelArg, StreamArg};
use crate::linked::LinkedPass;

/// The value of every uniform of `pass` the driver kept, by slot, from `value`.
pub fn uniforms_of(
    pass: &LinkedPass,
    mut value: impl FnMut(UniformValue) -> Result<UniformData, String>,
) -> Result<Vec<(usize, UniformData)>, String> {
    let mut set = Vec::with_capacity(pass.plan.uniforms.len());
    for (slot, (uniform, location)) in pass.plan.uniforms.iter().zip(&pass.locations).enumerate() {
        if location.is_some() {
            set.push((slot, value(uniform.value)?));
        }
    }
    Ok(set)
}

/// A layout's extents as the shader's `ivec4`: `.x` the last dimension, 1 where unused.
pub fn extent_vector(shape: &[usize]) -> [i32; 4] {
    vector(shape, 1)
}

/// Outermost-first coordinates as an `ivec4` with `.x` the last dimension, `fill` where unused.
fn vector(coords: &[usize], fill: i32) -> [i32; 4] {
    let mut e = [fill; 4];
    for (k, c) in coords.iter().rev().enumerate().take(4) {
        e[k] = *c as i32;
    }
    e
}

/// What uniform `value` holds for this call; `output` is the call's first output.
pub fn uniform_data(
    value: UniformValue,
    module: &Module,
    func: &Function,
    args: &[KernelArg],
    output: &StreamArg,
) -> Result<UniformData, String> {
    let param = |p: u32| &func.params[p as usize];
    let stream = |p: u32| -> Result<StreamArg, String> {
        args[p as usize]
            .stream()
            .ok_or_else(|| format!("parameter `{}` needs a stream", param(p).name))
    };
    // The shape a stream or iterator parameter has in the call.
    let shape_of = |p: u32| -> Result<Vec<usize>, String> {
        match args[p as usize] {
            KernelArg::Iter(it) => Ok(it.shape().to_vec()),
            _ => Ok(stream(p)?.shape().to_vec()),
        }
    };
    let ints = |v: [i32; 4]| Ok(UniformData::Ints(v.to_vec()));
    match value {
        UniformValue::Constant(p) => {
            let KernelArg::Constant(data) = args[p as usize] else {
                return Err(format!("parameter `{}` needs a constant", param(p).name));
            };
            constant_data(&param(p).ty, data)
                .map_err(|e| format!("constant `{}`: {e}", param(p).name))
        }
        UniformValue::ConstantMember { param: p, member } => {
            let KernelArg::Constant(data) = args[p as usize] else {
                return Err(format!("parameter `{}` needs a constant", param(p).name));
            };
            struct_member_data(module, &param(p).ty, member, data)
                .map_err(|e| format!("constant `{}`: {e}", param(p).name))
        }
        UniformValue::Extent(p) => ints(extent_vector(&shape_of(p)?)),
        UniformValue::ResizeFrom {
            param: p,
            scale_from,
        }
        | UniformValue::ResizeTo {
            param: p,
            scale_from,
        } => {
            let from = match scale_from {
                None => extent_vector(&output.shape()),
                Some(q) => extent_vector(&shape_of(q)?),
            };
            let to = extent_vector(&shape_of(p)?);
            let to_side = matches!(value, UniformValue::ResizeTo { .. });
            ints(std::array::from_fn(|k| {
                let (f, t) = resize_ratio(from[k] as usize, to[k] as usize);
                (if to_side { t } else { f }) as i32
            }))
        }
        UniformValue::Width(p) => Ok(UniformData::Ints(vec![
            stream(p)?.stream.layout().width() as i32
        ])),
        UniformValue::StreamExtent(p) => ints(extent_vector(stream(p)?.stream.layout().shape())),
        UniformValue::Lo(p) => ints(vector(&stream(p)?.lo(), 0)),
        UniformValue::OutputExtent => ints(extent_vector(&output.shape())),
        UniformValue::OutputWidth => Ok(UniformData::Ints(vec![
            output.stream.layout().width() as i32
        ])),
        UniformValue::OutputStreamExtent => ints(extent_vector(output.stream.layout().shape())),
        UniformValue::ElementCount => {
            Ok(UniformData::Ints(vec![output.stream.layout().len() as i32]))
        }
        UniformValue::OutputLo => ints(vector(&output.lo(), 0)),
        UniformValue::IterStart(p) | UniformValue::IterStep(p) => {
            let KernelArg::Iter(it) = args[p as usize] else {
                return Err(format!("parameter `{}` needs an iterator", param(p).name));
            };
            let v = if matches!(value, UniformValue::IterStart(_)) {
                it.start()
            } else {
                it.step()
            };
            Ok(UniformData::Floats(v.to_vec()))
        }
        other => Err(format!("a kernel pass has no uniform {other:?}")),
    }
}

/// Sets one uniform; the caller has the pass's program in use.
pub fn apply(gl: &glow::Context, location: &glow::UniformLocation, data: &UniformData) {
    let loc = Some(location);
    // SAFETY: the pass's program, which owns `location`, is current on this context.
    unsafe {
        match data {
            UniformData::Floats(v) => match v.len() {
                1 => gl.uniform_1_f32_slice(loc, v),
                2 => gl.uniform_2_f32_slice(loc, v),
                3 => gl.uniform_3_f32_slice(loc, v),
                _ => gl.uniform_4_f32_slice(loc, v),
            },
            UniformData::Ints(v) => match v.len() {
                1 => gl.uniform_1_i32_slice(loc, v),
                2 => gl.uniform_2_i32_slice(loc, v),
                3 => gl.uniform_3_i32_slice(loc, v),
                _ => gl.uniform_4_i32_slice(loc, v),
            },
            UniformData::Matrix { rows, cols, data } => match (rows, cols) {
                (2, 2) => gl.uniform_matrix_2_f32_slice(loc, false, data),
                (3, 3) => gl.uniform_matrix_3_f32_slice(loc, false, data),
                (2, 3) => gl.uniform_matrix_2x3_f32_slice(loc, false, data),
                (2, 4) => gl.uniform_matrix_2x4_f32_slice(loc, false, data),
                (3, 2) => gl.uniform_matrix_3x2_f32_slice(loc, false, data),
                (3, 4) => gl.uniform_matrix_3x4_f32_slice(loc, false, data),
                (4, 2) => gl.uniform_matrix_4x2_f32_slice(loc, false, data),
                (4, 3) => gl.uniform_matrix_4x3_f32_slice(loc, false, data),
                _ => gl.uniform_matrix_4_f32_slice(loc, false, data),
            },
        }
    }
}

/// Whether two values set a uniform to the same bits (`-0.0` is not `0.0` to a shader that
/// divides by it, and a NaN is its own value).
pub fn same_bits(a: &UniformData, b: &UniformData) -> bool {
    let floats = |x: &[f32], y: &[f32]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
    };
    match (a, b) {
        (UniformData::Ints(x), UniformData::Ints(y)) => x == y,
        (UniformData::Floats(x), UniformData::Floats(y)) => floats(x, y),
        (
            UniformData::Matrix { rows, cols, data },
            UniformData::Matrix {
                rows: r,
                cols: c,
                data: d,
            },
        ) => (rows, cols) == (r, c) && floats(data, d),
        _ => false,
    }
}

fn constant_data(ty: &Type, data: &[f32]) -> Result<UniformData, String> {
    let expect = |n: usize| {
        if data.len() == n {
            Ok(())
        } else {
            Err(format!("expected {n} values, got {}", data.len()))
        }
    };
    match ty {
        Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _) => {
            expect(ty.width().unwrap_or(1) as usize)?;
            Ok(UniformData::Floats(data.to_vec()))
        }
        Type::Scalar(_) | Type::Vector(_, _) => {
            expect(ty.width().unwrap_or(1) as usize)?;
            Ok(UniformData::Ints(data.iter().map(|v| *v as i32).collect()))
        }
        // Brook's row-major matrix data is exactly the column-major data of the transposed
        // GLSL matrix the generator uses (see brook-glsl's types.rs): no transpose here.
        Type::Matrix { rows, cols } => {
            expect((*rows as usize) * (*cols as usize))?;
            Ok(UniformData::Matrix {
                rows: *rows,
                cols: *cols,
                data: data.to_vec(),
            })
        }
        _ => Err("only float, int and bool scalars, vectors and matrices can be constants".into()),
    }
}

/// The uniform data of member `member` of a struct constant given as the struct's floats in C
/// layout (members back to back).
fn struct_member_data(
    module: &Module,
    ty: &Type,
    member: u32,
    data: &[f32],
) -> Result<UniformData, String> {
    let Type::Struct(id) = ty else {
        return Err("not a struct".into());
    };
    let floats = |t: &Type| match t {
        Type::Matrix { rows, cols } => (*rows as usize) * (*cols as usize),
        t => t.width().unwrap_or(1) as usize,
    };
    let members = &module.struct_def(*id).members;
    let total: usize = members.iter().map(|m| floats(&m.ty)).sum();
    if data.len() != total {
        return Err(format!("expected {total} values, got {}", data.len()));
    }
    let start: usize = members[..member as usize]
        .iter()
        .map(|m| floats(&m.ty))
        .sum();
    let ty = &members[member as usize].ty;
    constant_data(ty, &data[start..start + floats(ty)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bits_tells_signed_zeros_apart_and_matches_nans() {
        let f = |v: Vec<f32>| UniformData::Floats(v);
        assert!(same_bits(&f(vec![1.0, 2.0]), &f(vec![1.0, 2.0])));
        assert!(!same_bits(&f(vec![0.0]), &f(vec![-0.0])));
        assert!(same_bits(&f(vec![f32::NAN]), &f(vec![f32::NAN])));
        assert!(!same_bits(&f(vec![1.0]), &f(vec![1.0, 1.0])));
        assert!(!same_bits(&f(vec![1.0]), &UniformData::Ints(vec![1])));
        let m = |d: Vec<f32>| UniformData::Matrix {
            rows: 2,
            cols: 2,
            data: d,
        };
        assert!(same_bits(&m(vec![1.0; 4]), &m(vec![1.0; 4])));
        assert!(!same_bits(&m(vec![1.0; 4]), &m(vec![1.0, 1.0, 1.0, -1.0])));
    }
}
