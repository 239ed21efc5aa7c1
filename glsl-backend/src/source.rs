//! The Brook source a shader came from ([`SourceText`], from brook-core), so generated code
//! can quote it and driver messages can be mapped back.

pub use brook_core::SourceText;

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
