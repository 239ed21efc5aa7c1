//! `vout [N] T v<>` calls on GL: the kernel pass writes N candidates and a push count per
//! element (brook-glsl's `vout.rs`) into a scratch stream per vout, then each vout is packed:
//! a work-efficient exclusive scan of the counts (004 §3.3.3: the up-sweep's levels of pair
//! sums, the down-sweep's offsets; brook-core's `scan_levels`) and a compaction that fills
//! output element `j` from the candidate that is push `j` (brook-glsl's `scan.rs`). The number
//! of pushes is one texel of the up-sweep's top level, read back after the passes.
//!
//! Candidates, levels and offsets are owned streams, kept for the next vout call.

use std::rc::Rc;

use brook_core::{scan_levels, UniformData};
use brook_glsl::{stream_members, UniformValue};
use brook_ir::{Function, Module, ParamClass};
use brook_texture_streams::{ElementFormat, MemberFormat, Stream, TexelRect, Texture};

use crate::args::{KernelArg, StreamArg};
use crate::encode::Encoder;
use crate::error::{call_error, PassError};
use crate::linked::LinkedPass;
use crate::spare::SpareStreams;
use crate::step::{Pass, Step};
use crate::uniforms::uniforms_of;

/// Pushes per call a float count or offset holds exactly (R32F: 2²⁴).
pub const MAX_VOUT_PUSHES: usize = 1 << 24;

/// One vout argument of a call with the scratch stream its candidates are drawn into.
pub struct VoutArg<'a> {
    pub param: usize,
    /// N: room for pushes per element.
    max: u32,
    /// The vout stream the pushes are packed into.
    stream: &'a Stream,
    /// Candidate k's member m is member `k·M + m`, the count member `N·M` (brook-glsl's
    /// numbering); the call's shape.
    candidates: Stream,
}

/// A vout call's vouts and its element count.
pub struct VoutCall<'a> {
    pub vouts: Vec<VoutArg<'a>>,
    pub elements: usize,
}

impl<'a> VoutCall<'a> {
    /// The call's vouts (checked by the runtime) with their candidate streams, of the call's
    /// `shape`; refused where GL's float counts or sampler units do not reach.
    pub fn new(
        enc: &Encoder,
        spare: &SpareStreams,
        module: &Module,
        func: &Function,
        args: &[KernelArg<'a>],
        shape: &[usize],
    ) -> Result<VoutCall<'a>, PassError> {
        let elements: usize = shape.iter().product();
        let limit = |message: String| PassError::DeviceLimit {
            call: format!("kernel `{}`", func.name),
            message,
        };
        let mut vouts = Vec::new();
        for (param, (arg, p)) in args.iter().zip(&func.params).enumerate() {
            let (ParamClass::Vout { max }, KernelArg::Out(out)) = (p.class, arg) else {
                continue;
            };
            let needed = max as usize * elements;
            if needed > MAX_VOUT_PUSHES {
                return Err(limit(format!(
                    "vout `{}` may receive {needed} pushes (N = {max} times {elements} elements), but GL counts them in 32-bit floats, exact only up to {MAX_VOUT_PUSHES} per call; make the call or N smaller",
                    p.name
                )));
            }
            let units = enc.ctx.caps().max_texture_units;
            if max + 2 > units {
                return Err(limit(format!(
                    "a vout [{max}] samples its {max} candidates, the offsets and the total in one pass, but this device samples at most {units} textures per pass; use N ≤ {}",
                    units.saturating_sub(2)
                )));
            }
            let widths: Vec<u8> = stream_members(module, &p.ty)?
                .iter()
                .map(|(_, w)| *w)
                .collect();
            let format = candidate_format(&widths, max)?;
            let candidates = spare.take(enc.ctx, &format, shape)?;
            vouts.push(VoutArg {
                param,
                max,
                stream: out.stream,
                candidates,
            });
        }
        Ok(VoutCall { vouts, elements })
    }

    /// The call's arguments with each vout replaced by its candidate stream, as the kernel
    /// pass writes them.
    pub fn kernel_args(&'a self, args: &[KernelArg<'a>]) -> Vec<KernelArg<'a>> {
        let mut args = args.to_vec();
        for v in &self.vouts {
            args[v.param] = KernelArg::Out(StreamArg::whole(&v.candidates));
        }
        args
    }

    /// The steps before the kernel's passes: every count cleared to 0, so that elements that
    /// `discard` push nothing.
    pub fn encode_clears<'s>(&'s self, enc: &Encoder, steps: &mut Vec<Step<'s>>) {
        for v in &self.vouts {
            let counts = v.candidates.textures().last().expect("the count member");
            steps.push(Step::Clear {
                label: enc.label(|| "push counts cleared".into()),
                target: counts,
            });
        }
    }

    /// The candidate streams, to keep for the next call.
    pub fn into_spares(self) -> impl Iterator<Item = Stream> + 'a {
        self.vouts.into_iter().map(|v| v.candidates)
    }
}

/// One vout's packing: its programs and its intermediate streams (the up-sweep's levels
/// above the counts, the zero the down-sweep starts from, and the offsets of each level).
pub struct Packing {
    up: Rc<LinkedPass>,
    down: Rc<LinkedPass>,
    /// Per member of the vout's elements.
    compactions: Vec<Rc<LinkedPass>>,
    levels: Vec<usize>,
    sums: Vec<Stream>,
    zero: Stream,
    offsets: Vec<Stream>,
}

