//! The gate's side of the pipeline explorer: while a run is explained, every operation that
//! ran reports its trace entries and the streams it wrote, read back, to the recorder
//! (`brook_explain::Recorder::operation`), from the gate that ran it — a deferred kernel call
//! when it runs, not when it was called. This is what gives CPU and wgpu cards pictures (they
//! have no textures to photograph pass by pass) and what backends are compared on. Outside
//! an explained run it costs one `RefCell` check per operation.

use brook_core::{BrookError, CallTrace, KernelCall, ReduceOutput, StreamArg, TraceEntry};
use brook_explain::{Recorder, Recording, StreamContents};
use brook_ir::ParamClass;

use super::handles::inner;
use super::Gate;

impl Gate {
    /// Starts recording every operation, pictures at most `max_side` pixels a side; a call
    /// waiting since before runs first, outside the recording.
    pub(crate) fn start_recording(&self, max_side: u32) {
        self.settle_or_keep();
        let recorder = Recorder::start(self.backend.as_ref(), max_side);
        *self.recorder.borrow_mut() = Some(recorder);
    }

    /// Ends the recording (an empty one, the trace left as it was, if none was under way);
    /// a call waiting runs first, inside it.
    pub(crate) fn finish_recording(&self) -> Recording {
        self.settle_or_keep();
        let recorder = self.recorder.borrow_mut().take();
        match recorder {
            Some(recorder) => recorder.finish(self.backend.as_ref()),
            None => Recording {
                name: self.backend.name().into(),
                backend: self.backend.describe(),
                ..Default::default()
            },
        }
    }

    /// A program was compiled: its source is kept for the cards while recording.
    pub(super) fn compiled(&self, compiled: &brook_core::Compiled) {
        if let Some(recorder) = self.recorder.borrow_mut().as_mut() {
            recorder.compiled(&compiled.source);
        }
    }

    /// Reports an operation that ran: `untraced` is the card of a backend that traced
    /// nothing for it, `wrote` the gate's streams it wrote, by name.
    pub(super) fn record(&self, untraced: Option<TraceEntry>, wrote: &[(&str, &StreamArg)]) {
        self.recorded(|| {
            let outputs = wrote
                .iter()
                .map(|(name, s)| self.read_back(name, &inner(s)));
            (untraced, outputs.collect())
        });
    }

    /// Reports a kernel call (as the backend took it) that ran: its output and vout streams,
    /// by parameter name.
    pub(super) fn record_kernel(&self, call: &KernelCall) {
        self.recorded(|| {
            let params = call.function().params.iter().zip(call.args);
            let outputs = params
                .filter(|(p, _)| matches!(p.class, ParamClass::Out | ParamClass::Vout { .. }))
                .filter_map(|(p, a)| Some(self.read_back(&p.name, a.stream()?)));
            (None, outputs.collect())
        });
    }

    /// Reports a reduction (the gate's target) that ran: its result.
    pub(super) fn record_reduction(&self, output: &ReduceOutput) {
        self.recorded(|| {
            let result = match output {
                ReduceOutput::Value(v) => read_back("result", &[1], v.len(), Ok(v.to_vec())),
                ReduceOutput::Stream(s) => self.read_back("result", &inner(s)),
            };
            (None, vec![result])
        });
    }

    /// Hands the recorder what `report` makes (called only while recording): the operation's
    /// card for a backend that traced nothing, and the streams it wrote.
    fn recorded(&self, report: impl FnOnce() -> (Option<TraceEntry>, Vec<StreamContents>)) {
        if self.recorder.borrow().is_none() {
            return;
        }
        let (untraced, outputs) = report();
        if let Some(recorder) = self.recorder.borrow_mut().as_mut() {
            recorder.operation(self.backend.as_ref(), untraced, outputs);
        }
    }

    /// The whole of `stream` (the backend's), read back from the backend, with its elements'
    /// histories where the run records them.
    fn read_back(&self, name: &str, stream: &StreamArg) -> StreamContents {
        let whole = StreamArg {
            domain: None,
            ..*stream
        };
        let floats = stream.format.floats_per_element();
        let mut out = vec![0.0; stream.shape.iter().product::<usize>() * floats];
        let read = match stream.iter {
            Some(spec) => spec.write(None, &mut out).map_err(BrookError::from),
            None => self.backend.write(&whole, &mut out),
        };
        let read = read.map(|()| out);
        let contents = read_back(name, stream.shape, floats, read);
        #[cfg(feature = "cpu")]
        let contents = {
            let operation = self.recorder.borrow().as_ref().map(Recorder::operations);
            StreamContents {
                histories: (operation.map(|op| self.explorer_histories(stream, op)))
                    .unwrap_or_default(),
                ..contents
            }
        };
        contents
    }
}

/// A stream's contents as the recorder keeps them: `values`, or why they could not be read.
fn read_back(
    name: &str,
    shape: &[usize],
    components: usize,
    values: Result<Vec<f32>, BrookError>,
) -> StreamContents {
    StreamContents {
        name: name.into(),
        shape: shape.to_vec(),
        components,
        values: values.map_err(|e| e.to_string()),
        histories: Vec::new(),
    }
}

impl Gate {
    /// Reports a write mask that was set, with its card for a backend that traced nothing
    /// for it (the CPU).
    pub(super) fn record_write_mask(&self, mask: &StreamArg) {
        let untraced = untraced_write_mask(
            "streamSetWriteMask",
            "elements on where the mask's first float is non-zero",
        );
        self.record(Some(untraced), &[("mask", mask)]);
    }

    /// Reports a write mask made or cleared (`call`): every element open, no stream written.
    pub(super) fn record_mask_opened(&self, call: &str) {
        self.record(Some(untraced_write_mask(call, "every element open")), &[]);
    }

    /// Reports a swap, with its card for a backend that traced nothing for it.
    pub(super) fn record_swap(&self, a: &StreamArg, b: &StreamArg) {
        let untraced = TraceEntry::Swap {
            first: Vec::new(),
            second: Vec::new(),
        };
        self.record(Some(untraced), &[("first", a), ("second", b)]);
    }
}

/// The card of a write mask operation (`function`, what it made of the mask: `variant`) on a
/// backend that traced nothing for it (the CPU).
fn untraced_write_mask(function: &str, variant: &str) -> TraceEntry {
    TraceEntry::WriteMask(CallTrace {
        function: function.into(),
        source_line: None,
        variant: variant.into(),
        compiled: None,
        scratch: Vec::new(),
        passes: Vec::new(),
    })
}
