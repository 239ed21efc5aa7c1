//! The arguments of a kernel call on GL, and the shader variant they select.

use brook_frontend::ir::{Function, ParamClass};
use brook_glsl::{Access, Variant};
use brook_texture_streams::{IterSpec, Stream};

/// One argument per kernel parameter, in order.
#[derive(Clone, Copy)]
pub enum KernelArg<'a> {
    /// An input stream (`T a<>`), read at each output element (resized if its shape differs).
    Stream(&'a Stream),
    /// An iterator stream passed to a `T a<>` or `iter T a<>` parameter.
    Iter(&'a IterSpec),
    /// A gather stream (`T a[]`).
    Gather(&'a Stream),
    /// A constant's floats in C layout (a `float4` is 4 floats; an `int` its value).
    Constant(&'a [f32]),
    /// An output stream (`out T a<>`).
    Out(&'a Stream),
}

impl KernelArg<'_> {
    fn describe(&self) -> &'static str {
        match self {
            KernelArg::Stream(_) => "an input stream",
            KernelArg::Iter(_) => "an iterator",
            KernelArg::Gather(_) => "a gather stream",
            KernelArg::Constant(_) => "a constant",
            KernelArg::Out(_) => "an output stream",
        }
    }
}

/// The shader variant for these arguments, or why they do not fit the kernel's parameters.
pub fn variant_for(
    func: &Function,
    args: &[KernelArg],
    output_shape: &[usize],
) -> Result<Variant, String> {
    if args.len() != func.params.len() {
        return Err(format!(
            "takes {} arguments but {} were given",
            func.params.len(),
            args.len()
        ));
    }
    let mut params = Vec::with_capacity(args.len());
    for (p, arg) in func.params.iter().zip(args) {
        let access = match (p.class, arg) {
            (ParamClass::Stream, KernelArg::Stream(s)) if s.layout().shape() == output_shape => {
                Access::AtFragment
            }
            (ParamClass::Stream, KernelArg::Stream(_)) => Access::Resized,
            (ParamClass::Stream | ParamClass::Iter, KernelArg::Iter(it))
                if it.shape().len() == 2 =>
            {
                Access::Iter2
            }
            (ParamClass::Stream | ParamClass::Iter, KernelArg::Iter(_)) => Access::Iter1,
            (ParamClass::Gather { .. }, KernelArg::Gather(g)) if g.layout().is_translated() => {
                Access::GatherTranslated
            }
            (ParamClass::Gather { .. }, KernelArg::Gather(_)) => Access::GatherDirect,
            (ParamClass::Constant, KernelArg::Constant(_))
            | (ParamClass::Out, KernelArg::Out(_)) => Access::Value,
            (class, arg) => {
                return Err(format!(
                    "parameter `{}` is {} but the call passes {}",
                    p.name,
                    class_name(class),
                    arg.describe()
                ))
            }
        };
        params.push(access);
    }
    Ok(Variant { params })
}

fn class_name(class: ParamClass) -> &'static str {
    match class {
        ParamClass::Stream => "an input stream",
        ParamClass::Out => "an output stream",
        ParamClass::Gather { .. } => "a gather stream",
        ParamClass::Constant => "a constant",
        ParamClass::Iter => "an iterator",
        ParamClass::Reduce => "a reduction accumulator",
        ParamClass::Vout { .. } => "a vout stream",
    }
}
