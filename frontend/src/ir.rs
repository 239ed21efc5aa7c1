//! The typed IR: what the front end hands every back end.
//!
//! Like naga's `Module`, it is plain data. Every expression carries its type, every name is
//! resolved to an index, and every conversion the language does implicitly is explicit here,
//! so a back end (GLSL, CPU, later WGSL) lowers it without re-deriving anything.
//!
//! Conventions a back end may rely on:
//! - Binary operands have the same scalar kind. One side may be a scalar where the other is a
//!   vector (Cg's implicit splat); the result then has the vector type.
//! - Comparison operators produce `bool` (or `boolN` component-wise for vectors).
//! - Logical `&&`, `||`, `!` on `bool` scalars are C's (`&&`/`||` short-circuit). On `boolN`
//!   operands (both of width N) they are Cg's component-wise operators and both sides are
//!   evaluated. Conditions of `if` and loops are `bool` scalars.
//! - `Select`'s condition is a `bool` scalar (one branch is evaluated) or, as in Cg, a
//!   `boolN` whose branches are both N wide: each component comes from its side.
//! - Expressions have no effects, except `frexp`/`modf` writing a local and helper calls
//!   (which can only discard): C's assignments and `++` inside expressions, and kernels
//!   called from kernels, are already statements here.
//! - Only outputs (`out`, `vout`, `reduce`) are assigned; `Param` reads no `out` parameter
//!   (a kernel that reads its output works on a local, copied to the output at every exit).
//! - A `Loop`'s `step` holds only `Assign` and `Expr` statements.
//! - `float1` is the same type as `float` (likewise `int1`).
//! - Function, struct, parameter and local indices are positions in the owning vectors.

use crate::span::Span;

/// A whole Brook source file after checking.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    pub structs: Vec<StructDef>,
    /// Kernels, reductions and helper functions in source order. A function only calls
    /// functions declared before it, so lowering in this order never needs forward declarations.
    /// A `Call` names a helper, or a kernel whose parameters are all values and that uses no
    /// `indexof` (its stream and iterator parameters are then plain values); every other kernel
    /// called from a kernel is inlined by the front end.
    pub functions: Vec<Function>,
}

impl Module {
    /// Looks a kernel, reduction or helper up by its Brook name.
    pub fn function(&self, name: &str) -> Option<(FunctionId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (FunctionId(i as u32), f))
    }

    pub fn struct_def(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }

    pub fn func(&self, id: FunctionId) -> &Function {
        &self.functions[id.0 as usize]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

#[derive(Debug, Clone, PartialEq)]
pub struct StructDef {
    pub name: String,
    pub members: Vec<StructMember>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StructMember {
    pub name: String,
    pub ty: Type,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    Float,
    Int,
    Bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// `float2`..`float4`, `int2`..`int4`, `bool2`..`bool4`: width is 2, 3 or 4.
    Vector(Scalar, u8),
    /// `floatRxC`: `rows` vectors of `cols` floats, as in Cg (`mul(m, v)` treats `v` as a column).
    Matrix {
        rows: u8,
        cols: u8,
    },
    Struct(StructId),
    /// A local array of constant size (`float w[5];`).
    Array(Box<Type>, u32),
}

impl Type {
    pub const FLOAT: Type = Type::Scalar(Scalar::Float);
    pub const INT: Type = Type::Scalar(Scalar::Int);
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);

    /// A scalar for width 1, else a vector.
    pub fn vector(scalar: Scalar, width: u8) -> Type {
        if width == 1 {
            Type::Scalar(scalar)
        } else {
            Type::Vector(scalar, width)
        }
    }

    /// The scalar kind of a scalar or vector type.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
            Type::Matrix { .. } => Some(Scalar::Float),
            _ => None,
        }
    }

    /// Number of components of a scalar (1) or vector type.
    pub fn width(&self) -> Option<u8> {
        match self {
            Type::Scalar(_) => Some(1),
            Type::Vector(_, n) => Some(*n),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `kernel void f(...)`: runs once per output element. A kernel with a non-`void` return
    /// type is only called by other kernels, never run by a host (as in the original).
    Kernel,
    /// `reduce void f(T a<>, reduce T r<>)`: an associative combiner.
    Reduce,
    /// A plain function callable from kernels.
    Helper,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub params: Vec<Param>,
    /// `Void` for reductions and for the kernels a host runs.
    pub ret: Type,
    /// Every local variable of the body, declared by `Stmt::Decl`.
    pub locals: Vec<Local>,
    pub body: Block,
    pub span: Span,
}

impl Function {
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    /// The element type for streams, gathers, iterators; the value type for constants.
    pub ty: Type,
    pub class: ParamClass,
    pub span: Span,
}

/// How a kernel parameter is bound, which decides how a back end fetches or stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamClass {
    /// `T a<>`: the input element at this position (resized to the output's shape).
    Stream,
    /// `out T a<>`: write-only output element.
    Out,
    /// `T a[]`, `T a[][]`, `T a[10][10]`: random-access read; `rank` subscripts allowed
    /// (a single subscript may be a vector index).
    Gather { rank: u8 },
    /// `T a`: a uniform value, the same for every element.
    Constant,
    /// `iter T a<>`: an iterator stream, computed rather than fetched.
    Iter,
    /// `reduce T r<>`: the accumulator of a reduction.
    Reduce,
    /// `vout [N] T a<>`: a variable-length output written by `push`.
    Vout { max: u32 },
}

