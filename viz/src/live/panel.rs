//! The live window's side panel, in egui: which stream to show, its colour map and range,
//! pause and step, the element under the cursor and the simulation's constants as sliders.
//! It knows nothing of winit or GL: the window feeds it input and draws what it lays out,
//! and its unit tests run it on a bare `egui::Context`.

use egui::{DragValue, Rect, Slider, Ui};

use super::constant::Constant;
use super::controls::HELP;
use super::pick::Readout;
use super::script::Control;
use crate::view::{Range, View, ViewKind};
use crate::ColorMap;

/// The panel's width in points (egui's unit; pixels at scale 1).
pub(crate) const PANEL_WIDTH: f32 = 230.0;

/// What the panel asks of the window this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Pause,
    Step,
    /// Show or hide the key help.
    Help,
}

/// What the panel reports but does not own.
pub(crate) struct Status<'a> {
    /// Steps, frame and kernel times.
    pub line: String,
    pub paused: bool,
    /// Whether the key help is shown (`h`).
    pub show_help: bool,
    pub readout: Option<&'a Readout>,
}

#[derive(Debug, Default)]
pub(crate) struct Panel {
    /// Index into the simulation's streams.
    selected: usize,
    /// The shown view as the viewer changed it; `None` shows the simulation's.
    changed: Option<View>,
    /// The value range the shown view was last drawn with: where a fixed range starts.
    last_range: Option<(f32, f32)>,
    /// This frame's controls and their rectangles, for scripts.
    controls: Vec<(Control, Rect)>,
}

impl Panel {
    /// Lays the panel out in `ui` for the simulation's `streams` (name and view) and
    /// `constants`, applying what the viewer did to them; returns the actions for the window.
    pub fn show(
        &mut self,
        ui: &mut Ui,
        streams: &[(String, View)],
        constants: &mut [Constant],
        status: &Status,
    ) -> Vec<Action> {
        self.controls.clear();
        self.selected = self.selected.min(streams.len().saturating_sub(1));
        ui.label(&status.line);
        let mut actions = self.run_controls(ui, status.paused);
        ui.separator();
        ui.strong("Stream");
        for (i, (name, _)) in streams.iter().enumerate() {
            let response = ui.selectable_label(i == self.selected, name.as_str());
            self.controls.push((Control::Stream(i), response.rect));
            if response.clicked() && i != self.selected {
                self.selected = i;
                self.changed = None;
                self.last_range = None;
            }
        }
        if let Some((_, view)) = streams.get(self.selected) {
            self.colours(ui, *view);
        }
        if !constants.is_empty() {
            ui.separator();
            ui.strong("Constants");
            self.constants(ui, constants);
        }
        ui.separator();
        ui.strong("Under the cursor");
        ui.label(match status.readout {
            Some(r) => format!("element {}: {}", r.index, values_text(&r.values)),
            None => "(move the cursor over the view)".to_string(),
        });
        ui.separator();
        // The key help is one state with `h`: the header shows it as `h` left it, and a
        // click on the header asks the window to toggle it.
        let keys = egui::CollapsingHeader::new("Keys")
            .open(Some(status.show_help))
            .show(ui, |ui| {
                for line in HELP {
                    ui.monospace(*line);
                }
            });
        self.controls
            .push((Control::Keys, keys.header_response.rect));
        if keys.header_response.clicked() {
            actions.push(Action::Help);
        }
        actions
    }

    /// The index of the stream to show.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// The view to draw the shown stream with: the simulation's, as the viewer changed it.
    pub fn view(&self, simulation: View) -> View {
        self.changed.unwrap_or(simulation)
    }

    /// The shown view was drawn over `range` (a fixed range chosen next starts there).
    pub fn drawn_with(&mut self, range: (f32, f32)) {
        self.last_range = Some(range);
    }

    pub fn controls(&self) -> &[(Control, Rect)] {
        &self.controls
    }

    fn run_controls(&mut self, ui: &mut Ui, paused: bool) -> Vec<Action> {
        let mut actions = Vec::new();
        ui.horizontal(|ui| {
            let pause = ui.button(if paused { "Run" } else { "Pause" });
            let step = ui.button("Step");
            self.controls.push((Control::Pause, pause.rect));
            self.controls.push((Control::Step, step.rect));
            if pause.clicked() {
                actions.push(Action::Pause);
            }
            if step.clicked() {
                actions.push(Action::Step);
            }
        });
        actions
    }

