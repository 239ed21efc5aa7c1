//! A GL stream's storage behind the runtime's opaque handle, and the borrows a call holds.

use std::any::Any;
use std::cell::{Ref, RefCell, RefMut};
use std::fmt::Display;

use brook_core::{BackendArg, BrookError, Domain, IterSpec, StreamArg};
use brook_ir::{Function, ParamClass};
use brook_texture_streams::Stream as GlStream;

use crate::args::{KernelArg, StreamArg as GlArg};

/// GL storage of one user stream: textures, or an iterator computed in the shader.
pub enum GlStorage {
    Textures(RefCell<GlStream>),
    Iter(IterSpec),
}

fn in_use(call: &dyn Display) -> BrookError {
    BrookError::State {
        call: call.to_string(),
        message:
            "the stream's textures are borrowed (a `gl_textures()` guard is alive); drop it first"
                .into(),
    }
}

fn storage<'a>(any: &'a dyn Any, call: &dyn Display) -> Result<&'a GlStorage, BrookError> {
    any.downcast_ref::<GlStorage>()
        .ok_or_else(|| BrookError::ForeignStream {
            call: call.to_string(),
        })
}

/// The textures of a stream that is not an iterator, borrowed for reading.
pub fn textures<'a>(
    s: &StreamArg<'a>,
    call: &dyn Display,
) -> Result<Ref<'a, GlStream>, BrookError> {
    match storage(s.storage, call)? {
        GlStorage::Textures(t) => t.try_borrow().map_err(|_| in_use(call)),
        GlStorage::Iter(_) => Err(BrookError::ArgumentType {
            call: call.to_string(),
            param: String::new(),
            message: "an iterator has no textures; copy it into a stream with a kernel first"
                .into(),
        }),
    }
}

/// The textures of a stream that is not an iterator, borrowed for replacing.
pub fn textures_mut<'a>(
    any: &'a dyn Any,
    call: &dyn Display,
) -> Result<RefMut<'a, GlStream>, BrookError> {
    match storage(any, call)? {
        GlStorage::Textures(t) => t.try_borrow_mut().map_err(|_| in_use(call)),
        GlStorage::Iter(_) => Err(BrookError::ArgumentType {
            call: call.to_string(),
            param: String::new(),
            message: "an iterator stream is computed, it has no storage".into(),
        }),
    }
}

/// The textures behind a GL stream's storage for an application's own rendering; `None` for
/// an iterator or a stream of another backend, an error while the runtime is using it.
pub fn gl_textures(any: &dyn Any) -> Option<Result<Ref<'_, GlStream>, BrookError>> {
    match any.downcast_ref::<GlStorage>()? {
        GlStorage::Textures(t) => Some(t.try_borrow().map_err(|_| in_use(&"gl_textures"))),
        GlStorage::Iter(_) => None,
    }
}

/// One argument of a call, with the borrow that keeps its textures for the call.
pub enum Held<'a> {
    Textures(Ref<'a, GlStream>, Option<&'a Domain>),
    Iter(&'a IterSpec),
    Constant(&'a [f32]),
}

/// Borrows every stream of `args`.
pub fn hold<'a>(args: &[BackendArg<'a>], call: &dyn Display) -> Result<Vec<Held<'a>>, BrookError> {
    args.iter()
        .map(|a| match a {
            BackendArg::Constant(v) => Ok(Held::Constant(v)),
            BackendArg::Stream(s) => match storage(s.storage, call)? {
                GlStorage::Iter(spec) => Ok(Held::Iter(spec)),
                GlStorage::Textures(_) => Ok(Held::Textures(textures(s, call)?, s.domain)),
            },
        })
        .collect()
}

/// The held arguments as the pass encoders take them, their kind from the parameter classes
/// they bind (in order).
pub fn kernel_args<'h>(
    held: &'h [Held<'_>],
    classes: impl Iterator<Item = ParamClass>,
) -> Vec<KernelArg<'h>> {
    held.iter()
        .zip(classes)
        .map(|(h, class)| match h {
            Held::Constant(v) => KernelArg::Constant(v),
            Held::Iter(spec) => KernelArg::Iter(spec),
            Held::Textures(t, domain) => {
                let s = GlArg {
                    stream: t,
                    domain: *domain,
                };
                match class {
                    ParamClass::Out | ParamClass::Vout { .. } => KernelArg::Out(s),
                    ParamClass::Gather { .. } => KernelArg::Gather(s),
                    _ => KernelArg::Stream(s),
                }
            }
        })
        .collect()
}

/// The parameter classes of a reduction's extra arguments: every parameter but its input
/// and accumulator.
pub fn extra_classes(func: &Function) -> impl Iterator<Item = ParamClass> + '_ {
    func.params
        .iter()
        .map(|p| p.class)
        .filter(|c| !matches!(c, ParamClass::Stream | ParamClass::Reduce))
}
