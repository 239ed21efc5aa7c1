//! A linked GL program, owned, with driver errors mapped back to the Brook source.

use std::rc::Rc;

use brook_glsl::quoted_source_line;
use brook_texture_streams::GlContext;
use glow::HasContext;

use crate::error::PassError;

/// A linked vertex + fragment program; deleted on drop.
pub struct Program {
    ctx: Rc<GlContext>,
    raw: glow::Program,
}

impl Program {
    /// Compiles and links; a driver error names the kernel and the Brook lines involved.
    pub fn link(
        ctx: &Rc<GlContext>,
        kernel: &str,
        vertex: &str,
        fragment: &str,
    ) -> Result<Program, PassError> {
        let gl = ctx.gl();
        // SAFETY (for every `unsafe` GL call in this crate): the context is current on this
        // thread for as long as `GlContext` lives, and every object passed was created on it.
        unsafe {
            let raw = gl.create_program().map_err(|e| gl_failure(kernel, &e))?;
            let program = Program {
                ctx: ctx.clone(),
                raw,
            };
            let mut shaders = Vec::new();
            for (stage, kind, text) in [
                ("vertex", glow::VERTEX_SHADER, vertex),
                ("fragment", glow::FRAGMENT_SHADER, fragment),
            ] {
                let shader = gl.create_shader(kind).map_err(|e| gl_failure(kernel, &e))?;
                gl.shader_source(shader, text);
                gl.compile_shader(shader);
                if !gl.get_shader_compile_status(shader) {
                    let log = gl.get_shader_info_log(shader);
                    gl.delete_shader(shader);
                    for s in shaders {
                        gl.delete_shader(s);
                    }
                    return Err(compile_error(kernel, stage, log, text));
                }
                gl.attach_shader(raw, shader);
                shaders.push(shader);
            }
            gl.link_program(raw);
            let linked = gl.get_program_link_status(raw);
            for s in shaders {
                gl.detach_shader(raw, s);
                gl.delete_shader(s);
            }
            if !linked {
                return Err(compile_error(
                    kernel,
                    "linked",
                    gl.get_program_info_log(raw),
                    fragment,
                ));
            }
            ctx.check_error("linking a kernel program")?;
            Ok(program)
        }
    }

    pub fn raw(&self) -> glow::Program {
        self.raw
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        unsafe { self.ctx.gl().delete_program(self.raw) };
    }
}

fn gl_failure(kernel: &str, message: &str) -> PassError {
    PassError::Call {
        kernel: kernel.to_string(),
        message: format!("the GL driver could not create a shader object: {message}"),
    }
}

fn compile_error(kernel: &str, stage: &'static str, log: String, source: &str) -> PassError {
    PassError::Compile {
        kernel: kernel.to_string(),
        stage,
        brook_lines: brook_lines_for(&log, source),
        log,
        glsl: source.to_string(),
    }
}

/// The Brook lines behind the GLSL lines a driver log mentions.
///
/// Drivers write `0:LINE(COL): error …` (Mesa) or `0(LINE) : error …` (NVIDIA); each generated
/// statement is preceded by a `// file.br:N: text` quote, so the nearest quote above the GLSL
/// line is the Brook statement it came from.
pub fn brook_lines_for(log: &str, glsl: &str) -> Vec<String> {
    let glsl_lines: Vec<&str> = glsl.lines().collect();
    let mut found: Vec<String> = Vec::new();
    for entry in log.lines() {
        let Some(line) = driver_line_number(entry) else {
            continue;
        };
        let quote = glsl_lines[..line.min(glsl_lines.len())]
            .iter()
            .rev()
            .find_map(|l| quoted_source_line(l));
        if let Some(q) = quote {
            if !found.iter().any(|f| f == q) {
                found.push(q.to_string());
            }
        }
    }
    found
}

fn driver_line_number(entry: &str) -> Option<usize> {
    let rest = entry
        .trim_start()
        .strip_prefix("0:")
        .or_else(|| entry.trim_start().strip_prefix("0("))?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::brook_lines_for;

    #[test]
    fn driver_lines_map_to_the_quoted_brook_statement() {
        let glsl = "#version 330 core\nvoid saxpy() {\n    // saxpy.br:3: result = a*x + y;\n    result = a * x + y;\n}\n";
        let mesa = "0:4(14): error: `y' undeclared\n";
        assert_eq!(
            brook_lines_for(mesa, glsl),
            vec!["saxpy.br:3: result = a*x + y;"]
        );
        let nvidia = "0(4) : error C1008: undefined variable \"y\"\n";
        assert_eq!(
            brook_lines_for(nvidia, glsl),
            vec!["saxpy.br:3: result = a*x + y;"]
        );
        assert!(brook_lines_for("0:1(1): error: x\n", glsl).is_empty());
    }
}
