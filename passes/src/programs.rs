//! The linked programs of a GL runtime, each compiled once and kept as long as it can be used.
//!
//! Programs generated from a Brook program (kernel variants, reduction steps, scatter
//! combiners) live in its [`GlProgram`], the backend's prepared form of it, so dropping the
//! `Program` deletes them: a long-running application that compiles programs as it goes does
//! not grow. Programs that depend only on element layouts (the scatter copy, gather fetch,
//! vout scan and compaction, write mask) are [`Builtins`] of the backend, a bounded set.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;
use std::time::{Duration, Instant};

use brook_core::Compiled;
use brook_glsl::{
    compact_pass, generate_fused_reduce_pass, generate_gather_fetch, generate_kernel,
    generate_reduce_pass, generate_scatter_reduce, generate_scatter_write, mask_pass,
    scan_down_pass, scan_up_pass, vertex_shader, ReduceStep, ScatterProgram, ScatterRoles, Target,
    Variant,
};
use brook_ir::{FunctionId, MathMode};
use brook_texture_streams::GlContext;

use crate::error::PassError;
use crate::linked::{profile, LinkedKernel, LinkedPass};

/// How long generating and linking a program took, when a call did it (`None`: found).
pub type Linked = Option<Duration>;

/// Two link times added up (a call that links several programs).
pub fn both(a: Linked, b: Linked) -> Linked {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or_default() + b.unwrap_or_default()),
    }
}

/// A map of linked programs; `get` links on a miss.
struct Memo<K, V>(RefCell<HashMap<K, Rc<V>>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(RefCell::new(HashMap::new()))
    }
}

impl<K: Hash + Eq, V> Memo<K, V> {
    /// The program under `key`, and how long linking it took if it was linked now; `link`
    /// sees the key.
    fn get_with_key(
        &self,
        key: K,
        link: impl FnOnce(&K) -> Result<V, PassError>,
    ) -> Result<(Rc<V>, Linked), PassError> {
        if let Some(found) = self.0.borrow().get(&key) {
            return Ok((found.clone(), None));
        }
        let started = Instant::now();
        let linked = Rc::new(link(&key)?);
        self.0.borrow_mut().insert(key, linked.clone());
        Ok((linked, Some(started.elapsed())))
    }

    /// The program under `key`, and how long linking it took if it was linked now.
    fn get(
        &self,
        key: K,
        link: impl FnOnce() -> Result<V, PassError>,
    ) -> Result<(Rc<V>, Linked), PassError> {
        self.get_with_key(key, |_| link())
    }

    fn len(&self) -> usize {
        self.0.borrow().len()
    }
}

/// A linked scatter or gather-op: its passes (sharing one vertex shader) and the parameter
/// numbers its shaders use.
pub struct LinkedScatter {
    pub roles: ScatterRoles,
    pub passes: Vec<LinkedPass>,
    /// Whether each point lands where its index says (a scatter's write or combine), not on
    /// its own element (a gather-op's fetch): what the trace tells the explorer.
    pub at_index: bool,
}

impl LinkedScatter {
    fn link(
        ctx: &Rc<GlContext>,
        function: &str,
        program: ScatterProgram,
        at_index: bool,
    ) -> Result<Self, PassError> {
        let passes = program
            .passes
            .into_iter()
            .map(|plan| LinkedPass::link(ctx, function, &program.vertex, plan))
            .collect::<Result<_, _>>()?;
        Ok(LinkedScatter {
            roles: program.roles,
            passes,
            at_index,
        })
    }
}

/// The GL backend's prepared form of a Brook program: the checked IR and every program
/// generated from it so far.
pub struct GlProgram {
    pub compiled: Rc<Compiled>,
    /// A kernel variant, and whether it checks its loops (`encode::kernel::call_target`).
    /// Every key holds the math mode (`Target::math`): a program generated in one mode is
    /// never used in the other.
    kernels: Memo<(FunctionId, Variant, bool, MathMode), LinkedKernel>,
    reductions: Memo<(FunctionId, ReduceStep, Variant, MathMode), LinkedKernel>,
    /// A reduction's first step with a kernel variant fused in: (kernel, variant, reduce
    /// function, step).
    fused: Memo<(FunctionId, Variant, FunctionId, ReduceStep, MathMode), LinkedKernel>,
    combiners: Memo<(FunctionId, MathMode), LinkedScatter>,
}

impl GlProgram {
    pub fn new(compiled: Rc<Compiled>) -> GlProgram {
        GlProgram {
            compiled,
            kernels: Memo::default(),
            reductions: Memo::default(),
            fused: Memo::default(),
            combiners: Memo::default(),
        }
    }

    /// The passes of `kernel` for one variant, and their link time if linked now.
    pub fn kernel(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        kernel: FunctionId,
        variant: Variant,
    ) -> Result<(Rc<LinkedKernel>, Linked), PassError> {
        let c = &self.compiled;
        let generate = |variant: &Variant| {
            generate_kernel(&c.module, kernel, variant, target, Some(&c.source))
        };
        let checked = target.loop_cap.is_some();
        self.kernels.get_with_key(
            (kernel, variant, checked, target.math),
            |(_, variant, ..)| {
                let generated = generate(variant)?;
                LinkedKernel::link(ctx, generated)
            },
        )
    }

