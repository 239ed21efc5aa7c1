//! The pass trace: what each Brook call became on GL, for teaching and for asserting the pass
//! structure.

mod support;

use brook::{args, TraceEntry};
use support::{gl_with, ramp};

const MANY: &str =
    "kernel void many(float4 a<>, float k, out float4 o0<>, out float4 o1<>, out float o2<>) {
    o0 = a * k; o1 = a + k; o2 = a.x;
}";

#[test]
fn a_split_kernel_makes_one_pass_per_group_of_outputs() {
    for (limit, passes) in [(1, 3), (2, 2), (3, 1)] {
        let gl = gl_with(None, Some(limit));
        let program = gl.compile(MANY, "many.br").unwrap();
        let a = gl.stream_of(4, &[2, 3]).unwrap();
        a.read(&ramp(24)).unwrap();
        let o: Vec<_> = [4u8, 4, 1]
            .iter()
            .map(|c| gl.stream_of(*c, &[2, 3]).unwrap())
            .collect();
        gl.set_trace(true);
        gl.run(&program, "many", args![&a, 2.0f32, &o[0], &o[1], &o[2]])
            .unwrap();
        let trace = gl.take_trace();
        let [TraceEntry::Kernel(call)] = &trace[..] else {
            panic!("one kernel call, got {trace:?}")
        };
        assert_eq!(call.passes.len(), passes);
        let targets: Vec<&str> = call
            .passes
            .iter()
            .flat_map(|p| p.targets.iter().map(|(name, _)| name.as_str()))
            .collect();
        assert_eq!(targets, ["o0", "o1", "o2"], "every output written once");
        for pass in &call.passes {
            assert!(pass.targets.len() <= limit as usize);
            assert_eq!(pass.viewport, [0, 0, 3, 2]);
        }
        // The first pass writes `o0`, which needs `k`; a pass writing only `o2` does not, and
        // the driver drops the uniform there.
        assert!(call.passes[0]
            .uniforms
            .iter()
            .any(|(name, value)| name == "k" && value.to_string() == "2.0"));
        let text = call.to_string();
        assert!(
            text.contains(&format!("kernel `many`: {passes} pass(es)")),
            "{text}"
        );
        assert!(text.contains("uniform k = 2.0"), "{text}");
        assert!(text.contains("texture unit 0: a_tex <- texture"), "{text}");
        // Tracing off: nothing more is recorded.
        gl.set_trace(false);
        gl.run(&program, "many", args![&a, 2.0f32, &o[0], &o[1], &o[2]])
            .unwrap();
        assert!(gl.take_trace().is_empty());
        assert_eq!(o[2].to_vec().unwrap(), [0., 4., 8., 12., 16., 20.]);
    }
}

