//! Tokens of the Brook language (C tokens plus Brook's keywords), produced by a `logos` lexer,
//! and the token pre-pass that feeds the parser.
//!
//! Every keyword and punctuator is declared once, in the `tokens!` table below: the table
//! gives the logos rule, the parser's token and its spelling in messages.
//!
//! The pre-pass does what a C preprocessor and a C lexer with typedef feedback would do:
//! - `#define NAME tokens…` lines define object-like macros, expanded at each later use; other
//!   `#` lines (`#include`, `#pragma`, …) are ignored;
//! - identifiers naming a type (a built-in type such as `float4`, or a `typedef`/`struct` name
//!   declared *earlier in the file*) become [`Tok::TypeName`], which resolves C's typedef-name
//!   ambiguity (`(Ray)x` is a cast, `(ray)-x` a subtraction) without restricting names;
//! - bracket nesting deeper than [`MAX_NESTING`] is rejected before parsing.

use std::collections::{HashMap, HashSet};
use std::fmt;

use logos::{FilterResult, Logos};

use brook_ir::Diagnostic;
use brook_ir::Span;

/// The deepest bracket (and expression/statement) nesting the front end accepts.
pub const MAX_NESTING: u32 = 256;
/// Limits that keep macro expansion from blowing up (`#define B A A A A` chains).
const MAX_MACRO_TOKENS: usize = 1 << 16;
const MAX_TOKENS: usize = 1 << 22;

/// Why a piece of source is not a token (logos's error type for [`Tok`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum LexError {
    /// A character that starts no token (`@`, `$`, a stray `'`).
    #[default]
    Invalid,
    /// A `/*` without its `*/`.
    UnterminatedComment,
    /// A float literal that does not parse.
    BadFloat,
    /// An integer literal beyond 64 bits.
    IntTooLarge,
}

fn block_comment<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> FilterResult<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            FilterResult::Skip
        }
        None => {
            let rest = lex.remainder().len();
            lex.bump(rest);
            FilterResult::Error(LexError::UnterminatedComment)
        }
    }
}

fn parse_float(text: &str) -> Result<f64, LexError> {
    let t = text.trim_end_matches(['f', 'F', 'h', 'H']);
    let t = if t.ends_with('.') {
        format!("{t}0")
    } else {
        t.to_string()
    };
    t.parse::<f64>().map_err(|_| LexError::BadFloat)
}

fn parse_int(text: &str) -> Result<i64, LexError> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16)
    } else {
        t.parse::<i64>()
    };
    v.map_err(|_| LexError::IntTooLarge)
}

