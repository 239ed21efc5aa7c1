//! `streamScatterOp` and `streamGatherOp` (the shaders and why each combiner is done the
//! way it is: `shaders/scatter.rs`).

use brook_core::index::gather_component_f;
use brook_core::{Operand, Rounds};
use brook_ir::{FunctionId, FunctionKind, ParamClass, Scalar, Type};

use super::kernel::extent_slot;
use crate::backend::WgpuBackend;
use crate::error::{Result, WgpuError};
use crate::pipeline::{scratch, Pipeline, Plan};
use crate::program::{PipelineKey, WgpuProgram};
use crate::shaders::scatter::{self as sh, Combine, RoundInput, ROUND_OPERAND, SLOTS};
use crate::shaders::WORKGROUP;
use crate::stream::WgpuStream;
use crate::trace::CallTrace;
use crate::work::{Grid, Work};

/// How `streamScatterOp` and `streamGatherOp` combine a value into an element.
#[derive(Clone, Copy)]
pub enum ScatterOp<'a> {
    /// The new value replaces the old (for a scatter: the last element in index order).
    Replace,
    /// Every float added.
    Add,
    /// Component-wise minimum.
    Min,
    /// Component-wise maximum.
    Max,
    /// A `reduce void f(T a<>, reduce T r<>)` of a program of this backend: `a` is the value,
    /// `r` the element.
    Reduce(&'a WgpuProgram, FunctionId),
}

impl ScatterOp<'_> {
    pub(crate) fn name(&self) -> String {
        match self {
            ScatterOp::Replace => "replace".into(),
            ScatterOp::Add => "add".into(),
            ScatterOp::Min => "min".into(),
            ScatterOp::Max => "max".into(),
            ScatterOp::Reduce(p, f) => p.module().func(*f).name.clone(),
        }
    }
}

/// Refuses a ScatterOp or GatherOp call that brook-core's checks would (`index` with one
/// element per element of `elements`, one float per dimension of `addressed`; `elements` and
/// `addressed` of one layout; three stored streams): the shaders would read or write wrongly.
fn check_indexed(
    op: &str,
    addressed: &WgpuStream,
    index: &WgpuStream,
    elements: &WgpuStream,
) -> Result<()> {
    let stored = [addressed, index, elements]
        .iter()
        .all(|s| s.buffer().is_some());
    let distinct = !(std::ptr::eq(addressed, elements)
        || std::ptr::eq(addressed, index)
        || std::ptr::eq(index, elements));
    let fit = index.widths() == [addressed.shape().len() as u8]
        && index.len() == elements.len()
        && addressed.widths() == elements.widths();
    if !(stored && distinct && fit) {
        return Err(WgpuError::precondition(
            op,
            "streams that are not three stored streams of matching layouts",
        ));
    }
    Ok(())
}

/// The rounds of brook-core's plan as the round shaders read them: (element, target) pairs,
/// round after round, and each round's first pair and pair count.
fn round_pairs(rounds: &Rounds, targets: &[u32]) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut pairs = Vec::with_capacity(targets.len() * 2);
    for &e in &rounds.order {
        pairs.push(e as u32);
        pairs.push(targets[e]);
    }
    let starts = rounds.counts.iter().scan(0, |at, &c| {
        let first = *at;
        *at += c;
        Some((first as u32, c as u32))
    });
    (pairs, starts.collect())
}

#[doc(hidden)]
impl WgpuBackend {
    /// The rounds of a call and the target of every index element (read back: the one
    /// read-back of the round path).
    fn rounds(&self, index: &WgpuStream, addressed: &[usize]) -> Result<(Rounds, Vec<u32>)> {
        let mut v = vec![0.0; index.len() * index.floats_per_element()];
        self.write(index, None, &mut v)?;
        let rank = addressed.len();
        let targets = v
            .chunks(rank)
            .map(|c| {
                let mut lin = 0;
                for (d, &e) in addressed.iter().enumerate() {
                    lin = lin * e + gather_component_f(c[rank - 1 - d], e);
                }
                lin as u32
            })
            .collect();
        Ok((Rounds::plan(addressed, &v), targets))
    }

