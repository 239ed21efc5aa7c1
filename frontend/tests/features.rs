//! Targeted checks of the syntax forms and of the IR the checker produces.

use brook_frontend::{compile, pretty};
use brook_ir::*;

fn ok(src: &str) -> Module {
    compile(src, "t.br").unwrap_or_else(|d| panic!("{}", d.render()))
}

fn body(m: &Module, name: &str) -> String {
    let (_, f) = m.function(name).unwrap();
    brook_frontend::pretty::pretty_function(m, f)
}

#[test]
fn typedef_names_versus_variables() {
    let m = ok("typedef float4 Vec;\n\
         typedef Vec Colour;\n\
         struct Named { float Vec; };\n\
         kernel void k(float4 vec<>, float4 Later<>, Named n<>, out float4 o<>) {\n\
             float4 a = (Vec)vec;\n\
             float4 b = (vec) - vec;\n\
             float4 l = (Later) - Later;\n\
             Colour c = Colour(1, 2, 3, 4);\n\
             o = a + b + c + l + n.Vec;\n\
         }\n\
         typedef float Later;\n");
    let k = body(&m, "k");
    assert!(k.contains("float4 b = (vec - vec);"), "{k}");
    assert!(k.contains("float4 l = (Later - Later);"), "{k}");
    assert!(k.contains("float4 a = vec;"), "{k}");
    assert!(k.contains("float4 c = float4(1.0, 2.0, 3.0, 4.0);"), "{k}");
    assert!(k.contains("n.Vec"), "{k}");
    // A cast to a struct typedef name parses as a cast (and is then rejected by the checker).
    let e = compile(
        "typedef struct { float x; } S;\nkernel void k(float a<>, out float b<>) { b = (S)a; }\n",
        "t.br",
    )
    .unwrap_err();
    assert!(
        e.items[0].message.contains("cannot convert `float` to `S`"),
        "{}",
        e.short()
    );
}

#[test]
fn struct_forms() {
    let m = ok("struct P { float3 pos; float w[2]; };\n\
         typedef struct Q { struct P p; float m; } Q;\n\
         typedef struct { float3 a, b; } Pair;\n\
         kernel void k(Q q<>, struct P p<>, out Pair r<>) {\n\
             struct P local = p;\n\
             Pair pr = { q.p.pos, float3(q.m) };\n\
             r = pr;\n\
         }\n");
    assert_eq!(m.structs.len(), 3);
    assert_eq!(m.structs[0].name, "P");
    assert_eq!(
        m.structs[0].members[1].ty,
        Type::Array(Box::new(Type::FLOAT), 2)
    );
    assert_eq!(m.structs[1].members[0].ty, Type::Struct(StructId(0)));
    assert_eq!(m.structs[2].members.len(), 2);
    assert!(body(&m, "k").contains("Pair pr = Pair(q.p.pos, float3(q.m));"));
}

#[test]
fn parameter_forms() {
    let m = ok("#define N 10\n\
         #include <stdio.h>\n\
         #pragma once\n\
         const int M = 2 * 2;\n\
         void kernel k1(float a<>, float g1[], float g2[][], float g3[N][N], float g4[M],\n\
                        const float c, float d, iter float2 it<>, out float o<>,\n\
                        vout [M] float v<>) {\n\
             o = a + g1[0] + g2[1][2] + g3[it] + g4[3] + c + d;\n\
             v = o_helper();\n\
             push(v);\n\
         }\n"
    .replace("o_helper()", "a")
    .as_str());
    let (_, f) = m.function("k1").unwrap();
    let classes: Vec<ParamClass> = f.params.iter().map(|p| p.class).collect();
    assert_eq!(
        classes,
        vec![
            ParamClass::Stream,
            ParamClass::Gather { rank: 1 },
            ParamClass::Gather { rank: 2 },
            ParamClass::Gather { rank: 2 },
            ParamClass::Gather { rank: 1 },
            ParamClass::Constant,
            ParamClass::Constant,
            ParamClass::Iter,
            ParamClass::Out,
            ParamClass::Vout { max: 4 },
        ]
    );
    let m = ok("reduce void s(float a<>, reduce float r) { r = r + a; }\n\
         reduce void t(reduce float4 acc<>, float4 x<>) { acc = max(acc, x); }\n\
         float helper(void) { return 1.0; }\n");
    assert_eq!(m.functions[0].params[1].class, ParamClass::Reduce);
    assert_eq!(m.functions[0].kind, FunctionKind::Reduce);
    assert_eq!(m.functions[1].params[0].class, ParamClass::Reduce);
    assert_eq!(m.functions[2].kind, FunctionKind::Helper);
    assert!(m.functions[2].params.is_empty());
}

