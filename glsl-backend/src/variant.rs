//! What a shader is specialised on, besides the kernel itself.
//!
//! The generated GLSL differs only in *how* each parameter is reached, never in the sizes of the
//! streams: extents and texture widths are uniforms. So one compiled program serves every call
//! whose parameters fall in the same access classes, and the variant is a cheap cache key.

/// How a kernel parameter is reached in the fragment shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// An input stream of exactly the output's shape: its element lives at this fragment's own
    /// texel (both use the same layout), so it is one `texelFetch(…, gl_FragCoord)` — the
    /// hand-written GPGPU idiom, with no address arithmetic.
    AtFragment,
    /// An input stream of another shape: the output index is resized to the input's shape
    /// (Brook's repeat/stride rule) and translated to the input's texel.
    Resized,
    /// A gather whose layout is direct (rank ≤ 2, stored as-is): the index is the texel.
    GatherDirect,
    /// A gather whose layout is wrapped: the index is linearised and translated.
    GatherTranslated,
    /// An input passed as a domain `a.domain(lo, hi)`: the sub-stream is an input of the
    /// domain's shape whose element 0 is `lo`, so the (resized) index is offset by `lo` and
    /// translated through the whole stream's shape.
    Domain,
    /// A gather from a domain: Brook's index rule clamps to the domain, then offset by `lo`.
    GatherDomain,
    /// A 1D iterator: component k is `start.k + i * step.k` at the (resized) element i.
    Iter1,
    /// A 2D `float2` iterator: `.x` follows the column, `.y` the row.
    Iter2,
    /// Constants and outputs: nothing to fetch.
    Value,
}

/// One specialisation of a kernel: the access class of every parameter, in parameter order,
/// and how the draw covers the outputs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Variant {
    pub params: Vec<Access>,
    pub output: OutputRegion,
}

/// Which part of the output streams a call writes (000 §5.5): the bounds themselves are
/// uniforms, so one program serves every domain of a class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OutputRegion {
    /// Every element: the draw covers the whole texture, whose texels the shader maps back to
    /// elements (right for every layout).
    #[default]
    Whole,
    /// Every element of a direct layout (rank ≤ 2, stored as-is): texel `(x, y)` is the
    /// element at column `x`, row `y`, so the output index is the fragment's coordinates with
    /// no division — what a hand-written shader does.
    WholeDirect,
    /// A domain of a direct layout, which is one rectangle of texels: the executor sets the
    /// viewport to it, and the shader offsets the fragment's coordinates by the domain's
    /// corner.
    Viewport,
    /// A domain of a translated layout, scattered over the texture's rows: the draw covers the
    /// whole texture and the shader discards the fragments outside the domain (the paper's
    /// predication), leaving those elements unchanged.
    Masked,
}

/// Target facts that change the generated text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub profile: Profile,
    /// Colour outputs one pass may write (`GL_MAX_DRAW_BUFFERS`, possibly lowered); a kernel with
    /// more output members is split into several passes.
    pub max_draw_buffers: u32,
}

/// The GLSL dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// `#version 330 core`, desktop OpenGL 3.3 and later.
    Gl33Core,
    /// `#version 300 es`, OpenGL ES 3.0 and later.
    Es30,
}

impl Profile {
    /// The first lines of every shader of this dialect.
    pub fn header(self) -> &'static str {
        match self {
            Profile::Gl33Core => "#version 330 core\n",
            Profile::Es30 => {
                "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n"
            }
        }
    }
}
