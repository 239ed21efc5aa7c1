//! The C ABI of the runtime: what the C++ that `brcc` generates calls (through
//! `include/brook.hpp`), so no Brook semantics live in C++.
//!
//! Handles are opaque pointers to Rust values ([`BrookProgram`], [`BrookStream`]), freed by
//! their `_free` function. Every function checks its arguments; on an error (a bad shape, an
//! unknown kernel, a failed GL call) it prints `brook: error: …` to stderr, flushes stdout and
//! exits the process with status 1, as the original runtime did: generated host code has no
//! error paths to return to. Each thread has a runtime of its own (GL contexts are
//! per thread; see `threads`): the main thread's is the one [`install_runtime`] set, another
//! thread's the one its `brook::initialize` made, else one of the same backend.
//!
//! A binary that links this crate statically and loads generated code at run time (brcc)
//! exports these symbols with `-rdynamic` and calls [`keep_linked`] so the linker keeps them.

mod kernel;
mod reduce;
mod runtime;
mod stream;
mod threads;
mod write_mask;

pub use kernel::{brook_kernel_run, brook_kernel_run_vout, BrookArg};
pub use reduce::{brook_reduce_stream, brook_reduce_value};
pub use runtime::{
    brook_fail, brook_finish, brook_flush_stdout, install_runtime, set_loading, take_runtime,
};
pub use stream::{
    brook_iter_new, brook_program_defines, brook_program_free, brook_program_new,
    brook_stream_free, brook_stream_gather_op, brook_stream_gather_reduce, brook_stream_name,
    brook_stream_new, brook_stream_print, brook_stream_read, brook_stream_scatter,
    brook_stream_scatter_reduce, brook_stream_shape, brook_stream_write, brook_write_mask_enable,
    brook_write_mask_set, brook_write_query_begin, brook_write_query_end, BrookProgram,
    BrookStream,
};
pub use threads::{brook_finalize, brook_initialize, brook_runtime_target};
pub use write_mask::{
    brook_write_mask_bind, brook_write_mask_clear, brook_write_mask_free, brook_write_mask_new,
    brook_write_mask_setting, brook_write_mask_unbind, BrookWriteMask,
};

/// Makes sure every exported function is linked into a binary that never calls them itself.
pub fn keep_linked() {
    let exported: [*const (); 35] = [
        brook_kernel_run_vout as *const (),
        brook_stream_shape as *const (),
        brook_stream_scatter_reduce as *const (),
        brook_program_new as *const (),
        brook_program_defines as *const (),
        brook_program_free as *const (),
        brook_stream_new as *const (),
        brook_stream_name as *const (),
        brook_iter_new as *const (),
        brook_stream_free as *const (),
        brook_stream_read as *const (),
        brook_stream_write as *const (),
        brook_stream_scatter as *const (),
        brook_stream_gather_op as *const (),
        brook_stream_gather_reduce as *const (),
        brook_write_mask_set as *const (),
        brook_write_mask_enable as *const (),
        brook_write_mask_new as *const (),
        brook_write_mask_free as *const (),
        brook_write_mask_bind as *const (),
        brook_write_mask_unbind as *const (),
        brook_write_mask_clear as *const (),
        brook_write_mask_setting as *const (),
        brook_write_query_begin as *const (),
        brook_write_query_end as *const (),
        brook_stream_print as *const (),
        brook_kernel_run as *const (),
        brook_reduce_value as *const (),
        brook_reduce_stream as *const (),
        brook_finish as *const (),
        brook_flush_stdout as *const (),
        brook_initialize as *const (),
        brook_finalize as *const (),
        brook_runtime_target as *const (),
        brook_fail as *const (),
    ];
    std::hint::black_box(exported);
}
