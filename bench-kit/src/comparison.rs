//! A comparison of variants of one piece of work: checked, measured by criterion one by one,
//! then timed side by side in rotated rounds.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::Criterion;

use crate::check::{check, Tolerance};
use crate::rounds::rounds;
use crate::table::{Row, Table};

/// One way of doing the work.
pub struct Variant<'a> {
    /// Its name in the table and in criterion's report.
    pub name: String,
    /// Runs `n` calls and waits until the device has finished them: what is timed.
    pub run: Box<dyn FnMut(u64) + 'a>,
    /// The variant's current result, read back (never timed).
    pub result: Box<dyn FnMut() -> Vec<f32> + 'a>,
}

impl<'a> Variant<'a> {
    /// A variant from its timed `run(n)` and its untimed `result` read-back.
    pub fn new(
        name: impl Into<String>,
        run: impl FnMut(u64) + 'a,
        result: impl FnMut() -> Vec<f32> + 'a,
    ) -> Self {
        Variant {
            name: name.into(),
            run: Box::new(run),
            result: Box::new(result),
        }
    }

    /// A variant whose every call returns its result (a reduction read back, a loop's output
    /// copied): it runs `call` `n` times and keeps the last result for the check.
    pub fn returning(name: impl Into<String>, mut call: impl FnMut() -> Vec<f32> + 'a) -> Self {
        let last = Rc::new(RefCell::new(Vec::new()));
        let kept = last.clone();
        Variant::new(
            name,
            move |n| {
                for _ in 0..n {
                    *last.borrow_mut() = call();
                }
            },
            move || kept.borrow().clone(),
        )
    }
}

/// Variants of one piece of work; the first is the baseline of the ratios.
pub struct Comparison<'a> {
    group: String,
    /// What one call is ("per call", "per sort"), for the table's heading.
    per: &'static str,
    variants: Vec<Variant<'a>>,
    /// Calls the check runs on each variant's fresh state before reading its result.
    check_calls: u64,
    expected: Vec<f64>,
    tolerance: Tolerance,
    rounds: usize,
    /// Seconds a round should take per variant (the batch is sized from the slowest).
    round_seconds: f64,
    measurement: Duration,
}

impl<'a> Comparison<'a> {
    /// `expected` is the result every variant must give after `check_calls` calls from its
    /// fresh state, within `tolerance`.
    pub fn new(
        group: impl Into<String>,
        per: &'static str,
        check_calls: u64,
        expected: Vec<f64>,
        tolerance: Tolerance,
    ) -> Self {
        Comparison {
            group: group.into(),
            per,
            variants: Vec::new(),
            check_calls,
            expected,
            tolerance,
            rounds: 15,
            round_seconds: 0.05,
            measurement: Duration::from_secs(2),
        }
    }

    /// Adds a variant (the first one added is the baseline).
    pub fn variant(mut self, v: Variant<'a>) -> Self {
        self.variants.push(v);
        self
    }

    /// Criterion's measurement time per variant (default 2 s); larger work wants more.
    pub fn measurement_time(mut self, t: Duration) -> Self {
        self.measurement = t;
        self
    }

    /// Time of each variant's batch in a rotated round (default 50 ms; the batch is sized from
    /// the slowest variant): longer rounds average out a loaded machine's preemptions, which
    /// can stretch a single millisecond-long call tenfold.
    pub fn round_time(mut self, t: Duration) -> Self {
        self.round_seconds = t.as_secs_f64();
        self
    }

    /// Checks every variant, lets criterion measure each, then times them in rotated rounds.
    ///
    /// # Panics
    /// When a variant's result is wrong: a figure for wrong work must not be printed.
    pub fn run(mut self, c: &mut Criterion) -> Table {
        for v in &mut self.variants {
            (v.run)(self.check_calls);
            let got = (v.result)();
            if let Err(e) = check(&v.name, &got, &self.expected, self.tolerance) {
                panic!("{}: {e}", self.group);
            }
        }
        let mut group = c.benchmark_group(&self.group);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(self.measurement);
        // Criterion calls a benchmark's routine only when the command line's filter selects it
        // (`cargo bench --bench compare -- knee`); a group it selected none of is not timed.
        let mut measured = false;
        for v in &mut self.variants {
            group.bench_function(v.name.as_str(), |b| {
                measured = true;
                b.iter_custom(|n| {
                    let start = Instant::now();
                    (v.run)(n);
                    start.elapsed()
                })
            });
        }
        group.finish();
        if criterion_test_mode() || !measured {
            // `cargo bench -- --test`: every variant was checked and run once; no figures.
            // Filtered out: checked only, so the rotated rounds time just the chosen groups.
            return Table {
                group: self.group,
                per: self.per,
                rounds: 0,
                batch: 0,
                rows: Vec::new(),
            };
        }
        let slowest = self
            .variants
            .iter_mut()
            .map(|v| {
                let start = Instant::now();
                (v.run)(1);
                start.elapsed().as_secs_f64()
            })
            .fold(0.0, f64::max);
        let batch = ((self.round_seconds / slowest.max(1e-9)) as u64).clamp(1, 100_000);
        let variants = &mut self.variants;
        let per_call = rounds(variants.len(), self.rounds, batch, |v, n| {
            let start = Instant::now();
            (variants[v].run)(n);
            start.elapsed()
        });
        let rows = variants
            .iter()
            .zip(&per_call)
            .map(|(v, times)| Row::new(&v.name, times, &per_call[0]))
            .collect();
        let table = Table {
            group: self.group,
            per: self.per,
            rounds: self.rounds,
            batch,
            rows,
        };
        println!("{table}");
        table
    }
}

/// Whether criterion runs each benchmark once to test it (`cargo bench -- --test`), when the
/// rotated rounds are skipped as well.
fn criterion_test_mode() -> bool {
    std::env::args().any(|a| a == "--test")
}
