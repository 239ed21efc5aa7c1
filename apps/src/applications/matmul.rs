//! Matrix–matrix multiplication `C = A·B` (003's table, BLAS SGEMM, at its 1000²):
//! the compute-bound end of the suite, 2n³ flops on 3n² floats.
//!
//! Both GPU versions pack four consecutive columns into one `float4` texel, so a row-major
//! matrix is uploaded as it is (`n × n/4` texels) and each fragment computes four outputs:
//! per step of four `k`, one texel of `A`'s row and four of `B`'s column block feed sixteen
//! multiply-adds, where the scalar loop needs two fetches per multiply-add.

use brook::{args, Program, Runtime, Stream};
use rayon::prelude::*;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::applications::wgpu_one_pass::OnePass;
use crate::brook_run::Inputs;
use crate::data;
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

pub struct Matmul;

/// `m` is `n / 4`, the texels per row; `c`'s element (row i, block j) is `C[i][4j..4j+4]`.
const BROOK: &str = "
kernel void matmul(int m, float4 a[][], float4 b[][], out float4 c<>) {
    float4 p = indexof(c);
    float4 sum = float4(0.0, 0.0, 0.0, 0.0);
    for (int k = 0; k < m; k++) {
        float4 r = a[p.y][k];
        int row = 4 * k;
        sum += r.x * b[row][p.x] + r.y * b[row + 1][p.x]
             + r.z * b[row + 2][p.x] + r.w * b[row + 3][p.x];
    }
    c = sum;
}
";

const HAND: &str = "
uniform int m;
uniform sampler2D a;
uniform sampler2D b;
out vec4 c;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    vec4 sum = vec4(0.0);
    for (int k = 0; k < m; k++) {
        vec4 r = texelFetch(a, ivec2(k, t.y), 0);
        int row = 4 * k;
        sum += r.x * texelFetch(b, ivec2(t.x, row), 0) + r.y * texelFetch(b, ivec2(t.x, row + 1), 0)
             + r.z * texelFetch(b, ivec2(t.x, row + 2), 0) + r.w * texelFetch(b, ivec2(t.x, row + 3), 0);
    }
    c = sum;
}
";

/// Brook's pass hand-written in WGSL: one invocation per `float4` of `C` in workgroups of 64
/// along the rows, the same loop (`M` texels per row, a `const` put before it).
const WGPU: &str = "
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i >= 4u * M * M {
        return;
    }
    let x = i % M;
    let y = i / M;
    var sum = vec4(0.0);
    for (var k = 0u; k < M; k++) {
        let r = a[y * M + k];
        let row = 4u * k;
        sum += r.x * b[row * M + x] + r.y * b[(row + 1u) * M + x]
             + r.z * b[(row + 2u) * M + x] + r.w * b[(row + 3u) * M + x];
    }
    c[i] = sum;
}
";

impl App for Matmul {
    fn name(&self) -> &'static str {
        "matmul"
    }

    fn summary(&self) -> &'static str {
        "C = A·B on 1000² matrices, a float4 gather loop (003's table, SGEMM)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // The float4 packing needs n to be a multiple of 4: 12 is the smallest non-power of
        // two that loops over more than one texel per row. At 1000² the Brook CPU backend
        // takes about 4 s a run on 2 quiet cores, the longest of the report.
        let n = scale.pick(1000, 256, 12);
        let a = data::uniform(n * n, 31, -1.0, 1.0);
        let b = data::uniform(n * n, 32, -1.0, 1.0);
        let reference = reference(n, &a, &b);
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(Hand::new(env, n, a.clone(), b.clone())?),
        )];
        for flavor in Flavor::BROOK {
            let brook = BrookMatmul::new(env.runtime(flavor), n, a.clone(), b.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        // `M`, the texels per row, baked in as a hand-written shader would.
        let wgsl = format!("const M: u32 = {}u;\n{WGPU}", n / 4);
        let inputs = vec![a.clone(), b.clone()];
        let hand_wgpu = OnePass::new(env, &wgsl, inputs, None, n * n, n * n / 4)?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        variants.push((Flavor::Rust, Box::new(RustMatmul { n, a, b, c: vec![] })));
        Ok(Instance {
            size: format!("{n}×{n}"),
            work: Work::Flops(2.0 * (n as f64).powi(3)),
            reference,
            // As for SGEMV: each element sums n ≤ 1000 products of values in [-1, 1] in f32,
            // in different orders; roundings come to a few 1e-6 of the largest |C| (≈ 35),
            // and 1e-4 still catches any wrong row, column or block.
            tolerance: Tolerance(1e-4),
            variants,
        })
    }
}

