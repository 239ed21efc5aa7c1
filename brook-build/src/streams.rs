//! Brook's stream declarations in host code: `float4 s<10, n>;`, `Ray r<100>, t<m>;`,
//! `iter float2 it<h, w> = iter(a, b);`, and stream parameters of host functions
//! (`void f(float s<>)`, `void f(float s<4, 3>)`, and pointers to streams as the original
//! wrote them: `float (*s)<>`, `float (**s)<>`). Extents are arbitrary host expressions
//! evaluated at run time.

use std::ops::Range;

use crate::scan::{Kind, Token};

/// Element types of streams that need no declaration (the original's `char`, `uchar`,
/// `int`, `fixed` and `shortfixed` are float streams whose host arrays hold those types; C's
/// `unsigned char` is `uchar`, its `unsigned int` `uint`).
pub const BUILTIN_ELEMENT_TYPES: &[&str] = &[
    "float",
    "float2",
    "float3",
    "float4",
    "int",
    "int2",
    "int3",
    "int4",
    "char",
    "char2",
    "char3",
    "char4",
    "uchar",
    "uchar2",
    "uchar3",
    "uchar4",
    "fixed",
    "fixed2",
    "fixed3",
    "fixed4",
    "shortfixed",
    "shortfixed2",
    "shortfixed3",
    "shortfixed4",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamDecl {
    /// The element type as written (`float4`, `Ray`).
    pub type_name: String,
    /// Tokens of `[iter] [const] [struct] Type`, which become the stream class.
    pub head: Range<usize>,
    pub declarators: Vec<Declarator>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declarator {
    pub name: String,
    /// Tokens from the name to the closing `>` (or to the `)` of an iterator's initialiser).
    pub tokens: Range<usize>,
    /// Byte ranges of the extent expressions; empty for a parameter `T s<>`.
    pub extents: Vec<Range<usize>>,
    /// `= iter(start, end)`: byte ranges of `start` and `end`.
    pub iter: Option<(Range<usize>, Range<usize>)>,
    /// `(*s)<>`: a pointer to a stream (1), or to a pointer to one (2), …
    pub pointers: usize,
    /// A parameter of a function (its extents, if any, only document it).
    pub parameter: bool,
}

/// A malformed stream declaration: what and where (a byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclError {
    pub message: String,
    pub at: usize,
}

/// Stream declarations among `toks[range]`; `is_type` says whether an identifier names a
/// type (a built-in vector type or a struct or typedef of the program).
pub fn find(
    src: &str,
    toks: &[Token],
    range: Range<usize>,
    is_type: &dyn Fn(&str) -> bool,
) -> Result<Vec<StreamDecl>, DeclError> {
    let mut out = Vec::new();
    let mut k = range.start;
    while k + 2 < range.end {
        if !(toks[k].kind == Kind::Ident
            && is_type(toks[k].text(src))
            && starts_declarator(src, toks, k + 1, range.end))
        {
            k += 1;
            continue;
        }
        let mut head_start = k;
        let mut type_name = toks[k].text(src).to_string();
        if matches!(type_name.as_str(), "char" | "int")
            && k > range.start
            && toks[k - 1].is(src, "unsigned")
        {
            head_start -= 1;
            type_name = format!("u{type_name}");
        }
        while head_start > range.start
            && matches!(toks[head_start - 1].text(src), "iter" | "const" | "struct")
        {
            head_start -= 1;
        }
        let parameter =
            head_start > range.start && matches!(toks[head_start - 1].text(src), "(" | ",");
        let mut declarators = Vec::new();
        let mut next = k + 1;
        loop {
            let mut d = declarator(src, toks, next, range.end)?;
            d.parameter = parameter;
            next = d.tokens.end;
            declarators.push(d);
            let more = !parameter
                && next + 1 < range.end
                && toks[next].is(src, ",")
                && starts_declarator(src, toks, next + 1, range.end);
            if !more {
                break;
            }
            next += 1;
        }
        out.push(StreamDecl {
            type_name,
            head: head_start..k + 1,
            declarators,
        });
        k = next;
    }
    Ok(out)
}

/// The stars of `( * … name ) <` starting at token `at` and the index of its name, if it is one.
fn pointer_declarator(src: &str, toks: &[Token], at: usize, end: usize) -> Option<(usize, usize)> {
    if !toks.get(at)?.is(src, "(") {
        return None;
    }
    let stars = toks[at + 1..end.min(toks.len())]
        .iter()
        .take_while(|t| t.is(src, "*"))
        .count();
    let name = at + 1 + stars;
    let closes = name + 2 < end
        && toks[name].kind == Kind::Ident
        && toks[name + 1].is(src, ")")
        && toks[name + 2].is(src, "<");
    (stars > 0 && closes).then_some((stars, name))
}

/// Token `at` starts a stream declarator: `name <` or `( * name ) <`.
fn starts_declarator(src: &str, toks: &[Token], at: usize, end: usize) -> bool {
    let plain = at + 1 < end && toks[at].kind == Kind::Ident && toks[at + 1].is(src, "<");
    plain || pointer_declarator(src, toks, at, end).is_some()
}

/// `name < e, … >` with an optional `= iter(a, b)`, or `(*name) < … >`, starting at its
/// first token.
fn declarator(src: &str, toks: &[Token], at: usize, end: usize) -> Result<Declarator, DeclError> {
    if let Some((pointers, name)) = pointer_declarator(src, toks, at, end) {
        let (extents, close) = delimited(src, toks, name + 3, end, ">")?;
        return Ok(Declarator {
            name: toks[name].text(src).to_string(),
            tokens: at..close + 1,
            extents,
            iter: None,
            pointers,
            parameter: false,
        });
    }
    let (extents, close) = delimited(src, toks, at + 2, end, ">")?;
    let mut after = close + 1;
    let mut iter = None;
    if after < end && toks[after].is(src, "=") {
        let call_ok =
            after + 2 < end && toks[after + 1].is(src, "iter") && toks[after + 2].is(src, "(");
        if !call_ok {
            return Err(DeclError {
                message: "a stream can only be initialised by `iter(start, end)`".into(),
                at: toks[after].span.start,
            });
        }
        let (bounds, close) = delimited(src, toks, after + 3, end, ")")?;
        let [a, b]: [Range<usize>; 2] = bounds.try_into().map_err(|_| DeclError {
            message: "`iter` takes two arguments: iter(start, end)".into(),
            at: toks[after + 1].span.start,
        })?;
        iter = Some((a, b));
        after = close + 1;
    }
    Ok(Declarator {
        name: toks[at].text(src).to_string(),
        tokens: at..after,
        extents,
        iter,
        pointers: 0,
        parameter: false,
    })
}

/// Comma-separated expressions from token `from` up to the `close` token at bracket depth 0:
/// their byte ranges and the index of `close`.
fn delimited(
    src: &str,
    toks: &[Token],
    from: usize,
    end: usize,
    close: &str,
) -> Result<(Vec<Range<usize>>, usize), DeclError> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut part_start = from;
    for j in from..end {
        let t = toks[j].text(src);
        if depth == 0 && (t == close || t == ",") {
            if j > part_start {
                parts.push(toks[part_start].span.start..toks[j - 1].span.end);
            } else if t == "," || !parts.is_empty() {
                return Err(DeclError {
                    message: "missing expression".into(),
                    at: toks[j].span.start,
                });
            }
            if t == close {
                return Ok((parts, j));
            }
            part_start = j + 1;
            continue;
        }
        match t {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.checked_sub(1).ok_or_else(|| DeclError {
                    message: format!("expected `{close}`"),
                    at: toks[j].span.start,
                })?
            }
            ";" => break,
            _ => {}
        }
    }
    Err(DeclError {
        message: format!("expected `{close}`"),
        at: toks[end.min(toks.len()) - 1].span.end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::tokenize;

    fn decls(src: &str) -> Vec<StreamDecl> {
        let toks = tokenize(src).unwrap();
        let is_type = |n: &str| BUILTIN_ELEMENT_TYPES.contains(&n) || n == "Ray";
        find(src, &toks, 0..toks.len(), &is_type).unwrap()
    }

    #[test]
    fn finds_declarations_with_runtime_extents_and_iterators() {
        let src = "void f(float s<>, int n) { float4 a<10, f(n, 2)>, b<n>; x = a < b; \
                   iter float2 it<4, 4> = iter(float2(0, 0), float2(1, g(1, 2))); Ray r<3>; }";
        let d = decls(src);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].declarators[0].extents.len(), 0);
        let ext: Vec<&str> = d[1].declarators[0]
            .extents
            .iter()
            .map(|r| &src[r.clone()])
            .collect();
        assert_eq!(ext, ["10", "f(n, 2)"]);
        assert_eq!(d[1].declarators[1].name, "b");
        let it = &d[2];
        assert_eq!(it.type_name, "float2");
        let (a, b) = it.declarators[0].iter.clone().unwrap();
        assert_eq!((&src[a], &src[b]), ("float2(0, 0)", "float2(1, g(1, 2))"));
        assert_eq!(d[3].type_name, "Ray");
    }

    #[test]
    fn an_unsigned_int_stream_is_a_uint_one() {
        let src = "void f() { unsigned int a<4>; }";
        let d = decls(src);
        assert_eq!(d[0].type_name, "uint");
    }

    #[test]
    fn an_unsigned_char_stream_is_a_uchar_one() {
        let src = "void f() { const unsigned char a<4>; }";
        let d = decls(src);
        assert_eq!(d[0].type_name, "uchar");
        assert_eq!(
            d[0].head.len(),
            3,
            "`const unsigned char` becomes the stream class"
        );
    }

    #[test]
    fn finds_stream_parameters_with_extents_and_pointers_to_streams() {
        let src =
            "void f(float s<4, 3>, float (*o)<4,3>, float (**p)<>, int n) { float a<n>, b<2>; }";
        let d = decls(src);
        let names: Vec<(&str, usize, bool)> = d
            .iter()
            .flat_map(|d| &d.declarators)
            .map(|d| (d.name.as_str(), d.pointers, d.parameter))
            .collect();
        assert_eq!(
            names,
            [
                ("s", 0, true),
                ("o", 1, true),
                ("p", 2, true),
                ("a", 0, false),
                ("b", 0, false)
            ]
        );
    }

    #[test]
    fn rejects_other_initialisers() {
        let src = "float a<4> = 3;";
        let toks = tokenize(src).unwrap();
        let err = find(src, &toks, 0..toks.len(), &|n| n == "float").unwrap_err();
        assert!(err.message.contains("iter(start, end)"), "{err:?}");
    }
}
