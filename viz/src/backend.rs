//! Which backend a viz program computes on (`--backend gl|wgpu|cpu`, or several at once, side
//! by side), and the runtime each one gets.

use std::fmt;
use std::rc::Rc;

use brook::texture_streams::GlContext;
use brook::{BrookError, Runtime};

/// A backend a simulation can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Backend {
    /// GL fragment passes: on the window's context in a window, a headless one without.
    Gl,
    /// wgpu compute on a device of its own (`Runtime::wgpu`).
    Wgpu,
    /// The CPU backend (`Runtime::cpu`).
    Cpu,
}

impl Backend {
    /// Its name on the command line and in labels.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Gl => "gl",
            Backend::Wgpu => "wgpu",
            Backend::Cpu => "cpu",
        }
    }

    /// A runtime of this backend. GL computes in `window` when given (a window's context, so
    /// viz draws its streams from their own textures), else in a headless context of its own.
    pub fn runtime(self, window: Option<&Rc<GlContext>>) -> Result<Runtime, BrookError> {
        match (self, window) {
            (Backend::Gl, Some(ctx)) => Ok(Runtime::on_context(Rc::clone(ctx))),
            (Backend::Gl, None) => Runtime::gl(),
            (Backend::Wgpu, _) => Runtime::wgpu(),
            (Backend::Cpu, _) => Ok(Runtime::cpu()),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
