//! streamRead and streamWrite against the hand-written upload and read back on the same API
//! (issue 34: transfers at the API's speed), side by side in rotated rounds
//! (`cargo bench -p brook-apps --bench transfers`).
//!
//! Per API (GL, wgpu), per direction and per stream — SAXPY's 1024×1024 `float4` (16 MB), a
//! 1D `float` stream of 4M elements (16 MB, several texture rows on GL), Segment's 2048²
//! `float2` (32 MB) and matvec's 1000-float result (a transfer's fixed cost) — one comparison:
//! the hand-written transfer (the baseline) against Brook's. A batch of `n` calls ends with
//! the API's wait (`glFinish`, the device's poll), so a transfer that returns before its copy
//! is done is not counted as finished. Every variant is checked first: an upload by reading
//! the destination back, a read back by its host array, both exactly equal to the data. The
//! hand-written pieces are the report's: GL's `glkit` texture calls, wgpu's `hand_transfer`.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use brook::wgpu_backend::wgpu;
use brook::{Runtime, Stream};
use brook_apps::{data, glkit, hand_transfer, Env};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use criterion::{criterion_group, criterion_main, Criterion};

/// A stream to move: its name, floats per element and shape.
struct Case {
    name: &'static str,
    components: u8,
    shape: &'static [usize],
}

const CASES: &[Case] = &[
    Case {
        name: "saxpy_1024x1024_float4",
        components: 4,
        shape: &[1024, 1024],
    },
    Case {
        name: "float_4m",
        components: 1,
        shape: &[1 << 22],
    },
    Case {
        name: "segment_2048x2048_float2",
        components: 2,
        shape: &[2048, 2048],
    },
    Case {
        name: "matvec_1000_float",
        components: 1,
        shape: &[1000],
    },
];

impl Case {
    fn floats(&self) -> usize {
        self.shape.iter().product::<usize>() * usize::from(self.components)
    }
}

/// A transfer comparison; each round times at least 0.4 s of every variant, several calls of
/// even the largest stream, so that a preemption on a loaded machine does not make a round.
fn comparison<'a>(group: String, data: &[f32]) -> Comparison<'a> {
    Comparison::new(group, "per transfer", 1, data::wide(data), Tolerance::Exact)
        .round_time(Duration::from_millis(400))
}

/// A Brook stream of `case` on `rt`, holding `data`.
fn brook_stream(rt: &Runtime, case: &Case, data: &[f32]) -> Stream {
    let stream = rt.stream_of(case.components, case.shape).expect("a stream");
    stream.read(data).expect("streamRead");
    stream
}

/// Brook's streamWrite into a host array kept between calls, as a C program's is.
fn brook_write<'a>(rt: &'a Runtime, stream: Rc<Stream>, floats: usize) -> Variant<'a> {
    let out = Rc::new(RefCell::new(vec![0.0; floats]));
    let kept = out.clone();
    Variant::new(
        "brook",
        move |n| {
            let mut out = out.borrow_mut();
            for _ in 0..n {
                stream.write(&mut out).expect("streamWrite");
            }
            rt.finish();
        },
        move || kept.borrow().clone(),
    )
}

/// Brook's streamRead of `data`, the batch ending with the runtime's finish.
fn brook_read<'a>(rt: &'a Runtime, case: &Case, data: Rc<Vec<f32>>) -> Variant<'a> {
    let stream = Rc::new(rt.stream_of(case.components, case.shape).expect("a stream"));
    let reader = stream.clone();
    Variant::new(
        "brook",
        move |n| {
            for _ in 0..n {
                stream.read(&data).expect("streamRead");
            }
            rt.finish();
        },
        move || reader.to_vec().expect("streamWrite"),
    )
}

