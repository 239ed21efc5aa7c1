//! The pictures a page shows, stored once each: every picture is named by a hash of what
//! the page says about it (pixels, extents, range, values), so a texture that did not change
//! between passes is one file, and the values under the pointer go to `values.js`.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use crate::picture::Picture;

/// The files a page refers to: PNGs and the values under the pointer, by name.
#[derive(Default)]
pub struct Assets {
    /// `images/NAME.png` → its bytes.
    pub images: BTreeMap<String, Vec<u8>>,
    /// Picture name → its values, as a JavaScript array literal.
    pub values: BTreeMap<String, String>,
    /// Element histories of pictures ([`Image::why`] indexes them), each a JavaScript array
    /// literal of one tree per element (`crate::history::js_trees`).
    pub histories: Vec<String>,
}

#[derive(Clone)]
pub struct Image {
    /// The picture's file and value-table name.
    pub name: String,
    pub texels: (u32, u32),
    pub shown: (u32, u32),
    pub step: u32,
    pub components: u8,
    /// The size drawn in the page, in CSS pixels.
    pub display: (u32, u32),
    pub caption: String,
    /// Whether the page holds its values (for the value under the pointer).
    pub probed: bool,
    /// For a small texture, the linear element index `L` of each texel, row by row: the
    /// address translation `L → (L mod W, L div W)` drawn over the picture (empty: none).
    pub elements: Vec<u32>,
    /// Points drawn over the picture, as (left, top) percentages of its size: where a
    /// scatter's points landed ([`crate::scatter_points`]).
    pub points: Vec<(f32, f32)>,
    /// Where each element's value came from, when the page has it: an index into
    /// [`Assets::histories`] (a click on the element shows its history).
    pub why: Option<usize>,
}

/// The longest side of a picture on the page, in CSS pixels.
const DISPLAY_SIDE: u32 = 160;

/// Textures of at most this many texels are drawn with each texel's element index.
const MAX_NUMBERED: u32 = 256;

/// The page's image of `picture`, its PNG (and values) added to the assets once.
pub fn image(picture: &Picture, assets: &mut Assets) -> Image {
    // Two textures can look alike (a ramp and twice it) yet hold different values: the
    // name covers what the page says about the picture, not only its pixels.
    let mut h = DefaultHasher::new();
    picture.png.hash(&mut h);
    (picture.width, picture.height, picture.step).hash(&mut h);
    picture
        .range
        .map(|(lo, hi)| (lo.to_bits(), hi.to_bits()))
        .hash(&mut h);
    picture.values.iter().for_each(|v| v.to_bits().hash(&mut h));
    let name = format!("{:016x}", h.finish());
    let probed = !picture.values.is_empty();
    if !assets.images.contains_key(&name) {
        assets.images.insert(name.clone(), picture.png.clone());
        if probed {
            assets
                .values
                .insert(name.clone(), js_array(&picture.values));
        }
    }
    let shown = picture.shown();
    let numbered = picture.step == 1 && shown.0 * shown.1 <= MAX_NUMBERED;
    let texel = (DISPLAY_SIDE as f32 / shown.0.max(shown.1) as f32).clamp(1.0, 24.0);
    let texel = if numbered { texel.max(22.0) } else { texel };
    // A 1D stream is one row: drawn at least a finger tall.
    let display = (
        ((shown.0 as f32 * texel) as u32).max(1),
        ((shown.1 as f32 * texel) as u32).max(12),
    );
    let kind = match picture.components {
        1 => "float".to_string(),
        n => format!("float{n}"),
    };
    let mut caption = format!("{}×{} texels of {kind}", picture.width, picture.height);
    if picture.step > 1 {
        caption += &format!(", one in {} shown each way", picture.step);
    }
    match picture.range {
        Some((lo, hi)) => caption += &format!(" · values {lo} … {hi}"),
        None => caption += " · no finite value",
    }
    if picture.not_finite > 0 {
        caption += &format!(" · {} not finite (magenta)", picture.not_finite);
    }
    Image {
        name,
        texels: (picture.width, picture.height),
        shown,
        step: picture.step,
        components: picture.components,
        display,
        caption,
        probed,
        elements: if numbered {
            (0..shown.0 * shown.1).collect()
        } else {
            Vec::new()
        },
        points: Vec::new(),
        why: None,
    }
}

/// `[1,2.5,NaN]`, as JavaScript reads it.
fn js_array(values: &[f32]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|v| {
            if v.is_nan() {
                "NaN".into()
            } else if v.is_infinite() {
                if *v > 0.0 { "Infinity" } else { "-Infinity" }.into()
            } else {
                format!("{v}")
            }
        })
        .collect();
    format!("[{}]", items.join(","))
}
