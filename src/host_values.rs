//! Host-side values every backend shares: an iterator's elements.

use brook_texture_streams::{Domain, IterSpec};

use crate::error::BrookError;

/// Writes an iterator's values (or a domain of them) to `out` in C layout.
pub fn write_iter(
    spec: &IterSpec,
    domain: Option<&Domain>,
    out: &mut [f32],
) -> Result<(), BrookError> {
    let n = spec.components() as usize;
    let values = spec.values();
    let shape = spec.shape();
    let picked: Vec<f32> = match domain {
        None => values,
        Some(d) => domain_elements(shape, d)
            .flat_map(|linear| values[linear * n..(linear + 1) * n].to_vec())
            .collect(),
    };
    if out.len() != picked.len() {
        return Err(BrookError::Usage(format!(
            "streamWrite needs a host array of {} floats, got {}",
            picked.len(),
            out.len()
        )));
    }
    out.copy_from_slice(&picked);
    Ok(())
}

/// Linear (row-major) positions of a domain's elements, in row-major order.
pub fn domain_elements<'a>(
    shape: &'a [usize],
    domain: &'a Domain,
) -> impl Iterator<Item = usize> + 'a {
    let sub = domain.shape();
    let count: usize = sub.iter().product();
    (0..count).map(move |k| {
        let mut rest = k;
        let mut linear = 0;
        let mut stride = 1;
        let mut offsets = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            offsets[d] = rest % sub[d] + domain.lo()[d];
            rest /= sub[d];
        }
        for d in (0..shape.len()).rev() {
            linear += offsets[d] * stride;
            stride *= shape[d];
        }
        linear
    })
}
