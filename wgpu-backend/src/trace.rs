//! What each Brook call became on wgpu, step by step, as plain data: the dispatches (the
//! pipeline, the buffers bound, the workgroup counts), the copies and the clears. People
//! learning the pipeline read it next to the GL backend's pass trace; tests assert the
//! structure of a call with it.

use std::fmt;

/// One Brook operation.
#[derive(Debug, Clone, PartialEq)]
pub struct CallTrace {
    /// `kernel saxpy`, `reduce sum to a value`, `streamScatterOp add`, …
    pub op: String,
    /// How long this call spent building its pipelines (the first of its kind); `None`
    /// when it reused them.
    pub compiled: Option<std::time::Duration>,
    /// Every command the call recorded, in order.
    pub steps: Vec<Step>,
}

/// One command recorded for a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A compute dispatch.
    Dispatch(Dispatch),
    /// A buffer copy (`what` says which and why).
    Copy {
        /// The buffer copied, and why.
        what: String,
        /// Bytes copied.
        bytes: u64,
    },
    /// A buffer cleared to zero.
    Clear {
        /// The buffer cleared, and why.
        what: String,
        /// Bytes cleared.
        bytes: u64,
    },
}

/// One compute dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    /// What the pass does (`kernel`, `reduce pass 1 of 3`, `scan level 0`, …).
    pub label: String,
    /// The pipeline's number.
    pub pipeline: u32,
    /// The pipeline's WGSL.
    pub source: std::sync::Arc<brook_core::ShaderSource>,
    /// Binding k+1: (what it holds, buffer id).
    pub bindings: Vec<(String, u32)>,
    /// Workgroups along x, y and z.
    pub workgroups: [u32; 3],
    /// Invocations that do work (the rest of the last workgroup return at once).
    pub invocations: u64,
}

impl fmt::Display for CallTrace {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(
            f,
            "{} ({})",
            self.op,
            if self.compiled.is_some() {
                "pipelines built"
            } else {
                "pipelines reused"
            }
        )?;
        for s in &self.steps {
            match s {
                Step::Dispatch(d) => {
                    let b: Vec<String> = d
                        .bindings
                        .iter()
                        .map(|(n, id)| format!("{n}=#{id}"))
                        .collect();
                    writeln!(
                        f,
                        "  dispatch {} [{}x{}x{} workgroups, {} invocations] pipeline {}: {}",
                        d.label,
                        d.workgroups[0],
                        d.workgroups[1],
                        d.workgroups[2],
                        d.invocations,
                        d.pipeline,
                        b.join(" ")
                    )?;
                }
                Step::Copy { what, bytes } => writeln!(f, "  copy {what} ({bytes} bytes)")?,
                Step::Clear { what, bytes } => writeln!(f, "  clear {what} ({bytes} bytes)")?,
            }
        }
        Ok(())
    }
}

impl CallTrace {
    /// The call's dispatches, skipping copies and clears.
    pub fn dispatches(&self) -> impl Iterator<Item = &Dispatch> {
        self.steps.iter().filter_map(|s| match s {
            Step::Dispatch(d) => Some(d),
            _ => None,
        })
    }
}
