//! Shared by the GL tests: each test makes its own headless context.

// Each test crate compiles this module and uses only part of it.
#![allow(dead_code)]

use std::rc::Rc;

use brook_texture_streams::{ContextOptions, GlContext, Profile};

/// A headless context of `profile` whose textures are at most `max_texture_size` wide.
pub fn context(profile: Profile, max_texture_size: Option<u32>) -> Rc<GlContext> {
    GlContext::headless(ContextOptions {
        profile,
        max_texture_size,
        max_draw_buffers: None,
    })
    .expect("a headless GL context (Mesa llvmpipe through EGL)")
}

/// `n` distinct floats, negative and fractional but exact in f32, so a
/// misplaced or rounded element cannot go unnoticed.
pub fn distinct_values(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.25 - 1000.5).collect()
}
