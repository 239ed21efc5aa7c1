//! Compiles a Brook file and prints its IR, or its errors: `cargo run --example brookc f.br`.

use std::path::PathBuf;

use clap::Parser;

/// Compiles a Brook file and prints its typed IR, or its diagnostics.
#[derive(Debug, Parser)]
struct Cli {
    /// The Brook file.
    file: PathBuf,
}

fn main() {
    let cli = Cli::parse();
    let path = cli.file.display().to_string();
    let source = match std::fs::read_to_string(&cli.file) {
        Ok(source) => source,
        Err(e) => {
            eprintln!("brookc: cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    match brook_frontend::compile(&source, &path) {
        Ok(m) => print!("{}", brook_frontend::pretty(&m)),
        Err(d) => {
            eprint!("{}", d.render());
            std::process::exit(1);
        }
    }
}
