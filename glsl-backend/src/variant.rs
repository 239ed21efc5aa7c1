//! What a shader is specialised on, besides the kernel itself.
//!
//! The generated GLSL differs only in *how* each parameter is reached, not in the sizes of the
//! streams: extents are uniforms, and so are texture widths, but for a wrapped texture whose
//! width is a power of two ([`Wrap`]), which the program knows as a constant. So one compiled
//! program serves every call whose parameters fall in the same access classes, and the
//! variant is a cheap cache key.

/// How a kernel parameter is reached in the fragment shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// An input stream of exactly the output's shape: its element lives at this fragment's own
    /// texel (both use the same layout), so it is one `texelFetch(…, gl_FragCoord)` — the
    /// hand-written GPGPU idiom, with no address arithmetic.
    AtFragment,
    /// An input stream of another shape: the output index is resized to the input's shape
    /// (Brook's repeat/stride rule) and placed at the input's texel.
    Resized(Resize, Placement),
    /// A gather from a direct layout (rank ≤ 2, stored as-is): the index is the texel.
    GatherDirect {
        /// The gathered stream's rank (the index has as many components).
        rank: u8,
    },
    /// A gather from a wrapped layout: the index is linearised and translated.
    GatherTranslated {
        /// The gathered stream's rank (the index has as many components).
        rank: u8,
        /// How a linear position finds its texel.
        wrap: Wrap,
    },
    /// An input passed as a domain `a.domain(lo, hi)`: the sub-stream is an input of the
    /// domain's shape whose element 0 is `lo`, so the (resized) index is offset by `lo` and
    /// placed through the whole stream's layout.
    Domain(Resize, Placement),
    /// A gather from a domain: Brook's index rule clamps to the domain, then offset by `lo`.
    GatherDomain {
        /// The gathered stream's rank (the index has as many components).
        rank: u8,
        /// Where the whole stream's elements lie in its texture.
        placement: Placement,
    },
    /// A 1D iterator: component k is `start.k + i * step.k` at the (resized) element i.
    Iter1(Resize),
    /// An N-D (2..4) iterator of N components: `.x` follows the column, `.y` the row, `.z`
    /// and `.w` the dimensions before.
    IterNd(Resize),
    /// Constants and outputs: nothing to fetch.
    Value,
}

/// Where a stream's elements lie in its texture (`brook_texture_streams::Layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Rank ≤ 2 and stored as-is: element (row, column) is texel (column, row), so an index's
    /// `.xy` is its texel.
    Direct,
    /// Wrapped row by row into a texture of another width: the index is linearised and
    /// translated.
    Translated(Wrap),
}

/// How a shader finds the texel of a linear position in a wrapped layout, from its texture
/// width `W`: `(L mod W, L div W)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// `W = 2^k`, `k` a constant of the program: a mask and a shift, which every driver
    /// vectorises (llvmpipe divides integers one lane at a time). Translated layouts of
    /// power-of-two element counts all have such widths, and a stream's width is at most
    /// 2¹⁵, so a parameter has at most 16 of these variants.
    PowerOfTwo(u8),
    /// Any other width, a uniform: an integer division and a remainder per address, but one
    /// program for streams of every size.
    Uniform,
}

impl Wrap {
    /// How a texture `width` texels wide is addressed.
    pub fn of(width: u32) -> Wrap {
        if width.is_power_of_two() {
            Wrap::PowerOfTwo(width.trailing_zeros() as u8)
        } else {
            Wrap::Uniform
        }
    }
}

/// Brook's implicit resize from the output's shape to an input's, specialised per index
/// component (`.x` = last dimension first) on how the two extents compare.
///
/// Most resizes repeat or drop whole dimensions (a row vector over a matrix, a column of row
/// sums): those components need no arithmetic at all, and only the others divide. Integer
/// division is what makes resized inputs expensive on GPUs without it (llvmpipe does it one
/// lane at a time), so the class is part of the variant; the extents stay uniforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Resize(pub [Axis; 4]);

/// How one output index component `i` becomes the input's, `⌊i · in / out⌋`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Equal extents (1 beyond both ranks): the index itself.
    Same,
    /// The input or the output has extent 1 along it: the index is 0.
    Zero,
    /// Other extents: `⌊i · in / out⌋` in integers.
    Scaled,
}

