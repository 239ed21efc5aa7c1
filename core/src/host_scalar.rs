//! Host arrays of the original's byte, integer and fixed-point element types: `char`,
//! `uchar`, `int`, `uint` (C's `unsigned int`), `fixed`, `shortfixed` (and their vectors 2
//! to 4).
//!
//! The original's programs declare `char a<100>` and read it from a `char[100]`; its GPU
//! backends kept every such stream in float storage and computed on floats ("in the GPU the
//! integers are emulated with floats", its tests say), converting only where host memory
//! meets the stream. Streams here are floats too, so these types are a *host encoding* of a
//! `float`..`float4` stream: each component is converted when `streamRead` fills the stream
//! and when `streamWrite` empties it, and kernels see floats of that width.
//!
//! - `char` / `uchar`: the integer value; written back as C converts a float to an integer
//!   type (truncated toward zero, then wrapped to 8 bits), so `120 + 8` reads back as -128
//!   from a `char` stream, as it did in the original.
//! - `int` / `uint`: the integer value, rounded to the nearest float beyond 2^24 (as the
//!   original's GPU backends stored it); written back truncated toward zero and wrapped to
//!   32 bits (NaN gives 0), so -1 reads back as 4294967295 from a `uint` stream.
//! - `fixed` / `shortfixed`: unsigned normalised (`x / 255`, `x / 65535`) as Cg's fixed types
//!   and the original's `fixed(unsigned char)` are; written back clamped to [0, 1] and rounded
//!   to the nearest step, as a GPU stores a float into an 8- or 16-bit normalised texture.

/// The host type of one component of a stream with a host encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostScalar {
    /// `char`: a signed byte.
    Char,
    /// `uchar` (`unsigned char`): an unsigned byte.
    UChar,
    /// `int`: a signed 32-bit integer.
    Int,
    /// `uint` (`unsigned int`): an unsigned 32-bit integer.
    UInt,
    /// `fixed`: an unsigned byte normalised to [0, 1].
    Fixed,
    /// `shortfixed`: an unsigned 16-bit value normalised to [0, 1].
    ShortFixed,
}

impl HostScalar {
    /// The host type and width of element type `name` (`char`, `uchar3`, `fixed4`, …), or
    /// `None` for a type held in host memory as floats.
    pub fn of_type_name(name: &str) -> Option<(HostScalar, u8)> {
        let (scalar, rest) = [
            ("shortfixed", HostScalar::ShortFixed),
            ("fixed", HostScalar::Fixed),
            ("uchar", HostScalar::UChar),
            ("char", HostScalar::Char),
            ("uint", HostScalar::UInt),
            ("int", HostScalar::Int),
        ]
        .iter()
        .find_map(|(prefix, s)| name.strip_prefix(prefix).map(|r| (*s, r)))?;
        let width = match rest {
            "" | "1" => 1,
            "2" => 2,
            "3" => 3,
            "4" => 4,
            _ => return None,
        };
        Some((scalar, width))
    }

    /// Bytes one component takes in host memory.
    pub fn bytes(self) -> usize {
        match self {
            HostScalar::Char | HostScalar::UChar | HostScalar::Fixed => 1,
            HostScalar::ShortFixed => 2,
            HostScalar::Int | HostScalar::UInt => 4,
        }
    }

    /// The float a stream holds for the host component in `bytes` (native byte order).
    pub fn to_float(self, bytes: &[u8]) -> f32 {
        match self {
            HostScalar::Char => f32::from(bytes[0] as i8),
            HostScalar::UChar => f32::from(bytes[0]),
            HostScalar::Fixed => f32::from(bytes[0]) / 255.0,
            HostScalar::ShortFixed => f32::from(u16::from_ne_bytes([bytes[0], bytes[1]])) / 65535.0,
            HostScalar::Int => i32::from_ne_bytes(word(bytes)) as f32,
            HostScalar::UInt => u32::from_ne_bytes(word(bytes)) as f32,
        }
    }

    /// Writes the host component for stream value `v` into `out` (native byte order).
    pub fn from_float(self, v: f32, out: &mut [u8]) {
        // `as i32` truncates toward zero (NaN gives 0); `as u8`/`as i8` then keep the low
        // 8 bits, C's conversion on every machine the original ran on.
        let unorm = |steps: f32| (v.clamp(0.0, 1.0) * steps).round();
        match self {
            HostScalar::Char => out[0] = (v as i32) as i8 as u8,
            HostScalar::UChar => out[0] = (v as i32) as u8,
            HostScalar::Int => out[..4].copy_from_slice(&((v as i64) as i32).to_ne_bytes()),
            HostScalar::UInt => out[..4].copy_from_slice(&((v as i64) as u32).to_ne_bytes()),
            HostScalar::Fixed => out[0] = unorm(255.0) as u8,
            HostScalar::ShortFixed => {
                out[..2].copy_from_slice(&(unorm(65535.0) as u16).to_ne_bytes())
            }
        }
    }

