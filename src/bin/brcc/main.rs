//! `brcc`: Brook programs as whole C programs, the way the original source-to-source compiler
//! took them (001 §4, appendix A).
//!
//! ```text
//! brcc run FILE.br [--backend gl|cpu] [--timeout S] [-- ARGS…]   compile and run
//! brcc cpp FILE.br [-o OUT.cpp]      the generated C++ (and brook.hpp beside it)
//! brcc glsl FILE.br                  every kernel's GLSL passes
//! brcc check FILE.br                 diagnostics only
//! brcc completions SHELL             a shell completion script
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
use clap::{CommandFactory, Parser};
use cli::Command;

fn main() -> ExitCode {
    // clap prints help and version to stdout (status 0) and usage errors naming the bad
    // argument to stderr (status 2).
    let cli = cli::Cli::parse();
    match execute(cli.command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{}", message.trim_end());
            ExitCode::FAILURE
        }
    }
}

fn execute(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cli::Cli::command(), "brcc", &mut script);
            // A closed pipe (`| head`) is not an error worth a message.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
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
            let output: PathBuf = output.unwrap_or_else(|| {
                file.with_extension("cpp")
                    .file_name()
                    .map_or("out.cpp".into(), PathBuf::from)
            });
            cxx::write_with_header(&output, &cpp).map_err(|e| format!("brcc: error: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            file,
            backend,
            timeout,
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
            if let Some(seconds) = timeout {
                launch::watchdog(&program.file_name, seconds);
            }
            let code = launch::run(&library, &program.file_name, &args, runtime, || drop(cache))
                .map_err(|e| format!("brcc: error: {e}"))?;
            Ok(ExitCode::from(code as u8))
        }
    }
}

/// Reads and checks a `.br` file; errors are rendered with the original lines.
fn load(file: &Path) -> Result<Program, String> {
    let source = std::fs::read_to_string(file)
        .map_err(|e| format!("brcc: error: could not read `{}`: {e}", file.display()))?;
    Program::parse(&source, &file.display().to_string()).map_err(|d| d.render())
}

fn translate(program: &Program) -> Result<String, String> {
    brook_build::cpp(program).map_err(|d| d.render())
}
