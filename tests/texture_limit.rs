//! Kernels reading more textures than a GL driver allows in one shader (llvmpipe: 32): every
//! member of every input and gathered stream is a texture. Up to the limit they run; past it
//! the call fails before the driver sees the shader, naming the kernel, the count and the limit
//! (the driver's own refusal at link time named no Brook parameter). wgpu does the same with
//! its limit of storage buffers per shader stage (every stream is one). The CPU has no limit.

use brook::{Arg, BrookError, Runtime, Stream};

/// 0 + 1 + … + (n - 1): what `sum_of_inputs` gives for `n` inputs.
fn total(n: usize) -> f32 {
    (n * (n - 1) / 2) as f32
}

/// A kernel summing `n` float inputs, run on `rt` with input `i` holding `i`.
fn sum_of_inputs(rt: &Runtime, n: usize) -> Result<Vec<f32>, brook::BrookError> {
    let params: Vec<String> = (0..n).map(|i| format!("float a{i}<>")).collect();
    let sum: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let src = format!(
        "kernel void many({}, out float r<>) {{\n    r = {};\n}}",
        params.join(", "),
        sum.join(" + ")
    );
    let p = rt.compile(&src, "many.br")?;
    let inputs: Vec<Stream> = (0..n)
        .map(|i| {
            let s = rt.stream_of(1, &[3])?;
            s.read(&[i as f32; 3])?;
            Ok(s)
        })
        .collect::<Result<_, brook::BrookError>>()?;
    let r = rt.stream_of(1, &[3])?;
    let mut args: Vec<Arg> = inputs.iter().map(Arg::Stream).collect();
    args.push(Arg::Stream(&r));
    rt.run(&p, "many", &args)?;
    r.to_vec()
}

#[test]
fn inputs_up_to_the_driver_limit_run_and_beyond_it_fail_clearly() {
    let gl = Runtime::gl().unwrap();
    let max = gl
        .gl_context()
        .expect("a GL runtime")
        .caps()
        .max_texture_units as usize;
    assert_eq!(sum_of_inputs(&gl, max).unwrap(), [total(max); 3]);
    let err = sum_of_inputs(&gl, max + 1).unwrap_err().to_string();
    assert!(
        err.contains(&format!("reads {} textures", max + 1))
            && err.contains(&format!("allows {max} per shader"))
            && err.contains("`many`"),
        "{err}"
    );
    assert_eq!(
        sum_of_inputs(&Runtime::cpu(), max + 8).unwrap(),
        [total(max + 8); 3]
    );
}

#[test]
fn streams_up_to_the_wgpu_storage_buffer_limit_run_and_beyond_it_fail_clearly() {
    let rt = Runtime::wgpu().unwrap();
    let max = rt
        .as_wgpu()
        .expect("a wgpu runtime")
        .device()
        .limits()
        .max_storage_buffers_per_shader_stage as usize;
    // The output is a storage buffer too: `max - 1` inputs fill the stage.
    assert_eq!(sum_of_inputs(&rt, max - 1).unwrap(), [total(max - 1); 3]);
    let err = sum_of_inputs(&rt, max).unwrap_err();
    assert!(
        matches!(err.unplaced(), BrookError::DeviceLimit { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&format!("binds {} storage buffers", max + 1))
            && text.contains(&format!("allows {max} per shader stage"))
            && text.contains("kernel `many`"),
        "{text}"
    );
}
