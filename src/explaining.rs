//! The runtime's side of the pipeline explorer: while a run is explained, every stream
//! operation reports its trace entries and the streams it wrote, read back, to the recorder
//! (`brook_explain::Recorder::operation`). This is what gives CPU and wgpu cards pictures
//! (they have no textures to photograph pass by pass) and what backends are compared on.
//! Outside an explained run it costs one `RefCell` check per operation.

use brook_core::{BrookError, CallTrace, TraceEntry};
use brook_explain::StreamContents;
use brook_ir::{FunctionKind, ParamClass};

use crate::arg::Arg;
use crate::program::Program;
use crate::runtime::Runtime;
use crate::stream::Stream;

impl Runtime {
    /// Starts recording every operation for the explorer (see [`Runtime::explain`]), pictures
    /// at most `max_side` pixels a side. For runs that cannot be one closure, as `brcc explain`
    /// running a whole C++ program; [`Runtime::finish_explaining`] ends it.
    pub fn start_explaining(&self, max_side: u32) {
        self.settle_or_keep();
        let recorder = brook_explain::Recorder::start(self.backend.as_ref(), max_side);
        *self.session.recorder.borrow_mut() = Some(recorder);
    }

    /// Ends the recording [`Runtime::start_explaining`] began (an empty one, the trace left
    /// as it was, if none was).
    pub fn finish_explaining(&self) -> brook_explain::Recording {
        self.settle_or_keep();
        let recorder = self.session.recorder.borrow_mut().take();
        match recorder {
            Some(recorder) => recorder.finish(self.backend.as_ref()),
            None => brook_explain::Recording {
                name: self.backend.name().into(),
                backend: self.backend.describe(),
                ..Default::default()
            },
        }
    }

    /// Reports an operation that ran to the recorder, when a run is explained
    /// ([`Session::explained`](crate::session::Session::explained)).
    pub(crate) fn explained(
        &self,
        untraced: impl FnOnce() -> Option<TraceEntry>,
        outputs: impl FnOnce() -> Vec<StreamContents>,
    ) {
        self.session.explained(untraced, outputs);
    }

    /// The output and vout streams of a kernel call, by parameter name.
    pub(crate) fn kernel_outputs(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Vec<StreamContents> {
        let Ok((_, func)) = program.compiled.function(kernel, FunctionKind::Kernel) else {
            return Vec::new();
        };
        func.params
            .iter()
            .zip(args)
            .filter(|(p, _)| matches!(p.class, ParamClass::Out | ParamClass::Vout { .. }))
            .filter_map(|(p, a)| match a {
                Arg::Stream(s) => Some(contents(&p.name, s)),
                Arg::Domain(d) => Some(contents(&p.name, d.stream)),
                Arg::Constant(_) => None,
            })
            .collect()
    }
}

/// `stream` read back whole, as the recorder keeps it.
pub(crate) fn contents(name: &str, stream: &Stream) -> StreamContents {
    read_back(
        name,
        stream.shape(),
        stream.floats_per_element(),
        stream.to_vec(),
    )
}

/// A stream's contents as the recorder keeps them: `values`, or why they could not be read.
pub(crate) fn read_back(
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
    }
}

/// The card of a write mask on a backend that traced nothing for it (the CPU).
pub(crate) fn untraced_write_mask() -> TraceEntry {
    TraceEntry::WriteMask(CallTrace {
        function: "streamSetWriteMask".into(),
        source_line: None,
        variant: "elements on where the mask's first float is non-zero".into(),
        compiled: None,
        scratch: Vec::new(),
        passes: Vec::new(),
    })
}
