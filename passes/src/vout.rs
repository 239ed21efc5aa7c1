//! `vout [N] T v<>` calls on GL: the kernel pass writes N candidates and a push count per
//! element (brook-glsl's `vout.rs`), then, per vout, a work-efficient exclusive scan of the
//! counts (004 §3.3.3: ⌈log₂ n⌉ up-sweep passes, as many down-sweep passes) and a compaction
//! gather pack the pushes into the vout stream in element order, then push order (brook-glsl's
//! `scan.rs`). The number of pushes is one texel of the up-sweep's top level, read back.
//!
//! Candidates, scan levels and offsets are owned streams, kept for the next vout call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use brook_frontend::ir::{Function, ParamClass};
use brook_glsl::{
    compact_pass, scan_down_pass, scan_up_pass, stream_members, vertex_shader, PassProgram,
    UniformValue,
};
use brook_texture_streams::{ElementFormat, MemberFormat, Stream, TexelRect, Texture};

use crate::args::{KernelArg, StreamArg};
use crate::draw::draw_pass;
use crate::error::PassError;
use crate::linked::{profile, LinkedPass};
use crate::runner::{call_error, KernelRunner};
use crate::spare::SpareStreams;
use crate::trace::{PassTrace, VoutTrace};
use crate::uniforms::UniformData;

/// Pushes per call a float count or offset holds exactly (R32F: 2²⁴).
pub const MAX_VOUT_PUSHES: usize = 1 << 24;

/// The scan and compaction programs and spare streams of one context.
#[derive(Default)]
pub(crate) struct VoutCache {
    /// Up-sweep and down-sweep, linked on first use.
    scan: RefCell<Option<Rc<(LinkedPass, LinkedPass)>>>,
    /// Compaction per (N, member components).
    compact: RefCell<HashMap<(u32, u8), Rc<LinkedPass>>>,
    spare: SpareStreams,
}

impl VoutCache {
    pub fn compiled(&self) -> usize {
        2 * usize::from(self.scan.borrow().is_some()) + self.compact.borrow().len()
    }
}

/// One vout argument of a call, checked, with the scratch stream its candidates are drawn into.
pub(crate) struct VoutArg<'a> {
    param: usize,
    /// N: room for pushes per element.
    max: u32,
    /// The vout stream the pushes are packed into.
    stream: &'a Stream,
    /// Candidate k's member m is member `k·M + m`, the count member `N·M` (brook-glsl's
    /// numbering); the call's shape.
    pub candidates: Stream,
}

/// A vout call's vouts and its element count.
pub(crate) struct VoutCall<'a> {
    pub vouts: Vec<VoutArg<'a>>,
    elements: usize,
}

impl<'a> VoutCall<'a> {
    /// The call's arguments with each vout replaced by its candidate stream, as the kernel
    /// pass writes them.
    pub fn kernel_args(&'a self, args: &[KernelArg<'a>]) -> Vec<KernelArg<'a>> {
        let mut args = args.to_vec();
        for v in &self.vouts {
            args[v.param] = KernelArg::Out(StreamArg::whole(&v.candidates));
        }
        args
    }
}

/// Whether `func` has vout parameters.
pub fn has_vouts(func: &Function) -> bool {
    func.params
        .iter()
        .any(|p| matches!(p.class, ParamClass::Vout { .. }))
}

