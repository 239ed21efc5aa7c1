//! brcc's command line: five subcommands with one file each, parsed by hand (a parser crate
//! would not earn its build time here).

pub const USAGE: &str = "\
usage:
  brcc run FILE.br [--backend gl|cpu|wgpu] [-- ARGS...]   compile and run the program
  brcc cpp FILE.br [-o OUT.cpp]                      write the generated C++ (and brook.hpp)
  brcc glsl FILE.br                                  print every kernel's GLSL passes
  brcc wgsl FILE.br                                  print every kernel's WGSL and dispatches
  brcc clif FILE.br                                  print every kernel's Cranelift IR (CPU)
  brcc check FILE.br                                 check the program, print diagnostics

BRT_RUNTIME=gl|cpu|wgpu picks the backend when --backend is absent (default gl).
CXX names the C++ compiler (default: c++, g++ or clang++ from PATH).";

#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run {
        file: String,
        backend: Option<String>,
        args: Vec<String>,
    },
    Cpp {
        file: String,
        output: Option<String>,
    },
    Glsl {
        file: String,
    },
    Wgsl {
        file: String,
    },
    Clif {
        file: String,
    },
    Check {
        file: String,
    },
    Help,
    Version,
}

pub fn parse(args: Vec<String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let sub = args.next().ok_or("no command given")?;
    match sub.as_str() {
        "-h" | "--help" | "help" => return Ok(Command::Help),
        "-V" | "--version" => return Ok(Command::Version),
        _ => {}
    }
    let mut file = None;
    let mut backend = None;
    let mut output = None;
    let mut program_args = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--" if sub == "run" => {
                program_args.extend(args.by_ref());
            }
            "--backend" if sub == "run" => {
                backend = Some(
                    args.next()
                        .ok_or("--backend needs a value (gl, cpu or wgpu)")?,
                )
            }
            "-o" if sub == "cpp" => output = Some(args.next().ok_or("-o needs a file name")?),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option `{s}` for `{sub}`"))
            }
            _ if file.is_none() => file = Some(a),
            _ => return Err(format!("unexpected argument `{a}`")),
        }
    }
    let file = file.ok_or_else(|| format!("`{sub}` needs a .br file"))?;
    Ok(match sub.as_str() {
        "run" => Command::Run {
            file,
            backend,
            args: program_args,
        },
        "cpp" => Command::Cpp { file, output },
        "glsl" => Command::Glsl { file },
        "wgsl" => Command::Wgsl { file },
        "clif" => Command::Clif { file },
        "check" => Command::Check { file },
        other => return Err(format!("unknown command `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Command, String> {
        parse(s.split_whitespace().map(String::from).collect())
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            parse_str("run a.br --backend cpu -- x --backend").unwrap(),
            Command::Run {
                file: "a.br".into(),
                backend: Some("cpu".into()),
                args: vec!["x".into(), "--backend".into()]
            }
        );
        assert_eq!(
            parse_str("cpp a.br -o b.cpp").unwrap(),
            Command::Cpp {
                file: "a.br".into(),
                output: Some("b.cpp".into())
            }
        );
        assert_eq!(
            parse_str("check a.br").unwrap(),
            Command::Check {
                file: "a.br".into()
            }
        );
        assert_eq!(
            parse_str("wgsl a.br").unwrap(),
            Command::Wgsl {
                file: "a.br".into()
            }
        );
        assert!(parse_str("run").unwrap_err().contains("needs a .br file"));
        assert!(parse_str("glsl a.br -o x")
            .unwrap_err()
            .contains("unknown option"));
        assert!(parse_str("frob a.br")
            .unwrap_err()
            .contains("unknown command"));
    }
}
