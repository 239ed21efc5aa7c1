//! Dense matrix–vector products: BLAS SGEMV, `y = αAx + βy` on a 1024² matrix (001 §5.1), and
//! the Accelerator's plain `y = Ax` on a 1000² matrix (003's table). One problem description
//! serves both; each can be written as a kernel and a row reduction (001 §3.3's example) or
//! as a gather loop over each row, and each form is its own row in the report.

mod brook_gather;
mod brook_reduce;
mod hand_gather;
mod hand_reduce;
mod hand_wgpu;
mod rust;

use crate::app::{App, Baseline, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::data;
use crate::error::AppError;

/// How the GPU versions compute the product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// A kernel forms every `A[i][j]·x[j]` (x resized over the rows), a reduction sums each
    /// row, a kernel applies α and β (001 §3.3).
    Reduce,
    /// One kernel per output element loops over its row, gathering `A[i][j]` and `x[j]`.
    Gather,
}

/// A matrix–vector application: which problem, in which form.
pub struct Gemv {
    name: &'static str,
    summary: &'static str,
    /// The matrix side at the full, quick and tiny scales.
    sides: [usize; 3],
    /// α and β; `None` for the plain product `y = Ax`, which has no `y` input.
    alpha_beta: Option<(f32, f32)>,
    form: Form,
}

impl Gemv {
    pub const SGEMV: Gemv = Gemv {
        name: "SGEMV",
        summary: "y = αAx + βy, a kernel and a row reduction (001 §3.3, §5.1)",
        sides: [1024, 256, 37],
        alpha_beta: Some((1.5, -0.5)),
        form: Form::Reduce,
    };

    pub const SGEMV_GATHER: Gemv = Gemv {
        name: "SGEMV-gather",
        summary: "y = αAx + βy, one kernel looping over each row with gathers (001 §5.1)",
        form: Form::Gather,
        ..Gemv::SGEMV
    };

    pub const MATVEC: Gemv = Gemv {
        name: "matvec",
        summary: "y = Ax on a 1000² matrix, a kernel and a row reduction (003's table)",
        sides: [1000, 250, 35],
        alpha_beta: None,
        form: Form::Reduce,
    };
}

/// One instance's host data.
#[derive(Clone)]
struct Problem {
    n: usize,
    /// Row-major `n × n`.
    a: Vec<f32>,
    x: Vec<f32>,
    y: Vec<f32>,
    alpha_beta: Option<(f32, f32)>,
}

impl Problem {
    fn new(gemv: &Gemv, scale: Scale) -> Problem {
        let [full, quick, tiny] = gemv.sides;
        let n = scale.pick(full, quick, tiny);
        Problem {
            n,
            a: data::uniform(n * n, 11, -1.0, 1.0),
            x: data::uniform(n, 12, -1.0, 1.0),
            y: data::uniform(n, 13, -1.0, 1.0),
            alpha_beta: gemv.alpha_beta,
        }
    }

    /// The α and β a single kernel applies: 1 and 0 for the plain product.
    fn alpha_beta_or_plain(&self) -> (f32, f32) {
        self.alpha_beta.unwrap_or((1.0, 0.0))
    }

    /// `αAx + βy` in f64.
    fn reference(&self) -> Vec<f64> {
        let n = self.n;
        (0..n)
            .map(|i| {
                let row = &self.a[i * n..(i + 1) * n];
                let ax: f64 = row
                    .iter()
                    .zip(&self.x)
                    .map(|(a, x)| *a as f64 * *x as f64)
                    .sum();
                match self.alpha_beta {
                    Some((alpha, beta)) => alpha as f64 * ax + beta as f64 * self.y[i] as f64,
                    None => ax,
                }
            })
            .collect()
    }

    /// A multiply and an add per matrix element (2n²), plus α·, β· and + per row when there
    /// is a `y` term (SGEMV's 2n² + 3n).
    fn work(&self) -> Work {
        let n = self.n as f64;
        let per_row = if self.alpha_beta.is_some() { 3.0 } else { 0.0 };
        Work::Flops(2.0 * n * n + per_row * n)
    }
}

impl App for Gemv {
    fn name(&self) -> &'static str {
        self.name
    }

    fn summary(&self) -> &'static str {
        self.summary
    }

    fn baseline(&self) -> Baseline {
        match self.form {
            Form::Reduce => Baseline::Expert(
                "the hand version multiplies A[i][j]·x[j] inside its first 16-way fold pass; \
                 Brook's `map_reduce_to_stream` does inside its first 8-way pass",
            ),
            Form::Gather => Baseline::SamePasses,
        }
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        let p = Problem::new(self, scale);
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = Vec::new();
        let hand: Box<dyn Variant + 'a> = match self.form {
            Form::Reduce => Box::new(hand_reduce::Hand::new(env, p.clone())?),
            Form::Gather => Box::new(hand_gather::Hand::new(env, p.clone())?),
        };
        variants.push((Flavor::HandGl, hand));
        for flavor in Flavor::BROOK {
            let rt = env.runtime(flavor);
            let brook: Box<dyn Variant + 'a> = match self.form {
                Form::Reduce => Box::new(brook_reduce::BrookGemv::new(rt, &p)?),
                Form::Gather => Box::new(brook_gather::BrookGemv::new(rt, &p)?),
            };
            variants.push((flavor, brook));
        }
        let hand_wgpu = hand_wgpu::SamePasses::new(env, p.clone(), self.form)?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        let expert = hand_wgpu::Expert::new(env, p.clone())?;
        variants.push((Flavor::HandWgpuExpert, Box::new(expert)));
        variants.push((Flavor::Rust, Box::new(rust::RustGemv::new(p.clone()))));
        Ok(Instance {
            size: format!("{n}×{n}", n = p.n),
            work: p.work(),
            reference: p.reference(),
            // Each result sums n ≤ 1024 products of values in [-1, 1] in f32 (in different
            // orders: sequential, tree, 16-way lanes). Rounding errors are ~√n·2⁻²⁴ times the
            // partial sums, a few 1e-6 of the largest |y| (≈ 3.5·√(n/9) ≈ 35 at n = 1000);
            // 1e-4 leaves a wide margin, while a missing, doubled or misplaced row block moves
            // results by a good fraction of their size.
            tolerance: Tolerance(1e-4),
            variants,
        })
    }
}
