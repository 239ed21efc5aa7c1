//! Copies of streams the runtime makes so that programs written for the original BrookGPU
//! mean what they meant there:
//! - a stream that one kernel call both writes (`out`) and gathers (`T g[]`), as in the
//!   original's scan (`csum(input, input, output)`, the output gathered by the next step): the
//!   gather reads the values from before the call, as Brook's streams mean (a call's outputs
//!   appear once it has run). The call gathers from a copy made first, so brook-core's
//!   aliasing rule, which refuses one stream gathered and written, sees two;
//! - an iterator as ScatterOp's or GatherOp's index (or ScatterOp's data), which address
//!   stored elements: it is read into a stream of its shape first.

use brook_core::BrookError;
use brook_ir::{FunctionKind, ParamClass};

use crate::arg::Arg;
use crate::program::Program;
use crate::runtime::Runtime;
use crate::stream::Stream;

impl Runtime {
    /// A new stream holding `s`'s elements (an iterator's computed values).
    fn copy_of(&self, s: &Stream) -> Result<Stream, BrookError> {
        let copy = self.stream(s.format().clone(), s.shape())?;
        copy.read(&s.to_vec()?)?;
        Ok(copy)
    }

    /// `s` read into a stream if it is an iterator (`None` for a stream).
    pub(crate) fn materialised(&self, s: &Stream) -> Result<Option<Stream>, BrookError> {
        s.is_iter().then(|| self.copy_of(s)).transpose()
    }

    /// For each argument: a copy of the stream if the call gathers it whole and also writes it
    /// (`None` elsewhere; an empty list when no argument needs one). A call the checks refuse
    /// gets no copies: its error comes from the checks.
    pub(crate) fn gathered_outputs(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Result<Vec<Option<Stream>>, BrookError> {
        let Ok((_, func)) = program.compiled().function(kernel, FunctionKind::Kernel) else {
            return Ok(Vec::new());
        };
        // Every kernel call passes here: one without gathers needs nothing, and allocates nothing.
        if !(func.params.iter()).any(|p| matches!(p.class, ParamClass::Gather { .. })) {
            return Ok(Vec::new());
        }
        let storage = |a: &Arg| match a {
            Arg::Stream(s) => Some(s.arg(None).storage as *const dyn std::any::Any as *const ()),
            Arg::Domain(d) => {
                Some(d.stream.arg(None).storage as *const dyn std::any::Any as *const ())
            }
            Arg::Constant(_) => None,
        };
        let written: Vec<*const ()> = args
            .iter()
            .zip(&func.params)
            .filter(|(_, p)| p.class.is_output())
            .filter_map(|(a, _)| storage(a))
            .collect();
        let mut copies = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(&func.params) {
            let copy = match a {
                Arg::Stream(s)
                    if matches!(p.class, ParamClass::Gather { .. })
                        && storage(a).is_some_and(|x| written.contains(&x)) =>
                {
                    Some(self.copy_of(s)?)
                }
                _ => None,
            };
            copies.push(copy);
        }
        if copies.iter().all(Option::is_none) {
            copies.clear();
        }
        Ok(copies)
    }
}
