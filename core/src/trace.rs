//! The pass trace: what each Brook call became on a backend, pass by pass, as plain data.
//!
//! A GL backend records one [`PassTrace`] per draw, copy or clear it issues (the list it
//! encoded and executed), a compute backend one per dispatch; programs and resources are
//! named by number (GL object names, buffer ids), so nothing here belongs to a graphics API.
//! People learning the pipeline read it (every entry prints readably); tests assert the pass
//! structure with it; the pipeline explorer draws it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// One stream operation a backend ran for the user.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TraceEntry {
    /// A kernel call (its vouts' packing follows as [`TraceEntry::Vout`] entries).
    Kernel(CallTrace),
    /// The packing of one vout of the kernel call before it.
    Vout(VoutTrace),
    /// A reduction, to a value or a stream.
    Reduce(CallTrace),
    /// `streamScatterOp`.
    Scatter(CallTrace),
    /// `streamGatherOp`.
    GatherOp(CallTrace),
    /// `streamSetWriteMask`: the mask drawn where later masked calls test it.
    WriteMask(CallTrace),
    /// `streamSwap`: two streams exchanged their storage (resource ids, member order).
    Swap {
        /// The first stream's resources before the swap, one per member.
        first: Vec<u32>,
        /// The second stream's, which the first now holds.
        second: Vec<u32>,
    },
}

impl TraceEntry {
    /// Every pass of the entry, in the order issued (none for a swap).
    pub fn passes(&self) -> &[PassTrace] {
        match self {
            TraceEntry::Kernel(c)
            | TraceEntry::Reduce(c)
            | TraceEntry::Scatter(c)
            | TraceEntry::GatherOp(c)
            | TraceEntry::WriteMask(c) => &c.passes,
            TraceEntry::Vout(v) => &v.passes,
            TraceEntry::Swap { .. } => &[],
        }
    }
}

/// What one call became.
#[derive(Debug, Clone, PartialEq)]
pub struct CallTrace {
    /// The Brook function (kernel, reduce function) or the operation (`streamScatterOp add`).
    pub function: String,
    /// The 1-based line of the function in its Brook source, where there is one.
    pub source_line: Option<usize>,
    /// How the call was specialised: the shader variant, the reduction's shapes.
    pub variant: String,
    /// When this call compiled its programs (the first of its kind: a driver's link, a JIT's
    /// compile), how long that took; `None` when it reused them.
    pub compiled: Option<Duration>,
    /// Outputs that were also inputs: drawn into scratch storage, then swapped in.
    pub scratch: Vec<ScratchTrace>,
    /// Every pass the call issued, in order.
    pub passes: Vec<PassTrace>,
}

/// How one vout's pushes were packed into its stream after the kernel's passes.
#[derive(Debug, Clone, PartialEq)]
pub struct VoutTrace {
    /// The kernel whose call pushed the values.
    pub kernel: String,
    /// The vout parameter.
    pub vout: String,
    /// Elements of the call (each pushed 0 to N values).
    pub elements: usize,
    /// Values pushed in all.
    pub pushed: usize,
    /// Up-sweep levels, down-sweep levels, compaction per member.
    pub passes: Vec<PassTrace>,
}

/// An output that was also an input of its call.
#[derive(Debug, Clone, PartialEq)]
pub struct ScratchTrace {
    /// The parameter that was both read and written.
    pub param: String,
    /// The stream's resources before the call (freed after it) and the scratch ones that hold
    /// the result and now belong to the stream.
    pub old: Vec<u32>,
    /// The scratch resources holding the result, now the stream's.
    pub new: Vec<u32>,
}

/// One pass: a draw, a dispatch, a copy or a clear.
#[derive(Debug, Clone, PartialEq)]
pub struct PassTrace {
    /// What the pass does, e.g. `pass 1 of 2`, `up-sweep to level 3 (13 elements)`.
    pub label: String,
    /// The program it runs; `None` for copies and clears.
    pub program: Option<ProgramTrace>,
    /// Draw buffer (or storage binding) k: (what it holds, resource id).
    pub targets: Vec<(String, u32)>,
    /// Texture unit (or binding) k: (the sampler or binding name, resource id).
    pub inputs: Vec<(String, u32)>,
    /// Every uniform set, with its value.
    pub uniforms: Vec<(String, UniformData)>,
    /// x, y, width, height of the region drawn, in texels.
    pub viewport: [i32; 4],
    /// What the pass issues: a covering triangle, points, a dispatch, a copy or a clear.
    pub draw: Draw,
    /// Fixed-function blending into the targets.
    pub blend: Option<Blend>,
    /// The depth buffer: the write mask tested, or drawn.
    pub depth: Option<Depth>,
    /// Whether the pass's samples were counted into an open write query.
    pub counted: bool,
    /// Whether the shader discards the fragments outside an output domain (a domain of a
    /// wrapped layout, not one rectangle of the texture).
    pub discards_outside_domain: bool,
    /// For a pass placing a scatter's elements on the destination (its first target) where
    /// their indices say: which inputs hold the indices and the order.
    pub scatter: Option<ScatterInputs>,
}