/// Declares [`Tok`]: the tokens with a value, then every keyword and punctuator once as
/// `Variant = "spelling"`, which is both its logos rule and its text in messages.
macro_rules! tokens {
    ($($fixed:ident = $text:tt,)*) => {
        /// A token: what logos recognises, and what the parser sees after the pre-pass (which
        /// removes comments, directives and `->`, and turns type names into `TypeName`).
        #[derive(Logos, Debug, Clone, Copy, PartialEq)]
        #[logos(error = LexError)]
        #[logos(skip r"[ \t\r\n\f\v]+")]
        #[logos(skip(r"//[^\n]*", allow_greedy = true))]
        #[logos(skip r"\\\r?\n")]
        pub enum Tok<'a> {
            /// `/*`: its callback skips the comment up to `*/` (or reports it unterminated), so
            /// the parser never sees this token.
            #[token("/*", block_comment)]
            BlockComment,
            /// A `#` line, for the pre-pass.
            #[regex(r"#[^\n]*", |lex| lex.slice(), allow_greedy = true)]
            Directive(&'a str),
            /// `->`, lexed only to be refused with a clear message.
            #[token("->")]
            Arrow,

            /// A name that is not a keyword (nor, after the pre-pass, a type name).
            #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice())]
            Ident(&'a str),
            /// A built-in type name or a `typedef`/`struct` name declared earlier (made from an
            /// `Ident` by the pre-pass).
            TypeName(&'a str),
            /// A float literal (`1.`, `.5`, `2e3`, with an optional `f` or `h` suffix).
            #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?[fFhH]?", |lex| parse_float(lex.slice()))]
            #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?[fFhH]?", |lex| parse_float(lex.slice()))]
            #[regex(r"[0-9]+[eE][+-]?[0-9]+[fFhH]?", |lex| parse_float(lex.slice()))]
            Float(f64),
            /// A decimal or hexadecimal integer literal (`u` and `l` suffixes are ignored).
            #[regex(r"[0-9]+[uUlL]*", |lex| parse_int(lex.slice()))]
            #[regex(r"0[xX][0-9a-fA-F]+[uUlL]*", |lex| parse_int(lex.slice()))]
            Int(i64),

            $(#[doc = concat!("`", $text, "`")] #[token($text)] $fixed,)*
        }

        impl fmt::Display for Tok<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let s = match self {
                    Tok::Ident(s) => return write!(f, "identifier `{s}`"),
                    Tok::TypeName(s) => return write!(f, "type name `{s}`"),
                    Tok::Float(v) => return write!(f, "number `{v}`"),
                    Tok::Int(v) => return write!(f, "number `{v}`"),
                    Tok::Directive(d) => return write!(f, "directive `{d}`"),
                    Tok::BlockComment => "/*",
                    Tok::Arrow => "->",
                    $(Tok::$fixed => $text,)*
                };
                write!(f, "`{s}`")
            }
        }
    };
}

tokens! {
    Kernel = "kernel",
    Reduce = "reduce",
    Out = "out",
    Iter = "iter",
    Vout = "vout",
    Struct = "struct",
    Typedef = "typedef",
    Const = "const",
    If = "if",
    Else = "else",
    For = "for",
    While = "while",
    Do = "do",
    Break = "break",
    Continue = "continue",
    Return = "return",
    Discard = "discard",
    Indexof = "indexof",
    Push = "push",
    True = "true",
    False = "false",
    LParen = "(",
    RParen = ")",
    LBracket = "[",
    RBracket = "]",
    LBrace = "{",
    RBrace = "}",
    Semi = ";",
    Comma = ",",
    Dot = ".",
    Question = "?",
    Colon = ":",
    Plus = "+",
    Minus = "-",
    Star = "*",
    Slash = "/",
    Percent = "%",
    PlusPlus = "++",
    MinusMinus = "--",
    Assign = "=",
    PlusAssign = "+=",
    MinusAssign = "-=",
    StarAssign = "*=",
    SlashAssign = "/=",
    PercentAssign = "%=",
    AmpAssign = "&=",
    PipeAssign = "|=",
    CaretAssign = "^=",
    ShlAssign = "<<=",
    ShrAssign = ">>=",
    EqEq = "==",
    NotEq = "!=",
    Lt = "<",
    Gt = ">",
    Le = "<=",
    Ge = ">=",
    AndAnd = "&&",
    OrOr = "||",
    Bang = "!",
    Amp = "&",
    Pipe = "|",
    Caret = "^",
    Tilde = "~",
    Shl = "<<",
    Shr = ">>",
}

/// A token with its byte range, as lalrpop wants it.
pub type Spanned<'a> = (usize, Tok<'a>, usize);

/// Is `name` one of the built-in type names (`float`, `float3`, `int2`, `bool`, `float4x4`,
/// `void`, …)?
pub fn is_builtin_type_name(name: &str) -> bool {
    crate::check::types::builtin_type(name).is_some() || name == "void"
}

