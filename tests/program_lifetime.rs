//! Caches that end: everything the GL backend compiles for a program is released when the
//! program is dropped, so an application that compiles programs as it goes does not grow.

use brook::{args, Runtime, ScatterOp};

/// Resident memory of this process in bytes (Linux), to see that it stays flat.
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Programs per run: 1,000 in the suite (each round compiles one and runs all four calls);
/// `BROOK_LIFETIME_PROGRAMS=10000` runs the count the seam issue names.
fn programs() -> usize {
    std::env::var("BROOK_LIFETIME_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

#[test]
fn programs_compiled_and_dropped_leave_no_gl_objects_or_memory_behind() {
    let gl = Runtime::gl().unwrap();
    let ctx = gl.gl_context().unwrap().clone();
    let a = gl.stream_of(1, &[16]).unwrap();
    a.read(&[1.0; 16]).unwrap();
    let b = gl.stream_of(1, &[16]).unwrap();
    let index = gl.stream_of(1, &[16]).unwrap();
    index.read(&[0.0, 1.0, 2.0, 3.0].repeat(4)).unwrap();
    let bins = gl.stream_of(1, &[4]).unwrap();
    let packed = gl.stream_of(1, &[32]).unwrap();
    // One program of every kind GL links: a kernel, a reduction's passes, a scatter with a
    // user operator (its conflict-free rounds), and a vout call (candidates, scan, compaction).
    let src = "kernel void twice(float a<>, out float b<>) { b = a * 2.0; }
reduce void sum(float a<>, reduce float r<>) { r += a; }
kernel void keep(float a<>, vout [2] float v<>) { if (a > 1.0) { v = a; push(v); push(v); } }";
    let round = || {
        let program = gl.compile(src, "lifetime.br").unwrap();
        gl.run(&program, "twice", args![&a, &b]).unwrap();
        bins.read(&[0.0; 4]).unwrap();
        gl.scatter(&bins, &index, &b, ScatterOp::Reduce(&program, "sum"))
            .unwrap();
        let pushed = gl.run_vout(&program, "keep", args![&b, &packed]).unwrap();
        (
            gl.reduce_to_value(&program, "sum", &b, args![]).unwrap(),
            bins.to_vec().unwrap(),
            pushed,
        )
    };
    // The first round makes what outlives programs (framebuffers, spare intermediates), and
    // its values show every kind of program ran.
    assert_eq!(round(), (vec![32.0], vec![8.0; 4], vec![32]));
    let (objects, memory) = (ctx.live_objects(), resident_bytes());
    let start = std::time::Instant::now();
    let n = programs();
    for _ in 0..n {
        round();
    }
    eprintln!("{n} programs in {:?}", start.elapsed());
    assert_eq!(ctx.live_objects(), objects, "GL programs and textures");
    if let (Some(before), Some(after)) = (memory, resident_bytes()) {
        // Each program links several GL programs: 1,000 kept would hold far more than this.
        let grown = after.saturating_sub(before);
        assert!(grown < 32 << 20, "resident memory grew by {grown} bytes");
    }
}
