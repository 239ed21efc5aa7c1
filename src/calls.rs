//! Kernel calls and reductions: the runtime's side of them. Arguments become the backend's
//! ([`BackendArg`]), brook-core's checks run, then the checked call passes the gate
//! (`src/gate/`) on its way to the backend.

use std::fmt::Display;

use brook_core::call::{check_kernel, check_reduce, check_resize, CallName, ReduceShape};
use brook_core::{
    Backend, BackendArg, BrookError, KernelCall, PassTrace, ReduceCall, ReduceOutput, StreamArg,
};
use brook_ir::{FunctionKind, ParamClass};

use crate::arg::Arg;
use crate::program::Program;
use crate::runtime::Runtime;
use crate::stream::Stream;

impl Runtime {
    /// Runs kernel `kernel` of `program`, one argument per parameter (see [`args!`](crate::args)).
    pub fn run(&self, program: &Program, kernel: &str, args: &[Arg]) -> Result<(), BrookError> {
        self.run_vout(program, kernel, args).map(drop)
    }

    /// Runs a kernel with `vout [N] T v<>` parameters (000 §4.7) and returns how many values
    /// each vout received, in parameter order. A vout argument is a 1D stream with room for N
    /// values per element of the call, whose shape is that of its `out` streams or, without
    /// any, of its first input stream. The pushed values are packed at the front of the vout
    /// stream in element (row-major) order, then push order; the rest is zeroed. An element
    /// keeps at most N pushes, and one that `discard`s keeps none. A vout stream without room
    /// for N per element is an error. On GL the kernel pass writes N candidates and a push
    /// count per element, a work-efficient scan of the counts (⌈log₂ n⌉ passes each way) gives
    /// every element its offset, and a compaction pass gathers the pushes into place; counts
    /// are floats there, so a call may make at most 2²⁴ pushes (N × elements). Vout calls
    /// write whole streams (no output domains), without write masks or queries.
    pub fn run_vout(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Result<Vec<usize>, BrookError> {
        // An output also gathered: the gather reads a copy made now (crate::stream_copies).
        let copies = self.gathered_outputs(program, kernel, args)?;
        if !copies.is_empty() {
            let args: Vec<Arg> = args
                .iter()
                .zip(&copies)
                .map(|(a, copy)| copy.as_ref().map_or_else(|| a.clone(), Arg::Stream))
                .collect();
            return self.run_vout(program, kernel, &args);
        }
        self.kernel_call(program, kernel, args, |call| self.gate.run_kernel(call))
    }

    /// The passes a call with these arguments runs, encoded without running them: programs
    /// (their GLSL), textures per unit and draw buffer, uniforms, viewport. For learning what
    /// a call becomes; empty on backends without passes (the CPU).
    pub fn plan(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
    ) -> Result<Vec<PassTrace>, BrookError> {
        self.kernel_call(program, kernel, args, |call| self.gate.plan_kernel(call))
    }

    /// Checks a kernel call and hands it to `f`.
    fn kernel_call<T>(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
        f: impl FnOnce(&KernelCall) -> Result<T, BrookError>,
    ) -> Result<T, BrookError> {
        let name = CallName("kernel", kernel);
        let program = self.own_program(program, &name)?;
        let compiled = program.compiled();
        let (id, func) = compiled.function(kernel, FunctionKind::Kernel)?;
        let located = |e| compiled.locate(id, e);
        let args = self.backend_args(&name, args).map_err(located)?;
        let shape = check_kernel(compiled, func, &args).map_err(located)?;
        check_resize(&name, func, &args, &shape, self.gate.resize_index_bits()).map_err(located)?;
        // The mask has the whole output streams' shape, also when a call writes a domain.
        let outputs = args.iter().zip(&func.params).find_map(|(a, p)| match a {
            BackendArg::Stream(s) if p.class == ParamClass::Out => Some(s.shape),
            _ => None,
        });
        let (mask, write_mask) = self.masks.borrow().for_kernel(func, outputs)?;
        f(&KernelCall {
            program: program.gated(),
            compiled,
            kernel: id,
            args: &args,
            shape: &shape,
            mask,
            write_mask: write_mask.as_deref(),
        })
        .map_err(located)
    }

    /// Brook's reduction to a value: folds every element of `input` with the reduce function
    /// `reduction` of `program`, in index order, and returns the result's floats (C layout:
    /// 4 for a `float4`, the members' floats in order for a struct). `extra` binds the
    /// function's constant and gather parameters, in order (`args![]` when it has none).
    pub fn reduce_to_value(
        &self,
        program: &Program,
        reduction: &str,
        input: &Stream,
        extra: &[Arg],
    ) -> Result<Vec<f32>, BrookError> {
        let mut value = vec![0.0; input.floats_per_element()];
        let floats = value.len();
        self.reduce(
            program,
            reduction,
            input,
            extra,
            ReduceShape::Value(floats),
            ReduceOutput::Value(&mut value),
        )?;
        Ok(value)
    }

    /// Brook's reduction to a smaller stream: each element of `output` reduces its block of
    /// `input` (`in / out` neighbours per dimension; every extent of `output` must divide the
    /// input's). `float a<100>` into `r<25>` folds every 4 elements; `<50,50>` into `<50,1>`
    /// folds each row.
    pub fn reduce_to_stream(
        &self,
        program: &Program,
        reduction: &str,
        input: &Stream,
        output: &Stream,
        extra: &[Arg],
    ) -> Result<(), BrookError> {
        let out = self
            .own(output, &CallName("reduction", reduction))?
            .arg(None);
        self.reduce(
            program,
            reduction,
            input,
            extra,
            ReduceShape::Stream(&out),
            ReduceOutput::Stream(out),
        )
    }

    fn reduce(
        &self,
        program: &Program,
        reduction: &str,
        input: &Stream,
        extra: &[Arg],
        shape: ReduceShape,
        output: ReduceOutput,
    ) -> Result<(), BrookError> {
        let input = self
            .own(input, &CallName("reduction", reduction))?
            .arg(None);
        self.reduce_call(program, reduction, input, extra, shape, |call| {
            self.gate.reduce(call, output)
        })
    }

    /// Checks a reduction of `input` and hands it to `f`.
    fn reduce_call(
        &self,
        program: &Program,
        reduction: &str,
        input: StreamArg,
        extra: &[Arg],
        shape: ReduceShape,
        f: impl FnOnce(&ReduceCall) -> Result<(), BrookError>,
    ) -> Result<(), BrookError> {
        let name = CallName("reduction", reduction);
        let program = self.own_program(program, &name)?;
        let compiled = program.compiled();
        let (id, func) = compiled.function(reduction, FunctionKind::Reduce)?;
        let located = |e| compiled.locate(id, e);
        let extra = self.backend_args(&name, extra).map_err(located)?;
        let plan = check_reduce(compiled, func, &input, &extra, shape).map_err(located)?;
        let call = ReduceCall {
            program: program.gated(),
            compiled,
            function: id,
            input,
            extra: &extra,
            plan: &plan,
        };
        f(&call).map_err(located)
    }

    /// Brook's kernel-then-reduce idiom in one call: runs kernel `kernel` of `program` with
    /// `args`, then folds its output with the reduce function `reduction` (as
    /// [`Runtime::reduce_to_value`], `extra` binding its constants and gathers), and returns
    /// the result's floats — the same result as the two calls. The kernel has one `out`
    /// parameter, passed a whole stream: it gives the kernel's shape and element type, and
    /// afterwards its contents are unspecified, because GL and wgpu compute the kernel inside
    /// the reduction's first pass and the CPU inside its fold, and never write it, as a
    /// hand-written reduction would (the trace shows one reduction, its variant naming the
    /// kernel fused into it). Where fusing could change a result (a kernel that can
    /// `discard`, a write mask or query, a reduction target the kernel reads:
    /// `brook_core::call::fusion_refused`; on GL also a reduce function with arguments of
    /// its own, struct elements, loops the driver caps) the backend runs the two calls. A
    /// plain [`Runtime::run`] then reduction of its output fuses the same way without this
    /// call, keeping the output's values ([`Runtime::set_automatic_fusion`]).
    ///
    /// ```no_run
    /// # use brook::{args, Runtime};
    /// let rt = Runtime::gl()?;
    /// let p = rt.compile(
    ///     "kernel void absolute(float x<>, out float a<>) { a = abs(x); }
    ///      reduce void sum(float a<>, reduce float r<>) { r += a; }",
    ///     "sasum.br",
    /// )?;
    /// let (x, scratch) = (rt.stream_of(1, &[1000])?, rt.stream_of(1, &[1000])?);
    /// x.read(&vec![-0.5; 1000])?;
    /// let total = rt.map_reduce_to_value(&p, "absolute", args![&x, &scratch], "sum", args![])?;
    /// assert_eq!(total, [500.0]);
    /// # Ok::<(), brook::BrookError>(())
    /// ```
    pub fn map_reduce_to_value(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
        reduction: &str,
        extra: &[Arg],
    ) -> Result<Vec<f32>, BrookError> {
        let floats = self
            .mapped_output(program, kernel, args)?
            .floats_per_element();
        let mut value = vec![0.0; floats];
        self.map_reduce(
            (program, kernel, args),
            (reduction, extra),
            ReduceShape::Value(floats),
            ReduceOutput::Value(&mut value),
        )?;
        Ok(value)
    }

    /// [`Runtime::map_reduce_to_value`] into a smaller stream, as
    /// [`Runtime::reduce_to_stream`]: each element of `output` folds its block of the
    /// kernel's output.
    pub fn map_reduce_to_stream(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg],
        reduction: &str,
        output: &Stream,
        extra: &[Arg],
    ) -> Result<(), BrookError> {
        self.mapped_output(program, kernel, args)?;
        let out = self
            .own(output, &CallName("reduction", reduction))?
            .arg(None);
        self.map_reduce(
            (program, kernel, args),
            (reduction, extra),
            ReduceShape::Stream(&out),
            ReduceOutput::Stream(out),
        )
    }

