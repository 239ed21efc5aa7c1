//! A stream that one kernel call both writes (`out`) and gathers (`T g[]`), as in the
//! original's scan (`csum(input, input, output)` with `output` also gathered later): the
//! gather reads the values from before the call, as Brook's streams mean (a call's outputs
//! appear once it has run). The runtime gathers from a copy made before the call, so
//! brook-core's aliasing rule, which refuses one stream gathered and written, sees two.

use brook_core::BrookError;
use brook_frontend::ir::{FunctionKind, ParamClass};

use crate::arg::Arg;
use crate::program::Program;
use crate::runtime::Runtime;
use crate::stream::Stream;

impl Runtime {
    /// For each argument: a copy of the stream if the call gathers it whole and also writes it
    /// (`None` elsewhere; an empty list when no argument needs one). A call the checks refuse
    /// gets no copies: its error comes from the checks.
    pub(crate) fn gathered_outputs(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Result<Vec<Option<Stream>>, BrookError> {
        let Ok((_, func)) = program.compiled.function(kernel, FunctionKind::Kernel) else {
            return Ok(Vec::new());
        };
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
                    let copy = self.stream(s.format().clone(), s.shape())?;
                    copy.read(&s.to_vec()?)?;
                    Some(copy)
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
