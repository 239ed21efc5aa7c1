//! The Rust functions compiled code calls.
//!
//! Built-ins whose formula is not one of a few IEEE operations (`sin`, `exp`, `pow`, `round`,
//! `ldexp`, …) are not re-implemented in the JIT: the code calls the interpreter's own
//! formula (`exec::builtin::float1(b)` and friends hand out plain `fn` pointers) through a
//! C-ABI trampoline, passing the formula as its first argument: one call per scalar, one
//! call per vector ([`Call::Lanes`], the components in a stack slot). So both engines compute such
//! a built-in with the very same Rust function, and a change to a formula reaches both.
//!
//! `vout` pushes go to the tile's buffers through three more trampolines, and code compiled
//! for a call with a time limit reads the clock through [`Call::TimeUp`].

use cranelift_codegen::ir::{types, AbiParam, Signature, Type as Ty};
use cranelift_module::{FuncId, Linkage, Module};

use crate::watchdog::Watchdog;

/// Calls `f(x)`; `f` is a `fn(f32) -> f32` passed as an address.
extern "C" fn float1(f: usize, x: f32) -> f32 {
    // SAFETY: compiled code passes only addresses of `fn(f32) -> f32` here (see `Call::Float1`).
    let f: fn(f32) -> f32 = unsafe { std::mem::transmute(f) };
    f(x)
}

extern "C" fn float2(f: usize, x: f32, y: f32) -> f32 {
    // SAFETY: as `float1`, for `fn(f32, f32) -> f32`.
    let f: fn(f32, f32) -> f32 = unsafe { std::mem::transmute(f) };
    f(x, y)
}

/// `x[i] = f(x[i], y[i])` for the `n` components of a vector: one call for all of them, so
/// the caller spills its registers once, not once per component. `y` is read only when `f`
/// takes two arguments (`arity`); `f` is a formula of that arity.
extern "C" fn lanes(f: usize, arity: u32, x: *mut f32, y: *const f32, n: u32) {
    // SAFETY: compiled code passes a formula of `arity` arguments (see `Call::Lanes`) and
    // stack slots of at least `n` floats for each argument it takes.
    unsafe {
        for i in 0..n as usize {
            let v = match arity {
                1 => std::mem::transmute::<usize, fn(f32) -> f32>(f)(*x.add(i)),
                _ => std::mem::transmute::<usize, fn(f32, f32) -> f32>(f)(*x.add(i), *y.add(i)),
            };
            *x.add(i) = v;
        }
    }
}

/// `frexp`-like: returns the first result and writes the second to `second`.
extern "C" fn split(f: usize, x: f32, second: *mut f32) -> f32 {
    // SAFETY: as `float1`, for `fn(f32) -> (f32, f32)`; `second` is a stack slot of the caller.
    let f: fn(f32) -> (f32, f32) = unsafe { std::mem::transmute(f) };
    let (a, b) = f(x);
    unsafe { *second = b };
    a
}

/// The pushes of one tile of a kernel call with `vout` parameters.
#[derive(Debug, Default)]
pub(crate) struct VoutTile {
    /// Per vout, the floats pushed so far, in element order then push order.
    pub bufs: Vec<Vec<f32>>,
    /// Floats per value of each vout.
    pub fpe: Vec<usize>,
    /// Each buffer's length when the current element began.
    marks: Vec<usize>,
}

impl VoutTile {
    pub fn new(fpe: Vec<usize>) -> VoutTile {
        VoutTile {
            bufs: vec![Vec::new(); fpe.len()],
            marks: vec![0; fpe.len()],
            fpe,
        }
    }
}

/// An element begins: what it pushes can still be taken back.
extern "C" fn vout_mark(t: *mut VoutTile) {
    // SAFETY: the tile driver passes its own `VoutTile`, alive and unaliased for the call.
    let t = unsafe { &mut *t };
    for (m, b) in t.marks.iter_mut().zip(&t.bufs) {
        *m = b.len();
    }
}

