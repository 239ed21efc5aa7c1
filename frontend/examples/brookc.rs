//! Compiles a Brook file and prints its IR, or its errors: `cargo run --example brookc f.br`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: brookc FILE.br");
    let source = std::fs::read_to_string(&path).expect("cannot read the file");
    match brook_frontend::compile(&source, &path) {
        Ok(m) => print!("{}", brook_frontend::pretty(&m)),
        Err(d) => {
            eprint!("{}", d.render());
            std::process::exit(1);
        }
    }
}