impl Resize {
    /// The resize from an output of shape `out` to an input of shape `input` (outermost
    /// dimension first). Ranks may differ: the smaller shape is left-padded with extent-1
    /// dimensions, so the trailing dimensions — the columns — line up.
    pub fn between(out: &[usize], input: &[usize]) -> Resize {
        // Extent of component k (.x = last dimension), 1 beyond the rank.
        let extent =
            |shape: &[usize], k: usize| shape.len().checked_sub(k + 1).map_or(1, |d| shape[d]);
        Resize(std::array::from_fn(|k| {
            match (extent(out, k), extent(input, k)) {
                (o, i) if o == i => Axis::Same,
                (1, _) | (_, 1) => Axis::Zero,
                _ => Axis::Scaled,
            }
        }))
    }

    /// Whether the input's index is the output's.
    pub fn is_identity(self) -> bool {
        self.0.iter().all(|a| *a == Axis::Same)
    }
}

/// One specialisation of a kernel: the access class of every parameter, in parameter order,
/// and how the draw covers the outputs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Variant {
    /// How each parameter is reached, in parameter order.
    pub params: Vec<Access>,
    /// Which part of the outputs the draw writes.
    pub output: OutputRegion,
}

/// Which part of the output streams a call writes (000 §5.5): the bounds themselves are
/// uniforms, so one program serves every domain of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputRegion {
    /// Every element of a wrapped layout of `rank` dimensions: the draw covers the whole
    /// texture, and the shader turns the fragment's linear position back into the element
    /// through the output's shape (a 1D stream's element is its linear position).
    Whole {
        /// The output streams' rank.
        rank: u8,
    },
    /// Every element of a direct layout (rank ≤ 2, stored as-is): the draw covers the whole
    /// texture and the fragment's texel is the element — no integer division per fragment,
    /// which costs llvmpipe (and any GPU without vector integer division) dearly.
    Direct,
    /// A domain of a direct layout, which is one rectangle of texels: the executor sets the
    /// viewport to it, and the shader only offsets the fragment's texel by the domain's corner.
    Viewport,
    /// A domain of a translated layout, scattered over the texture's rows: the draw covers the
    /// whole texture and the shader discards the fragments outside the domain (the paper's
    /// predication), leaving those elements unchanged.
    Masked {
        /// The output streams' rank.
        rank: u8,
    },
}

/// Target facts that change the generated text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The GLSL dialect the driver takes.
    pub profile: Profile,
    /// Colour outputs one pass may write (`GL_MAX_DRAW_BUFFERS`, possibly lowered); a kernel with
    /// more output members is split into several passes.
    pub max_draw_buffers: u32,
    /// Loop iterations a shader invocation may make in all before the driver ends its loops
    /// (llvmpipe: 65,535), if the driver caps them: kernels whose loops could go past it
    /// check at run time whether they did (`loops.rs`).
    pub loop_cap: Option<u32>,
    /// Brook's accurate contract (`precise`, hidden constants, Brook's math library) or the
    /// driver's fast math (`Runtime::set_fast_math`).
    pub math: brook_ir::MathMode,
}

/// The GLSL dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// `#version 330 core`, desktop OpenGL 3.3 and later.
    Gl33Core,
    /// `#version 300 es`, OpenGL ES 3.0 and later.
    Es30,
    /// `#version 320 es`, OpenGL ES 3.2 and later: [`Profile::Es30`]'s shaders with
    /// `precise`.
    Es32,
}

impl Profile {
    /// The first lines of every shader of this dialect: the version, then `brook_precise`,
    /// which every Brook variable is declared with (`lower/`): GLSL's `precise` where the
    /// dialect has it (GLSL 4.00's, reached from 3.30 through `GL_ARB_gpu_shader5`; ES 3.20),
    /// else nothing. Without `precise` a compiler may apply identities that hold for finite
    /// numbers only (`x - x` → 0 for an infinite `x`, `a * b + c` fused); the special-values
    /// table of `docs/semantics.md` says where that remains.
    pub fn header(self) -> &'static str {
        match self {
            Profile::Gl33Core => concat!(
                "#version 330 core\n",
                "#extension GL_ARB_gpu_shader5 : enable\n",
                "#ifdef GL_ARB_gpu_shader5\n#define brook_precise precise\n",
                "#else\n#define brook_precise\n#endif\n",
            ),
            Profile::Es30 => concat!(
                "#version 300 es\n#define brook_precise\n",
                "precision highp float;\nprecision highp int;\nprecision highp sampler2D;\n",
            ),
            Profile::Es32 => concat!(
                "#version 320 es\n#define brook_precise precise\n",
                "precision highp float;\nprecision highp int;\nprecision highp sampler2D;\n",
            ),
        }
    }
}
