//! A scatter drawn as the paper draws it: its points on the destination. Each point of a
//! scatter pass lands on the texel its element's index selects, so the positions are computed
//! here from the index (and order) textures the pass read, with the rule the vertex shader
//! applies: element `order[k]` for point `k` (element `k` without an order stream), its index
//! `floor(v + 0.25)` clamped, then the destination's address translation (a 1D index `L` at
//! texel `(L mod W, L div W)`; a 2D one at `(x, y)`).
//!
//! Only pictures that carry their values (small, not downsampled) can give positions; for
//! larger ones the page shows the destination without the points.

use brook_core::{Draw, PassTrace};

use crate::camera::Shot;
use crate::picture::Picture;

/// The texels (x, y) of the destination where the points of `pass` land, in point order;
/// empty when the pass is not a scatter's points or its index cannot be read.
pub fn scatter_points(pass: &PassTrace, shot: &Shot) -> Vec<(u32, u32)> {
    let Draw::Points { first, count } = pass.draw else {
        return Vec::new();
    };
    if pass.targets.first().map(|t| t.0.as_str()) != Some("destination") {
        return Vec::new();
    }
    let input = |name: &str| -> Option<&Picture> {
        let k = pass.inputs.iter().position(|(n, _)| n == name)?;
        shot.inputs.get(k)?.as_ref().ok()
    };
    let readable = |p: &&Picture| p.step == 1 && !p.values.is_empty();
    let Some(index) = input("brook_index_tex").filter(readable) else {
        return Vec::new();
    };
    let order = input("brook_order_tex");
    if order.is_some_and(|o| !readable(&o)) {
        return Vec::new();
    }
    let Some(Ok(destination)) = shot.after.first() else {
        return Vec::new();
    };
    let (w, h) = (destination.width, destination.height);
    let per = usize::from(index.components);
    let rule = |v: f32, hi: u32| ((v + 0.25).floor().max(0.0) as u32).min(hi.saturating_sub(1));
    (first..first + count)
        .filter_map(|k| {
            let element = match order {
                Some(o) => *o.values.get(k as usize * usize::from(o.components))? as usize,
                None => k as usize,
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
    use std::time::Duration;

    fn pass(inputs: &[&str], first: usize, count: usize) -> PassTrace {
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
        };
        let index = picture(3, 1, &[1.9, 5.0, 99.0]);
        let s = shot(vec![index.clone()]);
        let p = pass(&["brook_index_tex"], 0, 3);
        assert_eq!(scatter_points(&p, &s), [(2, 0), (1, 1), (3, 1)]);
        // Points 1..3 of an order stream [2, 0, 1]: elements 0 and 1.
        let s = shot(vec![index, picture(3, 1, &[2.0, 0.0, 1.0])]);
        let p = pass(&["brook_index_tex", "brook_order_tex"], 1, 2);
        assert_eq!(scatter_points(&p, &s), [(2, 0), (1, 1)]);
        // 2D indices (x, y).
        let s = shot(vec![picture(2, 2, &[3.0, 1.0, 0.0, 0.0])]);
        let p = pass(&["brook_index_tex"], 0, 2);
        assert_eq!(scatter_points(&p, &s), [(3, 1), (0, 0)]);
    }
}
