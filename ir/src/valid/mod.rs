//! The validator: the invariants every back end relies on, checked once between the front end
//! and any back end, as naga's `Validator` does for its `Module`. A back end never sees
//! malformed IR: an index out of range, an expression whose type disagrees with its operands
//! or with the built-in catalogue, a stream access on a parameter that is not a stream, a
//! `break` outside a loop. The front end only produces valid modules, so a failure here is a
//! bug in whatever built or rewrote the module (the front end, or a pass such as
//! [`crate::lower_composites`]).

mod expr;
mod stmt;

use crate::module::{Function, FunctionId, FunctionKind, Module, ParamClass, Type};
use crate::span::Span;

/// Why a module is not valid IR: the function and the node where the first broken invariant
/// was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid IR in {}: {error}", function.as_ref().map_or("the module".to_string(), |f| format!("`{f}`")))]
pub struct ValidationError {
    /// The function holding the bad node (`None` for a struct definition).
    pub function: Option<String>,
    /// The source span of the bad node.
    pub span: Span,
    /// What is wrong.
    pub error: Invalid,
}

/// The invariant a node breaks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Invalid {
    /// A [`Type::Struct`] naming no struct of the module.
    #[error("struct {0} does not exist")]
    NoStruct(u32),
    /// A local index past the function's locals.
    #[error("local {0} does not exist")]
    NoLocal(u32),
    /// A parameter index past the function's parameters.
    #[error("parameter {0} does not exist")]
    NoParam(u32),
    /// A call of a function index past the module's functions.
    #[error("function {0} does not exist")]
    NoFunction(u32),
    /// A call of a function declared at or after its caller (lowering needs no forward
    /// declarations, and nothing recurses).
    #[error("call of function {0}, which is not declared before its caller")]
    LaterFunction(u32),
    /// A call of a reduction, or of a kernel with stream-like parameters.
    #[error("call of `{0}`, which is not a helper or a kernel taking only values")]
    NotCallable(String),
    /// A call with the wrong number of arguments.
    #[error("{found} arguments for {expected} parameters")]
    ArgumentCount {
        /// Parameters of the callee.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// A node whose type is not the one its parts give it.
    #[error("{what} has type {found:?} where {expected:?} is required")]
    Type {
        /// The node or part that is wrong (`operand`, `initialiser`, `call`, …).
        what: &'static str,
        /// The type the invariant requires.
        expected: Type,
        /// The type found.
        found: Type,
    },
    /// A node whose operands' types no rule of the IR accepts.
    #[error("{what} of {operands:?}")]
    Operands {
        /// The operation (`+`, `select`, `convert`, …).
        what: String,
        /// The operands' types.
        operands: Vec<Type>,
    },
    /// A built-in call whose argument types the catalogue refuses, or whose type is not the
    /// catalogue's result.
    #[error("`{builtin}` of {args:?} gives {expected:?} by the catalogue, but the call has type {found:?}")]
    Builtin {
        /// The built-in's Brook name.
        builtin: &'static str,
        /// The argument types.
        args: Vec<Type>,
        /// The catalogue's result for them (`None`: no such overload).
        expected: Option<Type>,
        /// The call's type.
        found: Type,
    },
    /// `frexp`/`modf` whose second argument is not a local variable.
    #[error("the second argument of `{0}` is not a local variable")]
    OutArgument(&'static str),
    /// A parameter used in a way its class does not allow (a gather read as a value, an
    /// input assigned, `push` onto a non-`vout`).
    #[error("parameter {param} is a {class:?} parameter, which cannot be {used}")]
    ParamUse {
        /// The parameter's index.
        param: u32,
        /// Its class.
        class: ParamClass,
        /// The use refused (`read as a value`, `gathered`, `assigned`, …).
        used: &'static str,
    },
    /// A swizzle or index step that does not fit its operand.
    #[error("{0}")]
    Access(String),
    /// `break` or `continue` outside a loop.
    #[error("`{0}` outside a loop")]
    OutsideLoop(&'static str),
    /// A loop step holding a statement other than an assignment or an expression.
    #[error("a loop step holds a statement other than an assignment or an expression")]
    LoopStep,
    /// `return` with a value in a function that returns nothing, or without one in a
    /// function that returns a value.
    #[error("`return` does not match the function's return type {0:?}")]
    Return(Type),
}

/// Checks every invariant of `module` the back ends rely on (see [`Invalid`]).
pub fn validate(module: &Module) -> Result<(), ValidationError> {
    for s in &module.structs {
        for m in &s.members {
            check_type(module, &m.ty).map_err(|error| ValidationError {
                function: None,
                span: s.span,
                error,
            })?;
        }
    }
    for (i, f) in module.functions.iter().enumerate() {
        FnCheck {
            module,
            func: f,
            id: FunctionId(i as u32),
            loops: 0,
        }
        .function()
        .map_err(|(span, error)| ValidationError {
            function: Some(f.name.clone()),
            span,
            error,
        })?;
    }
    Ok(())
}

/// A broken invariant at a span, before the function's name is attached.
type Res<T = ()> = Result<T, (Span, Invalid)>;

/// Every struct a type names exists.
fn check_type(module: &Module, ty: &Type) -> Result<(), Invalid> {
    match ty {
        Type::Struct(id) if id.0 as usize >= module.structs.len() => Err(Invalid::NoStruct(id.0)),
        Type::Array(inner, _) => check_type(module, inner),
        _ => Ok(()),
    }
}

/// The checks of one function's body.
struct FnCheck<'a> {
    module: &'a Module,
    func: &'a Function,
    id: FunctionId,
    /// How many loops enclose the statement being checked.
    loops: usize,
}

impl FnCheck<'_> {
    fn function(&mut self) -> Res {
        let f = self.func;
        let types = f
            .params
            .iter()
            .map(|p| (&p.ty, p.span))
            .chain(f.locals.iter().map(|l| (&l.ty, f.span)))
            .chain(std::iter::once((&f.ret, f.span)));
        for (ty, span) in types {
            check_type(self.module, ty).map_err(|e| (span, e))?;
        }
        self.block(&f.body)
    }

    /// The class of parameter `p`, or the error for an index out of range.
    fn param_class(&self, p: u32, span: Span) -> Res<(ParamClass, &Type)> {
        self.func
            .params
            .get(p as usize)
            .map(|q| (q.class, &q.ty))
            .ok_or((span, Invalid::NoParam(p)))
    }

    /// The type of local `l`, or the error for an index out of range.
    fn local_type(&self, l: u32, span: Span) -> Res<&Type> {
        self.func
            .locals
            .get(l as usize)
            .map(|x| &x.ty)
            .ok_or((span, Invalid::NoLocal(l)))
    }

    /// `found` must be `expected`.
    fn same(what: &'static str, expected: &Type, found: &Type, span: Span) -> Res {
        if expected == found {
            Ok(())
        } else {
            Err((
                span,
                Invalid::Type {
                    what,
                    expected: expected.clone(),
                    found: found.clone(),
                },
            ))
        }
    }

    /// Whether function `callee` can be called from this one (see [`Module::functions`]).
    fn callable(&self, callee: FunctionId, span: Span) -> Res<&Function> {
        let f = self
            .module
            .functions
            .get(callee.0 as usize)
            .ok_or((span, Invalid::NoFunction(callee.0)))?;
        if callee >= self.id {
            return Err((span, Invalid::LaterFunction(callee.0)));
        }
        let values_only = !f
            .params
            .iter()
            .any(|p| matches!(p.class, ParamClass::Reduce | ParamClass::Vout { .. }));
        match f.kind {
            FunctionKind::Helper => Ok(f),
            FunctionKind::Kernel if values_only => Ok(f),
            _ => Err((span, Invalid::NotCallable(f.name.clone()))),
        }
    }
}

#[cfg(test)]
mod tests;
