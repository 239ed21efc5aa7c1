//! Wrong programs: each must fail with a specific message at a specific line:column.

use brook_frontend::compile;

/// (name, source, expected message substring, line, column, expected hint substring)
type Case = (
    &'static str,
    String,
    &'static str,
    usize,
    usize,
    Option<&'static str>,
);

const K: &str = "kernel void k(float a<>, float4 v<>, float g[], float k, out float b<>) {\n";

/// A kernel body: line 2 onwards of a kernel with inputs `a`, `v`, gather `g`, constant `k`
/// and output `b`.
fn kbody(body: &str) -> String {
    format!("{K}{body}\n}}\n")
}

fn cases() -> Vec<Case> {
    let deep_parens = format!(
        "kernel void k(out float b<>) {{\n    b = {}1{};\n}}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let deep_unary = format!(
        "kernel void k(out float b<>) {{\n    b = {}1.0;\n}}\n",
        "- ".repeat(10_000)
    );
    let long_chain = format!(
        "kernel void k(float a<>, out float b<>) {{\n    b = a{};\n}}\n",
        " + a".repeat(100_000)
    );
    let deep_ifs = format!(
        "kernel void k(float a<>, out float b<>) {{\n    {}b = a;\n}}\n",
        "if (a > 0.0) ".repeat(2_000)
    );
    vec![
        // ---- lexing and parsing
        ("missing semicolon", kbody("    b = a\n    b = a;"), "syntax error: unexpected identifier `b`", 3, 5, None),
        ("unexpected eof", "kernel void k(out float b<>) {\n    b = 1.0;\n".into(), "unexpected end of file", 2, 13, None),
        ("garbage bytes", kbody("    b = a @@@ 1;"), "unexpected characters `@@@`", 2, 11, None),
        ("garbage unicode", kbody("    b = a ∑ 1;"), "unexpected character `∑`", 2, 11, None),
        ("unterminated comment", "kernel void k(out float b<>) { b = 1.0; }\n/* never closed\n".into(), "unterminated block comment", 2, 1, Some("*/")),
        ("function-like macro", "#define SQR(x) ((x)*(x))\n".into(), "function-like macro `SQR` is not supported", 1, 9, None),
        ("deep parens", deep_parens, "nesting too deep", 2, 264, None),
        ("deep unary", deep_unary, "nesting too deep", 2, 19465, None),
        ("long chain", long_chain, "nesting too deep", 2, 9, None),
        ("deep ifs", deep_ifs, "nesting too deep", 2, 22495, None),
        ("int too large", kbody("    int i = 3000000000;"), "integer literal 3000000000 is too large", 2, 13, None),
        ("pointer arrow", kbody("    b = v->x;"), "`->` is not supported", 2, 10, None),
        ("unsigned short", "kernel void k(unsigned short a<>, out float b<>) {\n    b = a;\n}\n".into(), "`unsigned short` is not supported in kernels", 1, 15, Some("`unsigned char` and `unsigned int`")),
        // ---- names and types
        ("unknown identifier", "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {\n    reslt = a*x + y;\n}\n".into(), "unknown identifier `reslt`", 2, 5, Some("did you mean `result`?")),
        ("unknown type", "kernel void k(flaot4 x<>, out float4 y<>) {\n    y = x;\n}\n".into(), "unknown type `flaot4`", 1, 15, Some("did you mean `float4`?")),
        ("int matrix", kbody("    int2x2 m = 0;"), "unknown type `int2x2`", 2, 5, Some("matrices are of `float` only")),
        ("one-column matrix", kbody("    float4x1 m = 0;"), "unknown type `float4x1`", 2, 5, Some("2 to 4 rows")),
        ("unknown local type", kbody("    flaot3 p = v.xyz;"), "unknown type `flaot3`", 2, 5, Some("did you mean `float3`?")),
        ("unknown function", kbody("    b = lenght(v);"), "unknown function `lenght`", 2, 9, Some("did you mean `length`?")),
        ("unknown member", "typedef struct { float3 pos; float3 vel; } Particle;\nkernel void k(Particle p<>, out float3 r<>) {\n    r = p.poss;\n}\n".into(), "struct `Particle` has no member `poss`", 3, 11, Some("did you mean `pos`?")),
        ("type mismatch", kbody("    float4 p = v.xy;"), "type mismatch: the initialiser expects `float4`, found `float2`", 2, 16, None),
        ("struct to float", "typedef struct { float x; } S;\nkernel void k(S s<>, out float b<>) {\n    float f = s;\n    b = f;\n}\n".into(), "type mismatch: the initialiser expects `float`, found `S`", 3, 15, None),
        ("bad operands", "typedef struct { float x; } S;\nkernel void k(S s<>, out float b<>) {\n    b = s + 1.0;\n}\n".into(), "operator `+` cannot be applied to `S` and `float`", 3, 9, None),
        ("width mismatch", kbody("    float3 p = v.xyz;\n    b = (p + v).x;"), "operator `+` cannot be applied to `float3` and `float4`", 3, 10, None),
        ("vector condition", kbody("    if (v) b = 1.0;"), "an `if` condition must be a scalar, found `float4`", 2, 9, Some("any(")),
        ("struct condition", "typedef struct { float x; } S;\nkernel void k(S s<>, out float b<>) {\n    while (s) b = 1.0;\n}\n".into(), "a `while` condition must be a `bool`, found `S`", 3, 12, None),
        ("ternary branches", "typedef struct { float x; } S;\nkernel void k(S s<>, float a<>, out float b<>) {\n    b = a > 0.0 ? s : a;\n}\n".into(), "the branches of `?:` have different types: `S` and `float`", 3, 9, None),
        ("redeclared local", kbody("    float x = 1.0;\n    float x = 2.0;"), "`x` is already declared in this scope", 3, 11, None),
        ("bad cast", "typedef struct { float x; } S;\nkernel void k(S s<>, out float b<>) {\n    b = (float)s;\n}\n".into(), "cannot convert `S` to `float`", 3, 9, None),
        ("constructor size", kbody("    float3 p = float3(1, 2, 3, 4);"), "`float3(…)` needs 3 components but 4 were given", 2, 16, None),
        // ---- Brook's parameter rules
        ("write gather", kbody("    g[0] = 1.0;"), "cannot assign to gather array `g`: gathers are read-only", 2, 5, None),
        ("write const local", kbody("    const float c = 1.0;\n    c = 2.0;"), "cannot assign to const variable `c`", 3, 5, None),
        ("push non-vout", kbody("    b = 1.0;\n    push(b);"), "`push` needs a `vout` stream, but `b` is an `out` stream", 3, 10, Some("vout [N]")),
        ("vout without count", "kernel void k(float a<>, vout float c<>) {\n    c = a;\n    push(c);\n}\n".into(), "`vout` parameter `c` needs a maximum count", 1, 26, Some("vout [4] float c<>")),
        ("vout with empty count", "kernel void k(float a<>, vout [] float c<>) {\n    c = a;\n    push(c);\n}\n".into(), "`vout` parameter `c` needs a maximum count", 1, 26, Some("vout [4] float c<>")),
        ("indexof gather", kbody("    float4 i = indexof(g);\n    b = i.x;"), "`indexof` needs an input, output or iterator stream, but `g` is a gather array", 2, 24, None),
        ("indexof constant", kbody("    b = (indexof k).x;"), "but `k` is a constant parameter", 2, 18, None),
        ("gather rank", kbody("    b = g[1][2];"), "too many subscripts for gather `g`", 2, 9, None),
        ("gather unindexed", kbody("    b = g;"), "gather array `g` must be indexed", 2, 9, None),
        ("index input stream", kbody("    b = a[0];"), "input stream `a` cannot be indexed", 2, 9, None),
        ("out not stream", "kernel void k(float a<>, out float b) {\n    b = a;\n}\n".into(), "`out` parameter `b` must be a stream", 1, 26, None),
        ("iter not float", "kernel void k(iter int i<>, out float b<>) {\n    b = 1.0;\n}\n".into(), "iterator `i` must be `float`..`float4`, not `int`", 1, 20, None),
        ("reduce two inputs", "reduce void s(float a<>, float c<>, reduce float r<>) {\n    r += a;\n}\n".into(), "must have exactly one input stream and one `reduce` parameter (it has 2 and 1)", 1, 1, None),
        ("reduce type", "reduce void s(float a<>, reduce float2 r<>) {\n    r += a;\n}\n".into(), "must have the same type (`float` vs `float2`)", 1, 26, None),
        ("reduce param in kernel", "kernel void k(float a<>, reduce float r<>) {\n    r += a;\n}\n".into(), "`reduce` parameters are only allowed in reduce functions", 1, 26, None),
        ("discard in reduce", "reduce void s(float a<>, reduce float r<>) {\n    discard;\n}\n".into(), "`discard` is not allowed in a reduce function", 2, 5, None),
        ("reduce returns value", "reduce float s(float a<>, reduce float r<>) {\n    r += a;\n}\n".into(), "a reduce function must return `void`", 1, 8, None),
        ("kernel value on some paths", "kernel float f(float a<>) {\n    if (a > 0.0) return a;\n}\n".into(), "function `f` does not return a value on every path", 1, 14, None),
        ("helper with out", "float f(out float x<>) {\n    return 1.0;\n}\n".into(), "`out` parameters are only allowed in kernels", 1, 9, None),
        // ---- calls and built-ins
        ("argument count", "float sqr(float x) { return x * x; }\nkernel void k(float a<>, out float b<>) {\n    b = sqr(a, a);\n}\n".into(), "`sqr` takes 1 argument but 2 were given", 3, 9, None),
        ("argument type", "float3 sq(float3 x) { return x * x; }\nkernel void k(float4 a<>, out float b<>) {\n    b = sq(a.xy).x;\n}\n".into(), "type mismatch: argument 1 of `sq` expects `float3`, found `float2`", 3, 12, None),
        ("builtin count", kbody("    b = pow(a);"), "`pow` takes 2 arguments but 1 was given", 2, 9, None),
        ("builtin widths", kbody("    b = dot(v, v.xyz);"), "`dot` needs two vectors of the same width", 2, 9, None),
        ("cross width", kbody("    float4 c = cross(v, v);"), "`cross` needs `float3` arguments, found `float4`", 2, 22, None),
        ("mul shapes", "kernel void k(float4x4 m, float3 v<>, out float4 r<>) {\n    r = mul(m, v);\n}\n".into(), "`mul` cannot multiply `float4x4` by `float3`", 2, 9, None),
        ("determinant not square", "kernel void k(float2x3 m, out float b<>) {\n    b = determinant(m);\n}\n".into(), "`determinant` needs a square matrix, found `float2x3`", 2, 21, None),
        ("transpose of a vector", kbody("    float4 t = transpose(v);"), "`transpose` takes a matrix, found `float4`", 2, 26, Some("float2x2")),
        ("matrix swizzle range", "kernel void k(float2x3 m, out float b<>) {\n    b = m._m20;\n}\n".into(), "`._m20` names row 2, column 0 (from 0), outside `float2x3`", 2, 11, None),
        ("matrix swizzle form", "kernel void k(float2x3 m, out float b<>) {\n    b = m._x0;\n}\n".into(), "`float2x3` has no member `_x0`", 2, 11, Some("_mRC")),
        ("matrix write mask rows", "kernel void k(float4 v<>, out float b<>) {\n    float2x2 m = float2x2(v);\n    m._m00_m11 = float2(1, 2);\n    b = m[0][0];\n}\n".into(), "matrix write mask `._m00_m11` must name distinct elements of one row", 3, 7, Some("m[i]")),
        ("frexp", kbody("    b = frexp(a, a);"), "the second argument of `frexp` must be a local `float` variable", 2, 18, None),
        ("recursion", "float f(float x) {\n    return f(x - 1.0);\n}\n".into(), "recursive call to `f` is not supported", 2, 12, None),
        ("out argument not a variable", "kernel void inner(float x, out float y<>) { y = x; }\nkernel void k(float a<>, out float b<>) {\n    inner(a, 1.0);\n}\n".into(), "argument 2 of `inner` must be a variable or an output: `inner` writes it", 3, 14, None),
        ("out argument read-only", "kernel void inner(float x, out float y<>) { y = x; }\nkernel void k(float a<>, float g[], out float b<>) {\n    inner(a, g);\n}\n".into(), "cannot assign to gather array `g`", 3, 14, None),
        ("gather argument not a gather", "kernel void inner(float g[][], out float y<>) { y = g[0][0]; }\nkernel void k(float a<>, out float b<>) {\n    inner(a, b);\n}\n".into(), "argument 1 of `inner` must be a gather array like `float g[][]`, but `a` is an input stream", 3, 11, Some("gather parameter")),
        ("gather argument rank", "kernel void inner(float g[][], out float y<>) { y = g[0][0]; }\nkernel void k(float h[], out float b<>) {\n    inner(h, b);\n}\n".into(), "but `h` is `float h[]`", 3, 11, None),
        ("gather argument expression", "kernel void inner(float g[], out float y<>) { y = g[0]; }\nkernel void k(float h[], out float b<>) {\n    inner(h[1], b);\n}\n".into(), "but this is an expression", 3, 11, None),
        ("indexof of an expression", "kernel void inner(float x<>, out float y<>) { y = indexof(x).x; }\nkernel void k(float a<>, out float b<>) {\n    inner(a * 2.0, b);\n}\n".into(), "argument 1 of `inner` must be a stream parameter of `k`, because `inner` uses `indexof(x)`", 3, 5, Some("its `indexof` as a value")),
        ("call reduce", "reduce void s(float a<>, reduce float r<>) { r += a; }\nkernel void k(float a<>, out float b<>) {\n    s(a, b);\n}\n".into(), "cannot call reduce function `s` from a function body", 3, 5, None),
        ("call vout kernel", "kernel void v(float a<>, vout [1] float c<>) { c = a; push(c); }\nkernel void k(float a<>, vout [1] float c<>) {\n    v(a, c);\n}\n".into(), "its parameter `c` is a `vout` stream", 3, 10, Some("host code")),
        ("out argument type", "typedef struct { float x; } S;\nkernel void inner(float a<>, out float y<>) { y = a; }\nkernel void k(float a<>, out float b<>) {\n    S s;\n    inner(a, s);\n    b = s.x;\n}\n".into(), "`inner` writes a `float` to its `out` argument, which is a `S`", 5, 5, None),
        // ---- swizzles
        ("swizzle range", kbody("    float2 p = v.xy;\n    b = p.z;"), "swizzle `.z` reads component `z`, beyond the 2 components of `float2`", 3, 11, None),
        ("swizzle repeat", kbody("    float4 t = v;\n    t.xx = float2(1.0, 2.0);"), "write mask `.xx` names a component twice", 3, 7, None),
        ("swizzle mixed", kbody("    b = v.xg;"), "invalid swizzle `.xg` on `float4`", 2, 11, None),
        // ---- statements
        ("break outside loop", kbody("    break;"), "`break` outside of a loop", 2, 5, None),
        ("continue outside loop", kbody("    continue;"), "`continue` outside of a loop", 2, 5, None),
        ("missing return", "float f(float x) {\n    if (x > 0.0) return x;\n}\n".into(), "function `f` does not return a value on every path", 1, 7, None),
        ("assignment in a constant", "const float c = 1.0;\nconst float d = (c = 2.0);\n".into(), "a constant's value cannot assign", 2, 18, None),
        ("increment a bool", kbody("    bool t = true;\n    b = t++ ? 1.0 : 0.0;"), "cannot increment or decrement a `bool`", 3, 9, None),
        ("vector select widths", kbody("    float3 p = v.xyz;\n    b = (v.xy > 0.0 ? p : p).x;"), "a `bool2` condition picks component by component, but the branches are `float3` and `float3`", 3, 10, Some("any(")),
        ("global not const", "float scale = 2.0;\n".into(), "global variable `scale` must be `const`", 1, 7, Some("const float scale")),
        ("kernel returns value stmt", kbody("    return a;"), "a `void` kernel cannot return a value", 2, 12, Some("return type")),
    ]
}

