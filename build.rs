//! Exports the brook crate's C ABI from the `brcc` executable, so the shared libraries it
//! builds from Brook programs resolve `brook_*` against it when loaded.
fn main() {
    println!("cargo:rustc-link-arg-bin=brcc=-rdynamic");
}
