//! What an application is to the report: one problem instance, its reference answer, and the
//! same algorithm written five ways (the papers' figure compares the GL, Brook GL, Brook CPU
//! and Rust ones; Brook wgpu is the same Brook program as compute shaders).

use std::fmt;
use std::rc::Rc;

use brook::texture_streams::GlContext;
use brook::Runtime;

use crate::error::AppError;

/// How big the problem is: the papers' sizes, a quick run, or the smallest size that still
/// exercises every code path (the tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The sizes of the papers' figures.
    Full,
    /// Smaller sizes, for a report in minutes.
    Quick,
    /// The smallest sizes that still take every code path (the tests).
    Tiny,
}

impl Scale {
    /// Picks one of three values, in the order full, quick, tiny.
    pub fn pick<T>(self, full: T, quick: T, tiny: T) -> T {
        match self {
            Scale::Full => full,
            Scale::Quick => quick,
            Scale::Tiny => tiny,
        }
    }
}

/// What kind of program the hand-written GL version is, and so what the ratio of Brook GL to it
/// measures (issue 19): a ratio that mixes the two questions answers neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Exactly the passes Brook runs, written by hand: the ratio is the compiler's and the
    /// runtime's overhead, the one Brook's "close to hand-written" claim is about.
    SamePasses,
    /// The best hand-written version, which does what Brook's stream model cannot (fusing a
    /// map into a reduction's first pass, another kernel or layout): the ratio is the cost of
    /// the model as well as the overhead. The string says how it differs.
    Expert(&'static str),
}

impl Baseline {
    /// The label the report prints.
    pub fn label(self) -> &'static str {
        match self {
            Baseline::SamePasses => "same passes",
            Baseline::Expert(_) => "expert",
        }
    }
}

/// The ways each application is written (one Brook program serves the three Brook flavours).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flavor {
    /// The reference GPU implementation: plain glow, textures and shaders written by hand.
    HandGl,
    /// The Brook program on the GL backend.
    BrookGl,
    /// The same Brook program on the wgpu backend (compute shaders over storage buffers).
    BrookWgpu,
    /// Hand-written wgpu compute (WGSL, buffers, pipelines, dispatches of its own): exactly the
    /// passes Brook's wgpu backend runs, so Brook wgpu's ratio to it is Brook's overhead there.
    HandWgpu,
    /// The hand-written wgpu version an expert would write instead, where it differs from
    /// Brook's passes (each application's module says how).
    HandWgpuExpert,
    /// The same Brook program on the CPU backend.
    BrookCpu,
    /// A good plain-Rust CPU version (rayon, or a well-kept crate where the paper used a library).
    Rust,
}

impl Flavor {
    /// Every flavour, in the report's column order.
    pub const ALL: [Flavor; 7] = [
        Flavor::HandGl,
        Flavor::BrookGl,
        Flavor::BrookWgpu,
        Flavor::HandWgpu,
        Flavor::HandWgpuExpert,
        Flavor::BrookCpu,
        Flavor::Rust,
    ];

    /// The flavours that run the application's Brook program, each on its runtime
    /// ([`Env::runtime`]).
    pub const BROOK: [Flavor; 3] = [Flavor::BrookGl, Flavor::BrookWgpu, Flavor::BrookCpu];

    /// The flavour's name in the report.
    pub fn label(self) -> &'static str {
        match self {
            Flavor::HandGl => "hand-written GL",
            Flavor::BrookGl => "Brook GL",
            Flavor::BrookWgpu => "Brook wgpu",
            Flavor::HandWgpu => "hand-written wgpu",
            Flavor::HandWgpuExpert => "hand-written wgpu (expert)",
            Flavor::BrookCpu => "Brook CPU",
            Flavor::Rust => "Rust",
        }
    }

    /// A name without spaces, for criterion and command-line filters.
    pub fn slug(self) -> &'static str {
        match self {
            Flavor::HandGl => "hand_gl",
            Flavor::BrookGl => "brook_gl",
            Flavor::BrookWgpu => "brook_wgpu",
            Flavor::HandWgpu => "hand_wgpu",
            Flavor::HandWgpuExpert => "hand_wgpu_expert",
            Flavor::BrookCpu => "brook_cpu",
            Flavor::Rust => "rust",
        }
    }
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One implementation of an application on one instance. The report times the three steps
/// apart, as the papers do: `compute` is the algorithm, `upload`/`download` are streamRead and
/// streamWrite (free for the plain-Rust version, whose data is already in host memory).
pub trait Variant {
    /// Moves the instance's inputs to where `compute` reads them (streamRead).
    fn upload(&mut self) -> Result<(), AppError>;
    /// One whole run of the algorithm on the uploaded inputs. It must not change its inputs,
    /// so that it can be repeated and timed; GL work may still be queued when it returns.
    fn compute(&mut self) -> Result<(), AppError>;
    /// Waits for queued work, so that a timer stopped after it is honest.
    fn sync(&self) {}
    /// Brings the result back to the host (streamWrite), flattened to floats.
    fn download(&mut self) -> Result<Vec<f32>, AppError>;
    /// The host arrays `upload` copies, for the hand-written transfers a Brook variant's are
    /// measured against (none: not compared).
    fn host_inputs(&self) -> Vec<&[f32]> {
        Vec::new()
    }
    /// How many floats `download` reads off the device where it returns fewer (Ray keeps
    /// its compared pixels, Bitonic its values before the padding), so that the
    /// hand-written read back a Brook variant's is timed against reads as many; `None`:
    /// as many as it returns.
    fn read_floats(&self) -> Option<usize> {
        None
    }
    /// What `download` keeps of the floats it read where that takes host work (Ray picks
    /// its compared pixels out of the image), so that the hand-written read back a Brook
    /// variant's is timed against does the same work on what it read; as read by default.
    fn kept(&self, read: Vec<f32>) -> Result<Vec<f32>, AppError> {
        Ok(read)
    }
}