    /// The round pipeline of `op` on elements of `fpe` floats.
    fn round_pipeline(
        &self,
        op: ScatterOp,
        input: RoundInput,
        fpe: usize,
    ) -> Result<(std::rc::Rc<Pipeline>, crate::program::Built)> {
        let operand = if input == RoundInput::Constant {
            fpe as u32
        } else {
            0
        };
        match op {
            ScatterOp::Reduce(program, f) => {
                let func = program.module().func(f);
                let op_name = if input == RoundInput::Scattered {
                    "streamScatterOp"
                } else {
                    "streamGatherOp"
                };
                let stream_params = func
                    .params
                    .iter()
                    .filter(|p| p.class == ParamClass::Stream)
                    .count();
                let reduce_params = func
                    .params
                    .iter()
                    .filter(|p| p.class == ParamClass::Reduce)
                    .count();
                if func.kind != FunctionKind::Reduce
                    || func.params.len() != 2
                    || stream_params != 1
                    || reduce_params != 1
                {
                    return Err(WgpuError::precondition(
                        op_name,
                        format!(
                            "`{}`: a combiner that is not `reduce void f(T a<>, reduce T r<>)`",
                            func.name
                        ),
                    ));
                }
                let ty = func.params[0].ty.clone();
                super::check_fpe(program.module(), &op_name, &func.params[0], fpe)?;
                let label = format!(
                    "{} round with `{}`",
                    if input == RoundInput::Scattered {
                        "scatter"
                    } else {
                        "gather-op"
                    },
                    func.name
                );
                // One combination per invocation and round.
                super::refuse_unbounded_loops(&self.gpu, program.module(), f, 1, 0)?;
                program.lowered_pipeline(&self.gpu, &PipelineKey::Round(f, input), f, label, |m| {
                    sh::round(program.module(), Combine::Reduce(f), input, &ty, operand, m)
                        .map(|(m, resources)| (m, (resources, Plan::Resources)))
                })
            }
            _ => {
                let combine = match op {
                    ScatterOp::Replace => Combine::Replace,
                    ScatterOp::Add => Combine::Add,
                    ScatterOp::Min => Combine::Min,
                    ScatterOp::Max => Combine::Max,
                    ScatterOp::Reduce(..) => unreachable!("matched above"),
                };
                let name = format!("round {combine:?} of {fpe} floats, {input:?}");
                let ty = Type::Array(Box::new(Type::Scalar(Scalar::Float)), fpe as u32);
                let p = self.cached_pipeline(&name, || {
                    sh::round(
                        self.empty_module(),
                        combine,
                        input,
                        &ty,
                        operand,
                        brook_ir::MathMode::Accurate,
                    )
                    .map_err(|e| WgpuError::Shader {
                        function: name.clone(),
                        place: "<built-in round shader>".into(),
                        message: e.message,
                    })
                })?;
                Ok((p, None))
            }
        }
    }

