//! The Brook source a shader came from, so generated code can quote it.

/// A Brook file's name and text.
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
    fn recognises_only_source_quotes() {
        assert_eq!(
            quoted_source_line("    // a.br:3: x = 1;"),
            Some("a.br:3: x = 1;")
        );
        assert_eq!(quoted_source_line("// Brook kernel `k` (a.br:3)"), None);
        assert_eq!(quoted_source_line("uniform float a; // constant `a`"), None);
    }
}
