//! Brook function bodies as GLSL functions.
//!
//! Every Brook kernel, reduction and helper becomes one GLSL function with the Brook names. A
//! kernel's stream, iterator and constant parameters arrive as `in` values and its outputs leave
//! as `out` values; gathers and `indexof` go through globals that `main` sets up (see
//! `kernel.rs`), since they need the addressing uniforms. Keeping the body a function means a
//! Brook `return` is a GLSL `return`, and split passes share the body text unchanged.

use std::collections::HashSet;

mod builtins;
mod expr;
mod stmt;

use brook_ir::{Function, FunctionKind, Integral, MathMode, Module, ParamClass};

use crate::error::GenError;
use crate::names::glsl_name;
use crate::prelude::{Helper, Prelude};
use crate::source::SourceText;
use crate::types::{array_suffix, glsl_type};
use crate::vout::{candidate_name, count_name};

/// Writes one Brook function as GLSL.
pub struct FunctionLowering<'a> {
    module: &'a Module,
    func: &'a Function,
    local_names: Vec<String>,
    prelude: &'a mut Prelude,
    source: Option<&'a SourceText>,
    out: String,
    indent: usize,
    last_line: usize,
    /// Whether loops record how they ended, for drivers that cut loops short (`loops.rs`).
    check_loops: bool,
    /// Innermost last, the exit count of each loop being lowered (`None` when unchecked),
    /// which a `break` adds one to.
    loop_flags: Vec<Option<String>>,
    /// Which float values hold integers, so a gather at them skips the rounding.
    integral: Integral,
    /// Accurate: `brook_precise` declarations, hidden constants, Brook's math library; fast:
    /// none of them, the driver's built-ins.
    math: MathMode,
}

/// GLSL name of the global function that gathers from parameter `name`.
pub fn gather_function(name: &str) -> String {
    format!("brook_gather_{name}")
}

/// GLSL name of the function that reads element `index` of gather parameter `name`, an index
/// already clamped to the stream.
pub fn element_function(name: &str) -> String {
    format!("brook_element_{name}")
}

/// GLSL name of the global holding `indexof(name)`.
pub fn index_global(name: &str) -> String {
    format!("brook_index_{name}")
}

/// Whether a parameter is passed to the GLSL function (gathers are reached through globals).
pub fn passed_as_argument(class: ParamClass) -> bool {
    !matches!(class, ParamClass::Gather { .. })
}

impl<'a> FunctionLowering<'a> {
    pub fn new(
        module: &'a Module,
        func: &'a Function,
        prelude: &'a mut Prelude,
        source: Option<&'a SourceText>,
    ) -> Self {
        // Locals of one function may share a Brook name (in different blocks); GLSL would
        // accept that too, but unique names make the shader easier to follow.
        let mut taken: HashSet<String> = func.params.iter().map(|p| glsl_name(&p.name)).collect();
        let mut local_names: Vec<String> = Vec::with_capacity(func.locals.len());
        for local in &func.locals {
            let base = glsl_name(&local.name);
            let mut name = base.clone();
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{base}_{n}");
                n += 1;
            }
            taken.insert(name.clone());
            local_names.push(name);
        }
        FunctionLowering {
            module,
            func,
            local_names,
            prelude,
            source,
            out: String::new(),
            indent: 1,
            last_line: 0,
            check_loops: false,
            loop_flags: Vec::new(),
            integral: Integral::of(func),
            math: MathMode::Accurate,
        }
    }

    /// Lowers in `math`'s mode: in fast math, variables are declared without
    /// `brook_precise`, constants are shown to the driver and the transcendentals are the
    /// driver's (`builtins.rs`).
    pub fn in_mode(mut self, math: MathMode) -> Self {
        self.math = math;
        self
    }

    /// `brook_precise ` in the accurate mode, nothing in fast math.
    fn precise(&self) -> &'static str {
        match self.math {
            MathMode::Accurate => "brook_precise ",
            MathMode::Fast => "",
        }
    }

    /// Loops record whether they ended by their condition or a `break`; one that did not was
    /// cut short by the driver, and sets `brook_loop_cut` to its Brook line (`loops.rs`).
    pub fn checking_loops(mut self, on: bool) -> Self {
        if on {
            self.prelude.require(Helper::LoopCheck);
        }
        self.check_loops = on;
        self
    }

    /// The GLSL definition of the function.
    pub fn lower(mut self) -> Result<String, GenError> {
        let f = self.func;
        let ret = glsl_type(self.module, &f.ret);
        let mut params: Vec<String> = Vec::new();
        for p in f.params.iter().filter(|p| passed_as_argument(p.class)) {
            // `inout`, not `out`: a GLSL `out` parameter starts undefined inside the
            // function, and Brook outputs start at the zero `main` gives them.
            // `brook_precise` (`Profile::header`) on every parameter, as on every local.
            let inout = match p.class {
                ParamClass::Out | ParamClass::Reduce | ParamClass::Vout { .. } => "inout ",
                _ => "",
            };
            let (ty, name) = (glsl_type(self.module, &p.ty), glsl_name(&p.name));
            let precise = self.precise();
            params.push(format!(
                "{precise}{inout}{ty} {name}{}",
                array_suffix(&p.ty)
            ));
            // A vout's candidates and push count (see `vout.rs`).
            if let ParamClass::Vout { max } = p.class {
                params.extend((0..max).map(|k| format!("inout {ty} {}", candidate_name(&name, k))));
                params.push(format!("inout int {}", count_name(&name)));
            }
        }
        let what = match f.kind {
            FunctionKind::Kernel => "kernel",
            FunctionKind::Reduce => "reduction",
            FunctionKind::Helper => "function",
        };
        let mut text = String::new();
        if let Some(src) = self.source {
            let line = src.line_of(f.span.start);
            text.push_str(&format!(
                "// Brook {what} `{}` ({}:{line})\n",
                f.name,
                src.name_in_comment()
            ));
        }
        text.push_str(&format!(
            "{ret} {}({}) {{\n",
            glsl_name(&f.name),
            params.join(", ")
        ));
        self.block(&f.body)?;
        text.push_str(&self.out);
        text.push_str("}\n");
        Ok(text)
    }

    fn line(&mut self, code: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(code);
        self.out.push('\n');
    }
}
