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

use crate::builtin::Builtin;
use crate::span::Span;

/// A whole Brook source file after checking.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// Every struct type of the file, indexed by [`StructId`].
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

    /// The struct a [`Type::Struct`] names.
    pub fn struct_def(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }

    /// The function an [`ExprKind::Call`] names.
    pub fn func(&self, id: FunctionId) -> &Function {
        &self.functions[id.0 as usize]
    }
}

/// A struct type: its position in [`Module::structs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// A kernel, reduction or helper: its position in [`Module::functions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);

/// A local variable: its position in its function's [`Function::locals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// A struct type (`struct Ray { float3 o; float3 d; }`), whatever it was called in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDef {
    /// The name to print it by: the typedef name, else the tag.
    pub name: String,
    /// The members in declaration order; [`ExprKind::Member`] and [`Access::Member`] index
    /// this list.
    pub members: Vec<StructMember>,
    /// The struct's definition in the source.
    pub span: Span,
}

/// One member of a [`StructDef`].
#[derive(Debug, Clone, PartialEq)]
pub struct StructMember {
    /// The member's name, for back ends that print it.
    pub name: String,
    /// Its type (arrays allowed).
    pub ty: Type,
}

/// The component kinds of Brook's types: every scalar, vector and matrix is built from one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// 32-bit IEEE float (`float`).
    Float,
    /// 32-bit two's-complement integer (`int`).
    Int,
    /// `bool`.
    Bool,
}

/// A checked type: every type name and typedef of the source resolved to one of these.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// The return type of a function that returns nothing.
    Void,
    /// `float`, `int` or `bool` (also `float1`, `int1`).
    Scalar(Scalar),
    /// `float2`..`float4`, `int2`..`int4`, `bool2`..`bool4`: width is 2, 3 or 4.
    Vector(Scalar, u8),
    /// `floatRxC`: `rows` vectors of `cols` floats, as in Cg (`mul(m, v)` treats `v` as a column).
    Matrix {
        /// How many rows (`R` in `floatRxC`), 2 to 4.
        rows: u8,
        /// How many columns (`C`), 2 to 4.
        cols: u8,
    },
    /// A struct type, defined in [`Module::structs`].
    Struct(StructId),
    /// A local array of constant size (`float w[5];`).
    Array(Box<Type>, u32),
}

impl Type {
    /// `float`
    pub const FLOAT: Type = Type::Scalar(Scalar::Float);
    /// `int`
    pub const INT: Type = Type::Scalar(Scalar::Int);
    /// `bool`
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);

    /// A scalar for width 1, else a vector.
    pub fn vector(scalar: Scalar, width: u8) -> Type {
        if width == 1 {
            Type::Scalar(scalar)
        } else {
            Type::Vector(scalar, width)
        }
    }

    /// The scalar kind of a scalar, vector or matrix type (matrices are always `float`); `None`
    /// for anything else.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
            Type::Matrix { .. } => Some(Scalar::Float),
            _ => None,
        }
    }

    /// Number of components of a scalar (1) or vector type; `None` for anything else.
    pub fn width(&self) -> Option<u8> {
        match self {
            Type::Scalar(_) => Some(1),
            Type::Vector(_, n) => Some(*n),
            _ => None,
        }
    }
}

/// Which of Brook's three kinds of function a [`Function`] is.
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

/// A checked kernel, reduction or helper function.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The Brook name a host looks it up by.
    pub name: String,
    /// Kernel, reduction or helper.
    pub kind: FunctionKind,
    /// The parameters in declaration order; [`ExprKind::Param`], [`PlaceRoot::Param`] and
    /// friends index this list.
    pub params: Vec<Param>,
    /// `Void` for reductions and for the kernels a host runs.
    pub ret: Type,
    /// Every local variable of the body, declared by `Stmt::Decl`.
    pub locals: Vec<Local>,
    /// The checked statements of the body.
    pub body: Block,
    /// The whole definition in the source.
    pub span: Span,
}

