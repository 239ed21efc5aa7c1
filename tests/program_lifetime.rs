//! Caches that end: everything the GL backend compiles for a program is released when the
//! program is dropped, so an application that compiles programs as it goes does not grow.

use brook::{args, Runtime};

/// Resident memory of this process in bytes (Linux), to see that it stays flat.
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn programs_compiled_and_dropped_leave_no_gl_objects_or_memory_behind() {
    const PROGRAMS: usize = 2_000;
    let gl = Runtime::gl().unwrap();
    let ctx = gl.gl_context().unwrap().clone();
    let a = gl.stream_of(1, &[16]).unwrap();
    a.read(&[1.0; 16]).unwrap();
    let b = gl.stream_of(1, &[16]).unwrap();
    let src = "kernel void twice(float a<>, out float b<>) { b = a * 2.0; }
reduce void sum(float a<>, reduce float r<>) { r += a; }";
    let round = || {
        let program = gl.compile(src, "lifetime.br").unwrap();
        gl.run(&program, "twice", args![&a, &b]).unwrap();
        gl.reduce_to_value(&program, "sum", &b, args![]).unwrap()
    };
    // The first round makes what outlives programs (framebuffers, spare intermediates).
    assert_eq!(round(), [32.0]);
    let (objects, memory) = (ctx.live_objects(), resident_bytes());
    let start = std::time::Instant::now();
    for _ in 0..PROGRAMS {
        round();
    }
    eprintln!("{PROGRAMS} programs in {:?}", start.elapsed());
    assert_eq!(ctx.live_objects(), objects, "GL programs and textures");
    if let (Some(before), Some(after)) = (memory, resident_bytes()) {
        // Each program linked three GL programs: 6,000 kept would hold far more than this.
        let grown = after.saturating_sub(before);
        assert!(grown < 32 << 20, "resident memory grew by {grown} bytes");
    }
}
