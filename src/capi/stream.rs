//! Programs and streams through the C ABI: `brook::program` and `brook::stream` in
//! `brook.hpp`, `streamRead`/`streamWrite` with or without a domain.

use std::ffi::c_char;
use std::rc::Rc;

use brook_texture_streams::IterSpec;

use super::runtime::{brook_flush_stdout, c_str, fail, guarded, or_exit, with_runtime};
use super::threads::{forget_program, program_for, Owner, ProgramId};
use crate::gather_op::GatherOp;
use crate::program::Program;
use crate::scatter::ScatterOp;
use crate::stream::Stream;
use crate::BrookError;
use brook_core::{ElementFormat, HostScalar};

/// A Brook program (the kernels of one `.br` file), owned by the C++ side and shared by its
/// threads: each thread's runtime compiles it at its first use there (see `threads`).
pub struct BrookProgram {
    id: ProgramId,
    source: String,
    name: String,
}

impl BrookProgram {
    /// The program compiled for this thread's runtime.
    fn compiled(&self) -> Rc<Program> {
        program_for(self.id, &self.source, &self.name)
    }
}

/// A stream, owned by the C++ side, how its host arrays hold components: as floats
/// (`None`), or as the original's `char`, `uchar`, `fixed` or `shortfixed`, converted by
/// `streamRead`/`streamWrite` (see [`HostScalar`]), and the thread whose runtime made it.
pub struct BrookStream(
    pub(crate) Stream,
    pub(crate) Option<HostScalar>,
    pub(crate) Owner,
);

impl BrookStream {
    /// A stream this thread's runtime made.
    pub(crate) fn new(stream: Stream, host: Option<HostScalar>) -> BrookStream {
        BrookStream(stream, host, Owner::here())
    }
}

/// Compiles the kernel part of a program (`name` appears in diagnostics) for this thread's
/// runtime; other threads' runtimes compile it at their first use.
///
/// # Safety
/// `source` and `name` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn brook_program_new(
    source: *const c_char,
    name: *const c_char,
) -> *mut BrookProgram {
    let (source, name) = (
        c_str(source, "the program source"),
        c_str(name, "the program name"),
    );
    let program = BrookProgram {
        id: ProgramId::fresh(),
        source: source.to_string(),
        name: name.to_string(),
    };
    program.compiled();
    Box::into_raw(Box::new(program))
}

/// Whether `program` knows element type `type_name` (a built-in `float`..`float4`, or a
/// struct its kernels define): 1 or 0.
///
/// # Safety
/// `program` is a live program, `type_name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn brook_program_defines(
    program: *const BrookProgram,
    type_name: *const c_char,
) -> i32 {
    let program = program_ref(program);
    let type_name = c_str(type_name, "the element type");
    guarded(|| Ok(i32::from(program.element_format(type_name).is_ok())))
}

/// Frees a program made by [`brook_program_new`] (null is ignored), with this thread's
/// compiled form of it; other threads' runtimes drop theirs when they end.
///
/// # Safety
/// `p` is null or a program from [`brook_program_new`], not freed before.
#[no_mangle]
pub unsafe extern "C" fn brook_program_free(p: *mut BrookProgram) {
    if !p.is_null() {
        let program = Box::from_raw(p);
        if !super::runtime::shut_down() {
            forget_program(program.id);
        }
    }
}

/// A stream of Brook element type `type_name` (`float4`, or a struct of `program`; `char`,
/// `uchar`, `fixed`, `shortfixed` and their vectors are float streams of that width whose
/// host arrays hold that type) and `rank` extents, first dimension first.
///
/// # Safety
/// `program` is a live program, `type_name` a NUL-terminated string, `extents` points to
/// `rank` values.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_new(
    program: *const BrookProgram,
    type_name: *const c_char,
    extents: *const i64,
    rank: usize,
) -> *mut BrookStream {
    let program = program_ref(program);
    let type_name = c_str(type_name, "the stream's element type");
    let shape = shape(extents, rank);
    let host = HostScalar::of_type_name(type_name);
    let stream = with_runtime(|rt| {
        let format = match host {
            Some((_, width)) => ElementFormat::scalar(width)?,
            None => program.element_format(type_name)?,
        };
        rt.stream(format, &shape)
    });
    Box::into_raw(Box::new(BrookStream::new(stream, host.map(|(s, _)| s))))
}

/// Names stream `s` after its host variable in element histories (`brcc why`); a runtime
/// recording none ignores it.
///
/// # Safety
/// `s` is a live stream, `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_name(s: *const BrookStream, name: *const c_char) {
    let stream = &stream_ref(s).0;
    let name = c_str(name, "the stream's name");
    with_runtime(|rt| {
        rt.name_stream(stream, name);
        Ok(())
    });
}

