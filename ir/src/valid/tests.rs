//! Hand-built modules: a valid kernel, then each invariant broken once and refused with the
//! error that names it.

use super::{validate, Invalid};
use crate::module::*;
use crate::span::Span;
use crate::Builtin;

fn e(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::new(3, 4),
    }
}

fn st(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::new(1, 2),
    }
}

fn param(name: &str, ty: Type, class: ParamClass) -> Param {
    Param {
        name: name.into(),
        ty,
        declared: None,
        class,
        span: Span::default(),
    }
}

fn f4() -> Type {
    Type::Vector(Scalar::Float, 4)
}

/// `kernel void k(float4 a<>, float4 g[], float s, out float4 r<>)
/// { float4 t = lerp(a, g[s], s); r = t + 1.0; }`
fn kernel(body: Block) -> Module {
    Module {
        structs: vec![],
        functions: vec![Function {
            name: "k".into(),
            kind: FunctionKind::Kernel,
            params: vec![
                param("a", f4(), ParamClass::Stream),
                param("g", f4(), ParamClass::Gather { rank: 1 }),
                param("s", Type::FLOAT, ParamClass::Constant),
                param("r", f4(), ParamClass::Out),
            ],
            ret: Type::Void,
            locals: vec![Local {
                name: "t".into(),
                ty: f4(),
            }],
            body,
            span: Span::default(),
        }],
    }
}

fn a() -> Expr {
    e(ExprKind::Param(0), f4())
}

fn s() -> Expr {
    e(ExprKind::Param(2), Type::FLOAT)
}

fn lerp(args: Vec<Expr>, ty: Type) -> Expr {
    e(ExprKind::Builtin(Builtin::Lerp, args), ty)
}

fn splat(x: Expr) -> Expr {
    e(ExprKind::Construct(vec![x]), f4())
}

fn gather() -> Expr {
    e(
        ExprKind::Gather {
            param: 1,
            indices: vec![s()],
        },
        f4(),
    )
}

fn good_body() -> Block {
    vec![
        st(StmtKind::Decl {
            local: LocalId(0),
            init: Some(lerp(vec![a(), gather(), splat(s())], f4())),
        }),
        st(StmtKind::Assign {
            target: Place {
                root: PlaceRoot::Param(3),
                path: vec![],
                ty: f4(),
            },
            op: None,
            value: e(
                ExprKind::Binary(
                    BinaryOp::Add,
                    Box::new(e(ExprKind::Local(LocalId(0)), f4())),
                    Box::new(e(ExprKind::Float(1.0), Type::FLOAT)),
                ),
                f4(),
            ),
        }),
    ]
}

/// The error `body` is refused with.
fn refused(body: Block) -> Invalid {
    let err = validate(&kernel(body)).expect_err("the module is malformed");
    assert_eq!(err.function.as_deref(), Some("k"));
    err.error
}

/// The good body with its first statement's initialiser replaced.
fn with_init(init: Expr) -> Block {
    let mut b = good_body();
    b[0].kind = StmtKind::Decl {
        local: LocalId(0),
        init: Some(init),
    };
    b
}

#[test]
fn the_hand_built_kernel_is_valid() {
    assert_eq!(validate(&kernel(good_body())), Ok(()));
}

#[test]
fn a_local_out_of_range_is_refused() {
    let mut b = good_body();
    b[0].kind = StmtKind::Decl {
        local: LocalId(7),
        init: None,
    };
    assert_eq!(refused(b), Invalid::NoLocal(7));
}

#[test]
fn a_parameter_out_of_range_is_refused() {
    let init = lerp(
        vec![e(ExprKind::Param(9), f4()), gather(), splat(s())],
        f4(),
    );
    assert_eq!(refused(with_init(init)), Invalid::NoParam(9));
}

#[test]
fn a_gather_read_as_a_value_is_refused() {
    let init = lerp(
        vec![e(ExprKind::Param(1), f4()), gather(), splat(s())],
        f4(),
    );
    assert_eq!(
        refused(with_init(init)),
        Invalid::ParamUse {
            param: 1,
            class: ParamClass::Gather { rank: 1 },
            used: "read as a value",
        }
    );
}

#[test]
fn a_gather_of_a_stream_parameter_is_refused() {
    let g = e(
        ExprKind::Gather {
            param: 0,
            indices: vec![s()],
        },
        f4(),
    );
    let init = lerp(vec![a(), g, splat(s())], f4());
    assert_eq!(
        refused(with_init(init)),
        Invalid::ParamUse {
            param: 0,
            class: ParamClass::Stream,
            used: "gathered",
        }
    );
}

#[test]
fn a_gather_with_the_wrong_number_of_subscripts_is_refused() {
    let g = e(
        ExprKind::Gather {
            param: 1,
            indices: vec![s(), s()],
        },
        f4(),
    );
    let init = lerp(vec![a(), g, splat(s())], f4());
    assert!(matches!(
        refused(with_init(init)),
        Invalid::Operands { what, .. } if what == "gather of rank 1"
    ));
}

