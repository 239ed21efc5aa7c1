//! One runtime per thread, as the original's `brook::initialize` gave each thread its own
//! (its `multibackend` test runs a CPU and a GPU runtime at once, one per thread).
//!
//! A [`Runtime`] is not `Send`: its streams and programs share reference counts, and a GL
//! context is current on one thread only. So each thread that calls Brook has a runtime of
//! its own, made by its first `brook::initialize(name)`, or, without one, at its first Brook
//! call on brcc's backend; the programs (one per `.br` file, shared C++ statics) are compiled
//! for each runtime at its first use of them and kept with it; and every stream and write
//! mask remembers the thread that made it, so a use from another thread is an error rather
//! than a data race.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::runtime::{c_str, fail, guarded, or_exit, refuse_while_loading};
use crate::program::Program;
use crate::runtime::Runtime;
use crate::BrookError;

/// A thread's runtime and the programs compiled on it.
struct ThreadRuntime {
    /// The compiled form of each program this runtime used, by [`ProgramId`]. Declared
    /// first, so the programs drop before their runtime.
    programs: RefCell<HashMap<ProgramId, Rc<Program>>>,
    runtime: Runtime,
}

/// Where a thread keeps its runtime. One still there when the thread ends (the thread never
/// called `brook::finalize`) is left to the OS, as the original left it: dropping it then,
/// while thread-local storage is being torn down, is not safe (wgpu's locks use it).
struct Slot(Option<ThreadRuntime>);

impl Drop for Slot {
    fn drop(&mut self) {
        std::mem::forget(self.0.take());
    }
}

thread_local! {
    static CURRENT: RefCell<Slot> = const { RefCell::new(Slot(None)) };
    /// This thread's [`Owner`], numbered on first use.
    static THIS_THREAD: u64 = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
}

static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

/// The backend brcc chose (`--backend`), which a thread that never calls
/// `brook::initialize` runs on too; `None` outside brcc (then `BRT_RUNTIME`'s).
static MAIN_BACKEND: Mutex<Option<&'static str>> = Mutex::new(None);

/// The [`Owner`] number of the thread [`install`] ran on (0: none).
static MAIN_THREAD: AtomicU64 = AtomicU64::new(0);

/// Makes `rt` this thread's runtime and its backend the default of other threads.
pub(crate) fn install(rt: Runtime) {
    *MAIN_BACKEND.lock().unwrap_or_else(|e| e.into_inner()) = Some(rt.backend_name());
    MAIN_THREAD.store(Owner::here().0, Ordering::SeqCst);
    let old = CURRENT.with(|c| c.borrow_mut().0.replace(ThreadRuntime::new(rt)));
    drop(old);
}

/// Takes this thread's runtime away (dropping the programs compiled on it).
pub(crate) fn take() -> Option<Runtime> {
    CURRENT.with(|c| c.borrow_mut().0.take()).map(|t| t.runtime)
}

/// The backend of a thread that made no runtime of its own choosing: brcc's, else
/// `BRT_RUNTIME`'s.
fn main_backend() -> Option<&'static str> {
    *MAIN_BACKEND.lock().unwrap_or_else(|e| e.into_inner())
}

impl ThreadRuntime {
    fn new(runtime: Runtime) -> ThreadRuntime {
        ThreadRuntime {
            programs: RefCell::new(HashMap::new()),
            runtime,
        }
    }

    /// The runtime of `main_backend`, or `BRT_RUNTIME`'s outside brcc.
    fn of_main_backend() -> Result<ThreadRuntime, BrookError> {
        let runtime = match main_backend() {
            Some(name) => Runtime::named(name)?,
            None => Runtime::from_env()?,
        };
        Ok(ThreadRuntime::new(runtime))
    }
}

/// Runs `f` on this thread's runtime, making the default one first if it has none.
fn with_current<T>(f: impl FnOnce(&ThreadRuntime) -> T) -> T {
    refuse_while_loading();
    CURRENT.with(|c| {
        if c.borrow().0.is_none() {
            let made = or_exit(ThreadRuntime::of_main_backend());
            c.borrow_mut().0 = Some(made);
        }
        let current = c.borrow();
        f(current.0.as_ref().expect("a runtime was made just above"))
    })
}

/// Runs `f` on this thread's runtime (see [`with_current`]).
pub(crate) fn with_thread_runtime<T>(f: impl FnOnce(&Runtime) -> T) -> T {
    with_current(|t| f(&t.runtime))
}