/// An iterator stream of `components` floats per element from `start` to `end` (4 floats
/// each, the unused ones ignored): `iter float2 s<h, w> = iter(a, b)`.
///
/// # Safety
/// `extents` points to `rank` values, `start` and `end` to 4 floats each.
#[no_mangle]
pub unsafe extern "C" fn brook_iter_new(
    components: u32,
    extents: *const i64,
    rank: usize,
    start: *const f32,
    end: *const f32,
) -> *mut BrookStream {
    let shape = shape(extents, rank);
    let four = |p: *const f32| -> [f32; 4] {
        if p.is_null() {
            fail("an iterator bound is a null pointer");
        }
        std::slice::from_raw_parts(p, 4)
            .try_into()
            .expect("4 floats")
    };
    let (start, end) = (four(start), four(end));
    let components = u8::try_from(components).unwrap_or(u8::MAX);
    let stream = with_runtime(|rt| rt.iter(IterSpec::new(&shape, components, start, end)?));
    Box::into_raw(Box::new(BrookStream::new(stream, None)))
}

/// Writes the stream's extents (first dimension first, at most 4) to `extents` and returns
/// its rank: `streamSize`.
///
/// # Safety
/// `s` is a live stream; `extents` holds 4 values.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_shape(s: *const BrookStream, extents: *mut i64) -> usize {
    let shape = stream_ref(s).0.shape();
    if extents.is_null() {
        fail("streamSize: the extents are a null pointer");
    }
    let out = std::slice::from_raw_parts_mut(extents, 4);
    for (o, &e) in out.iter_mut().zip(shape) {
        *o = e as i64;
    }
    shape.len()
}

/// Frees a stream (null is ignored). One freed on a thread other than its runtime's (a
/// file-scope stream a worker thread made, freed as the program ends) is left to the OS:
/// only its own thread may touch it.
///
/// # Safety
/// `s` is null or a stream from this ABI, not freed before.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_free(s: *mut BrookStream) {
    if !s.is_null() {
        let stream = Box::from_raw(s);
        let owner = stream.2;
        release(stream, owner);
    }
}

/// Drops a stream or write mask made on `owner`'s runtime, unless it is another thread's
/// (only that thread may touch it, see `threads`) or the runtime has shut down: then the
/// process is exiting (a C++ static destructor of a library `dlclose` could not unload runs
/// from `exit`, after thread-local storage is gone, where dropping a wgpu device panics), and
/// the OS frees it.
pub(crate) fn release<T>(object: Box<T>, owner: Owner) {
    if !owner.is_here() || super::runtime::shut_down() {
        std::mem::forget(object);
    } else {
        guarded(|| {
            drop(object);
            Ok(())
        });
    }
}

/// `streamRead(s, data)`: fills the stream (or, with `rank` > 0, its domain `lo..hi`, `x` =
/// column first) from the host array, which holds exactly that many elements.
///
/// # Safety
/// `s` is a live stream; `data` holds the stream's (or domain's) elements; `lo` and `hi` point
/// to `rank` values each.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_read(
    s: *const BrookStream,
    data: *const f32,
    lo: *const i64,
    hi: *const i64,
    rank: usize,
) {
    let BrookStream(stream, host, _) = stream_ref(s);
    if data.is_null() {
        fail("streamRead: the host array is a null pointer");
    }
    // The host array's `n` components as floats: itself, or converted from its host type.
    let floats = |n: usize| -> std::borrow::Cow<'_, [f32]> {
        match host {
            None => std::slice::from_raw_parts(data, n).into(),
            Some(h) => {
                let mut out = vec![0.0; n];
                h.decode(
                    std::slice::from_raw_parts(data.cast(), n * h.bytes()),
                    &mut out,
                );
                out.into()
            }
        }
    };
    guarded(|| {
        if rank == 0 {
            stream.read(&floats(stream.len() * stream.floats_per_element()))
        } else {
            let (lo, hi) = (bounds(lo, rank), bounds(hi, rank));
            stream
                .domain(&lo, &hi)
                .and_then(|d| d.read(&floats(d.len() * stream.floats_per_element())))
        }
    })
}

