//! A scatter drawn as the paper draws it: its points on the destination. Each point of a
//! scatter pass lands on the texel its element's index selects, so the positions are computed
//! here from the index (and order) inputs the trace names ([`PassTrace::scatter`]), with the
//! rule every backend applies: element `order[k]` for point `k` (element `k` without an
//! order stream), its index rounded and clamped like a gather (brook-core's
//! [`gather_component_f`]), then the destination's address translation (a 1D index `L` at
//! texel `(L mod W, L div W)`; a 2D one at `(x, y)`).
//!
//! Only pictures that carry their values (small, not downsampled) can give positions; for
//! larger ones the page shows the destination without the points.

use brook_core::index::gather_component_f;
use brook_core::{Draw, PassTrace};

use crate::camera::Shot;
use crate::picture::Picture;

/// The texels (x, y) of the destination where the points of `pass` land, in point order;
/// empty when the pass is not a scatter's points or its index cannot be read.
pub fn scatter_points(pass: &PassTrace, shot: &Shot) -> Vec<(u32, u32)> {
    let (Draw::Points { first, count }, Some(scatter)) = (pass.draw, pass.scatter) else {
        return Vec::new();
    };
    let input = |k: usize| -> Option<&Picture> { shot.inputs.get(k)?.as_ref().ok() };
    let readable = |p: &&Picture| p.step == 1 && !p.values.is_empty();
    let Some(index) = input(scatter.index).filter(readable) else {
        return Vec::new();
    };
    let order = match scatter.order {
        Some(k) => match input(k).filter(readable) {
            Some(o) => Some(o),
            None => return Vec::new(),
        },
        None => None,
    };
    let Some(Ok(destination)) = shot.after.first() else {
        return Vec::new();
    };
    let (w, h) = (destination.width, destination.height);
    let per = usize::from(index.components);
    let rule = |v: f32, extent: u32| gather_component_f(v, extent.max(1) as usize) as u32;
    (first..first + count)
        .filter_map(|k| {
            let element = match order {
                Some(o) => *o.values.get(k * usize::from(o.components))? as usize,
                None => k,
            };
            let v = index.values.get(element * per..(element + 1) * per)?;
            Some(if per == 1 {
                let l = rule(v[0], w * h);
                (l % w, l / w)
            } else {
                (rule(v[0], w), rule(v[1], h))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::Shot;
    use brook_core::ScatterInputs;
    use std::time::Duration;

    fn pass(inputs: &[&str], first: usize, count: usize) -> PassTrace {
        let unit = |name: &str| inputs.iter().position(|n| *n == name);
        PassTrace {
            label: "scatter".into(),
            program: None,
            targets: vec![("destination".into(), 1)],
            inputs: inputs.iter().map(|n| (n.to_string(), 2)).collect(),
            uniforms: Vec::new(),
            viewport: [0, 0, 4, 2],
            draw: Draw::Points { first, count },
            blend: None,
            depth: None,
            counted: false,
            discards_outside_domain: false,
            scatter: unit("index").map(|index| ScatterInputs {
                index,
                order: unit("order"),
            }),
        }
    }

    fn picture(width: u32, components: u8, values: &[f32]) -> Picture {
        let height = values.len() as u32 / width / u32::from(components);
        Picture::of_rows(width, height, components, 1, values).unwrap()
    }

    #[test]
    fn points_land_where_the_index_says_after_address_translation() {
        // A 4×2 destination; 1D indices 1.9 (→ 2), 5 (→ texel (1, 1)), 99 (clamped to 7).
        let shot = |inputs: Vec<Picture>| Shot {
            pass: pass(&[], 0, 0),
            inputs: inputs.into_iter().map(Ok).collect(),
            before: Vec::new(),
            after: vec![Ok(picture(4, 1, &[0.0; 8]))],
            elapsed: Duration::ZERO,
            warm_up: None,
        };
        let index = picture(3, 1, &[1.9, 5.0, 99.0]);
        let s = shot(vec![index.clone()]);
        let p = pass(&["index"], 0, 3);
        assert_eq!(scatter_points(&p, &s), [(2, 0), (1, 1), (3, 1)]);
        // Points 1..3 of an order stream [2, 0, 1]: elements 0 and 1.
        let s = shot(vec![index, picture(3, 1, &[2.0, 0.0, 1.0])]);
        let p = pass(&["index", "order"], 1, 2);
        assert_eq!(scatter_points(&p, &s), [(2, 0), (1, 1)]);
        // 2D indices (x, y).
        let s = shot(vec![picture(2, 2, &[3.0, 1.0, 0.0, 0.0])]);
        let p = pass(&["index"], 0, 2);
        assert_eq!(scatter_points(&p, &s), [(3, 1), (0, 0)]);
    }
}
