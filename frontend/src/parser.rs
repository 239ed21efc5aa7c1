//! Parsing: the token pre-pass output fed to the lalrpop grammar (`grammar.lalrpop`), plus the
//! node constructors its actions use (which refuse trees deeper than [`MAX_TREE_DEPTH`]).

use lalrpop_util::ParseError;

use crate::ast::*;
use crate::lexer::{Spanned, Tok, MAX_NESTING};
use brook_ir::Diagnostic;
use brook_ir::Span;

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_parens,
        dead_code,
        unused_imports
    )]
    grammar
);

/// Syntax errors reported from one file before giving up.
const MAX_SYNTAX_ERRORS: usize = 50;

type PErr<'a> = ParseError<usize, Tok<'a>, Diagnostic>;

fn sp(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

/// The deepest statement and expression tree the parser builds. Every node counts as a level
/// (a block, a statement, an `if` or loop body, an operator inside another), so a bracket
/// nesting the lexer allows ([`MAX_NESTING`] levels) takes a few more tree levels: the margin
/// keeps pure bracket nesting reported by the lexer, in brackets the user can count, and this
/// limit for what brackets do not show (long `if` chains, runs of unary operators).
pub const MAX_TREE_DEPTH: u32 = MAX_NESTING + 16;

fn too_deep<'a>(l: usize, r: usize) -> PErr<'a> {
    ParseError::User {
        error: Diagnostic::error(
            format!(
                "nesting too deep: more than {MAX_TREE_DEPTH} levels of statements and operators, each block, statement, `if` or loop body and operator inside another counting as one"
            ),
            Span::new(l, r),
        )
        .with_hint("split the expression or statement into smaller parts"),
    }
}

/// Builds an expression node whose deepest child is `child_depth` deep.
fn node<'a>(kind: ExprKind, l: usize, r: usize, child_depth: u32) -> Result<Expr, PErr<'a>> {
    let depth = child_depth + 1;
    if depth > MAX_TREE_DEPTH {
        return Err(too_deep(l, r));
    }
    Ok(Expr {
        kind,
        span: sp(l, r),
        depth,
    })
}

fn binary<'a>(op: BinOp, a: Expr, b: Expr, l: usize, r: usize) -> Result<Expr, PErr<'a>> {
    let d = a.depth.max(b.depth);
    node(ExprKind::Binary(op, Box::new(a), Box::new(b)), l, r, d)
}

fn unary<'a>(op: UnOp, e: Expr, l: usize, r: usize) -> Result<Expr, PErr<'a>> {
    let d = e.depth;
    node(ExprKind::Unary(op, Box::new(e)), l, r, d)
}

fn list_depth(items: &[Expr]) -> u32 {
    items.iter().map(|e| e.depth).max().unwrap_or(0)
}

/// Builds a statement node whose deepest child (statement or expression) is `child_depth` deep.
fn stmt<'a>(kind: StmtKind, l: usize, r: usize, child_depth: u32) -> Result<Stmt, PErr<'a>> {
    let depth = child_depth + 1;
    if depth > MAX_TREE_DEPTH {
        return Err(too_deep(l, r));
    }
    Ok(Stmt {
        kind,
        span: sp(l, r),
        depth,
    })
}

fn decl_depth(d: &Decl) -> u32 {
    d.declarators
        .iter()
        .map(|x| {
            let dims = list_depth(&x.dims);
            dims.max(x.init.as_ref().map_or(0, Init::depth))
        })
        .max()
        .unwrap_or(0)
}

fn stmts_depth(items: &[Stmt]) -> u32 {
    items.iter().map(|s| s.depth).max().unwrap_or(0)
}

fn describe_expected(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .map(|e| {
            let t = e.trim_matches('"');
            if t.chars().all(|c| c.is_ascii_alphabetic() || c == ' ') && t.contains(' ') {
                t.to_string()
            } else {
                format!("`{}`", t.replace("\\\"", "\""))
            }
        })
        .collect();
    names.sort();
    names.dedup();
    match names.len() {
        0 => String::new(),
        1 => format!("expected {}", names[0]),
        n if n <= 8 => format!(
            "expected one of {} or {}",
            names[..n - 1].join(", "),
            names[n - 1]
        ),
        _ => {
            // Too many to list: name the closing punctuation that was possible.
            let key: Vec<&String> = names
                .iter()
                .filter(|n| ["`;`", "`)`", "`]`", "`}`", "`,`"].contains(&n.as_str()))
                .collect();
            match key.len() {
                0 => String::new(),
                1 => format!("expected {} or an operator", key[0]),
                _ => format!(
                    "expected an operator or one of {}",
                    key.iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
    }
}

fn to_diagnostic(err: PErr<'_>, source_len: usize) -> Diagnostic {
    match err {
        ParseError::InvalidToken { location } => {
            Diagnostic::error("invalid token", Span::new(location, location + 1))
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let s = Span::new(location, location);
            let msg = describe_expected(&expected);
            let _ = source_len;
            Diagnostic::error("syntax error: unexpected end of file", s)
                .with_label(s, msg.clone())
                .with_hint_opt((!msg.is_empty()).then_some(msg))
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let s = Span::new(l, r);
            let msg = describe_expected(&expected);
            let mut d = Diagnostic::error(format!("syntax error: unexpected {tok}"), s);
            if !msg.is_empty() {
                d = d.with_label(s, msg);
            }
            if let Tok::Ident(name) = tok {
                if expected.iter().any(|e| e == "\"identifier\"") {
                    // Not reachable in practice; kept for completeness.
                } else if crate::check::names::suggest_type(name).is_some() {
                    d = d.with_hint_opt(
                        crate::check::names::suggest_type(name)
                            .map(|t| format!("unknown type `{name}`: did you mean `{t}`?")),
                    );
                }
            }
            d
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            Diagnostic::error(format!("syntax error: unexpected {tok}"), Span::new(l, r))
        }
        ParseError::User { error } => error,
    }
}

/// Parses a token stream (from [`crate::lexer::tokenize`]) into a program. A syntax error
/// inside a statement skips to the statement's `;` and parsing goes on, so several syntax
/// errors can be reported at once.
pub fn parse(source: &str, toks: Vec<Spanned<'_>>) -> Result<Program, Vec<Diagnostic>> {
    let parser = grammar::ProgramParser::new();
    let mut recovered = Vec::new();
    let result = parser.parse(&mut recovered, toks.into_iter().map(Ok::<_, Diagnostic>));
    let mut diags: Vec<Diagnostic> = recovered
        .into_iter()
        .take(MAX_SYNTAX_ERRORS)
        .map(|r| to_diagnostic(r.error, source.len()))
        .collect();
    match result {
        Ok(program) if diags.is_empty() => Ok(program),
        Ok(_) => Err(diags),
        Err(e) => {
            diags.push(to_diagnostic(e, source.len()));
            Err(diags)
        }
    }
}

fn for_stmt<'a>(
    init: ForInit,
    cond: Option<Expr>,
    step: Option<Vec<Expr>>,
    body: Stmt,
    l: usize,
    r: usize,
) -> Result<Stmt, PErr<'a>> {
    let step = step.unwrap_or_default();
    let init_depth = match &init {
        ForInit::None => 0,
        ForInit::Decl(d) => decl_depth(d),
        ForInit::Exprs(e) => list_depth(e),
    };
    let d = init_depth
        .max(cond.as_ref().map_or(0, |c| c.depth))
        .max(list_depth(&step))
        .max(body.depth);
    stmt(
        StmtKind::For {
            init,
            cond,
            step,
            body: Box::new(body),
        },
        l,
        r,
        d,
    )
}