impl Function {
    /// The local a [`LocalId`] of this function names.
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

/// One parameter of a [`Function`].
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Its Brook name (hosts bind streams by position, back ends print it).
    pub name: String,
    /// The element type for streams, gathers, iterators; the value type for constants.
    pub ty: Type,
    /// The element type the source declared, where streams cannot hold it: `int`..`int4`
    /// (also C's `unsigned int`). Streams hold floats, so `ty` is then `float` of that width
    /// and the body converts where it reads or writes the parameter (the front end's
    /// `int_streams` lowering); hosts use this to type a reduction's host value.
    pub declared: Option<Type>,
    /// How it is bound: stream, output, gather, constant, ….
    pub class: ParamClass,
    /// The parameter's declaration.
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
    Gather {
        /// How many subscripts the declaration has (`a[][]` is 2).
        rank: u8,
    },
    /// `T a`: a uniform value, the same for every element.
    Constant,
    /// `iter T a<>`: an iterator stream, computed rather than fetched.
    Iter,
    /// `reduce T r<>`: the accumulator of a reduction.
    Reduce,
    /// `vout [N] T a<>`: a variable-length output written by `push`.
    Vout {
        /// `N`: the most values one element may push.
        max: u32,
    },
}

impl ParamClass {
    /// Whether the kernel writes this parameter (`out`, `reduce`, `vout`) rather than reads it.
    pub fn is_output(self) -> bool {
        matches!(
            self,
            ParamClass::Out | ParamClass::Reduce | ParamClass::Vout { .. }
        )
    }
}

/// A local variable of a [`Function`]: one declared in the body, or a temporary the checker
/// made (for an inlined kernel, a copied parameter, an effect taken out of an expression).
#[derive(Debug, Clone, PartialEq)]
pub struct Local {
    /// Its Brook name, or one the checker made up for a temporary. Two locals of a function
    /// may share a name (declared in different blocks): the [`LocalId`] tells them apart.
    pub name: String,
    /// Its type (arrays allowed).
    pub ty: Type,
}

/// A sequence of statements run in order: a function body, a branch, a loop part.
pub type Block = Vec<Stmt>;

/// A checked statement with its source position.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
    /// The source statement it comes from.
    pub span: Span,
}

/// The statements of the IR: C's, with every loop form unified and expression effects
/// (assignments, `++`, `push`) made statements.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// A local declaration; locals without an initialiser start as zero in every back end.
    Decl {
        /// The local declared.
        local: LocalId,
        /// Its initial value, of the local's type.
        init: Option<Expr>,
    },
    /// `target = value`, or `target op= value` when `op` is set (`x += 1` is `op: Some(Add)`).
    /// `x++`/`--x` as statements lower to this too.
    Assign {
        /// What is written: a local or output, with member/swizzle/index steps.
        target: Place,
        /// The operator of a compound assignment.
        op: Option<BinaryOp>,
        /// For `=`, the value converted to the target's type; for `op=`, the right operand of
        /// `target op value` (the [`Binary`](ExprKind::Binary) rules apply, so a scalar may
        /// update a vector).
        value: Expr,
    },
    /// An expression run for its effect (a helper call, `frexp`/`modf`), its value dropped.
    Expr(Expr),
    /// `if`/`else`.
    If {
        /// A `bool` scalar.
        cond: Expr,
        /// Run when `cond` holds.
        then: Block,
        /// Run otherwise (empty when there was no `else`).
        otherwise: Block,
    },
    /// `for`, `while` and `do … while`, unified: `init` runs once; each iteration tests `cond`
    /// first unless `test_first` is false (do-while), runs `body`, then `step`.
    Loop {
        /// Runs once, before the first test (a `for`'s first clause).
        init: Block,
        /// A `bool` scalar; `None` loops until `break`/`return`.
        cond: Option<Expr>,
        /// Runs after each iteration, also after `continue`.
        step: Block,
        /// The loop body.
        body: Block,
        /// `false` for `do … while`: the first iteration runs without testing.
        test_first: bool,
    },
    /// Leaves the innermost loop.
    Break,
    /// Goes to the innermost loop's `step`, then its test.
    Continue,
    /// Leaves the function, with its value for a helper or a kernel called from kernels.
    Return(Option<Expr>),
    /// A nested block (C's `{ … }`, or statements the checker groups).
    Block(Block),
    /// `discard` / kill: this element writes no output.
    Discard,
    /// `push(value)` onto the `vout` parameter `param`.
    Push {
        /// Index of the `vout` parameter in [`Function::params`].
        param: u32,
        /// The value appended, of the parameter's element type.
        value: Expr,
    },
}

/// Something assignable: a local or an output/reduce parameter, then member, swizzle and index
/// steps (`r.pos.xz`, `w[i]`). A swizzle step is a write mask. On a matrix, `Index(i)` is row
/// `i` (a `floatC`), which an `Index(j)` or a `Swizzle` may follow (Cg's `m._m01`, `m[1].xz`).
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// The variable written.
    pub root: PlaceRoot,
    /// The steps into it, outermost first; empty to write all of it.
    pub path: Vec<Access>,
    /// The type of the whole place (after the path).
    pub ty: Type,
}

