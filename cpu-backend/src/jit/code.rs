//! Native code: the target, building functions into a Cranelift JIT module, and the owner of
//! the executable memory.
//!
//! One [`Builder`] makes one [`Code`]: a small set of functions compiled together (a kernel
//! variant's tile function, or a reduction's fold and update), linked against the runtime
//! functions of [`super::runtime`], and freed when the `Code` is dropped. The target is the
//! host CPU as `cranelift-native` detects it (SSE4.1 rounding, AVX where present), optimised
//! for speed.

use std::collections::HashMap;
use std::sync::OnceLock;

use cranelift_codegen::ir::{FuncRef, Function, Signature, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};

use super::runtime::Call;
use super::slots::Slot;
use super::Unjittable;

/// The host target, made once per process.
fn isa() -> Result<OwnedTargetIsa, Unjittable> {
    static ISA: OnceLock<Result<OwnedTargetIsa, String>> = OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| format!("cranelift setting {k}={v}: {e}"))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        set(&mut flags, "enable_verifier", verify)?;
        let native = cranelift_native::builder().map_err(|e| e.to_string())?;
        native
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())
    })
    .clone()
    .map_err(Unjittable)
}

/// Compiled functions, the executable memory holding them, and their contract with the
/// caller: what `ctx` must hold.
pub(crate) struct Code {
    module: Option<JITModule>,
    entries: Vec<*const u8>,
    /// What the caller puts in `ctx`, in order (shared by all the functions).
    pub slots: Vec<Slot>,
    /// The Cranelift IR of the functions, when it was asked for.
    pub clif: Option<String>,
}

// SAFETY: after `Builder::finish`, the module is never touched again except to free its memory
// on drop; the entry points are addresses of immutable, finalised code, callable from any
// thread.
unsafe impl Send for Code {}
unsafe impl Sync for Code {}

impl Code {
    /// The address of the `i`-th function built.
    pub fn entry(&self, i: usize) -> *const u8 {
        self.entries[i]
    }

    /// How many functions were built.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `Code` owns the only copies of the entry points; callers borrow `Code`
            // for as long as they call into it.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Code({} functions)", self.entries.len())
    }
}

/// Imports of runtime functions into the function being built.
pub(crate) struct Imports<'a> {
    module: &'a mut JITModule,
    ids: &'a [FuncId],
    refs: HashMap<Call, FuncRef>,
}

impl Imports<'_> {
    pub fn get(&mut self, func: &mut Function, c: Call) -> FuncRef {
        if let Some(&r) = self.refs.get(&c) {
            return r;
        }
        let r = self.module.declare_func_in_func(self.ids[c.index()], func);
        self.refs.insert(c, r);
        r
    }
}

/// Builds the functions of one [`Code`].
pub(crate) struct Builder {
    module: JITModule,
    runtime: Vec<FuncId>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    defined: Vec<FuncId>,
    /// The CLIF text of every function built, when asked for.
    clif: Option<Vec<String>>,
}

impl Builder {
    /// A builder; `clif` keeps the Cranelift IR text of every function.
    pub fn new(clif: bool) -> Result<Builder, Unjittable> {
        let mut jb = JITBuilder::with_isa(isa()?, default_libcall_names());
        for c in Call::ALL {
            jb.symbol(c.name(), c.address());
        }
        let mut module = JITModule::new(jb);
        let runtime = Call::declare_all(&mut module).map_err(Unjittable)?;
        let ctx = module.make_context();
        Ok(Builder {
            module,
            runtime,
            ctx,
            fctx: FunctionBuilderContext::new(),
            defined: Vec::new(),
            clif: clif.then(Vec::new),
        })
    }

    /// A signature in the host's C calling convention.
    pub fn signature(&self) -> Signature {
        self.module.make_signature()
    }

    pub fn pointer_type(&self) -> cranelift_codegen::ir::Type {
        self.module.target_config().pointer_type()
    }

    /// Builds and compiles one function; `body` emits it (the builder is positioned nowhere:
    /// it creates its own entry block).
    pub fn function(
        &mut self,
        sig: Signature,
        body: impl FnOnce(&mut FunctionBuilder, &mut Imports) -> Result<(), Unjittable>,
    ) -> Result<(), Unjittable> {
        let name = format!("f{}", self.defined.len());
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &sig)
            .map_err(|e| Unjittable(e.to_string()))?;
        self.ctx.func.signature = sig;
        self.ctx.func.name = UserFuncName::user(0, id.as_u32());
        let config = self.module.target_config();
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let mut imports = Imports {
                module: &mut self.module,
                ids: &self.runtime,
                refs: HashMap::new(),
            };
            body(&mut b, &mut imports)?;
            b.seal_all_blocks();
            b.finalize(config);
        }
        if let Some(texts) = &mut self.clif {
            texts.push(self.ctx.func.display().to_string());
        }
        let defined = self
            .module
            .define_function(id, &mut self.ctx)
            .map_err(|e| Unjittable(format!("Cranelift rejected the code: {e:?}")));
        self.module.clear_context(&mut self.ctx);
        defined?;
        self.defined.push(id);
        Ok(())
    }

    /// Links everything built into executable memory; the functions read `slots`.
    pub fn finish(mut self, slots: Vec<Slot>) -> Result<Code, Unjittable> {
        self.module
            .finalize_definitions()
            .map_err(|e| Unjittable(e.to_string()))?;
        let entries = self
            .defined
            .iter()
            .map(|&id| self.module.get_finalized_function(id))
            .collect();
        Ok(Code {
            module: Some(self.module),
            entries,
            slots,
            clif: self.clif.take().map(|t| t.concat()),
        })
    }
}
