//! Address translation checked element by element, with no GL: every index
//! maps to a distinct texel inside the texture, and back.

use brook_texture_streams::{Layout, StoreError};

/// Checks the bijection index ↔ linear ↔ texel for every element of `shape`.
fn assert_bijection(shape: &[usize], max: u32) -> Layout {
    let layout = Layout::new(shape, max).unwrap();
    let (width, height) = (layout.width(), layout.height());
    assert!(
        width <= max && height <= max,
        "{shape:?}: {width}x{height} over {max}"
    );
    let texels = width as usize * height as usize;
    assert!(
        texels >= layout.len(),
        "{shape:?}: {texels} texels for {} elements",
        layout.len()
    );
    assert!(
        texels - layout.len() < width as usize,
        "{shape:?}: a whole padding row"
    );
    let mut seen = vec![false; texels];
    let mut index = vec![0; shape.len()];
    for linear in 0..layout.len() {
        // Row-major order: the odometer with the last dimension fastest.
        assert_eq!(layout.linear_index(&index), linear, "{shape:?} {index:?}");
        assert_eq!(layout.index_of_linear(linear), index, "{shape:?} {linear}");
        let (x, y) = layout.texel_of(&index);
        assert_eq!((x, y), layout.texel_of_linear(linear));
        assert!(x < width && y < height);
        let texel = y as usize * width as usize + x as usize;
        assert_eq!(texel, linear, "texel = (L mod W, L div W)");
        assert!(!seen[texel], "{shape:?}: texel ({x}, {y}) used twice");
        seen[texel] = true;
        if !layout.is_translated() {
            let row = if shape.len() == 2 { index[0] } else { 0 };
            assert_eq!((x as usize, y as usize), (index[shape.len() - 1], row));
        }
        for k in (0..shape.len()).rev() {
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    layout
}

#[test]
fn one_d_around_the_limit() {
    for n in [1, 2, 15, 16] {
        assert!(!assert_bijection(&[n], 16).is_translated(), "{n}");
    }
    for n in [17, 31, 33, 100, 127, 200, 255, 256] {
        assert!(assert_bijection(&[n], 16).is_translated(), "{n}");
    }
    assert_eq!(Layout::new(&[256], 16).unwrap().width(), 16);
    assert!(matches!(
        Layout::new(&[257], 16),
        Err(StoreError::TooLarge { .. })
    ));
    // The same lengths with room to spare, and a long one.
    for n in [17, 255, 256, 257, 1000, 4093] {
        assert_bijection(&[n], 64);
    }
}

#[test]
fn two_d_direct_and_over_the_limit() {
    for shape in [[1, 1], [3, 5], [16, 16], [16, 1], [1, 16], [7, 13]] {
        assert!(!assert_bijection(&shape, 16).is_translated(), "{shape:?}");
    }
    for shape in [[1, 17], [17, 1], [2, 20], [3, 31], [5, 51]] {
        assert!(assert_bijection(&shape, 16).is_translated(), "{shape:?}");
    }
}

#[test]
fn three_and_four_d_with_prime_extents() {
    for shape in [
        &[3, 5, 7][..],
        &[5, 7, 11],
        &[2, 3, 5, 7],
        &[1, 1, 1],
        &[7, 1, 3],
        &[2, 2, 2, 2],
    ] {
        assert!(assert_bijection(shape, 32).is_translated(), "{shape:?}");
    }
    assert_bijection(&[2, 3, 5, 7], 16);
    assert_bijection(&[3, 5, 7], 16);
    assert_bijection(&[11, 13, 17], 64);
    assert_bijection(&[3, 5, 7, 11], 64);
}

#[test]
fn strides_are_row_major() {
    let layout = Layout::new(&[2, 3, 5, 7], 64).unwrap();
    assert_eq!(layout.strides(), vec![105, 35, 7, 1]);
    assert_eq!(layout.linear_index(&[1, 2, 3, 4]), 105 + 70 + 21 + 4);
    assert_eq!(layout.rank(), 4);
    assert_eq!(layout.len(), 210);
}
