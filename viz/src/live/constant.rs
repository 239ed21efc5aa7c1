//! Kernel constants a simulation lets the viewer steer: each is a slider in the window's
//! panel, and the simulation passes its current value to its kernels every step.

use std::ops::RangeInclusive;

use crate::error::VizError;

/// A named `float` constant with its range and default, owned by the simulation.
///
/// The simulation keeps its constants (a `Vec` or an array of them), hands them to the
/// panel through [`Simulation::constants`](crate::Simulation::constants), and reads
/// [`value`](Constant::value) in `step`, so a slider moved in one frame reaches the kernels
/// in the next step.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    name: String,
    min: f32,
    max: f32,
    default: f32,
    value: f32,
}

impl Constant {
    /// A constant called `name`, between `range`'s ends, starting at `default`. The window
    /// checks the declaration when it starts (see [`check`](Constant::check)).
    pub fn new(name: &str, range: RangeInclusive<f32>, default: f32) -> Constant {
        Constant {
            name: name.to_string(),
            min: *range.start(),
            max: *range.end(),
            default,
            value: default,
        }
    }

    /// The label of its slider.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value the kernels get now.
    pub fn value(&self) -> f32 {
        self.value
    }

    /// The values the slider can take.
    pub fn range(&self) -> RangeInclusive<f32> {
        self.min..=self.max
    }

    /// The value it starts with, and returns to on reset.
    pub fn default_value(&self) -> f32 {
        self.default
    }

    /// Sets the value, clamped into the range (a slider cannot leave it, a script could).
    pub fn set(&mut self, value: f32) {
        self.value = value.clamp(self.min, self.max);
    }

    /// Back to the default.
    pub fn reset(&mut self) {
        self.value = self.default;
    }

    /// A usable declaration: finite ends with `min < max`, and the default inside them.
    pub fn check(&self) -> Result<(), VizError> {
        let finite = self.min.is_finite() && self.max.is_finite() && self.default.is_finite();
        if !finite || self.min >= self.max || !(self.min..=self.max).contains(&self.default) {
            return Err(VizError::Usage(format!(
                "constant `{}`: the range must be finite with min < max and hold the default \
                 (got {}..={}, default {})",
                self.name, self.min, self.max, self.default
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_in_range_and_bad_declarations_are_named() {
        let mut feed = Constant::new("feed", 0.0..=0.1, 0.05);
        assert!(feed.check().is_ok());
        feed.set(0.5);
        assert_eq!(feed.value(), 0.1);
        feed.set(-1.0);
        assert_eq!(feed.value(), 0.0);
        feed.reset();
        assert_eq!(feed.value(), 0.05);
        for bad in [
            Constant::new("k", 1.0..=0.0, 0.5),
            Constant::new("k", 0.0..=1.0, 2.0),
            Constant::new("k", 0.0..=f32::INFINITY, 0.5),
            Constant::new("k", 0.0..=1.0, f32::NAN),
        ] {
            let error = bad.check().unwrap_err().to_string();
            assert!(error.contains("constant `k`"), "{error}");
        }
    }
}
