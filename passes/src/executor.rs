//! The one place GL calls of a Brook call are issued: binds what each [`Step`] describes,
//! draws, and keeps the fixed-function state (blending, depth test) it set, so a step never
//! inherits another's. It records the trace (the steps, as data) and lets an observer see
//! every step just before and after it runs; both cost nothing when off.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

use brook_core::{Blend, PassObserver, PassTrace, TraceEntry};
use brook_texture_streams::{GlContext, GlError, Texture};
use glow::HasContext;

use crate::encode::mask::WriteQuery;
use crate::error::PassError;
use crate::step::{DepthUse, MaskTest, Pass, Primitive, Step};
use crate::uniforms::{apply, same_bits};

/// Blending and depth as the executor last set them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct FixedFunction {
    blend: Option<Blend>,
    depth: DepthState,
}

/// The depth test and writes as a draw wants them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum DepthState {
    /// Depth test off.
    #[default]
    Off,
    /// A kernel pass against the mask ([`MaskTest`]).
    Tested(MaskTest),
    /// A mask drawn: `ALWAYS`, depth written.
    Written,
}

/// Whether a draw writes its fragments, or is the warm-up an observed pass gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fragments {
    /// Every fragment the draw covers (a pass as it runs).
    All,
    /// None: the scissor test is on with an empty box, so the draw binds, validates and
    /// compiles everything a real one does and writes nothing.
    None,
}

/// Issues step lists on one context.
pub struct Executor {
    ctx: Rc<GlContext>,
    state: Cell<FixedFunction>,
    trace: RefCell<Option<Vec<TraceEntry>>>,
    observer: RefCell<Option<Box<dyn PassObserver>>>,
}

impl Executor {
    /// An executor issuing steps on `ctx`, not tracing.
    pub fn new(ctx: &Rc<GlContext>) -> Executor {
        Executor {
            ctx: ctx.clone(),
            state: Cell::new(FixedFunction::default()),
            trace: RefCell::new(None),
            observer: RefCell::new(None),
        }
    }

    /// The GL context the steps are issued on.
    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Runs `steps` in order; `query` counts the samples of the passes marked `counted`.
    /// Blending and the depth test are off again afterwards, as other GL code on the context
    /// (viz, an application's own drawing) expects them.
    pub fn run(&self, steps: &[Step], query: Option<&mut WriteQuery>) -> Result<(), PassError> {
        // Without an observer nothing but these steps runs until they are done, so the
        // context stays current: one EGL query for the whole list. An observer may run any
        // code (another runtime's calls) between steps, so each step makes it current again.
        let observed = self.observer.try_borrow().map_or(true, |o| o.is_some());
        let _scope = if observed {
            self.ctx.make_current()?;
            None
        } else {
            Some(self.ctx.current_scope()?)
        };
        let ran = self.run_steps(steps, query);
        self.set_fixed_function(FixedFunction::default());
        ran
    }

    fn run_steps(
        &self,
        steps: &[Step],
        mut query: Option<&mut WriteQuery>,
    ) -> Result<(), PassError> {
        // An observer that calls back into the runtime finds no observer for those steps.
        let mut slot = self.observer.try_borrow_mut().ok();
        let mut observer = slot.as_mut().and_then(|o| o.as_mut());
        for (k, step) in steps.iter().enumerate() {
            // The observer sees the step as the trace records it, its textures readable; it
            // is told before the step, then the GPU finishes what came before, so `elapsed`
            // is the step's own time. A draw is drawn once first with every fragment
            // scissored away: drivers compile (llvmpipe: the shader variant for this state)
            // at a program's first draw, and that warm-up draw pays it, timed apart.
            let observed = observer.as_ref().map(|_| step.observed());
            let started = match (observer.as_mut(), &observed) {
                (Some(o), Some(observed)) => {
                    o.before(observed);
                    self.ctx.make_current()?;
                    // SAFETY: the context is current; finishing has no other effect.
                    unsafe { self.ctx.gl().finish() };
                    if let Step::Draw(pass) = step {
                        let warm = Instant::now();
                        self.draw(pass, None, Fragments::None)?;
                        // SAFETY: as above.
                        unsafe { self.ctx.gl().finish() };
                        o.warmed_up(observed, warm.elapsed());
                    }
                    Some(Instant::now())
                }
                _ => None,
            };
            match step {
                Step::Draw(pass) => self.draw(pass, query.as_deref_mut(), Fragments::All)?,
                Step::Copy { from, to, .. } => to.copy_from(from)?,
                Step::Clear { target, .. } => self.clear(target, &steps[k + 1..])?,
            }
            if let (Some(o), Some(pass), Some(started)) = (observer.as_mut(), &observed, started) {
                // SAFETY: as above.
                unsafe { self.ctx.gl().finish() };
                o.after(pass, started.elapsed());
            }
        }
        Ok(())
    }

