//! The runtime the C ABI works on, and how it reports errors.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::runtime::Runtime;
use crate::BrookError;

/// Set while brcc loads a built program: its static initialisers run then, inside the
/// dynamic loader, where making a runtime or compiling a program would wait forever for the
/// loader's lock (the front end and the backends start threads). `brook.hpp` makes nothing
/// before first use; a call from a hand-written initialiser is reported instead of hanging.
static LOADING: AtomicBool = AtomicBool::new(false);

/// Marks the time a program is being loaded (see `LOADING`).
pub fn set_loading(on: bool) {
    LOADING.store(on, Ordering::SeqCst);
}

extern "C" {
    fn fflush(stream: *mut c_void) -> c_int;
    fn _exit(status: c_int) -> !;
}

/// Makes `rt` the runtime of later C ABI calls on this thread (brcc: the `--backend` one,
/// on the thread running `main`), and its backend that of other threads that call Brook
/// without `brook::initialize` (see `threads`).
pub fn install_runtime(rt: Runtime) {
    super::threads::install(rt);
}

/// Set once [`take_runtime`] has ended the program's use of the runtime.
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

/// Removes this thread's runtime (the one [`install_runtime`] gave it), to drop it at a
/// chosen moment: the program has ended, and programs and streams freed later (from `exit`)
/// are left to the OS.
pub fn take_runtime() -> Option<Runtime> {
    SHUT_DOWN.store(true, Ordering::SeqCst);
    super::threads::take()
}

/// Whether [`take_runtime`] has run.
pub(crate) fn shut_down() -> bool {
    SHUT_DOWN.load(Ordering::SeqCst)
}

/// Runs `f` on this thread's runtime, first making one if it has none (see `threads`).
pub(crate) fn with_runtime<T>(f: impl FnOnce(&Runtime) -> Result<T, BrookError>) -> T {
    super::threads::with_thread_runtime(|rt| guarded(|| f(rt)))
}

/// Ends the process with an error if the program is being loaded (see `LOADING`): every
/// way to a runtime (`threads`) checks this first.
pub(crate) fn refuse_while_loading() {
    if LOADING.load(Ordering::SeqCst) {
        fail(
            "the program called the Brook runtime while it was being loaded (from a C++ static \
             initialiser, before `main`); create streams and call kernels from `main` or later",
        );
    }
}

/// Runs `f`, reporting its error, or a panic inside it, and ending the process: a panic must
/// not unwind into C++ (it would abort with no message of ours). Every `extern "C"` function
/// that runs more than pointer checks goes through here or [`with_runtime`].
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, BrookError>) -> T {
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    or_exit(ran.unwrap_or_else(|panic| {
        Err(BrookError::Internal {
            message: panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into()),
        })
    }))
}

/// The value, or the error reported and the process ended.
pub(crate) fn or_exit<T>(result: Result<T, BrookError>) -> T {
    result.unwrap_or_else(|e| fail(&e.to_string()))
}

/// Reports a C ABI error and exits with status 1, at once: the program's other threads may
/// be running kernels on runtimes of their own (see `threads`), and `exit`'s static
/// destructors and handlers would tear down what they use under them. Output is flushed
/// first (C's `fflush(NULL)` flushes every open file too), so nothing `exit` would have
/// written is lost.
pub(crate) fn fail(message: &str) -> ! {
    brook_flush_stdout();
    eprintln!("brook: error: {}", message.trim_end());
    // SAFETY: _exit ends the process; every output stream was flushed just above.
    unsafe { _exit(1) }
}

/// A C string argument, or an error naming what it was for.
///
/// # Safety
/// `s` is null or points to a NUL-terminated string.
pub(crate) unsafe fn c_str<'a>(s: *const c_char, what: &str) -> &'a str {
    if s.is_null() {
        fail(&format!("{what} is a null pointer"));
    }
    CStr::from_ptr(s)
        .to_str()
        .unwrap_or_else(|_| fail(&format!("{what} is not UTF-8")))
}

/// Flushes Rust's and C's standard output, so output written by either appears in order
/// before anything the other writes next.
#[no_mangle]
pub extern "C" fn brook_flush_stdout() {
    let _ = std::io::stdout().flush();
    // SAFETY: fflush(NULL) flushes every C output stream; it takes no other argument.
    unsafe { fflush(std::ptr::null_mut()) };
}

/// Waits until every queued kernel has finished (for timing).
#[no_mangle]
pub extern "C" fn brook_finish() {
    with_runtime(|rt| {
        rt.finish();
        Ok(())
    })
}

/// Reports `message` as a runtime error and ends the process (status 1): what `brook.hpp`
/// calls for what this runtime refuses (the original's CPU-runtime internals, hand-written
/// shaders).
///
/// # Safety
/// `message` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn brook_fail(message: *const c_char) -> ! {
    fail(c_str(message, "the error message"))
}
