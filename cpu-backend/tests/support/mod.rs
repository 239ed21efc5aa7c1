//! Short constructors for hand-built IR, until the parser exists. Each builds the node with
//! a default span and, where it can, the result type the checker would give.
#![allow(dead_code, unused_imports)]

pub use brook_cpu::{CpuArg, CpuError, CpuStream};
use brook_cpu::{Execution, KernelPlan, KernelRun, ReducePlan, ReduceTarget};
use brook_ir::Span;
pub use brook_ir::*;

// ---- types -------------------------------------------------------------------------------

pub fn fvec(n: u8) -> Type {
    Type::vector(Scalar::Float, n)
}

pub fn ivec(n: u8) -> Type {
    Type::vector(Scalar::Int, n)
}

pub fn bvec(n: u8) -> Type {
    Type::vector(Scalar::Bool, n)
}

pub fn mat(rows: u8, cols: u8) -> Type {
    Type::Matrix { rows, cols }
}

// ---- expressions -------------------------------------------------------------------------

pub fn ex(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::default(),
    }
}

pub fn lit(x: f32) -> Expr {
    ex(ExprKind::Float(x), Type::FLOAT)
}

pub fn ilit(i: i32) -> Expr {
    ex(ExprKind::Int(i), Type::INT)
}

pub fn blit(b: bool) -> Expr {
    ex(ExprKind::Bool(b), Type::BOOL)
}

/// `floatN(x0, x1, …)` from literals.
pub fn flits(xs: &[f32]) -> Expr {
    construct(fvec(xs.len() as u8), xs.iter().map(|&x| lit(x)).collect())
}

pub fn param(i: u32, ty: Type) -> Expr {
    ex(ExprKind::Param(i), ty)
}

pub fn local(i: u32, ty: Type) -> Expr {
    ex(ExprKind::Local(LocalId(i)), ty)
}

fn width_of(t: &Type) -> u8 {
    t.width().unwrap_or(1)
}

pub fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    use BinaryOp::*;
    let ty = match op {
        Eq | Ne | Lt | Le | Gt | Ge => {
            Type::vector(Scalar::Bool, width_of(&a.ty).max(width_of(&b.ty)))
        }
        And | Or => Type::BOOL,
        _ => {
            if matches!(a.ty, Type::Matrix { .. }) || width_of(&a.ty) >= width_of(&b.ty) {
                a.ty.clone()
            } else {
                b.ty.clone()
            }
        }
    };
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

pub fn add(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Sub, a, b)
}
pub fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Mul, a, b)
}
pub fn div(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Div, a, b)
}
pub fn rem(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Rem, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Lt, a, b)
}
pub fn gt(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Gt, a, b)
}
pub fn ge(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Ge, a, b)
}
pub fn eq(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Eq, a, b)
}
pub fn and(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::And, a, b)
}
pub fn or(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Or, a, b)
}

pub fn unary(op: UnaryOp, a: Expr) -> Expr {
    let ty = if op == UnaryOp::Not {
        Type::vector(Scalar::Bool, width_of(&a.ty))
    } else {
        a.ty.clone()
    };
    ex(ExprKind::Unary(op, Box::new(a)), ty)
}

pub fn neg(a: Expr) -> Expr {
    unary(UnaryOp::Neg, a)
}

pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    ex(
        ExprKind::Select {
            cond: Box::new(c),
            accept: Box::new(a),
            reject: Box::new(b),
        },
        ty,
    )
}

pub fn convert(a: Expr, ty: Type) -> Expr {
    ex(ExprKind::Convert(Box::new(a)), ty)
}

pub fn construct(ty: Type, parts: Vec<Expr>) -> Expr {
    ex(ExprKind::Construct(parts), ty)
}

/// `a.xyzw`-style swizzle from letters.
pub fn swz(a: Expr, sel: &str) -> Expr {
    let comps = sel_of(sel);
    let ty = Type::vector(a.ty.scalar().unwrap_or(Scalar::Float), comps.len() as u8);
    ex(ExprKind::Swizzle(Box::new(a), comps), ty)
}

pub fn sel_of(sel: &str) -> Vec<u8> {
    sel.chars()
        .map(|c| "xyzw".find(c).expect("swizzle letter") as u8)
        .collect()
}

pub fn member(a: Expr, i: u32, ty: Type) -> Expr {
    ex(ExprKind::Member(Box::new(a), i), ty)
}

pub fn index(a: Expr, i: Expr, ty: Type) -> Expr {
    ex(ExprKind::Index(Box::new(a), Box::new(i)), ty)
}

pub fn gather(p: u32, indices: Vec<Expr>, ty: Type) -> Expr {
    ex(ExprKind::Gather { param: p, indices }, ty)
}

