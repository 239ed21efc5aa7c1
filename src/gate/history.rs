//! The gate's side of element histories (`crate::why`): while a history is recorded, each
//! operation notes the versions of the streams it reads before it runs (`note_*`) and the
//! contents of those it wrote after (`noted_*`), read back from the backend. Outside a
//! recording each hook is one `RefCell` check.

use std::any::Any;
use std::rc::Rc;

use brook_core::{
    BackendArg, BrookError, Combiner, GatherOpCall, KernelCall, Operand, ReduceCall, ReduceOutput,
    ScatterCall, StreamArg,
};
use brook_ir::ParamClass;

use super::handles::{inner, Prepared, StreamBody};
use super::Gate;
use crate::why::{
    ArgRecord, At, CombinerRecord, GatherOpRecord, HistoryLog, KernelRecord, Origin, ReduceRecord,
    ScatterRecord, StreamLog,
};

/// What an operation noted before it ran, for its outputs' versions after.
pub(super) enum Noted {
    Kernel(Rc<KernelRecord>),
    Reduce(Rc<ReduceRecord>),
    Scatter(Rc<ScatterRecord>),
    GatherOp(Rc<GatherOpRecord>),
    Swap(At, At),
}

impl Gate {
    /// Starts a fresh record (automatic fusion off, a waiting call run first) or stops.
    pub(crate) fn record_history(&self, on: bool) -> Result<(), BrookError> {
        if on {
            let was = self.deferred.automatic.replace(false);
            self.run_waiting(|_| true)?;
            let log = HistoryLog {
                fusion_was: was || self.history.borrow().as_ref().is_some_and(|l| l.fusion_was),
                ..HistoryLog::default()
            };
            *self.history.borrow_mut() = Some(log);
        } else if let Some(log) = self.history.borrow_mut().take() {
            self.deferred.automatic.set(log.fusion_was);
        }
        Ok(())
    }

    /// Whether a history is being recorded.
    pub(super) fn recording_history(&self) -> bool {
        self.history.borrow().is_some()
    }

    /// `f` of the record and this gate, while recording.
    pub(crate) fn history<T>(&self, f: impl FnOnce(&mut HistoryLog, &Gate) -> T) -> Option<T> {
        let mut history = self.history.borrow_mut();
        history.as_mut().map(|log| f(log, self))
    }

    /// Names `stream` in histories (again: renames it from now on).
    pub(crate) fn name_stream(&self, stream: &StreamArg, name: &str) {
        self.history(|log, gate| {
            let id = gate.history_id(log, stream);
            // A stream named before takes a new name from a new version, so that what it
            // held before is still shown under the name it had then (brcc's streamSwap).
            let before = log.streams[id]
                .name()
                .filter(|&n| n != name)
                .map(String::from);
            if let Some(before) = before {
                let from = log.current(id);
                let contents = log.version(from).contents.clone();
                let origin = Origin::Renamed { before, from };
                let op = log.ops;
                log.push(id, contents, origin, op);
            }
            log.streams[id].rename(name);
        });
    }

    /// The record's id of the gate's `stream`, seen for the first time now if it is new:
    /// then its contents now are its first version.
    pub(crate) fn history_id(&self, log: &mut HistoryLog, stream: &StreamArg) -> usize {
        let body = StreamBody::of(stream);
        let address = body as *const StreamBody as usize;
        if let Some(&id) = log.by_address.get(&address) {
            return id;
        }
        let id = log.streams.len();
        log.by_address.insert(address, id);
        log.by_storage.insert(storage_address(stream), id);
        log.streams.push(StreamLog {
            names: Vec::new(),
            shape: body.shape.clone(),
            widths: body.format.widths(),
            iter: body.iter.clone(),
            versions: Vec::new(),
        });
        let contents = self.contents(stream);
        log.push(id, contents, Origin::Before, 0);
        id
    }

    /// A new stream: whatever the record knew at its address was another stream's.
    pub(super) fn history_created(&self, body: &StreamBody) {
        self.history(|log, _| {
            log.by_address.remove(&(body as *const StreamBody as usize));
            log.by_storage.remove(&storage_address(&body.arg(None)));
        });
    }

