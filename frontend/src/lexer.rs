//! Tokens of the Brook language (C tokens plus Brook's keywords), produced by a `logos` lexer,
//! and the token pre-pass that feeds the parser.
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

use crate::diagnostics::Diagnostic;
use crate::span::Span;

/// The deepest bracket (and expression/statement) nesting the front end accepts.
pub const MAX_NESTING: u32 = 256;
/// Limits that keep macro expansion from blowing up (`#define B A A A A` chains).
const MAX_MACRO_TOKENS: usize = 1 << 16;
const MAX_TOKENS: usize = 1 << 22;

#[derive(Debug, Clone, Default, PartialEq)]
pub enum LexError {
    #[default]
    Invalid,
    UnterminatedComment,
}

fn block_comment<'a>(lex: &mut logos::Lexer<'a, RawTok<'a>>) -> FilterResult<(), LexError> {
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

/// The raw tokens logos recognises.
#[derive(Logos, Debug, Clone, Copy, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f\v]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip r"\\\r?\n")]
pub enum RawTok<'a> {
    #[token("/*", block_comment)]
    BlockComment,
    #[regex(r"#[^\n]*", |lex| lex.slice(), allow_greedy = true)]
    Directive(&'a str),

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice())]
    Ident(&'a str),
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?[fFhH]?", |lex| lex.slice())]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?[fFhH]?", |lex| lex.slice())]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+[fFhH]?", |lex| lex.slice())]
    FloatLit(&'a str),
    #[regex(r"[0-9]+[uUlL]*", |lex| lex.slice())]
    #[regex(r"0[xX][0-9a-fA-F]+[uUlL]*", |lex| lex.slice())]
    IntLit(&'a str),

    #[token("kernel")]
    Kernel,
    #[token("reduce")]
    Reduce,
    #[token("out")]
    Out,
    #[token("iter")]
    Iter,
    #[token("vout")]
    Vout,
    #[token("struct")]
    Struct,
    #[token("typedef")]
    Typedef,
    #[token("const")]
    Const,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("for")]
    For,
    #[token("while")]
    While,
    #[token("do")]
    Do,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("return")]
    Return,
    #[token("discard")]
    Discard,
    #[token("indexof")]
    Indexof,
    #[token("push")]
    Push,
    #[token("true")]
    True,
    #[token("false")]
    False,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,

    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,
    #[token("%=")]
    PercentAssign,
    #[token("&=")]
    AmpAssign,
    #[token("|=")]
    PipeAssign,
    #[token("^=")]
    CaretAssign,
    #[token("<<=")]
    ShlAssign,
    #[token(">>=")]
    ShrAssign,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("!")]
    Bang,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("->")]
    Arrow,
}

/// The tokens the parser sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok<'a> {
    Ident(&'a str),
    /// A built-in type name or a `typedef`/`struct` name declared earlier.
    TypeName(&'a str),
    Float(f64),
    Int(i64),

    Kernel,
    Reduce,
    Out,
    Iter,
    Vout,
    Struct,
    Typedef,
    Const,
    If,
    Else,
    For,
    While,
    Do,
    Break,
    Continue,
    Return,
    Discard,
    Indexof,
    Push,
    True,
    False,

    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Semi,
    Comma,
    Dot,
    Question,
    Colon,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    PlusPlus,
    MinusMinus,
    Assign,
    PlusAssign,
    MinusAssign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    AmpAssign,
    PipeAssign,
    CaretAssign,
    ShlAssign,
    ShrAssign,
    EqEq,
    NotEq,
    Lt,
    Gt,
    Le,
    Ge,
    AndAnd,
    OrOr,
    Bang,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Shl,
    Shr,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Tok::Ident(s) => return write!(f, "identifier `{s}`"),
            Tok::TypeName(s) => return write!(f, "type name `{s}`"),
            Tok::Float(v) => return write!(f, "number `{v}`"),
            Tok::Int(v) => return write!(f, "number `{v}`"),
            Tok::Kernel => "kernel",
            Tok::Reduce => "reduce",
            Tok::Out => "out",
            Tok::Iter => "iter",
            Tok::Vout => "vout",
            Tok::Struct => "struct",
            Tok::Typedef => "typedef",
            Tok::Const => "const",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::For => "for",
            Tok::While => "while",
            Tok::Do => "do",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Return => "return",
            Tok::Discard => "discard",
            Tok::Indexof => "indexof",
            Tok::Push => "push",
            Tok::True => "true",
            Tok::False => "false",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::Question => "?",
            Tok::Colon => ":",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::PlusPlus => "++",
            Tok::MinusMinus => "--",
            Tok::Assign => "=",
            Tok::PlusAssign => "+=",
            Tok::MinusAssign => "-=",
            Tok::StarAssign => "*=",
            Tok::SlashAssign => "/=",
            Tok::PercentAssign => "%=",
            Tok::AmpAssign => "&=",
            Tok::PipeAssign => "|=",
            Tok::CaretAssign => "^=",
            Tok::ShlAssign => "<<=",
            Tok::ShrAssign => ">>=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Gt => ">",
            Tok::Le => "<=",
            Tok::Ge => ">=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Bang => "!",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
        };
        write!(f, "`{s}`")
    }
}

