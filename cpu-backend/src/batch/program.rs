//! What a kernel compiles to: instructions over registers of one batch of lanes.
//!
//! A register holds one scalar component for every lane of the batch (structure of arrays):
//! a `float4` value is four float registers, a `struct {float a; float3 b;}` four as well, a
//! `float2x2` four in row-major order — exactly the components `Value::flatten` lists, in the
//! same order, so stream elements map onto registers one to one.
//!
//! Expression instructions compute every lane (inactive lanes compute values nobody reads:
//! no instruction can fail or trap on garbage, gathers and indices clamp). Statements apply
//! the execution mask: a store writes only active lanes, and `If`/`Loop`/`Call`/`Break`/
//! `Continue`/`Return`/`Discard` narrow the mask the way divergent control flow does on a GPU.

use brook_frontend::ir::{BinaryOp, Builtin, Type};

use crate::value::Comp;

/// Lanes in one batch: enough that dispatching an instruction costs little next to its
/// loop, few enough that a kernel's registers stay in the core's caches.
pub const LANES: usize = 512;

/// The scalar kind of a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    F,
    I,
    B,
}

/// One register: its kind, its index among the registers of that kind, and whether it is a
/// literal (filled once per task, never written) or a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    pub kind: Kind,
    pub id: u32,
    pub konst: bool,
}

/// A compile-time value: its IR type and the registers of its flattened components.
#[derive(Debug, Clone, PartialEq)]
pub struct Val {
    pub ty: Type,
    pub regs: Vec<Reg>,
}

/// A lane condition of a store or load through a computed index: the lane's index in `reg`,
/// clamped to `0..len`, equals `value`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct When {
    pub reg: Reg,
    pub value: usize,
    pub len: usize,
}

/// How a gather's subscripts address the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum GatherIndex {
    /// One (scalar or vector) index: component `k` selects dimension `rank - 1 - k`.
    Vector(Vec<Reg>),
    /// C-order subscripts (`a[r][c]`), addressing the last dimensions.
    Subscripts(Vec<Reg>),
}

pub type Block = Vec<Ins>;

/// One instruction. `d` is always a fresh register distinct from the operands.
#[derive(Debug, Clone)]
pub enum Ins {
    FArith {
        op: BinaryOp,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    FCmp {
        op: BinaryOp,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    IArith {
        op: BinaryOp,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    ICmp {
        op: BinaryOp,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    BBin {
        op: BinaryOp,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    Neg {
        d: Reg,
        a: Reg,
    },
    /// Conversion between kinds with C's rules (`Comp::to_f32`, `to_i32`, `to_bool`).
    Conv {
        d: Reg,
        a: Reg,
    },
    Copy {
        d: Reg,
        a: Reg,
    },
    Select {
        c: Reg,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    F1 {
        f: fn(f32) -> f32,
        d: Reg,
        a: Reg,
    },
    F2 {
        f: fn(f32, f32) -> f32,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    F3 {
        f: fn(f32, f32, f32) -> f32,
        d: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    FTest {
        f: fn(f32) -> bool,
        d: Reg,
        a: Reg,
    },
    I1 {
        f: fn(i32) -> i32,
        d: Reg,
        a: Reg,
    },
    I2 {
        f: fn(i32, i32) -> i32,
        d: Reg,
        a: Reg,
        b: Reg,
    },
    /// `frexp`/`modf`: two results per component.
    Split {
        f: fn(f32) -> (f32, f32),
        d0: Reg,
        d1: Reg,
        a: Reg,
    },
    /// A built-in that is not component-wise (`dot`, `cross`, `mul` of matrices, …),
    /// evaluated per lane by the interpreter's own `builtin` on rebuilt values.
    PerLane {
        b: Builtin,
        args: Vec<Val>,
        d: Val,
    },
    /// `name` is the gather parameter's, for errors.
    Gather {
        param: usize,
        name: String,
        index: GatherIndex,
        d: Val,
    },
    /// `d = cands[clamp(index)]` per lane (a computed index into an array, vector or matrix).
    Pick {
        index: Reg,
        cands: Vec<Vec<Reg>>,
        d: Vec<Reg>,
    },
    /// Masked store of `src` into `dst`, on lanes where every `when` holds. `moves`: the
    /// `src` registers are distinct temporaries that nothing reads after this store, so when
    /// every lane is active the store swaps the registers' vectors instead of copying lanes
    /// (a whole-variable assignment `v = v * x + a` then costs no copy).
    Store {
        dst: Vec<Reg>,
        src: Vec<Reg>,
        when: Vec<When>,
        moves: bool,
    },
    If {
        cond: Reg,
        then: Block,
        otherwise: Block,
    },
    Loop {
        init: Block,
        cond: Option<(Block, Reg)>,
        step: Block,
        body: Block,
        test_first: bool,
    },
    Break,
    Continue,
    Return,
    Discard,
    /// An inlined helper body: its own scope for `return`.
    Call {
        body: Block,
    },
}

/// Where a kernel parameter's registers come from each batch.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamRegs {
    /// The parameter's value (empty for gathers).
    pub val: Val,
    /// Its `indexof` position, `.x` first, when the kernel uses it.
    pub position: Option<[Reg; 4]>,
}

/// A kernel compiled for the batch engine.
#[derive(Debug, Clone)]
pub struct BatchKernel {
    pub(crate) body: Block,
    pub(crate) params: Vec<ParamRegs>,
    /// Literal registers and their values.
    pub(crate) consts: Vec<(Reg, Comp)>,
    /// Variable registers needed per kind (F, I, B).
    pub(crate) vars: [usize; 3],
    /// Literal registers per kind.
    pub(crate) const_counts: [usize; 3],
}

impl Kind {
    pub(crate) fn index(self) -> usize {
        match self {
            Kind::F => 0,
            Kind::I => 1,
            Kind::B => 2,
        }
    }
}
