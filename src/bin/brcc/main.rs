//! `brcc`: Brook programs as whole C programs, the way the original source-to-source compiler
//! took them (001 §4, appendix A).
//!
//! ```text
//! brcc run FILES… [--backend gl|cpu|wgpu] [--timeout S] [--fast-math] [-- ARGS…]   compile and run
//! brcc build FILES… -o PROGRAM       an executable that runs the program
//! brcc explain FILES… -o DIR [--backend gl,cpu,wgpu]   run it, every pass drawn as a static web site
//! brcc why FILES… 'NAME[i][j]' [--backend B]   run it, then where that element's value came from
//! brcc cpp FILE.br [-o OUT.cpp]      the generated C++ (brook.hpp and OUT.hpp beside it)
//! brcc glsl FILE.br                  every kernel's GLSL passes
//! brcc wgsl FILE.br                  every kernel's WGSL and dispatches
//! brcc clif FILE.br                  every kernel's Cranelift IR (CPU backend)
//! brcc check FILES…                  diagnostics only (kernels and host calls)
//! brcc cache --list | --clear        the build cache's programs, or none of them
//! brcc completions SHELL             a shell completion script
//! ```
//!
//! Kernels go through the front end (diagnostics at the original lines); host code becomes
//! C++ calling the runtime's C ABI, compiled by the system C++ compiler into a shared library
//! that `run` loads into this process, whose exported `brook_*` symbols it links against.

mod cache;
mod cli;
mod clif;
mod crash;
mod cxx;
mod embed;
mod eviction;
mod glsl;
mod launch;
mod sources;
mod why;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use cli::Command;

fn main() -> ExitCode {
    // An executable made by `brcc build`: run the program it carries.
    if let Some(library) = embed::carried() {
        return finish(run_carried(&library));
    }
    // clap prints help and version to stdout (status 0) and usage errors naming the bad
    // argument to stderr (status 2).
    let cli = cli::Cli::parse();
    finish(execute(cli.command))
}