fn gl(c: &mut Criterion, env: &Env, case: &Case, data: &Rc<Vec<f32>>) {
    let (rt, ctx) = (&env.gl, &env.context);
    // The hand-written texture has the Brook stream's texture size, so both move the same
    // texels.
    let source = Rc::new(brook_stream(rt, case, data));
    let (width, height) = {
        let textures = source.gl_textures().expect("lent").expect("GL textures");
        (textures.layout().width(), textures.layout().height())
    };
    let texture = |with: Option<&[f32]>| {
        let t = glkit::texture(ctx, width as usize, height as usize, case.components, with);
        Rc::new(t.expect("a texture"))
    };

    let target = texture(None);
    let (upload_target, reader) = (target.clone(), target);
    let hand_data = data.clone();
    comparison(format!("transfer_gl_read/{}", case.name), data)
        .variant(Variant::new(
            "hand",
            move |n| {
                for _ in 0..n {
                    let rect = glkit::whole(&upload_target);
                    upload_target.upload(rect, &hand_data).expect("upload");
                }
                glkit::finish(ctx);
            },
            move || glkit::read(&reader).expect("read"),
        ))
        .variant(brook_read(rt, case, data.clone()))
        .run(c);

    let filled = texture(Some(data));
    let out = Rc::new(RefCell::new(vec![0.0; case.floats()]));
    let kept = out.clone();
    comparison(format!("transfer_gl_write/{}", case.name), data)
        .variant(Variant::new(
            "hand",
            move |n| {
                let mut out = out.borrow_mut();
                for _ in 0..n {
                    let rect = glkit::whole(&filled);
                    filled.read_into(rect, &mut out).expect("read");
                }
                glkit::finish(ctx);
            },
            move || kept.borrow().clone(),
        ))
        .variant(brook_write(rt, source, case.floats()))
        .run(c);
}

fn wgpu(c: &mut Criterion, env: &Env, case: &Case, data: &Rc<Vec<f32>>) {
    let rt = &env.wgpu;
    let backend = rt.as_wgpu().expect("the wgpu runtime");
    let (device, queue) = (backend.device(), backend.queue());
    let floats = case.floats();
    let read_back = |source: &wgpu::Buffer, staging: &wgpu::Buffer| {
        let mut out = vec![0.0; floats];
        hand_transfer::read_back_into(device, queue, source, staging, &mut out).expect("read");
        out
    };

    let target = [hand_transfer::storage(device, floats)];
    let hand_data = data.clone();
    let check_staging = hand_transfer::staging(device, floats);
    comparison(format!("transfer_wgpu_read/{}", case.name), data)
        .variant(Variant::new(
            "hand",
            |n| {
                for _ in 0..n {
                    hand_transfer::write(queue, &target, &[&hand_data]);
                }
                hand_transfer::wait(device).expect("wait");
            },
            || read_back(&target[0], &check_staging),
        ))
        .variant(brook_read(rt, case, data.clone()))
        .run(c);

    let filled = Rc::new(hand_transfer::storage(device, floats));
    hand_transfer::write(queue, std::slice::from_ref(&*filled), &[data]);
    // The simplest hand-written read makes its staging buffer for the read; one that keeps
    // it between reads is the other baseline.
    let hand = |name: &str, staging: Option<wgpu::Buffer>| {
        let (filled, out) = (filled.clone(), Rc::new(RefCell::new(vec![0.0; floats])));
        let kept = out.clone();
        Variant::new(
            name,
            move |n| {
                let mut out = out.borrow_mut();
                for _ in 0..n {
                    let made;
                    let staging = match &staging {
                        Some(s) => s,
                        None => {
                            made = hand_transfer::staging(device, floats);
                            &made
                        }
                    };
                    hand_transfer::read_back_into(device, queue, &filled, staging, &mut out)
                        .expect("read back");
                }
            },
            move || kept.borrow().clone(),
        )
    };
    comparison(format!("transfer_wgpu_write/{}", case.name), data)
        .variant(hand("hand", None))
        .variant(hand(
            "hand_kept_staging",
            Some(hand_transfer::staging(device, floats)),
        ))
        .variant(brook_write(
            rt,
            Rc::new(brook_stream(rt, case, data)),
            floats,
        ))
        .run(c);
}

fn transfers(c: &mut Criterion) {
    let env = Env::headless().expect("a headless GL context and a wgpu device");
    for (seed, case) in (1..).zip(CASES) {
        let data = Rc::new(data::uniform(case.floats(), seed, -100.0, 100.0));
        gl(c, &env, case, &data);
        wgpu(c, &env, case, &data);
    }
}

criterion_group!(benches, transfers);
criterion_main!(benches);
