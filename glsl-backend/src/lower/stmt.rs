//! Brook statements as GLSL statements, each preceded by the Brook line it came from.

use brook_ir::{BinaryOp, Block, Expr, MathMode, Scalar, Stmt, StmtKind};

use super::expr::binary_text;
use super::FunctionLowering;
use crate::error::GenError;
use crate::types::{array_suffix, glsl_type, zero_value};
use crate::vout::{push_lines, vout_param};

/// The `brook_precise` local a branch's condition is computed into.
const COND: &str = "brook_cond";

impl FunctionLowering<'_> {
    pub(super) fn block(&mut self, block: &Block) -> Result<(), GenError> {
        for stmt in block {
            self.stmt(stmt)?;
        }
        Ok(())
    }

    fn quote_source(&mut self, stmt: &Stmt) {
        let Some(src) = self.source else { return };
        let line = src.line_of(stmt.span.start);
        if line != self.last_line {
            self.last_line = line;
            self.line(&src.quote(line));
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
                    // A float local declared without a value starts at a zero the driver's
                    // compiler cannot know, as a literal zero would (`brook_ir::exact`).
                    None if matches!(ty.scalar(), Some(Scalar::Float))
                        && ty.width().is_some()
                        && self.math == MathMode::Accurate =>
                    {
                        let zero = zero_value(self.module, ty);
                        self.hidden(&zero)
                    }
                    None => zero_value(self.module, ty),
                };
                // `brook_precise` (`Profile::header`): Brook's arithmetic is IEEE's, every step.
                let code = format!(
                    "{}{} {}{} = {value};",
                    self.precise(),
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
                let precise = self.precise_condition(cond);
                if precise {
                    self.line("{");
                    self.indent += 1;
                    self.line(&format!("brook_precise bool {COND} = {c};"));
                }
                self.line(&format!("if ({}) {{", if precise { COND } else { &c }));
                self.nested(then)?;
                if !otherwise.is_empty() {
                    self.line("} else {");
                    self.nested(otherwise)?;
                }
                self.line("}");
                if precise {
                    self.indent -= 1;
                    self.line("}");
                }
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
                let test = LoopTest {
                    cond: c,
                    precise: cond.as_ref().is_some_and(|c| self.precise_condition(c)),
                    first: *test_first,
                };
                // The step statements are assignments, which GLSL allows as the comma-
                // separated third clause, so `continue` still runs them.
                let steps = step
                    .iter()
                    .map(|s| self.assignment(s))
                    .collect::<Result<Vec<_>, _>>()?
                    .join(", ");
                if self.check_loops {
                    self.checked_loop(stmt, &test, &steps, body)?;
                } else {
                    self.loop_flags.push(None);
                    if test.precise {
                        self.line(&test.header(&steps, self.loop_flags.len()));
                        self.exit_unless(&test, "", self.loop_flags.len());
                        self.nested(body)?;
                        self.line("}");
                    } else if test.first {
                        self.line(&format!("for (; {}; {steps}) {{", test.cond));
                        self.nested(body)?;
                        self.line("}");
                    } else {
                        self.line("do {");
                        self.nested(body)?;
                        self.line(&format!("}} while ({});", test.cond));
                    }
                    self.loop_flags.pop();
                }
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Break => match self.loop_flags.last() {
                Some(Some(count)) => {
                    let code = format!("{{ {count} += 1; break; }}");
                    self.line(&code);
                }
                _ => self.line("break;"),
            },
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

    /// A loop that counts how it ended (`LOOP_CHECK` in the prelude): leaving by the condition
    /// or a `break` adds one to the loop's `brook_left{n}`; if the count has not grown by one
    /// after the loop, the driver ended it, and `brook_loop_cut` gets the loop's Brook line (1
    /// without a source). Beside the condition's exit sits a second one, taken when the opaque
    /// `brook_zero` is not 0 (never), that adds 2: with two exits giving different counts, the
    /// count after the loop is a register only the exits write (llvmpipe writes registers
    /// under the lanes' mask), which the compiler can neither fold nor compute ahead of them.
    /// It is never reset, so a cut in a later run of the loop finds the count of the run before.
    fn checked_loop(
        &mut self,
        stmt: &Stmt,
        test: &LoopTest,
        steps: &str,
        body: &Block,
    ) -> Result<(), GenError> {
        let n = self.prelude.checked_loop();
        let (count, before) = (format!("brook_left{n}"), format!("brook_before{n}"));
        self.line(&format!("int {before} = {count};"));
        self.line(&test.header(steps, n));
        self.line(&format!(
            "    if (brook_zero != 0) {{ {count} += 2; break; }}"
        ));
        self.exit_unless(test, &format!("{count} += 1; "), n);
        self.loop_flags.push(Some(count.clone()));
        self.nested(body)?;
        self.loop_flags.pop();
        self.line("}");
        let line = self.source.map_or(1, |src| src.line_of(stmt.span.start));
        self.line(&format!(
            "if (brook_loop_cut == 0 && {count} != {before} + 1) brook_loop_cut = {line};"
        ));
        Ok(())
    }

    /// The loop's test at the top of its body: `exit` (statements) and `break` unless the
    /// condition holds; a do-while's from the second iteration on (`continue` goes to the
    /// test, as in C). A precise condition is computed into a `brook_precise` local first, as
    /// an `if`'s is: Mesa evaluates the test of a loop, and a `break`'s condition, without
    /// `precise` (`while (x - x == 0.0)` ran for an infinite `x`).
    fn exit_unless(&mut self, test: &LoopTest, exit: &str, n: usize) {
        self.indent += 1;
        let guard = (!test.first).then(|| format!("if (!brook_first{n}) "));
        let prefix = guard.clone().unwrap_or_default();
        if test.precise {
            self.line(&format!("{prefix}{{"));
            self.indent += 1;
            self.line(&format!("brook_precise bool {COND} = {};", test.cond));
            self.line(&format!("if (!{COND}) {{ {exit}break; }}"));
            self.indent -= 1;
            self.line("}");
        } else {
            self.line(&format!("{prefix}if (!({})) {{ {exit}break; }}", test.cond));
        }
        self.indent -= 1;
    }

    /// Whether the condition of an `if` is computed into a `brook_precise` local before the
    /// branch: GLSL's `precise` covers what is assigned to such a variable, and Mesa
    /// evaluates a branch's own condition without it (`if (x - x == 0.0)` took the branch for
    /// an infinite `x`). Only conditions that compute with floats; a loop's condition too
    /// ([`Self::exit_unless`]).
    pub(super) fn precise_condition(&self, cond: &Expr) -> bool {
        if self.math == MathMode::Fast {
            return false;
        }
        let mut floats = false;
        brook_ir::walk::expr(cond, &mut |e| {
            floats |= e.ty.scalar() == Some(Scalar::Float);
        });
        floats
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

/// A loop's condition as GLSL, and how it is tested.
struct LoopTest {
    cond: String,
    /// Computed into a `brook_precise` local ([`FunctionLowering::precise_condition`]).
    precise: bool,
    /// Tested before the first iteration (`for`, `while`), not only after it (do-while).
    first: bool,
}

impl LoopTest {
    /// The header of a `for (;;)` loop whose body begins with the test: a do-while counts its
    /// iterations with `brook_first{n}` (it has no steps).
    fn header(&self, steps: &str, n: usize) -> String {
        if self.first {
            format!("for (;; {steps}) {{")
        } else {
            format!("for (bool brook_first{n} = true;; brook_first{n} = false) {{")
        }
    }
}
