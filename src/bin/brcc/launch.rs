//! Running a built program in this process: load the library, hand the runtime to the C ABI,
//! call the program's `main` (renamed `brook_user_main`) and return its status.

use std::ffi::{c_char, c_int, CString};
use std::path::Path;

use brook::capi;
use brook::Runtime;

type UserMain = unsafe extern "C" fn(c_int, *mut *mut c_char) -> c_int;

/// Runs the program in `library` with `argv` = [`file`, `args`…] on `runtime`; `loaded`
/// runs once the library is in memory (a temporary build directory can go then), `ended`
/// once the program has ended, with the runtime before it is dropped (`brcc explain` takes
/// its recording then).
pub fn run(
    library: &Path,
    file: &str,
    args: &[String],
    runtime: Runtime,
    loaded: impl FnOnce(),
    ended: impl FnOnce(&Runtime),
) -> Result<i32, String> {
    capi::keep_linked();
    crate::crash::report_crashes(file);
    capi::install_runtime(runtime);
    let argv: Vec<CString> = std::iter::once(file)
        .chain(args.iter().map(String::as_str))
        .map(|a| CString::new(a).map_err(|_| format!("argument `{a}` contains a NUL byte")))
        .collect::<Result<_, _>>()?;
    let mut pointers: Vec<*mut c_char> = argv.iter().map(|a| a.as_ptr().cast_mut()).collect();
    pointers.push(std::ptr::null_mut());
    // SAFETY: the library is one brcc just built from generated code; its initialisers only
    // set up the program's statics.
    // The program's static initialisers run inside the loader: the C ABI refuses to work then
    // (it would wait forever for the loader's lock), and brook.hpp makes nothing before use.
    capi::set_loading(true);
    let lib = unsafe { libloading::Library::new(library) };
    capi::set_loading(false);
    let lib = lib.map_err(|e| {
        format!(
            "could not load the built program `{}`: {e}",
            library.display()
        )
    })?;
    loaded();
    // SAFETY: generated code defines `brook_user_main` with exactly this signature.
    let code = unsafe {
        let main: libloading::Symbol<UserMain> = lib
            .get(b"brook_user_main")
            .map_err(|e| format!("the built program has no entry point: {e}"))?;
        main(args.len() as c_int + 1, pointers.as_mut_ptr())
    };
    capi::brook_flush_stdout();
    // Unloading runs the program's static destructors (its kernels) while the runtime lives.
    drop(lib);
    if let Some(runtime) = capi::take_runtime() {
        // A kernel call still waiting for a reduction (automatic fusion) runs now, so an
        // error only running finds is reported as the C ABI reports any other.
        let waiting = runtime.finish_checked();
        ended(&runtime);
        if let Err(e) = waiting {
            eprintln!("brook: error: {}", e.to_string().trim_end());
            return Ok(1);
        }
    }
    Ok(code)
}

extern "C" {
    fn _exit(status: c_int) -> !;
}

/// Ends the process with status 124 and a message if the program runs longer than `seconds`
/// (`brcc run --timeout`): a kernel that never ends (`while (1) {}`) or host code that hangs.
/// The watchdog is running when this returns: a program can hang while it is being loaded
/// (a static initialiser waiting on a thread that needs the dynamic loader), holding the
/// loader's lock for good, and a thread's start and its first use of its thread-locals
/// (Rust's output capture, the stdout lock's owner) take that lock, so the watchdog does all
/// of that before the program is loaded.
pub fn watchdog(file: &str, seconds: f64) {
    let file = file.to_string();
    let (ready, started) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        eprint!("");
        capi::brook_flush_stdout();
        let _ = ready.send(());
        std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
        capi::brook_flush_stdout();
        eprintln!("brcc: error: `{file}` did not finish within {seconds} s (--timeout); stopped");
        // SAFETY: _exit ends the process at once, running no destructors or atexit handlers
        // that could race with the program still running on the main thread.
        unsafe { _exit(124) }
    });
    // An error here means the thread ended, which it never does but by ending the process.
    let _ = started.recv();
}