#[test]
fn reductions_may_take_constants_and_gathers() {
    let m = ok(
        "reduce void s(float a<>, reduce float r<>, float w, float t[]) { r += w * a + t[0]; }\n",
    );
    let classes: Vec<ParamClass> = m.functions[0].params.iter().map(|p| p.class).collect();
    assert_eq!(
        classes,
        [
            ParamClass::Stream,
            ParamClass::Reduce,
            ParamClass::Constant,
            ParamClass::Gather { rank: 1 }
        ]
    );
}

#[test]
fn literals_and_implicit_conversions() {
    let m = ok("kernel void k(float a<>, int n, out float4 o<>) {\n\
             float x = 1.0 + .5 + 1e-3 + 2.f + 1.0f + 0x10;\n\
             int i = n;\n\
             float f = i;\n\
             float4 s = a;\n\
             o = float4(x, f, s.x, n);\n\
         }\n");
    let (_, f) = m.function("k").unwrap();
    // `float f = i;` converts explicitly.
    let StmtKind::Decl { init: Some(e), .. } = &f.body[2].kind else {
        panic!()
    };
    assert_eq!(e.ty, Type::FLOAT);
    assert!(matches!(&e.kind, ExprKind::Convert(inner) if inner.ty == Type::INT));
    // `float4 s = a;` splats.
    let StmtKind::Decl { init: Some(e), .. } = &f.body[3].kind else {
        panic!()
    };
    assert!(matches!(&e.kind, ExprKind::Construct(parts) if parts.len() == 1));
    assert_eq!(e.ty, Type::Vector(Scalar::Float, 4));
    let k = body(&m, "k");
    assert!(
        k.contains("((((1.0 + 0.5) + 0.001) + 2.0) + 1.0) + 16.0"),
        "{k}"
    );
}

#[test]
fn every_expression_is_typed_and_binary_operands_agree() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/operators.br"
    ))
    .unwrap();
    let m = ok(&src);
    fn walk(e: &Expr) {
        if let ExprKind::Binary(op, a, b) = &e.kind {
            assert_eq!(
                a.ty.scalar(),
                b.ty.scalar(),
                "{op:?}: {:?} vs {:?}",
                a.ty,
                b.ty
            );
            let (wa, wb) = (a.ty.width().unwrap_or(1), b.ty.width().unwrap_or(1));
            assert!(wa == wb || wa == 1 || wb == 1);
            if matches!(op, BinaryOp::And | BinaryOp::Or) {
                assert_eq!(a.ty, Type::BOOL);
            }
            walk(a);
            walk(b);
        }
        match &e.kind {
            ExprKind::Unary(_, a)
            | ExprKind::Convert(a)
            | ExprKind::Swizzle(a, _)
            | ExprKind::Member(a, _) => walk(a),
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                assert_eq!(cond.ty, Type::BOOL);
                assert_eq!(accept.ty, reject.ty);
                walk(cond);
                walk(accept);
                walk(reject);
            }
            ExprKind::Construct(a) | ExprKind::Builtin(_, a) | ExprKind::Call(_, a) => {
                a.iter().for_each(walk)
            }
            _ => {}
        }
    }
    fn walk_block(b: &Block) {
        for s in b {
            match &s.kind {
                StmtKind::Decl { init: Some(e), .. }
                | StmtKind::Expr(e)
                | StmtKind::Return(Some(e)) => walk(e),
                StmtKind::Assign { value, .. } => walk(value),
                StmtKind::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    assert_eq!(cond.ty, Type::BOOL);
                    walk_block(then);
                    walk_block(otherwise);
                }
                StmtKind::Loop {
                    init,
                    cond,
                    step,
                    body,
                    ..
                } => {
                    if let Some(c) = cond {
                        assert_eq!(c.ty, Type::BOOL);
                    }
                    walk_block(init);
                    walk_block(step);
                    walk_block(body);
                }
                StmtKind::Block(b) => walk_block(b),
                _ => {}
            }
        }
    }
    for f in &m.functions {
        walk_block(&f.body);
    }
}

#[test]
fn builtin_signatures() {
    let m = ok("kernel void k(float a<>, float3 v<>, int n, out float4 o<>) {\n\
             float3 p = pow(v, 2.0);\n\
             float3 c = clamp(v, 0.0, 1.0);\n\
             float3 l = lerp(v, p, 0.5);\n\
             float3 s = smoothstep(0.0, 1.0, v);\n\
             int m = max(n, 3);\n\
             float d = dot(v, p) + length(v) + distance(v, c);\n\
             bool3 bad = isnan(v);\n\
             bool anybad = any(bad) || all(v);\n\
             float3 x = cross(v, normalize(p)) + step(0.5, v) + fmod(v, 2) + atan2(v, v);\n\
             o = float4(x + l + s + c, d + m + abs(n) + sign(a) + saturate(a) + frac(a) + rsqrt(a));\n\
         }\n");
    let (_, f) = m.function("k").unwrap();
    let StmtKind::Decl { init: Some(e), .. } = &f.body[0].kind else {
        panic!()
    };
    let ExprKind::Builtin(Builtin::Pow, args) = &e.kind else {
        panic!()
    };
    // The scalar exponent is splatted to the vector width.
    assert_eq!(args[1].ty, Type::Vector(Scalar::Float, 3));
    let StmtKind::Decl { init: Some(e), .. } = &f.body[4].kind else {
        panic!()
    };
    assert_eq!(e.ty, Type::INT);
    let StmtKind::Decl { init: Some(e), .. } = &f.body[6].kind else {
        panic!()
    };
    assert_eq!(e.ty, Type::Vector(Scalar::Bool, 3));
}

