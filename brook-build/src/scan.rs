//! A small C tokenizer for host code: enough to find Brook's constructs in a C program
//! (stream declarations, kernel definitions, calls) while every byte of the source keeps its
//! position, so the translation copies untouched text verbatim and errors point at the
//! original line.
//!
//! The kernel language has its own lexer in the front end; this one also knows what host C
//! has and kernels lack (string and character literals, `->`, `::`), and keeps preprocessor
//! lines whole.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    /// A string or character literal.
    Literal,
    /// An operator or punctuator (`->`, `<=`, `>>`, `::`, `==`, `!=` are one token).
    Punct,
    /// A whole preprocessor line, continuation lines included.
    Directive,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub span: Range<usize>,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.span.clone()]
    }

    pub fn is(&self, src: &str, text: &str) -> bool {
        self.text(src) == text
    }
}

/// A tokenizing error: what and where (a byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    pub message: String,
    pub at: usize,
}

const TWO_CHAR_PUNCT: &[&str] = &["->", "<=", ">=", ">>", "<<", "::", "==", "!=", "&&", "||"];

/// Tokens of `src`, comments and whitespace skipped.
pub fn tokenize(src: &str) -> Result<Vec<Token>, ScanError> {
    let bytes = src.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        if src[i..].starts_with("/*") {
            i = match src[i + 2..].find("*/") {
                Some(n) => i + 2 + n + 2,
                None => {
                    return Err(ScanError {
                        message: "unterminated comment".into(),
                        at: start,
                    })
                }
            };
            continue;
        }
        let was_line_start = std::mem::replace(&mut line_start, false);
        let kind = if c == b'#' && was_line_start {
            i = directive_end(bytes, i);
            Kind::Directive
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = number_end(bytes, i);
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            i = literal_end(bytes, i).ok_or_else(|| ScanError {
                message: "unterminated literal".into(),
                at: start,
            })?;
            Kind::Literal
        } else {
            let two = src.get(i..i + 2).unwrap_or("");
            i += if TWO_CHAR_PUNCT.contains(&two) {
                2
            } else {
                src[i..].chars().next().map_or(1, char::len_utf8)
            };
            Kind::Punct
        };
        tokens.push(Token {
            kind,
            span: start..i,
        });
    }
    Ok(tokens)
}

/// The end of a preprocessor line starting at `i`, following `\` continuations.
fn directive_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
        }
        i += 1;
    }
    i
}

/// A pp-number: digits, letters, dots, and a sign after an exponent letter.
fn number_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        let c = bytes[i];
        let sign_after_exponent = (c == b'+' || c == b'-') && matches!(bytes[i - 1], b'e' | b'E');
        if c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || sign_after_exponent {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// The end of a string or character literal starting at `i`, or `None` if unterminated.
fn literal_end(bytes: &[u8], i: usize) -> Option<usize> {
    let quote = bytes[i];
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' => return None,
            c if c == quote => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        tokenize(src).unwrap().iter().map(|t| t.text(src)).collect()
    }

    #[test]
    fn keeps_literals_directives_and_two_char_operators() {
        let src =
            "#include <stdio.h>\nint main() { printf(\"a<b>%d\\n\", p->x >= 1.5e-3f); } // c\n";
        assert_eq!(
            texts(src),
            [
                "#include <stdio.h>",
                "int",
                "main",
                "(",
                ")",
                "{",
                "printf",
                "(",
                "\"a<b>%d\\n\"",
                ",",
                "p",
                "->",
                "x",
                ">=",
                "1.5e-3f",
                ")",
                ";",
                "}"
            ]
        );
    }

    #[test]
    fn a_hash_inside_a_line_is_not_a_directive() {
        let src = "a # b\n  #define N 3 \\\n  + 1\nx";
        let toks = tokenize(src).unwrap();
        assert_eq!(toks[1].kind, Kind::Punct);
        assert_eq!(toks[3].text(src), "#define N 3 \\\n  + 1");
        assert_eq!(toks[3].kind, Kind::Directive);
    }

    #[test]
    fn reports_unterminated_comments_and_strings() {
        assert_eq!(tokenize("x /* y").unwrap_err().at, 2);
        assert_eq!(tokenize("s = \"abc\n").unwrap_err().at, 4);
    }
}
