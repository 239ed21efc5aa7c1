//! Programs compiled once per runtime: generated kernel functions (`brook-build`) and the C
//! ABI call a kernel many times by name, and must not re-run the front end each time.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::program::Program;
use crate::runtime::Runtime;
use brook_core::BrookError;

/// The programs a runtime compiled through [`Runtime::compile_cached`], by (name, source).
#[derive(Default)]
pub(crate) struct ProgramCache(RefCell<HashMap<(String, String), Rc<Program>>>);

impl Runtime {
    /// [`Runtime::compile`], once per runtime for each (source, name): later calls return
    /// the same program.
    pub fn compile_cached(&self, source: &str, name: &str) -> Result<Rc<Program>, BrookError> {
        let key = (name.to_string(), source.to_string());
        if let Some(p) = self.programs.0.borrow().get(&key) {
            return Ok(p.clone());
        }
        let program = Rc::new(self.compile(source, name)?);
        self.programs.0.borrow_mut().insert(key, program.clone());
        Ok(program)
    }
}
