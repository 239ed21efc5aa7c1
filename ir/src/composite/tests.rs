//! The rewrite on hand-built modules: formulas in place for plain arguments, helpers for
//! the others, helpers before their callers, and nothing composite left.

use super::formula::Composite;
use super::lower_composites;
use crate::module::*;
use crate::span::Span;
use crate::{validate, Builtin};

fn e(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::new(5, 9),
    }
}

fn f3() -> Type {
    Type::Vector(Scalar::Float, 3)
}

fn param(i: u32) -> Expr {
    e(ExprKind::Param(i), f3())
}

fn doubled(x: Expr) -> Expr {
    e(
        ExprKind::Binary(BinaryOp::Add, Box::new(x.clone()), Box::new(x)),
        f3(),
    )
}

/// `float3 h(float3 p, float3 q)` returning `value`, then a kernel calling `h`.
fn module(value: Expr) -> Module {
    let mk_param = |name: &str| Param {
        name: name.into(),
        ty: f3(),
        declared: None,
        class: ParamClass::Constant,
        span: Span::default(),
    };
    let helper = Function {
        name: "h".into(),
        kind: FunctionKind::Helper,
        params: vec![mk_param("p"), mk_param("q")],
        ret: value.ty.clone(),
        locals: vec![],
        body: vec![Stmt {
            kind: StmtKind::Return(Some(value.clone())),
            span: Span::default(),
        }],
        span: Span::default(),
    };
    let kernel = Function {
        name: "k".into(),
        kind: FunctionKind::Kernel,
        params: vec![
            Param {
                class: ParamClass::Stream,
                ..mk_param("x")
            },
            Param {
                class: ParamClass::Out,
                ty: value.ty.clone(),
                ..mk_param("r")
            },
        ],
        ret: Type::Void,
        locals: vec![],
        body: vec![Stmt {
            kind: StmtKind::Assign {
                target: Place {
                    root: PlaceRoot::Param(1),
                    path: vec![],
                    ty: value.ty.clone(),
                },
                op: None,
                value: e(
                    ExprKind::Call(FunctionId(0), vec![param(0), param(0)]),
                    value.ty,
                ),
            },
            span: Span::default(),
        }],
        span: Span::default(),
    };
    let m = Module {
        structs: vec![],
        functions: vec![helper, kernel],
    };
    assert_eq!(validate(&m), Ok(()));
    m
}

fn builtin(b: Builtin, args: Vec<Expr>, ty: Type) -> Expr {
    e(ExprKind::Builtin(b, args), ty)
}

/// The value `h` returns after lowering.
fn returned(m: &Module) -> &Expr {
    let (_, h) = m.function("h").expect("h is kept");
    match &h.body[0].kind {
        StmtKind::Return(Some(v)) => v,
        other => panic!("{other:?}"),
    }
}

/// Whether any expression of `m` is a composite built-in.
fn any_composite(m: &Module) -> bool {
    let text = format!("{m:?}");
    Builtin::ALL
        .iter()
        .filter(|(b, _)| Composite::of(*b).is_some())
        .any(|(b, _)| text.contains(&format!("Builtin({b:?},")))
}

#[test]
fn lerp_of_plain_values_becomes_its_formula_in_place() {
    let mut m = module(builtin(
        Builtin::Lerp,
        vec![param(0), param(1), param(0)],
        f3(),
    ));
    lower_composites(&mut m);
    assert_eq!(m.functions.len(), 2, "no helper for plain arguments");
    // a + t * (b - a)
    let (a, b, t) = (param(0), param(1), param(0));
    let d = e(
        ExprKind::Binary(BinaryOp::Sub, Box::new(b), Box::new(a.clone())),
        f3(),
    );
    let scaled = e(
        ExprKind::Binary(BinaryOp::Mul, Box::new(t), Box::new(d)),
        f3(),
    );
    let want = e(
        ExprKind::Binary(BinaryOp::Add, Box::new(a), Box::new(scaled)),
        f3(),
    );
    assert_eq!(returned(&m), &want);
    assert_eq!(validate(&m), Ok(()));
}

