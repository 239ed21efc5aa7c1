//! The checks every call passes before any backend sees it: argument count, the kind and
//! element type of every argument against its parameter, Brook's aliasing rule, the shapes
//! outputs, reductions, vouts, scatters and gathers need. One place, so every backend accepts
//! and refuses exactly the same calls with the same messages.

use std::fmt::{self, Display};

use brook_frontend::ir::{Function, FunctionKind, Module, ParamClass, Type};

use crate::backend::{BackendArg, Combiner, StreamArg};
use crate::error::{fmt_shape, BrookError};
use crate::format::ElementFormat;
use crate::program::Compiled;
use crate::reduce_plan::ReducePlan;

/// The floats a constant of type `ty` takes in C layout (a `float4` 4, a `float2x2` 4, a
/// struct its members' back to back).
pub fn floats_of(module: &Module, ty: &Type) -> usize {
    match ty {
        Type::Void => 0,
        Type::Scalar(_) => 1,
        Type::Vector(_, n) => usize::from(*n),
        Type::Matrix { rows, cols } => usize::from(*rows) * usize::from(*cols),
        Type::Struct(id) => module
            .struct_def(*id)
            .members
            .iter()
            .map(|m| floats_of(module, &m.ty))
            .sum(),
        Type::Array(elem, n) => floats_of(module, elem) * *n as usize,
    }
}

/// What a parameter of this class takes, for messages.
pub fn class_name(class: ParamClass) -> &'static str {
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

/// How errors name a call (`kernel \`saxpy\``), formatted only when there is an error: the
/// checks run on every call and must cost next to nothing when it is right.
pub struct CallName<'a>(pub &'static str, pub &'a str);

