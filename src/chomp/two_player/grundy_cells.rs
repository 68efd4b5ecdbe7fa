//! The Grundy value of every Young diagram of at most N cells, with no box: Chomp on Ferrers
//! diagrams as FindStat's statistic St000681 lists it (docs/mathematics.md §5b).
//!
//! The diagrams of n cells are the partitions of n; every option of one has fewer cells, so
//! the values of n = 1, 2, … follow each other, each the mex of its non-empty options' values.
//! They come in FindStat's order: by n, and the partitions of one n in reverse lexicographic
//! order ([4], [3,1], [2,2], [2,1,1], [1,1,1,1]).
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs (against the box engine of
//! `grundy` and the published start of St000681) and the command in tests/games/tables.rs.

use crate::chomp::diagram::Diagram;
use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};

/// The most cells [`by_cells`] takes: 1,295,970 partitions, 2.4 min and 280 MB on two busy cores.
pub const MAX_CELLS: u32 = 50;

/// The partitions of every n ≤ `max` with their Grundy values, n ascending and each n's
/// partitions in reverse lexicographic order. Refuses `max` above [`MAX_CELLS`].
pub fn by_cells(max: u32) -> Result<Vec<(Diagram, u16)>> {
    if max > MAX_CELLS {
        return Err(Error::too_large(
            format!("the partitions of up to {max} cells"),
            format!("at most {MAX_CELLS} cells are listed"),
        ));
    }
    let mut value: HashMap<Vec<u32>, u16> = HashMap::new();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for n in 1..=max {
        let mut rows = vec![n];
        loop {
            let p = Diagram::new(rows.clone()).expect("a partition's parts do not increase");
            seen.clear();
            let options = p.options().into_iter().filter(|q| !q.is_empty());
            seen.extend(options.map(|q| value[q.rows()]));
            let g = (0..).find(|g| !seen.contains(g)).expect("a value is free");
            value.insert(rows.clone(), g);
            out.push((p, g));
            if !next_partition(&mut rows) {
                break;
            }
        }
    }
    Ok(out)
}

/// Step `parts` (a partition, parts non-increasing) to the next partition of the same number
/// in reverse lexicographic order; false after the last, (1,1,…,1).
pub fn next_partition(parts: &mut Vec<u32>) -> bool {
    let mut rest = 0;
    while parts.last() == Some(&1) {
        parts.pop();
        rest += 1;
    }
    let Some(last) = parts.last_mut() else {
        return false;
    };
    *last -= 1;
    let cap = *last;
    rest += 1;
    while rest > 0 {
        let part = cap.min(rest);
        parts.push(part);
        rest -= part;
    }
    true
}

/// One line of FindStat's format: `[3,1,1] => 0`.
pub fn findstat_line(p: &Diagram, value: u16) -> String {
    let parts: Vec<String> = p.rows().iter().map(u32::to_string).collect();
    format!("[{}] => {value}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_come_in_reverse_lexicographic_order_and_all_of_them() {
        let mut p = vec![5];
        let mut all = vec![p.clone()];
        while next_partition(&mut p) {
            all.push(p.clone());
        }
        let want: Vec<Vec<u32>> = vec![
            vec![5],
            vec![4, 1],
            vec![3, 2],
            vec![3, 1, 1],
            vec![2, 2, 1],
            vec![2, 1, 1, 1],
            vec![1, 1, 1, 1, 1],
        ];
        assert_eq!(all, want);
        // p(n) for n = 1..=20 (OEIS A000041), each list strictly decreasing.
        let counts = [
            1, 2, 3, 5, 7, 11, 15, 22, 30, 42, 56, 77, 101, 135, 176, 231, 297, 385, 490, 627,
        ];
        for (n, &count) in (1..=20u32).zip(&counts) {
            let mut p = vec![n];
            let mut k = 1;
            let mut before = p.clone();
            while next_partition(&mut p) {
                assert!(p < before && p.iter().sum::<u32>() == n, "{p:?}");
                before = p.clone();
                k += 1;
            }
            assert_eq!(k, count, "p({n})");
        }
    }

    #[test]
    fn the_lines_are_findstats() {
        let all = by_cells(3).unwrap();
        let lines: Vec<String> = all.iter().map(|(p, g)| findstat_line(p, *g)).collect();
        assert_eq!(
            lines,
            [
                "[1] => 0",
                "[2] => 1",
                "[1,1] => 1",
                "[3] => 2",
                "[2,1] => 0",
                "[1,1,1] => 2"
            ]
        );
        assert!(by_cells(MAX_CELLS + 1).is_err());
    }
}
