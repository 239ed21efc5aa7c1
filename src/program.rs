//! A Brook program checked by the front end and prepared for one runtime.

use std::rc::Rc;

use brook_frontend::ir::Module;
use brook_glsl::SourceText;

use crate::backend::BackendProgram;

/// The checked IR and the source it came from, shared by the backends.
pub struct Compiled {
    pub module: Module,
    pub source: SourceText,
}

/// A program ready to run on the runtime that compiled it.
pub struct Program {
    pub(crate) compiled: Rc<Compiled>,
    pub(crate) prepared: BackendProgram,
}

impl Program {
    /// The typed IR, e.g. for printing with `brook_frontend::pretty`.
    pub fn module(&self) -> &Module {
        &self.compiled.module
    }

    pub fn source(&self) -> &SourceText {
        &self.compiled.source
    }
}
