//! Byte ranges in a Brook source file, carried by every IR node so back ends can point
//! errors (and comments in generated code) at the Brook source.

/// A half-open byte range `start..end` in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset just past the last character.
    pub end: u32,
}

impl Span {
    /// The span `start..end` (byte offsets, as the lexer gives them).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// 1-based line and column of the span's start in `source`.
    pub fn line_col(self, source: &str) -> (usize, usize) {
        let upto = &source[..(self.start as usize).min(source.len())];
        let line = upto.matches('\n').count() + 1;
        let col = upto
            .rfind('\n')
            .map_or(upto.len(), |nl| upto.len() - nl - 1)
            + 1;
        (line, col)
    }
}