/// What one `compute` achieves, to turn its time into a rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// Floating-point operations, counted the way the paper counts them.
    Flops(f64),
    /// Ray–triangle intersection tests (the paper's measure for Ray).
    RayTriangleTests(f64),
    /// Elements processed, for applications the papers measure without a flop count (sorting,
    /// scans, histograms).
    Elements(f64),
}

impl Work {
    /// The rate at `seconds` per compute, with its unit: MFLOPS, Mrays/s or Melem/s.
    pub fn rate(self, seconds: f64) -> (f64, &'static str) {
        let (amount, unit) = match self {
            Work::Flops(n) => (n, "MFLOPS"),
            Work::RayTriangleTests(n) => (n, "Mtests/s"),
            Work::Elements(n) => (n, "Melem/s"),
        };
        (amount / seconds / 1e6, unit)
    }
}

/// How close a result must be to the reference: the largest absolute error, divided by the
/// largest reference magnitude (at least 1), may not exceed the bound. Exact results (sorting,
/// counting) use 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance(pub f64);

impl Tolerance {
    /// The scaled error of `got` against `reference`, or why they cannot be compared.
    pub fn error(reference: &[f64], got: &[f32]) -> Result<f64, AppError> {
        if reference.len() != got.len() {
            return Err(AppError::Mismatch(format!(
                "result has {} values, the reference {}",
                got.len(),
                reference.len()
            )));
        }
        let scale = reference.iter().fold(1.0f64, |m, r| m.max(r.abs()));
        let mut worst = 0.0f64;
        for (r, g) in reference.iter().zip(got) {
            let e = (*g as f64 - r).abs();
            if e.is_nan() {
                return Ok(f64::INFINITY);
            }
            worst = worst.max(e);
        }
        Ok(worst / scale)
    }
}

/// The machinery every application builds its variants on: one GL context shared by the
/// hand-written and the Brook versions (so they compete on equal terms), a wgpu runtime and a
/// CPU runtime.
pub struct Env {
    /// The GL context: the Brook GL runtime's own, which the hand-written versions share.
    pub context: Rc<GlContext>,
    /// The Brook runtime on the GL backend.
    pub gl: Runtime,
    /// The Brook runtime on the wgpu backend.
    pub wgpu: Runtime,
    /// The Brook runtime on the CPU backend.
    pub cpu: Runtime,
}

impl Env {
    /// A headless EGL context (Mesa llvmpipe where there is no GPU), a headless wgpu device
    /// (a GPU, else lavapipe, else wgpu's GL backend) and the CPU backend.
    pub fn headless() -> Result<Env, AppError> {
        let gl = Runtime::gl()?;
        let context = gl
            .gl_context()
            .cloned()
            .ok_or_else(|| AppError::Gl("the GL runtime has no GL context".into()))?;
        Ok(Env {
            context,
            gl,
            wgpu: Runtime::wgpu()?,
            cpu: Runtime::cpu(),
        })
    }

    /// The runtime that runs `flavor`'s Brook program.
    pub fn runtime(&self, flavor: Flavor) -> &Runtime {
        match flavor {
            Flavor::BrookCpu => &self.cpu,
            Flavor::BrookWgpu => &self.wgpu,
            _ => &self.gl,
        }
    }
}

/// One application at one scale, ready to check and time.
pub struct Instance<'a> {
    /// What was computed, e.g. `1024×1024 float4`.
    pub size: String,
    /// What one `compute` achieves, to turn a time into a rate.
    pub work: Work,
    /// The answer, from an f64 or independent CPU computation.
    pub reference: Vec<f64>,
    /// How close every variant's result must be to `reference`.
    pub tolerance: Tolerance,
    /// The implementations to check and time, each with its flavour.
    pub variants: Vec<(Flavor, Box<dyn Variant + 'a>)>,
}

/// An application of the papers.
pub trait App {
    /// Short name, as in the papers' figures.
    fn name(&self) -> &'static str;
    /// Where it comes from and what it does, one line.
    fn summary(&self) -> &'static str;
    /// What the hand-written GL version is to the Brook one, which says what their ratio
    /// measures.
    fn baseline(&self) -> Baseline {
        Baseline::SamePasses
    }
    /// Builds the instance at `scale`: inputs, reference, and the variants of every flavour.
    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError>;
}
