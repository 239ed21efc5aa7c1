//! The checking context of one function body: its parameters, its locals with block scoping,
//! and name lookup (locals, then parameters, then global constants).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{names, Globals, Reported, R};
use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{self as ir, LocalId, Type};

/// What a name in an expression refers to.
pub enum Resolved {
    Local(LocalId),
    Param(u32),
    Const(ir::Expr),
    /// Its declaration failed; it was already reported.
    Poisoned,
    Unknown,
}

pub struct FnCtx<'g> {
    pub g: &'g mut Globals,
    /// `None` while checking a global constant's initialiser.
    pub kind: Option<ast::FnKind>,
    pub name: String,
    pub ret: Type,
    pub params: Vec<ir::Param>,
    pub locals: Vec<ir::Local>,
    pub local_spans: Vec<Span>,
    pub const_locals: HashSet<u32>,
    /// Innermost last; `None` marks a name whose declaration failed.
    pub scopes: Vec<HashMap<String, Option<LocalId>>>,
    pub loop_depth: u32,
    /// Parameters whose declaration failed: uses are not reported again.
    pub poisoned_params: HashSet<String>,
    /// Statements that must run before the expression being checked: assignments, `++`/`--`
    /// and inlined kernel calls taken out of it. The statement checker emits them ahead of
    /// the statement that holds the expression (see `stmt.rs`).
    pub pre: Vec<ir::Stmt>,
    /// `out` and `vout` parameters the body reads (they become locals, see `shadow.rs`).
    pub read_outputs: BTreeSet<u32>,
    /// Value parameters the body assigns (they become local copies, see `shadow.rs`).
    pub assigned_values: BTreeSet<u32>,
    /// Whether the body uses `indexof` (itself or through an inlined kernel): a kernel that
    /// does is inlined where it is called.
    pub uses_indexof: bool,
    /// IR nodes added by inlining kernel calls (bounded, see `inline.rs`).
    pub inlined_nodes: usize,
}

impl<'g> FnCtx<'g> {
    pub fn new(g: &'g mut Globals, kind: Option<ast::FnKind>, name: &str, ret: Type) -> Self {
        FnCtx {
            g,
            kind,
            name: name.to_string(),
            ret,
            params: Vec::new(),
            locals: Vec::new(),
            local_spans: Vec::new(),
            const_locals: HashSet::new(),
            scopes: vec![HashMap::new()],
            loop_depth: 0,
            poisoned_params: HashSet::new(),
            pre: Vec::new(),
            read_outputs: BTreeSet::new(),
            assigned_values: BTreeSet::new(),
            uses_indexof: false,
            inlined_nodes: 0,
        }
    }

    pub fn error(&mut self, d: Diagnostic) -> Reported {
        self.g.error(d)
    }

    pub fn type_name(&self, ty: &Type) -> String {
        self.g.type_name(ty)
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub fn param_index(&self, name: &str) -> Option<u32> {
        self.params
            .iter()
            .position(|p| p.name == name)
            .map(|i| i as u32)
    }

    pub fn lookup(&self, name: &str) -> Resolved {
        for scope in self.scopes.iter().rev() {
            if let Some(entry) = scope.get(name) {
                return match entry {
                    Some(id) => Resolved::Local(*id),
                    None => Resolved::Poisoned,
                };
            }
        }
        if let Some(i) = self.param_index(name) {
            if self.poisoned_params.contains(name) {
                return Resolved::Poisoned;
            }
            return Resolved::Param(i);
        }
        if let Some(e) = self.g.consts.get(name) {
            return Resolved::Const(e.clone());
        }
        if self.g.poisoned.contains(name) {
            return Resolved::Poisoned;
        }
        Resolved::Unknown
    }

    /// Declares a local in the innermost scope.
    pub fn declare(&mut self, name: &ast::Ident, ty: Type, is_const: bool) -> R<LocalId> {
        if let Some(prev) = self.scopes.last().and_then(|s| s.get(&name.name)) {
            let mut d = Diagnostic::error(
                format!("`{}` is already declared in this scope", name.name),
                name.span,
            )
            .with_label(name.span, "declared again here");
            if let Some(id) = prev {
                d = d.with_label(self.local_spans[id.0 as usize], "first declared here");
            }
            return Err(self.error(d));
        }
        if self.scopes.len() == 1 {
            if let Some(i) = self.param_index(&name.name) {
                let pspan = self.params[i as usize].span;
                return Err(self.error(
                    Diagnostic::error(format!("`{}` redeclares a parameter", name.name), name.span)
                        .with_label(pspan, "the parameter"),
                ));
            }
        }
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(ir::Local {
            name: name.name.clone(),
            ty,
        });
        self.local_spans.push(name.span);
        if is_const {
            self.const_locals.insert(id.0);
        }
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.name.clone(), Some(id));
        }
        Ok(id)
    }

    /// A local the checker introduces (a temporary, a flag, an inlined kernel's variable): it
    /// has a name for the back ends' output but no scope, so source code cannot name it.
    pub fn temp(&mut self, name: &str, ty: Type, span: Span) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(ir::Local {
            name: name.to_string(),
            ty,
        });
        self.local_spans.push(span);
        id
    }

    pub fn poison_param(&mut self, name: String) {
        self.poisoned_params.insert(name);
    }

    /// Marks `name` as declared-but-broken so later uses stay quiet.
    pub fn poison(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.entry(name.to_string()).or_insert(None);
        }
    }

    /// Reports an unknown identifier, suggesting a close name in scope.
    pub fn unknown_ident(&mut self, name: &str, span: Span) -> Reported {
        let mut candidates: Vec<String> = Vec::new();
        for s in &self.scopes {
            candidates.extend(s.keys().cloned());
        }
        candidates.extend(self.params.iter().map(|p| p.name.clone()));
        candidates.extend(self.g.consts.keys().cloned());
        let hint = names::suggest(name, candidates.iter().map(String::as_str))
            .map(|s| format!("did you mean `{s}`?"));
        let mut d = Diagnostic::error(format!("unknown identifier `{name}`"), span)
            .with_label(span, "not declared")
            .with_hint_opt(hint);
        if d.hint.is_none()
            && (self.g.functions.contains_key(name) || ir::Builtin::from_name(name).is_some())
        {
            d = d.with_hint(format!("`{name}` is a function: call it as `{name}(…)`"));
        }
        self.error(d)
    }
}