/// `streamWrite(s, out)`: the stream (or its domain) into the host array.
///
/// # Safety
/// As [`brook_stream_read`], with `out` writable.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_write(
    s: *const BrookStream,
    out: *mut f32,
    lo: *const i64,
    hi: *const i64,
    rank: usize,
) {
    let BrookStream(stream, host, _) = stream_ref(s);
    if out.is_null() {
        fail("streamWrite: the host array is a null pointer");
    }
    // Writes `n` components through `write`: straight into the host array, or through
    // floats converted to its host type.
    let to_host = |n: usize, write: &dyn Fn(&mut [f32]) -> Result<(), BrookError>| match host {
        None => write(std::slice::from_raw_parts_mut(out, n)),
        Some(h) => {
            let mut floats = vec![0.0; n];
            write(&mut floats)?;
            h.encode(
                &floats,
                std::slice::from_raw_parts_mut(out.cast(), n * h.bytes()),
            );
            Ok(())
        }
    };
    guarded(|| {
        if rank == 0 {
            to_host(stream.len() * stream.floats_per_element(), &|f| {
                stream.write(f)
            })
        } else {
            let (lo, hi) = (bounds(lo, rank), bounds(hi, rank));
            let d = stream.domain(&lo, &hi)?;
            to_host(d.len() * stream.floats_per_element(), &|f| d.write(f))
        }
    })
}

/// `streamScatterOp(dst, index, data, op)` with a built-in combiner: `op` is 0 (replace: the
/// last element in index order wins), 1 (add), 2 (min) or 3 (max), as `brook.hpp`'s
/// `STREAM_SCATTER_*` constants spell them.
///
/// # Safety
/// `dst`, `index` and `data` are live streams.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_scatter(
    dst: *const BrookStream,
    index: *const BrookStream,
    data: *const BrookStream,
    op: i32,
) {
    let [dst, index, data] = [dst, index, data].map(|s| &stream_ref(s).0);
    with_runtime(|rt| rt.scatter(dst, index, data, scatter_op(op)?))
}

/// `streamScatterOp(dst, index, data, f)` with the reduce function `f` of `program` as the
/// combiner (`brook.hpp` finds them from the function's address; null: not a reduction).
///
/// # Safety
/// `dst`, `index` and `data` are live streams; `program` is null or a live program and
/// `name` null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_scatter_reduce(
    dst: *const BrookStream,
    index: *const BrookStream,
    data: *const BrookStream,
    program: *const BrookProgram,
    name: *const c_char,
) {
    let (program, name) = reduce_operator("streamScatterOp", program, name, "STREAM_SCATTER_*");
    let [dst, index, data] = [dst, index, data].map(|s| &stream_ref(s).0);
    with_runtime(|rt| rt.scatter(dst, index, data, ScatterOp::Reduce(&program, name)))
}

/// `streamGatherOp(dst, index, data, f)` with the reduce function `f` of `program` as the
/// operator: as the original runtime did, `f` combines each fetched element with itself
/// (`data[t] = f(data[t], data[t])`, see [`GatherOp::WithFetched`]).
///
/// # Safety
/// As [`brook_stream_scatter_reduce`].
#[no_mangle]
pub unsafe extern "C" fn brook_stream_gather_reduce(
    dst: *const BrookStream,
    index: *const BrookStream,
    data: *const BrookStream,
    program: *const BrookProgram,
    name: *const c_char,
) {
    let (program, name) = reduce_operator("streamGatherOp", program, name, "STREAM_GATHER_*");
    let [dst, index, data] = [dst, index, data].map(|s| &stream_ref(s).0);
    let op = ScatterOp::Reduce(&program, name);
    with_runtime(|rt| rt.gather_op(dst, index, data, GatherOp::WithFetched(op)))
}

/// The reduce function `brook.hpp` found for an operator argument (null: the argument was a
/// function that is not a registered reduction): its program, compiled for this thread's
/// runtime, and its name.
///
/// # Safety
/// `program` is null or a live program and `name` null or a NUL-terminated string.
unsafe fn reduce_operator<'a>(
    call: &str,
    program: *const BrookProgram,
    name: *const c_char,
    constants: &str,
) -> (Rc<Program>, &'a str) {
    if program.is_null() || name.is_null() {
        fail(&format!("{call}: the operator is not a reduce function of this program (a reduce function with one stream and one `reduce` parameter, or {constants})"));
    }
    (program_ref(program), c_str(name, "the reduction name"))
}

/// `streamGatherOp(dst, index, data, op)`: `dst[i]` gets `data[index[i]]`, then `op` updates
/// that element, in index order: 0 fetches only, 1 increments every float (`a = p[i]++`).
///
/// # Safety
/// `dst`, `index` and `data` are live streams.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_gather_op(
    dst: *const BrookStream,
    index: *const BrookStream,
    data: *const BrookStream,
    op: i32,
) {
    let [dst, index, data] = [dst, index, data].map(|s| &stream_ref(s).0);
    with_runtime(|rt| rt.gather_op(dst, index, data, gather_op(op)?))
}

