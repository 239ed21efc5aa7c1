//! A Brook program checked by the front end and prepared for one runtime.

use std::rc::Rc;

use brook_frontend::ir::{FunctionId, Module};
use brook_glsl::{GenError, SourceText};
use brook_passes::PassError;

use crate::backend::BackendProgram;
use crate::error::BrookError;

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

    /// `error`, from a call of function `f`, placed in the Brook source: at the statement a
    /// generation error names, else at `f`'s definition. Errors that quote their own line (a
    /// loop the driver cut short) or are placed already stay as they are.
    pub(crate) fn locate(&self, f: FunctionId, error: BrookError) -> BrookError {
        let span = match &error {
            BrookError::At { .. } | BrookError::Pass(PassError::LoopCut { .. }) => return error,
            BrookError::Pass(PassError::Generate(GenError::At { span, .. })) => *span,
            _ => self.module().func(f).span,
        };
        let src = self.source();
        let line = src.line_of(span.start);
        BrookError::At {
            file: src.name.clone(),
            line,
            text: src.line(line).to_string(),
            error: Box::new(error),
        }
    }
}
