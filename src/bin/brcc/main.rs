//! `brcc`: Brook programs as whole C programs, the way the original source-to-source compiler
//! took them (001 §4, appendix A).
//!
//! ```text
//! brcc run FILE.br [--backend gl|cpu] [-- ARGS…]   compile and run; the program's exit status
//! brcc cpp FILE.br [-o OUT.cpp]                     the generated C++ (and brook.hpp beside it)
//! brcc glsl FILE.br                                 every kernel's GLSL passes
//! brcc check FILE.br                                diagnostics only
//! ```
//!
//! Kernels go through the front end (diagnostics at the original lines); host code becomes
//! C++ calling the runtime's C ABI, compiled by the system C++ compiler into a shared library
//! that `run` loads into this process, whose exported `brook_*` symbols it links against.

mod cache;
mod cli;
mod cxx;
mod glsl;
mod launch;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use brook_build::Program;
use cli::Command;

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args().skip(1).collect()) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("brcc: {message}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    match execute(command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{}", message.trim_end());
            ExitCode::FAILURE
        }
    }
}

fn execute(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Help => {
            println!("{}", cli::USAGE);
            Ok(ExitCode::SUCCESS)
        }
        Command::Version => {
            println!("brcc {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { file } => {
            let program = load(&file)?;
            translate(&program)?;
            println!("{}: ok", program.file_name);
            Ok(ExitCode::SUCCESS)
        }
        Command::Glsl { file } => {
            print!("{}", glsl::describe(&load(&file)?));
            Ok(ExitCode::SUCCESS)
        }
        Command::Cpp { file, output } => {
            let cpp = translate(&load(&file)?)?;
            // Like the original: `foo.br` becomes `foo.cpp` in the current directory.
            let output: PathBuf = output.map_or_else(
                || {
                    Path::new(&file)
                        .with_extension("cpp")
                        .file_name()
                        .map_or("out.cpp".into(), PathBuf::from)
                },
                PathBuf::from,
            );
            cxx::write_with_header(&output, &cpp).map_err(|e| format!("brcc: error: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            file,
            backend,
            args,
        } => {
            let program = load(&file)?;
            let cpp = translate(&program)?;
            // The backend first: a bad name or a missing GL driver fails before compiling.
            let runtime = match backend.or_else(|| std::env::var("BRT_RUNTIME").ok()) {
                Some(name) => brook::Runtime::named(&name),
                None => brook::Runtime::gl(),
            }
            .map_err(|e| format!("brcc: error: {e}"))?;
            let compiler = cxx::Compiler::find().map_err(|e| format!("brcc: error: {e}"))?;
            let cache = cache::Cache::open().map_err(|e| format!("brcc: error: {e}"))?;
            let library = compiler
                .build(&cpp, &cache)
                .map_err(|e| format!("brcc: error: {e}"))?;
            let code = launch::run(&library, &file, &args, runtime, || drop(cache))
                .map_err(|e| format!("brcc: error: {e}"))?;
            Ok(ExitCode::from(code as u8))
        }
    }
}

/// Reads and checks a `.br` file; errors are rendered with the original lines.
fn load(file: &str) -> Result<Program, String> {
    let source = std::fs::read_to_string(file)
        .map_err(|e| format!("brcc: error: could not read `{file}`: {e}"))?;
    Program::parse(&source, file).map_err(|d| d.render())
}

fn translate(program: &Program) -> Result<String, String> {
    brook_build::cpp(program).map_err(|d| d.render())
}