/// Lexes `text` (a slice of the source starting at byte `base`) into tokens, reporting bad
/// characters, bad numbers and unterminated comments.
fn lex_raw<'a>(
    text: &'a str,
    base: usize,
    diags: &mut Vec<Diagnostic>,
    out: &mut Vec<Spanned<'a>>,
) {
    let mut lexer = Tok::lexer(text);
    // A run of invalid characters gives one diagnostic, not one per byte.
    let mut bad_run: Option<(usize, usize)> = None;
    let flush = |bad_run: &mut Option<(usize, usize)>, diags: &mut Vec<Diagnostic>| {
        if let Some((s, e)) = bad_run.take() {
            let shown: String = text[s - base..e - base].chars().take(16).collect();
            diags.push(
                Diagnostic::error(
                    format!(
                        "unexpected character{} `{}`",
                        if shown.chars().count() > 1 { "s" } else { "" },
                        shown.escape_debug()
                    ),
                    Span::new(s, e),
                )
                .with_label(Span::new(s, e), "not part of any Brook token"),
            );
        }
    };
    while let Some(item) = lexer.next() {
        let r = lexer.span();
        let (s, e) = (r.start + base, r.end + base);
        let span = Span::new(s, e);
        if !matches!(item, Err(LexError::Invalid)) {
            flush(&mut bad_run, diags);
        }
        match item {
            Ok(tok) => out.push((s, tok, e)),
            Err(LexError::UnterminatedComment) => diags.push(
                Diagnostic::error("unterminated block comment", Span::new(s, s + 2))
                    .with_label(Span::new(s, s + 2), "this comment is never closed")
                    .with_hint("close the comment with `*/`"),
            ),
            Err(LexError::BadFloat) => diags.push(Diagnostic::error(
                format!("invalid number `{}`", lexer.slice()),
                span,
            )),
            Err(LexError::IntTooLarge) => diags.push(
                Diagnostic::error(format!("integer `{}` is too large", lexer.slice()), span)
                    .with_hint("integers are 32-bit; write a float literal instead"),
            ),
            Err(LexError::Invalid) => match &mut bad_run {
                Some((_, end)) if *end == s => *end = e,
                _ => {
                    flush(&mut bad_run, diags);
                    bad_run = Some((s, e));
                }
            },
        }
    }
    flush(&mut bad_run, diags);
}

/// The result of the token pre-pass: the parser's input, or nothing if lexing failed.
pub fn tokenize<'a>(source: &'a str, diags: &mut Vec<Diagnostic>) -> Vec<Spanned<'a>> {
    let mut raw = Vec::new();
    let before = diags.len();
    lex_raw(source, 0, diags, &mut raw);
    let lex_failed = diags.len() > before;

    let mut macros: HashMap<&'a str, Vec<Spanned<'a>>> = HashMap::new();
    let mut toks: Vec<Spanned<'a>> = Vec::with_capacity(raw.len());
    let mut raw = raw.into_iter().peekable();
    while let Some((s, t, e)) = raw.next() {
        match t {
            Tok::Directive(text) => {
                let line_start = source[..s].rfind('\n').map_or(0, |i| i + 1);
                if source[line_start..s].trim().is_empty() {
                    directive(text, s, &mut macros, diags);
                } else {
                    diags.push(
                        Diagnostic::error("unexpected `#`", Span::new(s, s + 1))
                            .with_label(Span::new(s, s + 1), "a directive must start its line"),
                    );
                }
            }
            // C's `unsigned` (a keyword, never a name). `unsigned char` is the original's
            // `uchar` (a float, as its GPU backends computed it): one token spanning both
            // words. `unsigned int` (or a bare `unsigned`) is `int`: its GPU backends computed
            // both as floats, exact within 2^24, where the sign of a value never wraps.
            Tok::Ident("unsigned") => match raw.peek() {
                Some(&(_, Tok::Ident("char"), end)) => {
                    raw.next();
                    toks.push((s, Tok::Ident("uchar"), end));
                }
                Some(&(_, Tok::Ident("int"), end)) => {
                    raw.next();
                    toks.push((s, Tok::Ident("int"), end));
                }
                Some(&(_, Tok::Ident(other @ ("short" | "long")), end)) => diags.push(
                    Diagnostic::error(
                        format!("`unsigned {other}` is not supported in kernels"),
                        Span::new(s, end),
                    )
                    .with_label(Span::new(s, end), "not a Brook type")
                    .with_hint("Brook kernels have `unsigned char` and `unsigned int` (as `int`)"),
                ),
                _ => toks.push((s, Tok::Ident("int"), e)),
            },
            Tok::Ident(name) => {
                if let Some(body) = macros.get(name) {
                    if toks.len() + body.len() > MAX_TOKENS {
                        diags.push(Diagnostic::error(
                            "program too large after macro expansion",
                            Span::new(s, e),
                        ));
                        return Vec::new();
                    }
                    // Expanded tokens point at the macro's use.
                    toks.extend(body.iter().map(|&(_, t, _)| (s, t, e)));
                } else {
                    toks.push((s, t, e));
                }
            }
            Tok::Arrow => diags.push(
                Diagnostic::error(
                    "`->` is not supported: Brook has no pointers",
                    Span::new(s, e),
                )
                .with_hint("use `.` to access a member"),
            ),
            Tok::BlockComment => {}
            other => toks.push((s, other, e)),
        }
    }
    if lex_failed || diags.len() > before {
        return Vec::new();
    }
    classify_type_names(&mut toks);
    if let Some(d) = check_nesting(&toks) {
        diags.push(d);
        return Vec::new();
    }
    toks
}

