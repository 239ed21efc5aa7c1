//! What a run recorded for element histories: every stream's contents after each operation
//! that wrote it (its versions), and for each version the operation that made it, with the
//! versions of everything that operation read. The contents are the backend's, read back
//! after the operation: what a history shows as an element's value is what the backend
//! computed, exactly.

use std::collections::HashMap;
use std::rc::Rc;

use brook_core::{Compiled, Domain, IterSpec, ReducePlan};
use brook_ir::FunctionId;

/// A stream of the run, numbered in the order the recording first saw it.
pub(crate) type StreamId = usize;

/// One version of one stream: what an operation read or wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct At {
    pub stream: StreamId,
    pub version: usize,
}

/// One stream: its names (the host's variables, or none given), layout and versions.
pub(crate) struct StreamLog {
    /// The names given, each with the version it was given at: brcc's `streamSwap` trades
    /// the streams two variables hold, and each stream takes the other's name from then on.
    pub names: Vec<(usize, String)>,
    pub shape: Vec<usize>,
    /// Floats of each member of an element.
    pub widths: Vec<u8>,
    pub iter: Option<IterSpec>,
    pub versions: Vec<Version>,
}

impl StreamLog {
    /// The name it has now, if it was given one.
    pub fn name(&self) -> Option<&str> {
        self.names.last().map(|(_, n)| n.as_str())
    }

    /// Names it from its current version on.
    pub fn rename(&mut self, name: &str) {
        let from = self.versions.len().saturating_sub(1);
        self.names.retain(|(v, _)| *v < from);
        self.names.push((from, name.into()));
    }

    /// The name a history prints for its version `version`: the host's variable that held
    /// it then, or `stream#N`.
    pub fn label_at(&self, id: StreamId, version: usize) -> String {
        let name = self.names.iter().rev().find(|(v, _)| *v <= version);
        match name.or(self.names.first()) {
            Some((_, n)) => n.clone(),
            None => format!("stream#{id}"),
        }
    }

    /// The name it has now, or `stream#N`.
    pub fn label(&self, id: StreamId) -> String {
        self.label_at(id, self.versions.len().saturating_sub(1))
    }

    pub fn floats_per_element(&self) -> usize {
        self.widths.iter().map(|&w| usize::from(w)).sum()
    }
}

/// A stream's contents after one operation, and that operation.
pub(crate) struct Version {
    pub contents: Rc<Vec<f32>>,
    pub origin: Origin,
    /// The operation's number in the run (0: before the recording).
    pub op: usize,
}

/// How a version came to be.
pub(crate) enum Origin {
    /// The contents when the recording first saw the stream (made before it, or an iterator).
    Before,
    /// `streamRead` from host memory, of the whole stream or a domain of it (the rest kept).
    HostRead { domain: Option<Domain> },
    /// A kernel call's `out` or `vout` parameter `param`.
    Kernel {
        call: Rc<KernelRecord>,
        param: usize,
    },
    /// A reduction into this stream.
    Reduce(Rc<ReduceRecord>),
    /// `streamScatterOp` into this stream.
    Scatter(Rc<ScatterRecord>),
    /// `streamGatherOp`: its destination (`dst`) or the data it updated.
    GatherOp { call: Rc<GatherOpRecord>, dst: bool },
    /// `streamSwap`: the other stream's contents, now this one's.
    Swap { from: At },
    /// The same contents under a new name: brcc's `streamSwap` trades the streams two
    /// variables hold, and names each after the variable that holds it now.
    Renamed { before: String, from: At },
    /// The first elements of another stream, copied (a vout's result, replaced by a stream
    /// of exactly its pushes, as the original's vout arguments are: only the C ABI does).
    #[cfg_attr(not(feature = "brcc"), allow(dead_code))]
    Copy { from: At },
}

/// One argument of a recorded kernel call or reduction.
pub(crate) enum ArgRecord {
    /// A stream, iterator or gather: the version read, and the domain passed.
    Input { at: At, domain: Option<Domain> },
    /// A constant's floats.
    Constant(Vec<f32>),
    /// An `out` or `vout` stream: its version before the call, and the domain written.
    Output { before: At, domain: Option<Domain> },
}

