//! Choosing the backend: in code, and through `BRT_RUNTIME`.

use brook::Runtime;

#[test]
fn settings_select_the_backend_and_unknown_names_are_errors() {
    assert_eq!(Runtime::from_setting(None).unwrap().backend_name(), "gl");
    assert_eq!(
        Runtime::from_setting(Some("cpu")).unwrap().backend_name(),
        "cpu"
    );
    assert_eq!(
        Runtime::from_setting(Some(" CPU ")).unwrap().backend_name(),
        "cpu"
    );
    assert_eq!(
        Runtime::from_setting(Some("ogl")).unwrap().backend_name(),
        "gl"
    );
    let wgpu = Runtime::from_setting(Some(" WGPU ")).unwrap();
    assert_eq!(wgpu.backend_name(), "wgpu");
    assert!(wgpu.as_wgpu().is_some() && wgpu.as_gl().is_none());
    let err = Runtime::from_setting(Some("dx9")).err().expect("unknown");
    assert!(
        err.to_string().contains("unknown Brook backend `dx9`"),
        "{err}"
    );
    // The fallback never hides an unknown name, and GL is available here.
    assert!(Runtime::from_setting_or_cpu(Some("dx9")).is_err());
    assert_eq!(
        Runtime::from_setting_or_cpu(None).unwrap().backend_name(),
        "gl"
    );
}

/// The only test in this binary that touches the environment, so nothing races with it.
#[test]
fn from_env_reads_brt_runtime() {
    std::env::set_var("BRT_RUNTIME", "cpu");
    assert_eq!(Runtime::from_env().unwrap().backend_name(), "cpu");
    assert_eq!(Runtime::from_env_or_cpu().unwrap().backend_name(), "cpu");
    std::env::set_var("BRT_RUNTIME", "wgpu");
    assert_eq!(Runtime::from_env().unwrap().backend_name(), "wgpu");
    std::env::set_var("BRT_RUNTIME", "vulkan");
    assert!(Runtime::from_env().is_err());
    assert!(Runtime::from_env_or_cpu().is_err());
    std::env::remove_var("BRT_RUNTIME");
    assert_eq!(Runtime::from_env().unwrap().backend_name(), "gl");
}
