//! Arguments of a kernel call: streams, or constant values.
//!
//! Which kind of stream argument an argument is (input, gather, output, iterator) comes from
//! the kernel's parameter, as in Brook, so every stream is passed the same way — whole, or as
//! a domain `s.domain(lo, hi)`.

use crate::stream::{Stream, StreamDomain};

/// One argument of a kernel call; `args![...]` builds them from streams, domains and numbers.
#[derive(Clone)]
pub enum Arg<'a> {
    /// A whole stream.
    Stream(&'a Stream),
    /// A domain of a stream: as an input, the sub-stream (its shape is the domain's, its
    /// element 0 the domain's `lo`); as an output, the region written (the rest keeps its
    /// contents), whose shape is the call's output shape for resizing and `indexof`.
    Domain(&'a StreamDomain<'a>),
    /// A constant's floats in C layout: `float4` is 4 floats, `int` is its value.
    Constant(Vec<f32>),
}

impl<'a> From<&'a Stream> for Arg<'a> {
    fn from(s: &'a Stream) -> Self {
        Arg::Stream(s)
    }
}

impl<'a> From<&'a StreamDomain<'a>> for Arg<'a> {
    fn from(d: &'a StreamDomain<'a>) -> Self {
        Arg::Domain(d)
    }
}

impl From<f32> for Arg<'_> {
    fn from(v: f32) -> Self {
        Arg::Constant(vec![v])
    }
}

impl From<i32> for Arg<'_> {
    fn from(v: i32) -> Self {
        Arg::Constant(vec![v as f32])
    }
}

impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Constant(vec![if v { 1.0 } else { 0.0 }])
    }
}

impl<const N: usize> From<[f32; N]> for Arg<'_> {
    fn from(v: [f32; N]) -> Self {
        Arg::Constant(v.to_vec())
    }
}

impl<const N: usize> From<[i32; N]> for Arg<'_> {
    fn from(v: [i32; N]) -> Self {
        Arg::Constant(v.iter().map(|x| *x as f32).collect())
    }
}

/// The arguments of a kernel call: `brook::args![2.0f32, &x, &y, &result]`.
#[macro_export]
macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$($crate::Arg::from($a)),*][..] };
}
