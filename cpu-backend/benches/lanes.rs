//! Issue 15's open design question, measured: should the CPU backend's JIT keep one element
//! per loop iteration with Brook's vector types on SIMD lanes (what it does: a `float` is one
//! scalar register, a `float4` one `f32x4`), or run a *structure of arrays* across elements,
//! four consecutive elements per iteration, one `f32x4` holding the same scalar of all four
//! (what llvmpipe does with eight)?
//!
//! The same kernels are built here twice with cranelift-frontend directly, on the backend's
//! Cranelift and target settings, and run the way the backend runs tiles (rayon over tiles of
//! 4096 elements):
//!
//! - **lanes**: today's layout, one element per iteration;
//! - **soa**: four elements per iteration.
//!
//! The kernels: (i) the 64-tap gather of the root's `benches/cpu.rs` with Brook's gather rule (index
//! `floor(v + 0.25)` clamped to `[0, n - 1]`; in SoA the index is computed on four lanes, then
//! four scalar loads fill the vector, as Cranelift has no gather instruction); (ii) SAXPY on
//! `float`; (iii) SAXPY on `float4`, in SoA transposed on load and store (the streams keep
//! their element-after-element layout; SoA *storage* would make it the `float` case over four
//! times the floats); (iv) `if (x > 0.5) y = x * x; else y = -x;` on `float`, a real branch in
//! lanes and both sides plus a select in SoA, on random `x` (the branch is unpredictable).
//!
//! Both layouts do the same IEEE operations in the same order per element, so each variant's
//! output is checked bit for bit against a Rust reference before anything is timed. The
//! table's ratio is SoA's time over lanes' (bench-kit: rotated rounds, 95% intervals). Run it
//! with `cargo bench -p brook-cpu --bench lanes`; docs/cpu-backend.md has the
//! figures and what they decide.

use std::cell::RefCell;

use brook_bench_kit::{Comparison, Tolerance, Variant};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use criterion::Criterion;
use rayon::prelude::*;

/// Elements per tile (the backend's largest), each tile one call of the compiled function.
const TILE: usize = 4096;
const TAPS: i64 = 64;
const TAP_ELEMENTS: usize = 1 << 18;
const ELEMENTS: usize = 1 << 20;
const A: f32 = 0.5;

/// Every compiled function: `(x, y, r, a, last, start, end)` runs elements `start..end`,
/// reading `x` and `y`, writing `r`; `a` is SAXPY's constant, `last` the gathered stream's
/// last index.
type Tile = unsafe extern "C" fn(*const f32, *const f32, *mut f32, f32, i64, i64, i64);

/// The function's parameters inside its body.
struct Params {
    x: Value,
    y: Value,
    r: Value,
    a: Value,
    last: Value,
    start: Value,
    end: Value,
}

/// Which way a kernel is laid out.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Lanes,
    Soa,
}

impl Layout {
    /// Elements per iteration.
    fn step(self) -> i64 {
        match self {
            Layout::Lanes => 1,
            Layout::Soa => 4,
        }
    }
}

/// The Cranelift JIT module the kernels are compiled into, with the backend's settings
/// (`cpu-backend/src/jit/code.rs`: optimised for speed, the host's features).
struct Jit {
    module: JITModule,
    fctx: FunctionBuilderContext,
}

impl Jit {
    fn new() -> Jit {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").unwrap();
        flags.set("is_pic", "false").unwrap();
        let isa = cranelift_native::builder()
            .unwrap()
            .finish(settings::Flags::new(flags))
            .unwrap();
        Jit {
            module: JITModule::new(JITBuilder::with_isa(isa, default_libcall_names())),
            fctx: FunctionBuilderContext::new(),
        }
    }

