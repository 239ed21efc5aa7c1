//! What a Brook call becomes on GL, as data: a list of steps, each fully described — the
//! program, the textures on every unit and draw buffer, the uniform values, the viewport, the
//! primitive, the blend and depth state. Every mechanism (kernel, reduction, scatter,
//! gather-op, write mask, vout packing, in-place scratch) *encodes* such a list; the
//! [`Executor`](crate::executor::Executor) issues it and owns all GL state. The pass trace is
//! the same list, converted to data ([`Step::trace`]).
//!
//! Keeping encoding apart from execution is what lets one read a call's passes without running
//! them (`Runtime::plan`), observe every pass as it runs (the explorer), and later rewrite a
//! list before it runs (fusing a kernel into the reduction that reads it).

use brook_core::{
    Blend, Depth, Draw, ObservedPass, PassTrace, ProgramTrace, Readback, ScatterInputs, UniformData,
};
use brook_texture_streams::Texture;

use crate::encode::mask::WriteMask;
use crate::linked::LinkedPass;

/// One GL operation of a call.
pub enum Step<'a> {
    /// A draw with a program.
    Draw(Pass<'a>),
    /// Every texel of `from` copied into `to` (same size and format), on the GPU.
    Copy {
        /// What the copy is for, for the trace.
        label: String,
        /// The texture read.
        from: &'a Texture,
        /// The texture written.
        to: &'a Texture,
    },
    /// Every texel of `target` set to zero.
    Clear {
        /// What the clear is for, for the trace.
        label: String,
        /// The texture cleared.
        target: &'a Texture,
    },
}

/// One draw, fully described.
pub struct Pass<'a> {
    /// What the pass does, for the trace (empty when nobody traces: building it costs).
    pub label: String,
    /// The linked program drawn with, and what it binds where.
    pub program: &'a LinkedPass,
    /// Draw buffer `k` (empty when the pass draws only depth, see [`DepthUse::Write`]).
    pub targets: Vec<&'a Texture>,
    /// What each target holds, for the trace (empty when nobody traces).
    pub target_names: Vec<String>,
    /// Texture unit `k`: the texture sampler `k` of the program reads.
    pub inputs: Vec<&'a Texture>,
    /// `(slot, value)`: the value of `program.plan.uniforms[slot]`, for every uniform the
    /// driver kept.
    pub uniforms: Vec<(usize, UniformData)>,
    /// x, y, width, height in texels.
    pub viewport: [i32; 4],
    /// What is rasterised: a covering triangle, or points for a scatter.
    pub primitive: Primitive,
    /// Fixed-function blending into the targets (`None`: fragments replace texels).
    pub blend: Option<Blend>,
    /// Whether and how the write mask's depth texture takes part.
    pub depth: DepthUse<'a>,
    /// Whether the samples drawn count into the open write query.
    pub counted: bool,
    /// Whether the shader discards the fragments outside an output domain.
    pub discards_outside_domain: bool,
    /// For a scatter's points placed where their indices say: the units of the index and
    /// the order.
    pub scatter: Option<ScatterInputs>,
}

/// What a draw rasterises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// One triangle covering the viewport (the paper's quad): one fragment per texel.
    CoveringTriangle,
    /// Points `first..first + count`, placed by the vertex shader.
    Points {
        /// The first point (`gl_VertexID` of the first vertex).
        first: usize,
        /// How many points.
        count: usize,
    },
}

/// How a draw uses a write mask's depth texture.
#[derive(Clone, Copy)]
pub enum DepthUse<'a> {
    /// No depth texture: every fragment is drawn.
    None,
    /// Attached and tested: texels the test rejects keep their values (000 §7.4.2).
    Test(&'a WriteMask, MaskTest),
    /// The draw writes the mask's depth (its only target).
    Write(&'a WriteMask),
}

/// How a kernel pass tests the bound mask's depth texture (brook-core's `MaskUse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MaskTest {
    /// The mask's test: set texels fail (`LESS` against the pass's depth 0.5); without it
    /// only the layout's padding does (`LEQUAL`), so a query does not count it.
    pub test: bool,
    /// The texels drawn become set (depth writes on): the set mode, in a call's last pass.
    pub sets: bool,
}

