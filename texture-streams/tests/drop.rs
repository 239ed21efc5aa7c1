//! GL objects go away with their Rust owners.

mod common;

use brook_texture_streams::{
    Domain, ElementFormat, GlContext, Profile, Stream, TexelRect, Texture,
};
use glow::HasContext;

/// Whether the GL names still refer to live objects.
fn alive(ctx: &GlContext, texture: glow::Texture, framebuffer: glow::Framebuffer) -> (bool, bool) {
    // SAFETY: queries on the current context; names need not be live.
    unsafe {
        (
            ctx.gl().is_texture(texture),
            ctx.gl().is_framebuffer(framebuffer),
        )
    }
}

#[test]
fn dropped_streams_take_their_textures_and_framebuffers() {
    let ctx = common::context(Profile::Gl33Core, None);
    let float4 = ElementFormat::scalar(4).unwrap();
    let mut out = vec![0.0; 4];
    let mut dropped = Vec::new();
    for i in 0..200 {
        let mut stream = Stream::new(&ctx, float4.clone(), &[256, 256]).unwrap();
        let domain = Domain::new(&[i, 3], &[i + 1, 4]).unwrap();
        let value = [i as f32, 1.0, 2.0, 3.0];
        stream.read_domain(&domain, &value).unwrap();
        stream.write_domain(&domain, &mut out).unwrap();
        assert_eq!(out, value);
        assert_eq!(ctx.cached_framebuffers(), 1);
        let texture = &stream.textures()[0];
        let names = (texture.raw(), ctx.framebuffer_for(&[texture]).unwrap());
        assert_eq!(alive(&ctx, names.0, names.1), (true, true));
        dropped.push(names);
    }
    assert_eq!(ctx.cached_framebuffers(), 0);
    for (texture, framebuffer) in dropped {
        assert_eq!(alive(&ctx, texture, framebuffer), (false, false));
    }
    assert_eq!(ctx.check_error("after 200 streams"), Ok(()));
}

#[test]
fn a_framebuffer_goes_when_any_of_its_textures_goes() {
    let ctx = common::context(Profile::Gl33Core, None);
    let a = Texture::new(&ctx, 4, 4, 1).unwrap();
    let b = Texture::new(&ctx, 4, 4, 2).unwrap();
    let c = Texture::new(&ctx, 4, 4, 4).unwrap();
    let ab = ctx.framebuffer_for(&[&a, &b]).unwrap();
    assert_eq!(ctx.framebuffer_for(&[&a, &b]).unwrap(), ab, "cached");
    ctx.framebuffer_for(&[&b, &a]).unwrap();
    ctx.framebuffer_for(&[&c]).unwrap();
    assert_eq!(ctx.cached_framebuffers(), 3);
    let a_name = a.raw();
    drop(a);
    assert_eq!(ctx.cached_framebuffers(), 1);
    assert_eq!(alive(&ctx, a_name, ab), (false, false));
    let whole = TexelRect {
        x: 0,
        y: 0,
        width: 4,
        height: 4,
    };
    b.read(whole).unwrap();
    assert_eq!(ctx.cached_framebuffers(), 2);
    drop(c);
    drop(b);
    assert_eq!(ctx.cached_framebuffers(), 0);
}

#[test]
fn two_contexts_on_one_thread_keep_their_objects_apart() {
    let up = [1., 2., 3., 4., 5., 6., 7., 8.];
    let down = [8., 7., 6., 5., 4., 3., 2., 1.];
    let float = ElementFormat::scalar(1).unwrap();
    // Each stream is made while its own context is current, so both get the
    // same GL texture name, each in its own context.
    let first = common::context(Profile::Gl33Core, None);
    let mut a = Stream::new(&first, float.clone(), &[8]).unwrap();
    let second = common::context(Profile::Gl33Core, None);
    let mut b = Stream::new(&second, float, &[8]).unwrap();
    assert_eq!(a.textures()[0].raw(), b.textures()[0].raw());
    a.read(&up).unwrap();
    b.read(&down).unwrap();
    let mut out = [0.0; 8];
    a.write(&mut out).unwrap();
    assert_eq!(out, up);
    b.write(&mut out).unwrap();
    assert_eq!(out, down);
    // Dropping `a` deletes its texture in `first`; `b` must still be intact.
    drop(a);
    b.write(&mut out).unwrap();
    assert_eq!(out, down);
    drop(first);
    b.write(&mut out).unwrap();
    assert_eq!(out, down);
}
