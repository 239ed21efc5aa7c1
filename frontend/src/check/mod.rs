//! Name resolution and type checking: [`ast::Program`] → [`ir::Module`].
//!
//! - `scope`: the per-function context (parameters, locals, block scopes) and name lookup;
//! - [`types`]: built-in types, type names, implicit and explicit conversions;
//! - `expr`: expressions, with `operators`, `construct` (casts and constructors),
//!   `call` and `access` (members, swizzles, indexing, gathers); `place`: assignment
//!   targets; `assign`: assignments, `++`/`--` and `push`, also inside expressions;
//! - `stmt`: statements, with `decl` (declarations) and `loops`;
//! - `builtins`: the signatures of the Cg-style built-in functions; `matrix_fns`: Cg's
//!   `transpose` and `determinant`, written out as element arithmetic;
//! - `items`: structs, typedefs, global constants and function signatures.
//!
//! Some C and Cg constructs are lowered here to plainer IR, so back ends never see them:
//! `inline` puts the body of a kernel called from a kernel into its caller (with `jumps`
//! for its `return`s), `shadow` turns assigned value parameters and read outputs into
//! locals, `int_streams` gives streams of `int` elements float storage, and effects inside
//! expressions become statements ahead of them, with the IR walk of `brook_ir::visit`.
//!
//! Errors are collected, not fatal: a bad expression abandons its statement, a bad function
//! still lets the following ones be checked, so one run reports several errors.

mod access;
mod assign;
mod builtins;
mod call;
mod construct;
mod decl;
mod expr;
mod inline;
mod int_streams;
mod items;
mod jumps;
mod loops;
mod matrix_fns;
pub(crate) mod names;
mod operators;
mod place;
mod scope;
mod shadow;
mod stmt;
pub mod types;

use std::collections::HashMap;

use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::{self as ir, FunctionId, StructId, Type};

/// Marker: the error was already reported as a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reported;

pub(crate) type R<T> = Result<T, Reported>;

/// File-scope state: what has been declared so far, in source order.
#[derive(Default)]
pub(crate) struct Globals {
    pub module: ir::Module,
    /// Typedef names and struct tags → the type they denote.
    pub types: HashMap<String, Type>,
    /// `struct Tag` names.
    pub struct_tags: HashMap<String, StructId>,
    /// Global `const` values, already checked and converted to their declared type.
    pub consts: HashMap<String, ir::Expr>,
    pub functions: HashMap<String, FunctionId>,
    /// Names whose declaration failed: later uses are not reported again.
    pub poisoned: std::collections::HashSet<String>,
    /// Functions whose signature failed to check: calls to them are not reported again.
    pub poisoned_fns: std::collections::HashSet<String>,
    /// Functions whose body uses `indexof`: a kernel among them is inlined where it is called.
    pub uses_indexof: std::collections::HashSet<FunctionId>,
    pub diags: Vec<Diagnostic>,
}

impl Globals {
    pub fn error(&mut self, d: Diagnostic) -> Reported {
        self.diags.push(d);
        Reported
    }

    pub fn type_name(&self, ty: &Type) -> String {
        types::type_name(ty, &self.module.structs)
    }
}

/// Checks a whole program. The module is only meaningful when no diagnostics were added.
pub fn check(program: &ast::Program, diags: &mut Vec<Diagnostic>) -> ir::Module {
    let mut g = Globals::default();
    for item in &program.items {
        match item {
            ast::Item::Struct(s) => items::struct_decl(&mut g, s),
            ast::Item::Typedef { ty, name, span } => items::typedef(&mut g, ty, name, *span),
            ast::Item::Global(d) => items::global(&mut g, d),
            ast::Item::Function(f) => items::function(&mut g, f),
        }
    }
    int_streams::lower(&mut g.module);
    diags.append(&mut g.diags);
    g.module
}