#[test]
fn places_and_write_masks() {
    let m = ok("typedef struct { float4 data; } Hit;\n\
         kernel void k(float a<>, out Hit h<>, out float4 o<>) {\n\
             float w[3];\n\
             w[1] = a;\n\
             h.data.zx = float2(a, w[1]);\n\
             o.w = 1.0;\n\
             o.xyz = float3(0.0);\n\
         }\n");
    let (_, f) = m.function("k").unwrap();
    let StmtKind::Assign { target, .. } = &f.body[2].kind else {
        panic!()
    };
    assert_eq!(target.root, PlaceRoot::Param(1));
    assert_eq!(
        target.path,
        vec![Access::Member(0), Access::Swizzle(vec![2, 0])]
    );
    assert_eq!(target.ty, Type::Vector(Scalar::Float, 2));
}

#[test]
fn scoping_and_shadowing() {
    let m = ok("kernel void k(float a<>, out float b<>) {\n\
             float x = a;\n\
             { float x = 2.0; b = x; }\n\
             for (int i = 0; i < 2; i++) { float x = 3.0; b += 0.0 * x; }\n\
             for (int i = 0; i < 2; i++) { }\n\
             b = x;\n\
         }\n"
    .replace("b += 0.0 * x;", "x = x;")
    .as_str());
    let (_, f) = m.function("k").unwrap();
    assert_eq!(f.locals.iter().filter(|l| l.name == "x").count(), 3);
    let printed = pretty(&m);
    assert!(printed.contains("x_L0"), "{printed}");
}

#[test]
fn global_constants_and_defines_inline() {
    let m = ok("#define SCALE 2.5\n\
         const float K = SCALE * 2.0;\n\
         const int N = 3;\n\
         kernel void k(float a<>, out float b<>) {\n\
             float w[N];\n\
             w[0] = K;\n\
             b = a * K + w[0];\n\
         }\n");
    let k = body(&m, "k");
    assert!(k.contains("float w[3];"), "{k}");
    assert!(k.contains("(a * (2.5 * 2.0))"), "{k}");
}

#[test]
fn kernels_calling_kernels_and_helpers() {
    let m = ok(
        "kernel void scale(float a<>, float k, out float b<>) { b = a * k; }\n\
         kernel void value(float x<>, float y) { }\n\
         float twice(float x) { return 2.0 * x; }\n\
         kernel void k(float a<>, out float b<>) {\n\
             value(a, 1.0);\n\
             b = twice(a);\n\
         }\n",
    );
    let (_, f) = m.function("k").unwrap();
    assert!(
        matches!(&f.body[0].kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Call(FunctionId(1), _)))
    );
}

#[test]
fn int_streams_are_float_streams_converted_where_the_body_meets_them() {
    let m = ok("kernel void k(unsigned int a<>, int2 g[], out int c<>) {\n\
             c = a / 2 + g[a].y;\n\
             if (c > 3) return;\n\
             c = -c;\n\
         }\n\
         reduce void s(int a<>, reduce int r<>) { r += a; }\n");
    let (_, k) = m.function("k").unwrap();
    let tys: Vec<(&Type, Option<&Type>)> = k
        .params
        .iter()
        .map(|p| (&p.ty, p.declared.as_ref()))
        .collect();
    assert_eq!(
        tys,
        [
            (&Type::FLOAT, Some(&Type::INT)),
            (
                &Type::Vector(Scalar::Float, 2),
                Some(&Type::Vector(Scalar::Int, 2))
            ),
            (&Type::FLOAT, Some(&Type::INT)),
        ]
    );
    let text = body(&m, "k");
    // The element and the gathered one become ints where they are read; the output is an
    // int local converted to the stream at the `return` and at the end.
    assert_eq!(text.matches("c = ((float)c_").count(), 2, "{text}");
    assert!(text.contains("(((int)a) / 2)"), "{text}");
    assert!(text.contains("((int2)g[((int)a)]).y"), "{text}");
    let (_, s) = m.function("s").unwrap();
    assert_eq!(s.params[1].ty, Type::FLOAT);
    let text = body(&m, "s");
    assert!(text.contains(" = ((int)r);"), "{text}");
    assert!(text.contains("r = ((float)r_"), "{text}");
}