#[test]
fn an_argument_read_twice_is_bound_by_a_helper_placed_first() {
    let first = doubled(param(0));
    let mut m = module(builtin(
        Builtin::Lerp,
        vec![first.clone(), param(1), param(0)],
        f3(),
    ));
    assert_eq!(
        lower_composites(&mut m),
        1,
        "one helper, before the program's functions"
    );
    assert_eq!(validate(&m), Ok(()));
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["lerp_float3", "h", "k"]);
    // `h` calls the helper with the argument itself, evaluated once as a call's argument.
    assert_eq!(
        returned(&m).kind,
        ExprKind::Call(FunctionId(0), vec![first, param(1), param(0)])
    );
    // The kernel's call of `h` follows `h` to its new place.
    let StmtKind::Assign { value, .. } = &m.functions[2].body[0].kind else {
        panic!("the kernel's assignment")
    };
    assert!(matches!(value.kind, ExprKind::Call(FunctionId(1), _)));
    assert!(!any_composite(&m));
}

#[test]
fn distance_goes_through_length_whose_helper_comes_first() {
    let mut m = module(builtin(
        Builtin::Distance,
        vec![doubled(param(0)), param(1)],
        Type::FLOAT,
    ));
    lower_composites(&mut m);
    assert_eq!(validate(&m), Ok(()));
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    // `distance(a, b)` is `length(a - b)`; `a - b` is no plain value, so `length` gets a
    // helper too, which `distance`'s calls.
    assert_eq!(names, ["length_float3", "h", "k"]);
    assert!(!any_composite(&m));
}

#[test]
fn smoothstep_always_binds_its_ratio_in_a_helper() {
    let mut m = module(builtin(
        Builtin::Smoothstep,
        vec![param(0), param(1), param(0)],
        f3(),
    ));
    lower_composites(&mut m);
    assert_eq!(validate(&m), Ok(()));
    let helper = &m.functions[0];
    assert_eq!(helper.name, "smoothstep_float3");
    assert_eq!(helper.locals.len(), 1);
    assert!(!any_composite(&m));
}

#[test]
fn a_helper_name_in_use_is_not_taken() {
    let mut m = module(builtin(Builtin::Normalize, vec![doubled(param(0))], f3()));
    m.functions[0].name = "normalize_float3".into();
    lower_composites(&mut m);
    assert_eq!(validate(&m), Ok(()));
    assert_eq!(m.functions[0].name, "normalize_float3_2");
}

#[test]
fn every_composite_is_rewritten_into_valid_ir() {
    let f = |v: f32| e(ExprKind::Float(v), Type::FLOAT);
    let x = || e(ExprKind::Swizzle(Box::new(param(0)), vec![0]), Type::FLOAT);
    let cases = [
        builtin(Builtin::Clamp, vec![x(), f(0.0), f(1.0)], Type::FLOAT),
        builtin(Builtin::Degrees, vec![x()], Type::FLOAT),
        builtin(Builtin::Radians, vec![x()], Type::FLOAT),
        builtin(Builtin::Rsqrt, vec![x()], Type::FLOAT),
        builtin(Builtin::Frac, vec![x()], Type::FLOAT),
        builtin(Builtin::Step, vec![param(1), param(0)], f3()),
        builtin(Builtin::Length, vec![param(0)], Type::FLOAT),
        builtin(Builtin::Normalize, vec![param(0)], f3()),
        builtin(Builtin::Distance, vec![param(0), param(1)], Type::FLOAT),
        builtin(Builtin::Smoothstep, vec![x(), f(1.0), x()], Type::FLOAT),
        builtin(Builtin::Lerp, vec![x(), x(), x()], Type::FLOAT),
    ];
    for value in cases {
        let mut m = module(value.clone());
        lower_composites(&mut m);
        assert_eq!(validate(&m), Ok(()), "{value:?}");
        assert!(!any_composite(&m), "{value:?}: {m:?}");
    }
}
