//! A Brook program as every backend receives it: the checked IR and the source it came from.

use brook_frontend::ir::{Function, FunctionId, FunctionKind, Module};

use crate::error::BrookError;

/// A Brook file's name and text, so generated code can quote it and errors can point into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    pub name: String,
    pub text: String,
}

impl SourceText {
    /// The trimmed text of 1-based line `line`.
    pub fn line(&self, line: usize) -> &str {
        self.text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .trim()
    }
}

/// A program checked by the front end, shared by the runtime and the backend that prepared it.
#[derive(Debug)]
pub struct Compiled {
    pub module: Module,
    pub source: SourceText,
}

impl Compiled {
    /// The function `name` of kind `kind`, or the error naming what is missing.
    pub fn function(
        &self,
        name: &str,
        kind: FunctionKind,
    ) -> Result<(FunctionId, &Function), BrookError> {
        let wanted = match kind {
            FunctionKind::Kernel => "kernel",
            FunctionKind::Reduce => "reduce function",
            FunctionKind::Helper => "function",
        };
        match self.module.function(name) {
            Some((id, f)) if f.kind == kind => Ok((id, f)),
            Some(_) if kind == FunctionKind::Reduce => Err(BrookError::Unknown {
                name: name.to_string(),
                what: wanted,
                message: format!(
                    "`{name}` is not a reduce function; declare it `reduce void {name}(T a<>, reduce T r<>)`"
                ),
            }),
            Some(_) => Err(BrookError::Unknown {
                name: name.to_string(),
                what: wanted,
                message: format!("`{name}` is not a {wanted} of this program"),
            }),
            None => Err(BrookError::Unknown {
                name: name.to_string(),
                what: wanted,
                message: format!("the program has no {wanted} `{name}`"),
            }),
        }
    }

    /// The 1-based line of `function`'s declaration in the source.
    pub fn line_of(&self, function: &Function) -> usize {
        function.span.line_col(&self.source.text).0
    }
}
