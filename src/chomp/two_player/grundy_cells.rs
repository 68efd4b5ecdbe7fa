//! The Grundy value of every Young diagram of at most N cells, with no box: Chomp on Ferrers
//! diagrams as FindStat's statistic St000681 lists it (docs/mathematics.md §5b).
//!
//! The diagrams of n cells are the partitions of n; every option of one has fewer cells, so
//! the values of n = 1, 2, … follow each other, each the mex of its non-empty options' values.
//! They come in FindStat's order: by n, and the partitions of one n in reverse lexicographic
//! order (`[4]`, `[3,1]`, `[2,2]`, `[2,1,1]`, `[1,1,1,1]`).
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs (against the box engine of
//! `grundy` and the published start of St000681) and the command in tests/games/tables.rs.

use crate::chomp::diagram::Diagram;
use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};

/// The most cells [`by_cells`] takes: 1,295,970 partitions, 2.4 min and 280 MB on two busy cores.
pub const MAX_CELLS: u32 = 50;

/// The partitions of every n ≤ `max` with their Grundy values, n ascending and each n's
/// partitions in reverse lexicographic order. Refuses `max` of 0 (no partition to list) or
/// above [`MAX_CELLS`].
pub fn by_cells(max: u32) -> Result<Vec<(Diagram, u16)>> {
    if max == 0 || max > MAX_CELLS {
        return Err(Error::bad_input(
            crate::Input::ListedCells,
            max,
            format!("from 1 to {MAX_CELLS}"),
        ));
    }
    let mut value: HashMap<Vec<u32>, u16> = HashMap::new();
    let (mut out, mut seen) = (Vec::new(), HashSet::new());
    for rows in (1..=max).flat_map(partitions) {
        let p = Diagram::new(rows).expect("a partition's parts do not increase");
        seen.clear();
        let options = p.options().into_iter().filter(|q| !q.is_empty());
        seen.extend(options.map(|q| value[q.rows()]));
        let g = (0..).find(|g| !seen.contains(g)).expect("a value is free");
        value.insert(p.rows().to_vec(), g);
        out.push((p, g));
    }
    Ok(out)
}

/// The partitions of `n` ≥ 1 (parts non-increasing) in reverse lexicographic order, from `[n]`
/// to `[1, …, 1]`.
pub fn partitions(n: u32) -> impl Iterator<Item = Vec<u32>> {
    std::iter::successors((n > 0).then(|| vec![n]), |p| {
        // The ones at the end and a cell of the last part above one, laid out again in
        // parts at most that part's new size.
        let ones = p.iter().rev().take_while(|&&a| a == 1).count();
        let mut parts = p[..p.len() - ones].to_vec();
        let last = parts.last_mut()?;
        *last -= 1;
        let (cap, rest) = (*last, ones as u32 + 1);
        parts.extend(std::iter::repeat_n(cap, (rest / cap) as usize));
        parts.extend(Some(rest % cap).filter(|&r| r > 0));
        Some(parts)
    })
}

/// One line of FindStat's format: `[3,1,1] => 0` (`p` has cells).
pub fn findstat_line(p: &Diagram, value: u16) -> String {
    format!("[{p}] => {value}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_come_in_reverse_lexicographic_order_and_all_of_them() {
        let five: Vec<Vec<u32>> = partitions(5).collect();
        assert_eq!(
            format!("{five:?}"),
            "[[5], [4, 1], [3, 2], [3, 1, 1], [2, 2, 1], [2, 1, 1, 1], [1, 1, 1, 1, 1]]"
        );
        // As many as the recurrence of PartitionCounts counts, each list strictly decreasing;
        // p(30) and p(100) as OEIS A000041 has them.
        let counts = crate::chomp::two_player::cells::PartitionCounts::new(100).unwrap();
        assert_eq!(
            [0, 30, 100].map(|n| counts.partitions(n)),
            [1, 5604, 190_569_292]
        );
        for n in 1..=30u32 {
            let all: Vec<Vec<u32>> = partitions(n).collect();
            assert!(all.iter().all(|p| p.iter().sum::<u32>() == n), "{n}");
            assert!(all.windows(2).all(|w| w[0] > w[1]), "{n}");
            assert_eq!(all.len() as u64, counts.partitions(n), "p({n})");
        }
        assert_eq!(partitions(0).count(), 0);
        // The lines themselves: tests/games/chomp/named_bites.rs.
        for max in [0, MAX_CELLS + 1] {
            let e = by_cells(max).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("the largest number of cells listed must be from 1 to 50 (got {max})")
            );
        }
    }
}
