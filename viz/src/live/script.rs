//! Scripted input for the live window's panel: before each frame a script sees what the
//! panel showed and where its controls were, and returns egui events that join that frame's
//! input from the window. The events take the path a person's clicks take (egui's raw
//! input, the panel's widgets), so tests and recorded demonstrations drive the real thing.

use crate::live::pick::Readout;
use crate::{ColorMap, View};

/// A control of the panel, to find its rectangle in [`PanelFrame::rect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// The entry of stream `i` of [`Simulation::streams`](crate::Simulation::streams).
    Stream(usize),
    /// A colour map choice (scalar views).
    Map(ColorMap),
    /// The range taken from the values drawn.
    RangeAuto,
    /// A fixed range, starting from the one last drawn.
    RangeFixed,
    /// Pause / run.
    Pause,
    /// One step (pauses).
    Step,
    /// The header of the key help (`h`).
    Keys,
    /// The slider of constant `i` of [`Simulation::constants`](crate::Simulation::constants)
    /// (the rail only: its left end is the minimum, its right end the maximum).
    Constant(usize),
}

/// What the panel showed in the frame just presented.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelFrame {
    /// Steps run so far.
    pub steps: u64,
    /// Whether steps are paused.
    pub paused: bool,
    /// The name of the stream shown.
    pub shown: String,
    /// The view it is drawn with: the simulation's, with the panel's colour map and range.
    pub view: Option<View>,
    /// Each constant's name and current value, in declaration order.
    pub constants: Vec<(String, f32)>,
    /// The element under the pointer, read after this frame's step; `None` off the view.
    pub readout: Option<Readout>,
    /// Where the view was drawn, in egui points from the window's top-left corner.
    pub view_area: egui::Rect,
    /// The panel's controls and their rectangles, in egui points.
    pub controls: Vec<(Control, egui::Rect)>,
}

impl PanelFrame {
    /// Where `control` was drawn, if it was.
    pub fn rect(&self, control: Control) -> Option<egui::Rect> {
        self.controls
            .iter()
            .find(|(c, _)| *c == control)
            .map(|(_, r)| *r)
    }
}

/// A script: given the last frame, the events to add to the next one's input.
pub type Script<'a> = dyn FnMut(&PanelFrame) -> Vec<egui::Event> + 'a;

/// A primary-button click at `pos` for a script, as the input of two frames: the pointer
/// moves there and presses, then releases (egui, like a hand, sees the press before the
/// release).
pub fn click(pos: egui::Pos2) -> [Vec<egui::Event>; 2] {
    let button = |pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    [
        vec![egui::Event::PointerMoved(pos), button(true)],
        vec![button(false)],
    ]
}
