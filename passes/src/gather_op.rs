//! `streamGatherOp(dst, index, data, op)` on GL: a fetch-and-op. `dst[i]` receives
//! `data[index[i]]` as it is before element `i`'s update, then `data[index[i]]` becomes
//! `op(operand, data[index[i]])`, for every `i` in index order.
//!
//! Collisions follow scatter's conflict-free rounds (planned on the host from the index stream
//! by `plan_rounds`): round `k` holds the `k`-th element (in index order) aimed at each data
//! element. Each round is two point draws of that round's elements: the fetch
//! (`generate_gather_fetch`: each point lands on its own element of `dst` and copies the data
//! texel its index selects), then the update, a scatter of the operand into `data` through
//! the scatter combiners (blending for add/min/max, a user `reduce` reading a copy of `data`).
//! An element therefore sees the updates of every earlier element hitting the same place,
//! exactly as the sequential loop of the CPU backend.

use brook_texture_streams::Stream;

use crate::error::PassError;
use crate::runner::{call_error, KernelRunner};
use crate::scatter::{check_indexed, member_widths, ScatterWith, Streams};

const CALL: &str = "streamGatherOp";

impl KernelRunner {
    /// `streamGatherOp(dst, index, data, op)`: with `update` `None` a plain fetch, else
    /// `(op, operand)` with `operand` one element of `data`'s type (C layout floats).
    /// `index` has one `float`..`float4` per element of `dst`, one component per dimension of
    /// `data` (`.x` the column), rounded and clamped by the gather rule.
    pub fn gather_op(
        &self,
        dst: &Stream,
        index: &Stream,
        data: &Stream,
        update: Option<(ScatterWith, &[f32])>,
    ) -> Result<(), PassError> {
        let fail = |m: String| call_error(CALL, m);
        check_indexed(data, index, dst).map_err(fail)?;
        if std::ptr::eq(dst, data) || std::ptr::eq(dst, index) || std::ptr::eq(data, index) {
            return Err(fail(
                "the destination, index and data streams must be three different streams".into(),
            ));
        }
        let n = index.layout().len();
        let operand = match update {
            Some((op, operand)) => {
                let floats = data.format().floats_per_element();
                if operand.len() != floats {
                    return Err(fail(format!(
                        "the operand has {} floats but an element of the data stream has {floats}",
                        operand.len()
                    )));
                }
                let mut stream = Stream::new(&self.ctx, data.format().clone(), &[n])?;
                stream.read(&operand.repeat(n))?;
                Some((op, stream))
            }
            None => None,
        };
        self.ctx.make_current()?;
        let fetch = self.fetch_program(&member_widths(dst))?;
        let combiner = match &operand {
            Some((op, _)) => Some(self.combiner(CALL, *op, data, true)?),
            None => None,
        };
        let (order, rounds) = self.plan_rounds(CALL, data, index)?;
        let mut first = 0;
        for (k, count) in rounds.into_iter().enumerate() {
            let fetched = Streams {
                dst,
                index,
                data,
                old: None,
                order: Some(&order),
            };
            self.draw_points(&fetch, &fetched, first, count)?;
            if let (Some(c), Some((_, operand))) = (&combiner, &operand) {
                let updated = Streams {
                    dst: data,
                    data: operand,
                    ..fetched
                };
                self.combine(c, &updated, k > 0, first, count)?;
            }
            first += count;
        }
        self.ctx.check_error("gathering with an update")?;
        Ok(())
    }
}
