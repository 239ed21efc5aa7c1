//! Brook's `streamPrint`, in the original runtime's exact format.
//!
//! Each value prints as C's `%3.2f`, except that |x| < 1e-6 prints `0.00` (so `-0.0` and
//! tiny noise print as zero), NaN prints `NaN` and either infinity `inf`. A one-component
//! element is followed by one space; a multi-component element (a vector or a struct, all its
//! floats in C layout) prints as `{a, b, c}` with nothing between elements. A newline follows
//! every `extent[last]` elements, so a 2D stream prints row by row.

/// One value as `streamPrint` writes it.
pub fn format_value(x: f32) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        "inf".into()
    } else if x.abs() < 1e-6 {
        "0.00".into()
    } else {
        format!("{x:3.2}")
    }
}

/// A whole stream: `data` in host layout, `floats` per element, extents `shape`.
pub fn format_stream(data: &[f32], floats: usize, shape: &[usize]) -> String {
    let row = shape.last().copied().unwrap_or(1).max(1);
    let mut out = String::new();
    for (i, element) in data.chunks(floats.max(1)).enumerate() {
        if floats == 1 {
            out.push_str(&format_value(element[0]));
            out.push(' ');
        } else {
            let parts: Vec<String> = element.iter().map(|&x| format_value(x)).collect();
            out.push('{');
            out.push_str(&parts.join(", "));
            out.push('}');
        }
        if (i + 1) % row == 0 {
            out.push('\n');
        }
    }
    out
}
