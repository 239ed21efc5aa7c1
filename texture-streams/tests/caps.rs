//! The capability probe on a real context.

mod common;

use brook_texture_streams::{ContextOptions, GlContext, GlError, Profile};

#[test]
fn probe_reports_float_targets_and_sane_limits() {
    for profile in [Profile::Gl33Core, Profile::Es30] {
        let ctx = common::context(profile, None);
        let caps = ctx.caps();
        assert_eq!(caps.float_renderable, [true; 4], "{profile:?}: {caps:?}");
        assert!(caps.max_texture_size >= 2048, "{caps:?}");
        assert!(caps.max_draw_buffers >= 4, "{caps:?}");
        assert!(caps.max_color_attachments >= 4, "{caps:?}");
        assert!(caps.max_texture_units >= 16, "{caps:?}");
        assert!(!caps.renderer.is_empty() && !caps.version.is_empty());
        assert_eq!(ctx.profile(), profile);
    }
}

#[test]
fn version_string_matches_the_profile() {
    let desktop = common::context(Profile::Gl33Core, None);
    assert!(
        !desktop.caps().version.starts_with("OpenGL ES"),
        "{}",
        desktop.caps().version
    );
    assert_eq!(desktop.glsl_header(), "#version 330 core\n");
    drop(desktop);
    let es = common::context(Profile::Es30, None);
    assert!(
        es.caps().version.starts_with("OpenGL ES 3"),
        "{}",
        es.caps().version
    );
    assert!(es
        .glsl_header()
        .starts_with("#version 300 es\nprecision highp float;\n"));
}

#[test]
fn overrides_lower_the_limits() {
    let probed = common::context(Profile::Gl33Core, None).caps().clone();
    let ctx = GlContext::headless(ContextOptions {
        profile: Profile::Gl33Core,
        max_texture_size: Some(64),
        max_draw_buffers: Some(2),
    })
    .unwrap();
    assert_eq!(ctx.caps().max_texture_size, 64);
    assert_eq!(ctx.caps().max_draw_buffers, 2);
    assert_eq!(
        ctx.caps().max_color_attachments,
        probed.max_color_attachments
    );
    // An override above the device's limit does not raise it.
    let ctx = GlContext::headless(ContextOptions {
        max_texture_size: Some(u32::MAX),
        ..ContextOptions::default()
    })
    .unwrap();
    assert_eq!(ctx.caps().max_texture_size, probed.max_texture_size);
}

#[test]
fn zero_override_is_an_error() {
    let err = GlContext::headless(ContextOptions {
        max_draw_buffers: Some(0),
        ..ContextOptions::default()
    })
    .unwrap_err();
    assert!(matches!(err, GlError::InvalidArgument(_)), "{err}");
}

#[test]
fn check_error_names_the_error() {
    let ctx = common::context(Profile::Gl33Core, None);
    assert_eq!(ctx.check_error("nothing"), Ok(()));
    // SAFETY: an invalid enum is reported through glGetError, nothing else happens.
    unsafe { glow::HasContext::enable(ctx.gl(), 0xFFFF) };
    let err = ctx.check_error("enabling a bogus capability").unwrap_err();
    assert_eq!(
        err,
        GlError::Gl {
            what: "enabling a bogus capability".into(),
            code: glow::INVALID_ENUM,
            name: "GL_INVALID_ENUM",
        }
    );
    assert_eq!(ctx.check_error("after draining"), Ok(()));
}
