//! Runtime values of the interpreter.
//!
//! Scalars and vectors are the hot path (almost every operation of a kernel), so they are
//! stored inline as four components plus a width: `float`, `float2`..`float4` are all
//! `Value::Float([f32; 4], n)`, and an arithmetic operation is a copy of 17 bytes, never a
//! heap allocation. Matrices are inline too (at most 4×4). Only structs and arrays, which need
//! a variable number of parts, own a boxed slice.
//!
//! A scalar is a vector of width 1 (`float1` is `float`), with unused components zero.

use brook_ir::{Module, Scalar, Type};

/// A matrix `rows × cols` (Cg's `floatRxC`): `m[r][c]`, rows are vectors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mat {
    /// Rows (R), 1 to 4.
    pub rows: u8,
    /// Columns (C), 1 to 4.
    pub cols: u8,
    /// `m[r][c]` for `r < rows`, `c < cols`; the rest is unused.
    pub m: [[f32; 4]; 4],
}

impl Mat {
    /// The `rows × cols` matrix of zeros.
    pub fn zero(rows: u8, cols: u8) -> Mat {
        Mat {
            rows,
            cols,
            m: [[0.0; 4]; 4],
        }
    }
}

/// One runtime value (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// The result of a `void` call.
    Void,
    /// `float`..`float4`: the components and the width (1 to 4); unused components are zero.
    Float([f32; 4], u8),
    /// `int`..`int4`: the components and the width.
    Int([i32; 4], u8),
    /// `bool`..`bool4`: the components and the width.
    Bool([bool; 4], u8),
    /// A `floatRxC` matrix.
    Matrix(Mat),
    /// Members in declaration order.
    Struct(Box<[Value]>),
    /// A fixed-size array's elements, in order.
    Array(Box<[Value]>),
}

/// One component of a scalar, vector or matrix, whatever its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Comp {
    /// A `float` component.
    F(f32),
    /// An `int` component.
    I(i32),
    /// A `bool` component.
    B(bool),
}

impl Comp {
    /// As a float: an int rounded to the nearest float, `true` as 1.
    pub fn to_f32(self) -> f32 {
        match self {
            Comp::F(x) => x,
            Comp::I(i) => i as f32,
            Comp::B(b) => b as i32 as f32,
        }
    }

    /// C's conversion: floats truncate toward zero (saturating, NaN gives 0).
    pub fn to_i32(self) -> i32 {
        match self {
            Comp::F(x) => x as i32,
            Comp::I(i) => i,
            Comp::B(b) => b as i32,
        }
    }

    /// C's truth: non-zero is true.
    pub fn to_bool(self) -> bool {
        match self {
            Comp::F(x) => x != 0.0,
            Comp::I(i) => i != 0,
            Comp::B(b) => b,
        }
    }
}

fn sized<T: Copy + Default>(comps: &[T]) -> [T; 4] {
    let mut a = [T::default(); 4];
    a[..comps.len()].copy_from_slice(comps);
    a
}

impl Value {
    /// A `float` scalar.
    pub fn float(x: f32) -> Value {
        Value::Float([x, 0.0, 0.0, 0.0], 1)
    }

    /// An `int` scalar.
    pub fn int(i: i32) -> Value {
        Value::Int([i, 0, 0, 0], 1)
    }

    /// A `bool` scalar.
    pub fn bool(b: bool) -> Value {
        Value::Bool([b, false, false, false], 1)
    }

    /// A float scalar (1 component) or vector (2–4).
    pub fn floats(comps: &[f32]) -> Value {
        Value::Float(sized(comps), comps.len() as u8)
    }

    /// An int scalar (1 component) or vector (2–4).
    pub fn ints(comps: &[i32]) -> Value {
        Value::Int(sized(comps), comps.len() as u8)
    }

    /// A bool scalar (1 component) or vector (2–4).
    pub fn bools(comps: &[bool]) -> Value {
        Value::Bool(sized(comps), comps.len() as u8)
    }

    /// The zero value of `ty`: what a declared local starts as.
    pub fn zero(ty: &Type, module: &Module) -> Value {
        match ty {
            Type::Void => Value::Void,
            Type::Scalar(s) => Value::zero_vector(*s, 1),
            Type::Vector(s, n) => Value::zero_vector(*s, *n),
            Type::Matrix { rows, cols } => Value::Matrix(Mat::zero(*rows, *cols)),
            Type::Struct(id) => Value::Struct(
                module
                    .struct_def(*id)
                    .members
                    .iter()
                    .map(|m| Value::zero(&m.ty, module))
                    .collect(),
            ),
            Type::Array(elem, n) => {
                let z = Value::zero(elem, module);
                Value::Array(vec![z; *n as usize].into_boxed_slice())
            }
        }
    }