#[test]
fn wrong_programs_fail_with_the_right_message_and_position() {
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    for (name, src, msg, line, col, hint) in &cases {
        let run = std::panic::catch_unwind(|| compile(src, "test.br"));
        let result = match run {
            Ok(r) => r,
            Err(_) => {
                failures.push(format!("{name}: PANICKED"));
                continue;
            }
        };
        let diags = match result {
            Ok(_) => {
                failures.push(format!("{name}: compiled without errors"));
                continue;
            }
            Err(d) => d,
        };
        let Some(d) = diags.items.iter().find(|d| d.message.contains(msg)) else {
            failures.push(format!(
                "{name}: no error containing {msg:?}; got:\n{}",
                diags.short()
            ));
            continue;
        };
        let (l, c) = d.line_col(src);
        if (l, c) != (*line, *col) {
            failures.push(format!("{name}: {msg:?} at {l}:{c}, expected {line}:{col}"));
        }
        if let Some(h) = hint {
            if !d.hint.as_deref().unwrap_or("").contains(h) {
                failures.push(format!("{name}: hint {:?} lacks {h:?}", d.hint));
            }
        }
        // Rendering never fails and shows the message.
        let rendered = diags.render();
        if !rendered.contains(&d.message) {
            failures.push(format!("{name}: rendering lacks the message:\n{rendered}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn several_errors_are_reported_in_one_run() {
    let src = "kernel void a(float x<>, out float y<>) {\n    y = unknown1;\n    y = x.q;\n}\n\
               kernel void b(float x<>, out float y<>) {\n    break;\n}\n\
               float f(float x) { return x; }\n\
               kernel void c(float x<>, out float y<>) {\n    y = f(x, x);\n}\n";
    let d = compile(src, "multi.br").unwrap_err();
    assert!(d.items.len() >= 4, "{}", d.short());
}

#[test]
fn rendered_diagnostic_shows_source_line_and_caret() {
    let src = "kernel void k(float a<>, out float b<>) {\n    b = a + missing;\n}\n";
    let d = compile(src, "caret.br").unwrap_err();
    let out = d.render();
    assert!(out.contains("caret.br:2:13"), "{out}");
    assert!(out.contains("unknown identifier `missing`"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.ends_with("    b = a + missing;"))
        .expect("source line shown");
    let src_col = lines[i].find("missing").unwrap();
    assert_eq!(lines[i + 1].find('^'), Some(src_col), "{out}");
    assert_eq!(lines[i + 1].matches('^').count(), "missing".len(), "{out}");
    assert!(d.to_string().contains("unknown identifier"));
}

#[test]
fn several_syntax_errors_are_reported_in_one_run() {
    let src = "kernel void k(float a<>, out float b<>) {\n    float x = a +* 2.0;\n    b = a\n    float y = ;\n    b = (a + 1.0;\n}\n";
    let d = compile(src, "syntax.br").unwrap_err();
    let positions: Vec<(usize, usize)> = d.items.iter().map(|e| e.line_col(src)).collect();
    assert!(positions.contains(&(2, 18)), "{}", d.short());
    assert!(positions.contains(&(4, 5)), "{}", d.short());
    assert!(positions.contains(&(5, 17)), "{}", d.short());
    assert!(
        d.items
            .iter()
            .all(|e| e.message.starts_with("syntax error")),
        "{}",
        d.short()
    );
}
