//! Requests that cannot be served give errors that say why, never panics.

mod common;

use std::rc::Rc;

use brook_core::StreamError;
use brook_texture_streams::{
    ElementFormat, GlError, Profile, StoreError, Stream, TexelRect, Texture,
};

#[test]
fn stream_over_the_limit_is_too_large() {
    let ctx = common::context(Profile::Gl33Core, Some(16));
    let float = ElementFormat::scalar(1).unwrap();
    for shape in [&[257][..], &[17, 17], &[4, 8, 9]] {
        let err = Stream::new(&ctx, float.clone(), shape).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::TooLarge {
                    max_elements: 256,
                    max_texture_size: 16,
                    ..
                }
            ),
            "{shape:?}: {err:?}"
        );
        let message = err.to_string();
        assert!(message.contains("MAX_TEXTURE_SIZE = 16"), "{message}");
        assert!(message.contains("at most 256"), "{message}");
    }
    assert!(Stream::new(&ctx, float, &[16, 16]).is_ok());
}

#[test]
fn wrong_host_size_is_a_size_error() {
    let ctx = common::context(Profile::Gl33Core, None);
    let mut stream = Stream::new(&ctx, ElementFormat::scalar(3).unwrap(), &[4, 5]).unwrap();
    assert_eq!(
        stream.read(&[0.0; 59]),
        Err(StoreError::Invalid(StreamError::Size {
            expected: 60,
            got: 59
        }))
    );
    let err = stream.write(&mut [0.0; 61]).unwrap_err();
    assert_eq!(
        err,
        StoreError::Invalid(StreamError::Size {
            expected: 60,
            got: 61
        })
    );
    assert_eq!(
        err.to_string(),
        "host array has 61 floats but the stream (or domain) needs exactly 60"
    );
}

#[test]
fn bad_shapes_are_shape_errors() {
    let ctx = common::context(Profile::Gl33Core, None);
    let float = ElementFormat::scalar(1).unwrap();
    for shape in [&[][..], &[0], &[3, 0], &[1, 2, 3, 4, 5]] {
        assert!(
            matches!(
                Stream::new(&ctx, float.clone(), shape),
                Err(StoreError::Invalid(StreamError::Shape(_)))
            ),
            "{shape:?}"
        );
    }
}

#[test]
fn bad_texture_requests_are_errors() {
    let ctx = common::context(Profile::Gl33Core, Some(64));
    assert!(matches!(
        Texture::new(&ctx, 65, 1, 4),
        Err(GlError::InvalidArgument(_))
    ));
    assert!(matches!(
        Texture::new(&ctx, 0, 1, 4),
        Err(GlError::InvalidArgument(_))
    ));
    assert!(matches!(
        Texture::new(&ctx, 8, 8, 5),
        Err(GlError::InvalidArgument(_))
    ));
    let texture = Texture::new(&ctx, 8, 8, 3).unwrap();
    let rect = |x, y, width, height| TexelRect {
        x,
        y,
        width,
        height,
    };
    assert!(matches!(
        texture.read(rect(4, 4, 5, 1)),
        Err(GlError::InvalidArgument(_))
    ));
    assert!(matches!(
        texture.read(rect(0, 0, 0, 1)),
        Err(GlError::InvalidArgument(_))
    ));
    assert!(matches!(
        texture.upload(rect(0, 0, 2, 2), &[0.0; 11]),
        Err(GlError::InvalidArgument(_))
    ));
    texture
        .upload(
            rect(1, 2, 2, 2),
            &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.],
        )
        .unwrap();
    assert_eq!(texture.read(rect(2, 3, 1, 1)).unwrap(), vec![10., 11., 12.]);
    assert!(matches!(
        ctx.framebuffer_for(&[]),
        Err(GlError::InvalidArgument(_))
    ));
}

#[test]
fn too_many_render_targets_is_unsupported() {
    let ctx = brook_texture_streams::GlContext::headless(brook_texture_streams::ContextOptions {
        max_draw_buffers: Some(2),
        ..Default::default()
    })
    .unwrap();
    let textures: Vec<Texture> = (0..3)
        .map(|_| Texture::new(&ctx, 4, 4, 1).unwrap())
        .collect();
    let all: Vec<&Texture> = textures.iter().collect();
    assert!(matches!(
        ctx.framebuffer_for(&all),
        Err(GlError::Unsupported(_))
    ));
    assert!(ctx.framebuffer_for(&all[..2]).is_ok());
}

#[test]
fn textures_of_another_context_are_refused() {
    let first = common::context(Profile::Gl33Core, None);
    let second = common::context(Profile::Gl33Core, None);
    let foreign = Texture::new(&second, 4, 4, 1).unwrap();
    assert!(matches!(
        first.framebuffer_for(&[&foreign]),
        Err(GlError::InvalidArgument(_))
    ));
    assert!(!Rc::ptr_eq(&first, &second));
}
