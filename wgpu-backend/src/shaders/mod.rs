//! The compute shaders each Brook operation runs, as naga modules: entry points that run
//! the lowered Brook functions (`crate::lower`) over storage buffers, and the fixed shaders
//! of the mechanisms (reduction trees, scatters, scans).
//!
//! Every shader binds, at group 0:
//! - binding 0: the per-call uniform `info: array<vec4<u32>, N>` (counts, extents, domain
//!   bounds, iterator ranges, constants as bits), laid out by the shader's plan so the host
//!   fills exactly what the shader reads;
//! - bindings 1..: storage buffers, in the order of the shader's [`Resource`] list.

pub mod kernel;
pub(crate) mod reduce;
pub(crate) mod scan;
pub(crate) mod scatter;

use naga::{
    AddressSpace, Binding, BuiltIn, EntryPoint, Expression, FunctionArgument, Handle, ShaderStage,
};

use crate::lower::{FnBuilder, ShaderModule};

/// Invocations per workgroup of the element-wise shaders.
pub const WORKGROUP: u32 = 64;

/// Most workgroups along one dispatch dimension (WebGPU's minimum limit).
pub const MAX_GROUPS: u32 = 65535;

/// A storage buffer a shader binds, in binding order from 1.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Resource {
    /// What it holds, for the trace (`x`, `out result`, `partials`, …).
    pub name: String,
    /// Whether the shader writes it (`read_write` storage) or only reads it.
    pub writable: bool,
    /// The array's element type.
    pub elem: Elem,
}

/// The element type of a storage buffer's array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `f32`, `vec2<f32>` or `vec4<f32>` (a stream's floats, one vector per element when the
    /// element is 2 or 4 floats: see `lower::values::Elements`).
    Floats(u8),
    /// `u32`: counts, indices, flags.
    U32,
    /// `atomic<u32>`: counters and claims several invocations update at once (scatter rounds, write
    /// queries).
    AtomicU32,
}

impl Resource {
    /// A resource named `name` for the trace.
    pub fn new(name: impl Into<String>, writable: bool, elem: Elem) -> Resource {
        Resource {
            name: name.into(),
            writable,
            elem,
        }
    }
}

/// The workgroup counts of a dispatch of `threads` invocations of `per_group` each: as few
/// rows (along y) as keep a row within [`MAX_GROUPS`] workgroups, the workgroups shared
/// evenly between them, so that fewer than one workgroup per row is idle. (Full rows of
/// `MAX_GROUPS` would leave up to a whole row idle: at 2048² elements in groups of 64 a second
/// row of 65,535 workgroups for one of work, which doubled the dispatch's time on lavapipe,
/// where an invocation that returns early still runs the shader under its lane mask.)
/// Returns the counts and the invocations per row of the grid (what a shader multiplies
/// `gid.y` by).
pub fn dispatch_size(threads: u64, per_group: u32) -> ([u32; 3], u32) {
    let groups = threads.div_ceil(u64::from(per_group)).max(1);
    let rows = groups.div_ceil(u64::from(MAX_GROUPS));
    let x = groups.div_ceil(rows) as u32;
    ([x, rows as u32, 1], x * per_group)
}

/// The grid of a 2D call of `shape` (rows, columns) as the rasteriser would cover it: one
/// row of workgroups per row of elements, so that an invocation's global id *is* its
/// element's column and row, with no division by the call's width (a run-time value, which
/// lavapipe divides lane by lane and a GPU in some twenty instructions). `None` where the
/// linear grid ([`dispatch_size`]) is better: another rank, more rows or columns than a grid
/// dimension holds, or rows so narrow that over an eighth of each would idle (under 512
/// columns and not a multiple of `per_group`).
pub fn rows_grid(shape: &[usize], per_group: u32) -> Option<[u32; 3]> {
    let &[rows, columns] = shape else {
        return None;
    };
    let per_group = per_group as usize;
    let across = columns.div_ceil(per_group);
    let fits = (1..=MAX_GROUPS as usize).contains(&rows) && across <= MAX_GROUPS as usize;
    let full = columns % per_group == 0 || columns >= 8 * per_group;
    (fits && full).then_some([across as u32, rows as u32, 1])
}

#[cfg(test)]
mod tests {
    use super::{dispatch_size, rows_grid, MAX_GROUPS};

    /// A rows grid has one workgroup row per element row, covers every column, and idles at
    /// most an eighth of a row; other shapes take the linear grid.
    #[test]
    fn rows_grids_cover_each_row_once() {
        for (shape, grid) in [
            (vec![1024, 1024], Some([16, 1024, 1])),
            (vec![1000, 1000], Some([16, 1000, 1])),
            (vec![3, 64], Some([1, 3, 1])),
            (vec![7, 512], Some([8, 7, 1])),
            (vec![1000, 1], None),
            (vec![1000, 100], None),
            (vec![70000, 1024], None),
            (vec![1024], None),
            (vec![2, 2, 1024], None),
        ] {
            assert_eq!(rows_grid(&shape, 64), grid, "{shape:?}");
            if let Some([x, y, _]) = grid {
                assert_eq!(y as usize, shape[0]);
                let lanes = x as usize * 64;
                assert!(
                    lanes >= shape[1] && 8 * (lanes - shape[1]) <= lanes,
                    "{shape:?}"
                );
            }
        }
    }

