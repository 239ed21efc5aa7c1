//! Checks `src/kernels.br` at build time (a Brook error fails the build with its caret) and
//! generates typed Rust functions for its kernels into `$OUT_DIR/kernels.rs`.
fn main() {
    brook_build::compile("src/kernels.br").unwrap();
}
