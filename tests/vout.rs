//! `vout`/`push` through the runtime: counts from `run_vout` on the CPU backend, a clear
//! "not yet" on GL (the compaction passes are not built).

use brook::{args, Runtime};

const SRC: &str = r#"
kernel void repeat(float a<>, vout [4] float o<>) {
    float i;
    for (i = 0; i < a; i++) {
        o = a;
        push(o);
    }
}
"#;

#[test]
fn cpu_runtime_packs_pushes_and_returns_the_count() {
    let rt = Runtime::cpu();
    let p = rt.compile(SRC, "vout.br").unwrap();
    let a = [3.0, 0.0, 1.0, 2.0];
    let input = rt.stream_of(1, &[2, 2]).unwrap();
    input.read(&a).unwrap();
    let out = rt.stream_of(1, &[16]).unwrap();
    let counts = rt.run_vout(&p, "repeat", args![&input, &out]).unwrap();
    assert_eq!(counts, vec![6]);
    let data = out.to_vec().unwrap();
    assert_eq!(&data[..6], &[3.0, 3.0, 3.0, 1.0, 2.0, 2.0]);
    assert!(data[6..].iter().all(|&x| x == 0.0));
}

#[test]
fn gl_says_vout_is_not_supported_yet() {
    let Ok(rt) = Runtime::gl() else { return };
    // Refused when the program is prepared for GL, or at the latest when the kernel runs.
    let err = match rt.compile(SRC, "vout.br") {
        Err(e) => e,
        Ok(p) => {
            let input = rt.stream_of(1, &[4]).unwrap();
            let out = rt.stream_of(1, &[16]).unwrap();
            rt.run_vout(&p, "repeat", args![&input, &out]).unwrap_err()
        }
    };
    assert!(err.to_string().contains("vout"), "{err}");
}