    /// Every invocation a call needs is in the grid, no row is longer than wgpu allows, and
    /// fewer than one workgroup per row is idle, at sizes around each row boundary.
    #[test]
    fn grids_cover_the_threads_with_less_than_a_workgroup_idle_per_row() {
        let row = u64::from(MAX_GROUPS) * 64;
        for threads in [
            1,
            63,
            64,
            65,
            row - 1,
            row,
            row + 1,
            2048 * 2048,
            3 * row + 5,
            1 << 30,
        ] {
            let ([x, y, z], per_row) = dispatch_size(threads, 64);
            let invocations = u64::from(x) * u64::from(y) * 64;
            assert!(x <= MAX_GROUPS && z == 1, "{threads}: {x} × {y} × {z}");
            assert_eq!(per_row, x * 64, "{threads}");
            assert!(
                invocations >= threads,
                "{threads}: {invocations} invocations"
            );
            assert!(
                invocations - threads < u64::from(y) * 64,
                "{threads}: {} idle invocations in {y} rows",
                invocations - threads
            );
        }
    }
}

/// Slots of the per-call uniform, allocated in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct InfoPlan {
    /// Slots allocated so far: the uniform's length in `vec4<u32>`s.
    pub slots: u32,
}

impl InfoPlan {
    /// `n` consecutive slots; returns the first.
    pub fn alloc(&mut self, n: u32) -> u32 {
        let at = self.slots;
        self.slots += n;
        at
    }
}

/// Declares the call-info uniform of `slots` slots at binding 0.
pub fn declare_info(sm: &mut ShaderModule, slots: u32) -> Handle<naga::GlobalVariable> {
    let v = sm.types.vector(naga::Scalar::U32, 4);
    let arr = sm.types.array_of(v, slots.max(1));
    let g = sm.resource("info", AddressSpace::Uniform, arr, 0);
    sm.info = Some(g);
    g
}

/// Declares the storage buffers of `resources` at bindings 1.. as arrays of their elements.
pub fn declare_storage(
    sm: &mut ShaderModule,
    resources: &[Resource],
) -> Vec<Handle<naga::GlobalVariable>> {
    resources
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let e = match r.elem {
                Elem::Floats(w) => sm.types.vector(naga::Scalar::F32, w),
                Elem::U32 => sm.types.u32(),
                Elem::AtomicU32 => sm.types.atomic(naga::Scalar::U32),
            };
            let arr = sm.types.array_of(e, 0);
            let space = crate::lower::builder::storage(r.writable);
            sm.resource(&r.name.replace(' ', "_"), space, arr, k as u32 + 1)
        })
        .collect()
}

/// The invocation ids an entry point can ask for.
pub struct Ids {
    /// The global invocation's linear number (over a 2D grid of workgroups).
    pub global: Handle<Expression>,
    /// Its x and y in the grid (on a [`rows_grid`], an element's column and row).
    pub xy: [Handle<Expression>; 2],
    /// The invocation's index within its workgroup.
    pub local: Handle<Expression>,
    /// The workgroup's linear number.
    pub group: Handle<Expression>,
}

/// Starts a compute entry point: declares the built-in arguments and computes the linear ids
/// from them (`info[0].y` holds the invocations per grid row, see [`dispatch_size`]).
pub fn entry_ids(b: &mut FnBuilder, info: Handle<naga::GlobalVariable>, per_group: u32) -> Ids {
    let v3 = b.types.vector(naga::Scalar::U32, 3);
    let u = b.types.u32();
    let arg = |b: &mut FnBuilder, name: &str, ty, builtin| {
        let index = b.function.arguments.len() as u32;
        b.function.arguments.push(FunctionArgument {
            name: Some(name.into()),
            ty,
            binding: Some(Binding::BuiltIn(builtin)),
        });
        b.add(Expression::FunctionArgument(index))
    };
    let gid = arg(b, "gid", v3, BuiltIn::GlobalInvocationId);
    let lid = arg(b, "lid", u, BuiltIn::LocalInvocationIndex);
    let wid = arg(b, "wid", v3, BuiltIn::WorkGroupId);
    let head = crate::lower::module::info_slot(b, info, 0);
    let row = b.index(head, 1);
    let gx = b.index(gid, 0);
    let gy = b.index(gid, 1);
    let across = b.mul(gy, row);
    let global = b.add_(gx, across);
    b.name(global, "id");
    let wx = b.index(wid, 0);
    let wy = b.index(wid, 1);
    let group_size = b.u32(per_group);
    let groups_per_row = b.div(row, group_size);
    let wacross = b.mul(wy, groups_per_row);
    let group = b.add_(wx, wacross);
    Ids {
        global,
        xy: [gx, gy],
        local: lid,
        group,
    }
}

/// Adds the finished entry point `function` to the module.
pub fn add_entry(sm: &mut ShaderModule, function: naga::Function, workgroup: u32) {
    sm.entry_points.push(EntryPoint {
        name: "main".into(),
        stage: ShaderStage::Compute,
        early_depth_test: None,
        workgroup_size: [workgroup, 1, 1],
        workgroup_size_overrides: None,
        function,
        mesh_info: None,
        task_payload: None,
        incoming_ray_payload: None,
    });
}
