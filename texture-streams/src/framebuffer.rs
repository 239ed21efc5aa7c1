//! Framebuffer objects over stream textures, and the cache that keeps them.
//!
//! Kernels render into FBOs and readbacks read from them. Making and checking
//! an FBO costs far more than binding one, so [`FramebufferCache`] keeps one per
//! ordered list of textures, keyed by the textures' process-unique ids (ids are
//! never reused, so a key can never silently point at a new texture that got
//! an old GL name). When a texture dies the cache drops every FBO that uses it.

use std::collections::HashMap;

use glow::HasContext;

use crate::check::check_gl;
use crate::error::GlError;
use crate::texture::Texture;

/// Creates an FBO with `textures` at `COLOR_ATTACHMENT0..n`, all enabled as
/// draw buffers, and checks it is complete. Leaves it bound as the draw and
/// read framebuffer. Deletes it again on any failure.
pub(crate) fn create(
    gl: &glow::Context,
    textures: &[glow::Texture],
) -> Result<glow::Framebuffer, GlError> {
    // SAFETY: plain object creation on the current context.
    let framebuffer = unsafe { gl.create_framebuffer() }
        .map_err(|msg| GlError::Unsupported(format!("glGenFramebuffers gave no name: {msg}")))?;
    let attachments: Vec<u32> = (0..textures.len() as u32)
        .map(|k| glow::COLOR_ATTACHMENT0 + k)
        .collect();
    // SAFETY: `framebuffer` and `textures` are live objects of the current context.
    let status = unsafe {
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
        for (&attachment, &texture) in attachments.iter().zip(textures) {
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                attachment,
                glow::TEXTURE_2D,
                Some(texture),
                0,
            );
        }
        gl.draw_buffers(&attachments);
        gl.check_framebuffer_status(glow::FRAMEBUFFER)
    };
    let checked = match check_gl(gl, "attaching textures to a framebuffer") {
        Ok(()) if status == glow::FRAMEBUFFER_COMPLETE => Ok(framebuffer),
        Ok(()) => Err(GlError::FramebufferIncomplete { status }),
        Err(err) => Err(err),
    };
    if checked.is_err() {
        // SAFETY: deleting the object made above.
        unsafe { gl.delete_framebuffer(framebuffer) };
    }
    checked
}

/// FBOs by the ids of their attached textures, in attachment order.
#[derive(Debug, Default)]
pub(crate) struct FramebufferCache {
    entries: HashMap<Vec<u64>, glow::Framebuffer>,
    /// The key being looked up, kept so that a hit (every call but the first) allocates
    /// nothing.
    key: Vec<u64>,
}

impl FramebufferCache {
    /// Binds the cached FBO for `textures` (in attachment order), creating it the first time.
    pub fn bind(
        &mut self,
        gl: &glow::Context,
        textures: &[&Texture],
    ) -> Result<glow::Framebuffer, GlError> {
        self.key.clear();
        self.key.extend(textures.iter().map(|t| t.id()));
        if let Some(&framebuffer) = self.entries.get(self.key.as_slice()) {
            // SAFETY: cached FBOs are live until `forget`/`clear` delete them.
            unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer)) };
            return Ok(framebuffer);
        }
        let raws: Vec<glow::Texture> = textures.iter().map(|t| t.raw()).collect();
        let framebuffer = create(gl, &raws)?;
        self.entries.insert(self.key.clone(), framebuffer);
        Ok(framebuffer)
    }

    /// Deletes every FBO that has texture `id` attached.
    pub fn forget(&mut self, gl: &glow::Context, id: u64) {
        self.entries.retain(|ids, &mut framebuffer| {
            let keep = !ids.contains(&id);
            if !keep {
                // SAFETY: the FBO is owned by this cache and removed from it here.
                unsafe { gl.delete_framebuffer(framebuffer) };
            }
            keep
        });
    }

    /// Deletes every FBO.
    pub fn clear(&mut self, gl: &glow::Context) {
        for (_, framebuffer) in self.entries.drain() {
            // SAFETY: the FBO is owned by this cache and removed from it here.
            unsafe { gl.delete_framebuffer(framebuffer) };
        }
    }

    /// The number of live FBOs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}
