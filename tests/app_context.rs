//! The runtime takes a GL context an application made (as a windowed app's would be) instead
//! of insisting on making its own: here the "application" makes a plain EGL context with
//! glutin, hands its glow context to brook, and SAXPY runs in it and equals the CPU backend.

use std::ffi::CStr;

use brook::texture_streams::GlContext;
use brook::{args, ContextOptions, Runtime};
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;

const SAXPY: &str = "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}";

fn saxpy(rt: &Runtime) -> Vec<f32> {
    let program = rt.compile(SAXPY, "saxpy.br").unwrap();
    let (x, y, r) = (
        rt.stream_of(4, &[16, 9]).unwrap(),
        rt.stream_of(4, &[16, 9]).unwrap(),
        rt.stream_of(4, &[16, 9]).unwrap(),
    );
    x.read(&(0..576).map(|i| i as f32 * 0.5).collect::<Vec<_>>())
        .unwrap();
    y.read(&(0..576).map(|i| 100.0 - i as f32).collect::<Vec<_>>())
        .unwrap();
    rt.run(&program, "saxpy", args![3.0f32, &x, &y, &r])
        .unwrap();
    r.to_vec().unwrap()
}

#[test]
fn brook_runs_in_a_context_the_application_made() {
    // The application's side: any current GL 3.3 core context will do.
    let device = Device::query_devices()
        .expect("EGL devices")
        .next()
        .expect("one EGL device");
    let display = unsafe { Display::with_device(&device, None) }.expect("an EGL display");
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_api(Api::OPENGL)
        .build();
    let config = unsafe { display.find_configs(template) }
        .unwrap()
        .next()
        .expect("a config");
    let attributes = ContextAttributesBuilder::new()
        .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
        .with_profile(GlProfile::Core)
        .build(None);
    let context = unsafe { display.create_context(&config, &attributes) }
        .unwrap()
        .make_current_surfaceless()
        .unwrap();
    let gl = unsafe {
        glow::Context::from_loader_function_cstr(|name: &CStr| display.get_proc_address(name))
    };

    // Brook's side: take that context.
    let ctx =
        GlContext::from_glow(gl, ContextOptions::default()).expect("brook accepts the context");
    let on_app_context = Runtime::on_context(ctx);
    assert_eq!(on_app_context.backend_name(), "gl");
    let result = saxpy(&on_app_context);
    assert_eq!(result, saxpy(&Runtime::cpu()));
    assert_eq!(result[3], 3.0 * 1.5 + 97.0);
    drop(on_app_context);
    drop(context);
}
