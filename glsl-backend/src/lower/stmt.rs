//! Brook statements as GLSL statements, each preceded by the Brook line it came from.

use brook_frontend::ir::{BinaryOp, Block, Stmt, StmtKind};

use super::expr::binary_text;
use super::FunctionLowering;
use crate::error::GenError;
use crate::types::{array_suffix, glsl_type, zero_value};
use crate::vout::{push_lines, vout_param};

impl FunctionLowering<'_> {
    pub(super) fn block(&mut self, block: &Block) -> Result<(), GenError> {
        for stmt in block {
            self.stmt(stmt)?;
        }
        Ok(())
    }

    fn quote_source(&mut self, stmt: &Stmt) {
        let Some(src) = self.source else { return };
        let (line, _) = stmt.span.line_col(&src.text);
        if line != self.last_line {
            self.last_line = line;
            let quoted = format!("// {}:{line}: {}", src.name, src.line(line));
            self.line(&quoted);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<(), GenError> {
        if !matches!(stmt.kind, StmtKind::Block(_)) {
            self.quote_source(stmt);
        }
        match &stmt.kind {
            StmtKind::Decl { local, init } => {
                let ty = &self.func.local(*local).ty;
                let value = match init {
                    Some(e) => self.expr(e)?,
                    None => zero_value(self.module, ty),
                };
                let code = format!(
                    "{} {}{} = {value};",
                    glsl_type(self.module, ty),
                    self.local_names[local.0 as usize],
                    array_suffix(ty)
                );
                self.line(&code);
            }
            StmtKind::Assign { .. } => {
                let code = self.assignment(stmt)?;
                self.line(&format!("{code};"));
            }
            StmtKind::Expr(e) => {
                let code = self.expr(e)?;
                self.line(&format!("{code};"));
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                self.line(&format!("if ({c}) {{"));
                self.nested(then)?;
                if !otherwise.is_empty() {
                    self.line("} else {");
                    self.nested(otherwise)?;
                }
                self.line("}");
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                self.line("{");
                self.indent += 1;
                self.block(init)?;
                let c = match cond {
                    Some(c) => self.expr(c)?,
                    None => "true".into(),
                };
                if *test_first {
                    // The step statements are assignments, which GLSL allows as the comma-
                    // separated third clause, so `continue` still runs them.
                    let steps = step
                        .iter()
                        .map(|s| self.assignment(s))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.line(&format!("for (; {c}; {}) {{", steps.join(", ")));
                    self.nested(body)?;
                    self.line("}");
                } else {
                    self.line("do {");
                    self.nested(body)?;
                    self.line(&format!("}} while ({c});"));
                }
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Return(Some(e)) => {
                let v = self.expr(e)?;
                self.line(&format!("return {v};"));
            }
            StmtKind::Block(b) => {
                self.line("{");
                self.nested(b)?;
                self.line("}");
            }
            StmtKind::Discard => self.line("discard;"),
            StmtKind::Push { param, value } => {
                let Some((name, max)) = vout_param(self.func, *param) else {
                    return Err(GenError::At {
                        message: format!("`push` onto parameter {param}, which is not a vout"),
                        span: stmt.span,
                    });
                };
                let ty = glsl_type(self.module, &self.func.params[*param as usize].ty);
                let v = self.expr(value)?;
                for line in push_lines(&name, max, &ty, &v) {
                    self.line(&line);
                }
            }
        }
        Ok(())
    }

    fn nested(&mut self, block: &Block) -> Result<(), GenError> {
        self.indent += 1;
        self.block(block)?;
        self.indent -= 1;
        Ok(())
    }

    /// An assignment (or an expression statement in a loop step) as a GLSL expression.
    fn assignment(&mut self, stmt: &Stmt) -> Result<String, GenError> {
        match &stmt.kind {
            StmtKind::Assign { target, op, value } => {
                let t = self.place(target)?;
                let v = self.expr(value)?;
                Ok(match op {
                    None => format!("{t} = {v}"),
                    Some(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Div)) => {
                        format!("{t} {}= {v}", op.symbol())
                    }
                    Some(op) => {
                        // `%=` on floats and `*=` on matrices have Cg meanings GLSL spells
                        // differently: write them out in full.
                        let rhs =
                            binary_text(*op, (&t, &target.ty), (&v, &value.ty), &target.ty, self);
                        format!("{t} = {rhs}")
                    }
                })
            }
            StmtKind::Expr(e) => self.expr(e),
            _ => Err(GenError::At {
                message: "a loop step must be an assignment or an expression".into(),
                span: stmt.span,
            }),
        }
    }
}
