//! The untyped syntax tree the grammar builds. Every node keeps its [`Span`]; expressions and
//! statements also record their nesting depth so that deep trees are refused while parsing,
//! before anything recursive walks them.

use crate::span::Span;

#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `struct Tag { … };` or `typedef struct [Tag] { … } Name;`
    Struct(StructDecl),
    /// `typedef T Name;`
    Typedef {
        ty: TypeSpec,
        name: Ident,
        span: Span,
    },
    Function(FunctionDecl),
    /// `[const] T a = …, b = …;` at file scope.
    Global(Decl),
}

#[derive(Debug, Clone, PartialEq)]
pub struct StructDecl {
    pub tag: Option<Ident>,
    pub typedef_name: Option<Ident>,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub ty: TypeSpec,
    pub name: Ident,
    pub dims: Vec<Expr>,
    pub span: Span,
}

/// A type as written: a name (`float4`, `Ray`, or an unknown identifier to report later),
/// or `struct Tag`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSpec {
    pub name: String,
    pub is_struct_ref: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FnKind {
    Kernel,
    Reduce,
    Helper,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDecl {
    pub kind: FnKind,
    pub ret: TypeSpec,
    pub name: Ident,
    pub params: Vec<ParamDecl>,
    pub body: Vec<Stmt>,
    pub span: Span,
    /// Span of the signature (qualifier to closing parenthesis).
    pub sig_span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamQual {
    None,
    Const,
    Out,
    Reduce,
    Iter,
    /// `vout [N]`; the count is optional in the syntax and required by the checker.
    Vout(Option<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamShape {
    /// `T a`
    Value,
    /// `T a<>`
    Stream,
    /// `T a[]`, `T a[][]`, `T a[10][10]`: one entry per subscript.
    Array(Vec<Option<Expr>>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParamDecl {
    pub qual: ParamQual,
    pub qual_span: Span,
    pub ty: TypeSpec,
    pub name: Ident,
    pub shape: ParamShape,
    pub span: Span,
}

/// A declaration statement: `[const] T a[3] = …, b;`
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    pub is_const: bool,
    pub ty: TypeSpec,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    pub dims: Vec<Expr>,
    pub init: Option<Init>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    Expr(Expr),
    /// `{ a, b, … }`
    List(Vec<Init>, Span),
}

impl Init {
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span,
            Init::List(_, s) => *s,
        }
    }

    pub fn depth(&self) -> u32 {
        match self {
            Init::Expr(e) => e.depth,
            Init::List(items, _) => 1 + items.iter().map(Init::depth).max().unwrap_or(0),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Decl(Decl),
    /// One or more comma-separated expressions: `a = 1, b = 2;`
    Exprs(Vec<Expr>),
    If {
        cond: Expr,
        then: Box<Stmt>,
        otherwise: Option<Box<Stmt>>,
    },
    For {
        init: ForInit,
        cond: Option<Expr>,
        step: Vec<Expr>,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Block(Vec<Stmt>),
    Discard,
    Empty,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ForInit {
    None,
    Decl(Decl),
    Exprs(Vec<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// 1 for a leaf; 1 + the deepest child otherwise.
    pub depth: u32,
}

/// Binary operators: the IR's, since the front end needs no distinctions of its own.
pub use crate::ir::BinaryOp as BinOp;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Ident(String),
    Float(f64),
    Int(i64),
    Bool(bool),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `target = value` (`op: None`) or `target op= value`.
    Assign {
        op: Option<BinOp>,
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        accept: Box<Expr>,
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
    Index(Box<Expr>, Box<Expr>),
    /// `indexof a` / `indexof(a)`
    IndexOf(Ident),
    /// `push(e)`
    Push(Box<Expr>),
}

impl Expr {
    pub fn leaf(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            depth: 1,
        }
    }
}