    /// One reduction step of `function`, and its link time if linked now.
    pub fn reduction(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        function: FunctionId,
        step: ReduceStep,
        variant: &Variant,
    ) -> Result<(Rc<LinkedKernel>, Linked), PassError> {
        self.reductions
            .get((function, step, variant.clone(), target.math), || {
                let c = &self.compiled;
                let generated = generate_reduce_pass(
                    &c.module,
                    function,
                    &step,
                    variant,
                    target,
                    Some(&c.source),
                )?;
                LinkedKernel::link(ctx, generated)
            })
    }

    /// The first step of reduction `function` computing kernel `kernel` (as `variant`) in
    /// its reads, and its link time if linked now.
    pub fn fused(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        kernel: FunctionId,
        variant: &Variant,
        function: FunctionId,
        step: ReduceStep,
    ) -> Result<(Rc<LinkedKernel>, Linked), PassError> {
        self.fused.get(
            (kernel, variant.clone(), function, step, target.math),
            || {
                let c = &self.compiled;
                let generated = generate_fused_reduce_pass(
                    &c.module,
                    kernel,
                    variant,
                    function,
                    &step,
                    target,
                    Some(&c.source),
                )?;
                LinkedKernel::link(ctx, generated)
            },
        )
    }

    /// A scatter combining through the reduce function `function`.
    pub fn combiner(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        function: FunctionId,
    ) -> Result<(Rc<LinkedScatter>, Linked), PassError> {
        self.combiners.get((function, target.math), || {
            let c = &self.compiled;
            let program = generate_scatter_reduce(&c.module, function, target, Some(&c.source))?;
            LinkedScatter::link(ctx, "streamScatterOp", program, true)
        })
    }

    /// Programs linked for this Brook program so far.
    pub fn linked(&self) -> usize {
        self.kernels.len() + self.reductions.len() + self.fused.len() + self.combiners.len()
    }
}

/// The programs of one context that no Brook program owns: they depend on element layouts
/// only, so there are few of them.
#[derive(Default)]
pub struct Builtins {
    scatter_writes: Memo<(Vec<u8>, bool), LinkedScatter>,
    fetches: Memo<Vec<u8>, LinkedScatter>,
    scan: Memo<bool, LinkedPass>,
    compactions: Memo<(u32, u8), LinkedPass>,
    mask: Memo<(), LinkedPass>,
}

impl Builtins {
    /// The scatter writing elements of member widths `widths` (blended or not), drawn in a
    /// planned order or not.
    pub fn scatter_write(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        widths: &[u8],
        ordered: bool,
    ) -> Result<(Rc<LinkedScatter>, Linked), PassError> {
        self.scatter_writes.get((widths.to_vec(), ordered), || {
            LinkedScatter::link(
                ctx,
                "streamScatterOp",
                generate_scatter_write(target, widths, ordered),
                true,
            )
        })
    }

    /// GatherOp's fetch of elements of member widths `widths`.
    pub fn fetch(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        widths: &[u8],
    ) -> Result<(Rc<LinkedScatter>, Linked), PassError> {
        self.fetches.get(widths.to_vec(), || {
            let fetch = generate_gather_fetch(target, widths);
            LinkedScatter::link(ctx, "streamGatherOp", fetch, false)
        })
    }

    /// The vout scan's up-sweep (`true`) or down-sweep pass.
    pub fn scan(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        up: bool,
    ) -> Result<Rc<LinkedPass>, PassError> {
        let plan = || {
            if up {
                scan_up_pass(target)
            } else {
                scan_down_pass(target)
            }
        };
        Ok(self
            .scan
            .get(up, || link_covering(ctx, "vout scan", plan()))?
            .0)
    }

    /// The compaction of one member of `components` of a vout with room for `max` pushes.
    pub fn compaction(
        &self,
        ctx: &Rc<GlContext>,
        target: &Target,
        max: u32,
        components: u8,
    ) -> Result<Rc<LinkedPass>, PassError> {
        let pass = || compact_pass(target, max, components);
        Ok(self
            .compactions
            .get((max, components), || {
                link_covering(ctx, "vout compaction", pass())
            })?
            .0)
    }

    /// The pass drawing a write mask into a depth texture.
    pub fn mask(&self, ctx: &Rc<GlContext>, target: &Target) -> Result<Rc<LinkedPass>, PassError> {
        Ok(self
            .mask
            .get((), || {
                link_covering(ctx, "streamSetWriteMask", mask_pass(target))
            })?
            .0)
    }

    /// Programs linked so far.
    pub fn linked(&self) -> usize {
        self.scatter_writes.len()
            + self.fetches.len()
            + self.scan.len()
            + self.compactions.len()
            + self.mask.len()
    }
}

/// Links a pass drawn with the covering-triangle vertex shader.
fn link_covering(
    ctx: &Rc<GlContext>,
    function: &str,
    plan: brook_glsl::PassProgram,
) -> Result<LinkedPass, PassError> {
    LinkedPass::link(ctx, function, &vertex_shader(profile(ctx)), plan)
}