impl ParamClass {
    pub fn is_output(self) -> bool {
        matches!(
            self,
            ParamClass::Out | ParamClass::Reduce | ParamClass::Vout { .. }
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: Type,
}

pub type Block = Vec<Stmt>;

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// A local declaration; locals without an initialiser start as zero in every back end.
    Decl {
        local: LocalId,
        init: Option<Expr>,
    },
    /// `target = value`, or `target op= value` when `op` is set (`x += 1` is `op: Some(Add)`).
    /// `x++`/`--x` as statements lower to this too.
    Assign {
        target: Place,
        op: Option<BinaryOp>,
        value: Expr,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        otherwise: Block,
    },
    /// `for`, `while` and `do … while`, unified: `init` runs once; each iteration tests `cond`
    /// first unless `test_first` is false (do-while), runs `body`, then `step`.
    Loop {
        init: Block,
        cond: Option<Expr>,
        step: Block,
        body: Block,
        test_first: bool,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Block(Block),
    /// `discard` / kill: this element writes no output.
    Discard,
    /// `push(value)` onto the `vout` parameter `param`.
    Push {
        param: u32,
        value: Expr,
    },
}

/// Something assignable: a local or an output/reduce parameter, then member, swizzle and index
/// steps (`r.pos.xz`, `w[i]`). A swizzle step is a write mask. On a matrix, `Index(i)` is row
/// `i` (a `floatC`), which an `Index(j)` or a `Swizzle` may follow (Cg's `m._m01`, `m[1].xz`).
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub root: PlaceRoot,
    pub path: Vec<Access>,
    /// The type of the whole place (after the path).
    pub ty: Type,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceRoot {
    Local(LocalId),
    Param(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Access {
    Member(u32),
    /// Component indices 0..=3 (x, y, z, w), no repeats when used as a write mask.
    Swizzle(Vec<u8>),
    Index(Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Float(f32),
    Int(i32),
    Bool(bool),
    Local(LocalId),
    /// The value of a parameter at this element: the input/iterator element for streams, the
    /// uniform value for constants, the current accumulator for `reduce`, the value a `vout`
    /// pushes. (Not valid for gathers, which are only read through `Gather`, nor for `out`.)
    Param(u32),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `cond ? a : b`: `cond` is a `bool` scalar, or a `boolN` choosing per component.
    Select {
        cond: Box<Expr>,
        accept: Box<Expr>,
        reject: Box<Expr>,
    },
    /// A conversion to `Expr::ty` (casts, and implicit int→float promotion).
    Convert(Box<Expr>),
    /// A vector, matrix or struct built from parts (`float4(a, b.xy, 1)`): the parts'
    /// components fill the result in order; a single scalar argument splats.
    Construct(Vec<Expr>),
    /// Component indices 0..=3 read from a vector (or a scalar: `x.xxx`).
    Swizzle(Box<Expr>, Vec<u8>),
    Member(Box<Expr>, u32),
    /// Indexing a local array, a vector component or a matrix row.
    Index(Box<Expr>, Box<Expr>),
    /// `a[i]`/`a[i][j]` on a gather parameter. `indices` are `float`/`int` scalars, or a single
    /// `float2..4`/`int2..4` vector whose `.x` is the last dimension (column). Each component
    /// becomes `floor(v + 0.25)`, clamped to the extent (Brook's rule).
    Gather {
        param: u32,
        indices: Vec<Expr>,
    },
    /// `indexof(a)`: `float4` position of this element in stream parameter `a` (`.x` column).
    IndexOf(u32),
    Builtin(Builtin, Vec<Expr>),
    Call(FunctionId, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `%`: C remainder on ints, `fmod` (truncated) on floats.
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinaryOp {
    /// The operator as C and GLSL spell it.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }
}

/// The Cg-style built-in functions, overloaded by vector width; the argument and result types
/// are on the `Expr`s. Semantics follow Cg/HLSL (see `docs/semantics.md`). `Frexp` and `Modf`
/// write their second argument, always an `ExprKind::Local` of the first argument's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    Abs,
    Acos,
    All,
    Any,
    Asin,
    Atan,
    Atan2,
    Ceil,
    Clamp,
    Cos,
    Cosh,
    Cross,
    Degrees,
    Distance,
    Dot,
    Exp,
    Exp2,
    Floor,
    Fmod,
    Frac,
    Frexp,
    IsFinite,
    IsInf,
    IsNan,
    Ldexp,
    Length,
    Lerp,
    Log,
    Log2,
    Log10,
    Max,
    Min,
    Modf,
    Mul,
    Normalize,
    /// `pack_4ubyte(float4) -> float`: each component saturated to [0, 1], scaled to 0..255
    /// and rounded to nearest (halves up), `.x` in the lowest byte; the four bytes are the
    /// bits of the result (Cg). Back ends must move those bits without arithmetic.
    Pack4ubyte,
    Pow,
    Radians,
    Round,
    Rsqrt,
    Saturate,
    Sign,
    Sin,
    Sinh,
    Smoothstep,
    Sqrt,
    Step,
    Tan,
    Tanh,
    /// `unpack_4ubyte(float) -> float4`: the four bytes of the argument's bits, lowest first,
    /// each divided by 255 (Cg; the inverse of `pack_4ubyte`).
    Unpack4ubyte,
}

impl Builtin {
    /// Every built-in with its Brook spelling.
    pub const ALL: &'static [(Builtin, &'static str)] = &[
        (Builtin::Abs, "abs"),
        (Builtin::Acos, "acos"),
        (Builtin::All, "all"),
        (Builtin::Any, "any"),
        (Builtin::Asin, "asin"),
        (Builtin::Atan, "atan"),
        (Builtin::Atan2, "atan2"),
        (Builtin::Ceil, "ceil"),
        (Builtin::Clamp, "clamp"),
        (Builtin::Cos, "cos"),
        (Builtin::Cosh, "cosh"),
        (Builtin::Cross, "cross"),
        (Builtin::Degrees, "degrees"),
        (Builtin::Distance, "distance"),
        (Builtin::Dot, "dot"),
        (Builtin::Exp, "exp"),
        (Builtin::Exp2, "exp2"),
        (Builtin::Floor, "floor"),
        (Builtin::Fmod, "fmod"),
        (Builtin::Frac, "frac"),
        (Builtin::Frexp, "frexp"),
        (Builtin::IsFinite, "isfinite"),
        (Builtin::IsInf, "isinf"),
        (Builtin::IsNan, "isnan"),
        (Builtin::Ldexp, "ldexp"),
        (Builtin::Length, "length"),
        (Builtin::Lerp, "lerp"),
        (Builtin::Log, "log"),
        (Builtin::Log2, "log2"),
        (Builtin::Log10, "log10"),
        (Builtin::Max, "max"),
        (Builtin::Min, "min"),
        (Builtin::Modf, "modf"),
        (Builtin::Mul, "mul"),
        (Builtin::Normalize, "normalize"),
        (Builtin::Pack4ubyte, "pack_4ubyte"),
        (Builtin::Pow, "pow"),
        (Builtin::Radians, "radians"),
        (Builtin::Round, "round"),
        (Builtin::Rsqrt, "rsqrt"),
        (Builtin::Saturate, "saturate"),
        (Builtin::Sign, "sign"),
        (Builtin::Sin, "sin"),
        (Builtin::Sinh, "sinh"),
        (Builtin::Smoothstep, "smoothstep"),
        (Builtin::Sqrt, "sqrt"),
        (Builtin::Step, "step"),
        (Builtin::Tan, "tan"),
        (Builtin::Tanh, "tanh"),
        (Builtin::Unpack4ubyte, "unpack_4ubyte"),
    ];

    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(b, _)| *b)
    }

    pub fn name(self) -> &'static str {
        Builtin::ALL
            .iter()
            .find(|(b, _)| *b == self)
            .map(|(_, n)| *n)
            .expect("every builtin is listed in Builtin::ALL")
    }
}
