//! What a view of a stream is: which member and component, drawn how, over which range.

use crate::ColorMap;

/// The values that map to the ends of a colour map, a plot's axis or full brightness.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// From the stream's finite values each time it is drawn (read back to the host; see
    /// [`resolve`](crate::range::resolve)). A diverging map gets a range symmetric about zero.
    Auto,
    /// `lo` to `hi`; `hi` must be greater than `lo`.
    Fixed(f32, f32),
}

/// How the elements are turned into pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ViewKind {
    /// One float per element (the view's component) through a colour map. NaN and infinities
    /// show in magenta.
    Scalar {
        /// The colours values go through, low to high.
        map: ColorMap,
        /// The values mapped to the ends of the colour map.
        range: Range,
    },
    /// A `float2` field: hue is the direction (+x red, +y yellow-green, −x cyan, −y violet),
    /// brightness the magnitude up to the range's `hi`.
    Vector {
        /// The magnitudes from dark to full brightness.
        range: Range,
    },
    /// `float3`/`float4` as an RGB image, components clamped to `[0, 1]`.
    Rgb,
    /// `float4` as RGB composited by its alpha over a grey checkerboard.
    Rgba,
    /// The elements in order as a line plot of the view's component (`range` is the y axis).
    Plot {
        /// The y axis.
        range: Range,
    },
    /// Each element a point at (component 0, component 1) inside `x` × `y`: particles, cloth.
    Points {
        /// The horizontal axis (component 0).
        x: Range,
        /// The vertical axis (component 1).
        y: Range,
    },
}

/// A view of one member of a stream (member 0 of a plain `floatN` stream).
///
/// Image views show the stream as a grid of `n / c` rows of `c` columns, `c` being the last
/// extent, so a 2D stream looks like the array printed row by row (row 0 at the top) and a
/// 3D or 4D stream shows its slices stacked; a 1D stream is one row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// How the elements become pixels.
    pub kind: ViewKind,
    /// Which struct member (texture) to show.
    pub member: usize,
    /// Which component of the member a scalar view or a plot shows.
    pub component: u8,
}

impl View {
    fn of(kind: ViewKind) -> View {
        View {
            kind,
            member: 0,
            component: 0,
        }
    }

    /// A scalar field through `map`, auto range.
    pub fn scalar(map: ColorMap) -> View {
        View::of(ViewKind::Scalar {
            map,
            range: Range::Auto,
        })
    }

    /// A `float2` field as hue (direction) and brightness (magnitude), auto range.
    pub fn vector() -> View {
        View::of(ViewKind::Vector { range: Range::Auto })
    }

    /// A `float3`/`float4` stream as colours.
    pub fn rgb() -> View {
        View::of(ViewKind::Rgb)
    }

    /// A `float4` stream as colours with alpha.
    pub fn rgba() -> View {
        View::of(ViewKind::Rgba)
    }

    /// A line plot of the elements in order, auto range.
    pub fn plot() -> View {
        View::of(ViewKind::Plot { range: Range::Auto })
    }

    /// Points at (component 0, component 1) of each element, auto bounds.
    pub fn points() -> View {
        View::of(ViewKind::Points {
            x: Range::Auto,
            y: Range::Auto,
        })
    }

    /// The same view over a fixed range (the y range of a plot, the magnitude range of a
    /// vector field, both axes of points). Views without a range (RGB) ignore it.
    pub fn with_range(mut self, lo: f32, hi: f32) -> View {
        let fixed = Range::Fixed(lo, hi);
        match &mut self.kind {
            ViewKind::Scalar { range, .. }
            | ViewKind::Vector { range }
            | ViewKind::Plot { range } => *range = fixed,
            ViewKind::Points { x, y } => (*x, *y) = (fixed, fixed),
            ViewKind::Rgb | ViewKind::Rgba => {}
        }
        self
    }

    /// Points inside `x` × `y` (fixed bounds per axis).
    pub fn with_bounds(mut self, x: (f32, f32), y: (f32, f32)) -> View {
        if let ViewKind::Points { x: vx, y: vy } = &mut self.kind {
            *vx = Range::Fixed(x.0, x.1);
            *vy = Range::Fixed(y.0, y.1);
        }
        self
    }

    /// The same view of struct member `member`.
    pub fn of_member(mut self, member: usize) -> View {
        self.member = member;
        self
    }

    /// The same view of component `component` (0 = `.x`) for scalar views and plots.
    pub fn of_component(mut self, component: u8) -> View {
        self.component = component;
        self
    }

    /// The fewest components the viewed member must have.
    pub(crate) fn components_needed(&self) -> u8 {
        match self.kind {
            ViewKind::Scalar { .. } | ViewKind::Plot { .. } => self.component + 1,
            ViewKind::Vector { .. } | ViewKind::Points { .. } => 2,
            ViewKind::Rgb => 3,
            ViewKind::Rgba => 4,
        }
    }

    /// Whether the view is an image of the element grid (else it fills its rectangle).
    pub(crate) fn is_image(&self) -> bool {
        !matches!(self.kind, ViewKind::Plot { .. } | ViewKind::Points { .. })
    }

    /// The width / height an image view of a stream of `shape` keeps (its last extent
    /// columns, the other elements as rows); `None` for views that fill their rectangle.
    pub(crate) fn aspect(&self, shape: &[usize]) -> Option<f32> {
        let count: usize = shape.iter().product();
        let columns = shape.last().copied().unwrap_or(1).max(1);
        let rows = (count / columns).max(1);
        self.is_image().then(|| columns as f32 / rows as f32)
    }
}

impl View {
    /// Checks that the view fits a stream of `format`; the viewed member's component count.
    pub(crate) fn check(&self, format: &brook::ElementFormat) -> Result<u8, crate::VizError> {
        let members = format.members();
        let member = members.get(self.member).ok_or_else(|| {
            crate::VizError::Usage(format!(
                "the view shows member {} but the stream's elements have {} member(s)",
                self.member,
                members.len()
            ))
        })?;
        if member.components < self.components_needed() {
            return Err(crate::VizError::Usage(format!(
                "a {:?} view of component {} needs at least {} components, but the member has {}",
                self.kind,
                self.component,
                self.components_needed(),
                member.components
            )));
        }
        Ok(member.components)
    }
}
