//! A Brook program as every backend receives it: the checked IR and the source it came from.

use brook_ir::{Function, FunctionId, FunctionKind, Module};

use crate::error::BrookError;

/// A Brook file's name and text, with where each line starts, so generated code can quote it
/// and errors can point into it. Looking up the line of any span is a binary search: the GLSL
/// generator quotes the line above every statement, and a 40,000-statement kernel must not
/// cost 40,000 scans of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The file name (or the name the source was given), as errors and generated comments
    /// quote it.
    pub name: String,
    /// The whole Brook source.
    pub text: String,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
}

impl SourceText {
    /// The source `text` under `name`, its line starts indexed.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceText {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceText {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// The file name as one line, for comments in generated code: a name may hold a newline
    /// or another control character, which must not end the comment and turn the rest of the
    /// name into code; those are escaped (`\n`).
    pub fn name_in_comment(&self) -> std::borrow::Cow<'_, str> {
        if self.name.chars().any(char::is_control) {
            self.name.escape_debug().to_string().into()
        } else {
            self.name.as_str().into()
        }
    }

    /// The quote of line `line` that generated code writes above the statement it came
    /// from (`// file.br:LINE: text`), which [`quoted_source_line`] recognises.
    pub fn quote(&self, line: usize) -> String {
        format!("// {}:{line}: {}", self.name_in_comment(), self.line(line))
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: u32) -> usize {
        self.line_starts
            .partition_point(|&s| s <= offset as usize)
            .max(1)
    }

    /// The trimmed text of 1-based line `line` ("" past the end).
    pub fn line(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        self.text[start..end].trim()
    }
}

/// The Brook line a line of generated code quotes (`file.br:LINE: text`, as
/// [`SourceText::quote`] writes it), for mapping driver messages back and marking quotes in
/// the explorer; `None` for any other line.
pub fn quoted_source_line(generated: &str) -> Option<&str> {
    let quote = generated.trim().strip_prefix("// ")?;
    let (location, _) = quote.split_once(": ")?;
    let (_, line) = location.rsplit_once(':')?;
    (!line.is_empty() && line.chars().all(|c| c.is_ascii_digit())).then_some(quote)
}

/// A program checked by the front end, shared by the runtime and the backend that prepared it.
#[derive(Debug)]
pub struct Compiled {
    /// The front end's checked IR: every kernel and reduce function, typed.
    pub module: Module,
    /// The Brook source the IR came from, for quoting and for placing errors.
    pub source: SourceText,
}

impl Compiled {
    /// The program the front end checked, made ready for any backend: the IR is validated
    /// (`brook_ir::validate`), so no backend sees malformed IR, then its composite built-ins
    /// are written as their formulas (`brook_ir::lower_composites`), so backends implement
    /// primitives only, and validated again. A failure is a bug of the front end or of the
    /// lowering, reported as [`BrookError::Internal`] at the line of the bad node.
    pub fn new(mut module: Module, source: SourceText) -> Result<Compiled, BrookError> {
        let invalid = |module: &Module| brook_ir::validate(module).err();
        let mut error = invalid(&module);
        if error.is_none() {
            brook_ir::lower_composites(&mut module);
            error = invalid(&module);
        }
        let compiled = Compiled { module, source };
        match error {
            None => Ok(compiled),
            Some(e) => Err(compiled.at(
                e.span.start,
                BrookError::Internal {
                    message: e.to_string(),
                },
            )),
        }
    }

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
        self.source.line_of(function.span.start)
    }

    /// `error`, from a call of function `f`, placed in the Brook source at `f`'s definition;
    /// an error placed already (at the statement it is about) stays as it is.
    pub fn locate(&self, f: FunctionId, error: BrookError) -> BrookError {
        match error {
            BrookError::At { .. } => error,
            error => self.at(self.module.func(f).span.start, error),
        }
    }

    /// `error` placed at the line holding byte `offset` of the source.
    pub fn at(&self, offset: u32, error: BrookError) -> BrookError {
        let line = self.source.line_of(offset);
        BrookError::At {
            file: self.source.name.clone(),
            line,
            text: self.source.line(line).to_string(),
            error: Box::new(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{quoted_source_line, SourceText};

    #[test]
    fn quotes_are_recognised_and_nothing_else() {
        let src = SourceText::new("a.br", "x = 1;\n  y = 2;");
        assert_eq!(src.quote(2), "// a.br:2: y = 2;");
        assert_eq!(
            quoted_source_line(&format!("    {}", src.quote(2))),
            Some("a.br:2: y = 2;")
        );
        assert_eq!(quoted_source_line("// Brook kernel `k` (a.br:3)"), None);
        assert_eq!(quoted_source_line("uniform float a; // constant `a`"), None);
    }

    #[test]
    fn lines_are_found_by_offset_and_number() {
        let src = SourceText::new("a.br", "first\n  second \n\nfourth");
        assert_eq!(src.line_of(0), 1);
        assert_eq!(src.line_of(5), 1);
        assert_eq!(src.line_of(6), 2);
        assert_eq!(src.line_of(17), 4);
        assert_eq!(src.line(2), "second");
        assert_eq!(src.line(3), "");
        assert_eq!(src.line(4), "fourth");
        assert_eq!(src.line(5), "");
        assert_eq!(src.line(0), "");
        assert_eq!(src.name_in_comment(), "a.br");
        let odd = SourceText::new("a.br\nvoid main() {}", "");
        assert_eq!(odd.name_in_comment(), "a.br\\nvoid main() {}");
    }
}
