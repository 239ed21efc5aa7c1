//! The analysis on hand-built functions: what it proves integral (`indexof` and integer
//! arithmetic on it, integer-valued constants, locals that only ever hold those, through
//! loops) and what it must not (parameters, fractions, quotients, locals given one of those,
//! directly or through another local, or written by `modf`).

use super::Integral;
use crate::module::*;
use crate::span::Span;
use crate::Builtin;

fn float() -> Type {
    Type::Scalar(Scalar::Float)
}

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        ty: float(),
        span: Span::default(),
    }
}

fn lit(v: f32) -> Expr {
    e(ExprKind::Float(v))
}

fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    e(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// `indexof(r).x`, `r` parameter 1.
fn column() -> Expr {
    e(ExprKind::Swizzle(
        Box::new(Expr {
            kind: ExprKind::IndexOf(1),
            ty: Type::Vector(Scalar::Float, 4),
            span: Span::default(),
        }),
        vec![0],
    ))
}

/// The float constant `s`, parameter 0.
fn constant() -> Expr {
    e(ExprKind::Param(0))
}

fn local(i: u32) -> Expr {
    e(ExprKind::Local(LocalId(i)))
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

fn decl(i: u32, init: Option<Expr>) -> Stmt {
    stmt(StmtKind::Decl {
        local: LocalId(i),
        init,
    })
}

fn assign(i: u32, op: Option<BinaryOp>, value: Expr) -> Stmt {
    stmt(StmtKind::Assign {
        target: Place {
            root: PlaceRoot::Local(LocalId(i)),
            path: vec![],
            ty: float(),
        },
        op,
        value,
    })
}

/// `kernel void k(float s, out float r<>)` with `locals` float locals and `body`.
fn kernel(locals: usize, body: Vec<Stmt>) -> Function {
    let param = |name: &str, class| Param {
        name: name.into(),
        ty: float(),
        declared: None,
        class,
        span: Span::default(),
    };
    Function {
        name: "k".into(),
        kind: FunctionKind::Kernel,
        params: vec![
            param("s", ParamClass::Constant),
            param("r", ParamClass::Out),
        ],
        ret: Type::Void,
        locals: (0..locals)
            .map(|i| Local {
                name: format!("l{i}"),
                ty: float(),
            })
            .collect(),
        body,
        span: Span::default(),
    }
}

#[test]
fn indexof_and_integer_arithmetic_on_it_are_integral() {
    let a = Integral::of(&kernel(0, vec![]));
    assert!(a.expr(&column()));
    assert!(a.expr(&bin(BinaryOp::Add, column(), lit(1.0))));
    assert!(a.expr(&bin(BinaryOp::Sub, column(), lit(5.0))));
    assert!(a.expr(&bin(BinaryOp::Mul, column(), lit(1e30))));
    assert!(a.expr(&lit(f32::INFINITY)));
    assert!(a.expr(&e(ExprKind::Builtin(Builtin::Floor, vec![constant()]))));
}

#[test]
fn parameters_fractions_and_quotients_are_not() {
    let a = Integral::of(&kernel(0, vec![]));
    assert!(!a.expr(&constant()));
    assert!(!a.expr(&bin(BinaryOp::Add, column(), constant())));
    assert!(!a.expr(&bin(BinaryOp::Mul, column(), lit(0.5))));
    assert!(!a.expr(&bin(BinaryOp::Div, column(), lit(2.0))));
    assert!(!a.expr(&lit(0.25)));
}

#[test]
fn a_local_is_integral_when_every_store_is() {
    // l0 = indexof(r).x; l0 = l0 * 3.0 - 1.0;   l1 = indexof(r).x; l1 = l1 * 0.5;
    let f = kernel(
        2,
        vec![
            decl(0, Some(column())),
            assign(
                0,
                None,
                bin(
                    BinaryOp::Sub,
                    bin(BinaryOp::Mul, local(0), lit(3.0)),
                    lit(1.0),
                ),
            ),
            decl(1, Some(column())),
            assign(1, None, bin(BinaryOp::Mul, local(1), lit(0.5))),
        ],
    );
    let a = Integral::of(&f);
    assert!(a.expr(&local(0)));
    assert!(!a.expr(&local(1)));
}

#[test]
fn a_local_given_a_non_integral_local_is_not() {
    // l0 = l1 (before l1 is seen to be non-integral); l1 = 0.0; l1 = s.
    let f = kernel(
        2,
        vec![
            decl(0, Some(local(1))),
            decl(1, Some(lit(0.0))),
            assign(1, None, constant()),
        ],
    );
    let a = Integral::of(&f);
    assert!(!a.expr(&local(0)));
    assert!(!a.expr(&local(1)));
}

#[test]
fn a_loop_carried_counter_stays_integral() {
    // for (l0 = 0.0; l0 < s; l0 += 1.0) { l1 += 2.0; l2 += 1.0; l2 *= s; }
    let cond = Expr {
        kind: ExprKind::Binary(BinaryOp::Lt, Box::new(local(0)), Box::new(constant())),
        ty: Type::Scalar(Scalar::Bool),
        span: Span::default(),
    };
    let f = kernel(
        3,
        vec![
            decl(1, None),
            decl(2, None),
            stmt(StmtKind::Loop {
                init: vec![decl(0, Some(lit(0.0)))],
                cond: Some(cond),
                step: vec![assign(0, Some(BinaryOp::Add), lit(1.0))],
                body: vec![
                    assign(1, Some(BinaryOp::Add), lit(2.0)),
                    assign(2, Some(BinaryOp::Add), lit(1.0)),
                    assign(2, Some(BinaryOp::Mul), constant()),
                ],
                test_first: true,
            }),
        ],
    );
    let a = Integral::of(&f);
    assert!(a.expr(&local(0)));
    assert!(a.expr(&local(1)));
    assert!(!a.expr(&local(2)));
}

#[test]
fn a_local_modf_writes_is_not() {
    // l0 = 1.0; modf(s, l0);
    let modf = e(ExprKind::Builtin(Builtin::Modf, vec![constant(), local(0)]));
    let f = kernel(1, vec![decl(0, Some(lit(1.0))), stmt(StmtKind::Expr(modf))]);
    assert!(!Integral::of(&f).expr(&local(0)));
}
