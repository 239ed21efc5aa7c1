//! The timeline of a long run: repeated operations grouped, and most of a long group's cards
//! left out, so a program of thousands of calls gives a page a browser opens at once and a
//! site of bounded size.
//!
//! A group is a block of trace entries repeated back to back: the same call again and again
//! (`step` × 5,000), or a short cycle of them (`step`, `streamSwap`, `step`, `streamSwap`, …;
//! cycles of up to [`MAX_CYCLE`] entries). Entries are alike when they are the same kind of
//! operation of the same Brook function (defined at the same line) with the same variant.
//! A group of more than `2 × KEEP` repetitions keeps the cards of its first and last [`KEEP`]
//! repetitions; the others are listed in the timeline (their time and any difference between
//! backends) without a card. The cards kept show what every repetition does; the ones left out
//! would repeat them with other numbers.

use brook_core::TraceEntry;

use crate::cards::Outline;

/// The longest cycle of entries recognised as one repetition.
pub const MAX_CYCLE: usize = 4;
/// Repetitions drawn at each end of a long group.
pub const KEEP: usize = 3;

/// A run of repetitions, as the timeline shows it.
pub struct Group {
    /// What one repetition is, e.g. `kernel `step` → streamSwap`.
    pub title: String,
    pub repetitions: usize,
    pub entries: Vec<Outline>,
    /// Entries of the group without a card.
    pub left_out: usize,
    /// Elements that differ between backends, in all of the group's operations.
    pub differing: usize,
}

/// What makes two entries alike.
fn key(entry: &TraceEntry) -> String {
    match entry {
        TraceEntry::Kernel(c)
        | TraceEntry::Reduce(c)
        | TraceEntry::Scatter(c)
        | TraceEntry::GatherOp(c)
        | TraceEntry::WriteMask(c) => format!(
            "{:?} {} {:?} {}",
            std::mem::discriminant(entry),
            c.function,
            c.source_line,
            c.variant
        ),
        TraceEntry::Vout(v) => format!("vout {} {}", v.kernel, v.vout),
        other => format!("{:?}", std::mem::discriminant(other)),
    }
}

/// The groups of `trace`: (first entry, cycle length, repetitions), covering it in order.
pub fn groups_of(trace: &[TraceEntry]) -> Vec<(usize, usize, usize)> {
    let keys: Vec<String> = trace.iter().map(key).collect();
    let mut groups = Vec::new();
    let mut at = 0;
    while at < keys.len() {
        let repeats = |cycle: usize| {
            let block = &keys[at..(at + cycle).min(keys.len())];
            keys[at..].chunks(cycle).take_while(|c| *c == block).count()
        };
        // The cycle covering the most entries; the shortest among equals.
        let (cycle, count) = (1..=MAX_CYCLE.min(keys.len() - at))
            .map(|c| (c, repeats(c)))
            .max_by_key(|&(c, r)| (if r > 1 { c * r } else { 0 }, std::cmp::Reverse(c)))
            .unwrap_or((1, 1));
        let (cycle, count) = if count > 1 { (cycle, count) } else { (1, 1) };
        groups.push((at, cycle, count));
        at += cycle * count;
    }
    groups
}

/// Which entries get a card: all but the middle repetitions of long groups.
pub fn drawn(trace: &[TraceEntry]) -> Vec<bool> {
    let mut drawn = vec![true; trace.len()];
    for (first, cycle, count) in groups_of(trace) {
        if count > 2 * KEEP {
            drawn[first + KEEP * cycle..first + (count - KEEP) * cycle].fill(false);
        }
    }
    drawn
}

/// The timeline: `outline` (one per trace entry) in its groups.
pub fn timeline(trace: &[TraceEntry], outline: &[Outline]) -> Vec<Group> {
    groups_of(trace)
        .into_iter()
        .map(|(first, cycle, count)| {
            let entries = outline[first..first + cycle * count].to_vec();
            let title = entries[..cycle]
                .iter()
                .map(|o| o.title.as_str())
                .collect::<Vec<_>>()
                .join(" → ");
            Group {
                title,
                repetitions: count,
                left_out: entries.iter().filter(|o| !o.drawn).count(),
                differing: entries.iter().map(|o| o.differing).sum(),
                entries,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use brook_core::CallTrace;

    fn call(name: &str) -> TraceEntry {
        TraceEntry::Kernel(CallTrace {
            function: name.into(),
            source_line: Some(1),
            variant: "v".into(),
            compiled: None,
            scratch: Vec::new(),
            passes: Vec::new(),
        })
    }

    fn swap() -> TraceEntry {
        TraceEntry::Swap {
            first: vec![1],
            second: vec![2],
        }
    }

    #[test]
    fn repeated_calls_and_cycles_are_grouped() {
        let mut trace = vec![call("init")];
        for _ in 0..10 {
            trace.push(call("step"));
            trace.push(swap());
        }
        trace.push(call("sum"));
        trace.push(call("sum"));
        assert_eq!(groups_of(&trace), [(0, 1, 1), (1, 2, 10), (21, 1, 2)]);
        let drawn = drawn(&trace);
        // The first and last three repetitions of the cycle keep their cards.
        assert_eq!(drawn.iter().filter(|d| !**d).count(), 8);
        assert!(drawn[..7].iter().all(|d| *d) && !drawn[7] && !drawn[14] && drawn[15]);
        assert!(drawn[21] && drawn[22], "a short group is drawn whole");
    }

    #[test]
    fn a_run_without_repetition_is_one_group_per_entry() {
        let trace = vec![call("a"), call("b"), call("c")];
        assert_eq!(groups_of(&trace), [(0, 1, 1), (1, 1, 1), (2, 1, 1)]);
        assert!(drawn(&trace).iter().all(|d| *d));
    }
}