pub fn indexof(p: u32) -> Expr {
    ex(ExprKind::IndexOf(p), fvec(4))
}

pub fn call(f: u32, args: Vec<Expr>, ty: Type) -> Expr {
    ex(ExprKind::Call(FunctionId(f), args), ty)
}

/// A built-in call; the result type is inferred like the checker would for the common cases.
pub fn bi(b: Builtin, args: Vec<Expr>) -> Expr {
    use Builtin::*;
    let first = args.first().map(|a| a.ty.clone()).unwrap_or(Type::FLOAT);
    let ty = match b {
        Dot | Length | Distance | Pack4ubyte => Type::FLOAT,
        Unpack4ubyte => fvec(4),
        All | Any => Type::BOOL,
        IsNan | IsInf | IsFinite => Type::vector(Scalar::Bool, width_of(&first)),
        Mul => match (&args[0].ty, &args[1].ty) {
            (Type::Matrix { rows, cols: k }, Type::Matrix { cols, .. }) => {
                let _ = k;
                mat(*rows, *cols)
            }
            (Type::Matrix { rows, .. }, _) => fvec(*rows),
            (_, Type::Matrix { cols, .. }) => fvec(*cols),
            (a, b) => {
                if width_of(a) >= width_of(b) {
                    a.clone()
                } else {
                    b.clone()
                }
            }
        },
        Step => args[1].ty.clone(),
        Smoothstep => args[2].ty.clone(),
        _ => args
            .iter()
            .map(|a| a.ty.clone())
            .max_by_key(width_of)
            .unwrap_or(Type::FLOAT),
    };
    ex(ExprKind::Builtin(b, args), ty)
}

// ---- places and statements ---------------------------------------------------------------