    /// The histories of every element of the backend's `stream` as it is now, for the
    /// explorer's card of its `operation` (its number for the operation just noted): none for
    /// a stream of more than [`EXPLORED_ELEMENTS`] elements or one the record does not know.
    #[cfg(feature = "explain")]
    pub(super) fn explorer_histories(
        &self,
        stream: &StreamArg,
        operation: usize,
    ) -> Vec<brook_explain::HistoryStep> {
        let address = stream.storage as *const dyn std::any::Any as *const () as usize;
        self.history(|log, _| {
            log.explorer.insert(log.ops, operation);
            let Some(&id) = log.by_storage.get(&address) else {
                return Vec::new();
            };
            if log.streams[id].shape.iter().product::<usize>() > EXPLORED_ELEMENTS {
                return Vec::new();
            }
            let steps = crate::why::every_element(log, id, EXPLORED_LIMITS);
            steps.iter().map(|w| explorer_step(log, w)).collect()
        })
        .unwrap_or_default()
    }

    /// The whole of the gate's `stream`, read back from the backend (empty if it cannot be).
    fn contents(&self, stream: &StreamArg) -> Rc<Vec<f32>> {
        let whole = StreamArg {
            domain: None,
            ..*stream
        };
        let mut out =
            vec![0.0; stream.shape.iter().product::<usize>() * stream.format.floats_per_element()];
        let read = match stream.iter {
            Some(spec) => spec.write(None, &mut out).map_err(BrookError::from),
            None => self.backend.write(&inner(&whole), &mut out),
        };
        Rc::new(if read.is_ok() { out } else { Vec::new() })
    }

    /// The current version of the gate's `stream`.
    fn at(&self, log: &mut HistoryLog, stream: &StreamArg) -> At {
        let id = self.history_id(log, stream);
        log.current(id)
    }

    /// A new version of `stream` made by `origin`, read back now.
    fn wrote(&self, log: &mut HistoryLog, stream: &StreamArg, origin: Origin, op: usize) {
        let id = self.history_id(log, stream);
        let contents = self.contents(stream);
        log.push(id, contents, origin, op);
    }

    /// `streamRead` into `stream` (or a domain of it) ran.
    pub(super) fn noted_read(&self, stream: &StreamArg) {
        self.history(|log, gate| {
            let op = log.next_op();
            let origin = Origin::HostRead {
                domain: stream.domain.cloned(),
            };
            gate.wrote(log, stream, origin, op);
        });
    }

    /// The arguments of a call as recorded (outputs at their version before it).
    fn args(
        &self,
        log: &mut HistoryLog,
        params: &[brook_ir::Param],
        args: &[BackendArg],
    ) -> Vec<ArgRecord> {
        (params.iter().zip(args))
            .map(|(p, a)| match a {
                BackendArg::Constant(v) => ArgRecord::Constant(v.to_vec()),
                BackendArg::Stream(s) => {
                    let at = self.at(log, s);
                    let domain = s.domain.cloned();
                    match p.class {
                        ParamClass::Out | ParamClass::Vout { .. } => {
                            ArgRecord::Output { before: at, domain }
                        }
                        _ => ArgRecord::Input { at, domain },
                    }
                }
            })
            .collect()
    }

    /// A kernel call is about to run.
    pub(super) fn note_kernel(&self, call: &KernelCall) -> Option<Noted> {
        self.history(|log, gate| {
            let args = gate.args(log, &call.function().params, call.args);
            let bound = call.write_mask.map(mask_address);
            let mask = match log.mask {
                Some((at, loaded)) if call.mask.masked && bound == Some(loaded) => Some(at),
                _ => None,
            };
            if call.mask.sets && log.mask.is_some_and(|(_, loaded)| bound == Some(loaded)) {
                log.mask = None;
            }
            Noted::Kernel(Rc::new(KernelRecord {
                compiled: Prepared::of(call.program).compiled.clone(),
                kernel: call.kernel,
                args,
                shape: call.shape.to_vec(),
                mask,
                untracked_mask: call.mask.masked && mask.is_none(),
                op: log.next_op(),
            }))
        })
    }