/// A kernel call as recorded.
pub(crate) struct KernelRecord {
    pub compiled: Rc<Compiled>,
    pub kernel: FunctionId,
    pub args: Vec<ArgRecord>,
    /// The call's shape (its output domain's).
    pub shape: Vec<usize>,
    /// The write mask in force, when the call was masked by a loaded mask stream.
    pub mask: Option<At>,
    /// The call was masked by a mask the history does not keep (a C++ `write_mask`, or a
    /// loaded mask that `clear` or the set mode changed since): which elements it wrote is
    /// not known.
    pub untracked_mask: bool,
    pub op: usize,
}

/// A reduction into a stream, as recorded.
pub(crate) struct ReduceRecord {
    pub compiled: Rc<Compiled>,
    pub function: FunctionId,
    pub input: At,
    pub domain: Option<Domain>,
    /// The reduce function's constant and gather arguments, in parameter order.
    pub extra: Vec<ArgRecord>,
    pub plan: ReducePlan,
    pub op: usize,
}

/// How a scatter or gather-op combines.
pub(crate) enum CombinerRecord {
    Replace,
    Add,
    Min,
    Max,
    Reduce {
        compiled: Rc<Compiled>,
        function: FunctionId,
    },
}

/// `streamScatterOp(dst, index, data, op)` as recorded.
pub(crate) struct ScatterRecord {
    pub dst_before: At,
    pub index: At,
    pub data: At,
    pub op: CombinerRecord,
    pub op_no: usize,
}

/// `streamGatherOp(dst, index, data, op)` as recorded: the update's combiner and its operand
/// (`None`: the fetched element itself).
pub(crate) struct GatherOpRecord {
    pub index: At,
    pub data_before: At,
    pub update: Option<(CombinerRecord, Option<Vec<f32>>)>,
    pub op_no: usize,
}

/// The whole record of a run.
#[derive(Default)]
pub(crate) struct HistoryLog {
    pub streams: Vec<StreamLog>,
    /// The live stream at each gate stream address (a freed stream's address may be reused
    /// by a new one, which then gets a new id).
    pub by_address: HashMap<usize, StreamId>,
    /// The same streams by the address of their backend storage (what the explorer's
    /// recording is handed).
    pub by_storage: HashMap<usize, StreamId>,
    /// Operations recorded so far.
    pub ops: usize,
    /// The write mask last set: the version it took, and the backend mask it was loaded
    /// into (its address), while nothing changed that mask since.
    pub mask: Option<(At, usize)>,
    /// Whether automatic fusion was on before the recording switched it off.
    pub fusion_was: bool,
    /// Operation → the explorer's number for it, where the run is also explained.
    #[cfg(feature = "explain")]
    pub explorer: HashMap<usize, usize>,
}

impl HistoryLog {
    /// The current version of `stream`.
    pub fn current(&self, stream: StreamId) -> At {
        At {
            stream,
            version: self.streams[stream].versions.len() - 1,
        }
    }

    /// A new operation's number.
    pub fn next_op(&mut self) -> usize {
        self.ops += 1;
        self.ops
    }

    /// Appends a version of `stream` made by operation `op`.
    pub fn push(&mut self, stream: StreamId, contents: Rc<Vec<f32>>, origin: Origin, op: usize) {
        self.streams[stream].versions.push(Version {
            contents,
            origin,
            op,
        });
    }

    /// The stream a name denotes: the last one made with it (`brcc why` after the program,
    /// when a loop made several).
    pub fn named(&self, name: &str) -> Option<StreamId> {
        (0..self.streams.len())
            .rev()
            .find(|&id| self.streams[id].name() == Some(name))
    }

    /// Every name given to a stream, sorted, each once.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = (self.streams.iter()).filter_map(StreamLog::name).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    pub fn version(&self, at: At) -> &Version {
        &self.streams[at.stream].versions[at.version]
    }
}
