//! Any bytes given to the front end give a module or diagnostics — never a panic, a hang or a
//! stack overflow. Run with `cargo +nightly fuzz run compile` in `frontend/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    match brook_frontend::compile(&source, "fuzz.br") {
        Ok(module) => {
            let _ = brook_frontend::pretty(&module);
        }
        Err(diagnostics) => {
            let _ = diagnostics.render();
        }
    }
});
