//! One shader module under construction, and the finished, validated module.
//!
//! A Brook helper is called with gathers and streams of its caller: a gather parameter has no
//! value to pass in WGSL (a storage buffer cannot be a function argument), and `indexof` of a
//! parameter needs the caller's stream. So each Brook function is instantiated per *binding*:
//! which kernel parameter each of its parameters stands for. A kernel's own binding is the
//! identity; a helper called with `g` (a gather of the kernel) gets an instance reading `g`'s
//! buffer. Instances are created callees first, as naga requires.

use std::collections::HashMap;

use brook_ir::walk::{can_discard, for_each_expr};
use brook_ir::{self as ir, ExprKind, FunctionId, ParamClass, StmtKind};
use naga::{
    AddressSpace, Expression, Function, GlobalVariable, Handle, ResourceBinding, Span, Type,
};

use super::builder::Types;
use super::function::lower_function;
use super::{LowerError, Lowered};

/// How a shader reaches a stream bound to a kernel parameter (for gathers).
#[derive(Debug, Clone, Copy)]
pub struct StreamAccess {
    /// The stream's storage buffer (see `values::Elements`).
    pub buffer: Handle<GlobalVariable>,
    /// Floats per element.
    pub fpe: u32,
    /// The stream's rank.
    pub rank: u8,
    /// The slot of the call-info uniform holding the extents the call sees (`.x` the last
    /// dimension; 1 in unused dimensions).
    pub extent_slot: u32,
    /// For a domain: the slots of its first element and of the whole stream's extents.
    pub domain: Option<(u32, u32)>,
}

/// Where a kernel's checked loops report (`stmt.rs`), on drivers that cap loop iterations
/// (`brook_core::loops`).
#[derive(Debug, Clone, Copy)]
pub struct LoopCheck {
    /// `array<atomic<u32>>`: element 0 is 0, or 1 + the Brook byte offset of a loop the driver
    /// cut short (the largest, when several were).
    pub status: Handle<GlobalVariable>,
}

/// A zero the driver's compiler cannot see: `info[slot].w`, a component of the call-info
/// uniform the host leaves 0. Constants are hidden with it in the accurate mode
/// (`brook_ir::exact`, `expr.rs`), the loop check reads it so it cannot be folded away, and
/// kernel arguments are read at an index offset by it ([`info_slot_opaque`]).
#[derive(Debug, Clone, Copy)]
pub struct OpaqueZero {
    pub info: Handle<GlobalVariable>,
    pub slot: u32,
}

/// A binding: for each parameter of a function, the kernel parameter it stands for.
pub type Binding = Vec<Option<u32>>;

/// The shared state of one module's functions.
pub struct ShaderModule<'a> {
    pub brook: &'a ir::Module,
    pub types: Types,
    pub functions: naga::Arena<Function>,
    pub globals: naga::Arena<GlobalVariable>,
    pub entry_points: Vec<naga::EntryPoint>,
    /// Set by `discard`; the element writes nothing (see `function.rs`).
    pub discard: Handle<GlobalVariable>,
    /// The per-call uniform (`array<vec4<u32>, N>`), once declared.
    pub info: Option<Handle<GlobalVariable>>,
    /// Per kernel parameter: its stream, for gathers.
    pub streams: Vec<Option<StreamAccess>>,
    /// Per kernel parameter: the private global holding `indexof` of it.
    pub positions: Vec<Option<Handle<GlobalVariable>>>,
    instances: HashMap<(FunctionId, Binding), Handle<Function>>,
    /// Per Brook function: whether calling it may set the discard flag.
    pub may_discard: Vec<bool>,
    /// Set when every loop of the module's functions records how it ended.
    pub loop_check: Option<LoopCheck>,
    /// The module's opaque zero, set by shaders that lower Brook functions; required by the
    /// loop check.
    pub zero: Option<OpaqueZero>,
    /// Accurate: constants hidden with [`ShaderModule::zero`], transcendentals from Brook's
    /// math library; fast: neither (naga's built-in functions).
    pub math: ir::MathMode,
}

