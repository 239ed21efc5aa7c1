//! What a compiled function reads from its call: the slot table.
//!
//! Everything that is the same for every element of a call (stream addresses and extents,
//! gather bounds, iterator ranges, constant values) reaches the code through one array of
//! 64-bit slots, `ctx`. The lowering asks for a slot when it first needs one ([`Slots::get`]);
//! the load goes into the function's entry block, so it runs once per tile and its value is
//! in a register (or spilled) for the whole tile. The slot list is the compiled function's
//! contract with its caller, which fills the array in the same order ([`Slot`] says what each
//! holds) before every call.

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{Function, Inst, InstBuilder, MemFlagsData, Type as Ty, Value};

/// What one slot of `ctx` holds. `p` is a parameter index, `d` a dimension (first dimension
/// first), `c` a component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    /// The address of parameter `p`'s stream data (its first float).
    Data(u32),
    /// Extent `d` of parameter `p`'s stream or iterator.
    Extent(u32, u8),
    /// Elements between consecutive indices of dimension `d` of parameter `p`'s stream.
    Stride(u32, u8),
    /// `extent - 1` of dimension `d` of gather `p`, as an integer.
    Last(u32, u8),
    /// Its float bound, `brook_core::index::last_bound` (the gather rule compares in float,
    /// as the interpreter does, exactly at every extent).
    LastF(u32, u8),
    /// Start of component `c` of iterator `p` (`f32` bits).
    IterStart(u32, u8),
    /// Per-element step of component `c` of iterator `p` (`f32` bits).
    IterStep(u32, u8),
    /// Component `c` of constant `p`, raw bits of its kind (`f32` bits, `i32`, bool 0/1).
    Const(u32, u32),
    /// Extent `d` of the call's output shape.
    OutExtent(u8),
    /// The address of the call's [`crate::Watchdog`] (code compiled for a time limit).
    Watchdog,
}

/// The slots a function reads, in `ctx` order, and their loads.
pub(crate) struct Slots {
    pub list: Vec<Slot>,
    index: HashMap<Slot, usize>,
    loaded: HashMap<(Slot, Ty), Value>,
    ctx: Value,
    /// The entry block's terminator: loads go just before it.
    at: Inst,
}

impl Slots {
    /// Slots read through `ctx`, with loads inserted before `at` (the entry block's end).
    pub fn new(ctx: Value, at: Inst) -> Slots {
        Slots {
            list: Vec::new(),
            index: HashMap::new(),
            loaded: HashMap::new(),
            ctx,
            at,
        }
    }

    /// The value of slot `s` as type `ty` (an integer or `f32`; pointers are `i64`).
    pub fn get(&mut self, func: &mut Function, s: Slot, ty: Ty) -> Value {
        if let Some(&v) = self.loaded.get(&(s, ty)) {
            return v;
        }
        let k = self.reserve(s);
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        let mut cur = FuncCursor::new(func).at_inst(self.at);
        let v = cur.ins().load(ty, flags, self.ctx, (8 * k) as i32);
        self.loaded.insert((s, ty), v);
        v
    }

    /// The position of slot `s` in `ctx`, given one if it has none yet.
    pub fn reserve(&mut self, s: Slot) -> usize {
        *self.index.entry(s).or_insert_with(|| {
            self.list.push(s);
            self.list.len() - 1
        })
    }
}
