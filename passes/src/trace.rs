//! The pass trace: an opt-in record of what each Brook call became on GL (programs, textures,
//! uniforms, viewport, passes), for learning how the stream model maps onto the pipeline and
//! for tests that assert the pass structure.

use std::fmt;

use crate::uniforms::UniformData;

/// One step the GL runtime took for the user.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceEntry {
    /// A kernel call.
    Kernel(KernelTrace),
    /// Brook's `streamSwap`: two streams exchanged their textures (GL names, member order).
    Swap { first: Vec<u32>, second: Vec<u32> },
    /// The scan and compaction passes that packed one vout of a kernel call (after the
    /// call's [`TraceEntry::Kernel`], which drew the candidates and counts).
    Vout(VoutTrace),
}

/// How one vout's pushes were packed into its stream.
#[derive(Debug, Clone, PartialEq)]
pub struct VoutTrace {
    pub kernel: String,
    /// The vout parameter.
    pub vout: String,
    /// Elements of the call (each pushed 0 to N values).
    pub elements: usize,
    /// Values pushed in all, read back from the top of the up-sweep.
    pub pushed: usize,
    /// Each draw with what it did: up-sweep levels, down-sweep levels, compaction per member.
    pub passes: Vec<(String, PassTrace)>,
}

/// What one kernel call became.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTrace {
    pub kernel: String,
    /// The shader variant (access class of every parameter, output region).
    pub variant: String,
    /// Whether this call compiled the variant's programs (the first call) or reused them.
    pub compiled: bool,
    /// In-place outputs: drawn into scratch textures (starting as a copy of the stream), which
    /// then replaced the stream's textures.
    pub scratch: Vec<ScratchTrace>,
    pub passes: Vec<PassTrace>,
}

/// An output that was also an input of its call.
#[derive(Debug, Clone, PartialEq)]
pub struct ScratchTrace {
    pub param: String,
    /// The stream's textures before the call (freed after it) and the scratch textures that
    /// hold the result and now belong to the stream.
    pub old: Vec<u32>,
    pub new: Vec<u32>,
}

/// One draw.
#[derive(Debug, Clone, PartialEq)]
pub struct PassTrace {
    /// The GL program name.
    pub program: u32,
    /// Colour attachment k: (output parameter name and member, GL texture name).
    pub targets: Vec<(String, u32)>,
    /// Texture unit k: (sampler uniform, GL texture name).
    pub textures: Vec<(String, u32)>,
    pub uniforms: Vec<(String, UniformData)>,
    /// `glViewport` x, y, width, height in texels.
    pub viewport: [i32; 4],
    /// Whether the shader discards the fragments outside an output domain (a domain of a
    /// translated layout, not one rectangle of the texture).
    pub discards_outside_domain: bool,
}

impl KernelTrace {
    pub fn viewport(&self) -> Option<[i32; 4]> {
        self.passes.first().map(|p| p.viewport)
    }
}

impl fmt::Display for TraceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceEntry::Kernel(k) => k.fmt(f),
            TraceEntry::Swap { first, second } => {
                writeln!(f, "streamSwap: textures {first:?} <-> {second:?}")
            }
            TraceEntry::Vout(v) => v.fmt(f),
        }
    }
}

impl fmt::Display for KernelTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cache = if self.compiled {
            "compiled now"
        } else {
            "from the program cache"
        };
        writeln!(
            f,
            "kernel `{}`: {} pass(es), variant {} ({cache})",
            self.kernel,
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
        for (i, p) in self.passes.iter().enumerate() {
            let heading = format!("pass {} of {}", i + 1, self.passes.len());
            p.write(f, &heading)?;
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
        for (what, p) in &self.passes {
            p.write(f, what)?;
        }
        Ok(())
    }
}

impl PassTrace {
    /// The draw under `heading`, then what it bound, one line each.
    fn write(&self, f: &mut fmt::Formatter<'_>, heading: &str) -> fmt::Result {
        let [x, y, w, h] = self.viewport;
        writeln!(
            f,
            "  {heading}: program {}, viewport ({x}, {y}) {w}x{h}{}",
            self.program,
            if self.discards_outside_domain {
                ", discarding texels outside the domain"
            } else {
                ""
            }
        )?;
        for (k, (what, tex)) in self.targets.iter().enumerate() {
            writeln!(f, "    draw buffer {k}: `{what}` -> texture {tex}")?;
        }
        for (k, (sampler, tex)) in self.textures.iter().enumerate() {
            writeln!(f, "    texture unit {k}: {sampler} <- texture {tex}")?;
        }
        for (name, value) in &self.uniforms {
            writeln!(f, "    uniform {name} = {value}")?;
        }
        Ok(())
    }
}