    /// One draw: framebuffer, fixed-function state, viewport, program, textures, uniforms,
    /// primitive; with [`Fragments::None`], all of it but no fragment written.
    fn draw(
        &self,
        pass: &Pass,
        query: Option<&mut WriteQuery>,
        fragments: Fragments,
    ) -> Result<(), PassError> {
        let gl = self.ctx.gl();
        match pass.depth {
            DepthUse::Write(mask) => mask.bind_framebuffer()?,
            DepthUse::Test(mask, _) => {
                self.ctx.framebuffer_for(&pass.targets)?;
                mask.attach()?;
            }
            DepthUse::None => {
                self.ctx.framebuffer_for(&pass.targets)?;
            }
        }
        self.set_fixed_function(FixedFunction {
            blend: pass.blend,
            depth: match pass.depth {
                DepthUse::None => DepthState::Off,
                DepthUse::Test(_, test) => DepthState::Tested(test),
                DepthUse::Write(_) => DepthState::Written,
            },
        });
        let program = pass.program;
        // SAFETY: the context is current and every object bound was created on it.
        unsafe {
            let [x, y, w, h] = pass.viewport;
            gl.viewport(x, y, w, h);
            gl.use_program(Some(program.program.raw()));
            for (unit, texture) in pass.inputs.iter().enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(texture.raw()));
            }
        }
        let mut set = program.set.borrow_mut();
        for (slot, value) in &pass.uniforms {
            if let Some(location) = &program.locations[*slot] {
                if !set[*slot].as_ref().is_some_and(|old| same_bits(old, value)) {
                    apply(gl, location, value);
                    set[*slot] = Some(value.clone());
                }
            }
        }
        drop(set);
        let issue = || {
            // SAFETY: as above; the VAO is the context's own and has no attributes (every
            // vertex is placed from gl_VertexID).
            unsafe {
                gl.bind_vertex_array(Some(self.ctx.fullscreen_vao()));
                match pass.primitive {
                    Primitive::CoveringTriangle => gl.draw_arrays(glow::TRIANGLES, 0, 3),
                    Primitive::Points { first, count } => {
                        gl.draw_arrays(glow::POINTS, first as i32, count as i32)
                    }
                }
            }
        };
        match (fragments, query.filter(|_| pass.counted)) {
            // SAFETY: as above; an empty scissor box lets no fragment through.
            (Fragments::None, _) => unsafe {
                gl.enable(glow::SCISSOR_TEST);
                gl.scissor(0, 0, 0, 0);
                issue();
                gl.disable(glow::SCISSOR_TEST);
            },
            (Fragments::All, Some(query)) => query.count(issue)?,
            (Fragments::All, None) => issue(),
        }
        if let DepthUse::Test(mask, _) = pass.depth {
            // Cached framebuffers are shared: none may keep the mask attached.
            mask.detach();
        }
        Ok(())
    }

    /// Zeroes `target`. When the draw that follows (after any other clears) writes it, the
    /// clear goes through that draw's framebuffer, as draw buffer k: switching framebuffers
    /// makes llvmpipe flush its queued work, so a clear through the texture's own one (the
    /// loop status before every loop-checked call) would cost a flush per call.
    fn clear(&self, target: &Texture, rest: &[Step]) -> Result<(), PassError> {
        let next = rest.iter().find(|s| !matches!(s, Step::Clear { .. }));
        let Some(Step::Draw(pass)) = next else {
            return Ok(target.clear()?);
        };
        let Some(buffer) = pass.targets.iter().position(|t| t.id() == target.id()) else {
            return Ok(target.clear()?);
        };
        self.ctx.framebuffer_for(&pass.targets)?;
        // SAFETY: the context is current (framebuffer_for made it so) and the framebuffer
        // bound has `target` as draw buffer `buffer`.
        unsafe {
            self.ctx
                .gl()
                .clear_buffer_f32_slice(glow::COLOR, buffer as u32, &[0.0; 4]);
        }
        Ok(())
    }

    /// Sets blending and the depth test as `wanted`, touching only what differs.
    fn set_fixed_function(&self, wanted: FixedFunction) {
        let current = self.state.get();
        if current == wanted {
            return;
        }
        let gl = self.ctx.gl();
        // SAFETY: plain state changes on the current context.
        unsafe {
            if current.blend != wanted.blend {
                match wanted.blend {
                    None => gl.disable(glow::BLEND),
                    Some(blend) => {
                        gl.enable(glow::BLEND);
                        gl.blend_equation(match blend {
                            Blend::Add => glow::FUNC_ADD,
                            Blend::Min => glow::MIN,
                            Blend::Max => glow::MAX,
                        });
                        gl.blend_func(glow::ONE, glow::ONE);
                    }
                }
            }
            if current.depth != wanted.depth {
                match wanted.depth {
                    DepthState::Off => {
                        gl.disable(glow::DEPTH_TEST);
                        gl.depth_mask(true);
                    }
                    DepthState::Tested(MaskTest { test, sets }) => {
                        gl.enable(glow::DEPTH_TEST);
                        gl.depth_func(if test { glow::LESS } else { glow::LEQUAL });
                        gl.depth_mask(sets);
                    }
                    DepthState::Written => {
                        // Depth is only written while the test is on.
                        gl.enable(glow::DEPTH_TEST);
                        gl.depth_func(glow::ALWAYS);
                        gl.depth_mask(true);
                    }
                }
            }
        }
        self.state.set(wanted);
    }

    /// Checks for a GL error after the steps of `what()` (called only to report one).
    pub fn check(&self, what: impl FnOnce() -> String) -> Result<(), GlError> {
        self.ctx.check_error_with(what)
    }

    /// Starts (keeping nothing from before) or stops recording the trace.
    pub fn set_trace(&self, on: bool) {
        *self.trace.borrow_mut() = on.then(Vec::new);
    }

    /// Whether the trace is being recorded.
    pub fn tracing(&self) -> bool {
        self.trace.borrow().is_some()
    }

    /// Whether someone reads the steps (the trace or an observer), so they should carry
    /// their labels and names.
    pub fn described(&self) -> bool {
        self.tracing() || self.observer.try_borrow().is_ok_and(|o| o.is_some())
    }

    /// The entries recorded since tracing started or since the last take.
    pub fn take_trace(&self) -> Vec<TraceEntry> {
        self.trace
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Adds an entry while tracing.
    pub fn record(&self, entry: impl FnOnce() -> TraceEntry) {
        if let Some(log) = self.trace.borrow_mut().as_mut() {
            log.push(entry());
        }
    }

    /// Installs (or with `None` removes) the observer of every step.
    pub fn set_observer(&self, observer: Option<Box<dyn PassObserver>>) {
        *self.observer.borrow_mut() = observer;
    }
}

/// The steps as the trace shows them.
pub fn traced(steps: &[Step]) -> Vec<PassTrace> {
    steps.iter().map(Step::trace).collect()
}