    /// Declares and compiles one tile function; `body` emits one iteration at element `i`.
    fn define(
        &mut self,
        name: &str,
        layout: Layout,
        body: impl Fn(&mut FunctionBuilder, &Params, Value),
    ) -> FuncId {
        let ptr = self.module.target_config().pointer_type();
        let mut sig = self.module.make_signature();
        for ty in [
            ptr,
            ptr,
            ptr,
            types::F32,
            types::I64,
            types::I64,
            types::I64,
        ] {
            sig.params.push(AbiParam::new(ty));
        }
        let id = self
            .module
            .declare_function(name, Linkage::Local, &sig)
            .unwrap();
        let mut ctx = self.module.make_context();
        ctx.func.signature = sig;
        let config = self.module.target_config();
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let v = b.block_params(entry).to_vec();
            let p = Params {
                x: v[0],
                y: v[1],
                r: v[2],
                a: v[3],
                last: v[4],
                start: v[5],
                end: v[6],
            };
            counted(&mut b, p.start, p.end, layout.step(), |b, i| body(b, &p, i));
            b.ins().return_(&[]);
            b.seal_all_blocks();
            b.finalize(config);
        }
        self.module.define_function(id, &mut ctx).unwrap();
        id
    }

    /// Links the functions defined; the module must outlive every call.
    fn finish(&mut self, ids: &[FuncId]) -> Vec<Tile> {
        self.module.finalize_definitions().unwrap();
        ids.iter()
            .map(|&id| {
                let code = self.module.get_finalized_function(id);
                // SAFETY: every function was defined with `Tile`'s signature in the host's
                // calling convention.
                unsafe { std::mem::transmute::<*const u8, Tile>(code) }
            })
            .collect()
    }
}

