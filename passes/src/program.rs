//! Kernel programs, with driver errors mapped back to the Brook source.

use std::rc::Rc;

use brook_core::quoted_source_line;
use brook_texture_streams::{GlContext, GlError, Program};

use crate::error::PassError;

/// Compiles and links a kernel's or reduction's program; a rejected shader names the kernel
/// and the Brook lines involved.
pub fn link(
    ctx: &Rc<GlContext>,
    kernel: &str,
    vertex: &str,
    fragment: &str,
) -> Result<Program, PassError> {
    Program::link(ctx, vertex, fragment).map_err(|e| match e {
        GlError::Shader { stage, log, text } => PassError::Compile {
            function: kernel.to_string(),
            stage,
            brook_lines: brook_lines_for(&log, &text),
            log,
            glsl: text,
        },
        other => PassError::Gl(other),
    })
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