/// The inputs of a pass that places each element of a scatter where its index says
/// (`streamScatterOp`, and a gather-op's update): point `k` of the pass is element
/// `order[k]` (element `k` without an order), which lands on the destination element its
/// index names (rounded and clamped like a gather).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScatterInputs {
    /// The input holding each element's index.
    pub index: usize,
    /// The input holding which element each point draws, when the points are drawn in an
    /// order other than the elements' (a round of a colliding scatter).
    pub order: Option<usize>,
}

/// A program as the trace names it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramTrace {
    /// The backend's name for it (a GL program name).
    pub id: u32,
    /// Its source, shared by every pass that runs it.
    pub source: Arc<ShaderSource>,
}

/// The text of a program's stages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShaderSource {
    /// A vertex and a fragment shader (GLSL).
    Raster {
        /// The vertex shader's text.
        vertex: String,
        /// The fragment shader's text, where the kernel's body is.
        fragment: String,
    },
    /// A compute shader.
    Compute(String),
}

/// What a pass issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draw {
    /// One triangle covering the viewport: a fragment per output texel.
    CoveringTriangle,
    /// Points `first..first + count`, each placed by its vertex shader (scatter).
    Points {
        /// The first point drawn (an element index of the scattered stream).
        first: usize,
        /// How many points.
        count: usize,
    },
    /// A compute dispatch of this many workgroups.
    Dispatch {
        /// Workgroups along x, y and z.
        workgroups: [u32; 3],
    },
    /// A copy of the input into the target (no program).
    Copy,
    /// The target set to zero (no program).
    Clear,
}

/// Fixed-function blending of a pass: how a fragment combines with the target's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blend {
    /// Each fragment added to the target's value (a scatter with `add`).
    Add,
    /// The smaller of fragment and target, per component.
    Min,
    /// The larger of fragment and target, per component.
    Max,
}

/// How a pass uses a depth buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Fragments where the mask (depth texture `texture`) is off fail the depth test.
    Tested {
        /// The mask's depth texture.
        texture: u32,
    },
    /// The pass writes the mask's depth texture `texture`.
    Written {
        /// The mask's depth texture.
        texture: u32,
    },
}

/// The value one uniform is set to.
#[derive(Debug, Clone, PartialEq)]
pub enum UniformData {
    /// `int`, `ivec2`..`ivec4` (and `bool`s, as GL sets them).
    Ints(Vec<i32>),
    /// `float`, `vec2`..`vec4`.
    Floats(Vec<f32>),
    /// A GLSL `matRxC` (R columns of C), column-major: the generator's form of Cg's `floatRxC`,
    /// whose row-major data it is.
    Matrix {
        /// R: the rows of Cg's `floatRxC`, the columns of the GLSL matrix.
        rows: u8,
        /// C: the columns of Cg's `floatRxC`, the rows of the GLSL matrix.
        cols: u8,
        /// R × C floats, column-major.
        data: Vec<f32>,
    },
}

impl fmt::Display for UniformData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, items: Vec<String>| {
            if items.len() == 1 {
                write!(f, "{}", items[0])
            } else {
                write!(f, "({})", items.join(", "))
            }
        };
        match self {
            UniformData::Ints(v) => list(f, v.iter().map(|x| x.to_string()).collect()),
            UniformData::Floats(v) => list(f, v.iter().map(|x| format!("{x:?}")).collect()),
            UniformData::Matrix { rows, cols, data } => {
                write!(f, "mat{rows}x{cols}")?;
                list(f, data.iter().map(|x| format!("{x:?}")).collect())
            }
        }
    }
}

