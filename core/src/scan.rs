//! The levels of the work-efficient exclusive scan that packs `vout` pushes (004 §3.3.3,
//! Blelloch): the up-sweep halves the push counts level by level into pair sums until one
//! element, their total, is left; the down-sweep walks back down to each element's offset.
//! Every backend that packs vouts in passes or dispatches runs these levels.

/// The element counts of the scan's levels over `elements` push counts: level 0 is the counts
/// themselves, each next level `⌈n / 2⌉` of the one before, the last one element. There is
/// always at least one level above the counts, so the total is never the counts' own texel.
pub fn scan_levels(elements: usize) -> Vec<usize> {
    let mut levels = vec![elements];
    loop {
        let next = levels[levels.len() - 1].div_ceil(2);
        levels.push(next);
        if next <= 1 {
            return levels;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scan_levels;

    #[test]
    fn levels_halve_down_to_one() {
        assert_eq!(scan_levels(100), [100, 50, 25, 13, 7, 4, 2, 1]);
        assert_eq!(scan_levels(1), [1, 1]);
        assert_eq!(scan_levels(2), [2, 1]);
    }
}
