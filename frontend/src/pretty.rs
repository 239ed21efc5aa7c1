//! A stable, C-like printing of the IR, for golden tests and debugging.
//!
//! Every compound expression is parenthesised, conversions are explicit casts (`((float)i)`),
//! splats and constructors are `T(…)`, gathers print as `a[i][j]`. Locals print by name; when a
//! local shares its name with another local (shadowing) or a parameter (a parameter turned into
//! a local by the checker), it prints as `name_L<id>`.

use std::collections::HashMap;
use std::fmt::Write;

use crate::check::types::type_name;
use brook_ir::*;

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

struct Printer<'m> {
    module: &'m Module,
    func: &'m Function,
    local_names: Vec<String>,
    out: String,
}

/// Prints a whole module.
pub fn pretty(module: &Module) -> String {
    let mut out = String::new();
    for s in &module.structs {
        let _ = writeln!(out, "struct {} {{", s.name);
        for m in &s.members {
            let _ = writeln!(out, "    {};", declare(module, &m.ty, &m.name));
        }
        out.push_str("};\n\n");
    }
    for f in &module.functions {
        out.push_str(&pretty_function(module, f));
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `T name` with array dimensions after the name, as C declares them.
fn declare(module: &Module, ty: &Type, name: &str) -> String {
    let mut dims = String::new();
    let mut t = ty;
    while let Type::Array(e, n) = t {
        let _ = write!(dims, "[{n}]");
        t = e;
    }
    format!("{} {name}{dims}", type_name(t, &module.structs))
}

/// Prints one function.
pub fn pretty_function(module: &Module, f: &Function) -> String {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    // A parameter's name counts too: a parameter turned into a local keeps its name.
    for name in f
        .locals
        .iter()
        .map(|l| &l.name)
        .chain(f.params.iter().map(|p| &p.name))
    {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let local_names = f
        .locals
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if counts[l.name.as_str()] > 1 {
                format!("{}_L{i}", l.name)
            } else {
                l.name.clone()
            }
        })
        .collect();
    let mut p = Printer {
        module,
        func: f,
        local_names,
        out: String::new(),
    };
    let kind = match f.kind {
        FunctionKind::Kernel => "kernel ",
        FunctionKind::Reduce => "reduce ",
        FunctionKind::Helper => "",
    };
    let params: Vec<String> = f.params.iter().map(|prm| p.param(prm)).collect();
    let _ = writeln!(
        p.out,
        "{kind}{} {}({}) {{",
        p.ty(&f.ret),
        f.name,
        params.join(", ")
    );
    p.block(&f.body, 1);
    p.out.push_str("}\n");
    p.out
}

impl Printer<'_> {
    fn ty(&self, t: &Type) -> String {
        type_name(t, &self.module.structs)
    }

    fn param(&self, p: &Param) -> String {
        let t = self.ty(&p.ty);
        match p.class {
            ParamClass::Stream => format!("{t} {}<>", p.name),
            ParamClass::Out => format!("out {t} {}<>", p.name),
            ParamClass::Gather { rank } => format!("{t} {}{}", p.name, "[]".repeat(rank as usize)),
            ParamClass::Constant => format!("{t} {}", p.name),
            ParamClass::Iter => format!("iter {t} {}<>", p.name),
            ParamClass::Reduce => format!("reduce {t} {}<>", p.name),
            ParamClass::Vout { max } => format!("vout [{max}] {t} {}<>", p.name),
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
    }

    fn block(&mut self, b: &Block, depth: usize) {
        for s in b {
            self.stmt(s, depth);
        }
    }

    /// A statement without indentation or the final `;` (for `for (…)` headers).
    fn simple(&self, s: &Stmt) -> String {
        match &s.kind {
            StmtKind::Decl { local, init } => {
                let l = &self.func.locals[local.0 as usize];
                let mut t = declare(self.module, &l.ty, &self.local_names[local.0 as usize]);
                if let Some(e) = init {
                    let _ = write!(t, " = {}", self.expr(e));
                }
                t
            }
            StmtKind::Assign { target, op, value } => {
                let op = op.map_or(String::new(), |o| o.symbol().to_string());
                format!("{} {op}= {}", self.place(target), self.expr(value))
            }
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Break => "break".into(),
            StmtKind::Continue => "continue".into(),
            StmtKind::Return(None) => "return".into(),
            StmtKind::Return(Some(e)) => format!("return {}", self.expr(e)),
            StmtKind::Discard => "discard".into(),
            StmtKind::Push { param, value } => {
                let _ = param;
                format!("push({})", self.expr(value))
            }
            StmtKind::If { .. } | StmtKind::Loop { .. } | StmtKind::Block(_) => "…".into(),
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        self.indent(depth);
        match &s.kind {
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond);
                let _ = writeln!(self.out, "if ({c}) {{");
                self.block(then, depth + 1);
                self.indent(depth);
                if otherwise.is_empty() {
                    self.out.push_str("}\n");
                } else {
                    self.out.push_str("} else {\n");
                    self.block(otherwise, depth + 1);
                    self.indent(depth);
                    self.out.push_str("}\n");
                }
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                let c = cond.as_ref().map_or(String::new(), |c| self.expr(c));
                if !test_first {
                    self.out.push_str("do {\n");
                    self.block(body, depth + 1);
                    self.indent(depth);
                    let _ = writeln!(self.out, "}} while ({c});");
                    if !init.is_empty() || !step.is_empty() {
                        // Not produced by the checker; shown for completeness.
                        self.indent(depth);
                        self.out.push_str("// (loop has init/step)\n");
                    }
                } else if init.is_empty() && step.is_empty() && cond.is_some() {
                    let _ = writeln!(self.out, "while ({c}) {{");
                    self.block(body, depth + 1);
                    self.indent(depth);
                    self.out.push_str("}\n");
                } else {
                    let i: Vec<String> = init.iter().map(|s| self.simple(s)).collect();
                    let st: Vec<String> = step.iter().map(|s| self.simple(s)).collect();
                    let _ = writeln!(
                        self.out,
                        "for ({}; {c}; {}) {{",
                        i.join(", "),
                        st.join(", ")
                    );
                    self.block(body, depth + 1);
                    self.indent(depth);
                    self.out.push_str("}\n");
                }
            }
            StmtKind::Block(b) => {
                self.out.push_str("{\n");
                self.block(b, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
            }
            _ => {
                let t = self.simple(s);
                self.out.push_str(&t);
                self.out.push_str(";\n");
            }
        }
    }

    fn place(&self, p: &Place) -> String {
        let (mut s, mut ty) = match p.root {
            PlaceRoot::Local(id) => (
                self.local_names[id.0 as usize].clone(),
                self.func.locals[id.0 as usize].ty.clone(),
            ),
            PlaceRoot::Param(i) => {
                let prm = &self.func.params[i as usize];
                (prm.name.clone(), prm.ty.clone())
            }
        };
        for a in &p.path {
            match a {
                Access::Member(m) => {
                    let (name, mty) = self.member(&ty, *m);
                    let _ = write!(s, ".{name}");
                    ty = mty;
                }
                Access::Swizzle(c) => {
                    let _ = write!(s, ".{}", swizzle(c));
                    ty = Type::vector(ty.scalar().unwrap_or(Scalar::Float), c.len() as u8);
                }
                Access::Index(i) => {
                    let _ = write!(s, "[{}]", self.expr(i));
                    ty = match ty {
                        Type::Array(e, _) => *e,
                        Type::Vector(sc, _) => Type::Scalar(sc),
                        Type::Matrix { cols, .. } => Type::Vector(Scalar::Float, cols),
                        t => t,
                    };
                }
            }
        }
        s
    }

    fn member(&self, ty: &Type, m: u32) -> (String, Type) {
        if let Type::Struct(id) = ty {
            if let Some(mem) = self
                .module
                .structs
                .get(id.0 as usize)
                .and_then(|s| s.members.get(m as usize))
            {
                return (mem.name.clone(), mem.ty.clone());
            }
        }
        (format!("member{m}"), Type::Void)
    }

    fn args(&self, args: &[Expr]) -> String {
        args.iter()
            .map(|a| self.expr(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Float(v) => format!("{v:?}"),
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Local(id) => self.local_names[id.0 as usize].clone(),
            ExprKind::Param(i) => self.func.params[*i as usize].name.clone(),
            ExprKind::Unary(op, a) => {
                let o = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                };
                format!("({o}{})", self.expr(a))
            }
            ExprKind::Binary(op, a, b) => {
                format!("({} {} {})", self.expr(a), op.symbol(), self.expr(b))
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => format!(
                "({} ? {} : {})",
                self.expr(cond),
                self.expr(accept),
                self.expr(reject)
            ),
            ExprKind::Convert(a) => format!("(({}){})", self.ty(&e.ty), self.expr(a)),
            ExprKind::Construct(args) => format!("{}({})", self.ty(&e.ty), self.args(args)),
            ExprKind::Swizzle(a, c) => format!("{}.{}", self.expr(a), swizzle(c)),
            ExprKind::Member(a, m) => format!("{}.{}", self.expr(a), self.member(&a.ty, *m).0),
            ExprKind::Index(a, i) => format!("{}[{}]", self.expr(a), self.expr(i)),
            ExprKind::Gather { param, indices } => {
                let mut s = self.func.params[*param as usize].name.clone();
                for i in indices {
                    let _ = write!(s, "[{}]", self.expr(i));
                }
                s
            }
            ExprKind::IndexOf(p) => format!("indexof({})", self.func.params[*p as usize].name),
            ExprKind::Builtin(b, args) => format!("{}({})", b.name(), self.args(args)),
            ExprKind::Call(f, args) => {
                let name = self
                    .module
                    .functions
                    .get(f.0 as usize)
                    .map_or("?", |f| f.name.as_str());
                format!("{name}({})", self.args(args))
            }
        }
    }
}

fn swizzle(c: &[u8]) -> String {
    c.iter()
        .map(|&i| COMPONENTS.get(i as usize).copied().unwrap_or('?'))
        .collect()
}