    /// The zero scalar (`n` = 1) or vector (`n` = 2..4) of kind `s`.
    pub fn zero_vector(s: Scalar, n: u8) -> Value {
        match s {
            Scalar::Float => Value::Float([0.0; 4], n),
            Scalar::Int => Value::Int([0; 4], n),
            Scalar::Bool => Value::Bool([false; 4], n),
        }
    }

    /// Components of a scalar or vector (0 for anything else).
    pub fn width(&self) -> u8 {
        match self {
            Value::Float(_, n) | Value::Int(_, n) | Value::Bool(_, n) => *n,
            _ => 0,
        }
    }

    /// The scalar kind of a scalar or vector.
    pub fn scalar_kind(&self) -> Option<Scalar> {
        match self {
            Value::Float(..) => Some(Scalar::Float),
            Value::Int(..) => Some(Scalar::Int),
            Value::Bool(..) => Some(Scalar::Bool),
            _ => None,
        }
    }

    /// Component `i` of a scalar or vector.
    pub fn comp(&self, i: usize) -> Option<Comp> {
        match self {
            Value::Float(c, n) if i < *n as usize => Some(Comp::F(c[i])),
            Value::Int(c, n) if i < *n as usize => Some(Comp::I(c[i])),
            Value::Bool(c, n) if i < *n as usize => Some(Comp::B(c[i])),
            _ => None,
        }
    }

    /// Sets component `i` of a scalar or vector, converting `c` to its kind.
    pub fn set_comp(&mut self, i: usize, c: Comp) -> bool {
        match self {
            Value::Float(a, n) if i < *n as usize => a[i] = c.to_f32(),
            Value::Int(a, n) if i < *n as usize => a[i] = c.to_i32(),
            Value::Bool(a, n) if i < *n as usize => a[i] = c.to_bool(),
            _ => return false,
        }
        true
    }

    /// The float components of a scalar or vector (ints and bools converted), with its width.
    pub fn as_floats(&self) -> Option<([f32; 4], u8)> {
        match self {
            Value::Float(c, n) => Some((*c, *n)),
            Value::Int(c, n) => Some((c.map(|i| i as f32), *n)),
            Value::Bool(c, n) => Some((c.map(|b| b as i32 as f32), *n)),
            _ => None,
        }
    }

    /// The truth of a `bool` scalar (or the first component of anything scalar-like).
    pub fn truth(&self) -> Option<bool> {
        self.comp(0).map(Comp::to_bool)
    }

    /// Reads components `sel` (0..=3, x y z w): a scalar for one, else a vector. Reading a
    /// scalar with any selector repeats it (`x.xxx`).
    pub fn swizzle(&self, sel: &[u8]) -> Option<Value> {
        let n = self.width() as usize;
        if n == 0 || sel.is_empty() || sel.len() > 4 {
            return None;
        }
        let pick = |k: u8| -> Option<usize> {
            let k = k as usize;
            if n == 1 {
                Some(0)
            } else if k < n {
                Some(k)
            } else {
                None
            }
        };
        let w = sel.len() as u8;
        Some(match self {
            Value::Float(c, _) => {
                let mut o = [0.0; 4];
                for (j, &k) in sel.iter().enumerate() {
                    o[j] = c[pick(k)?];
                }
                Value::Float(o, w)
            }
            Value::Int(c, _) => {
                let mut o = [0; 4];
                for (j, &k) in sel.iter().enumerate() {
                    o[j] = c[pick(k)?];
                }
                Value::Int(o, w)
            }
            Value::Bool(c, _) => {
                let mut o = [false; 4];
                for (j, &k) in sel.iter().enumerate() {
                    o[j] = c[pick(k)?];
                }
                Value::Bool(o, w)
            }
            _ => return None,
        })
    }

    /// Converts a scalar or vector to `s` component-wise (C rules: float→int truncates toward
    /// zero, anything→bool is `!= 0`, bool→number is 0/1). Width is kept.
    pub fn convert_scalar(&self, s: Scalar) -> Option<Value> {
        let n = self.width();
        if n == 0 {
            return None;
        }
        let mut out = Value::zero_vector(s, n);
        for i in 0..n as usize {
            out.set_comp(i, self.comp(i)?);
        }
        Some(out)
    }