#[test]
fn every_operation_shows_every_pass() {
    use brook::core::{Blend, Depth, Draw};
    use brook::{GatherOp, ScatterOp};
    let src = "reduce void sum(float a<>, reduce float r<>) { r += a; }
reduce void biggest(float a<>, reduce float r<>) { r = max(a, r); }
kernel void twice(float a<>, out float b<>) { b = 2.0 * a; }
kernel void repeat(float a<>, vout [2] float o<>) { o = a; push(o); push(o); }";
    let gl = gl_with(None, None);
    let p = gl.compile(src, "all.br").unwrap();
    let stream = |n: usize, data: &[f32]| {
        let s = gl.stream_of(1, &[n]).unwrap();
        s.read(data).unwrap();
        s
    };
    let a = stream(100, &ramp(100));
    let index = stream(100, &(0..100).map(|i| (i % 4) as f32).collect::<Vec<_>>());
    let (dst, b, o) = (
        stream(4, &[0.0; 4]),
        stream(100, &[0.0; 100]),
        stream(200, &[0.0; 200]),
    );
    let fetched = stream(100, &[0.0; 100]);
    let index_texture = index
        .gl_textures()
        .unwrap()
        .expect("a GL stream has textures")
        .textures()[0]
        .raw()
        .0
        .get();
    gl.set_trace(true);
    let total = gl.reduce_to_value(&p, "sum", &a, args![]).unwrap();
    gl.scatter(&dst, &index, &a, ScatterOp::Add).unwrap();
    gl.scatter(&dst, &index, &a, ScatterOp::Reduce(&p, "biggest"))
        .unwrap();
    gl.gather_op(&fetched, &index, &dst, GatherOp::Increment)
        .unwrap();
    gl.set_write_mask(&a).unwrap();
    gl.enable_write_mask().unwrap();
    gl.run(&p, "twice", args![&a, &b]).unwrap();
    gl.disable_write_mask().unwrap();
    gl.run_vout(&p, "repeat", args![&a, &o]).unwrap();
    gl.swap(&b, &fetched).unwrap();
    let trace = gl.take_trace();
    assert_eq!(total, [4950.0]);

    let kinds: Vec<&str> = trace
        .iter()
        .map(|e| match e {
            TraceEntry::Reduce(_) => "reduce",
            TraceEntry::Scatter(_) => "scatter",
            TraceEntry::GatherOp(_) => "gather-op",
            TraceEntry::WriteMask(_) => "mask",
            TraceEntry::Kernel(_) => "kernel",
            TraceEntry::Vout(_) => "vout",
            TraceEntry::Swap { .. } => "swap",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "reduce",
            "scatter",
            "scatter",
            "gather-op",
            // streamSetWriteMask draws the mask once (a new mask is loaded, not opened first).
            "mask",
            "kernel",
            "kernel",
            "vout",
            "swap"
        ]
    );
    // 100 -> 13 -> 2 -> 1, each pass drawing from the last one's output.
    let reduce = trace[0].passes();
    assert_eq!(reduce.len(), 3);
    for (before, after) in reduce.iter().zip(&reduce[1..]) {
        assert_eq!(after.inputs[0].1, before.targets[0].1);
    }
    // A built-in combiner is one blended draw of every point.
    let add = trace[1].passes();
    assert_eq!(add.len(), 1);
    assert_eq!(
        add[0].draw,
        Draw::Points {
            first: 0,
            count: 100
        }
    );
    assert_eq!(add[0].blend, Some(Blend::Add));
    // The trace says which inputs place the points (the explorer draws them from these): the
    // index, and no order for a single draw of every point.
    let unit = |pass: &brook::PassTrace, k: usize| pass.inputs[k].1;
    let scatter = add[0].scatter.expect("a scatter's points name their index");
    assert_eq!(
        (unit(&add[0], scatter.index), scatter.order),
        (index_texture, None)
    );
    // A user combiner: 25 rounds of 4 (each element index hits 4 targets), each a copy of
    // the destination and a draw of that round's points.
    let rounds = trace[2].passes();
    assert_eq!(rounds.len(), 2 * 25);
    assert!(rounds.iter().step_by(2).all(|p| p.draw == Draw::Copy));
    assert_eq!(rounds[3].draw, Draw::Points { first: 4, count: 4 });
    // Each round draws its points in the order a round stream gives.
    let ordered = rounds[3]
        .scatter
        .expect("a round's points name their index");
    assert_eq!(unit(&rounds[3], ordered.index), index_texture);
    let order = ordered.order.expect("a round names its order");
    assert_ne!(unit(&rounds[3], order), index_texture);
    // GatherOp: per round a fetch, then the increment blended into the data.
    let gather = trace[3].passes();
    assert_eq!(gather.len(), 2 * 25);
    assert_eq!(gather[1].blend, Some(Blend::Add));
    // The fetch lands on each element's own texel, not where its index says; the update
    // lands where the index says.
    assert_eq!(gather[0].scatter, None);
    assert!(gather[1].scatter.is_some());
    // The runtime's mask made and the mask stream drawn into its depth once, then tested by
    // the masked call.
    let [mask] = trace[4].passes() else {
        panic!("one mask pass: {}", trace[4])
    };
    let Some(Depth::Written { texture }) = mask.depth else {
        panic!("the mask pass writes depth: {mask}")
    };
    assert_eq!(trace[5].passes()[0].depth, Some(Depth::Tested { texture }));
    // The vout call: counts cleared and the candidates drawn, then the packing.
    assert_eq!(trace[6].passes().len(), 2);
    assert!(!trace[7].passes().is_empty());
    for entry in &trace[..8] {
        for pass in entry.passes() {
            assert!(pass.viewport[2] > 0 && pass.viewport[3] > 0, "{entry}");
            if pass.program.is_some() {
                assert!(!pass.targets.is_empty() || pass.depth.is_some(), "{entry}");
            }
        }
    }
    let printed: String = trace.iter().map(|e| e.to_string()).collect();
    for expected in [
        "blending Add",
        "depth-tested against mask",
        "writing mask depth",
        "points 4..8",
        "streamSwap",
    ] {
        assert!(printed.contains(expected), "{expected}: {printed}");
    }
}

