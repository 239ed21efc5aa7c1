//! Which texel rectangles hold a domain, so it can be moved with a few
//! `texSubImage2D`/`readPixels` calls instead of one per element. Pure
//! arithmetic on a [`Layout`]; no GL.
//!
//! A domain splits into *runs*: maximal sets of elements that are consecutive
//! both in linear index and in the domain's row-major order (the innermost
//! partial dimension together with every full dimension inside it). In a
//! translated layout a run of linear indices `[a, b)` covers, texel row by
//! texel row, at most three rectangles: the tail of `a`'s row, the full rows
//! between, and the head of `b`'s row. In a direct layout the whole domain is
//! already one rectangle (columns × rows).
//!
//! Every rectangle's texels, read row by row, are consecutive elements of the
//! domain, starting at [`Span::first`].

use std::ops::Range;

use brook_core::Domain;

use crate::layout::Layout;

/// A rectangle of texels: `width × height` starting at `(x, y)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexelRect {
    /// Leftmost column.
    pub x: u32,
    /// Lowest row.
    pub y: u32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl TexelRect {
    /// The number of texels in the rectangle.
    pub fn texels(&self) -> usize {
        self.width as usize * self.height as usize
    }
}

/// A rectangle of texels and where its elements start in the domain's row-major order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub rect: TexelRect,
    /// Domain-order index of the rectangle's first texel.
    pub first: usize,
}

impl Span {
    /// The floats of this span's elements in a host array of the domain with
    /// `stride` floats per element.
    pub fn host_floats(&self, stride: usize) -> Range<usize> {
        self.first * stride..(self.first + self.rect.texels()) * stride
    }
}

/// The rectangles covering `domain` exactly once, in domain order. The domain
/// must fit the layout ([`Domain::fits`]).
pub(crate) fn texel_spans(layout: &Layout, domain: &Domain) -> Vec<Span> {
    if !layout.is_translated() {
        return vec![Span {
            rect: direct_rect(domain),
            first: 0,
        }];
    }
    let mut spans = Vec::new();
    let mut first = 0;
    for (start, len) in runs(layout, domain) {
        push_run(&mut spans, layout.width() as usize, start, len, first);
        first += len;
    }
    spans
}

/// The rectangle of a domain of a direct (1D or 2D, texel = (column, row)) layout.
fn direct_rect(domain: &Domain) -> TexelRect {
    let (lo, hi) = (domain.lo(), domain.hi());
    let last = lo.len() - 1;
    let (y, height) = if last == 1 {
        (lo[0], hi[0] - lo[0])
    } else {
        (0, 1)
    };
    TexelRect {
        x: lo[last] as u32,
        y: y as u32,
        width: (hi[last] - lo[last]) as u32,
        height: height as u32,
    }
}

/// The runs of `domain` as `(first linear index, length)`, in domain order.
fn runs(layout: &Layout, domain: &Domain) -> Vec<(usize, usize)> {
    let shape = layout.shape();
    let strides = layout.strides();
    let (lo, hi) = (domain.lo(), domain.hi());
    // `inner` is the outermost dimension of a run: every dimension inside it is full.
    let mut inner = shape.len() - 1;
    while inner > 0 && lo[inner] == 0 && hi[inner] == shape[inner] {
        inner -= 1;
    }
    let len = (hi[inner] - lo[inner]) * strides[inner];
    // Odometer over the dimensions outside the run.
    let mut outer: Vec<usize> = lo[..inner].to_vec();
    let mut runs = Vec::new();
    loop {
        let base: usize = outer.iter().zip(&strides).map(|(i, s)| i * s).sum();
        runs.push((base + lo[inner] * strides[inner], len));
        let Some(k) = (0..inner).rev().find(|&k| outer[k] + 1 < hi[k]) else {
            return runs;
        };
        outer[k] += 1;
        outer[k + 1..].copy_from_slice(&lo[k + 1..inner]);
    }
}