fn finish(result: Result<ExitCode, String>) -> ExitCode {
    match result {
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
        Command::Cache { list, clear } => {
            let root = cache::Cache::trusted_root().map_err(error)?;
            if clear {
                let (removed, in_use) = eviction::clear(&root);
                println!("removed {removed} cached programs from {}", root.display());
                if in_use > 0 {
                    println!("kept {in_use} in use by a running brcc");
                }
            } else if list {
                print!("{}", eviction::listing(&root, eviction::Bound::from_env()));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { files, host } => {
            let t = sources::translate(sources::load(&files, &host)?, false)?;
            for program in &t.programs {
                println!("{}: ok", program.file_name);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Glsl { file } => {
            let programs = sources::load(std::slice::from_ref(&file), &Default::default())?;
            print!("{}", glsl::describe(&programs[0]));
            Ok(ExitCode::SUCCESS)
        }
        Command::Wgsl { file } => {
            let programs = sources::load(std::slice::from_ref(&file), &Default::default())?;
            let program = &programs[0];
            let wgsl = brook::wgpu_backend::describe::describe(&program.module, &program.file_name);
            print!("{wgsl}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Clif { file } => {
            let programs = sources::load(std::slice::from_ref(&file), &Default::default())?;
            print!("{}", clif::describe(&programs[0]));
            Ok(ExitCode::SUCCESS)
        }
        Command::Cpp { file, output } => {
            let programs = sources::load(std::slice::from_ref(&file), &Default::default())?;
            let cpp = brook_build::cpp(&programs[0]).map_err(|d| d.render())?;
            // Like the original: `foo.br` becomes `foo.cpp` in the current directory.
            let output: PathBuf = output.unwrap_or_else(|| {
                file.with_extension("cpp")
                    .file_name()
                    .map_or("out.cpp".into(), PathBuf::from)
            });
            cxx::write_with_header(&output, &cpp).map_err(|e| format!("brcc: error: {e}"))?;
            if let Some((_, text)) = sources::header(&programs[0]) {
                let path = output.with_extension("hpp");
                std::fs::write(&path, text).map_err(|e| {
                    format!("brcc: error: could not write `{}`: {e}", path.display())
                })?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Build {
            files,
            host,
            output,
        } => {
            let t = sources::translate(sources::load(&files, &host)?, true)?;
            let cache = cache::Cache::open().map_err(error)?;
            let library = compiler(host)?.build(&t, &cache).map_err(error)?;
            embed::write(&library, &output).map_err(error)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            files,
            host,
            backend,
            timeout,
            fast_math,
            args,
        } => {
            let (t, runtime, cache, library) = prepare(&files, host, backend)?;
            if fast_math {
                runtime.set_fast_math(true).map_err(error)?;
            }
            if let Some(seconds) = timeout {
                launch::watchdog(&t.programs[0].file_name, seconds);
            }
            let name = &t.programs[0].file_name;
            let code = launch::run(&library, name, &args, runtime, || drop(cache), |_| ())
                .map_err(error)?;
            Ok(ExitCode::from(code as u8))
        }
        Command::Why {
            args,
            every_stream,
            host,
            backend,
            depth,
            elements,
            program_args,
        } => {
            let (asked, files) = if every_stream {
                (why::Asked::EveryStream, &args[..])
            } else {
                let Some((element, files)) = args.split_last().filter(|(_, f)| !f.is_empty())
                else {
                    return Err(error("brcc why needs the program's files and then the element, `NAME[i][j]` (or --every-stream)"));
                };
                (
                    why::Asked::One(why::Element::parse(element).map_err(error)?),
                    files,
                )
            };
            let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
            let (t, runtime, cache, library) = prepare(&files, host, backend)?;
            let limits = brook::why::Limits { depth, elements };
            why::run(
                &t.programs[0].file_name,
                &library,
                runtime,
                cache,
                &asked,
                limits,
                &program_args,
            )
        }
        Command::Explain {
            files,
            host,
            output,
            backend,
            max_side,
            max_mb,
            why,
            args,
        } => {
            // `gl,cpu`: the program runs once per backend, the first one's cards show all.
            let names: Vec<Option<String>> = match backend {
                Some(list) => list
                    .split(',')
                    .map(|n| Some(n.trim().to_string()))
                    .collect(),
                None => vec![None],
            };
            let mut runtimes = names
                .iter()
                .skip(1)
                .map(|n| runtime(n.clone()))
                .collect::<Result<Vec<_>, _>>()?;
            let (t, first, cache, library) = prepare(&files, host, names[0].clone())?;
            runtimes.insert(0, first);
            let name = &t.programs[0].file_name;
            // Each run loads its own copy of the library: a copy is a new object to the
            // loader, so the program's statics start afresh even where `dlclose` cannot
            // unload the previous one.
            let bytes = std::fs::read(&library)
                .map_err(|e| error(format!("could not read `{}`: {e}", library.display())))?;
            drop(cache);
            let copies = cache::Cache::temporary().map_err(error)?;
            let mut recordings = Vec::new();
            let mut code = 0;
            let several = runtimes.len() > 1;
            for (k, runtime) in runtimes.into_iter().enumerate() {
                let path = copies.root().join(format!("program-{k}.so"));
                cache::write_private(&path, &bytes)
                    .map_err(|e| error(format!("could not write `{}`: {e}", path.display())))?;
                if several {
                    eprintln!("brcc: running `{name}` on {}", runtime.backend_name());
                    // Backends are compared operation by operation: a call GL would fuse
                    // into a reduction and run later for a read must run where the others
                    // run it.
                    runtime.set_automatic_fusion(false).map_err(error)?;
                }
                // Every backend records: side by side, the page marks where another
                // backend's history of an element first differs from the first one's.
                if why {
                    runtime.record_history(true).map_err(error)?;
                }
                runtime.start_explaining(max_side);
                let status = launch::run(
                    &path,
                    name,
                    &args,
                    runtime,
                    || (),
                    |rt| recordings.push(rt.finish_explaining()),
                )
                .map_err(error)?;
                if k == 0 {
                    code = status;
                } else if status != code {
                    eprintln!(
                        "brcc: warning: `{name}` ended with status {status} on {}, {code} on {}",
                        recordings[k].name, recordings[0].name
                    );
                }
            }
            let sources: Vec<brook::core::SourceText> = t
                .programs
                .iter()
                .map(|p| brook::core::SourceText::new(&p.file_name, p.source.as_str()))
                .collect();
            let options = brook::explain::Options {
                title: name.clone(),
                max_bytes: max_mb.saturating_mul(1 << 20),
            };
            let summary =
                brook::explain::write_side_by_side(&recordings, &sources, &output, &options)
                    .map_err(error)?;
            eprintln!(
                "brcc: wrote {}: {} operations ({} cards), {} passes, {} pictures, {} KiB{}",
                output.join("index.html").display(),
                summary.operations,
                summary.cards,
                summary.passes,
                summary.images,
                summary.bytes.div_ceil(1024),
                if several {
                    format!(", {} elements differ between backends", summary.differing)
                } else {
                    String::new()
                }
            );
            Ok(ExitCode::from(code as u8))
        }
    }
}

/// What `run` and `explain` need before the program starts: its translation, the runtime
/// (made first, so a bad backend name or a missing GL driver fails before compiling), the
/// cache and the built library.
fn prepare(
    files: &[PathBuf],
    host: cli::HostOptions,
    backend: Option<String>,
) -> Result<(sources::Translation, brook::Runtime, cache::Cache, PathBuf), String> {
    let t = sources::translate(sources::load(files, &host)?, true)?;
    let runtime = runtime(backend)?;
    let cache = cache::Cache::open().map_err(error)?;
    let library = compiler(host)?.build(&t, &cache).map_err(error)?;
    Ok((t, runtime, cache, library))
}

/// Runs the program an executable made by `brcc build` carries, with its command line.
fn run_carried(library: &[u8]) -> Result<ExitCode, String> {
    let runtime = runtime(None)?;
    let dir = cache::Cache::temporary().map_err(error)?;
    let path = dir.root().join("program.so");
    cache::write_private(&path, library)
        .map_err(|e| format!("brcc: error: could not write `{}`: {e}", path.display()))?;
    let mut argv = std::env::args();
    let name = argv.next().unwrap_or_else(|| "program".into());
    let args: Vec<String> = argv.collect();
    let code = launch::run(&path, &name, &args, runtime, || drop(dir), |_| ()).map_err(error)?;
    Ok(ExitCode::from(code as u8))
}

/// `--backend`, else `BRT_RUNTIME`, else GL. The program then sees that backend's name in
/// `BRT_RUNTIME`, as the original's programs saw the runtime they ran on: some check it
/// (its `writeQuery` test prints a warning and picks one itself when it is unset).
fn runtime(backend: Option<String>) -> Result<brook::Runtime, String> {
    let name = backend
        .or_else(|| std::env::var("BRT_RUNTIME").ok())
        .unwrap_or_else(|| "gl".into());
    let runtime = brook::Runtime::named(&name).map_err(error)?;
    std::env::set_var("BRT_RUNTIME", &name);
    Ok(runtime)
}

fn compiler(host: cli::HostOptions) -> Result<cxx::Compiler, String> {
    cxx::Compiler::find(host).map_err(error)
}

fn error(e: impl std::fmt::Display) -> String {
    format!("brcc: error: {e}")
}