impl Packing {
    /// The programs for `v` and the streams for `elements` counts, from `spare`.
    pub fn new(
        enc: &Encoder,
        spare: &SpareStreams,
        v: &VoutArg,
        elements: usize,
    ) -> Result<Packing, PassError> {
        let up = enc.builtins.scan(enc.ctx, &enc.target, true)?;
        let down = enc.builtins.scan(enc.ctx, &enc.target, false)?;
        let compactions = v
            .stream
            .format()
            .members()
            .iter()
            .map(|m| {
                enc.builtins
                    .compaction(enc.ctx, &enc.target, v.max, m.components)
            })
            .collect::<Result<_, _>>()?;
        let one = ElementFormat::scalar(1)?;
        let levels = scan_levels(elements);
        let take = |n: usize| spare.take(enc.ctx, &one, &[n]);
        let sums = levels[1..]
            .iter()
            .map(|&n| take(n))
            .collect::<Result<_, _>>()?;
        let zero = take(1)?;
        let offsets = levels[..levels.len() - 1]
            .iter()
            .map(|&n| take(n))
            .collect::<Result<_, _>>()?;
        Ok(Packing {
            up,
            down,
            compactions,
            levels,
            sums,
            zero,
            offsets,
        })
    }

    /// The scan and compaction of vout `v`: up-sweep levels, down-sweep levels, compaction
    /// per member.
    pub fn encode<'s>(
        &'s self,
        enc: &Encoder,
        v: &'s VoutArg,
        elements: usize,
        steps: &mut Vec<Step<'s>>,
    ) -> Result<(), PassError> {
        let members = v.stream.format().members().len();
        let counts = &v.candidates.textures()[v.max as usize * members];
        let level = |l: usize| {
            if l == 0 {
                counts
            } else {
                &self.sums[l - 1].textures()[0]
            }
        };
        for (l, sums) in self.sums.iter().enumerate() {
            let label = enc.label(|| {
                format!(
                    "up-sweep to level {} ({} elements)",
                    l + 1,
                    self.levels[l + 1]
                )
            });
            let finer = self.levels[l];
            steps.push(scan_pass(
                enc,
                &self.up,
                &sums.textures()[0],
                vec![level(l)],
                finer,
                label,
            )?);
        }
        steps.push(Step::Clear {
            label: enc.label(|| "the top level's offset set to 0".into()),
            target: &self.zero.textures()[0],
        });
        let mut coarser = &self.zero.textures()[0];
        for l in (0..self.offsets.len()).rev() {
            let label =
                enc.label(|| format!("down-sweep to level {l} ({} elements)", self.levels[l]));
            let target = &self.offsets[l].textures()[0];
            steps.push(scan_pass(
                enc,
                &self.down,
                target,
                vec![coarser, level(l)],
                0,
                label,
            )?);
            coarser = target;
        }
        let top = self.top();
        for (m, pass) in self.compactions.iter().enumerate() {
            let mut inputs = vec![coarser, top];
            inputs.extend((0..v.max as usize).map(|k| &v.candidates.textures()[k * members + m]));
            let label = enc.label(|| format!("compaction of member {m} into the vout stream"));
            let target = &v.stream.textures()[m];
            steps.push(scan_pass(enc, pass, target, inputs, elements, label)?);
        }
        Ok(())
    }

    /// The top of the up-sweep: texel (0, 0) holds the number of pushes.
    fn top(&self) -> &Texture {
        &self.sums.last().expect("at least one level").textures()[0]
    }

    /// The pushes counted, read back once the packing ran.
    pub fn pushed(&self) -> Result<usize, PassError> {
        let rect = TexelRect {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        };
        Ok(self.top().read(rect)?[0] as usize)
    }

    /// The streams, to keep for the next call.
    pub fn into_spares(self) -> impl Iterator<Item = Stream> {
        self.sums.into_iter().chain([self.zero]).chain(self.offsets)
    }
}

/// One scan or compaction draw into all of `target`, sampler k reading `inputs[k]`.
fn scan_pass<'s>(
    enc: &Encoder,
    pass: &'s LinkedPass,
    target: &'s Texture,
    inputs: Vec<&'s Texture>,
    length: usize,
    label: String,
) -> Result<Step<'s>, PassError> {
    let int = |v: usize| Ok(UniformData::Ints(vec![v as i32]));
    let uniforms = uniforms_of(pass, |value| match value {
        UniformValue::OutputWidth => int(target.width() as usize),
        UniformValue::ScanLength => int(length),
        UniformValue::SampledWidth(k) => inputs.get(k as usize).map_or_else(
            || Err("no texture on that unit".into()),
            |t| int(t.width() as usize),
        ),
        other => Err(format!("a vout pass has no {other:?}")),
    })
    .map_err(|m| call_error("vout packing", m))?;
    let names = || vec!["vout pass".to_string()];
    let drawn = Pass::over(pass, vec![target], inputs, uniforms);
    Ok(Step::Draw(drawn.labelled(enc.tracing, || (label, names()))))
}

/// The element format of a vout's candidate stream: N copies of the element's members, then
/// the count.
fn candidate_format(widths: &[u8], max: u32) -> Result<ElementFormat, PassError> {
    let mut members = Vec::new();
    for k in 0..max {
        for (m, &components) in widths.iter().enumerate() {
            members.push(MemberFormat {
                name: format!("candidate{k}_{m}"),
                components,
            });
        }
    }
    members.push(MemberFormat {
        name: "count".into(),
        components: 1,
    });
    Ok(ElementFormat::structure(members)?)
}
