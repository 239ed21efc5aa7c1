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
