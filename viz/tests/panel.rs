//! The live window's panel driven through its input path (Xvfb in CI): a script clicks Pause,
//! Step, another stream, a constant's slider, a colour map and a fixed range, and points at
//! an element, and the test checks what followed against values computed here: pausing
//! stops the steps, Step runs exactly one, the chosen stream is shown, the slider's value
//! reaches the kernel, the readout is the element under the pointer with its value, and the
//! window shows the chosen stream with the chosen map and range, as rendered headless.
//! Skipped, with the reason printed, when no display is available (failing instead where
//! `CI` is set).
//!
//! One test in this file: winit allows a single event loop per process.

mod common;

use common::{display_available, max_difference};

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::egui::{pos2, Event, Pos2, Rect};
use brook_viz::{
    click, render, run_window_scripted, ColorMap, Constant, Control, LiveOptions, PanelFrame,
    Range, Shown, Simulation, View, ViewKind,
};

/// Each step adds one to every element of `ramp`, then `scaled = ramp * gain`.
const RAMP: &str = "
kernel void add_one(float a<>, out float b<>) { b = a + 1.0; }
kernel void scale(float a<>, float gain, out float b<>) { b = a * gain; }
";

const ROWS: usize = 6;
const COLUMNS: usize = 10;
const GAIN_DEFAULT: f32 = 1.0;
const GAIN_MAX: f32 = 4.0;
/// The run ends after this many steps (the script resumes the run when it is done).
const EXIT_AFTER: u64 = 30;
/// A script that has not finished by then has stalled.
const MAX_FRAMES: u32 = 3000;
/// The view's size (the window is the panel's width wider).
const SIZE: (u32, u32) = (240, 420);

struct Ramp {
    program: Program,
    ramp: Stream,
    next: Stream,
    scaled: Stream,
    constants: [Constant; 1],
}

impl Ramp {
    fn new(rt: &Runtime) -> Result<Ramp, BrookError> {
        let program = rt.compile(RAMP, "ramp.br")?;
        let shape = [ROWS, COLUMNS];
        let ramp = rt.stream_of(1, &shape)?;
        ramp.read(&(0..ROWS * COLUMNS).map(|i| i as f32).collect::<Vec<_>>())?;
        let mut sim = Ramp {
            program,
            ramp,
            next: rt.stream_of(1, &shape)?,
            scaled: rt.stream_of(1, &shape)?,
            constants: [Constant::new("gain", 0.0..=GAIN_MAX, GAIN_DEFAULT)],
        };
        sim.scale(rt)?;
        Ok(sim)
    }

    fn scale(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        let gain = self.constants[0].value();
        rt.run(
            &self.program,
            "scale",
            args![&self.ramp, gain, &self.scaled],
        )
    }
}

impl Simulation for Ramp {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        rt.run(&self.program, "add_one", args![&self.ramp, &self.next])?;
        std::mem::swap(&mut self.ramp, &mut self.next);
        self.scale(rt)
    }

    fn view(&self) -> (&Stream, View) {
        (&self.ramp, View::scalar(ColorMap::Viridis))
    }

    fn streams(&self) -> Vec<Shown<'_>> {
        vec![
            Shown {
                name: "ramp",
                stream: &self.ramp,
                view: View::scalar(ColorMap::Viridis),
            },
            Shown {
                name: "scaled",
                stream: &self.scaled,
                view: View::scalar(ColorMap::Magma),
            },
        ]
    }

    fn constants(&mut self) -> &mut [Constant] {
        &mut self.constants
    }
}

/// What the script saw at each checkpoint, checked after the window closed.
#[derive(Debug, Default)]
struct Seen {
    /// Steps when the pause took effect, and three frames later.
    paused_at: Option<(u64, u64)>,
    /// Steps right after the Step click, and three frames later (still paused).
    stepped: Option<(u64, u64, bool)>,
    /// The stream shown after clicking the second entry.
    shown: Option<String>,
    /// The gain after pressing on the slider's rail three quarters along.
    gain: Option<f32>,
    /// The element aimed at, and the readout with the steps and gain it was read at.
    readout: Option<(usize, PanelFrame)>,
    /// The shown view after choosing grey and a fixed range, with the steps then.
    view: Option<(u64, View)>,
    finished: bool,
}