pub fn st(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

pub fn place_param(p: u32, ty: Type) -> Place {
    Place {
        root: PlaceRoot::Param(p),
        path: vec![],
        ty,
    }
}

pub fn place_local(l: u32, ty: Type) -> Place {
    Place {
        root: PlaceRoot::Local(LocalId(l)),
        path: vec![],
        ty,
    }
}

/// Appends a step to a place; `ty` is the type after it.
pub fn step(mut p: Place, a: Access, ty: Type) -> Place {
    p.path.push(a);
    p.ty = ty;
    p
}

pub fn mask(p: Place, sel: &str) -> Place {
    let comps = sel_of(sel);
    let ty = Type::vector(p.ty.scalar().unwrap_or(Scalar::Float), comps.len() as u8);
    step(p, Access::Swizzle(comps), ty)
}

pub fn assign(target: Place, value: Expr) -> Stmt {
    st(StmtKind::Assign {
        target,
        op: None,
        value,
    })
}

pub fn assign_op(target: Place, op: BinaryOp, value: Expr) -> Stmt {
    st(StmtKind::Assign {
        target,
        op: Some(op),
        value,
    })
}

/// `out_param = value` for parameter `p`.
pub fn assign_out(p: u32, value: Expr) -> Stmt {
    let ty = value.ty.clone();
    assign(place_param(p, ty), value)
}

pub fn decl(l: u32, init: Option<Expr>) -> Stmt {
    st(StmtKind::Decl {
        local: LocalId(l),
        init,
    })
}

pub fn if_(cond: Expr, then: Block, otherwise: Block) -> Stmt {
    st(StmtKind::If {
        cond,
        then,
        otherwise,
    })
}

pub fn for_(init: Block, cond: Expr, step: Block, body: Block) -> Stmt {
    st(StmtKind::Loop {
        init,
        cond: Some(cond),
        step,
        body,
        test_first: true,
    })
}

pub fn do_while(body: Block, cond: Expr) -> Stmt {
    st(StmtKind::Loop {
        init: vec![],
        cond: Some(cond),
        step: vec![],
        body,
        test_first: false,
    })
}

pub fn brk() -> Stmt {
    st(StmtKind::Break)
}

pub fn cont() -> Stmt {
    st(StmtKind::Continue)
}

pub fn ret(e: Option<Expr>) -> Stmt {
    st(StmtKind::Return(e))
}

pub fn discard() -> Stmt {
    st(StmtKind::Discard)
}

// ---- parameters and functions ------------------------------------------------------------

pub fn prm(name: &str, ty: Type, class: ParamClass) -> Param {
    Param {
        name: name.into(),
        ty,
        declared: None,
        class,
        span: Span::default(),
    }
}

pub fn stream_param(name: &str, ty: Type) -> Param {
    prm(name, ty, ParamClass::Stream)
}

pub fn float4_stream_param(name: &str) -> Param {
    stream_param(name, fvec(4))
}

pub fn out_param(name: &str, ty: Type) -> Param {
    prm(name, ty, ParamClass::Out)
}

pub fn gather_param(name: &str, ty: Type, rank: u8) -> Param {
    prm(name, ty, ParamClass::Gather { rank })
}

pub fn const_param(name: &str, ty: Type) -> Param {
    prm(name, ty, ParamClass::Constant)
}

pub fn iter_param(name: &str, ty: Type) -> Param {
    prm(name, ty, ParamClass::Iter)
}

pub fn reduce_param(name: &str, ty: Type) -> Param {
    prm(name, ty, ParamClass::Reduce)
}

pub fn func(
    name: &str,
    kind: FunctionKind,
    params: Vec<Param>,
    ret: Type,
    locals: Vec<Type>,
    body: Block,
) -> Function {
    Function {
        name: name.into(),
        kind,
        params,
        ret,
        locals: locals
            .into_iter()
            .enumerate()
            .map(|(i, ty)| Local {
                name: format!("l{i}"),
                ty,
            })
            .collect(),
        body,
        span: Span::default(),
    }
}

pub fn kernel(name: &str, params: Vec<Param>, locals: Vec<Type>, body: Block) -> Function {
    func(name, FunctionKind::Kernel, params, Type::Void, locals, body)
}

pub fn helper(
    name: &str,
    params: Vec<Param>,
    ret: Type,
    locals: Vec<Type>,
    body: Block,
) -> Function {
    func(name, FunctionKind::Helper, params, ret, locals, body)
}

pub fn reduction(name: &str, params: Vec<Param>, locals: Vec<Type>, body: Block) -> Function {
    func(name, FunctionKind::Reduce, params, Type::Void, locals, body)
}

pub fn module(functions: Vec<Function>) -> Module {
    Module {
        structs: vec![],
        functions,
    }
}

pub fn strukt(name: &str, members: Vec<(&str, Type)>) -> StructDef {
    StructDef {
        name: name.into(),
        members: members
            .into_iter()
            .map(|(n, ty)| StructMember { name: n.into(), ty })
            .collect(),
        span: Span::default(),
    }
}

/// The id of the last function of the module (the kernel under test, after its helpers).
pub fn last(m: &Module) -> FunctionId {
    FunctionId(m.functions.len() as u32 - 1)
}

// ---- streams -----------------------------------------------------------------------------

/// A `float` stream of shape `<len>` holding `data`.
pub fn floats(data: &[f32]) -> CpuStream {
    CpuStream::from_data(&[1], &[data.len()], data).unwrap()
}

pub fn zeros(widths: &[u8], shape: &[usize]) -> CpuStream {
    CpuStream::new(widths, shape).unwrap()
}

/// `0, 1, 2, …` as a `float` stream of `shape`.
pub fn ramp(shape: &[usize]) -> CpuStream {
    let n: usize = shape.iter().product();
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    CpuStream::from_data(&[1], shape, &data).unwrap()
}

/// A kernel `copy(float a<>, out float o<>) { o = a; }`.
pub fn copy_kernel() -> Module {
    module(vec![kernel(
        "copy",
        vec![stream_param("a", Type::FLOAT), out_param("o", Type::FLOAT)],
        vec![],
        vec![assign_out(1, param(0, Type::FLOAT))],
    )])
}

/// Runs a one-input one-output kernel on `input` into a fresh `float` output of `shape`.
pub fn run_unary(m: &Module, input: &CpuStream, shape: &[usize], out_width: u8) -> Vec<f32> {
    let mut out = zeros(&[out_width], shape);
    run_kernel(
        m,
        last(m),
        &mut [CpuArg::Stream(input), CpuArg::Out(&mut out)],
    )
    .unwrap();
    out.data().to_vec()
}

/// `m` as the runtime hands it to a backend (`Compiled::new`), its composite built-ins
/// written as their formulas, and where function `id` is after the helpers that places
/// before it.
pub fn lowered(m: &Module, id: FunctionId) -> (Module, FunctionId) {
    let mut m = m.clone();
    let helpers = brook_ir::lower_composites(&mut m);
    (m, FunctionId(id.0 + helpers))
}

/// Runs `kernel` on both engines — native code and the interpreter — and asserts they agree
/// bit for bit on every output (and on whether the call fails); returns the native code's
/// result. Every kernel test goes through here, so each one checks both engines, and that
/// the JIT takes the kernel (no quiet fallback to the interpreter).
pub fn run_kernel(m: &Module, id: FunctionId, args: &mut [CpuArg]) -> Result<(), CpuError> {
    run_kernel_in(m, id, args, MathMode::Accurate)
}

/// [`run_kernel`] with both engines computing built-ins as `math` asks.
pub fn run_kernel_in(
    m: &Module,
    id: FunctionId,
    args: &mut [CpuArg],
    math: MathMode,
) -> Result<(), CpuError> {
    let (m, id) = lowered(m, id);
    let m = &m;
    let mut copies: Vec<Option<CpuStream>> = args
        .iter()
        .map(|a| match a {
            CpuArg::Out(s) => Some((**s).clone()),
            _ => None,
        })
        .collect();
    let mut interp_args: Vec<CpuArg> = args
        .iter()
        .zip(copies.iter_mut())
        .map(|(a, c)| match (a, c) {
            (CpuArg::Out(_), Some(c)) => CpuArg::Out(c),
            (CpuArg::Stream(s), _) => CpuArg::Stream(s),
            (CpuArg::Gather(s), _) => CpuArg::Gather(s),
            (CpuArg::Iter(i), _) => CpuArg::Iter(i),
            (CpuArg::Constant(v), _) => CpuArg::Constant(v.clone()),
            (CpuArg::Out(_), None) => unreachable!("every output was copied"),
        })
        .collect();
    let interpreted = KernelPlan::interpreted(id)
        .in_mode(math)
        .run(m, &mut interp_args);
    drop(interp_args);
    let batched = KernelPlan::new(m, id)
        .in_mode(math)
        .run_masked(m, args, None);
    if let Ok(KernelRun {
        execution: Execution {
            fallback: Some(why),
            ..
        },
        ..
    }) = &batched
    {
        panic!("the JIT did not take the kernel: {why}");
    }
    assert_eq!(
        interpreted.is_ok(),
        batched.is_ok(),
        "interpreter {interpreted:?} vs native code {batched:?}"
    );
    let outs = args.iter().filter_map(|a| match a {
        CpuArg::Out(s) => Some(&**s),
        _ => None,
    });
    for (k, (b, i)) in outs.zip(copies.iter().flatten()).enumerate() {
        for (e, (x, y)) in b.data().iter().zip(i.data()).enumerate() {
            assert!(
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                "output {k} float {e}: native code {x} vs interpreter {y}"
            );
        }
    }
    batched.map(drop)
}

/// Runs reduction `id` on both engines — native code and the interpreter — into copies of
/// `output`, asserts they agree bit for bit (and on whether the call fails), and returns the
/// native code's result. Every reduction test goes through here.
pub fn run_reduce(
    m: &Module,
    id: FunctionId,
    input: &CpuStream,
    extra: &mut [CpuArg],
    output: ReduceTarget,
) -> Result<(), CpuError> {
    let (m, id) = lowered(m, id);
    let m = &m;
    let mut extra_copy: Vec<CpuArg> = extra
        .iter()
        .map(|a| match a {
            CpuArg::Gather(s) => CpuArg::Gather(s),
            CpuArg::Constant(v) => CpuArg::Constant(v.clone()),
            CpuArg::Stream(s) => CpuArg::Stream(s),
            CpuArg::Iter(i) => CpuArg::Iter(i),
            CpuArg::Out(_) => panic!("reductions take no outputs among their extra arguments"),
        })
        .collect();
    let (interpreted, native, result): (Vec<f32>, Vec<f32>, _) = match output {
        ReduceTarget::Value(dst) => {
            let mut copy = dst.to_vec();
            let i = ReducePlan::interpreted(id).run(
                m,
                input,
                &mut extra_copy,
                ReduceTarget::Value(&mut copy),
            );
            let n = ReducePlan::new(m, id).run(m, input, extra, ReduceTarget::Value(dst));
            assert_eq!(
                i.is_ok(),
                n.is_ok(),
                "interpreter {i:?} vs native code {n:?}"
            );
            (copy, dst.to_vec(), n)
        }
        ReduceTarget::Stream(out) => {
            let mut copy = out.clone();
            let i = ReducePlan::interpreted(id).run(
                m,
                input,
                &mut extra_copy,
                ReduceTarget::Stream(&mut copy),
            );
            let n = ReducePlan::new(m, id).run(m, input, extra, ReduceTarget::Stream(out));
            assert_eq!(
                i.is_ok(),
                n.is_ok(),
                "interpreter {i:?} vs native code {n:?}"
            );
            (copy.data().to_vec(), out.data().to_vec(), n)
        }
    };
    if let Ok(Execution {
        fallback: Some(why),
        ..
    }) = &result
    {
        panic!("the JIT did not take the reduction: {why}");
    }
    for (e, (x, y)) in native.iter().zip(&interpreted).enumerate() {
        assert!(
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            "float {e}: native code {x} vs interpreter {y}"
        );
    }
    result.map(drop)
}