    /// Brook's `streamScatterOp(dst, index, data, op)`: for every element `i` of `data`, in
    /// index order, `dst[index[i]] = op(data[i], dst[index[i]])`.
    pub fn scatter(
        &self,
        dst: &WgpuStream,
        index: &WgpuStream,
        data: &WgpuStream,
        op: ScatterOp,
    ) -> Result<()> {
        const OP: &str = "streamScatterOp";
        self.own(OP, &[dst, index, data])?;
        check_indexed(OP, dst, index, data)?;
        let gpu = &self.gpu;
        let n = data.len() as u64;
        let fpe = dst.floats_per_element();
        let rank = dst.shape().len() as u32;
        let label = format!("{OP} {}", op.name());
        let mut compiled = None;
        let mut info = vec![[0u32; 4]; SLOTS as usize];
        info[0] = [n as u32, 0, rank, fpe as u32];
        info[1] = extent_slot(dst.shape());
        // Keyed, so that a repeated scatter binds through kept groups and call-info buffers
        // (`Work::dispatch_kept`), as a hand-written loop makes its bind groups once.
        let [(ib, ik), (db, dk), (tb, tk)] =
            [index, data, dst].map(|s| s.keyed_buffer().expect("checked: buffers"));
        let (ii, di, ti) = (index.id(), data.id(), dst.id());
        let steps = gpu.scoped(&label, || {
            let mut work = Work::new(gpu, self.tracing());
            match op {
                ScatterOp::Replace => {
                    let bytes = dst.len() as u64 * 4;
                    let (winners, wk) =
                        (self.kept_scratch).get(gpu, "brook scatter winners", 0, bytes);
                    work.clear("winners", &winners, bytes);
                    let claim = self.fixed_pipeline("scatter claim", sh::claim)?;
                    work.dispatch_kept(
                        "claim targets (atomicMax of element + 1)",
                        &claim,
                        info.clone(),
                        &[(&ib, ii), (&winners, 0)],
                        Some(&[ik, wk]),
                        Grid::linear(n, WORKGROUP),
                    );
                    let write = self.fixed_pipeline("scatter write winners", sh::write_winners)?;
                    work.dispatch_kept(
                        "winners write",
                        &write,
                        info.clone(),
                        &[(&ib, ii), (&db, di), (&winners, 0), (&tb, ti)],
                        Some(&[ik, dk, wk, tk]),
                        Grid::linear(n, WORKGROUP),
                    );
                }
                ScatterOp::Add => {
                    let add = self.fixed_pipeline("scatter add", sh::add)?;
                    work.dispatch_kept(
                        "add (compare-and-swap on f32 bits)",
                        &add,
                        info.clone(),
                        &[(&ib, ii), (&db, di), (&tb, ti)],
                        Some(&[ik, dk, tk]),
                        Grid::linear(n, WORKGROUP),
                    );
                }
                ScatterOp::Min | ScatterOp::Max => {
                    let which = u32::from(matches!(op, ScatterOp::Max));
                    let keys = self.fixed_pipeline("scatter keys", sh::to_keys)?;
                    let floats = (dst.len() * fpe) as u64;
                    let mut k = info.clone();
                    k[0][0] = floats as u32;
                    k[2] = [which, 0, 0, 0];
                    work.dispatch_kept(
                        "floats to ordered keys",
                        &keys,
                        k.clone(),
                        &[(&tb, ti)],
                        Some(&[tk]),
                        Grid::linear(floats, WORKGROUP),
                    );
                    let mm = self.fixed_pipeline("scatter min max", sh::min_max)?;
                    let mut m = info.clone();
                    m[2] = [which, 0, 0, 0];
                    work.dispatch_kept(
                        if which == 1 {
                            "atomicMax of keys"
                        } else {
                            "atomicMin of keys"
                        },
                        &mm,
                        m,
                        &[(&ib, ii), (&db, di), (&tb, ti)],
                        Some(&[ik, dk, tk]),
                        Grid::linear(n, WORKGROUP),
                    );
                    k[2] = [which, 1, 0, 0];
                    work.dispatch_kept(
                        "keys back to floats",
                        &keys,
                        k,
                        &[(&tb, ti)],
                        Some(&[tk]),
                        Grid::linear(floats, WORKGROUP),
                    );
                }
                ScatterOp::Reduce(..) => {
                    let (p, built) = self.round_pipeline(op, RoundInput::Scattered, fpe)?;
                    compiled = built;
                    self.encode_rounds(
                        &mut work,
                        &p,
                        &info,
                        (index, dst.shape()),
                        [(&db, di), (&tb, ti)],
                    )?;
                }
            }
            work.submit()
        })?;
        self.record(CallTrace {
            op: label,
            compiled,
            steps,
        });
        Ok(())
    }

