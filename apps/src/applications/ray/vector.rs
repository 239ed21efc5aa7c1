//! Three-component vector arithmetic, in f32 for the Rust version and f64 for the reference.

use std::ops::{Add, Div, Mul, Sub};

/// A float type the vector functions work in.
pub trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    fn sqrt(self) -> Self;
    fn one() -> Self;
}

impl Real for f32 {
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn one() -> Self {
        1.0
    }
}

impl Real for f64 {
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn one() -> Self {
        1.0
    }
}

pub fn sub<T: Real>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn scale<T: Real>(a: [T; 3], s: T) -> [T; 3] {
    a.map(|c| c * s)
}

pub fn dot<T: Real>(a: [T; 3], b: [T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross<T: Real>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn normalize<T: Real>(a: [T; 3]) -> [T; 3] {
    scale(a, T::one() / dot(a, a).sqrt())
}
