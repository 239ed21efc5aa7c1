//! The untyped syntax tree the grammar builds. Every node keeps its [`Span`]; expressions and
//! statements also record their nesting depth so that deep trees are refused while parsing,
//! before anything recursive walks them.

use brook_ir::Span;

/// A whole source file as parsed: its file-scope items in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// Structs, typedefs, functions and global declarations, in the order written (the
    /// checker relies on it: a name is only visible after its declaration, as in C).
    pub items: Vec<Item>,
}

/// A name as written, with where it was written (for diagnostics).
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    /// The identifier's text.
    pub name: String,
    /// Where it appears in the source.
    pub span: Span,
}

/// One file-scope declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `struct Tag { … };` or `typedef struct [Tag] { … } Name;`
    Struct(StructDecl),
    /// `typedef T Name;`
    Typedef {
        /// The type being named.
        ty: TypeSpec,
        /// The new name.
        name: Ident,
        /// The whole declaration, `typedef` to `;`.
        span: Span,
    },
    /// A kernel, reduction or helper function with its body.
    Function(FunctionDecl),
    /// `[const] T a = …, b = …;` at file scope.
    Global(Decl),
}

/// A struct definition: `struct Tag { … };` or `typedef struct [Tag] { … } Name;`.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDecl {
    /// `Tag` in `struct Tag { … }`, used later as `struct Tag`; absent for an anonymous struct.
    pub tag: Option<Ident>,
    /// `Name` in `typedef struct … Name;`, used later as a plain type name.
    pub typedef_name: Option<Ident>,
    /// The members in declaration order (`float a, b;` gives two).
    pub fields: Vec<Field>,
    /// The whole definition.
    pub span: Span,
}

/// One struct member: `T name[d1][d2]…;`.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The member's type as written.
    pub ty: TypeSpec,
    /// The member's name.
    pub name: Ident,
    /// Array sizes, outermost first; empty for a plain member.
    pub dims: Vec<Expr>,
    /// The member's declarator.
    pub span: Span,
}

/// A type as written: a name (`float4`, `Ray`, or an unknown identifier to report later),
/// or `struct Tag`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSpec {
    /// The type's name (the tag, for `struct Tag`).
    pub name: String,
    /// Whether it was written `struct Tag`, which looks the name up among struct tags rather
    /// than type names.
    pub is_struct_ref: bool,
    /// Where the type is written.
    pub span: Span,
}

/// Which of Brook's three kinds of function a declaration is, from its qualifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FnKind {
    /// `kernel`: run once per element of its output streams.
    Kernel,
    /// `reduce`: combines a stream into fewer values with an associative operation.
    Reduce,
    /// No qualifier: a plain function that kernels call.
    Helper,
}

/// A function definition: qualifier, return type, name, parameters and body.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDecl {
    /// Kernel, reduction or helper.
    pub kind: FnKind,
    /// The declared return type (`void` for a kernel a host runs).
    pub ret: TypeSpec,
    /// The function's name.
    pub name: Ident,
    /// The parameters in order.
    pub params: Vec<ParamDecl>,
    /// The statements between the braces.
    pub body: Vec<Stmt>,
    /// The whole definition, body included.
    pub span: Span,
    /// Span of the signature (qualifier to closing parenthesis).
    pub sig_span: Span,
}

/// The qualifier in front of a parameter, which (with its [`ParamShape`]) decides how the
/// kernel receives it.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamQual {
    /// No qualifier: an input.
    None,
    /// `const`: accepted as in C; bound like a parameter without a qualifier.
    Const,
    /// `out`: an output stream the kernel writes, one element per run.
    Out,
    /// `reduce`: a reduction's accumulator.
    Reduce,
    /// `iter`: an iterator stream, whose elements are computed from the position rather than
    /// read from memory.
    Iter,
    /// `vout [N]`; the count is optional in the syntax and required by the checker.
    Vout(Option<Expr>),
}

/// What follows a parameter's name: nothing (a value), `<>` (a stream) or `[]` (a gather
/// array).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamShape {
    /// `T a`
    Value,
    /// `T a<>`
    Stream,
    /// `T a[]`, `T a[][]`, `T a[10][10]`: one entry per subscript.
    Array(Vec<Option<Expr>>),
}

/// One parameter: `[qualifier] T name[<> | [] …]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDecl {
    /// `out`, `reduce`, `iter`, … or [`ParamQual::None`].
    pub qual: ParamQual,
    /// Where the qualifier is written (empty, at the type, when there is none).
    pub qual_span: Span,
    /// The element type (for streams and arrays) or value type.
    pub ty: TypeSpec,
    /// The parameter's name.
    pub name: Ident,
    /// Value, stream or gather array.
    pub shape: ParamShape,
    /// The whole parameter.
    pub span: Span,
}

/// A declaration statement: `[const] T a[3] = …, b;`
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    /// Whether it starts with `const`.
    pub is_const: bool,
    /// The type shared by every declarator.
    pub ty: TypeSpec,
    /// The names declared, each with its own array sizes and initialiser.
    pub declarators: Vec<Declarator>,
    /// The whole declaration.
    pub span: Span,
}