/// `for (i = from; i < to; i += step) body(i)`, as the backend's `count_loop` (exit test
/// first).
fn counted(
    b: &mut FunctionBuilder,
    from: Value,
    to: Value,
    step: i64,
    body: impl FnOnce(&mut FunctionBuilder, Value),
) {
    let ty = b.func.dfg.value_type(from);
    let i = b.declare_var(ty);
    b.def_var(i, from);
    let (head, run, exit) = (b.create_block(), b.create_block(), b.create_block());
    b.ins().jump(head, &[]);
    b.switch_to_block(head);
    let at = b.use_var(i);
    let done = b.ins().icmp(IntCC::SignedGreaterThanOrEqual, at, to);
    b.ins().brif(done, exit, &[], run, &[]);
    b.switch_to_block(run);
    body(b, at);
    let next = b.ins().iadd_imm_s(at, step);
    b.def_var(i, next);
    b.ins().jump(head, &[]);
    b.switch_to_block(exit);
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

fn lane_cast() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// The address of float `i * floats` after `base`.
fn at(b: &mut FunctionBuilder, base: Value, i: Value, floats: i64) -> Value {
    let off = b.ins().imul_imm_s(i, 4 * floats);
    b.ins().iadd(base, off)
}

fn vconst(b: &mut FunctionBuilder, ty: Type, lanes: [u32; 4]) -> Value {
    let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
    let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
    b.ins().vconst(ty, c)
}

fn fsplat(b: &mut FunctionBuilder, x: f32) -> Value {
    let c = b.ins().f32const(x);
    b.ins().splat(types::F32X4, c)
}

/// `x` where the lanes of `mask` (a vector compare's result) are set, else `y`.
fn select_lanes(b: &mut FunctionBuilder, mask: Value, x: Value, y: Value) -> Value {
    let ty = b.func.dfg.value_type(x);
    let m = if ty == b.func.dfg.value_type(mask) {
        mask
    } else {
        b.ins().bitcast(ty, lane_cast(), mask)
    };
    b.ins().bitselect(m, x, y)
}

/// Lanes `sel` of `x` and `y` (0–3 from `x`, 4–7 from `y`): the backend's `shuffle` on two
/// vectors.
fn shuffle2(b: &mut FunctionBuilder, x: Value, y: Value, sel: [u8; 4]) -> Value {
    let bytes: Vec<u8> = sel
        .iter()
        .flat_map(|&k| (0..4).map(move |byte| 4 * k + byte))
        .collect();
    let mask = b
        .func
        .dfg
        .immediates
        .push(ConstantData::from(bytes.as_slice()));
    let (x8, y8) = (
        b.ins().bitcast(types::I8X16, lane_cast(), x),
        b.ins().bitcast(types::I8X16, lane_cast(), y),
    );
    let s = b.ins().shuffle(x8, y8, mask);
    b.ins().bitcast(types::F32X4, lane_cast(), s)
}

/// The 4×4 transpose: four elements' `float4`s become each component's four elements, and
/// back (it is its own inverse).
fn transpose(b: &mut FunctionBuilder, rows: [Value; 4]) -> [Value; 4] {
    let lo01 = shuffle2(b, rows[0], rows[1], [0, 4, 1, 5]);
    let lo23 = shuffle2(b, rows[2], rows[3], [0, 4, 1, 5]);
    let hi01 = shuffle2(b, rows[0], rows[1], [2, 6, 3, 7]);
    let hi23 = shuffle2(b, rows[2], rows[3], [2, 6, 3, 7]);
    [
        shuffle2(b, lo01, lo23, [0, 1, 4, 5]),
        shuffle2(b, lo01, lo23, [2, 3, 6, 7]),
        shuffle2(b, hi01, hi23, [0, 1, 4, 5]),
        shuffle2(b, hi01, hi23, [2, 3, 6, 7]),
    ]
}

/// The 64-tap gather: `o = sum over k of src[indexof(o).x + k]`, `k` an `int` loop counter,
/// each index by Brook's rule (as `jit/lower/address.rs`'s `gather_component`).
fn taps(b: &mut FunctionBuilder, p: &Params, i: Value, layout: Layout) {
    let (fty, ity) = match layout {
        Layout::Lanes => (types::F32, types::I64),
        Layout::Soa => (types::F32X4, types::I32X4),
    };
    let here = b.ins().fcvt_from_sint(types::F32, i);
    let (x, zero, quarter, last, last_f) = match layout {
        Layout::Lanes => {
            let last_f = b.ins().fcvt_from_sint(types::F32, p.last);
            (
                here,
                b.ins().f32const(0.0),
                b.ins().f32const(0.25),
                p.last,
                last_f,
            )
        }
        Layout::Soa => {
            // Elements i..i+4 (exact: positions stay below 2^24).
            let here = b.ins().splat(types::F32X4, here);
            let offsets = [0.0f32, 1.0, 2.0, 3.0].map(f32::to_bits);
            let offsets = vconst(b, types::F32X4, offsets);
            let x = b.ins().fadd(here, offsets);
            let last_f = b.ins().fcvt_from_sint(types::F32, p.last);
            let last = b.ins().ireduce(types::I32, p.last);
            (
                x,
                fsplat(b, 0.0),
                fsplat(b, 0.25),
                b.ins().splat(ity, last),
                b.ins().splat(fty, last_f),
            )
        }
    };
    let izero = match layout {
        Layout::Lanes => b.ins().iconst(ity, 0),
        Layout::Soa => vconst(b, ity, [0; 4]),
    };
    let sum = b.declare_var(fty);
    b.def_var(sum, zero);
    let from = b.ins().iconst(types::I32, 0);
    let to = b.ins().iconst(types::I32, TAPS);
    counted(b, from, to, 1, |b, k| {
        let k = b.ins().fcvt_from_sint(types::F32, k);
        let k = match layout {
            Layout::Lanes => k,
            Layout::Soa => b.ins().splat(fty, k),
        };
        let v = b.ins().fadd(x, k);
        let biased = b.ins().fadd(v, quarter);
        let t = b.ins().floor(biased);
        let idx = b.ins().fcvt_to_sint_sat(ity, t);
        let positive = b.ins().fcmp(FloatCC::GreaterThan, t, zero);
        let beyond = b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, last_f);
        let value = match layout {
            Layout::Lanes => {
                let idx = b.ins().select(positive, idx, izero);
                let idx = b.ins().select(beyond, last, idx);
                let addr = at(b, p.x, idx, 1);
                b.ins().load(types::F32, flags(), addr, 0)
            }
            Layout::Soa => {
                let idx = select_lanes(b, positive, idx, izero);
                let idx = select_lanes(b, beyond, last, idx);
                let mut gathered = None;
                for lane in 0..4u8 {
                    let e = b.ins().extractlane(idx, lane);
                    let e = b.ins().sextend(types::I64, e);
                    let addr = at(b, p.x, e, 1);
                    let f = b.ins().load(types::F32, flags(), addr, 0);
                    gathered = Some(match gathered {
                        None => b.ins().scalar_to_vector(fty, f),
                        Some(g) => b.ins().insertlane(g, f, lane),
                    });
                }
                gathered.unwrap()
            }
        };
        let s = b.use_var(sum);
        let s = b.ins().fadd(s, value);
        b.def_var(sum, s);
    });
    let s = b.use_var(sum);
    let addr = at(b, p.r, i, 1);
    b.ins().store(flags(), s, addr, 0);
}

