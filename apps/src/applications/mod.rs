//! The applications, in the order the report prints them.

mod bitonic;
mod chain;
mod convolve;
mod fft;
mod gemv;
mod hand_fold;
mod histogram;
mod histogram_wgpu;
mod lanes;
mod life;
mod matmul;
mod ray;
mod rotate;
mod sasum;
mod saxpy;
mod scan;
mod segment;
mod wgpu_fold;
mod wgpu_one_pass;

use crate::app::App;

/// Every application of the suite.
pub fn all() -> Vec<Box<dyn App>> {
    vec![
        // Brook (001 Fig. 3, 000 Fig. 6.3).
        Box::new(saxpy::Saxpy),
        Box::new(gemv::Gemv::SGEMV),
        Box::new(gemv::Gemv::SGEMV_GATHER),
        Box::new(segment::Segment::ACCURATE),
        Box::new(segment::Segment::FAST_MATH),
        Box::new(fft::Fft),
        Box::new(ray::Ray),
        // Sorting and scans (000 §7.1, 004).
        Box::new(bitonic::Bitonic),
        Box::new(scan::Scan),
        Box::new(histogram::Histogram),
        // Accelerator's table (003).
        Box::new(sasum::Sasum),
        Box::new(gemv::Gemv::MATVEC),
        Box::new(matmul::Matmul),
        Box::new(life::Life),
        Box::new(convolve::Convolve),
        Box::new(rotate::Rotate),
    ]
}

/// The applications whose names are in `names` (case-insensitive), or why one is unknown.
pub fn named(names: &[String]) -> Result<Vec<Box<dyn App>>, String> {
    let mut chosen = Vec::new();
    for name in names {
        let app = all()
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let known: Vec<_> = all().iter().map(|a| a.name()).collect();
                format!("no application `{name}`; there are {}", known.join(", "))
            })?;
        chosen.push(app);
    }
    Ok(chosen)
}
