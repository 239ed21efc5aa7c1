//! How a member of 1 to 4 floats is stored in a texture.
//!
//! One channel per component where the device can render to that format:
//! `float` → R32F, `float2` → RG32F, `float4` → RGBA32F. `float3` is padded to
//! RGBA32F because RGB32F is not colour-renderable in GL 3.3 or ES 3.0, and
//! kernels must be able to write every stream. Should a device not render to
//! R32F or RG32F (the capability probe finds out), those members are padded to
//! RGBA32F as well.

/// A sized internal format with the matching client format and channel count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TexelFormat {
    /// `GL_R32F`, `GL_RG32F` or `GL_RGBA32F`.
    pub internal: u32,
    /// `GL_RED`, `GL_RG` or `GL_RGBA`: the layout of host texel data.
    pub format: u32,
    /// Floats per texel: 1, 2 or 4.
    pub channels: usize,
    /// For messages, e.g. "RG32F".
    pub name: &'static str,
}

impl TexelFormat {
    /// The float format with exactly `channels` (1, 2 or 4) channels; any
    /// other count gets RGBA32F.
    pub fn with_channels(channels: usize) -> TexelFormat {
        match channels {
            1 => TexelFormat {
                internal: glow::R32F,
                format: glow::RED,
                channels: 1,
                name: "R32F",
            },
            2 => TexelFormat {
                internal: glow::RG32F,
                format: glow::RG,
                channels: 2,
                name: "RG32F",
            },
            _ => TexelFormat {
                internal: glow::RGBA32F,
                format: glow::RGBA,
                channels: 4,
                name: "RGBA32F",
            },
        }
    }

    /// The format for a member of `components` floats, given which of R32F,
    /// RG32F, (unused), RGBA32F the device renders to (`Caps::float_renderable`).
    pub fn for_components(components: u8, renderable: &[bool; 4]) -> TexelFormat {
        match components {
            1 | 2 if renderable[usize::from(components) - 1] => {
                TexelFormat::with_channels(usize::from(components))
            }
            _ => TexelFormat::with_channels(4),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_channel_per_component_except_float3() {
        let all = [true; 4];
        let channels: Vec<usize> = (1..=4)
            .map(|c| TexelFormat::for_components(c, &all).channels)
            .collect();
        assert_eq!(channels, vec![1, 2, 4, 4]);
        assert_eq!(TexelFormat::for_components(2, &all).internal, glow::RG32F);
    }

    #[test]
    fn unrenderable_narrow_formats_fall_back_to_rgba() {
        let only_rgba = [false, false, true, true];
        assert_eq!(TexelFormat::for_components(1, &only_rgba).name, "RGBA32F");
        assert_eq!(TexelFormat::for_components(2, &only_rgba).channels, 4);
    }
}