/// Appends one value (its floats at `src`) to vout `k`.
extern "C" fn vout_push(t: *mut VoutTile, k: u32, src: *const f32) {
    // SAFETY: as `vout_mark`; `src` is a stack slot of the caller holding `fpe[k]` floats.
    let t = unsafe { &mut *t };
    let k = k as usize;
    let values = unsafe { std::slice::from_raw_parts(src, t.fpe[k]) };
    t.bufs[k].extend_from_slice(values);
}

/// The element discarded: its pushes are dropped.
extern "C" fn vout_discard(t: *mut VoutTile) {
    // SAFETY: as `vout_mark`.
    let t = unsafe { &mut *t };
    for (b, &m) in t.bufs.iter_mut().zip(&t.marks) {
        b.truncate(m);
    }
}

/// Whether the call's time is up (1) or not (0).
extern "C" fn time_up(w: *const Watchdog) -> i8 {
    // SAFETY: the call's driver passes the address of the call's own `Watchdog` (slot
    // `Slot::Watchdog`), alive for the whole call.
    unsafe { &*w }.check().is_err() as i8
}

/// A Rust function compiled code can call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Call {
    /// `(formula, x) -> f32` for `fn(f32) -> f32` formulas.
    Float1,
    Float2,
    /// `(formula, arity, x, y, n)`: a formula on every component of vectors held in
    /// memory, the results written over `x`.
    Lanes,
    /// `(formula, x, &mut second) -> first` for `fn(f32) -> (f32, f32)` formulas.
    Split,
    VoutMark,
    VoutPush,
    VoutDiscard,
    /// `(watchdog) -> i8`: whether the call's time limit has passed.
    TimeUp,
}

impl Call {
    pub const ALL: [Call; 8] = [
        Call::Float1,
        Call::Float2,
        Call::Lanes,
        Call::Split,
        Call::VoutMark,
        Call::VoutPush,
        Call::VoutDiscard,
        Call::TimeUp,
    ];

    /// The symbol the compiled code links against.
    pub fn name(self) -> &'static str {
        match self {
            Call::Float1 => "brook_float1",
            Call::Float2 => "brook_float2",
            Call::Lanes => "brook_lanes",
            Call::Split => "brook_split",
            Call::VoutMark => "brook_vout_mark",
            Call::VoutPush => "brook_vout_push",
            Call::VoutDiscard => "brook_vout_discard",
            Call::TimeUp => "brook_time_up",
        }
    }

    pub fn address(self) -> *const u8 {
        match self {
            Call::Float1 => float1 as *const u8,
            Call::Float2 => float2 as *const u8,
            Call::Lanes => lanes as *const u8,
            Call::Split => split as *const u8,
            Call::VoutMark => vout_mark as *const u8,
            Call::VoutPush => vout_push as *const u8,
            Call::VoutDiscard => vout_discard as *const u8,
            Call::TimeUp => time_up as *const u8,
        }
    }

    fn signature(self, sig: &mut Signature, ptr: Ty) {
        let f = types::F32;
        let (params, returns): (&[Ty], &[Ty]) = match self {
            Call::Float1 => (&[ptr, f], &[f]),
            Call::Float2 => (&[ptr, f, f], &[f]),
            Call::Lanes => (&[ptr, types::I32, ptr, ptr, types::I32], &[]),
            Call::Split => (&[ptr, f, ptr], &[f]),
            Call::VoutMark | Call::VoutDiscard => (&[ptr], &[]),
            Call::VoutPush => (&[ptr, types::I32, ptr], &[]),
            Call::TimeUp => (&[ptr], &[types::I8]),
        };
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns
            .extend(returns.iter().map(|&t| AbiParam::new(t)));
    }

    /// Declares every runtime function in `module`, in [`Call::ALL`] order.
    pub fn declare_all(module: &mut impl Module) -> Result<Vec<FuncId>, String> {
        let ptr = module.target_config().pointer_type();
        Call::ALL
            .iter()
            .map(|c| {
                let mut sig = module.make_signature();
                c.signature(&mut sig, ptr);
                module
                    .declare_function(c.name(), Linkage::Import, &sig)
                    .map_err(|e| e.to_string())
            })
            .collect()
    }

    pub fn index(self) -> usize {
        Call::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }
}