/// A token with its byte range, as lalrpop wants it.
pub type Spanned<'a> = (usize, Tok<'a>, usize);

/// Is `name` one of the built-in type names (`float`, `float3`, `int2`, `bool`, `float4x4`,
/// `void`, …)?
pub fn is_builtin_type_name(name: &str) -> bool {
    crate::check::types::builtin_type(name).is_some() || name == "void"
}

fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim_end_matches(['f', 'F', 'h', 'H']);
    let t = if t.ends_with('.') {
        format!("{t}0")
    } else {
        t.to_string()
    };
    t.parse::<f64>().ok()
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()
    } else {
        t.parse::<i64>().ok()
    }
}

fn convert(raw: RawTok<'_>) -> Option<Tok<'_>> {
    Some(match raw {
        RawTok::BlockComment | RawTok::Directive(_) | RawTok::Arrow => return None,
        RawTok::Ident(s) => Tok::Ident(s),
        RawTok::FloatLit(_) | RawTok::IntLit(_) => return None,
        RawTok::Kernel => Tok::Kernel,
        RawTok::Reduce => Tok::Reduce,
        RawTok::Out => Tok::Out,
        RawTok::Iter => Tok::Iter,
        RawTok::Vout => Tok::Vout,
        RawTok::Struct => Tok::Struct,
        RawTok::Typedef => Tok::Typedef,
        RawTok::Const => Tok::Const,
        RawTok::If => Tok::If,
        RawTok::Else => Tok::Else,
        RawTok::For => Tok::For,
        RawTok::While => Tok::While,
        RawTok::Do => Tok::Do,
        RawTok::Break => Tok::Break,
        RawTok::Continue => Tok::Continue,
        RawTok::Return => Tok::Return,
        RawTok::Discard => Tok::Discard,
        RawTok::Indexof => Tok::Indexof,
        RawTok::Push => Tok::Push,
        RawTok::True => Tok::True,
        RawTok::False => Tok::False,
        RawTok::LParen => Tok::LParen,
        RawTok::RParen => Tok::RParen,
        RawTok::LBracket => Tok::LBracket,
        RawTok::RBracket => Tok::RBracket,
        RawTok::LBrace => Tok::LBrace,
        RawTok::RBrace => Tok::RBrace,
        RawTok::Semi => Tok::Semi,
        RawTok::Comma => Tok::Comma,
        RawTok::Dot => Tok::Dot,
        RawTok::Question => Tok::Question,
        RawTok::Colon => Tok::Colon,
        RawTok::Plus => Tok::Plus,
        RawTok::Minus => Tok::Minus,
        RawTok::Star => Tok::Star,
        RawTok::Slash => Tok::Slash,
        RawTok::Percent => Tok::Percent,
        RawTok::PlusPlus => Tok::PlusPlus,
        RawTok::MinusMinus => Tok::MinusMinus,
        RawTok::Assign => Tok::Assign,
        RawTok::PlusAssign => Tok::PlusAssign,
        RawTok::MinusAssign => Tok::MinusAssign,
        RawTok::StarAssign => Tok::StarAssign,
        RawTok::SlashAssign => Tok::SlashAssign,
        RawTok::PercentAssign => Tok::PercentAssign,
        RawTok::AmpAssign => Tok::AmpAssign,
        RawTok::PipeAssign => Tok::PipeAssign,
        RawTok::CaretAssign => Tok::CaretAssign,
        RawTok::ShlAssign => Tok::ShlAssign,
        RawTok::ShrAssign => Tok::ShrAssign,
        RawTok::EqEq => Tok::EqEq,
        RawTok::NotEq => Tok::NotEq,
        RawTok::Lt => Tok::Lt,
        RawTok::Gt => Tok::Gt,
        RawTok::Le => Tok::Le,
        RawTok::Ge => Tok::Ge,
        RawTok::AndAnd => Tok::AndAnd,
        RawTok::OrOr => Tok::OrOr,
        RawTok::Bang => Tok::Bang,
        RawTok::Amp => Tok::Amp,
        RawTok::Pipe => Tok::Pipe,
        RawTok::Caret => Tok::Caret,
        RawTok::Tilde => Tok::Tilde,
        RawTok::Shl => Tok::Shl,
        RawTok::Shr => Tok::Shr,
    })
}

/// Lexes `text` (a slice of the source starting at byte `base`) into tokens, reporting bad
/// characters, bad numbers and unterminated comments. Directives are returned as `Err` items
/// for the caller to interpret.
fn lex_raw<'a>(
    text: &'a str,
    base: usize,
    diags: &mut Vec<Diagnostic>,
    out: &mut Vec<(usize, RawTok<'a>, usize)>,
) {
    let mut lexer = RawTok::lexer(text);
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
        match item {
            Ok(tok) => {
                flush(&mut bad_run, diags);
                out.push((s, tok, e));
            }
            Err(LexError::UnterminatedComment) => {
                flush(&mut bad_run, diags);
                diags.push(
                    Diagnostic::error("unterminated block comment", Span::new(s, s + 2))
                        .with_label(Span::new(s, s + 2), "this comment is never closed")
                        .with_hint("close the comment with `*/`"),
                );
            }
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
    for (s, t, e) in raw {
        match t {
            RawTok::Directive(text) => {
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
            RawTok::Ident(name) => {
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
                    toks.push((s, Tok::Ident(name), e));
                }
            }
            RawTok::FloatLit(text) => match parse_float(text) {
                Some(v) => toks.push((s, Tok::Float(v), e)),
                None => diags.push(Diagnostic::error(
                    format!("invalid number `{text}`"),
                    Span::new(s, e),
                )),
            },
            RawTok::IntLit(text) => match parse_int(text) {
                Some(v) => toks.push((s, Tok::Int(v), e)),
                None => diags.push(
                    Diagnostic::error(format!("integer `{text}` is too large"), Span::new(s, e))
                        .with_hint("integers are 32-bit; write a float literal instead"),
                ),
            },
            RawTok::Arrow => diags.push(
                Diagnostic::error(
                    "`->` is not supported: Brook has no pointers",
                    Span::new(s, e),
                )
                .with_hint("use `.` to access a member"),
            ),
            other => {
                if let Some(t) = convert(other) {
                    toks.push((s, t, e));
                }
            }
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
    let Some((ns, RawTok::Ident(name), ne)) = iter.next() else {
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
            RawTok::Ident(n) => match macros.get(n) {
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
                None => body.push((s, Tok::Ident(n), e)),
            },
            RawTok::FloatLit(text) => match parse_float(text) {
                Some(v) => body.push((s, Tok::Float(v), e)),
                None => return,
            },
            RawTok::IntLit(text) => match parse_int(text) {
                Some(v) => body.push((s, Tok::Int(v), e)),
                None => {
                    diags.push(Diagnostic::error(
                        format!("integer `{text}` is too large"),
                        Span::new(s, e),
                    ));
                    return;
                }
            },
            other => {
                if let Some(t) = convert(other) {
                    body.push((s, t, e));
                }
            }
        }
    }
    macros.insert(name, body);
}

/// Turns identifiers that name types into [`Tok::TypeName`]. A `typedef` name counts from the
/// end of its declaration on, a struct tag from its `struct Tag` on; a name right after `.`
/// (a member) or `struct` (a tag) stays an identifier.
fn classify_type_names(toks: &mut [Spanned<'_>]) {
    let mut names: HashSet<&str> = HashSet::new();
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
                if prev == Some(Tok::Struct) {
                    names.insert(n);
                } else if prev != Some(Tok::Dot) && (names.contains(n) || is_builtin_type_name(n)) {
                    toks[i].1 = Tok::TypeName(n);
                }
            }
            _ => {}
        }
    }
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