/// The centre of element (`row`, `column`) in points, computed here from the view's area as
/// the camera fits an image (keeping its aspect, centred), rows from the top.
fn element_centre(area: Rect, row: usize, column: usize) -> Pos2 {
    let aspect = COLUMNS as f32 / ROWS as f32;
    let (w, h) = if area.width() / area.height() > aspect {
        (area.height() * aspect, area.height())
    } else {
        (area.width(), area.width() / aspect)
    };
    let left = area.min.x + (area.width() - w) / 2.0;
    let top = area.min.y + (area.height() - h) / 2.0;
    pos2(
        left + (column as f32 + 0.5) * w / COLUMNS as f32,
        top + (row as f32 + 0.5) * h / ROWS as f32,
    )
}

/// The script: one phase after another, each waiting for the frame that shows its effect.
struct Driver {
    phase: u32,
    /// Frames left to wait in the current phase.
    wait: u32,
    /// Input queued for the coming frames (a click is two).
    queued: Vec<Vec<Event>>,
    frames: u32,
    seen: Seen,
}

const AIM: (usize, usize) = (4, 7);

impl Driver {
    fn frame(&mut self, f: &PanelFrame) -> Vec<Event> {
        self.frames += 1;
        assert!(
            self.frames < MAX_FRAMES,
            "the script stalled in phase {}",
            self.phase
        );
        if !self.queued.is_empty() {
            return self.queued.remove(0);
        }
        if self.wait > 0 {
            self.wait -= 1;
            return Vec::new();
        }
        let centre = |c: Control| {
            f.rect(c)
                .unwrap_or_else(|| panic!("{c:?} is not in the panel"))
                .center()
        };
        self.phase += 1;
        match self.phase {
            // The first frame has no panel yet.
            1 if f.controls.is_empty() => self.phase = 0,
            1 => self.queue_click(centre(Control::Pause)),
            2 => {
                assert!(f.paused, "Pause was clicked");
                self.seen.paused_at = Some((f.steps, 0));
                self.wait = 3;
            }
            3 => {
                self.seen.paused_at.as_mut().unwrap().1 = f.steps;
                self.queue_click(centre(Control::Step));
            }
            4 => {
                self.seen.stepped = Some((f.steps, 0, false));
                self.wait = 3;
            }
            5 => {
                let stepped = self.seen.stepped.as_mut().unwrap();
                (stepped.1, stepped.2) = (f.steps, f.paused);
                self.queue_click(centre(Control::Stream(1)));
            }
            6 => {
                self.seen.shown = Some(f.shown.clone());
                let rail = f.rect(Control::Constant(0)).expect("the gain's slider");
                self.queue_click(pos2(rail.lerp_inside([0.75, 0.5]).x, rail.center().y));
            }
            7 => {
                self.seen.gain = Some(f.constants[0].1);
                // A step computes `scaled` with the new gain.
                self.queue_click(centre(Control::Step));
            }
            8 => {
                let at = element_centre(f.view_area, AIM.0, AIM.1);
                self.queued.push(vec![Event::PointerMoved(at)]);
                self.wait = 2;
            }
            9 => {
                self.seen.readout = Some((AIM.0 * COLUMNS + AIM.1, f.clone()));
                self.queue_click(centre(Control::Map(ColorMap::Grey)));
            }
            10 => self.queue_click(centre(Control::RangeFixed)),
            11 => {
                self.seen.view = Some((f.steps, f.view.expect("a stream is shown")));
                // Run again, until `EXIT_AFTER`.
                self.queue_click(centre(Control::Pause));
            }
            _ => self.seen.finished = true,
        }
        if self.queued.is_empty() {
            Vec::new()
        } else {
            self.queued.remove(0)
        }
    }