/// One name in a declaration: `a[3] = { … }` in `float a[3] = { … }, b;`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declarator {
    /// The declared name.
    pub name: Ident,
    /// Array sizes, outermost first; empty for a scalar, vector or struct variable.
    pub dims: Vec<Expr>,
    /// The initialiser after `=`, if any.
    pub init: Option<Init>,
    /// The declarator, name to end of initialiser.
    pub span: Span,
}

/// An initialiser: one expression, or a brace list (for arrays and structs, nested for
/// arrays of arrays).
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    /// `= e`
    Expr(Expr),
    /// `{ a, b, … }`
    List(Vec<Init>, Span),
}

impl Init {
    /// Where the initialiser is written.
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span,
            Init::List(_, s) => *s,
        }
    }

    /// Its nesting depth, counted like [`Expr::depth`], brace levels included.
    pub fn depth(&self) -> u32 {
        match self {
            Init::Expr(e) => e.depth,
            Init::List(items, _) => 1 + items.iter().map(Init::depth).max().unwrap_or(0),
        }
    }
}

/// A statement with its source position.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
    /// Nesting depth of statements and expressions within it, counted like [`Expr::depth`];
    /// the parser refuses trees deeper than its limit.
    pub depth: u32,
}

/// The statements of C that Brook kernels allow, plus `discard`.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// A local declaration.
    Decl(Decl),
    /// One or more comma-separated expressions: `a = 1, b = 2;`
    Exprs(Vec<Expr>),
    /// `if (cond) then [else otherwise]`
    If {
        /// The condition.
        cond: Expr,
        /// Run when the condition holds.
        then: Box<Stmt>,
        /// The `else` branch, if written.
        otherwise: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`
    For {
        /// Runs once before the loop.
        init: ForInit,
        /// Tested before each iteration; absent means forever.
        cond: Option<Expr>,
        /// The comma-separated expressions run after each iteration.
        step: Vec<Expr>,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`
    While {
        /// Tested before each iteration.
        cond: Expr,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`
    DoWhile {
        /// Runs at least once.
        body: Box<Stmt>,
        /// Tested after each iteration.
        cond: Expr,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return [e];`
    Return(Option<Expr>),
    /// `{ … }`: a nested scope.
    Block(Vec<Stmt>),
    /// `discard;`: this element writes no output (from Cg's fragment `discard`).
    Discard,
    /// `;` alone, or a statement skipped after a syntax error.
    Empty,
}

/// The first clause of a `for`.
#[derive(Debug, Clone, PartialEq)]
pub enum ForInit {
    /// `for (; …)`
    None,
    /// `for (int i = 0; …)`: the variables are scoped to the loop.
    Decl(Decl),
    /// `for (i = 0, j = 1; …)`
    Exprs(Vec<Expr>),
}

/// An expression with its source position.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// The whole expression.
    pub span: Span,
    /// 1 for a leaf; 1 + the deepest child otherwise.
    pub depth: u32,
}

/// Binary operators: the IR's, since the front end needs no distinctions of its own.
pub use brook_ir::BinaryOp as BinOp;

/// Prefix and postfix operators as written. The checker turns `+` into nothing and the
/// increments into assignments, so the IR's [`UnaryOp`](brook_ir::UnaryOp) has only three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `+e`
    Plus,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `++e`
    PreInc,
    /// `--e`
    PreDec,
    /// `e++`
    PostInc,
    /// `e--`
    PostDec,
}

/// The expressions of C and Cg that Brook kernels allow, plus `indexof` and `push`.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A variable, parameter or constant name (resolved by the checker).
    Ident(String),
    /// A floating-point literal (`1.5`, `2.f`), kept wide so the checker can report one that
    /// does not fit in a 32-bit float.
    Float(f64),
    /// An integer literal, kept wide so the checker can report one that does not fit in an
    /// `int` (and accept `-2147483648`).
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A prefix or postfix operator applied to an operand.
    Unary(UnOp, Box<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `target = value` (`op: None`) or `target op= value`.
    Assign {
        /// The operator of a compound assignment (`Add` for `+=`), `None` for `=`.
        op: Option<BinOp>,
        /// The left side, checked later to be assignable.
        target: Box<Expr>,
        /// The right side.
        value: Box<Expr>,
    },
    /// `cond ? accept : reject`
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// The value when it holds.
        accept: Box<Expr>,
        /// The value otherwise.
        reject: Box<Expr>,
    },
    /// `(T) e`
    Cast(TypeSpec, Box<Expr>),
    /// `T(args)`: a constructor (the type is a type name).
    Construct(TypeSpec, Vec<Expr>),
    /// `f(args)`
    Call(Ident, Vec<Expr>),
    /// `e.name`: member access or swizzle.
    Member(Box<Expr>, Ident),
    /// `a[i]`: an array element, vector component, matrix row or gather.
    Index(Box<Expr>, Box<Expr>),
    /// `indexof a` / `indexof(a)`
    IndexOf(Ident),
    /// `push(e)`
    Push(Box<Expr>),
}

impl Expr {
    /// An expression without children (depth 1).
    pub fn leaf(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            depth: 1,
        }
    }
}