#[test]
fn an_observer_sees_every_step_before_and_after_it_runs() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;

    use brook::core::{Grid, ObservedPass};
    use brook::PassObserver;

    /// The label of every step, and the first target's first texel before and after it.
    type Seen = Rc<RefCell<Vec<(String, f32, f32, Duration)>>>;
    struct Watch(Seen, f32);
    fn first_texel(pass: &ObservedPass) -> f32 {
        let Some(target) = pass.targets.first() else {
            return f32::NAN;
        };
        let Grid {
            width, components, ..
        } = target.grid();
        let row = target.read_rows(0, 1).unwrap();
        assert_eq!(row.len(), width as usize * usize::from(components));
        row[0]
    }
    impl PassObserver for Watch {
        fn before(&mut self, pass: &ObservedPass) {
            assert_eq!(pass.targets.len(), pass.trace.targets.len());
            assert_eq!(pass.inputs.len(), pass.trace.inputs.len());
            self.1 = first_texel(pass);
        }
        fn after(&mut self, pass: &ObservedPass, elapsed: Duration) {
            let after = first_texel(pass);
            let label = pass.trace.label.clone();
            self.0.borrow_mut().push((label, self.1, after, elapsed));
        }
    }

    let gl = gl_with(None, None);
    let p = gl
        .compile(
            "kernel void inc(float a<>, out float b<>) { b = a + 1.0; }",
            "inc.br",
        )
        .unwrap();
    let a = gl.stream_of(1, &[4]).unwrap();
    a.read(&[5.0; 4]).unwrap();
    let seen = Seen::default();
    let watch = Watch(seen.clone(), 0.0);
    gl.backend()
        .set_pass_observer(Some(Box::new(watch)))
        .unwrap();
    gl.run(&p, "inc", args![&a, &a]).unwrap();
    gl.backend().set_pass_observer(None).unwrap();
    gl.run(&p, "inc", args![&a, &a]).unwrap();
    assert_eq!(a.to_vec().unwrap(), [7.0; 4]);
    let seen = seen.borrow();
    // In place: the copy into the scratch stream, then the draw into it (6 + 1).
    let steps: Vec<(&str, f32)> = seen.iter().map(|(l, _, a, _)| (l.as_str(), *a)).collect();
    assert_eq!(
        steps,
        [
            ("in place: the output copied to its scratch", 5.0),
            ("pass 1 of 1", 6.0)
        ]
    );
    assert_eq!(seen[1].1, 5.0, "the scratch held the copy before the draw");
    assert!(seen.iter().all(|s| s.3 > Duration::ZERO));
}