/// The variable a [`Place`] starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceRoot {
    /// A local variable.
    Local(LocalId),
    /// An output parameter (`out`, `reduce`, `vout`), by its index in [`Function::params`].
    Param(u32),
}

/// One step of a [`Place`]'s path.
#[derive(Debug, Clone, PartialEq)]
pub enum Access {
    /// A struct member, by its index in [`StructDef::members`].
    Member(u32),
    /// Component indices 0..=3 (x, y, z, w), no repeats when used as a write mask.
    Swizzle(Vec<u8>),
    /// An array element, vector component or matrix row; the index is an `int` scalar.
    Index(Box<Expr>),
}

/// A typed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What is computed.
    pub kind: ExprKind,
    /// The type of the value: every expression has one, so back ends never infer types.
    pub ty: Type,
    /// The source expression it comes from.
    pub span: Span,
}

/// The expressions of the IR.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A `float` constant.
    Float(f32),
    /// An `int` constant.
    Int(i32),
    /// A `bool` constant.
    Bool(bool),
    /// The current value of a local variable.
    Local(LocalId),
    /// The value of a parameter at this element: the input/iterator element for streams, the
    /// uniform value for constants, the current accumulator for `reduce`, the value a `vout`
    /// pushes. (Not valid for gathers, which are only read through `Gather`, nor for `out`.)
    Param(u32),
    /// `-a`, `!a`, `~a` (component-wise on vectors).
    Unary(UnaryOp, Box<Expr>),
    /// `a op b`, with the operand rules in the module docs.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `cond ? a : b`: `cond` is a `bool` scalar, or a `boolN` choosing per component.
    Select {
        /// The condition.
        cond: Box<Expr>,
        /// The value where it holds.
        accept: Box<Expr>,
        /// The value where it does not.
        reject: Box<Expr>,
    },
    /// A conversion to `Expr::ty` (casts, and implicit int→float promotion).
    Convert(Box<Expr>),
    /// A vector, matrix or struct built from parts (`float4(a, b.xy, 1)`): the parts'
    /// components fill the result in order; a single scalar argument splats.
    Construct(Vec<Expr>),
    /// Component indices 0..=3 read from a vector (or a scalar: `x.xxx`).
    Swizzle(Box<Expr>, Vec<u8>),
    /// A struct member, by its index in [`StructDef::members`].
    Member(Box<Expr>, u32),
    /// Indexing a local array, a vector component or a matrix row.
    Index(Box<Expr>, Box<Expr>),
    /// `a[i]`/`a[i][j]` on a gather parameter. `indices` are `float`/`int` scalars, or a single
    /// `float2..4`/`int2..4` vector whose `.x` is the last dimension (column). Each component
    /// becomes `floor(v + 0.25)`, clamped to the extent (Brook's rule).
    Gather {
        /// Index of the gather parameter in [`Function::params`].
        param: u32,
        /// The subscripts, outermost (row) first, or one vector.
        indices: Vec<Expr>,
    },
    /// `indexof(a)`: `float4` position of this element in stream parameter `a` (`.x` column).
    IndexOf(u32),
    /// A call of a Cg-style built-in function with its arguments.
    Builtin(Builtin, Vec<Expr>),
    /// A call of a helper, or of a kernel that takes only values (see [`Module::functions`]).
    Call(FunctionId, Vec<Expr>),
}

/// The unary operators left after checking (C's `+x` and `++`/`--` are gone by then).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-a`: arithmetic negation (ints wrap).
    Neg,
    /// `!a`: logical not, on `bool` or component-wise on `boolN`.
    Not,
    /// `~a`: bitwise complement of an `int`.
    BitNot,
}

/// C's binary operators, component-wise on vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`: component-wise, also on matrices (Cg's matrix product is [`Builtin::Mul`]).
    Mul,
    /// `/`: integer division truncates toward zero.
    Div,
    /// `%`: C remainder on ints, `fmod` (truncated) on floats.
    Rem,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`: short-circuit on `bool`, component-wise on `boolN`.
    And,
    /// `||`: short-circuit on `bool`, component-wise on `boolN`.
    Or,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<` on ints.
    Shl,
    /// `>>` on ints (arithmetic: the sign is kept).
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