/// SAXPY on `float`: one scalar per element in lanes, one vector per four in SoA.
fn saxpy(b: &mut FunctionBuilder, p: &Params, i: Value, layout: Layout) {
    let (ty, a) = match layout {
        Layout::Lanes => (types::F32, p.a),
        Layout::Soa => (types::F32X4, b.ins().splat(types::F32X4, p.a)),
    };
    let (xa, ya, ra) = (at(b, p.x, i, 1), at(b, p.y, i, 1), at(b, p.r, i, 1));
    let x = b.ins().load(ty, flags(), xa, 0);
    let y = b.ins().load(ty, flags(), ya, 0);
    let ax = b.ins().fmul(a, x);
    let r = b.ins().fadd(ax, y);
    b.ins().store(flags(), r, ra, 0);
}

/// SAXPY on `float4`: one vector per element in lanes; in SoA four elements' vectors,
/// transposed to one vector per component, computed, and transposed back.
fn saxpy4(b: &mut FunctionBuilder, p: &Params, i: Value, layout: Layout) {
    let a = b.ins().splat(types::F32X4, p.a);
    let (xa, ya, ra) = (at(b, p.x, i, 4), at(b, p.y, i, 4), at(b, p.r, i, 4));
    let n = layout.step() as usize;
    let load = |b: &mut FunctionBuilder, base: Value| -> Vec<Value> {
        (0..n)
            .map(|e| b.ins().load(types::F32X4, flags(), base, 16 * e as i32))
            .collect()
    };
    let (x, y) = (load(b, xa), load(b, ya));
    let (x, y) = match layout {
        Layout::Lanes => (x, y),
        Layout::Soa => (
            transpose(b, [x[0], x[1], x[2], x[3]]).to_vec(),
            transpose(b, [y[0], y[1], y[2], y[3]]).to_vec(),
        ),
    };
    let r: Vec<Value> = x
        .iter()
        .zip(&y)
        .map(|(&x, &y)| {
            let ax = b.ins().fmul(a, x);
            b.ins().fadd(ax, y)
        })
        .collect();
    let r = match layout {
        Layout::Lanes => r,
        Layout::Soa => transpose(b, [r[0], r[1], r[2], r[3]]).to_vec(),
    };
    for (e, &v) in r.iter().enumerate() {
        b.ins().store(flags(), v, ra, 16 * e as i32);
    }
}

/// `if (x > 0.5) y = x * x; else y = -x;`: a branch in lanes, both sides and a select in SoA.
fn branch(b: &mut FunctionBuilder, p: &Params, i: Value, layout: Layout) {
    let (xa, ra) = (at(b, p.x, i, 1), at(b, p.r, i, 1));
    let y = match layout {
        Layout::Lanes => {
            let x = b.ins().load(types::F32, flags(), xa, 0);
            let half = b.ins().f32const(0.5);
            let above = b.ins().fcmp(FloatCC::GreaterThan, x, half);
            let (then, other, join) = (b.create_block(), b.create_block(), b.create_block());
            b.append_block_param(join, types::F32);
            b.ins().brif(above, then, &[], other, &[]);
            b.switch_to_block(then);
            let sq = b.ins().fmul(x, x);
            b.ins().jump(join, &[sq.into()]);
            b.switch_to_block(other);
            let neg = b.ins().fneg(x);
            b.ins().jump(join, &[neg.into()]);
            b.switch_to_block(join);
            b.block_params(join)[0]
        }
        Layout::Soa => {
            let x = b.ins().load(types::F32X4, flags(), xa, 0);
            let half = fsplat(b, 0.5);
            let above = b.ins().fcmp(FloatCC::GreaterThan, x, half);
            let sq = b.ins().fmul(x, x);
            let neg = b.ins().fneg(x);
            select_lanes(b, above, sq, neg)
        }
    };
    b.ins().store(flags(), y, ra, 0);
}

type Emit = fn(&mut FunctionBuilder, &Params, Value, Layout);

/// One kernel's inputs and the f32 reference of its output.
struct Case {
    group: &'static str,
    emit: Emit,
    /// Floats per element.
    floats: usize,
    x: Vec<f32>,
    y: Vec<f32>,
    expected: Vec<f32>,
}

/// A value in [0, 1) from `i`, scattered (splitmix64's finaliser), for unpredictable branches.
fn scattered(i: usize) -> f32 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z >> 40) as f32 / (1u64 << 24) as f32
}