#[test]
fn a_builtin_call_against_the_catalogue_is_refused() {
    // `lerp` with a scalar third argument the checker would have splatted.
    let init = lerp(vec![a(), gather(), s()], f4());
    assert_eq!(
        refused(with_init(init)),
        Invalid::Builtin {
            builtin: "lerp",
            args: vec![f4(), f4(), Type::FLOAT],
            expected: None,
            found: f4(),
        }
    );
    // `dot` typed as a vector.
    let dot = e(ExprKind::Builtin(Builtin::Dot, vec![a(), a()]), f4());
    assert_eq!(
        refused(with_init(dot)),
        Invalid::Builtin {
            builtin: "dot",
            args: vec![f4(), f4()],
            expected: Some(Type::FLOAT),
            found: f4(),
        }
    );
}

#[test]
fn an_initialiser_of_another_type_is_refused() {
    assert_eq!(
        refused(with_init(s())),
        Invalid::Type {
            what: "initialiser",
            expected: f4(),
            found: Type::FLOAT,
        }
    );
}

#[test]
fn a_binary_operation_mistyped_is_refused() {
    let mut b = good_body();
    let sum = e(
        ExprKind::Binary(BinaryOp::Add, Box::new(a()), Box::new(a())),
        Type::FLOAT,
    );
    b[0].kind = StmtKind::Expr(sum);
    assert_eq!(
        refused(b),
        Invalid::Type {
            what: "binary operation",
            expected: f4(),
            found: Type::FLOAT,
        }
    );
    let mixed = e(
        ExprKind::Binary(
            BinaryOp::Add,
            Box::new(a()),
            Box::new(e(ExprKind::Int(1), Type::INT)),
        ),
        f4(),
    );
    assert_eq!(
        refused(vec![st(StmtKind::Expr(mixed))]),
        Invalid::Operands {
            what: "+".into(),
            operands: vec![f4(), Type::INT],
        }
    );
}

#[test]
fn assigning_an_input_is_refused() {
    let b = vec![st(StmtKind::Assign {
        target: Place {
            root: PlaceRoot::Param(0),
            path: vec![],
            ty: f4(),
        },
        op: None,
        value: a(),
    })];
    assert_eq!(
        refused(b),
        Invalid::ParamUse {
            param: 0,
            class: ParamClass::Stream,
            used: "assigned",
        }
    );
}

#[test]
fn a_swizzle_past_the_vector_is_refused() {
    let two = e(
        ExprKind::Swizzle(Box::new(s()), vec![0, 1]),
        Type::Vector(Scalar::Float, 2),
    );
    assert!(matches!(
        refused(vec![st(StmtKind::Expr(two))]),
        Invalid::Access(m) if m.contains("swizzle [0, 1]")
    ));
}

#[test]
fn break_outside_a_loop_and_bad_loop_steps_are_refused() {
    assert_eq!(
        refused(vec![st(StmtKind::Break)]),
        Invalid::OutsideLoop("break")
    );
    let in_loop = |step: Block| {
        vec![st(StmtKind::Loop {
            init: vec![],
            cond: Some(e(ExprKind::Bool(true), Type::BOOL)),
            step,
            body: vec![st(StmtKind::Break)],
            test_first: true,
        })]
    };
    assert_eq!(validate(&kernel(in_loop(vec![]))), Ok(()));
    assert_eq!(
        refused(in_loop(vec![st(StmtKind::Discard)])),
        Invalid::LoopStep
    );
}

#[test]
fn a_condition_that_is_not_a_bool_is_refused() {
    let b = vec![st(StmtKind::If {
        cond: s(),
        then: vec![],
        otherwise: vec![],
    })];
    assert_eq!(
        refused(b),
        Invalid::Type {
            what: "condition",
            expected: Type::BOOL,
            found: Type::FLOAT,
        }
    );
}

#[test]
fn calls_of_later_or_missing_functions_are_refused() {
    let call = |f: u32| {
        vec![st(StmtKind::Expr(e(
            ExprKind::Call(FunctionId(f), vec![]),
            Type::Void,
        )))]
    };
    assert_eq!(refused(call(0)), Invalid::LaterFunction(0));
    assert_eq!(refused(call(5)), Invalid::NoFunction(5));
}

#[test]
fn push_onto_an_output_that_is_not_a_vout_is_refused() {
    let b = vec![st(StmtKind::Push {
        param: 3,
        value: a(),
    })];
    assert_eq!(
        refused(b),
        Invalid::ParamUse {
            param: 3,
            class: ParamClass::Out,
            used: "pushed onto",
        }
    );
}

#[test]
fn a_return_value_in_a_void_kernel_is_refused() {
    assert_eq!(
        refused(vec![st(StmtKind::Return(Some(s())))]),
        Invalid::Return(Type::Void)
    );
}

#[test]
fn a_struct_type_out_of_range_is_refused() {
    let mut m = kernel(good_body());
    m.functions[0].locals[0].ty = Type::Struct(StructId(2));
    let err = validate(&m).unwrap_err();
    assert_eq!(err.error, Invalid::NoStruct(2));
    assert!(
        err.to_string()
            .contains("invalid IR in `k`: struct 2 does not exist"),
        "{err}"
    );
}