impl<'a> Pass<'a> {
    /// A covering-triangle draw of `program` over the whole of its targets' texture (all of
    /// one size), unblended and untested; mechanisms change what differs.
    pub fn over(
        program: &'a LinkedPass,
        targets: Vec<&'a Texture>,
        inputs: Vec<&'a Texture>,
        uniforms: Vec<(usize, UniformData)>,
    ) -> Pass<'a> {
        let viewport = targets
            .first()
            .map_or([0; 4], |t| [0, 0, t.width() as i32, t.height() as i32]);
        Pass {
            label: String::new(),
            program,
            targets,
            target_names: Vec::new(),
            inputs,
            uniforms,
            viewport,
            primitive: Primitive::CoveringTriangle,
            blend: None,
            depth: DepthUse::None,
            counted: false,
            discards_outside_domain: false,
            scatter: None,
        }
    }

    /// The pass with its label and target names, when they are wanted (`tracing`).
    pub fn labelled(
        self,
        tracing: bool,
        label: impl FnOnce() -> (String, Vec<String>),
    ) -> Pass<'a> {
        if !tracing {
            return self;
        }
        let (label, target_names) = label();
        Pass {
            label,
            target_names,
            ..self
        }
    }
}

impl<'a> Step<'a> {
    /// The step as a pass observer sees it: its trace, and the textures it reads (per unit,
    /// or the copy's source) and writes (per draw buffer, or the copy's or clear's target).
    pub fn observed(&self) -> ObservedPass<'a> {
        let (inputs, targets) = match self {
            Step::Draw(pass) => (pass.inputs.clone(), pass.targets.clone()),
            Step::Copy { from, to, .. } => (vec![*from], vec![*to]),
            Step::Clear { target, .. } => (Vec::new(), vec![*target]),
        };
        let readable = |textures: Vec<&'a Texture>| {
            textures
                .into_iter()
                .map(|t| t as &'a dyn Readback)
                .collect()
        };
        ObservedPass {
            trace: self.trace(),
            inputs: readable(inputs),
            targets: readable(targets),
        }
    }

    /// The step as the trace shows it.
    pub fn trace(&self) -> PassTrace {
        let blank = |label: &str, draw: Draw, target: &Texture| PassTrace {
            label: label.to_string(),
            program: None,
            targets: vec![("copy".into(), target.raw().0.get())],
            inputs: Vec::new(),
            uniforms: Vec::new(),
            viewport: [0, 0, target.width() as i32, target.height() as i32],
            draw,
            blend: None,
            depth: None,
            counted: false,
            discards_outside_domain: false,
            scatter: None,
        };
        match self {
            Step::Copy { label, from, to } => PassTrace {
                inputs: vec![("source".into(), from.raw().0.get())],
                ..blank(label, Draw::Copy, to)
            },
            Step::Clear { label, target } => PassTrace {
                targets: vec![("cleared".into(), target.raw().0.get())],
                ..blank(label, Draw::Clear, target)
            },
            Step::Draw(pass) => pass.trace(),
        }
    }
}

impl Pass<'_> {
    fn trace(&self) -> PassTrace {
        let plan = &self.program.plan;
        let name = |k: usize| self.target_names.get(k).cloned().unwrap_or_default();
        PassTrace {
            label: self.label.clone(),
            program: Some(ProgramTrace {
                id: self.program.program.raw().0.get(),
                source: self.program.source.clone(),
            }),
            targets: self
                .targets
                .iter()
                .enumerate()
                .map(|(k, t)| (name(k), t.raw().0.get()))
                .collect(),
            inputs: plan
                .samplers
                .iter()
                .zip(&self.inputs)
                .map(|(slot, t)| (slot.uniform.clone(), t.raw().0.get()))
                .collect(),
            uniforms: self
                .uniforms
                .iter()
                .map(|(slot, value)| (plan.uniforms[*slot].uniform.clone(), value.clone()))
                .collect(),
            viewport: self.viewport,
            draw: match self.primitive {
                Primitive::CoveringTriangle => Draw::CoveringTriangle,
                Primitive::Points { first, count } => Draw::Points { first, count },
            },
            blend: self.blend,
            depth: match self.depth {
                DepthUse::None => None,
                DepthUse::Test(m, _) => Some(Depth::Tested { texture: m.id() }),
                DepthUse::Write(m) => Some(Depth::Written { texture: m.id() }),
            },
            counted: self.counted,
            discards_outside_domain: self.discards_outside_domain,
            scatter: self.scatter,
        }
    }
}