/// The combiner a `STREAM_SCATTER_*` constant names.
fn scatter_op(op: i32) -> Result<ScatterOp<'static>, BrookError> {
    Ok(match op {
        0 => ScatterOp::Replace,
        1 => ScatterOp::Add,
        2 => ScatterOp::Min,
        3 => ScatterOp::Max,
        other => {
            return Err(unknown_op(
                "streamScatterOp",
                other,
                "STREAM_SCATTER_ASSIGN, _ADD, _MIN or _MAX",
            ))
        }
    })
}

/// The operator a `STREAM_GATHER_*` constant names.
fn gather_op(op: i32) -> Result<GatherOp<'static>, BrookError> {
    Ok(match op {
        0 => GatherOp::Fetch,
        1 => GatherOp::Increment,
        other => {
            return Err(unknown_op(
                "streamGatherOp",
                other,
                "STREAM_GATHER_FETCH or STREAM_GATHER_INC",
            ))
        }
    })
}

fn unknown_op(call: &str, op: i32, known: &str) -> BrookError {
    BrookError::Usage(format!("{call}: unknown operator {op}; use {known}"))
}

/// `streamSetWriteMask(mask)`: kernels write only where the mask is non-zero while enabled.
///
/// # Safety
/// `mask` is a live stream.
#[no_mangle]
pub unsafe extern "C" fn brook_write_mask_set(mask: *const BrookStream) {
    let mask = &stream_ref(mask).0;
    with_runtime(|rt| rt.set_write_mask(mask))
}

/// `streamEnableWriteMask()` (`on` non-zero) and `streamDisableWriteMask()`.
#[no_mangle]
pub extern "C" fn brook_write_mask_enable(on: i32) {
    with_runtime(|rt| {
        if on != 0 {
            rt.enable_write_mask()
        } else {
            rt.disable_write_mask()
        }
    })
}

/// `streamBeginWriteQuery()`.
#[no_mangle]
pub extern "C" fn brook_write_query_begin() {
    with_runtime(|rt| rt.begin_write_query())
}

/// `streamEndWriteQuery()`: the elements kernel calls wrote since the query began.
#[no_mangle]
pub extern "C" fn brook_write_query_end() -> u64 {
    with_runtime(|rt| rt.end_write_query())
}

/// `streamPrint(s)`: the stream to standard output in the original's format, after
/// whatever the host code printed with C stdio.
///
/// # Safety
/// `s` is a live stream.
#[no_mangle]
pub unsafe extern "C" fn brook_stream_print(s: *const BrookStream) {
    let text = guarded(|| stream_ref(s).0.print_string());
    brook_flush_stdout();
    print!("{text}");
    brook_flush_stdout();
}

/// The program compiled for this thread's runtime.
///
/// # Safety
/// `p` is null or a live program.
pub(crate) unsafe fn program_ref(p: *const BrookProgram) -> Rc<Program> {
    match p.as_ref() {
        Some(p) => p.compiled(),
        None => fail("the program is a null pointer"),
    }
}

/// The stream, checked to be this thread's runtime's.
///
/// # Safety
/// `s` is null or a live stream.
pub(crate) unsafe fn stream_ref<'a>(s: *const BrookStream) -> &'a BrookStream {
    let stream = s
        .as_ref()
        .unwrap_or_else(|| fail("the stream is a null pointer"));
    stream.2.check("the stream");
    stream
}

/// Stream extents: non-negative.
unsafe fn shape(extents: *const i64, rank: usize) -> Vec<usize> {
    or_exit(non_negative(extents, rank, "stream extent"))
}

/// Domain bounds: non-negative.
pub(crate) unsafe fn bounds(values: *const i64, rank: usize) -> Vec<usize> {
    or_exit(non_negative(values, rank, "domain bound"))
}

unsafe fn non_negative(
    values: *const i64,
    rank: usize,
    what: &str,
) -> Result<Vec<usize>, BrookError> {
    if values.is_null() || rank == 0 || rank > 4 {
        return Err(BrookError::Usage(format!(
            "a {what} list needs 1 to 4 values, got {rank}"
        )));
    }
    std::slice::from_raw_parts(values, rank)
        .iter()
        .map(|&v| {
            usize::try_from(v).map_err(|_| BrookError::Usage(format!("{what} {v} is negative")))
        })
        .collect()
}