impl Display for CallName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`", self.0, self.1)
    }
}

/// Checks a kernel call and returns its shape: that of its `out` streams (of their domain),
/// or for a kernel writing only vouts, that of its first input stream or iterator.
pub fn check_kernel(
    compiled: &Compiled,
    func: &Function,
    args: &[BackendArg],
) -> Result<Vec<usize>, BrookError> {
    let call = CallName("kernel", &func.name);
    if args.len() != func.params.len() {
        return Err(BrookError::ArgumentCount {
            call: call.to_string(),
            expected: func.params.len(),
            got: args.len(),
        });
    }
    let module = &compiled.module;
    for (arg, p) in args.iter().zip(&func.params) {
        check_argument(module, &call, p, arg)?;
    }
    check_aliasing(&call, func, args)?;
    let shape = check_outputs(&call, func, args)?;
    check_vouts(&call, func, args, &shape)?;
    Ok(shape)
}

/// One argument against its parameter: its kind, and its element type or size.
fn check_argument(
    module: &Module,
    call: &dyn Display,
    p: &brook_frontend::ir::Param,
    arg: &BackendArg,
) -> Result<(), BrookError> {
    let wrong = |message: String| BrookError::ArgumentType {
        call: call.to_string(),
        param: p.name.clone(),
        message,
    };
    let passed = match arg {
        BackendArg::Constant(_) => "a constant",
        BackendArg::Stream(s) if s.iter.is_some() => "an iterator",
        BackendArg::Stream(_) => "a stream",
    };
    let mismatch = || {
        wrong(format!(
            "parameter `{}` is {} but the call passes {passed}",
            p.name,
            class_name(p.class)
        ))
    };
    match (p.class, arg) {
        (ParamClass::Constant, BackendArg::Constant(values)) => {
            let expected = floats_of(module, &p.ty);
            if values.len() != expected {
                return Err(wrong(format!(
                    "constant `{}` needs {expected} value(s), got {}",
                    p.name,
                    values.len()
                )));
            }
            Ok(())
        }
        (ParamClass::Constant, _) | (_, BackendArg::Constant(_)) => Err(mismatch()),
        (ParamClass::Reduce, _) => Err(wrong(format!(
            "parameter `{}` is a reduction accumulator; reduce functions run through reductions, not kernel calls",
            p.name
        ))),
        (ParamClass::Stream | ParamClass::Iter, BackendArg::Stream(s)) if s.iter.is_some() => {
            check_iterator(module, &wrong, p, s)
        }
        (ParamClass::Iter, _) => Err(mismatch()),
        (class, BackendArg::Stream(s)) => {
            if s.iter.is_some() {
                let role = match class {
                    ParamClass::Gather { .. } => "gathered",
                    _ => "an output",
                };
                return Err(wrong(format!(
                    "an iterator cannot be {role} (`{}`); copy it into a stream with a kernel first",
                    p.name
                )));
            }
            if matches!(class, ParamClass::Vout { .. }) && s.domain.is_some() {
                return Err(wrong(format!(
                    "vout `{}` is filled from its front; pass the whole stream, not a domain",
                    p.name
                )));
            }
            check_format(module, &wrong, p, s.format)
        }
    }
}

/// A stream's element format against the parameter's element type (Brook has no implicit
/// conversion between stream types: a `float4` stream is not a `float` one).
fn check_format(
    module: &Module,
    wrong: &dyn Fn(String) -> BrookError,
    p: &brook_frontend::ir::Param,
    format: &ElementFormat,
) -> Result<(), BrookError> {
    match (format.holds(module, &p.ty), ElementFormat::of_type(module, &p.ty)) {
        (Some(true), _) => Ok(()),
        (_, Some(wanted)) => Err(wrong(format!(
            "`{}` takes elements of member widths {:?}, but the stream passed has {:?}",
            p.name,
            wanted.widths(),
            format.widths()
        ))),
        (_, None) => Err(wrong(format!(
            "`{}` has a type that streams cannot hold; stream elements are float..float4 or structs of them",
            p.name
        ))),
    }
}

fn check_iterator(
    module: &Module,
    wrong: &dyn Fn(String) -> BrookError,
    p: &brook_frontend::ir::Param,
    s: &StreamArg,
) -> Result<(), BrookError> {
    if s.domain.is_some() {
        return Err(wrong(format!(
            "a domain of an iterator stream cannot be passed to `{}`; make an iterator of the domain's range instead",
            p.name
        )));
    }
    match s.format.holds(module, &p.ty) {
        Some(true) if !matches!(p.ty, Type::Struct(_)) => Ok(()),
        _ => Err(wrong(format!(
            "iterator `{}`: the parameter's type needs a float..float4 iterator of its width, but the iterator has {} float component(s)",
            p.name,
            s.format.floats_per_element()
        ))),
    }
}

/// Brook's rule for one stream in several roles of a call: it may be an input and an output
/// (in place: every element reads the old values), but not two outputs, and not gathered and
/// written, since a gather may read any element.
fn check_aliasing(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
) -> Result<(), BrookError> {
    let stream = |a: &BackendArg| match a {
        BackendArg::Stream(s) => Some(s.storage as *const dyn std::any::Any as *const ()),
        BackendArg::Constant(_) => None,
    };
    for (i, (a, p)) in args.iter().zip(&func.params).enumerate() {
        if !p.class.is_output() || stream(a).is_none() {
            continue;
        }
        for (j, (b, q)) in args.iter().zip(&func.params).enumerate() {
            if i == j || stream(a) != stream(b) {
                continue;
            }
            let message = match q.class {
                c if c.is_output() => format!(
                    "one stream is passed to two outputs (`{}` and `{}`)",
                    p.name, q.name
                ),
                ParamClass::Gather { .. } => format!(
                    "stream `{}` is both gathered (`{}`) and written; Brook allows in-place calls only for plain stream inputs",
                    p.name, q.name
                ),
                _ => continue,
            };
            return Err(BrookError::Aliasing {
                call: call.to_string(),
                message,
            });
        }
    }
    Ok(())
}

/// The call's shape, after checking that every `out` stream has it (Brook's rule) and, with
/// domains, is the same region of streams of one shape (so one draw or dispatch writes the
/// same elements of every output).
fn check_outputs(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
) -> Result<Vec<usize>, BrookError> {
    let streams = |class: fn(ParamClass) -> bool| {
        args.iter()
            .zip(&func.params)
            .filter(move |(_, p)| class(p.class))
            .filter_map(|(a, _)| match a {
                BackendArg::Stream(s) => Some(*s),
                BackendArg::Constant(_) => None,
            })
    };
    let mismatch = |message: String| BrookError::ShapeMismatch {
        call: call.to_string(),
        message,
    };
    let mut outs = streams(|c| c == ParamClass::Out);
    let Some(first) = outs.next() else {
        let has_vouts = func
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Vout { .. }));
        if !has_vouts {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: String::new(),
                message: "a kernel call writes at least one `out` or `vout` stream, and this kernel has none".into(),
            });
        }
        return streams(|c| matches!(c, ParamClass::Stream | ParamClass::Iter))
            .next()
            .map(|s| s.call_shape())
            .ok_or_else(|| mismatch("it writes only vout streams, so it needs an input stream or iterator to give the call its shape".into()));
    };
    let shape = first.call_shape();
    for other in outs {
        if other.call_shape() != shape {
            return Err(mismatch(format!(
                "all output streams of one call must have the same shape, but got {} and {}",
                fmt_shape(&shape),
                fmt_shape(&other.call_shape())
            )));
        }
        if other.shape != first.shape || other.lo() != first.lo() {
            return Err(mismatch(
                "output domains of one call must be the same region of streams of the same shape (one pass writes the same elements of every output)".into(),
            ));
        }
    }
    Ok(shape)
}

/// Every vout has room for N pushes per element of the call.
fn check_vouts(
    call: &dyn Display,
    func: &Function,
    args: &[BackendArg],
    shape: &[usize],
) -> Result<(), BrookError> {
    let elements: usize = shape.iter().product();
    for (arg, p) in args.iter().zip(&func.params) {
        let (ParamClass::Vout { max }, BackendArg::Stream(s)) = (p.class, arg) else {
            continue;
        };
        if args.iter().zip(&func.params).any(|(a, q)| {
            q.class == ParamClass::Out && matches!(a, BackendArg::Stream(o) if o.domain.is_some())
        }) {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: p.name.clone(),
                message: "a kernel with vout parameters writes whole streams; pass its outputs without domains".into(),
            });
        }
        let needed = max as usize * elements;
        let room: usize = s.shape.iter().product();
        if room < needed {
            return Err(BrookError::ShapeMismatch {
                call: call.to_string(),
                message: format!(
                    "vout `{}` needs room for {needed} elements (its N = {max} times the {elements} elements of the call) but its stream has {room}",
                    p.name
                ),
            });
        }
    }
    Ok(())
}

/// The input and accumulator parameters of a reduce function, by position.
pub fn reduce_roles(func: &Function) -> Result<(usize, usize), BrookError> {
    let only = |class: ParamClass| {
        let mut found = (0..func.params.len()).filter(|&i| func.params[i].class == class);
        match (found.next(), found.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    };
    match (only(ParamClass::Stream), only(ParamClass::Reduce)) {
        (Some(a), Some(r)) if func.params[a].ty == func.params[r].ty => Ok((a, r)),
        _ => Err(BrookError::Unsupported {
            call: format!("reduction `{}`", func.name),
            message: "a reduce function needs exactly one input stream and one `reduce` parameter of the same type".into(),
        }),
    }
}

/// Where a reduction's result goes, as the checks see it.
#[derive(Clone, Copy)]
pub enum ReduceShape<'a> {
    /// A value of this many floats.
    Value(usize),
    /// A stream.
    Stream(&'a StreamArg<'a>),
}

/// Checks a reduction of `input` by `func` with `extra` for its constant and gather
/// parameters (in order), and plans it.
pub fn check_reduce(
    compiled: &Compiled,
    func: &Function,
    input: &StreamArg,
    extra: &[BackendArg],
    target: ReduceShape,
) -> Result<ReducePlan, BrookError> {
    let call = CallName("reduction", &func.name);
    let module = &compiled.module;
    let (a, _) = reduce_roles(func)?;
    let p = &func.params[a];
    let wrong = |param: &str, message: String| BrookError::ArgumentType {
        call: call.to_string(),
        param: param.to_string(),
        message,
    };
    if input.iter.is_some() {
        return Err(wrong(
            &p.name,
            "an iterator cannot be reduced; copy it into a stream with a kernel first".into(),
        ));
    }
    check_format(module, &|m| wrong(&p.name, m), p, input.format)?;
    if extra.len() + 2 != func.params.len() {
        return Err(BrookError::ArgumentCount {
            call: format!("{call} (besides its input and accumulator)"),
            expected: func.params.len().saturating_sub(2),
            got: extra.len(),
        });
    }
    let others = func
        .params
        .iter()
        .filter(|q| !matches!(q.class, ParamClass::Stream | ParamClass::Reduce));
    for (q, arg) in others.zip(extra) {
        if let (ParamClass::Gather { .. }, BackendArg::Stream(s)) = (q.class, arg) {
            if s.domain.is_some() {
                return Err(wrong(
                    &q.name,
                    format!("a domain cannot be gathered by a reduction (`{}`); pass a stream of the domain's shape", q.name),
                ));
            }
        }
        check_argument(module, &call, q, arg)?;
    }
    let target_shape: &[usize] = match target {
        ReduceShape::Value(floats) => {
            let wanted = input.format.floats_per_element();
            if floats != wanted {
                return Err(BrookError::ShapeMismatch {
                    call: call.to_string(),
                    message: format!(
                        "the result needs {wanted} float(s) but the target holds {floats}"
                    ),
                });
            }
            &[]
        }
        ReduceShape::Stream(out) => {
            if out.iter.is_some() {
                return Err(wrong(
                    "",
                    "an iterator cannot be written by a reduction".into(),
                ));
            }
            check_format(module, &|m| wrong(&p.name, m), p, out.format)?;
            let gathered = extra
                .iter()
                .any(|e| matches!(e, BackendArg::Stream(g) if g.same_storage(out)));
            if out.same_storage(input) || gathered {
                return Err(BrookError::Aliasing {
                    call: call.to_string(),
                    message: "a reduction cannot write its own input (or a gathered) stream".into(),
                });
            }
            out.shape
        }
    };
    ReducePlan::new(input.shape, target_shape).map_err(|message| BrookError::ShapeMismatch {
        call: call.to_string(),
        message,
    })
}

/// Checks a `streamScatterOp(dst, index, data, op)`.
pub fn check_scatter(
    dst: &StreamArg,
    index: &StreamArg,
    data: &StreamArg,
    op: &Combiner,
) -> Result<(), BrookError> {
    let call: &dyn Display = &"streamScatterOp";
    not_iterators(
        call,
        [(dst, "destination"), (index, "index"), (data, "data")],
    )?;
    if dst.same_storage(data) || dst.same_storage(index) {
        return Err(BrookError::Aliasing {
            call: call.to_string(),
            message: "the destination cannot also be the index or the data stream".into(),
        });
    }
    check_indexed(call, dst, index, data)?;
    check_combiner(call, op, dst.format)
}

/// Checks a `streamGatherOp(dst, index, data, op)`; `operand` is the update's, if any.
pub fn check_gather_op(
    dst: &StreamArg,
    index: &StreamArg,
    data: &StreamArg,
    update: Option<(&Combiner, &[f32])>,
) -> Result<(), BrookError> {
    let call: &dyn Display = &"streamGatherOp";
    not_iterators(
        call,
        [(dst, "destination"), (index, "index"), (data, "data")],
    )?;
    if dst.same_storage(data) || dst.same_storage(index) || data.same_storage(index) {
        return Err(BrookError::Aliasing {
            call: call.to_string(),
            message: "the destination, index and data streams must be three different streams"
                .into(),
        });
    }
    check_indexed(call, data, index, dst)?;
    if let Some((op, operand)) = update {
        let floats = data.format.floats_per_element();
        if operand.len() != floats {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: "operand".into(),
                message: format!(
                    "the operand has {} floats but an element of the data stream has {floats}",
                    operand.len()
                ),
            });
        }
        check_combiner(call, op, data.format)?;
    }
    Ok(())
}

fn not_iterators(call: &dyn Display, streams: [(&StreamArg, &str); 3]) -> Result<(), BrookError> {
    for (s, role) in streams {
        if s.iter.is_some() {
            return Err(BrookError::ArgumentType {
                call: call.to_string(),
                param: role.into(),
                message: format!(
                    "the {role} stream is an iterator; copy it into a stream with a kernel first"
                ),
            });
        }
    }
    Ok(())
}

/// The shapes and formats of a ScatterOp or GatherOp: an index per element of `elements`, with
/// one component per dimension of `addressed`; both of one element layout.
fn check_indexed(
    call: &dyn Display,
    addressed: &StreamArg,
    index: &StreamArg,
    elements: &StreamArg,
) -> Result<(), BrookError> {
    let rank = addressed.shape.len();
    let wrong = |param: &str, message: String| BrookError::ArgumentType {
        call: call.to_string(),
        param: param.into(),
        message,
    };
    if index.format.widths() != [rank as u8] {
        return Err(wrong("index", format!(
            "the index stream must have one float per dimension of the indexed stream {} (float{rank}), but its elements have widths {:?}",
            fmt_shape(addressed.shape),
            index.format.widths()
        )));
    }
    let len = |s: &StreamArg| s.shape.iter().product::<usize>();
    if len(index) != len(elements) {
        return Err(BrookError::ShapeMismatch {
            call: call.to_string(),
            message: format!(
                "the index stream {} and the element stream {} must have one element each",
                fmt_shape(index.shape),
                fmt_shape(elements.shape)
            ),
        });
    }
    if !addressed.format.stores_like(elements.format) {
        return Err(wrong(
            "data",
            format!(
                "the elements ({:?}) and the indexed stream ({:?}) must have the same member widths",
                elements.format.widths(),
                addressed.format.widths()
            ),
        ));
    }
    Ok(())
}

/// A user combiner is `reduce void f(T a<>, reduce T r<>)` with nothing else, over the
/// streams' element type.
fn check_combiner(
    call: &dyn Display,
    op: &Combiner,
    format: &ElementFormat,
) -> Result<(), BrookError> {
    let Combiner::Reduce {
        compiled, function, ..
    } = op
    else {
        return Ok(());
    };
    let func = compiled.module.func(*function);
    if func.kind != FunctionKind::Reduce {
        return Err(BrookError::Unknown {
            name: func.name.clone(),
            what: "reduce function",
            message: format!(
                "{call}: `{0}` is not a reduce function; declare it `reduce void {0}(T a<>, reduce T r<>)`",
                func.name
            ),
        });
    }
    let (a, _) = reduce_roles(func)?;
    if func.params.len() != 2 {
        return Err(BrookError::Unsupported {
            call: call.to_string(),
            message: format!(
                "the combiner `{0}` must be `reduce void {0}(T a<>, reduce T r<>)` with no other parameters",
                func.name
            ),
        });
    }
    let p = &func.params[a];
    check_format(
        &compiled.module,
        &|message| BrookError::ArgumentType {
            call: call.to_string(),
            param: p.name.clone(),
            message,
        },
        p,
        format,
    )
}
