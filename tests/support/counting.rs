//! A backend defined outside the workspace's crates: it wraps another (the CPU's) and counts
//! the calls that reach it, for tests of the seam and the gate.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use brook::core::{
    BackendMask, BackendProgram, BackendStream, Compiled, GatherOpCall, IterSpec, KernelCall,
    ReduceCall, ReduceOutput, ScatterCall, StreamArg,
};
use brook::{Backend, BrookError, CpuBackend, ElementFormat, TraceEntry};

/// Another backend, with every call counted by name.
pub struct Counting {
    /// The backend it passes every call to.
    pub inner: Rc<dyn Backend>,
    calls: RefCell<BTreeMap<&'static str, usize>>,
    /// Whether it says it fuses and `map_reduce` says it fused (as GL does when it can): the
    /// output stream is then the runtime's to write if it is read, and automatic fusion is on
    /// by default.
    fuses: bool,
}

impl Counting {
    /// Counting the calls to the CPU backend; `fuses`: whether it says it fuses.
    pub fn cpu(fuses: bool) -> Rc<Counting> {
        Rc::new(Counting {
            inner: Rc::new(CpuBackend::default()),
            calls: RefCell::new(BTreeMap::new()),
            fuses,
        })
    }

    fn count(&self, name: &'static str) {
        *self.calls.borrow_mut().entry(name).or_default() += 1;
    }

    /// How many calls of the `Backend` method `name` reached it.
    pub fn calls(&self, name: &str) -> usize {
        self.calls.borrow().get(name).copied().unwrap_or(0)
    }
}

impl Backend for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn describe(&self) -> String {
        format!("counting calls to {}", self.inner.describe())
    }
    fn fuses(&self) -> bool {
        self.fuses
    }
    fn create_stream(&self, f: &ElementFormat, s: &[usize]) -> Result<BackendStream, BrookError> {
        self.count("create_stream");
        self.inner.create_stream(f, s)
    }
    fn create_iter(&self, spec: &IterSpec) -> Result<BackendStream, BrookError> {
        self.count("create_iter");
        self.inner.create_iter(spec)
    }
    fn read(&self, stream: &StreamArg, data: &[f32]) -> Result<(), BrookError> {
        self.count("read");
        self.inner.read(stream, data)
    }
    fn write(&self, stream: &StreamArg, out: &mut [f32]) -> Result<(), BrookError> {
        self.count("write");
        self.inner.write(stream, out)
    }
    fn prepare(&self, program: &Rc<Compiled>) -> Result<BackendProgram, BrookError> {
        self.count("prepare");
        self.inner.prepare(program)
    }
    fn run_kernel(&self, call: &KernelCall) -> Result<Vec<usize>, BrookError> {
        self.count("run_kernel");
        self.inner.run_kernel(call)
    }
    fn reduce(&self, call: &ReduceCall, output: ReduceOutput) -> Result<(), BrookError> {
        self.count("reduce");
        self.inner.reduce(call, output)
    }
    fn map_reduce(
        &self,
        kernel: &KernelCall,
        reduce: &ReduceCall,
        output: ReduceOutput,
    ) -> Result<bool, BrookError> {
        self.count("map_reduce");
        self.inner.map_reduce(kernel, reduce, output)?;
        Ok(self.fuses)
    }
    fn scatter(&self, call: &ScatterCall) -> Result<(), BrookError> {
        self.count("scatter");
        self.inner.scatter(call)
    }
    fn gather_op(&self, call: &GatherOpCall) -> Result<(), BrookError> {
        self.count("gather_op");
        self.inner.gather_op(call)
    }
    fn create_write_mask(&self, shape: &[usize]) -> Result<BackendMask, BrookError> {
        self.count("create_write_mask");
        self.inner.create_write_mask(shape)
    }
    fn clear_write_mask(&self, mask: &dyn Any) -> Result<(), BrookError> {
        self.count("clear_write_mask");
        self.inner.clear_write_mask(mask)
    }
    fn load_write_mask(&self, mask: &dyn Any, from: &StreamArg) -> Result<(), BrookError> {
        self.count("load_write_mask");
        self.inner.load_write_mask(mask, from)
    }
    fn begin_write_query(&self) -> Result<(), BrookError> {
        self.count("begin_write_query");
        self.inner.begin_write_query()
    }
    fn end_write_query(&self) -> Result<u64, BrookError> {
        self.count("end_write_query");
        self.inner.end_write_query()
    }
    fn swap(&self, a: &StreamArg, b: &StreamArg) -> Result<(), BrookError> {
        self.count("swap");
        self.inner.swap(a, b)
    }
    fn set_trace(&self, on: bool) {
        self.inner.set_trace(on);
    }
    fn take_trace(&self) -> Vec<TraceEntry> {
        self.inner.take_trace()
    }
    fn finish(&self) {
        self.inner.finish();
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
