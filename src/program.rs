//! A Brook program checked by the front end and prepared for one runtime.

use std::any::Any;
use std::rc::Rc;

use brook_core::{BrookError, Compiled, ElementFormat, SourceText};
use brook_ir::Module;

use crate::gate::{Gate, Prepared};

/// A program ready to run on the runtime that compiled it. Whatever the backend compiled for
/// it (GL programs of every kernel variant, CPU kernel plans) is released when it drops, or
/// when a kernel call of it that was deferred ([`Runtime::set_automatic_fusion`](crate::Runtime::set_automatic_fusion)) has run.
pub struct Program {
    pub(crate) prepared: Rc<Prepared>,
    /// The gate of the runtime that compiled it.
    pub(crate) gate: Rc<Gate>,
}

impl Program {
    /// The typed IR, e.g. for printing with `brook_frontend::pretty`.
    /// The program's checked, typed IR (what every backend compiles).
    pub fn module(&self) -> &Module {
        &self.compiled().module
    }

    /// The Brook source it was compiled from, with its file name (for error lines).
    pub fn source(&self) -> &SourceText {
        &self.compiled().source
    }

    /// The element format of Brook type `name`: `float`..`float4`, or a struct of this program
    /// whose members are `float`..`float4` (as host code declares `Ray rays<100>;`).
    pub fn element_format(&self, name: &str) -> Result<ElementFormat, BrookError> {
        ElementFormat::named(&self.compiled().module, name)
    }

    /// The backend's prepared form of the program (a GL backend's linked programs), for
    /// backend-specific inspection.
    pub fn prepared(&self) -> &dyn Any {
        self.prepared.backend()
    }

    /// The checked program.
    pub(crate) fn compiled(&self) -> &Rc<Compiled> {
        &self.prepared.compiled
    }

    /// The program as the gate's calls name it (their `program`).
    pub(crate) fn gated(&self) -> &dyn Any {
        &self.prepared
    }
}
