//! The runtime the C ABI works on, and how it reports errors.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::runtime::Runtime;
use crate::BrookError;

thread_local! {
    static RUNTIME: RefCell<Option<Runtime>> = const { RefCell::new(None) };
}

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
}

/// Set once [`install_runtime`] has given a thread its runtime: a call from any other thread
/// is then an error, not a second runtime of `BRT_RUNTIME`'s backend that the program's
/// kernels (compiled on the first) cannot be used with.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Makes `rt` the runtime of later C ABI calls on this thread (brcc: the `--backend` one).
pub fn install_runtime(rt: Runtime) {
    RUNTIME.with(|r| *r.borrow_mut() = Some(rt));
    INSTALLED.store(true, Ordering::SeqCst);
}

/// Set once [`take_runtime`] has ended the program's use of the runtime.
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

/// Removes the C ABI's runtime, to drop it at a chosen moment: the program has ended, and
/// programs and streams freed later (from `exit`) are left to the OS.
pub fn take_runtime() -> Option<Runtime> {
    SHUT_DOWN.store(true, Ordering::SeqCst);
    RUNTIME.with(|r| r.borrow_mut().take())
}

/// Whether [`take_runtime`] has run.
pub(crate) fn shut_down() -> bool {
    SHUT_DOWN.load(Ordering::SeqCst)
}

/// Runs `f` on the installed runtime, first making one from `BRT_RUNTIME` if there is none.
pub(crate) fn with_runtime<T>(f: impl FnOnce(&Runtime) -> Result<T, BrookError>) -> T {
    if LOADING.load(Ordering::SeqCst) {
        fail(
            "the program called the Brook runtime while it was being loaded (from a C++ static \
             initialiser, before `main`); create streams and call kernels from `main` or later",
        );
    }
    RUNTIME.with(|r| {
        if r.borrow().is_none() {
            if INSTALLED.load(Ordering::SeqCst) && !shut_down() {
                fail(
                    "a Brook call from a thread other than the one running `main`: the runtime \
                     (and a GL context) belongs to that thread; one runtime per thread, as the \
                     original's multibackend test starts, is not supported",
                );
            }
            let rt = or_exit(Runtime::from_env());
            *r.borrow_mut() = Some(rt);
        }
        let guard = r.borrow();
        let rt = guard.as_ref().expect("a runtime was installed just above");
        guarded(|| f(rt))
    })
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

/// Reports a C ABI error and exits with status 1.
pub(crate) fn fail(message: &str) -> ! {
    brook_flush_stdout();
    eprintln!("brook: error: {}", message.trim_end());
    std::process::exit(1)
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

/// The backend's name (`gl`, `cpu`, `wgpu`), for the original's `brook::runtimeTargets()`.
/// The string lives as long as the process.
#[no_mangle]
pub extern "C" fn brook_backend_name() -> *const c_char {
    static NAME: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    let name = with_runtime(|rt| Ok(rt.backend_name().to_string()));
    NAME.get_or_init(|| std::ffi::CString::new(name).unwrap_or_default())
        .as_ptr()
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