impl<'a> ShaderModule<'a> {
    /// A module holding the math library's functions (`math.rs`), so built-ins call them by
    /// their handles in the library.
    pub fn new(brook: &'a ir::Module) -> ShaderModule<'a> {
        let library = super::math::library();
        let mut types = Types::default();
        types.arena = library.types.clone();
        let mut globals = library.global_variables.clone();
        let bool_ty = types.bool();
        let discard = globals.append(
            GlobalVariable {
                name: Some("brook_discarded".into()),
                space: AddressSpace::Private,
                binding: None,
                ty: bool_ty,
                init: None,
                memory_decorations: Default::default(),
            },
            Span::UNDEFINED,
        );
        ShaderModule {
            brook,
            types,
            functions: library.functions.clone(),
            globals,
            entry_points: Vec::new(),
            discard,
            info: None,
            streams: Vec::new(),
            positions: Vec::new(),
            instances: HashMap::new(),
            may_discard: may_discard(brook),
            loop_check: None,
            zero: None,
            math: ir::MathMode::Accurate,
        }
    }

    /// A resource global at `@group(0) @binding(binding)`.
    pub fn resource(
        &mut self,
        name: &str,
        space: AddressSpace,
        ty: Handle<Type>,
        binding: u32,
    ) -> Handle<GlobalVariable> {
        self.globals.append(
            GlobalVariable {
                name: Some(name.to_string()),
                space,
                binding: Some(ResourceBinding { group: 0, binding }),
                ty,
                init: None,
                memory_decorations: Default::default(),
            },
            Span::UNDEFINED,
        )
    }

    /// A module-scope variable of the invocation (`var<private>` or `var<workgroup>`).
    pub fn variable(
        &mut self,
        name: &str,
        space: AddressSpace,
        ty: Handle<Type>,
    ) -> Handle<GlobalVariable> {
        self.globals.append(
            GlobalVariable {
                name: Some(name.to_string()),
                space,
                binding: None,
                ty,
                init: None,
                memory_decorations: Default::default(),
            },
            Span::UNDEFINED,
        )
    }

    /// Whether calling `f` may set the discard flag.
    pub fn may_discard(&self, f: FunctionId) -> bool {
        self.may_discard[f.0 as usize]
    }

    /// The naga function of Brook function `f` with `binding` (created on first use, with its
    /// callees before it).
    pub fn instance(&mut self, f: FunctionId, binding: Binding) -> Lowered<Handle<Function>> {
        if let Some(h) = self.instances.get(&(f, binding.clone())) {
            return Ok(*h);
        }
        let func = self.brook.func(f);
        let mut calls = Vec::new();
        for s in &func.body {
            collect_calls(self.brook, s, &binding, &mut calls);
        }
        let mut callees = HashMap::new();
        for (g, b) in calls {
            let h = self.instance(g, b.clone())?;
            callees.insert((g, b), h);
        }
        // A helper instantiated for a caller's streams is named after them.
        let identity = binding
            .iter()
            .enumerate()
            .all(|(k, b)| b.is_none_or(|q| q as usize == k));
        let suffix = if identity {
            String::new()
        } else {
            binding
                .iter()
                .map(|b| b.map_or("_".into(), |k| k.to_string()))
                .collect::<Vec<_>>()
                .join("_")
        };
        let lowered = lower_function(self, f, &binding, &callees, &suffix)?;
        let h = self.functions.append(lowered, super::naga_span(func.span));
        self.instances.insert((f, binding), h);
        Ok(h)
    }

    /// The finished module.
    pub fn finish(self) -> naga::Module {
        let mut m = naga::Module {
            types: self.types.arena,
            functions: self.functions,
            global_variables: self.globals,
            entry_points: self.entry_points,
            ..super::math::library().clone()
        };
        // The compare-exchange result type, if a shader used it, is naga's predeclared one.
        let cx = naga::PredeclaredType::AtomicCompareExchangeWeakResult(naga::Scalar::U32);
        let name = cx.struct_name();
        if m.types
            .iter()
            .any(|(_, t)| t.name.as_deref() == Some(name.as_str()))
        {
            m.generate_predeclared_type(cx);
        }
        m
    }
}

/// Validates a finished module and drops what its entry point does not use (the math
/// library's other functions), so the driver compiles only that. On failure, the error's
/// message and the Brook span it points at (if any).
pub fn validate(
    module: &mut naga::Module,
) -> Result<naga::valid::ModuleInfo, (String, Option<Span>)> {
    // naga compacts only a valid module; the compacted one is validated again for its info.
    checked(module)?;
    naga::compact::compact(module, naga::compact::KeepUnused::No);
    checked(module)
}

fn checked(module: &naga::Module) -> Result<naga::valid::ModuleInfo, (String, Option<Span>)> {
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    );
    v.validate(module).map_err(|e| {
        // The narrowest span is the most specific: the expression or statement, not the
        // function around it.
        let span = e
            .spans()
            .map(|(s, _)| *s)
            .filter(|s| s.is_defined())
            .min_by_key(|s| s.to_range().map_or(usize::MAX, |r| r.len()));
        let mut message = e.as_inner().to_string();
        let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e.as_inner());
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        (message, span)
    })
}

/// WGSL text of a validated module, for people to read.
pub fn wgsl(module: &naga::Module, info: &naga::valid::ModuleInfo) -> String {
    naga::back::wgsl::write_string(module, info, naga::back::wgsl::WriterFlags::empty())
        .unwrap_or_else(|e| format!("// WGSL could not be written: {e}\n"))
}