    /// Converts to `ty`: scalar kind changes component-wise; a scalar splats to a vector; a
    /// wider vector is truncated (Cg's implicit `float4 → float2`). Matrices, structs and arrays
    /// convert only to their own type.
    pub fn convert_to(&self, ty: &Type) -> Option<Value> {
        match ty {
            Type::Scalar(s) | Type::Vector(s, _) => {
                let want = ty.width()?;
                let n = self.width();
                if n == 0 {
                    return None;
                }
                let mut out = Value::zero_vector(*s, want);
                for i in 0..want as usize {
                    let c = if n == 1 { self.comp(0)? } else { self.comp(i)? };
                    out.set_comp(i, c);
                }
                Some(out)
            }
            Type::Matrix { rows, cols } => match self {
                Value::Matrix(m) if m.rows == *rows && m.cols == *cols => Some(self.clone()),
                _ if self.width() == 1 => {
                    let x = self.comp(0)?.to_f32();
                    let mut m = Mat::zero(*rows, *cols);
                    for r in 0..*rows as usize {
                        for k in 0..*cols as usize {
                            m.m[r][k] = x;
                        }
                    }
                    Some(Value::Matrix(m))
                }
                _ => None,
            },
            Type::Void => Some(Value::Void),
            Type::Struct(_) | Type::Array(..) => Some(self.clone()),
        }
    }

    /// Appends every scalar component, in order (members in order, matrices row by row).
    pub fn flatten(&self, out: &mut Vec<Comp>) {
        match self {
            Value::Void => {}
            Value::Float(..) | Value::Int(..) | Value::Bool(..) => {
                for i in 0..self.width() as usize {
                    out.push(self.comp(i).expect("within width"));
                }
            }
            Value::Matrix(m) => {
                for r in 0..m.rows as usize {
                    for c in 0..m.cols as usize {
                        out.push(Comp::F(m.m[r][c]));
                    }
                }
            }
            Value::Struct(parts) | Value::Array(parts) => {
                for p in parts.iter() {
                    p.flatten(out);
                }
            }
        }
    }

    /// Builds a value of `ty` from scalar components taken in order from `comps`; `None` when
    /// there are too few.
    pub fn from_comps(
        ty: &Type,
        module: &Module,
        comps: &mut impl Iterator<Item = Comp>,
    ) -> Option<Value> {
        Some(match ty {
            Type::Void => Value::Void,
            Type::Scalar(_) | Type::Vector(..) => {
                let s = ty.scalar()?;
                let n = ty.width()?;
                let mut v = Value::zero_vector(s, n);
                for i in 0..n as usize {
                    v.set_comp(i, comps.next()?);
                }
                v
            }
            Type::Matrix { rows, cols } => {
                let mut m = Mat::zero(*rows, *cols);
                for r in 0..*rows as usize {
                    for c in 0..*cols as usize {
                        m.m[r][c] = comps.next()?.to_f32();
                    }
                }
                Value::Matrix(m)
            }
            Type::Struct(id) => {
                let def = module.struct_def(*id);
                let mut parts = Vec::with_capacity(def.members.len());
                for m in &def.members {
                    parts.push(Value::from_comps(&m.ty, module, comps)?);
                }
                Value::Struct(parts.into_boxed_slice())
            }
            Type::Array(elem, n) => {
                let mut parts = Vec::with_capacity(*n as usize);
                for _ in 0..*n {
                    parts.push(Value::from_comps(elem, module, comps)?);
                }
                Value::Array(parts.into_boxed_slice())
            }
        })
    }

    /// Floats a value of `ty` occupies in a stream element (bools and ints take one float each).
    pub fn flat_len(ty: &Type, module: &Module) -> usize {
        match ty {
            Type::Void => 0,
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => *n as usize,
            Type::Matrix { rows, cols } => (*rows as usize) * (*cols as usize),
            Type::Struct(id) => module
                .struct_def(*id)
                .members
                .iter()
                .map(|m| Value::flat_len(&m.ty, module))
                .sum(),
            Type::Array(elem, n) => Value::flat_len(elem, module) * *n as usize,
        }
    }