/// `brook::initialize(name)`: this thread's runtime, made on backend `name` if the thread has
/// none yet (a thread's existing runtime is kept whatever is asked, as the original's
/// `Runtime::GetInstance` kept it; brcc's main thread has brcc's). `name` is `cpu`, `gl` or
/// `wgpu` (what `runtimeTargets` lists), or one of the original's GPU runtimes (`ogl`,
/// `gles`, `dx9`, `ctm`, with its `:device` suffix), which stand for brcc's backend; null
/// means brcc's backend.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn brook_initialize(name: *const c_char) {
    refuse_while_loading();
    let name = (!name.is_null()).then(|| c_str(name, "the runtime name"));
    CURRENT.with(|c| {
        if c.borrow().0.is_some() {
            return;
        }
        let made = or_exit(match name {
            Some(name) => {
                Runtime::named(original_backend(name).unwrap_or(name)).map(ThreadRuntime::new)
            }
            None => ThreadRuntime::of_main_backend(),
        });
        c.borrow_mut().0 = Some(made);
    });
}

/// The backend one of the original's runtime names stands for: its GPU runtimes (`ogl`,
/// `gles`, `dx9`, `ctm`, each maybe followed by `:device`) are brcc's backend; `None` for
/// any other name, which [`Runtime::named`] reads.
fn original_backend(name: &str) -> Option<&'static str> {
    let runtime = name.split(':').next().unwrap_or_default();
    ["ogl", "gles", "dx9", "ctm"]
        .contains(&runtime)
        .then(|| main_backend().unwrap_or("gl"))
}

/// `brook::finalize()`: ends this thread's runtime (its streams can be used no more), as the
/// original's did; a later Brook call on the thread makes a new one. brcc's runtime on the
/// main thread only finishes its work: brcc ends it after `main` (its recording, an error
/// of a deferred call).
#[no_mangle]
pub extern "C" fn brook_finalize() {
    if is_main_thread() {
        with_thread_runtime(Runtime::finish);
        return;
    }
    if let Some(t) = CURRENT.with(|c| c.borrow_mut().0.take()) {
        guarded(|| {
            t.runtime.finish_checked()?;
            drop(t);
            Ok(())
        });
    }
}

/// Whether this is the thread brcc installed its runtime on (the one running `main`).
fn is_main_thread() -> bool {
    MAIN_THREAD.load(Ordering::SeqCst) == Owner::here().0
}

/// What `brook::runtimeTargets()` lists: `cpu` (the original's first target, always there)
/// and brcc's backend when that is another; `i` past the end gives null.
#[no_mangle]
pub extern "C" fn brook_runtime_target(i: usize) -> *const c_char {
    let backend = main_backend().unwrap_or_else(|| with_thread_runtime(Runtime::backend_name));
    let targets: &[&'static CStr] = match backend {
        "gl" => &[c"cpu", c"gl"],
        "wgpu" => &[c"cpu", c"wgpu"],
        _ => &[c"cpu"],
    };
    targets.get(i).map_or(std::ptr::null(), |t| t.as_ptr())
}

/// A program's identity, by which each runtime keeps its compiled form.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ProgramId(u64);

impl ProgramId {
    pub(crate) fn fresh() -> ProgramId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ProgramId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The program `id` (of `source`, called `name` in diagnostics) compiled for this thread's
/// runtime: compiled at the runtime's first use of it, then kept with the runtime. A program
/// is compiled once per runtime that uses it, so the kept programs are bounded by the
/// program's files times its threads.
pub(crate) fn program_for(id: ProgramId, source: &str, name: &str) -> Rc<Program> {
    with_current(|t| {
        if let Some(p) = t.programs.borrow().get(&id) {
            return p.clone();
        }
        let program = Rc::new(guarded(|| t.runtime.compile(source, name)));
        t.programs.borrow_mut().insert(id, program.clone());
        program
    })
}

/// Forgets this thread's compiled form of program `id` (the program was freed); other
/// threads' runtimes keep theirs until they end.
pub(crate) fn forget_program(id: ProgramId) {
    let dropped = CURRENT.try_with(|c| {
        c.borrow()
            .0
            .as_ref()
            .and_then(|t| t.programs.borrow_mut().remove(&id))
    });
    drop(dropped);
}

/// The thread that made a stream or write mask: only it may use or free it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner(u64);

impl Owner {
    /// The calling thread.
    pub(crate) fn here() -> Owner {
        // 0, no thread's number, where thread-local storage is gone (a static destructor run
        // by `exit`): nothing may be used or freed there.
        Owner(THIS_THREAD.try_with(|t| *t).unwrap_or(0))
    }

    /// Ends the process with an error unless the calling thread is the owner: `what` (`the
    /// stream`) belongs to another thread's runtime.
    pub(crate) fn check(self, what: &str) {
        if self != Owner::here() {
            fail(&format!(
                "{what} was made on another thread's Brook runtime: each thread has a runtime \
                 of its own (`brook::initialize` on that thread), and a stream or write mask \
                 can be used only on the thread whose runtime made it"
            ));
        }
    }

    /// Whether the calling thread is the owner.
    pub(crate) fn is_here(self) -> bool {
        self == Owner::here()
    }
}
