//! Each mechanism of a Brook call as a list of [`Step`](crate::step::Step)s: kernel calls
//! (with their in-place scratch copies), vout packing, reductions, scatters and gather-ops,
//! write masks. Encoders compute what to bind and set; they issue no GL call that draws or
//! changes state (they may allocate intermediate textures, link programs and read an index
//! stream back to plan rounds).

pub mod kernel;
pub mod mask;
pub mod reduce;
pub mod scatter;
pub mod vout;

use std::rc::Rc;

use brook_glsl::{MemberRef, Target};
use brook_texture_streams::{GlContext, Stream, Texture};

use crate::programs::Builtins;

/// What every encoder needs: the context, what the generated text targets, the programs of
/// the context, and whether the steps will be traced (labels are only built then).
pub struct Encoder<'a> {
    pub ctx: &'a Rc<GlContext>,
    pub target: Target,
    pub builtins: &'a Builtins,
    pub tracing: bool,
}

impl Encoder<'_> {
    /// A step's label, built only while tracing.
    pub fn label(&self, text: impl FnOnce() -> String) -> String {
        if self.tracing {
            text()
        } else {
            String::new()
        }
    }
}

/// The textures of `members` (output members or sampled members of a pass), each from the
/// stream `stream_of` gives for its parameter.
pub fn textures_of<'a>(
    members: impl Iterator<Item = MemberRef>,
    stream_of: impl Fn(u32) -> Result<&'a Stream, String>,
) -> Result<Vec<&'a Texture>, String> {
    members
        .map(|m| {
            let stream = stream_of(m.param)?;
            stream.textures().get(m.member as usize).ok_or_else(|| {
                format!(
                    "the stream has no member {}: its element type does not match the parameter",
                    m.member
                )
            })
        })
        .collect()
}
