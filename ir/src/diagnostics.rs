//! Compile errors with source positions, rendered by `codespan-reporting` (no colours):
//!
//! ```text
//! error: unknown identifier `reslt`
//!   ┌─ saxpy.br:2:5
//!   │
//! 2 │     reslt = a*x + y;
//!   │     ^^^^^ not declared
//!   │
//!   = did you mean `result`?
//! ```

use std::fmt;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor, Chars, Config};

use crate::span::Span;

/// One error: a message about `span`, optional secondary labels, and an optional hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The error, one line (`unknown identifier `reslt``).
    pub message: String,
    /// Where the error is: underlined in the rendered output.
    pub span: Span,
    /// Extra spans with text. A label whose span equals `span` is the primary label's text.
    pub labels: Vec<(Span, String)>,
    /// A suggestion printed after the source excerpt (`did you mean …?`).
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span`, without labels or hint.
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            labels: Vec::new(),
            hint: None,
        }
    }

    /// Adds a label: `text` printed under `span` (the primary label when `span` is the
    /// error's own).
    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    /// Sets the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Sets the hint if there is one (for suggestions that may find nothing).
    pub fn with_hint_opt(mut self, hint: Option<String>) -> Diagnostic {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }

    /// 1-based line and column of the error in `source`.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        self.span.line_col(source)
    }
}

/// All the errors of one compilation, with the source they refer to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    /// The name printed in positions (`saxpy.br:2:5`).
    pub file_name: String,
    /// The whole source text, to print the lines the errors point at.
    pub source: String,
    /// The errors, in source order.
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Bundles errors with the source they refer to.
    pub fn new(file_name: &str, source: &str, items: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics {
            file_name: file_name.to_string(),
            source: source.to_string(),
            items,
        }
    }

    /// Whether there are no errors.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many errors there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Each error as `file:line:col: message`, one a line (compact, for logs and tests).
    pub fn short(&self) -> String {
        let mut out = String::new();
        for d in &self.items {
            let (l, c) = d.line_col(&self.source);
            out.push_str(&format!("{}:{l}:{c}: {}\n", self.file_name, d.message));
        }
        out
    }

    /// Renders every error with the source line, an underline and any hint, without colours.
    pub fn render(&self) -> String {
        let file = SimpleFile::new(self.file_name.as_str(), self.source.as_str());
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let mut writer = NoColor::new(Vec::<u8>::new());
        let len = self.source.len();
        let clamp = |s: Span| {
            let start = (s.start as usize).min(len);
            let end = (s.end as usize).clamp(start, len);
            // Keep ranges on char boundaries so the renderer never slices mid-character.
            let fix = |mut i: usize| {
                while i > 0 && !self.source.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            fix(start)..fix(end)
        };
        for d in &self.items {
            let primary_text = d
                .labels
                .iter()
                .find(|(s, _)| *s == d.span)
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            let mut labels = vec![Label::primary((), clamp(d.span)).with_message(primary_text)];
            for (s, t) in &d.labels {
                if *s != d.span {
                    labels.push(Label::secondary((), clamp(*s)).with_message(t.clone()));
                }
            }
            let mut cs = CsDiagnostic::error()
                .with_message(d.message.clone())
                .with_labels(labels);
            if let Some(h) = &d.hint {
                cs = cs.with_notes(vec![h.clone()]);
            }
            if term::emit(&mut writer, &config, &file, &cs).is_err() {
                // Only possible with an out-of-range span; fall back to the short form.
                let (l, c) = d.line_col(&self.source);
                let line = format!("error: {}\n  at {}:{l}:{c}\n", d.message, self.file_name);
                let mut bytes = writer.into_inner();
                bytes.extend_from_slice(line.as_bytes());
                writer = NoColor::new(bytes);
            }
        }
        String::from_utf8_lossy(&writer.into_inner()).into_owned()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_and_caret() {
        let src = "kernel void f() {\n    x = 1;\n}\n";
        let start = src.find("x =").unwrap();
        let d = Diagnostic::error("unknown identifier `x`", Span::new(start, start + 1))
            .with_hint("did you mean `y`?");
        let ds = Diagnostics::new("t.br", src, vec![d]);
        let out = ds.render();
        assert!(out.contains("error: unknown identifier `x`"), "{out}");
        assert!(out.contains("t.br:2:5"), "{out}");
        assert!(out.contains("    x = 1;"), "{out}");
        assert!(out.contains("did you mean `y`?"), "{out}");
        // The caret sits under column 5 of the source line.
        let lines: Vec<&str> = out.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.ends_with("    x = 1;"))
            .unwrap();
        let src_line = lines[i];
        let caret_line = lines[i + 1];
        let x_col = src_line.find("x =").unwrap();
        assert_eq!(caret_line.find('^'), Some(x_col), "{out}");
    }
}