    fn queue_click(&mut self, at: Pos2) {
        self.queued.extend(click(at));
    }
}

#[test]
fn the_panel_chooses_steps_and_steers_the_kernels() {
    if !display_available() {
        return;
    }
    let mut driver = Driver {
        phase: 0,
        wait: 0,
        queued: Vec::new(),
        frames: 0,
        seen: Seen::default(),
    };
    let finished = run_window_scripted(
        LiveOptions {
            size: SIZE,
            exit_after: Some(EXIT_AFTER),
            ..LiveOptions::new("brook-viz panel test")
        },
        Ramp::new,
        &mut |f: &PanelFrame| driver.frame(f),
    )
    .expect("a window with a GL 3.3 core or ES 3.0 context");
    let seen = driver.seen;
    assert_eq!(finished.steps, EXIT_AFTER);
    assert!(seen.finished, "the script did not finish: {seen:?}");

    let (paused, later) = seen.paused_at.unwrap();
    assert_eq!(paused, later, "steps ran while paused");
    let (stepped, later, still_paused) = seen.stepped.unwrap();
    assert_eq!(stepped, paused + 1, "Step runs exactly one step");
    assert_eq!(later, stepped, "and no more");
    assert!(still_paused, "Step leaves the run paused");
    assert_eq!(seen.shown.as_deref(), Some("scaled"));

    let gain = seen.gain.unwrap();
    // Three quarters along the rail (whose ends are inset by the handle) is near 3.
    assert!(
        (gain - 0.75 * GAIN_MAX).abs() < 0.5 && gain != GAIN_DEFAULT,
        "the slider set the gain to {gain}"
    );

    let (aimed, frame) = seen.readout.unwrap();
    assert_eq!(frame.shown, "scaled");
    assert_eq!(frame.constants[0].1, gain);
    assert_eq!(frame.steps, stepped + 1, "the second Step ran one step");
    let readout = frame.readout.expect("a readout over the view");
    assert_eq!(
        readout.index, aimed,
        "the readout is of the element under the pointer"
    );
    // `scaled` after n steps: (index + n) · gain, a product computed in f32 on the GPU.
    let expected = (aimed as f32 + frame.steps as f32) * gain;
    assert_eq!(readout.values.len(), 1);
    assert!(
        (readout.values[0] - expected).abs() <= expected.abs() * 1e-6,
        "readout {} but element {aimed} of `scaled` is {expected}",
        readout.values[0]
    );

    // Grey over a fixed range that starts from the auto range last drawn: `scaled`'s
    // extremes, elements 0 and ROWS·COLUMNS − 1.
    let (steps, view) = seen.view.unwrap();
    let ViewKind::Scalar {
        map: ColorMap::Grey,
        range: Range::Fixed(lo, hi),
    } = view.kind
    else {
        panic!("the panel's choices did not reach the view: {view:?}")
    };
    let last = (ROWS * COLUMNS - 1) as f32;
    let close = |x: f32, y: f32| (x - y).abs() <= y.abs() * 1e-6;
    assert!(
        close(lo, steps as f32 * gain) && close(hi, (last + steps as f32) * gain),
        "fixed range {lo}..{hi} after {steps} steps with gain {gain}"
    );
    // The window's last frame is that view of `scaled` after EXIT_AFTER steps, rendered
    // headless from values computed here.
    let window = finished.last_frame.expect("the last frame is kept");
    let headless = std::thread::spawn(move || {
        let rt = Runtime::gl().unwrap();
        let scaled = rt.stream_of(1, &[ROWS, COLUMNS]).unwrap();
        let values: Vec<f32> = (0..ROWS * COLUMNS)
            .map(|i| (i as f32 + EXIT_AFTER as f32) * gain)
            .collect();
        scaled.read(&values).unwrap();
        render(&rt, &scaled, &view, SIZE.0, SIZE.1).unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(window.dimensions(), SIZE);
    assert!(
        max_difference(&window, &headless) <= 1,
        "the window's view and the headless render differ by {}",
        max_difference(&window, &headless)
    );
}