    /// Decodes a value of `ty` from the start of `src` (stream layout: members back to back,
    /// matrices row by row; ints truncate, bools are `!= 0`). Returns the value and the floats
    /// used. Panics if `src` is shorter than [`Value::flat_len`]; callers check sizes first.
    pub fn decode(ty: &Type, module: &Module, src: &[f32]) -> (Value, usize) {
        match ty {
            Type::Void => (Value::Void, 0),
            Type::Scalar(Scalar::Float) => (Value::float(src[0]), 1),
            Type::Vector(Scalar::Float, n) => {
                let n = *n as usize;
                let mut c = [0.0; 4];
                c[..n].copy_from_slice(&src[..n]);
                (Value::Float(c, n as u8), n)
            }
            Type::Scalar(s) | Type::Vector(s, _) => {
                let n = ty.width().unwrap_or(1) as usize;
                let mut v = Value::zero_vector(*s, n as u8);
                for (i, &x) in src[..n].iter().enumerate() {
                    v.set_comp(i, Comp::F(x));
                }
                (v, n)
            }
            Type::Matrix { rows, cols } => {
                let (r, c) = (*rows as usize, *cols as usize);
                let mut m = Mat::zero(*rows, *cols);
                for i in 0..r {
                    m.m[i][..c].copy_from_slice(&src[i * c..(i + 1) * c]);
                }
                (Value::Matrix(m), r * c)
            }
            Type::Struct(id) => {
                let def = module.struct_def(*id);
                let mut used = 0;
                let mut parts = Vec::with_capacity(def.members.len());
                for m in &def.members {
                    let (v, k) = Value::decode(&m.ty, module, &src[used..]);
                    parts.push(v);
                    used += k;
                }
                (Value::Struct(parts.into_boxed_slice()), used)
            }
            Type::Array(elem, n) => {
                let mut used = 0;
                let mut parts = Vec::with_capacity(*n as usize);
                for _ in 0..*n {
                    let (v, k) = Value::decode(elem, module, &src[used..]);
                    parts.push(v);
                    used += k;
                }
                (Value::Array(parts.into_boxed_slice()), used)
            }
        }
    }

    /// Encodes into the start of `dst` in stream layout; returns the floats written.
    pub fn encode(&self, dst: &mut [f32]) -> usize {
        match self {
            Value::Void => 0,
            Value::Float(c, n) => {
                let n = *n as usize;
                dst[..n].copy_from_slice(&c[..n]);
                n
            }
            Value::Int(..) | Value::Bool(..) => {
                let n = self.width() as usize;
                for (i, d) in dst[..n].iter_mut().enumerate() {
                    *d = self.comp(i).map_or(0.0, Comp::to_f32);
                }
                n
            }
            Value::Matrix(m) => {
                let (r, c) = (m.rows as usize, m.cols as usize);
                for i in 0..r {
                    dst[i * c..(i + 1) * c].copy_from_slice(&m.m[i][..c]);
                }
                r * c
            }
            Value::Struct(parts) | Value::Array(parts) => {
                let mut used = 0;
                for p in parts.iter() {
                    used += p.encode(&mut dst[used..]);
                }
                used
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_and_vectors_stay_small() {
        // Inline storage: no value of the hot path owns heap memory.
        assert!(std::mem::size_of::<Value>() <= 80);
    }

    #[test]
    fn conversions_follow_c() {
        let v = Value::floats(&[-2.7, 2.7, 0.0, f32::NAN]);
        assert_eq!(
            v.convert_scalar(Scalar::Int),
            Some(Value::ints(&[-2, 2, 0, 0]))
        );
        assert_eq!(
            v.convert_scalar(Scalar::Bool),
            Some(Value::bools(&[true, true, false, true]))
        );
        assert_eq!(
            Value::bools(&[true, false]).convert_scalar(Scalar::Float),
            Some(Value::floats(&[1.0, 0.0]))
        );
        // A scalar splats, a wider vector truncates.
        assert_eq!(
            Value::float(2.0).convert_to(&Type::Vector(Scalar::Float, 3)),
            Some(Value::floats(&[2.0, 2.0, 2.0]))
        );
        assert_eq!(
            Value::floats(&[1.0, 2.0, 3.0]).convert_to(&Type::Vector(Scalar::Int, 2)),
            Some(Value::ints(&[1, 2]))
        );
    }

    #[test]
    fn swizzles() {
        let v = Value::floats(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(v.swizzle(&[3, 0]), Some(Value::floats(&[4.0, 1.0])));
        assert_eq!(v.swizzle(&[2]), Some(Value::float(3.0)));
        assert_eq!(
            Value::float(5.0).swizzle(&[0, 0, 0]),
            Some(Value::floats(&[5.0; 3]))
        );
        assert_eq!(Value::floats(&[1.0, 2.0]).swizzle(&[2]), None);
    }

    #[test]
    fn stream_layout_round_trip() {
        let module = Module::default();
        let m = Type::Matrix { rows: 2, cols: 3 };
        let src = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let (v, used) = Value::decode(&m, &module, &src);
        assert_eq!(used, 6);
        let Value::Matrix(mm) = &v else {
            panic!("{v:?}")
        };
        assert_eq!(mm.m[1][..3], [4.0, 5.0, 6.0]);
        let mut dst = [0.0; 6];
        assert_eq!(v.encode(&mut dst), 6);
        assert_eq!(dst, src);
        let (i, _) = Value::decode(&Type::Vector(Scalar::Int, 2), &module, &[3.9, -1.5]);
        assert_eq!(i, Value::ints(&[3, -1]));
    }
}
