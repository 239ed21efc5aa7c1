//! Cg's matrix functions `transpose` and `determinant`, written out here as element reads
//! (`m[i][j]`) and float arithmetic, so every back end runs them with no IR of its own.
//!
//! The argument is read many times, so one that is not a plain name is first stored in a
//! temporary (ahead of the statement, like other effects). `determinant` is the Laplace
//! expansion along the first row, the same tree of float operations on every back end.

use super::expr::mk;
use super::inline::is_plain;
use super::operators::temp_value;
use super::scope::FnCtx;
use super::R;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{BinaryOp, Expr, ExprKind, Scalar, Type};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixFn {
    /// `transpose(floatRxC) -> floatCxR`.
    Transpose,
    /// `determinant(floatNxN) -> float`.
    Determinant,
}

impl MatrixFn {
    pub const ALL: [(MatrixFn, &'static str); 2] = [
        (MatrixFn::Transpose, "transpose"),
        (MatrixFn::Determinant, "determinant"),
    ];

    pub fn from_name(name: &str) -> Option<MatrixFn> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }

    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("", |(_, n)| n)
    }
}

pub fn check(ctx: &mut FnCtx<'_>, f: MatrixFn, args: Vec<Expr>, span: Span) -> R<Expr> {
    let name = f.name();
    let [m]: [Expr; 1] = args.try_into().map_err(|args: Vec<Expr>| {
        ctx.error(
            Diagnostic::error(
                format!(
                    "`{name}` takes 1 argument but {} {} given",
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            )
            .with_label(span, "expected 1 argument"),
        )
    })?;
    let Type::Matrix { rows, cols } = m.ty else {
        let tn = ctx.type_name(&m.ty);
        return Err(ctx.error(
            Diagnostic::error(format!("`{name}` takes a matrix, found `{tn}`"), m.span)
                .with_label(m.span, format!("this is `{tn}`"))
                .with_hint("matrices are `float2x2` .. `float4x4`"),
        ));
    };
    if f == MatrixFn::Determinant && rows != cols {
        let tn = ctx.type_name(&m.ty);
        return Err(ctx.error(
            Diagnostic::error(
                format!("`determinant` needs a square matrix, found `{tn}`"),
                m.span,
            )
            .with_label(m.span, format!("this is `{tn}`")),
        ));
    }
    let m = reusable(ctx, m, span);
    let at = Elements { m: &m, cols, span };
    Ok(match f {
        MatrixFn::Transpose => {
            let parts = (0..cols)
                .flat_map(|r| (0..rows).map(move |c| (c, r)))
                .map(|(i, j)| at.get(i, j))
                .collect();
            mk(
                ExprKind::Construct(parts),
                Type::Matrix {
                    rows: cols,
                    cols: rows,
                },
                span,
            )
        }
        MatrixFn::Determinant => {
            let all: Vec<u8> = (0..cols).collect();
            at.determinant(0, &all)
        }
    })
}

/// A matrix argument read several times: itself if it is a plain name, else a temporary
/// holding it (declared ahead of the statement).
pub(super) fn reusable(ctx: &mut FnCtx<'_>, m: Expr, span: Span) -> Expr {
    if is_plain(&m) {
        m
    } else {
        let ty = m.ty.clone();
        temp_value(ctx, "matrix", ty, Some(m), span)
    }
}

/// An `int` literal index.
pub(super) fn int(i: u8, span: Span) -> Expr {
    mk(ExprKind::Int(i32::from(i)), Type::INT, span)
}

/// `m[i][j]` of a matrix `m` with `cols` columns.
pub(super) fn element(m: &Expr, cols: u8, i: u8, j: u8, span: Span) -> Expr {
    let row = mk(
        ExprKind::Index(Box::new(m.clone()), Box::new(int(i, span))),
        Type::Vector(Scalar::Float, cols),
        span,
    );
    mk(
        ExprKind::Index(Box::new(row), Box::new(int(j, span))),
        Type::FLOAT,
        span,
    )
}

/// Element reads of one matrix value.
struct Elements<'a> {
    m: &'a Expr,
    cols: u8,
    span: Span,
}

impl Elements<'_> {
    /// `m[i][j]`.
    fn get(&self, i: u8, j: u8) -> Expr {
        element(self.m, self.cols, i, j, self.span)
    }

    fn binary(&self, op: BinaryOp, a: Expr, b: Expr) -> Expr {
        mk(
            ExprKind::Binary(op, Box::new(a), Box::new(b)),
            Type::FLOAT,
            self.span,
        )
    }

    /// The determinant of rows `row..` and columns `cols`, expanded along row `row`.
    fn determinant(&self, row: u8, cols: &[u8]) -> Expr {
        if let [c] = cols {
            return self.get(row, *c);
        }
        let term = |k: usize| {
            let rest: Vec<u8> = cols.iter().copied().filter(|&x| x != cols[k]).collect();
            self.binary(
                BinaryOp::Mul,
                self.get(row, cols[k]),
                self.determinant(row + 1, &rest),
            )
        };
        (1..cols.len()).fold(term(0), |sum, k| {
            let op = if k % 2 == 1 {
                BinaryOp::Sub
            } else {
                BinaryOp::Add
            };
            self.binary(op, sum, term(k))
        })
    }
}
