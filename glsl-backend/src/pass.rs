//! What a generated pass is for the executor: the shader text and how to bind it — which
//! output member each colour output stores, which input member each texture unit holds, and
//! what each uniform is set to.

/// One draw: a complete fragment shader and how to bind it.
#[derive(Debug, Clone, PartialEq)]
pub struct PassProgram {
    /// The fragment shader's GLSL (the vertex shader is the shared covering triangle's).
    pub fragment: String,
    /// Colour output `k` (`layout(location = k)`) stores this output member.
    pub outputs: Vec<MemberRef>,
    /// Texture unit `k` holds this input member, read through the named sampler.
    pub samplers: Vec<SamplerSlot>,
    /// Every non-sampler uniform the shader declares.
    pub uniforms: Vec<UniformSlot>,
    /// The colour output (after the stream outputs) holding, per element, the Brook line of a
    /// loop the driver cut short, 0 if none (`loops.rs`): the executor binds a float texture
    /// there and fails the call if any element is not 0.
    pub loop_status: Option<u32>,
}

/// A member of a parameter's element: 0 for non-struct elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemberRef {
    /// The parameter, by position.
    pub param: u32,
    /// The member of its element type, in declaration order.
    pub member: u32,
}

/// A sampler the shader declares and the input member its texture unit must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplerSlot {
    /// The sampler's name in the GLSL.
    pub uniform: String,
    /// The member whose texture is bound there.
    pub source: MemberRef,
}

/// A non-sampler uniform the shader declares and what to set it to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniformSlot {
    /// The uniform's name in the GLSL.
    pub uniform: String,
    /// What the executor sets it to for a call.
    pub value: UniformValue,
}

/// What a uniform holds; the pass executor fills it from the call's arguments and layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UniformValue {
    /// The value of a constant parameter, with the parameter's type.
    Constant(u32),
    /// Member `member` of a struct constant parameter `param` (GL has no location for a
    /// whole struct uniform, so each member is a uniform of its own).
    ConstantMember {
        /// The constant parameter, by position.
        param: u32,
        /// The member, in declaration order.
        member: u32,
    },
    /// `ivec4` extents of a parameter's stream as the kernel sees it (a domain's shape when
    /// passed as a domain), `.x` the last dimension, 1 where unused.
    Extent(u32),
    /// `int` texture width of a parameter's stream layout.
    Width(u32),
    /// `ivec4` extents of the whole stream behind a domain parameter (its texture's layout).
    StreamExtent(u32),
    /// `ivec4` lower corner of a domain parameter, in the whole stream.
    Lo(u32),
    /// `ivec4` extents of the output streams (all outputs share one shape; the domain's shape
    /// when the outputs are domains).
    OutputExtent,
    /// `int` texture width of the output streams' layout.
    OutputWidth,
    /// `ivec4` extents of the whole output streams behind an output domain.
    OutputStreamExtent,
    /// `ivec4` lower corner of the output domain, in the whole streams.
    OutputLo,
    /// `ivec4` extents the input parameter `param` is implicitly resized from — the outputs'
    /// (`scale_from` `None`) or parameter `scale_from`'s — each divided by its gcd with the
    /// input's extent along that component (`brook_core::index::resize_ratio`).
    ResizeFrom {
        /// The resized input (a stream or an iterator).
        param: u32,
        /// The parameter whose extents it is resized from; `None`: the outputs'.
        scale_from: Option<u32>,
    },
    /// `ivec4` extents of input parameter `param`, each divided by the same gcd as in
    /// [`UniformValue::ResizeFrom`].
    ResizeTo {
        /// The resized input (a stream or an iterator).
        param: u32,
        /// The parameter whose extents it is resized from; `None`: the outputs'.
        scale_from: Option<u32>,
    },
    /// `vec4` start of an iterator parameter.
    IterStart(u32),
    /// `vec4` step of an iterator parameter: its value's change from one element to the next.
    IterStep(u32),
    /// `int`, reduction passes only: input elements per output block along the reduced
    /// dimension (the block one element of the reduction's target reduces).
    ReduceBlock,
    /// `int`, reduction passes only: partial results per block after this pass.
    ReduceGroups,
    /// `vec2` texture size of the output, scatter passes only: where its points land.
    OutputSize,
    /// `int`, vout scan and compaction passes only: elements of the level read (up-sweep) or
    /// of the call (compaction).
    ScanLength,
    /// `int`, vout scan and compaction passes only: texture width of the texture on unit k.
    SampledWidth(u32),
    /// `int`, write-mask passes and kernels with loops the data ends: elements of the stream
    /// written (texels past them are padding).
    ElementCount,
    /// `bool`, write-mask passes only: every element on (a write query without a mask).
    MaskAll,
}