fn cases() -> Vec<Case> {
    let signed = |n: usize, k: usize| -> Vec<f32> {
        (0..n)
            .map(|i| scattered(i * 3 + k) * 4.0 - 2.0)
            .collect::<Vec<f32>>()
    };
    // Integers below 13: the 64-term sums are exact in any order.
    let src: Vec<f32> = (0..TAP_ELEMENTS).map(|i| (i % 13) as f32).collect();
    let last = TAP_ELEMENTS - 1;
    let tapped = (0..TAP_ELEMENTS)
        .map(|i| (0..TAPS as usize).map(|k| src[(i + k).min(last)]).sum())
        .collect();
    let (x1, y1) = (signed(ELEMENTS, 0), signed(ELEMENTS, 1));
    let (x4, y4) = (signed(4 * ELEMENTS, 2), signed(4 * ELEMENTS, 3));
    let ax_y = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(x, y)| A * x + y).collect();
    let unit: Vec<f32> = (0..ELEMENTS).map(scattered).collect();
    let branched = unit
        .iter()
        .map(|&x| if x > 0.5 { x * x } else { -x })
        .collect();
    vec![
        Case {
            group: "lanes vs soa: 64-tap gather 262144 float",
            emit: taps,
            floats: 1,
            expected: tapped,
            x: src,
            y: Vec::new(),
        },
        Case {
            group: "lanes vs soa: saxpy 1048576 float",
            emit: saxpy,
            floats: 1,
            expected: ax_y(&x1, &y1),
            x: x1,
            y: y1,
        },
        Case {
            group: "lanes vs soa: saxpy 1048576 float4",
            emit: saxpy4,
            floats: 4,
            expected: ax_y(&x4, &y4),
            x: x4,
            y: y4,
        },
        Case {
            group: "lanes vs soa: branch 1048576 float",
            emit: branch,
            floats: 1,
            expected: branched,
            x: unit,
            y: Vec::new(),
        },
    ]
}

/// One call: `f` on every tile of `elements`, in parallel on rayon's pool.
fn call(f: Tile, case: &Case, out: &mut [f32]) {
    let elements = out.len() / case.floats;
    // Whole tiles of whole groups of 4 (a real switch would need a tail).
    assert_eq!(elements % TILE, 0);
    let (x, y, r) = (
        case.x.as_ptr() as usize,
        case.y.as_ptr() as usize,
        out.as_mut_ptr() as usize,
    );
    let last = case.x.len() as i64 / case.floats as i64 - 1;
    (0..elements / TILE).into_par_iter().for_each(|t| {
        let start = (t * TILE) as i64;
        // SAFETY: the function reads `x` and `y` at this tile's elements (the gather within
        // `[0, last]`) and writes only this tile's elements of `r`.
        unsafe {
            f(
                x as *const f32,
                y as *const f32,
                r as *mut f32,
                A,
                last,
                start,
                start + TILE as i64,
            )
        }
    });
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    println!(
        "rayon threads: {}; ratios are soa time / lanes time",
        rayon::current_num_threads()
    );
    let cases = cases();
    let mut jit = Jit::new();
    let layouts = [Layout::Lanes, Layout::Soa];
    let ids: Vec<FuncId> = cases
        .iter()
        .enumerate()
        .flat_map(|(k, case)| layouts.map(|l| (k, case, l)))
        .map(|(k, case, l)| {
            let emit = case.emit;
            jit.define(&format!("k{k}_{l:?}"), l, move |b, p, i| emit(b, p, i, l))
        })
        .collect();
    let tiles = jit.finish(&ids);
    for (case, pair) in cases.iter().zip(tiles.chunks(2)) {
        let expected: Vec<f64> = case.expected.iter().map(|&v| f64::from(v)).collect();
        let outs: Vec<RefCell<Vec<f32>>> = layouts
            .iter()
            .map(|_| RefCell::new(vec![f32::NAN; case.expected.len()]))
            .collect();
        let mut comparison = Comparison::new(case.group, "per call", 1, expected, Tolerance::Exact);
        for ((&f, layout), out) in pair.iter().zip(layouts).zip(&outs) {
            comparison = comparison.variant(Variant::new(
                format!("{layout:?}").to_lowercase(),
                move |n| {
                    for _ in 0..n {
                        call(f, case, std::hint::black_box(&mut out.borrow_mut()[..]));
                    }
                },
                || out.borrow().clone(),
            ));
        }
        comparison.run(&mut c);
    }
    c.final_summary();
}
