//! Where did this value come from? An element's history after a recorded run
//! (`docs/why.md`): which operation wrote the element's final value, what it read for that
//! element (each gather's index, rounded and clamped), and the same for each of those, back
//! to the host's `streamRead`s.
//!
//! Recording ([`Runtime::record_history`]) keeps every stream's contents after each operation
//! that writes it, read back from the backend, and for each operation the versions it read
//! (`log`, filled by the gate: `src/gate/history.rs`). A history ([`Runtime::why`]) walks
//! back from an element (`walk`), re-evaluating on the CPU interpreter the one element of
//! each kernel call, reduction step and combiner with the recorded inputs (`replay`), and is
//! returned as a tree (`tree`).

mod log;
mod replay;
mod tree;
mod walk;

use std::fmt;

use brook_core::BrookError;

pub(crate) use log::{
    ArgRecord, At, CombinerRecord, GatherOpRecord, HistoryLog, KernelRecord, Origin, ReduceRecord,
    ScatterRecord, StreamLog,
};
pub use tree::Why;

use crate::runtime::Runtime;
use crate::stream::Stream;

/// How far a history follows inputs back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Operations back from the element (a kernel's inputs are one deeper than its output).
    pub depth: usize,
    /// Elements shown in all.
    pub elements: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: 8,
            elements: 64,
        }
    }
}

/// An element's history: the tree, and where it stopped following inputs, if it did.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// The element's value and how it came to be, its inputs below it.
    pub tree: Why,
    /// Why some inputs were not followed (the depth or element limit), if any were not.
    pub stopped: Option<String>,
}

impl fmt::Display for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tree)?;
        if let Some(why) = &self.stopped {
            writeln!(
                f,
                "(stopped where marked: {why}; raise the limit to see further)"
            )?;
        }
        Ok(())
    }
}

impl Runtime {
    /// Starts recording (`true`: a fresh record, forgetting an earlier one) or stops and
    /// forgets (`false`) what element histories need: every stream's contents after each
    /// operation that writes it, and what each operation read. Automatic fusion is off while
    /// recording, so every kernel call writes its output as the program wrote it.
    pub fn record_history(&self, on: bool) -> Result<(), BrookError> {
        self.gate.record_history(on)
    }

    /// Names `stream` in histories (a host variable's name); unnamed streams are `stream#N`,
    /// numbered in the order the recording first met them.
    pub fn name_stream(&self, stream: &Stream, name: &str) {
        self.gate.name_stream(&stream.arg(None), name);
    }

    /// The history of `stream`'s element `element` (first dimension first) as it is now,
    /// within the default [`Limits`].
    pub fn why(&self, stream: &Stream, element: &[usize]) -> Result<History, BrookError> {
        self.why_within(stream, element, Limits::default())
    }

    /// [`Runtime::why`] within `limits`.
    pub fn why_within(
        &self,
        stream: &Stream,
        element: &[usize],
        limits: Limits,
    ) -> Result<History, BrookError> {
        self.gate
            .history(|log, gate| {
                let id = gate.history_id(log, &stream.arg(None));
                history(log, id, element, limits)
            })
            .unwrap_or_else(not_recording)
    }

    /// Every stream name the recording knows ([`Runtime::name_stream`]) and the extents of
    /// the last stream made with it, in name order (empty when nothing is recorded).
    pub fn named_streams(&self) -> Vec<(String, Vec<usize>)> {
        self.gate
            .history(|log, _| {
                (log.names().into_iter())
                    .filter_map(|n| Some((n.to_string(), log.streams[log.named(n)?].shape.clone())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The history of element `element` of the last stream named `name`
    /// ([`Runtime::name_stream`]; brcc names every stream after its host variable), as it
    /// was when the recording last saw it: what `brcc why` prints after the program ended.
    pub fn why_named(
        &self,
        name: &str,
        element: &[usize],
        limits: Limits,
    ) -> Result<History, BrookError> {
        self.gate
            .history(|log, _| {
                let id = log.named(name).ok_or_else(|| {
                    let names = log.names();
                    BrookError::Unknown {
                        name: name.into(),
                        what: "stream",
                        message: format!(
                            "no stream named `{name}` was recorded; the program's streams: {}",
                            names.join(", ")
                        ),
                    }
                })?;
                history(log, id, element, limits)
            })
            .unwrap_or_else(not_recording)
    }
}

/// The history of every element of stream `id` as it is now, within `limits` (for the
/// explorer's pages).
#[cfg(feature = "explain")]
pub(crate) fn every_element(log: &HistoryLog, id: usize, limits: Limits) -> Vec<Why> {
    let count: usize = log.streams[id].shape.iter().product();
    (0..count)
        .map(|linear| walk::Walker::new(log, limits).element(log.current(id), linear, 0, ""))
        .collect()
}

fn not_recording() -> Result<History, BrookError> {
    Err(BrookError::State {
        call: "why".into(),
        message: "no history is being recorded: call `record_history(true)` before the run".into(),
    })
}

/// The history of `element` of stream `id`'s last version.
fn history(
    log: &HistoryLog,
    id: usize,
    element: &[usize],
    limits: Limits,
) -> Result<History, BrookError> {
    let stream = &log.streams[id];
    let shape = &stream.shape;
    if element.len() != shape.len() || element.iter().zip(shape).any(|(i, n)| i >= n) {
        return Err(BrookError::Usage(format!(
            "{}{} is not an element of `{}`, of extents {}",
            stream.label(id),
            element.iter().map(|i| format!("[{i}]")).collect::<String>(),
            stream.label(id),
            brook_core::fmt_shape(shape)
        )));
    }
    let linear = element.iter().zip(shape).fold(0, |l, (i, n)| l * n + i);
    let mut walker = walk::Walker::new(log, limits);
    let tree = walker.element(log.current(id), linear, 0, "");
    Ok(History {
        tree,
        stopped: walker.stopped,
    })
}
