//! A host program that crashes (a bad pointer, an integer division by zero, `abort`) is
//! reported as crashed: what it printed before is flushed, a line names the signal, and the
//! process then ends by that signal as the program would have. Without this, the program's
//! buffered output was lost and the shell said only "Segmentation fault" (status 139).

use std::ffi::c_int;
use std::sync::OnceLock;

/// The signals a crash raises, with what each means.
const CRASHES: &[(c_int, &str)] = &[
    (libc::SIGSEGV, "SIGSEGV, an invalid memory access"),
    (libc::SIGBUS, "SIGBUS, an invalid memory access"),
    (
        libc::SIGFPE,
        "SIGFPE, an arithmetic error such as an integer division by zero",
    ),
    (libc::SIGILL, "SIGILL, an illegal instruction"),
    (
        libc::SIGABRT,
        "SIGABRT, the program aborted (a failed `assert`, or `abort()`)",
    ),
];

/// Each crash's message, written before the program runs: the handler only writes bytes.
static MESSAGES: OnceLock<Vec<(c_int, Vec<u8>)>> = OnceLock::new();

/// Reports a crash of the program `file` from now on.
pub fn report_crashes(file: &str) {
    let messages = CRASHES
        .iter()
        .map(|(signal, what)| {
            let text = format!("brcc: error: `{file}` crashed: {what}\n");
            (*signal, text.into_bytes())
        })
        .collect();
    if MESSAGES.set(messages).is_err() {
        return;
    }
    for (signal, _) in CRASHES {
        // SAFETY: a zeroed sigaction is a valid starting point; the handler only calls
        // fflush, write and raise, and SA_RESETHAND makes the re-raised signal end the process.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_crash as extern "C" fn(c_int) as usize;
            action.sa_flags = libc::SA_RESETHAND | libc::SA_NODEFER | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(*signal, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_crash(signal: c_int) {
    // SAFETY: fflush(NULL) flushes C's streams (the program's printf output); not
    // async-signal-safe in general, but the process is ending and losing that output is worse.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    if let Some((_, text)) = MESSAGES
        .get()
        .and_then(|m| m.iter().find(|(s, _)| *s == signal))
    {
        // SAFETY: write(2) of a static buffer is async-signal-safe.
        unsafe { libc::write(2, text.as_ptr().cast(), text.len()) };
    }
    // SAFETY: the handler was reset to the default action: raising ends the process by it.
    unsafe { libc::raise(signal) };
}