/// The CPU runs no passes and wgpu does not show its dispatches as they run: both refuse a
/// pass observer (the explorer then shows each operation's results), and removing none is
/// fine.
#[test]
fn backends_without_observable_passes_refuse_an_observer() {
    use brook::core::ObservedPass;
    use brook::{BrookError, PassObserver, Runtime};
    struct Blind;
    impl PassObserver for Blind {
        fn before(&mut self, _: &ObservedPass) {}
        fn after(&mut self, _: &ObservedPass, _: std::time::Duration) {}
    }
    for rt in [Runtime::cpu(), support::wgpu()] {
        let refused = rt.backend().set_pass_observer(Some(Box::new(Blind)));
        assert!(
            matches!(refused, Err(BrookError::Unsupported { .. })),
            "{}: {refused:?}",
            rt.backend_name()
        );
        rt.backend().set_pass_observer(None).unwrap();
    }
}

/// On wgpu every call is compute dispatches: the trace names each dispatch's pipeline (its
/// WGSL), the buffers bound and the workgroup counts.
#[test]
fn wgpu_calls_show_their_dispatches_buffers_and_workgroups() {
    use brook::core::{Draw, ShaderSource};
    use brook::ScatterOp;
    let src = "reduce void sum(float a<>, reduce float r<>) { r += a; }
kernel void twice(float a<>, out float b<>) { b = 2.0 * a; }
kernel void repeat(float a<>, vout [2] float o<>) { o = a; push(o); push(o); }";
    let rt = support::wgpu();
    let p = rt.compile(src, "all.br").unwrap();
    let stream = |n: usize, data: &[f32]| {
        let s = rt.stream_of(1, &[n]).unwrap();
        s.read(data).unwrap();
        s
    };
    let a = stream(1000, &ramp(1000));
    let b = stream(1000, &[0.0; 1000]);
    let o = stream(2000, &[0.0; 2000]);
    let index = stream(1000, &(0..1000).map(|i| (i % 4) as f32).collect::<Vec<_>>());
    let dst = stream(4, &[0.0; 4]);
    rt.set_trace(true);
    rt.run(&p, "twice", args![&a, &b]).unwrap();
    rt.run(&p, "twice", args![&a, &b]).unwrap();
    let total = rt.reduce_to_value(&p, "sum", &a, args![]).unwrap();
    rt.scatter(&dst, &index, &a, ScatterOp::Add).unwrap();
    rt.run_vout(&p, "repeat", args![&a, &o]).unwrap();
    rt.swap(&a, &b).unwrap();
    let trace = rt.take_trace();
    assert_eq!(total, [499_500.0]);
    let [TraceEntry::Kernel(first), TraceEntry::Kernel(again), TraceEntry::Reduce(reduce), TraceEntry::Scatter(scatter), TraceEntry::Kernel(vout), TraceEntry::Swap { .. }] =
        &trace[..]
    else {
        panic!("kernel, kernel, reduce, scatter, kernel, swap; got {trace:#?}")
    };
    // One dispatch of ceil(1000 / 64) workgroups, binding `a` and `b`, its WGSL attached.
    assert_eq!(first.function, "twice");
    assert_eq!(first.source_line, Some(2));
    assert!(first.compiled.is_some() && again.compiled.is_none());
    let [pass] = &first.passes[..] else {
        panic!("one dispatch: {first}")
    };
    assert_eq!(
        pass.draw,
        Draw::Dispatch {
            workgroups: [16, 1, 1]
        }
    );
    let names: Vec<&str> = pass.targets.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "out b"]);
    let program = pass.program.as_ref().expect("a dispatch runs a pipeline");
    let ShaderSource::Compute(wgsl) = &*program.source else {
        panic!("a compute shader")
    };
    assert!(
        wgsl.contains("@compute @workgroup_size(64, 1, 1)"),
        "{wgsl}"
    );
    assert!(first.to_string().contains("dispatch 16x1x1"), "{first}");
    // The reduction and scatter are dispatches too; vout packing follows its kernel's.
    assert!(!reduce.passes.is_empty() && !scatter.passes.is_empty());
    assert!(reduce
        .passes
        .iter()
        .all(|p| matches!(p.draw, Draw::Dispatch { .. })));
    assert!(vout.passes.len() > 1, "{vout}");
    assert!(
        vout.passes.iter().any(|p| p.label.contains("scan")),
        "{vout}"
    );
    assert_eq!(o.to_vec().unwrap()[..4], [0.0, 0.0, 1.0, 1.0]);
}