impl KernelRunner {
    /// Checks a vout call's arguments and makes (or reuses) its candidate streams, their
    /// counts cleared to 0 so that elements that `discard` push nothing.
    pub(crate) fn vout_call<'a>(
        &self,
        module: &brook_frontend::ir::Module,
        func: &Function,
        args: &[KernelArg<'a>],
    ) -> Result<VoutCall<'a>, PassError> {
        let fail = |message: String| call_error(&func.name, message);
        if args.len() != func.params.len() {
            return Err(fail(format!(
                "takes {} arguments but {} were given",
                func.params.len(),
                args.len()
            )));
        }
        let outputs = args
            .iter()
            .zip(&func.params)
            .filter(|(_, p)| p.class.is_output());
        if outputs
            .clone()
            .any(|(a, _)| a.stream().is_some_and(|s| s.region().is_some()))
        {
            return Err(fail(
                "a kernel with vout parameters writes whole streams on GL; pass its outputs and vouts without domains".into(),
            ));
        }
        let shape = call_shape(func, args).ok_or_else(|| {
            fail("it writes only vout streams, so it needs an input stream or iterator to give the call its shape".into())
        })?;
        let elements: usize = shape.iter().product();
        let mut vouts = Vec::new();
        for (param, (arg, p)) in args.iter().zip(&func.params).enumerate() {
            let ParamClass::Vout { max } = p.class else {
                continue;
            };
            let KernelArg::Out(out) = arg else {
                return Err(fail(format!(
                    "vout `{}` needs a stream to push onto",
                    p.name
                )));
            };
            let members = stream_members(module, &p.ty)?;
            let got: Vec<u8> = out
                .stream
                .format()
                .members()
                .iter()
                .map(|m| m.components)
                .collect();
            let wanted: Vec<u8> = members.iter().map(|(_, w)| *w).collect();
            if got != wanted {
                return Err(fail(format!(
                    "vout `{}` pushes elements of member widths {wanted:?}, but its stream's elements have {got:?}",
                    p.name
                )));
            }
            let needed = max as usize * elements;
            let room = out.stream.layout().len();
            if room < needed {
                return Err(fail(format!(
                    "vout `{}` needs room for {needed} elements (its N = {max} times the {elements} elements of the call) but its stream has {room}",
                    p.name
                )));
            }
            if needed > MAX_VOUT_PUSHES {
                return Err(fail(format!(
                    "vout `{}` may receive {needed} pushes (N = {max} times {elements} elements), but GL counts them in 32-bit floats, exact only up to {MAX_VOUT_PUSHES} per call; make the call or N smaller",
                    p.name
                )));
            }
            let format = candidate_format(&wanted, max)?;
            let candidates = self.vouts.spare.take(&self.ctx, &format, &shape)?;
            candidates.textures()[format.members().len() - 1].clear()?;
            vouts.push(VoutArg {
                param,
                max,
                stream: out.stream,
                candidates,
            });
        }
        Ok(VoutCall { vouts, elements })
    }

    /// Packs every vout's candidates into its stream (after the kernel pass drew them) and
    /// returns the pushes each received, in parameter order.
    pub(crate) fn pack_vouts(
        &self,
        func: &Function,
        call: VoutCall,
    ) -> Result<Vec<usize>, PassError> {
        let mut kept = Vec::new();
        let mut counts = Vec::with_capacity(call.vouts.len());
        for v in call.vouts {
            let mut trace = self.tracing().then(|| VoutTrace {
                kernel: func.name.clone(),
                vout: func.params[v.param].name.clone(),
                elements: call.elements,
                pushed: 0,
                passes: Vec::new(),
            });
            let pushed = self.pack(&func.name, &v, call.elements, &mut kept, trace.as_mut())?;
            counts.push(pushed);
            if let Some(mut t) = trace {
                t.pushed = pushed;
                self.record(|| crate::trace::TraceEntry::Vout(t));
            }
            kept.push(v.candidates);
        }
        self.ctx
            .check_error(&format!("packing the vouts of kernel `{}`", func.name))?;
        self.vouts.spare.keep(kept);
        Ok(counts)
    }

    /// Scan and compaction of one vout; its intermediates go to `kept`.
    fn pack(
        &self,
        kernel: &str,
        v: &VoutArg,
        elements: usize,
        kept: &mut Vec<Stream>,
        mut trace: Option<&mut VoutTrace>,
    ) -> Result<usize, PassError> {
        let scan = self.scan_programs()?;
        let (up, down) = (&scan.0, &scan.1);
        let one = ElementFormat::scalar(1)?;
        let members = v.stream.format().members().len();
        let counts = &v.candidates.textures()[v.max as usize * members];
        // Up-sweep: sums[l] is level l + 1; at least one level, so the top is never the counts.
        let mut sums: Vec<Stream> = Vec::new();
        let mut lengths = vec![elements];
        loop {
            let len = *lengths.last().expect("starts with the elements");
            let level = self.vouts.spare.take(&self.ctx, &one, &[len.div_ceil(2)])?;
            let finer = sums.last().map_or(counts, |s| &s.textures()[0]);
            let label = format!(
                "up-sweep to level {} ({} elements)",
                sums.len() + 1,
                len.div_ceil(2)
            );
            self.scan_draw(
                kernel,
                up,
                &level.textures()[0],
                &[finer],
                len,
                label,
                trace.as_deref_mut(),
            )?;
            sums.push(level);
            lengths.push(len.div_ceil(2));
            if len.div_ceil(2) == 1 {
                break;
            }
        }
        // Down-sweep: from the top's exclusive sum, 0, to level 0's, the offsets.
        let mut coarser = self.vouts.spare.take(&self.ctx, &one, &[1])?;
        coarser.textures()[0].clear()?;
        for l in (0..sums.len()).rev() {
            let offsets = self.vouts.spare.take(&self.ctx, &one, &[lengths[l]])?;
            let level_sums = if l == 0 {
                counts
            } else {
                &sums[l - 1].textures()[0]
            };
            let label = format!("down-sweep to level {l} ({} elements)", lengths[l]);
            let inputs = [&coarser.textures()[0], level_sums];
            self.scan_draw(
                kernel,
                down,
                &offsets.textures()[0],
                &inputs,
                lengths[l],
                label,
                trace.as_deref_mut(),
            )?;
            kept.push(std::mem::replace(&mut coarser, offsets));
        }
        let offsets = coarser;
        let top = &sums.last().expect("at least one level").textures()[0];
        for (m, member) in v.stream.format().members().iter().enumerate() {
            let pass = self.compact_program(v.max, member.components)?;
            let mut inputs = vec![&offsets.textures()[0], top];
            inputs.extend((0..v.max as usize).map(|k| &v.candidates.textures()[k * members + m]));
            let label = format!("compaction of member {m} into the vout stream");
            self.scan_draw(
                kernel,
                &pass,
                &v.stream.textures()[m],
                &inputs,
                elements,
                label,
                trace.as_deref_mut(),
            )?;
        }
        let total = top.read(TexelRect {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        })?;
        kept.push(offsets);
        kept.extend(sums);
        Ok(total[0] as usize)
    }

    /// One scan or compaction draw into all of `target`, sampler k reading `inputs[k]`.
    #[allow(clippy::too_many_arguments)]
    fn scan_draw(
        &self,
        kernel: &str,
        pass: &LinkedPass,
        target: &Texture,
        inputs: &[&Texture],
        length: usize,
        label: String,
        trace: Option<&mut VoutTrace>,
    ) -> Result<(), PassError> {
        let mut record = trace.is_some().then(|| PassTrace {
            program: pass.program.raw().0.get(),
            targets: vec![("vout pass".into(), target.raw().0.get())],
            textures: Vec::new(),
            uniforms: Vec::new(),
            viewport: [0, 0, target.width() as i32, target.height() as i32],
            discards_outside_domain: false,
        });
        let int = |v: usize| Ok(UniformData::Ints(vec![v as i32]));
        draw_pass(
            &self.ctx,
            kernel,
            pass,
            &[target],
            [0, 0, target.width() as i32, target.height() as i32],
            inputs,
            |value| match value {
                UniformValue::OutputWidth => int(target.width() as usize),
                UniformValue::ScanLength => int(length),
                UniformValue::SampledWidth(k) => inputs.get(k as usize).map_or_else(
                    || Err("no texture on that unit".into()),
                    |t| int(t.width() as usize),
                ),
                other => Err(format!("a vout pass has no {other:?}")),
            },
            record.as_mut(),
        )?;
        if let (Some(t), Some(r)) = (trace, record) {
            t.passes.push((label, r));
        }
        Ok(())
    }

    fn scan_programs(&self) -> Result<Rc<(LinkedPass, LinkedPass)>, PassError> {
        if let Some(found) = self.vouts.scan.borrow().as_ref() {
            return Ok(found.clone());
        }
        let linked = Rc::new((
            self.link_vout_pass(scan_up_pass(&self.target))?,
            self.link_vout_pass(scan_down_pass(&self.target))?,
        ));
        *self.vouts.scan.borrow_mut() = Some(linked.clone());
        Ok(linked)
    }

    fn compact_program(&self, max: u32, components: u8) -> Result<Rc<LinkedPass>, PassError> {
        if let Some(found) = self.vouts.compact.borrow().get(&(max, components)) {
            return Ok(found.clone());
        }
        let units = self.ctx.caps().max_texture_units;
        if max + 2 > units {
            return Err(call_error(
                "vout compaction",
                format!("a vout [{max}] samples its {max} candidates, the offsets and the total in one pass, but this device samples at most {units} textures per pass; use N ≤ {}", units.saturating_sub(2)),
            ));
        }
        let linked = Rc::new(self.link_vout_pass(compact_pass(&self.target, max, components))?);
        self.vouts
            .compact
            .borrow_mut()
            .insert((max, components), linked.clone());
        Ok(linked)
    }

    fn link_vout_pass(&self, plan: PassProgram) -> Result<LinkedPass, PassError> {
        let vertex = vertex_shader(profile(&self.ctx));
        LinkedPass::link(&self.ctx, "vout packing", &vertex, plan)
    }

    /// The scan and compaction programs a vout call runs after its kernel passes (each scan
    /// program is drawn once per level), for `plan`.
    pub(crate) fn vout_plan(
        &self,
        module: &brook_frontend::ir::Module,
        func: &Function,
    ) -> Result<Vec<PassProgram>, PassError> {
        let mut passes = vec![scan_up_pass(&self.target), scan_down_pass(&self.target)];
        for p in &func.params {
            if let ParamClass::Vout { max } = p.class {
                for (_, width) in stream_members(module, &p.ty)? {
                    passes.push(compact_pass(&self.target, max, width));
                }
            }
        }
        Ok(passes)
    }
}

/// The shape of a call: that of its `out` streams, or without any, of its first input stream
/// or iterator (as on the CPU).
fn call_shape(func: &Function, args: &[KernelArg]) -> Option<Vec<usize>> {
    let out = args.iter().zip(&func.params).find_map(|(a, p)| match a {
        KernelArg::Out(s) if p.class == ParamClass::Out => Some(s.shape()),
        _ => None,
    });
    out.or_else(|| {
        args.iter().find_map(|a| match a {
            KernelArg::Stream(s) => Some(s.shape()),
            KernelArg::Iter(it) => Some(it.shape().to_vec()),
            _ => None,
        })
    })
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