/// Interprets one `#` line: `#define NAME tokens` defines a macro; others are ignored.
fn directive<'a>(
    text: &'a str,
    start: usize,
    macros: &mut HashMap<&'a str, Vec<Spanned<'a>>>,
    diags: &mut Vec<Diagnostic>,
) {
    let body = text[1..].trim_start();
    let Some(rest) = body.strip_prefix("define") else {
        return;
    };
    if !rest.starts_with([' ', '\t']) {
        return;
    }
    let rest_start = start + (text.len() - rest.len());
    let mut raw = Vec::new();
    let before = diags.len();
    lex_raw(rest, rest_start, diags, &mut raw);
    if diags.len() > before {
        return;
    }
    let mut iter = raw.into_iter();
    let Some((ns, Tok::Ident(name), ne)) = iter.next() else {
        diags.push(Diagnostic::error(
            "`#define` needs a name",
            Span::new(start, start + text.len()),
        ));
        return;
    };
    let after_name = &rest[ne - rest_start..];
    if after_name.starts_with('(') {
        diags.push(
            Diagnostic::error(
                format!("function-like macro `{name}` is not supported"),
                Span::new(ns, ne),
            )
            .with_hint("only `#define NAME value` is supported; write a helper function instead"),
        );
        return;
    }
    let mut body = Vec::new();
    for (s, t, e) in iter {
        match t {
            Tok::Ident(n) => match macros.get(n) {
                Some(inner) => {
                    if body.len() + inner.len() > MAX_MACRO_TOKENS {
                        diags.push(Diagnostic::error(
                            format!("macro `{name}` is too large after expansion"),
                            Span::new(ns, ne),
                        ));
                        return;
                    }
                    body.extend(inner.iter().copied())
                }
                None => body.push((s, t, e)),
            },
            Tok::BlockComment | Tok::Directive(_) | Tok::Arrow => {}
            other => body.push((s, other, e)),
        }
    }
    macros.insert(name, body);
}

