//! Every backend checks a call's arguments the same way, before running anything: a stream
//! of another element type than its parameter's (a `float4` stream for a `float` parameter,
//! which GL used to run and return garbage for), a constant of the wrong size, an iterator of
//! the wrong width, a stream where a constant goes.

mod support;

use brook::{args, BrookError, IterSpec, Runtime};

const SRC: &str =
    "kernel void k(float a<>, float g[], float c, out float b<>) { b = a + g[0] * c; }
kernel void two(float2 p, iter float t<>, out float b<>) { b = p.x + t; }";

fn argument_type_error(rt: &Runtime, result: Result<(), BrookError>, what: &str) -> String {
    match result.as_ref().map_err(BrookError::unplaced) {
        Err(e @ BrookError::ArgumentType { .. }) => e.to_string(),
        other => panic!("{}: {what}: {other:?}", rt.backend_name()),
    }
}

#[test]
fn arguments_of_another_type_are_refused_on_every_backend() {
    for rt in [
        support::gl_with(None, None),
        support::wgpu(),
        Runtime::cpu(),
    ] {
        let name = rt.backend_name();
        let p = rt.compile(SRC, "types.br").unwrap();
        let one = |n: u8| rt.stream_of(n, &[4]).unwrap();
        let (a, g, b) = (one(1), one(1), one(1));
        for s in [&a, &g, &b] {
            s.read(&[1.0; 4]).unwrap();
        }
        let wide = one(4);
        wide.read(&[7.0; 16]).unwrap();

        let e = argument_type_error(&rt, rt.run(&p, "k", args![&wide, &g, 1.0f32, &b]), "input");
        assert!(
            e.contains("`a` takes elements of member widths [1]"),
            "{name}: {e}"
        );
        assert!(e.contains("[4]"), "{name}: {e}");
        argument_type_error(&rt, rt.run(&p, "k", args![&a, &wide, 1.0f32, &b]), "gather");
        argument_type_error(&rt, rt.run(&p, "k", args![&a, &g, 1.0f32, &wide]), "output");
        let e = argument_type_error(
            &rt,
            rt.run(&p, "k", args![&a, &g, [1.0f32, 2.0], &b]),
            "constant",
        );
        assert!(
            e.contains("constant `c` needs 1 value(s), got 2"),
            "{name}: {e}"
        );
        let e = argument_type_error(
            &rt,
            rt.run(&p, "k", args![&a, &g, &a, &b]),
            "stream for constant",
        );
        assert!(
            e.contains("is a constant but the call passes a stream"),
            "{name}: {e}"
        );

        let it2 = rt
            .iter(IterSpec::new(&[4], 2, [0.0; 4], [4.0, 4.0, 0.0, 0.0]).unwrap())
            .unwrap();
        let e = argument_type_error(
            &rt,
            rt.run(&p, "two", args![[1.0f32, 2.0], &it2, &b]),
            "iterator",
        );
        assert!(e.contains("iterator `t`"), "{name}: {e}");
        let it = rt
            .iter(IterSpec::new(&[4], 1, [0.0; 4], [4.0, 0.0, 0.0, 0.0]).unwrap())
            .unwrap();
        argument_type_error(
            &rt,
            rt.run(&p, "two", args![[1.0f32, 2.0], &a, &b]),
            "stream for iter",
        );
        argument_type_error(
            &rt,
            rt.run(&p, "k", args![&a, &g, 1.0f32, &it]),
            "iterator output",
        );

        // Nothing ran: the output still holds what was read into it.
        assert_eq!(b.to_vec().unwrap(), [1.0; 4], "{name}");
        rt.run(&p, "two", args![[1.0f32, 2.0], &it, &b]).unwrap();
        assert_eq!(b.to_vec().unwrap(), [1.0, 2.0, 3.0, 4.0], "{name}");
    }
}