    /// Encodes the rounds of a combination in index order: the targets of `index` into a
    /// stream of `shape` (read back and planned on the host), one dispatch per round of `p`
    /// with `bound` (the elements' side, the combined stream) after the pairs.
    fn encode_rounds(
        &self,
        work: &mut Work,
        p: &Pipeline,
        info: &[[u32; 4]],
        (index, shape): (&WgpuStream, &[usize]),
        bound: [(&wgpu::Buffer, u32); 2],
    ) -> Result<()> {
        let (rounds, targets) = self.rounds(index, shape)?;
        let (pairs, rounds) = round_pairs(&rounds, &targets);
        let gpu = &self.gpu;
        let pb = scratch(gpu, "brook round pairs", pairs.len() as u64 * 4);
        gpu.write_buffer(&pb, 0, bytemuck::cast_slice(&pairs));
        for (k, &(first, count)) in rounds.iter().enumerate() {
            let mut i = info.to_vec();
            i[0][0] = count;
            i[2][1] = first;
            work.dispatch(
                &format!("round {} of {}", k + 1, rounds.len()),
                p,
                i,
                &[(&pb, 0), bound[0], bound[1]],
                Grid::linear(u64::from(count), WORKGROUP),
            );
        }
        Ok(())
    }

    /// Brook's `streamGatherOp(dst, index, data, op)`: for every element `i` of `index`, in
    /// index order, `dst[i] = data[index[i]]`, then with an update `data[index[i]] =
    /// op(operand, data[index[i]])` (`operand`: one element of `data`'s type, or the fetched
    /// element itself).
    pub fn gather_op(
        &self,
        dst: &WgpuStream,
        index: &WgpuStream,
        data: &WgpuStream,
        update: Option<(ScatterOp, Operand)>,
    ) -> Result<()> {
        const OP: &str = "streamGatherOp";
        self.own(OP, &[dst, index, data])?;
        check_indexed(OP, data, index, dst)?;
        let gpu = &self.gpu;
        let fpe = data.floats_per_element();
        if let Some((_, Operand::Constant(operand))) = update {
            if operand.len() != fpe {
                return Err(WgpuError::precondition(
                    OP,
                    "an operand of another size than an element",
                ));
            }
        }
        let n = index.len() as u64;
        let label = format!("{OP} {}", update.map_or("fetch".into(), |(o, _)| o.name()));
        let (ib, db, tb) = (
            index.buffer().expect("checked").clone(),
            data.buffer().expect("checked").clone(),
            dst.buffer().expect("checked").clone(),
        );
        let (ii, di, ti) = (index.id(), data.id(), dst.id());
        let mut compiled = None;
        let steps = gpu.scoped(&label, || {
            let mut work = Work::new(gpu, self.tracing());
            let mut info = vec![[0u32; 4]; SLOTS as usize];
            info[0] = [n as u32, 0, data.shape().len() as u32, fpe as u32];
            info[1] = extent_slot(data.shape());
            match update {
                None => {
                    let p = self.fixed_pipeline("gather-op fetch", sh::fetch)?;
                    work.dispatch(
                        "fetch",
                        &p,
                        info,
                        &[(&ib, ii), (&db, di), (&tb, ti)],
                        Grid::linear(n, WORKGROUP),
                    );
                }
                Some((op, operand)) => {
                    let input = match operand {
                        Operand::Constant(_) => RoundInput::Constant,
                        Operand::Fetched => RoundInput::Fetched,
                    };
                    let (p, built) = self.round_pipeline(op, input, fpe)?;
                    compiled = built;
                    if let Operand::Constant(operand) = operand {
                        info.resize((ROUND_OPERAND as usize) + fpe.div_ceil(4), [0; 4]);
                        for (c, x) in operand.iter().enumerate() {
                            info[ROUND_OPERAND as usize + c / 4][c % 4] = x.to_bits();
                        }
                    }
                    self.encode_rounds(
                        &mut work,
                        &p,
                        &info,
                        (index, data.shape()),
                        [(&tb, ti), (&db, di)],
                    )?;
                }
            }
            work.submit()
        })?;
        self.record(CallTrace {
            op: label,
            compiled,
            steps,
        });
        Ok(())
    }
}