/// Turns identifiers that name types into [`Tok::TypeName`]. A `typedef` name counts from the
/// end of its declaration on, a struct tag from its `struct Tag` on; a name right after `.`
/// (a member) or `struct` (a tag) stays an identifier, and so does a matrix type name declared
/// as a function, from its declaration on.
fn classify_type_names(toks: &mut [Spanned<'_>]) {
    let mut names: HashSet<&str> = HashSet::new();
    // Built-in matrix type names declared as function names.
    let mut shadowed: HashSet<&str> = HashSet::new();
    // Set while inside a top-level `typedef … ;`: the brace depth at its start.
    let mut in_typedef: Option<u32> = None;
    let mut depth: u32 = 0;
    for i in 0..toks.len() {
        let prev = if i > 0 { Some(toks[i - 1].1) } else { None };
        match toks[i].1 {
            Tok::LBrace => depth += 1,
            Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Typedef => in_typedef = Some(depth),
            Tok::Semi if in_typedef == Some(depth) => {
                in_typedef = None;
                if i > 0 {
                    if let Tok::Ident(n) | Tok::TypeName(n) = toks[i - 1].1 {
                        names.insert(n);
                        toks[i - 1].1 = Tok::TypeName(n);
                    }
                }
            }
            Tok::Ident(n) => {
                let next = toks.get(i + 1).map(|t| t.1);
                if prev == Some(Tok::Struct) {
                    names.insert(n);
                } else if depth == 0 && declares_function(prev, next) && is_matrix_type_name(n) {
                    // `kernel void float2x4(…)`: the original had no matrix types, and its
                    // programs use these names for functions. The function's name hides the
                    // type from here on, as a C declaration hides a typedef.
                    shadowed.insert(n);
                } else if prev != Some(Tok::Dot)
                    && !shadowed.contains(n)
                    && (names.contains(n) || is_builtin_type_name(n))
                {
                    toks[i].1 = Tok::TypeName(n);
                }
            }
            _ => {}
        }
    }
}

/// Whether a name between `prev` and `next` is being declared as a function: after its return
/// type (or `kernel`/`reduce`) and before its parameter list.
fn declares_function(prev: Option<Tok<'_>>, next: Option<Tok<'_>>) -> bool {
    matches!(
        prev,
        Some(Tok::TypeName(_) | Tok::Ident(_) | Tok::Kernel | Tok::Reduce)
    ) && next == Some(Tok::LParen)
}

fn is_matrix_type_name(name: &str) -> bool {
    matches!(
        crate::check::types::builtin_type(name),
        Some(brook_ir::Type::Matrix { .. })
    )
}

/// Rejects bracket nesting deeper than [`MAX_NESTING`], so nothing later recurses too deeply.
fn check_nesting(toks: &[Spanned<'_>]) -> Option<Diagnostic> {
    let mut depth: u32 = 0;
    for &(s, t, e) in toks {
        match t {
            Tok::LParen | Tok::LBracket | Tok::LBrace => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(
                        Diagnostic::error(
                            format!(
                                "nesting too deep: more than {MAX_NESTING} levels of brackets ((), [] and {{}} together)"
                            ),
                            Span::new(s, e),
                        )
                        .with_label(Span::new(s, e), "this bracket is too deeply nested"),
                    );
                }
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        let mut d = Vec::new();
        let t = tokenize(src, &mut d);
        assert!(d.is_empty(), "{d:?}");
        t.into_iter().map(|(_, t, _)| t).collect()
    }

    #[test]
    fn floats() {
        assert_eq!(
            toks("1.0 .5 1e-3 2.f 1.0f 3"),
            vec![
                Tok::Float(1.0),
                Tok::Float(0.5),
                Tok::Float(1e-3),
                Tok::Float(2.0),
                Tok::Float(1.0),
                Tok::Int(3)
            ]
        );
    }

    #[test]
    fn comments_and_defines() {
        assert_eq!(
            toks("/* a */ x // b\n#define N 10\n#include <x>\nN"),
            vec![Tok::Ident("x"), Tok::Int(10)]
        );
    }

    #[test]
    fn typedef_names() {
        let t = toks("typedef float4 V; (V)x; s.V; struct S {}; S");
        assert_eq!(t[2], Tok::TypeName("V"));
        assert_eq!(t[5], Tok::TypeName("V"));
        assert_eq!(t[11], Tok::Ident("V"));
        assert_eq!(t[14], Tok::Ident("S"));
        assert_eq!(t[18], Tok::TypeName("S"));
    }
}