/// Each stage under a heading, as a learner reads it.
impl fmt::Display for ShaderSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShaderSource::Raster { vertex, fragment } => {
                writeln!(f, "── vertex shader ──\n{vertex}")?;
                write!(f, "── fragment shader ──\n{fragment}")
            }
            ShaderSource::Compute(text) => write!(f, "── compute shader ──\n{text}"),
        }
    }
}

impl CallTrace {
    /// The viewport of the first pass.
    pub fn viewport(&self) -> Option<[i32; 4]> {
        self.passes.first().map(|p| p.viewport)
    }
}

impl fmt::Display for TraceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceEntry::Kernel(c) => c.write(f, "kernel"),
            TraceEntry::Reduce(c) => c.write(f, "reduction"),
            TraceEntry::Scatter(c) | TraceEntry::GatherOp(c) | TraceEntry::WriteMask(c) => {
                c.write(f, "")
            }
            TraceEntry::Vout(v) => v.fmt(f),
            TraceEntry::Swap { first, second } => {
                writeln!(f, "streamSwap: textures {first:?} <-> {second:?}")
            }
        }
    }
}

impl fmt::Display for CallTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "kernel")
    }
}

impl CallTrace {
    /// The call under a heading (`kernel \`k\``, or the operation's own name), then its passes.
    fn write(&self, f: &mut fmt::Formatter<'_>, what: &str) -> fmt::Result {
        let cache = match self.compiled {
            Some(time) => format!("compiled now, in {time:.1?}"),
            None => "from the program cache".into(),
        };
        let name = if what.is_empty() {
            self.function.clone()
        } else {
            format!("{what} `{}`", self.function)
        };
        let line = self
            .source_line
            .map_or(String::new(), |l| format!(", Brook line {l}"));
        writeln!(
            f,
            "{name}: {} pass(es), variant {} ({cache}{line})",
            self.passes.len(),
            self.variant
        )?;
        for s in &self.scratch {
            writeln!(
                f,
                "  in place `{}`: copied textures {:?} to scratch {:?}, drew there, then swapped",
                s.param, s.old, s.new
            )?;
        }
        for p in &self.passes {
            fmt::Display::fmt(p, f)?;
        }
        Ok(())
    }
}

impl fmt::Display for VoutTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "vout `{}` of kernel `{}`: {} elements pushed {} values, packed in {} passes",
            self.vout,
            self.kernel,
            self.elements,
            self.pushed,
            self.passes.len()
        )?;
        for p in &self.passes {
            fmt::Display::fmt(p, f)?;
        }
        Ok(())
    }
}

/// The pass under its label, then what it bound, one line each.
impl fmt::Display for PassTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, w, h] = self.viewport;
        let program = self
            .program
            .as_ref()
            .map_or(String::new(), |p| format!("program {}, ", p.id));
        let draw = match self.draw {
            Draw::CoveringTriangle => "one covering triangle".to_string(),
            Draw::Points { first, count } => format!("points {first}..{}", first + count),
            Draw::Dispatch {
                workgroups: [a, b, c],
            } => format!("dispatch {a}x{b}x{c}"),
            Draw::Copy => "copy".to_string(),
            Draw::Clear => "clear".to_string(),
        };
        write!(
            f,
            "  {}: {program}{draw}, viewport ({x}, {y}) {w}x{h}",
            self.label
        )?;
        if let Some(blend) = self.blend {
            write!(f, ", blending {blend:?}")?;
        }
        match self.depth {
            Some(Depth::Tested { texture }) => write!(f, ", depth-tested against mask {texture}")?,
            Some(Depth::Written { texture }) => write!(f, ", writing mask depth {texture}")?,
            None => {}
        }
        if self.counted {
            write!(f, ", counted by the write query")?;
        }
        if self.discards_outside_domain {
            write!(f, ", discarding texels outside the domain")?;
        }
        writeln!(f)?;
        for (k, (what, tex)) in self.targets.iter().enumerate() {
            writeln!(f, "    draw buffer {k}: `{what}` -> texture {tex}")?;
        }
        for (k, (sampler, tex)) in self.inputs.iter().enumerate() {
            writeln!(f, "    texture unit {k}: {sampler} <- texture {tex}")?;
        }
        for (name, value) in &self.uniforms {
            writeln!(f, "    uniform {name} = {value}")?;
        }
        Ok(())
    }
}
