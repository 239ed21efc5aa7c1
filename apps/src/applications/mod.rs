//! The applications, in the order the report prints them.

mod bitonic;
mod fft;
mod ray;
mod saxpy;

use crate::app::App;

/// Every application of the suite.
pub fn all() -> Vec<Box<dyn App>> {
    vec![
        Box::new(saxpy::Saxpy),
        Box::new(fft::Fft),
        Box::new(ray::Ray),
        Box::new(bitonic::Bitonic),
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