/// Which functions may set the discard flag: those with a `discard`, and their callers.
fn may_discard(m: &ir::Module) -> Vec<bool> {
    (0..m.functions.len() as u32)
        .map(|i| can_discard(m, FunctionId(i)))
        .collect()
}

/// Every call in a statement, with the callee's binding from the caller's `binding`.
fn collect_calls(
    m: &ir::Module,
    s: &ir::Stmt,
    binding: &[Option<u32>],
    out: &mut Vec<(FunctionId, Binding)>,
) {
    for_each_expr(std::slice::from_ref(s), &mut |e| {
        if let ExprKind::Call(g, args) = &e.kind {
            let b = call_binding(m, *g, args, binding);
            if !out.contains(&(*g, b.clone())) {
                out.push((*g, b));
            }
        }
    });
}

/// The binding of a call of `g` with `args` from a function bound by `binding`: a parameter
/// passed a parameter of the caller stands for what that one stands for.
pub fn call_binding(
    m: &ir::Module,
    g: FunctionId,
    args: &[ir::Expr],
    binding: &[Option<u32>],
) -> Binding {
    m.func(g)
        .params
        .iter()
        .zip(args)
        .map(|(p, a)| match (&a.kind, p.class) {
            (
                ExprKind::Param(q),
                ParamClass::Gather { .. } | ParamClass::Stream | ParamClass::Iter | ParamClass::Out,
            ) => binding.get(*q as usize).copied().flatten(),
            _ => None,
        })
        .collect()
}

/// Calls `f` on every statement, nested ones included.
pub fn visit_block(block: &[ir::Stmt], f: &mut impl FnMut(&ir::Stmt)) {
    for s in block {
        f(s);
        match &s.kind {
            StmtKind::If {
                then, otherwise, ..
            } => {
                visit_block(then, f);
                visit_block(otherwise, f);
            }
            StmtKind::Loop {
                init, step, body, ..
            } => {
                visit_block(init, f);
                visit_block(step, f);
                visit_block(body, f);
            }
            StmtKind::Block(b) => visit_block(b, f),
            _ => {}
        }
    }
}

/// An error at a Brook span.
pub fn error(message: impl Into<String>, span: brook_ir::Span) -> LowerError {
    LowerError {
        message: message.into(),
        span,
    }
}

/// The pointer type to `base` in function space (out parameters).
pub fn function_pointer(types: &mut Types, base: Handle<Type>) -> Handle<Type> {
    types.get(naga::TypeInner::Pointer {
        base,
        space: AddressSpace::Function,
    })
}

/// `info[slot]` read at the index `slot + zero`, `zero` the module's [`OpaqueZero`]: the
/// same `vec4<u32>` as [`info_slot`], at an offset no compiler can fold. A kernel's constant
/// arguments are read this way because lavapipe (Mesa 22.3) inlines the uniform values that
/// bound a loop and, to do so, compiles the shader anew at every dispatch: a 12×12 matmul,
/// whose loop runs to its constant `m`, took 870 µs a call, against 126 µs read this way
/// (docs/performance.md, "Fixed costs per call on wgpu").
pub fn info_slot_opaque(
    b: &mut super::FnBuilder,
    zero: OpaqueZero,
    slot: u32,
) -> Handle<Expression> {
    let head = info_slot(b, zero.info, zero.slot);
    let z = b.index(head, 3);
    let at = b.u32(slot);
    let at = b.add_(at, z);
    let g = b.global(zero.info);
    let p = b.access(g, at);
    b.load(p)
}

/// A constant argument of type `ty`: its floats from info slot `slot` on, four a slot, each
/// slot read through [`info_slot_opaque`].
pub fn constant_argument(
    b: &mut super::FnBuilder,
    brook: &ir::Module,
    ty: &ir::Type,
    zero: OpaqueZero,
    slot: u32,
) -> Handle<Expression> {
    let n = super::values::flat_len(brook, ty);
    let mut floats = Vec::with_capacity(n as usize);
    for i in 0..n {
        let s = info_slot_opaque(b, zero, slot + i / 4);
        let bits = b.index(s, i % 4);
        floats.push((b.bitcast(bits, naga::ScalarKind::Float), ir::Scalar::Float));
    }
    super::values::assemble(b, brook, ty, &mut floats.into_iter())
        .expect("flat_len floats make the type")
}

/// `info[slot]`, a `vec4<u32>` of the per-call uniform.
pub fn info_slot(
    b: &mut super::FnBuilder,
    info: Handle<GlobalVariable>,
    slot: u32,
) -> Handle<Expression> {
    let g = b.global(info);
    let p = b.index(g, slot);
    b.load(p)
}