    /// The floats of host array `host` (`floats.len()` components of this type).
    pub fn decode(self, host: &[u8], floats: &mut [f32]) {
        for (f, b) in floats.iter_mut().zip(host.chunks_exact(self.bytes())) {
            *f = self.to_float(b);
        }
    }

    /// Fills host array `host` from the stream's `floats`.
    pub fn encode(self, floats: &[f32], host: &mut [u8]) {
        for (&f, b) in floats.iter().zip(host.chunks_exact_mut(self.bytes())) {
            self.from_float(f, b);
        }
    }
}

/// The first four bytes of `bytes`, one 32-bit host component.
fn word(bytes: &[u8]) -> [u8; 4] {
    [bytes[0], bytes[1], bytes[2], bytes[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_give_scalar_and_width() {
        assert_eq!(
            HostScalar::of_type_name("char"),
            Some((HostScalar::Char, 1))
        );
        assert_eq!(
            HostScalar::of_type_name("uchar3"),
            Some((HostScalar::UChar, 3))
        );
        assert_eq!(
            HostScalar::of_type_name("fixed4"),
            Some((HostScalar::Fixed, 4))
        );
        assert_eq!(
            HostScalar::of_type_name("shortfixed2"),
            Some((HostScalar::ShortFixed, 2))
        );
        assert_eq!(
            HostScalar::of_type_name("uint"),
            Some((HostScalar::UInt, 1))
        );
        assert_eq!(HostScalar::of_type_name("int2"), Some((HostScalar::Int, 2)));
        assert_eq!(HostScalar::of_type_name("float2"), None);
        assert_eq!(HostScalar::of_type_name("char5"), None);
    }

    #[test]
    fn chars_wrap_as_c_converts() {
        let mut b = [0u8];
        HostScalar::Char.from_float(128.0, &mut b);
        assert_eq!(b[0] as i8, -128);
        HostScalar::Char.from_float(-1.7, &mut b);
        assert_eq!(b[0] as i8, -1);
        HostScalar::UChar.from_float(260.0, &mut b);
        assert_eq!(b[0], 4);
        assert_eq!(HostScalar::Char.to_float(&[0xff]), -1.0);
        assert_eq!(HostScalar::UChar.to_float(&[0xff]), 255.0);
    }

    #[test]
    fn ints_are_exact_within_2_to_the_24_and_wrap_as_c_converts() {
        let mut b = [0u8; 4];
        for x in [0i32, 1, -256, 8388608, 16777216, -16777216] {
            let f = HostScalar::Int.to_float(&x.to_ne_bytes());
            assert_eq!(f, x as f32);
            HostScalar::Int.from_float(f, &mut b);
            assert_eq!(
                i32::from_ne_bytes(b),
                x,
                "an int within 2^24 survives the round trip"
            );
        }
        // Beyond 2^24 a stream holds the nearest float, as the original's GPU backends did.
        let f = HostScalar::Int.to_float(&16777217i32.to_ne_bytes());
        HostScalar::Int.from_float(f, &mut b);
        assert_eq!(i32::from_ne_bytes(b), 16777216);
        HostScalar::Int.from_float(-2.7, &mut b);
        assert_eq!(i32::from_ne_bytes(b), -2, "truncated toward zero");
        HostScalar::UInt.from_float(-1.0, &mut b);
        assert_eq!(u32::from_ne_bytes(b), u32::MAX, "wrapped to 32 bits");
        HostScalar::UInt.from_float(f32::NAN, &mut b);
        assert_eq!(u32::from_ne_bytes(b), 0);
        assert_eq!(
            HostScalar::UInt.to_float(&u32::MAX.to_ne_bytes()),
            4294967296.0
        );
    }

    #[test]
    fn fixed_is_normalised_and_clamped() {
        let mut b = [0u8];
        for x in 0..=255u8 {
            HostScalar::Fixed.from_float(HostScalar::Fixed.to_float(&[x]), &mut b);
            assert_eq!(b[0], x, "a fixed value survives the round trip");
        }
        HostScalar::Fixed.from_float(200.0 / 255.0 + 100.0 / 255.0, &mut b);
        assert_eq!(b[0], 255);
        HostScalar::Fixed.from_float(-0.5, &mut b);
        assert_eq!(b[0], 0);
        let mut s = [0u8; 2];
        HostScalar::ShortFixed.from_float(0.5, &mut s);
        assert_eq!(u16::from_ne_bytes(s), 32768);
    }

    #[test]
    fn arrays_convert_component_by_component() {
        let mut f = [0.0f32; 3];
        HostScalar::Char.decode(&[1, 0xfe, 127], &mut f);
        assert_eq!(f, [1.0, -2.0, 127.0]);
        let mut back = [0u8; 3];
        HostScalar::Char.encode(&f, &mut back);
        assert_eq!(back, [1, 0xfe, 127]);
    }
}