/// A wgpu runtime made beside a GL runtime on one thread leaves GL its context.
#[test]
fn gl_keeps_working_beside_a_wgpu_runtime() {
    let gl = gl_with(None, None);
    let p = gl
        .compile(
            "kernel void twice(float a<>, out float b<>) { b = 2.0 * a; }",
            "t.br",
        )
        .unwrap();
    let a = gl.stream_of(1, &[3]).unwrap();
    a.read(&[1.0, 2.0, 3.0]).unwrap();
    let wgpu = support::wgpu();
    let w = wgpu.stream_of(1, &[3]).unwrap();
    w.read(&[4.0, 5.0, 6.0]).unwrap();
    let b = gl.stream_of(1, &[3]).unwrap();
    gl.run(&p, "twice", args![&a, &b]).unwrap();
    assert_eq!(b.to_vec().unwrap(), [2.0, 4.0, 6.0]);
    assert_eq!(w.to_vec().unwrap(), [4.0, 5.0, 6.0]);
}

/// The explorer's pass time is the pass's execution, not the driver's compile: llvmpipe
/// compiles a program's shader variant at its first draw (a 100-element sum showed 256 ms
/// a pass), so an observed draw is drawn once first writing nothing, and that warm-up is
/// reported apart (issue 34). The first sum's passes must take what the second's take, the
/// compile landing in the warm-ups, and the sum must still be right (the warm-up writes
/// nothing).
#[test]
fn a_pass_time_excludes_the_compile_of_its_first_draw() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;

    use brook::core::ObservedPass;
    use brook::PassObserver;

    /// Each draw's warm-up and own time.
    type Times = Rc<RefCell<Vec<(Option<Duration>, Duration)>>>;
    struct Clock(Times, Option<Duration>);
    impl PassObserver for Clock {
        fn before(&mut self, _: &ObservedPass) {
            self.1 = None;
        }
        fn warmed_up(&mut self, _: &ObservedPass, took: Duration) {
            self.1 = Some(took);
        }
        fn after(&mut self, _: &ObservedPass, elapsed: Duration) {
            self.0.borrow_mut().push((self.1.take(), elapsed));
        }
    }

    let gl = gl_with(None, None);
    let p = gl
        .compile(
            "reduce void sum(float a<>, reduce float s<>) { s += a; }",
            "sum.br",
        )
        .unwrap();
    let a = gl.stream_of(1, &[100]).unwrap();
    a.read(&ramp(100)).unwrap();
    let sum = |times: &Times| {
        gl.backend()
            .set_pass_observer(Some(Box::new(Clock(times.clone(), None))))
            .unwrap();
        let s = gl.reduce_to_value(&p, "sum", &a, args![]).unwrap();
        gl.backend().set_pass_observer(None).unwrap();
        assert_eq!(s, [ramp(100).iter().sum::<f32>()]);
        let times = times.borrow();
        assert!(!times.is_empty());
        assert!(times.iter().all(|(warm, _)| warm.is_some()), "{times:?}");
        let passes: Duration = times.iter().map(|t| t.1).sum();
        let warm_ups: Duration = times.iter().filter_map(|t| t.0).sum();
        (passes, warm_ups)
    };
    let (first, compiling) = sum(&Times::default());
    let (second, warm) = sum(&Times::default());
    eprintln!("first sum: passes {first:?}, warm-ups {compiling:?}; second: {second:?}, {warm:?}");
    // The compile (tens of ms on llvmpipe) is in the first sum's warm-ups, not its passes,
    // which take what the second sum's passes take (a loaded machine's noise allowed for).
    assert!(
        compiling > first,
        "{compiling:?} warming up, {first:?} drawing"
    );
    assert!(
        first <= second * 4 + Duration::from_millis(3),
        "the first sum's passes took {first:?}, the second's {second:?}"
    );
}