    /// The stream a kernel reduced at once writes: its one `out` argument, a whole stream.
    fn mapped_output<'a>(
        &self,
        program: &Program,
        kernel: &str,
        args: &[Arg<'a>],
    ) -> Result<&'a Stream, BrookError> {
        let name = CallName("kernel", kernel);
        let (id, func) = program.compiled().function(kernel, FunctionKind::Kernel)?;
        let located = |e| program.compiled().locate(id, e);
        let outputs: Vec<usize> = (func.params.iter().enumerate())
            .filter(|(_, p)| p.class.is_output())
            .map(|(i, _)| i)
            .collect();
        let [out] = outputs[..] else {
            return Err(located(BrookError::Unsupported {
                call: name.to_string(),
                message: format!(
                    "a kernel whose output is reduced at once must have exactly one `out` parameter (and no vout); `{kernel}` has {}",
                    outputs.len()
                ),
            }));
        };
        match (args.get(out), func.params[out].class) {
            (Some(Arg::Stream(s)), ParamClass::Out) => Ok(s),
            _ => Err(located(BrookError::ArgumentType {
                call: name.to_string(),
                param: func.params[out].name.clone(),
                message: "the output of a kernel reduced at once must be a whole stream (not a domain), and not a vout".into(),
            })),
        }
    }

    /// Checks the kernel call `kernel` and the reduction of its output, and runs the pair.
    fn map_reduce(
        &self,
        (program, kernel, args): (&Program, &str, &[Arg]),
        (reduction, extra): (&str, &[Arg]),
        shape: ReduceShape,
        output: ReduceOutput,
    ) -> Result<(), BrookError> {
        let mapped = self.mapped_output(program, kernel, args)?;
        let input = self.own(mapped, &CallName("kernel", kernel))?.arg(None);
        self.kernel_call(program, kernel, args, |kernel_call| {
            self.reduce_call(program, reduction, input, extra, shape, |reduce_call| {
                self.gate
                    .map_reduce(kernel_call, reduce_call, output)
                    .map(drop)
            })
        })
        .map(drop)
    }

    /// The backend's form of a call's arguments, each stream checked to be this runtime's.
    fn backend_args<'a>(
        &self,
        call: &dyn Display,
        args: &'a [Arg],
    ) -> Result<Vec<BackendArg<'a>>, BrookError> {
        args.iter()
            .map(|arg| {
                Ok(match arg {
                    Arg::Stream(s) => BackendArg::Stream(self.own(s, call)?.arg(None)),
                    Arg::Domain(d) => {
                        let s: StreamArg = self.own(d.stream, call)?.arg(Some(&d.domain));
                        BackendArg::Stream(s)
                    }
                    Arg::Constant(v) => BackendArg::Constant(v),
                })
            })
            .collect()
    }
}
