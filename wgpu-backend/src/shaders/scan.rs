//! The fixed shaders that pack `vout` values: an exclusive prefix sum of the per-element
//! push counts (work-efficient enough: one workgroup-shared scan of 256 counts per
//! workgroup, the workgroups' totals scanned the same way level by level, then added back),
//! and the compaction that copies each element's candidates to its offset.

use naga::AddressSpace;

use super::{add_entry, declare_info, declare_storage, entry_ids, Elem, Resource, WORKGROUP};
use crate::lower::module::{info_slot, info_slot_opaque, OpaqueZero};
use crate::lower::{FnBuilder, ShaderModule};

/// Counts scanned by one workgroup.
pub const SCAN_BLOCK: u32 = 256;

fn resource(name: &str, writable: bool) -> Resource {
    let elem = if name == "candidates" || name == "out vout" {
        Elem::Floats(1)
    } else {
        Elem::U32
    };
    Resource::new(name, writable, elem)
}

/// `data[i]` becomes the sum of `data[j]` for `j < i` within its block of [`SCAN_BLOCK`];
/// `sums[block]` the block's total. Info slot 0: `[n, row, 0, 0]`.
pub fn scan_blocks(empty: &brook_ir::Module) -> (naga::Module, Vec<Resource>) {
    let resources = vec![resource("data", true), resource("block sums", true)];
    let mut sm = ShaderModule::new(empty);
    let info = declare_info(&mut sm, 1);
    let g = declare_storage(&mut sm, &resources);
    let u = sm.types.u32();
    let shared_ty = sm.types.array_of(u, SCAN_BLOCK);
    let shared = sm.variable("partial", AddressSpace::WorkGroup, shared_ty);
    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, SCAN_BLOCK);
    let head = info_slot(&mut b, info, 0);
    let n = b.index(head, 0);
    let block = b.u32(SCAN_BLOCK);
    let first = b.mul(ids.group, block);
    let i = b.add_(first, ids.local);
    let inside = b.lt(i, n);
    let own = b.local("own", u);
    let data = b.global(g[0]);
    b.when(inside, |b| {
        let p = b.access(data, i);
        let v = b.load(p);
        b.store(own, v);
    });
    let tmp = b.global(shared);
    let mine = b.access(tmp, ids.local);
    let v = b.load(own);
    b.store(mine, v);
    b.workgroup_barrier();
    let mut off = 1;
    while off < SCAN_BLOCK {
        let o = b.u32(off);
        let has = b.ge(ids.local, o);
        let left = b.local("left", u);
        b.when(has, |b| {
            let j = b.sub(ids.local, o);
            let p = b.access(tmp, j);
            let x = b.load(p);
            b.store(left, x);
        });
        b.workgroup_barrier();
        let l = b.load(left);
        b.increment(mine, l);
        b.workgroup_barrier();
        off *= 2;
    }
    let inclusive = b.load(mine);
    let v = b.load(own);
    b.when(inside, |b| {
        let p = b.access(data, i);
        let exclusive = b.sub(inclusive, v);
        b.store(p, exclusive);
    });
    let last = b.u32(SCAN_BLOCK - 1);
    let is_last = b.eq(ids.local, last);
    let sums = b.global(g[1]);
    b.when(is_last, |b| {
        let p = b.access(sums, ids.group);
        b.store(p, inclusive);
    });
    let f = b.finish();
    add_entry(&mut sm, f, SCAN_BLOCK);
    (sm.finish(), resources)
}

/// `data[i] += sums[i / SCAN_BLOCK]` for `i < n`. Info slot 0: `[n, row, 0, 0]`.
pub fn add_block_sums(empty: &brook_ir::Module) -> (naga::Module, Vec<Resource>) {
    let resources = vec![resource("data", true), resource("block sums", false)];
    let mut sm = ShaderModule::new(empty);
    let info = declare_info(&mut sm, 1);
    let g = declare_storage(&mut sm, &resources);
    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, WORKGROUP);
    let head = info_slot(&mut b, info, 0);
    let n = b.index(head, 0);
    let i = ids.global;
    let past = b.ge(i, n);
    b.when(past, |b| b.ret(None));
    let block = b.u32(SCAN_BLOCK);
    let k = b.div(i, block);
    let sums = b.global(g[1]);
    let sp = b.access(sums, k);
    let s = b.load(sp);
    let data = b.global(g[0]);
    let p = b.access(data, i);
    b.increment(p, s);
    let f = b.finish();
    add_entry(&mut sm, f, WORKGROUP);
    (sm.finish(), resources)
}

/// Copies each element's pushed candidates to its offset in the vout stream: invocation
/// `i` handles candidate `i % max` of element `i / max`. Info slot 0: `[elements * max,
/// row, max, floats per element]`, read at an index offset by slot 1's `.w`, an opaque zero
/// (`info_slot_opaque`: the floats per element bound a loop, which lavapipe would otherwise
/// inline and compile anew at every dispatch).
pub fn compact(empty: &brook_ir::Module) -> (naga::Module, Vec<Resource>) {
    let resources = vec![
        resource("counts", false),
        resource("offsets", false),
        resource("candidates", false),
        resource("out vout", true),
    ];
    let mut sm = ShaderModule::new(empty);
    let info = declare_info(&mut sm, 2);
    let g = declare_storage(&mut sm, &resources);
    let mut b = FnBuilder::new(&mut sm.types, "main");
    let ids = entry_ids(&mut b, info, WORKGROUP);
    let head = info_slot_opaque(&mut b, OpaqueZero { info, slot: 1 }, 0);
    let n = b.index(head, 0);
    let max = b.index(head, 2);
    let fpe = b.index(head, 3);
    let i = ids.global;
    let past = b.ge(i, n);
    b.when(past, |b| b.ret(None));
    let element = b.div(i, max);
    let k = b.rem(i, max);
    let counts = b.global(g[0]);
    let cp = b.access(counts, element);
    let count = b.load(cp);
    let unused = b.ge(k, count);
    b.when(unused, |b| b.ret(None));
    let offsets = b.global(g[1]);
    let op = b.access(offsets, element);
    let offset = b.load(op);
    let slot = b.add_(offset, k);
    let dst_first = b.mul(slot, fpe);
    let src_first = b.mul(i, fpe);
    let cands = b.global(g[2]);
    let out = b.global(g[3]);
    let zero = b.u32(0);
    b.for_u32("f", zero, fpe, 1, |b, f| {
        let s = b.add_(src_first, f);
        let sp = b.access(cands, s);
        let v = b.load(sp);
        let d = b.add_(dst_first, f);
        let dp = b.access(out, d);
        b.store(dp, v);
    });
    let fun = b.finish();
    add_entry(&mut sm, fun, WORKGROUP);
    (sm.finish(), resources)
}