/// `A·B` in f64, rows in parallel, in i-k-j order so the inner loop runs along rows.
fn reference(n: usize, a: &[f32], b: &[f32]) -> Vec<f64> {
    let mut c = vec![0.0f64; n * n];
    c.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for k in 0..n {
            let aik = a[i * n + k] as f64;
            for (c, b) in row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *c += aik * *b as f64;
            }
        }
    });
    c
}

struct BrookMatmul<'a> {
    rt: &'a Runtime,
    program: Program,
    inputs: Inputs,
    texels_per_row: i32,
    c: Stream,
}

impl<'a> BrookMatmul<'a> {
    fn new(rt: &'a Runtime, n: usize, a: Vec<f32>, b: Vec<f32>) -> Result<Self, AppError> {
        let shape = [n, n / 4];
        let mut inputs = Inputs::default();
        inputs.add(rt, 4, &shape, a)?;
        inputs.add(rt, 4, &shape, b)?;
        Ok(BrookMatmul {
            rt,
            program: rt.compile(BROOK, "matmul.br")?,
            inputs,
            texels_per_row: (n / 4) as i32,
            c: rt.stream_of(4, &shape)?,
        })
    }
}

impl Variant for BrookMatmul<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (a, b) = (self.inputs.get(0), self.inputs.get(1));
        self.rt.run(
            &self.program,
            "matmul",
            args![self.texels_per_row, a, b, &self.c],
        )?;
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.c.to_vec()?)
    }
}

struct Hand<'a> {
    env: &'a Env,
    shader: Shader,
    data: [Vec<f32>; 2],
    /// `A`, `B` and `C`, `n/4 × n` texels of four floats each.
    textures: [Texture; 3],
}

impl<'a> Hand<'a> {
    fn new(env: &'a Env, n: usize, a: Vec<f32>, b: Vec<f32>) -> Result<Self, AppError> {
        let ctx = &env.context;
        let texture = || glkit::texture(ctx, n / 4, n, 4, None);
        Ok(Hand {
            env,
            shader: Shader::fragment(ctx, HAND)?,
            data: [a, b],
            textures: [texture()?, texture()?, texture()?],
        })
    }
}

impl Variant for Hand<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        for (t, d) in self.textures.iter().zip(&self.data) {
            t.upload(glkit::whole(t), d)?;
        }
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let [a, b, c] = &self.textures;
        Draw {
            shader: &self.shader,
            samplers: &[("a", a), ("b", b)],
            uniforms: &[("m", Uniform::Int(a.width() as i32))],
            targets: &[c],
            viewport: None,
        }
        .cover()
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "matmul")?;
        glkit::read(&self.textures[2])
    }
}

/// Rows of `C` per rayon task: each is one `sgemm` of a band of `A` with all of `B`.
const BAND: usize = 64;

struct RustMatmul {
    n: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

impl Variant for RustMatmul {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let n = self.n;
        let (a, b) = (&self.a, &self.b);
        self.c = vec![0.0; n * n];
        self.c
            .par_chunks_mut(BAND * n)
            .zip(a.par_chunks(BAND * n))
            .for_each(|(c, a)| {
                let rows = c.len() / n;
                // SAFETY: `a` is `rows × n`, `b` is `n × n` and `c` is `rows × n`, all
                // row-major (row stride n, column stride 1), as the pointers and strides say.
                unsafe {
                    matrixmultiply::sgemm(
                        rows,
                        n,
                        n,
                        1.0,
                        a.as_ptr(),
                        n as isize,
                        1,
                        b.as_ptr(),
                        n as isize,
                        1,
                        0.0,
                        c.as_mut_ptr(),
                        n as isize,
                        1,
                    )
                };
            });
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.c.clone())
    }
}
