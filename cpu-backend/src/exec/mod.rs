//! The interpreter: runs one `ir::Function` body for one element.
//!
//! A tree walk over the typed IR. The IR is already resolved and explicit (every conversion
//! is a `Convert`, every name an index), so each node maps to a few lines here:
//! `stmt` for statements and assignment places, `expr` for expressions, [`ops`] for
//! operators, [`builtin`] for Cg's built-in functions.
//!
//! A [`Frame`] holds what one invocation sees: parameter values (the input element, the
//! constant, the current output value), `indexof` positions, gather streams and locals. The
//! kernel driver ([`crate::kernel`]) refills one frame per element instead of allocating, and
//! helper calls get a frame of their own.
//!
//! Non-local exits: `break`/`continue`/`return` travel as a [`Flow`] value; `discard` and
//! errors travel as an [`Interrupt`] through `?`, since both abandon the whole element.

pub mod builtin;
mod expr;
pub use expr::frexp;
pub mod ops;
mod stmt;
pub(crate) use stmt::clamp_index;

use brook_ir::{Function, MathMode, Module, ParamClass};

use crate::error::CpuError;
use crate::stream::CpuStream;
use crate::value::Value;
use crate::watchdog::Watchdog;

/// What one invocation of a function sees.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// The function being run.
    pub func: &'a Function,
    /// One per parameter: the element of a stream or iterator, the value of a constant, the
    /// current value of an `out` or `reduce` parameter; `Void` for gathers.
    pub params: Vec<Value>,
    /// `indexof` of each parameter (`.x` = last dimension).
    pub positions: Vec<[f32; 4]>,
    /// The stream behind each gather parameter.
    pub gathers: Vec<Option<&'a CpuStream>>,
    /// Every local of the function, zero until its `Decl` runs.
    pub locals: Vec<Value>,
    /// The values pushed onto `vout` parameters by this element, in push order, with the
    /// parameter each went to (the kernel driver drains it after every element).
    pub pushed: Vec<(u32, Value)>,
    /// Every gather the element made, in order, when someone asked for them
    /// ([`crate::why`]); `None`, and nothing logged, on the normal path.
    pub reads: Option<Vec<GatherRead>>,
}

/// One gather an element made: which gather parameter, the index as the kernel computed it
/// (each component as a float, in the order written: one vector, or the subscripts), the
/// element it rounded and clamped to, and where in the Brook source the gather is.
#[derive(Debug, Clone, PartialEq)]
pub struct GatherRead {
    /// The gather parameter of the function the log belongs to.
    pub param: usize,
    /// The index expression's value: a vector index's components (`.x` first) or the
    /// subscripts (C order).
    pub index: Vec<f32>,
    /// The element it selected, first dimension first.
    pub element: Vec<usize>,
    /// The element's linear position in the gathered stream.
    pub linear: usize,
    /// The byte offset of the gather expression in the Brook source.
    pub at: u32,
}

impl<'a> Frame<'a> {
    /// A frame for `func` with every parameter and local at its zero value, ready to fill.
    pub fn new(module: &Module, func: &'a Function) -> Frame<'a> {
        let n = func.params.len();
        Frame {
            func,
            params: func
                .params
                .iter()
                .map(|p| match p.class {
                    ParamClass::Gather { .. } => Value::Void,
                    _ => Value::zero(&p.ty, module),
                })
                .collect(),
            positions: vec![[0.0; 4]; n],
            gathers: vec![None; n],
            locals: func
                .locals
                .iter()
                .map(|l| Value::zero(&l.ty, module))
                .collect(),
            pushed: Vec::new(),
            reads: None,
        }
    }
}

/// Why evaluation of an element stopped early.
#[derive(Debug)]
pub enum Interrupt {
    /// `discard`: the element writes none of its outputs.
    Discard,
    /// An error: the call fails (named after the function it happened in).
    Error(CpuError),
}

impl From<CpuError> for Interrupt {
    fn from(e: CpuError) -> Interrupt {
        Interrupt::Error(e)
    }
}

/// How a statement finished.
#[derive(Debug)]
pub enum Flow {
    /// Fell off the end: go on with the next statement.
    Normal,
    /// `break`: leave the innermost loop.
    Break,
    /// `continue`: go to the innermost loop's next iteration.
    Continue,
    /// `return`, with its value (`None` in a `void` function).
    Return(Option<Value>),
}

/// The interpreter for one module.
#[derive(Debug, Clone, Copy)]
pub struct Interp<'a> {
    /// The program the functions come from (helper calls, struct layouts).
    pub module: &'a Module,
    /// Checked at every loop back edge.
    pub watchdog: Watchdog,
    /// Which formulas the built-ins use (`exec::builtin::formula_in`).
    pub math: MathMode,
}

impl<'a> Interp<'a> {
    /// An interpreter for `module` without a time limit.
    pub fn new(module: &'a Module) -> Interp<'a> {
        Interp {
            module,
            watchdog: Watchdog::default(),
            math: MathMode::Accurate,
        }
    }

    /// The interpreter computing built-ins as `math` asks.
    pub fn in_mode(self, math: MathMode) -> Interp<'a> {
        Interp { math, ..self }
    }

    /// The interpreter stopping loops when `watchdog`'s time is up.
    pub fn watched(self, watchdog: Watchdog) -> Interp<'a> {
        Interp { watchdog, ..self }
    }

    /// Runs the body of `frame.func`; returns the value of `return expr`, if any.
    /// Errors name the function they happened in.
    pub fn run(&self, frame: &mut Frame<'a>) -> Result<Option<Value>, Interrupt> {
        let func = frame.func;
        match self.exec_block(frame, &func.body) {
            Ok(Flow::Return(Some(v))) => Ok(Some(stmt::coerce(v, &func.ret)?)),
            Ok(_) => Ok(None),
            Err(Interrupt::Error(e)) => Err(Interrupt::Error(e.in_function(&func.name))),
            Err(Interrupt::Discard) => Err(Interrupt::Discard),
        }
    }
}