    /// Colour map (scalar views) and value range (views that have one).
    fn colours(&mut self, ui: &mut Ui, simulation: View) {
        let mut view = self.view(simulation);
        if let ViewKind::Scalar { map, .. } = &mut view.kind {
            ui.strong("Colour map");
            ui.horizontal_wrapped(|ui| {
                for choice in ColorMap::ALL {
                    let response = ui.radio(*map == choice, format!("{choice:?}").to_lowercase());
                    self.controls.push((Control::Map(choice), response.rect));
                    if response.clicked() {
                        *map = choice;
                    }
                }
            });
        }
        if let Some(range) = value_range(&mut view) {
            ui.strong("Range");
            ui.horizontal(|ui| {
                let auto = ui.radio(*range == Range::Auto, "auto");
                let fixed = ui.radio(matches!(range, Range::Fixed(..)), "fixed");
                self.controls.push((Control::RangeAuto, auto.rect));
                self.controls.push((Control::RangeFixed, fixed.rect));
                if auto.clicked() {
                    *range = Range::Auto;
                }
                if fixed.clicked() && *range == Range::Auto {
                    let (lo, hi) = self.last_range.unwrap_or((0.0, 1.0));
                    *range = Range::Fixed(lo, hi);
                }
            });
            if let Range::Fixed(lo, hi) = range {
                let (mut new_lo, mut new_hi) = (*lo, *hi);
                let speed = ((*hi - *lo).abs() / 200.0).max(1e-6);
                ui.horizontal(|ui| {
                    ui.label("min");
                    ui.add(DragValue::new(&mut new_lo).speed(speed));
                    ui.label("max");
                    ui.add(DragValue::new(&mut new_hi).speed(speed));
                });
                // A range must rise: an edit that would make it flat or reversed is ignored.
                if new_hi > new_lo {
                    (*lo, *hi) = (new_lo, new_hi);
                }
            }
        }
        if view != simulation || self.changed.is_some() {
            self.changed = Some(view);
        }
    }

    fn constants(&mut self, ui: &mut Ui, constants: &mut [Constant]) {
        // Room beside the rail for the number and the reset button.
        ui.spacing_mut().slider_width = 80.0;
        for (i, constant) in constants.iter_mut().enumerate() {
            ui.label(constant.name());
            ui.horizontal(|ui| {
                let mut value = constant.value();
                let rail = ui.add(Slider::new(&mut value, constant.range()).show_value(false));
                self.controls.push((Control::Constant(i), rail.rect));
                ui.add(
                    DragValue::new(&mut value)
                        .range(constant.range())
                        .speed((constant.range().end() - constant.range().start()) / 500.0),
                );
                if ui.small_button("reset").clicked() {
                    value = constant.default_value();
                }
                constant.set(value);
            });
        }
    }
}

/// The value range of views that have one (points have two axes: kept as the simulation
/// set them).
fn value_range(view: &mut View) -> Option<&mut Range> {
    match &mut view.kind {
        ViewKind::Scalar { range, .. } | ViewKind::Vector { range } | ViewKind::Plot { range } => {
            Some(range)
        }
        ViewKind::Points { .. } | ViewKind::Rgb | ViewKind::Rgba => None,
    }
}

