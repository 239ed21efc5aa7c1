//! The hand-written GL sum the linear-algebra applications share: a ping-pong chain of
//! passes, each adding up a block of `K` texels per row (and, for a total, `K` rows) into one
//! texel of a smaller texture, until the rows (or the whole texture) are one texel each.
//!
//! A total folds rows only in its first pass, so that the heavy pass has many fragments (see
//! [`Fold::new`]); later passes fold `K × K` blocks.
//!
//! The first pass reads its texels through a GLSL `float load(ivec2 t)` the application
//! supplies, so it can fuse the map in front of the sum (`|x|` for SASUM, `A·x` for SGEMV), as
//! a GL programmer writing the sum by hand would; later passes add plain partial sums.

use std::rc::Rc;

use brook::texture_streams::GlContext;

use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

/// Texels folded per dimension per pass. 1024 columns take 1024 → 64 → 4 → 1; a larger block
/// means fewer passes but longer loops, and on llvmpipe the two balance near 16.
const K: usize = 16;

/// What every fold pass declares, before the pass's `load`.
const HEADER: &str = "
uniform sampler2D src;
uniform ivec2 k;
uniform ivec2 size;
out float sum;
";

/// The fold itself: block `k` of `src` (`size` texels) starting at this fragment's texel × k.
const MAIN: &str = "
void main() {
    ivec2 base = ivec2(gl_FragCoord.xy) * k;
    ivec2 end = min(base + k, size);
    float s = 0.0;
    for (int y = base.y; y < end.y; y++) {
        for (int x = base.x; x < end.x; x++) {
            s += load(ivec2(x, y));
        }
    }
    sum = s;
}
";

/// A plain partial sum.
const PLAIN_LOAD: &str = "float load(ivec2 t) { return texelFetch(src, t, 0).r; }\n";

/// Whether the fold adds up each row or the whole texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// Each row to one texel: a texture one texel wide.
    Rows,
    /// Everything to one texel.
    All,
}

/// The shaders and the intermediate textures of one fold of a `width × height` texture.
pub struct Fold {
    first: Shader,
    rest: Shader,
    /// Each pass's block and output texture, in order.
    passes: Vec<([i32; 2], Texture)>,
    size: [i32; 2],
}

impl Fold {
    /// A fold of a `width × height` texture whose first pass reads through `load` (GLSL
    /// defining `float load(ivec2 t)`; it may read `src` and samplers it declares itself).
    pub fn new(
        ctx: &Rc<GlContext>,
        width: usize,
        height: usize,
        extent: Extent,
        load: &str,
    ) -> Result<Fold, AppError> {
        let shader = |load: &str| Shader::fragment(ctx, &format!("{HEADER}{load}{MAIN}"));
        let mut passes = Vec::new();
        let (mut w, mut h) = (width, height);
        while w > 1 || (extent == Extent::All && h > 1) {
            let kx = K.min(w);
            // A total's first pass folds rows only: a K × K block would leave a 1000² input
            // 63 × 63 fragments, one 64 × 64 tile, which llvmpipe shades on one thread, while
            // 63 × 1000 spreads over every core. Later passes are small either way.
            let first = passes.is_empty();
            let ky = if extent == Extent::All && !first {
                K.min(h)
            } else {
                1
            };
            (w, h) = (w.div_ceil(kx), h.div_ceil(ky));
            passes.push(([kx as i32, ky as i32], glkit::texture(ctx, w, h, 1, None)?));
        }
        if passes.is_empty() {
            // One column already: a single pass copies it through `load`.
            passes.push(([1, 1], glkit::texture(ctx, w, h, 1, None)?));
        }
        Ok(Fold {
            first: shader(load)?,
            rest: shader(PLAIN_LOAD)?,
            passes,
            size: [width as i32, height as i32],
        })
    }

    /// Runs every pass on `src`, the first binding `samplers` too; returns the texture that
    /// holds the sums (one texel per row, or one texel).
    pub fn run(
        &self,
        src: &Texture,
        samplers: &[(&'static str, &Texture)],
    ) -> Result<&Texture, AppError> {
        let mut input = src;
        let mut size = self.size;
        for (i, (k, output)) in self.passes.iter().enumerate() {
            let mut bound = vec![("src", input)];
            if i == 0 {
                bound.extend_from_slice(samplers);
            }
            Draw {
                shader: if i == 0 { &self.first } else { &self.rest },
                samplers: &bound,
                uniforms: &[("k", Uniform::IVec2(*k)), ("size", Uniform::IVec2(size))],
                targets: &[output],
                viewport: None,
            }
            .cover()?;
            input = output;
            size = [output.width() as i32, output.height() as i32];
        }
        Ok(self.result())
    }

    /// The texture the last run left its sums in.
    pub fn result(&self) -> &Texture {
        &self.passes[self.passes.len() - 1].1
    }
}