    /// A kernel call ran: its outputs' new versions.
    pub(super) fn noted_kernel(&self, noted: Option<Noted>, call: &KernelCall) {
        let Some(Noted::Kernel(record)) = noted else {
            return;
        };
        self.history(|log, gate| {
            for (param, a) in call.args.iter().enumerate() {
                if let (Some(s), ArgRecord::Output { .. }) = (a.stream(), &record.args[param]) {
                    let origin = Origin::Kernel {
                        call: record.clone(),
                        param,
                    };
                    gate.wrote(log, s, origin, record.op);
                }
            }
        });
    }

    /// A reduction is about to run.
    pub(super) fn note_reduce(&self, call: &ReduceCall) -> Option<Noted> {
        self.history(|log, gate| {
            let input = gate.at(log, &call.input);
            let func = call.function();
            let extra_params: Vec<brook_ir::Param> = (func.params.iter())
                .filter(|p| !matches!(p.class, ParamClass::Stream | ParamClass::Reduce))
                .cloned()
                .collect();
            let extra = gate.args(log, &extra_params, call.extra);
            Noted::Reduce(Rc::new(ReduceRecord {
                compiled: Prepared::of(call.program).compiled.clone(),
                function: call.function,
                input,
                domain: call.input.domain.cloned(),
                extra,
                plan: call.plan.clone(),
                op: log.next_op(),
            }))
        })
    }

    /// A reduction ran: its target stream's new version (a value has no history here).
    pub(super) fn noted_reduce(&self, noted: Option<Noted>, output: &ReduceOutput) {
        let (Some(Noted::Reduce(record)), ReduceOutput::Stream(s)) = (noted, output) else {
            return;
        };
        self.history(|log, gate| gate.wrote(log, s, Origin::Reduce(record.clone()), record.op));
    }

    /// A scatter is about to run.
    pub(super) fn note_scatter(&self, call: &ScatterCall) -> Option<Noted> {
        self.history(|log, gate| {
            Noted::Scatter(Rc::new(ScatterRecord {
                dst_before: gate.at(log, &call.dst),
                index: gate.at(log, &call.index),
                data: gate.at(log, &call.data),
                op: combiner(&call.op),
                op_no: log.next_op(),
            }))
        })
    }

    /// A scatter ran: its destination's new version.
    pub(super) fn noted_scatter(&self, noted: Option<Noted>, call: &ScatterCall) {
        let Some(Noted::Scatter(record)) = noted else {
            return;
        };
        self.history(|log, gate| {
            gate.wrote(
                log,
                &call.dst,
                Origin::Scatter(record.clone()),
                record.op_no,
            )
        });
    }

    /// A gather-op is about to run.
    pub(super) fn note_gather_op(&self, call: &GatherOpCall) -> Option<Noted> {
        self.history(|log, gate| {
            let update = (call.update.as_ref()).map(|(op, operand)| {
                let operand = match operand {
                    Operand::Constant(v) => Some(v.to_vec()),
                    Operand::Fetched => None,
                };
                (combiner(op), operand)
            });
            gate.at(log, &call.dst);
            Noted::GatherOp(Rc::new(GatherOpRecord {
                index: gate.at(log, &call.index),
                data_before: gate.at(log, &call.data),
                update,
                op_no: log.next_op(),
            }))
        })
    }

    /// A gather-op ran: its destination's and (with an update) its data's new versions.
    pub(super) fn noted_gather_op(&self, noted: Option<Noted>, call: &GatherOpCall) {
        let Some(Noted::GatherOp(record)) = noted else {
            return;
        };
        self.history(|log, gate| {
            let origin = |dst| Origin::GatherOp {
                call: record.clone(),
                dst,
            };
            gate.wrote(log, &call.dst, origin(true), record.op_no);
            if call.update.is_some() {
                gate.wrote(log, &call.data, origin(false), record.op_no);
            }
        });
    }

