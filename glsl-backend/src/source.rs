//! The Brook source a shader came from, so generated code can quote it.

/// A Brook file's name and text, with where each line starts, so looking up the line of any
/// span is a binary search: the generator quotes the line above every statement, and a
/// 40,000-statement kernel must not cost 40,000 scans of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    pub name: String,
    pub text: String,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
}

impl SourceText {
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

/// The quote of a Brook statement that the generator writes above its GLSL
/// (`// file.br:LINE: text`), for mapping driver messages back; `None` for any other line.
pub fn quoted_source_line(glsl_line: &str) -> Option<&str> {
    let quote = glsl_line.trim().strip_prefix("// ")?;
    let (location, _) = quote.split_once(": ")?;
    let (_, line) = location.rsplit_once(':')?;
    (!line.is_empty() && line.chars().all(|c| c.is_ascii_digit())).then_some(quote)
}

#[cfg(test)]
mod tests {
    use super::quoted_source_line;

    #[test]
    fn lines_are_found_by_offset_and_number() {
        let src = super::SourceText::new("a.br", "first\n  second \n\nfourth");
        assert_eq!(src.line_of(0), 1);
        assert_eq!(src.line_of(5), 1);
        assert_eq!(src.line_of(6), 2);
        assert_eq!(src.line_of(17), 4);
        assert_eq!(src.line(2), "second");
        assert_eq!(src.line(3), "");
        assert_eq!(src.line(4), "fourth");
        assert_eq!(src.line(5), "");
        assert_eq!(src.line(0), "");
    }

    #[test]
    fn recognises_only_source_quotes() {
        assert_eq!(
            quoted_source_line("    // a.br:3: x = 1;"),
            Some("a.br:3: x = 1;")
        );
        assert_eq!(quoted_source_line("// Brook kernel `k` (a.br:3)"), None);
        assert_eq!(quoted_source_line("uniform float a; // constant `a`"), None);
    }
}
