//! What the keyboard and mouse do in the live window, as state that the window's event
//! handler updates and the frame loop reads. Kept free of winit types so it is testable.

use crate::camera::Camera;

/// The keys the window reacts to, already decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    /// space: pause or run.
    Pause,
    /// n or →: run exactly one step (pausing if running).
    Step,
    /// h: show or hide the key help.
    Help,
    /// r: reset zoom and pan.
    Reset,
    /// s: save the next frame as a PNG.
    Screenshot,
    /// p: show or hide the side panel.
    Panel,
    /// + / −: zoom about the window centre.
    ZoomIn,
    ZoomOut,
    /// Escape or q.
    Quit,
}

/// The key help shown with `h`.
pub(crate) const HELP: &[&str] = &[
    "space    pause / run",
    "n, right one step (pauses)",
    "wheel +- zoom at the cursor",
    "drag     pan",
    "r        reset zoom and pan",
    "s        save a PNG of the view",
    "p        show / hide the panel",
    "h        hide this help",
    "esc, q   quit",
];

/// Zoom per wheel notch or +/− press.
const ZOOM_STEP: f32 = 1.15;

#[derive(Debug, Default)]
pub(crate) struct Controls {
    pub paused: bool,
    pub show_help: bool,
    pub show_panel: bool,
    pub camera: Camera,
    /// Steps requested while paused.
    pending_steps: u32,
    screenshot: bool,
    /// Last cursor position in GL pixels (y up).
    cursor: [f32; 2],
    dragging: bool,
}

impl Controls {
    /// Applies a key press; `true` asks to quit.
    pub fn key(&mut self, key: Key, viewport: (u32, u32)) -> bool {
        let centre = [viewport.0 as f32 / 2.0, viewport.1 as f32 / 2.0];
        match key {
            Key::Pause => self.paused = !self.paused,
            Key::Step => {
                self.paused = true;
                self.pending_steps += 1;
            }
            Key::Help => self.show_help = !self.show_help,
            Key::Reset => self.camera = Camera::default(),
            Key::Screenshot => self.screenshot = true,
            Key::Panel => self.show_panel = !self.show_panel,
            Key::ZoomIn => self.camera.zoom_at(ZOOM_STEP, centre, viewport),
            Key::ZoomOut => self.camera.zoom_at(1.0 / ZOOM_STEP, centre, viewport),
            Key::Quit => return true,
        }
        false
    }

    /// Whether this frame runs a step: always while running, once per request while paused.
    pub fn take_step(&mut self) -> bool {
        if !self.paused {
            return true;
        }
        let step = self.pending_steps > 0;
        self.pending_steps = self.pending_steps.saturating_sub(1);
        step
    }

    /// Whether a screenshot was asked for since the last call.
    pub fn take_screenshot(&mut self) -> bool {
        std::mem::take(&mut self.screenshot)
    }

    /// The wheel turned by `notches` (positive = away from the user = zoom in).
    pub fn wheel(&mut self, notches: f32, viewport: (u32, u32)) {
        self.camera
            .zoom_at(ZOOM_STEP.powf(notches), self.cursor, viewport);
    }

    /// The cursor moved to window pixel (`x`, `y`) (y down, as windows count).
    pub fn cursor_moved(&mut self, x: f32, y: f32, viewport: (u32, u32)) {
        let gl = [x, viewport.1 as f32 - y];
        if self.dragging {
            self.camera
                .pan_by(gl[0] - self.cursor[0], gl[1] - self.cursor[1]);
        }
        self.cursor = gl;
    }

    /// The left button went down (`true`) or up.
    pub fn drag(&mut self, pressed: bool) {
        self.dragging = pressed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VIEWPORT: (u32, u32) = (100, 100);

    #[test]
    fn pause_and_single_steps() {
        let mut c = Controls::default();
        assert!(c.take_step(), "running steps every frame");
        c.key(Key::Pause, VIEWPORT);
        assert!(!c.take_step());
        c.key(Key::Step, VIEWPORT);
        c.key(Key::Step, VIEWPORT);
        assert!(c.take_step() && c.take_step() && !c.take_step());
        c.key(Key::Pause, VIEWPORT);
        assert!(c.take_step());
        // A step while running pauses after it.
        c.key(Key::Step, VIEWPORT);
        assert!(c.take_step() && !c.take_step());
    }

    #[test]
    fn drag_pans_by_the_cursor_motion_and_quit_quits() {
        let mut c = Controls::default();
        c.cursor_moved(10.0, 10.0, VIEWPORT);
        c.cursor_moved(20.0, 5.0, VIEWPORT);
        assert_eq!(c.camera.pan, [0.0, 0.0], "no drag, no pan");
        c.drag(true);
        c.cursor_moved(30.0, 0.0, VIEWPORT);
        assert_eq!(c.camera.pan, [10.0, 5.0], "window y down is GL y up");
        c.drag(false);
        c.wheel(1.0, VIEWPORT);
        assert!(c.camera.zoom > 1.0);
        c.key(Key::Reset, VIEWPORT);
        assert_eq!(c.camera, Camera::default());
        assert!(c.key(Key::Quit, VIEWPORT));
        assert!(!c.take_screenshot());
        c.key(Key::Screenshot, VIEWPORT);
        assert!(c.take_screenshot() && !c.take_screenshot());
        c.key(Key::Panel, VIEWPORT);
        assert!(c.show_panel);
    }
}