/// Appends the ≤ 3 rectangles of the linear run `[start, start + len)` in a
/// texture `width` wide: tail of the first row, full rows, head of the last row.
fn push_run(spans: &mut Vec<Span>, width: usize, start: usize, len: usize, first: usize) {
    let end = start + len;
    let mut pos = start;
    let mut push = |pos: usize, columns: usize, rows: usize| {
        spans.push(Span {
            rect: TexelRect {
                x: (pos % width) as u32,
                y: (pos / width) as u32,
                width: columns as u32,
                height: rows as u32,
            },
            first: first + (pos - start),
        });
    };
    if !pos.is_multiple_of(width) {
        let columns = (width - pos % width).min(end - pos);
        push(pos, columns, 1);
        pos += columns;
    }
    let rows = (end - pos) / width;
    if rows > 0 {
        push(pos, width, rows);
        pos += rows * width;
    }
    if pos < end {
        push(pos, end - pos, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every texel of every span holds the domain element its position in the
    /// span says, and the spans cover the domain exactly once.
    fn assert_covers(shape: &[usize], max: u32, lo: &[usize], hi: &[usize]) -> Vec<Span> {
        let layout = Layout::new(shape, max).unwrap();
        let domain = Domain::new(lo, hi).unwrap();
        domain.fits(layout.shape()).unwrap();
        let spans = texel_spans(&layout, &domain);
        let dshape = domain.shape();
        let mut seen = vec![false; domain.len()];
        for span in &spans {
            let rect = span.rect;
            assert!(
                rect.x + rect.width <= layout.width(),
                "{rect:?} in {shape:?}"
            );
            assert!(
                rect.y + rect.height <= layout.height(),
                "{rect:?} in {shape:?}"
            );
            for t in 0..rect.texels() {
                let x = rect.x as usize + t % rect.width as usize;
                let y = rect.y as usize + t / rect.width as usize;
                let linear = y * layout.width() as usize + x;
                let index = layout.index_of_linear(linear);
                // The domain-order position of this element.
                let mut position = 0;
                for k in 0..index.len() {
                    assert!(
                        lo[k] <= index[k] && index[k] < hi[k],
                        "{index:?} outside domain"
                    );
                    position = position * dshape[k] + (index[k] - lo[k]);
                }
                assert_eq!(position, span.first + t, "{shape:?} {lo:?}..{hi:?}");
                assert!(!seen[position], "element {position} covered twice");
                seen[position] = true;
            }
        }
        assert!(seen.iter().all(|&s| s), "domain not covered");
        spans
    }

    #[test]
    fn direct_domain_is_one_rectangle() {
        let spans = assert_covers(&[10, 12], 16, &[5, 3], &[10, 9]);
        assert_eq!(
            spans,
            vec![Span {
                rect: TexelRect {
                    x: 3,
                    y: 5,
                    width: 6,
                    height: 5
                },
                first: 0
            }]
        );
        assert_eq!(assert_covers(&[13], 16, &[2], &[11]).len(), 1);
    }

    #[test]
    fn translated_1d_run_is_at_most_three_rectangles() {
        // 257 elements, max 32: 9 rows of 29 (last row 25 elements).
        for (lo, hi) in [
            (0, 257),
            (3, 250),
            (5, 9),
            (29, 87),
            (28, 30),
            (0, 1),
            (256, 257),
        ] {
            let spans = assert_covers(&[257], 32, &[lo], &[hi]);
            assert!(spans.len() <= 3, "{lo}..{hi}: {spans:?}");
        }
        assert_eq!(assert_covers(&[257], 32, &[0], &[257]).len(), 2);
        assert_eq!(assert_covers(&[257], 32, &[3], &[250]).len(), 3);
    }

    #[test]
    fn translated_full_stream_is_at_most_two_rectangles() {
        for shape in [
            &[3, 5, 7][..],
            &[2, 3, 5, 7],
            &[17],
            &[255],
            &[256],
            &[5, 7, 11],
        ] {
            let layout = Layout::new(shape, 32).unwrap();
            let full = Domain::full(layout.shape());
            let spans = assert_covers(shape, 32, full.lo(), full.hi());
            assert!(spans.len() <= 2, "{shape:?}: {spans:?}");
        }
    }

    #[test]
    fn translated_3d_and_4d_boxes() {
        assert_covers(&[3, 5, 7], 16, &[1, 1, 2], &[3, 4, 6]);
        assert_covers(&[3, 5, 7], 16, &[1, 0, 0], &[2, 5, 7]);
        assert_covers(&[3, 5, 7], 16, &[0, 2, 0], &[3, 3, 7]);
        assert_covers(&[2, 3, 5, 7], 16, &[1, 1, 1, 1], &[2, 3, 4, 6]);
        assert_covers(&[2, 3, 5, 7], 16, &[0, 1, 0, 0], &[2, 2, 5, 7]);
        assert_covers(&[5, 7, 11], 32, &[2, 3, 4], &[5, 7, 11]);
    }

    #[test]
    fn translated_wide_2d_rows() {
        // 2 x 20 with max 16 is translated: 14 x 3 texels.
        assert_covers(&[2, 20], 16, &[0, 3], &[2, 17]);
        assert_covers(&[2, 20], 16, &[1, 0], &[2, 20]);
    }
}