    /// The stream `from` was loaded into the backend mask `mask`: the version it took.
    pub(super) fn noted_mask(&self, mask: &dyn Any, from: &StreamArg) {
        self.history(|log, gate| {
            log.next_op();
            log.mask = Some((gate.at(log, from), mask_address(mask)));
        });
    }

    /// The backend mask `mask` was cleared: a loaded mask's version no longer says what it
    /// holds.
    pub(super) fn noted_mask_cleared(&self, mask: &dyn Any) {
        self.history(|log, _| {
            if log
                .mask
                .is_some_and(|(_, loaded)| loaded == mask_address(mask))
            {
                log.mask = None;
            }
        });
    }

    /// Two streams are about to be swapped.
    pub(super) fn note_swap(&self, a: &StreamArg, b: &StreamArg) -> Option<Noted> {
        self.history(|log, gate| Noted::Swap(gate.at(log, a), gate.at(log, b)))
    }

    /// Two streams were swapped: each now holds the other's last version.
    pub(super) fn noted_swap(&self, noted: Option<Noted>) {
        let Some(Noted::Swap(a, b)) = noted else {
            return;
        };
        self.history(|log, _| {
            let op = log.next_op();
            let (ca, cb) = (
                log.version(a).contents.clone(),
                log.version(b).contents.clone(),
            );
            log.push(a.stream, cb, Origin::Swap { from: b }, op);
            log.push(b.stream, ca, Origin::Swap { from: a }, op);
        });
    }

    /// `to` received a copy of `from`'s first elements (a vout's result): in histories its
    /// elements are `from`'s, and it takes `from`'s name when it has none.
    // Only the C ABI copies a vout's result into a stream of its size.
    #[cfg_attr(not(feature = "brcc"), allow(dead_code))]
    pub(crate) fn noted_copy(&self, to: &StreamArg, from: &StreamArg) {
        self.history(|log, gate| {
            let from = gate.at(log, from);
            let id = gate.history_id(log, to);
            if log.streams[id].names.is_empty() {
                log.streams[id].names = log.streams[from.stream].names.clone();
            }
            let contents = log.streams[id]
                .versions
                .last()
                .map(|v| v.contents.clone())
                .unwrap_or_default();
            let op = log.ops;
            log.push(id, contents, Origin::Copy { from }, op);
        });
    }
}

/// The largest stream whose elements' histories the explorer's pages carry: they are
/// computed for every element (the page is static), and small streams are what a learner
/// clicks through.
#[cfg(feature = "explain")]
const EXPLORED_ELEMENTS: usize = 256;

/// How far the explorer's histories go: the page links each step to its card, where the
/// reader can click on.
#[cfg(feature = "explain")]
const EXPLORED_LIMITS: crate::why::Limits = crate::why::Limits {
    depth: 4,
    elements: 24,
};

/// A history step as the explorer shows it: operations by the explorer's numbers.
#[cfg(feature = "explain")]
fn explorer_step(log: &HistoryLog, why: &crate::why::Why) -> brook_explain::HistoryStep {
    brook_explain::HistoryStep {
        text: why.text.clone(),
        operation: why.op.and_then(|op| log.explorer.get(&op).copied()),
        number: why.op,
        read: why.read.clone(),
        value: why.value.clone(),
        inputs: why.inputs.iter().map(|w| explorer_step(log, w)).collect(),
    }
}

/// The address of a gate stream's backend storage.
fn storage_address(stream: &StreamArg) -> usize {
    inner(stream).storage as *const dyn std::any::Any as *const () as usize
}

/// A combiner as recorded (its reduce function's program kept alive).
fn combiner(op: &Combiner) -> CombinerRecord {
    match op {
        Combiner::Replace => CombinerRecord::Replace,
        Combiner::Add => CombinerRecord::Add,
        Combiner::Min => CombinerRecord::Min,
        Combiner::Max => CombinerRecord::Max,
        Combiner::Reduce {
            program, function, ..
        } => CombinerRecord::Reduce {
            compiled: Prepared::of(*program).compiled.clone(),
            function: *function,
        },
    }
}

/// A backend mask's identity: its address.
fn mask_address(mask: &dyn Any) -> usize {
    mask as *const dyn Any as *const () as usize
}