/// Values as the readout shows them: each the shortest text that reads back as the same
/// float, comma-separated.
fn values_text(values: &[f32]) -> String {
    values
        .iter()
        .map(|v| format!("{v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use egui::{pos2, vec2, Event, PointerButton, RawInput};

    use super::*;

    /// One egui pass of the panel on a bare context (no window, no GL), with `events`.
    fn pass(
        ctx: &egui::Context,
        panel: &mut Panel,
        streams: &[(String, View)],
        constants: &mut [Constant],
        events: Vec<Event>,
    ) -> Vec<Action> {
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(pos2(0.0, 0.0), vec2(500.0, 700.0))),
            events,
            ..RawInput::default()
        };
        let status = Status {
            line: "step 0".into(),
            paused: false,
            show_help: false,
            readout: None,
        };
        let mut actions = Vec::new();
        let output = ctx.run_ui(input, |ui| {
            actions.extend(
                egui::Panel::left("test")
                    .exact_size(PANEL_WIDTH)
                    .show(ui, |ui| panel.show(ui, streams, constants, &status))
                    .inner,
            )
        });
        // No painter here: the textures are never uploaded.
        output.drop_without_applying_deltas();
        actions
    }

    /// Clicks `control` (laid out by the last pass) over two passes; the actions.
    fn click(
        ctx: &egui::Context,
        panel: &mut Panel,
        streams: &[(String, View)],
        constants: &mut [Constant],
        control: Control,
    ) -> Vec<Action> {
        let at = panel
            .controls()
            .iter()
            .find(|(c, _)| *c == control)
            .unwrap_or_else(|| panic!("{control:?} not laid out"))
            .1
            .center();
        let button = |pressed| Event::PointerButton {
            pos: at,
            button: PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        let mut actions = pass(
            ctx,
            panel,
            streams,
            constants,
            vec![Event::PointerMoved(at), button(true)],
        );
        actions.extend(pass(ctx, panel, streams, constants, vec![button(false)]));
        actions
    }

    #[test]
    fn clicks_choose_the_stream_map_and_range_and_ask_for_steps() {
        let ctx = egui::Context::default();
        let mut panel = Panel::default();
        let streams = [
            ("a".to_string(), View::scalar(ColorMap::Viridis)),
            ("b".to_string(), View::vector().with_range(0.0, 2.0)),
        ];
        let mut constants = [Constant::new("k", 0.0..=1.0, 0.5)];
        let sim_view = streams[0].1;
        pass(&ctx, &mut panel, &streams, &mut constants, Vec::new());
        let c = &mut constants;
        assert_eq!(
            click(&ctx, &mut panel, &streams, c, Control::Pause),
            [Action::Pause]
        );
        assert_eq!(
            click(&ctx, &mut panel, &streams, c, Control::Step),
            [Action::Step]
        );

        click(&ctx, &mut panel, &streams, c, Control::Map(ColorMap::Grey));
        panel.drawn_with((2.0, 5.0));
        click(&ctx, &mut panel, &streams, c, Control::RangeFixed);
        assert_eq!(
            panel.view(sim_view).kind,
            ViewKind::Scalar {
                map: ColorMap::Grey,
                range: Range::Fixed(2.0, 5.0)
            },
            "a fixed range starts from the range last drawn"
        );
        click(&ctx, &mut panel, &streams, c, Control::RangeAuto);
        assert_eq!(
            panel.view(sim_view).kind,
            ViewKind::Scalar {
                map: ColorMap::Grey,
                range: Range::Auto
            }
        );

        click(&ctx, &mut panel, &streams, c, Control::Stream(1));
        assert_eq!(panel.selected(), 1);
        assert_eq!(
            panel.view(streams[1].1),
            streams[1].1,
            "a new stream starts unchanged"
        );
        assert!(
            panel
                .controls()
                .iter()
                .all(|(c, _)| !matches!(c, Control::Map(_))),
            "a vector view has no colour map"
        );
    }

    #[test]
    fn the_slider_sets_the_constant_within_its_range() {
        let ctx = egui::Context::default();
        let mut panel = Panel::default();
        let streams = [("a".to_string(), View::scalar(ColorMap::Viridis))];
        let mut constants = [Constant::new("k", 2.0..=4.0, 3.0)];
        pass(&ctx, &mut panel, &streams, &mut constants, Vec::new());
        let rail = panel
            .controls()
            .iter()
            .find(|(c, _)| *c == Control::Constant(0))
            .unwrap()
            .1;
        for (along, expected) in [(0.0, 2.0), (1.0, 4.0)] {
            // Past the rail's ends the slider stops at the range's.
            let at = pos2(
                rail.left() + along * rail.width() + (along - 0.5) * 20.0,
                rail.center().y,
            );
            let button = |pos, pressed| Event::PointerButton {
                pos,
                button: PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            };
            let start = vec![
                Event::PointerMoved(rail.center()),
                button(rail.center(), true),
            ];
            pass(&ctx, &mut panel, &streams, &mut constants, start);
            pass(
                &ctx,
                &mut panel,
                &streams,
                &mut constants,
                vec![Event::PointerMoved(at)],
            );
            pass(
                &ctx,
                &mut panel,
                &streams,
                &mut constants,
                vec![button(at, false)],
            );
            assert_eq!(constants[0].value(), expected);
        }
    }
}
