//! Filling a pass's uniforms from a call's arguments.

use brook_frontend::ir::{Function, Scalar, Type};
use brook_glsl::UniformValue;
use brook_texture_streams::{Layout, Stream};
use glow::HasContext;

use crate::args::KernelArg;

/// A layout's extents as the shader's `ivec4`: `.x` the last dimension, 1 where unused.
pub fn extent_vector(shape: &[usize]) -> [i32; 4] {
    let mut e = [1i32; 4];
    for (k, extent) in shape.iter().rev().enumerate().take(4) {
        e[k] = *extent as i32;
    }
    e
}

/// Sets one uniform; the caller has the pass's program in use.
pub fn set_uniform(
    gl: &glow::Context,
    location: Option<&glow::UniformLocation>,
    value: UniformValue,
    func: &Function,
    args: &[KernelArg],
    output: &Layout,
) -> Result<(), String> {
    let Some(location) = location else {
        return Ok(());
    };
    let stream = |p: u32| -> Result<&Stream, String> {
        match args[p as usize] {
            KernelArg::Stream(s) | KernelArg::Gather(s) | KernelArg::Out(s) => Ok(s),
            _ => Err(format!(
                "parameter `{}` needs a stream",
                func.params[p as usize].name
            )),
        }
    };
    let iter_shape = |p: u32| match args[p as usize] {
        KernelArg::Iter(it) => Some(it.shape().to_vec()),
        _ => None,
    };
    let ivec4 = |e: [i32; 4]| unsafe { gl.uniform_4_i32(Some(location), e[0], e[1], e[2], e[3]) };
    match value {
        UniformValue::Constant(p) => {
            let KernelArg::Constant(data) = args[p as usize] else {
                return Err(format!(
                    "parameter `{}` needs a constant",
                    func.params[p as usize].name
                ));
            };
            set_constant(gl, location, &func.params[p as usize].ty, data)
                .map_err(|e| format!("constant `{}`: {e}", func.params[p as usize].name))?;
        }
        UniformValue::Extent(p) => match iter_shape(p) {
            Some(shape) => ivec4(extent_vector(&shape)),
            None => ivec4(extent_vector(stream(p)?.layout().shape())),
        },
        UniformValue::Width(p) => unsafe {
            gl.uniform_1_i32(Some(location), stream(p)?.layout().width() as i32)
        },
        UniformValue::OutputExtent => ivec4(extent_vector(output.shape())),
        UniformValue::OutputWidth => unsafe {
            gl.uniform_1_i32(Some(location), output.width() as i32)
        },
        UniformValue::IterStart(p) | UniformValue::IterStep(p) => {
            let KernelArg::Iter(it) = args[p as usize] else {
                return Err(format!(
                    "parameter `{}` needs an iterator",
                    func.params[p as usize].name
                ));
            };
            let v = if matches!(value, UniformValue::IterStart(_)) {
                it.start()
            } else {
                it.step()
            };
            unsafe { gl.uniform_4_f32(Some(location), v[0], v[1], v[2], v[3]) };
        }
        UniformValue::ReduceBlock | UniformValue::ReduceGroups => {
            return Err("only a reduction pass has block sizes to set".into())
        }
    }
    Ok(())
}

fn set_constant(
    gl: &glow::Context,
    location: &glow::UniformLocation,
    ty: &Type,
    data: &[f32],
) -> Result<(), String> {
    let expect = |n: usize| {
        if data.len() == n {
            Ok(())
        } else {
            Err(format!("expected {n} values, got {}", data.len()))
        }
    };
    let loc = Some(location);
    unsafe {
        match ty {
            Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _) => {
                let n = ty.width().unwrap_or(1) as usize;
                expect(n)?;
                match n {
                    1 => gl.uniform_1_f32_slice(loc, data),
                    2 => gl.uniform_2_f32_slice(loc, data),
                    3 => gl.uniform_3_f32_slice(loc, data),
                    _ => gl.uniform_4_f32_slice(loc, data),
                }
            }
            Type::Scalar(_) | Type::Vector(_, _) => {
                let n = ty.width().unwrap_or(1) as usize;
                expect(n)?;
                let ints: Vec<i32> = data.iter().map(|v| *v as i32).collect();
                match n {
                    1 => gl.uniform_1_i32_slice(loc, &ints),
                    2 => gl.uniform_2_i32_slice(loc, &ints),
                    3 => gl.uniform_3_i32_slice(loc, &ints),
                    _ => gl.uniform_4_i32_slice(loc, &ints),
                }
            }
            // Brook's row-major matrix data is exactly the column-major data of the transposed
            // GLSL matrix the generator uses (see brook-glsl's types.rs): no transpose here.
            Type::Matrix { rows, cols } if rows == cols => {
                expect((*rows as usize) * (*cols as usize))?;
                match rows {
                    2 => gl.uniform_matrix_2_f32_slice(loc, false, data),
                    3 => gl.uniform_matrix_3_f32_slice(loc, false, data),
                    _ => gl.uniform_matrix_4_f32_slice(loc, false, data),
                }
            }
            _ => return Err(
                "only float, int and bool scalars, vectors and square matrices can be constants"
                    .into(),
            ),
        }
    }
    Ok(())
}
