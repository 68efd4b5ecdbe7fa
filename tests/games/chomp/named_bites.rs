//! Bites named by the cell they take, one position's Grundy value in one command, and the
//! Grundy values of every partition in FindStat's format, as a user runs them.

use crate::common::{assert_usage_error, chompute, json_of, stderr, stdout};
use chompute::chomp::two_player::grundy::GrundyTable;
use chompute::chomp::two_player::grundy_cells::{by_cells, findstat_line};
use chompute::chomp::{ChompBox, Diagram};
use std::collections::HashMap;

/// The Grundy value by the definition, memoised: the mex of the non-empty options' values,
/// each option made by cutting rows x, x+1, … to length ≤ c.
fn slow_grundy(rows: &[u32], memo: &mut HashMap<Vec<u32>, u16>) -> u16 {
    if let Some(&g) = memo.get(rows) {
        return g;
    }
    let mut seen = Vec::new();
    for x in 0..rows.len() {
        for c in 0..rows[x] {
            if x == 0 && c == 0 {
                continue;
            }
            let q: Vec<u32> = rows
                .iter()
                .enumerate()
                .map(|(i, &a)| if i < x { a } else { a.min(c) })
                .filter(|&a| a > 0)
                .collect();
            seen.push(slow_grundy(&q, memo));
        }
    }
    let g = (0..).find(|v| !seen.contains(v)).unwrap();
    memo.insert(rows.to_vec(), g);
    g
}

#[test]
fn bites_name_the_cell_they_take() {
    // The 7x11 rectangle's only winning bite takes row 5, column 7.
    let o = chompute(&["chomp", "bites", "--box", "7x11"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let line = text.lines().find(|l| l.starts_with("7x11:")).unwrap();
    assert_eq!(line, "7x11: (5,7) leaves (11,11,11,11,6,6,6)");
    let j = json_of(&chompute(&["chomp", "bites", "--box", "7x11", "--json"]));
    let r = &j["rectangles"][6 * 11 + 10];
    assert_eq!(
        (r["rows"].as_u64(), r["cols"].as_u64()),
        (Some(7), Some(11))
    );
    assert_eq!(r["bite_cells"], serde_json::json!([[5, 7]]));
    // Every rectangle's every cell leaves the position printed beside it.
    for r in j["rectangles"].as_array().unwrap() {
        let whole = Diagram::new(vec![
            r["cols"].as_u64().unwrap() as u32;
            r["rows"].as_u64().unwrap() as usize
        ])
        .unwrap();
        let bites: Vec<Vec<u32>> = serde_json::from_value(r["bites"].clone()).unwrap();
        let cells: Vec<(usize, u32)> = serde_json::from_value(r["bite_cells"].clone()).unwrap();
        assert_eq!(bites.len(), cells.len());
        for (b, &(row, col)) in bites.iter().zip(&cells) {
            assert_eq!(whole.bite(row - 1, col - 1).rows(), &b[..], "{r}");
        }
    }
    let o = chompute(&["chomp", "bites", "--box", "2x3", "--csv"]);
    assert_eq!(
        stdout(&o),
        "rows,cols,winning_bites,bites,cells\n1,1,0,,\n1,2,1,1,\"1,2\"\n1,3,1,1,\"1,2\"\n\
         2,1,1,1,\"2,1\"\n2,2,1,\"2,1\",\"2,2\"\n2,3,1,\"3,2\",\"2,3\"\n"
    );
}

#[test]
fn grundy_of_one_position_in_one_command() {
    let o = chompute(&["chomp", "grundy", "--position", "5,3,1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut memo = HashMap::new();
    assert_eq!(slow_grundy(&[5, 3, 1], &mut memo), 1);
    assert_eq!(
        stdout(&o),
        "5,3,1: Grundy value 1, a move to each smaller value: 0: (1,3) leaves (2,2,1)\n"
    );
    // The same answer as a saved table's query, on a larger box too, for positions that are
    // not special; each move leaves a position of its value, by the cell it names.
    for (p, shape) in [("6,4,4,2", None), ("7,7,3", Some("5x9")), ("3,2", None)] {
        let mut args = vec!["chomp", "grundy", "--position", p, "--json"];
        if let Some(s) = shape {
            args.extend(["--box", s]);
        }
        let j = json_of(&chompute(&args));
        let d = Diagram::parse(p).unwrap();
        let g = slow_grundy(d.rows(), &mut memo);
        assert_eq!(j["grundy"], g, "{p}");
        assert_eq!(j["p"], g == 0, "{p}");
        let moves: Vec<Vec<u32>> = serde_json::from_value(j["moves"].clone()).unwrap();
        let cells: Vec<(usize, u32)> = serde_json::from_value(j["bite_cells"].clone()).unwrap();
        assert_eq!((moves.len(), cells.len()), (g as usize, g as usize), "{p}");
        for (v, (q, &(row, col))) in moves.iter().zip(&cells).enumerate() {
            assert_eq!(slow_grundy(q, &mut memo), v as u16, "{p} -> {q:?}");
            assert_eq!(d.bite(row - 1, col - 1).rows(), &q[..], "{p} -> {q:?}");
        }
    }
    assert_usage_error(
        &chompute(&["chomp", "grundy", "--position", "6,4", "--box", "2x5"]),
        "not a position of the 2x5 box",
    );
    assert_usage_error(&chompute(&["chomp", "grundy"]), "--box");
}

#[test]
fn findstat_lists_every_partition_with_the_box_engines_value() {
    let o = chompute(&["chomp", "grundy", "--findstat", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    // p(1) + … + p(10) partitions, starting as FindStat's St000681 starts.
    assert_eq!(lines.len(), 138);
    assert_eq!(
        lines[..6],
        [
            "[1] => 0",
            "[2] => 1",
            "[1,1] => 1",
            "[3] => 2",
            "[2,1] => 0",
            "[1,1,1] => 2"
        ]
    );
    // Values FindStat publishes for St000681 (findstat.org/StatisticsDatabase/St000681).
    for want in [
        "[4,3] => 0",
        "[3,3,1,1] => 0",
        "[6,4] => 7",
        "[4,3,2,1] => 1",
        "[5,3,2] => 0",
    ] {
        assert!(lines.contains(&want), "{want}");
    }
    // Every value against the box engine (all partitions of n ≤ 10 lie in the 10x10 box) and
    // against the definition.
    let table = GrundyTable::compute(ChompBox { rows: 10, cols: 10 }).unwrap();
    let mut memo = HashMap::new();
    let all = by_cells(10).unwrap();
    assert_eq!(all.len(), 138);
    for ((p, g), line) in all.iter().zip(&lines) {
        assert_eq!(findstat_line(p, *g), *line);
        assert_eq!(table.value(p), Some(*g), "{p}");
        assert_eq!(slow_grundy(p.rows(), &mut memo), *g, "{p}");
    }
    // n ascending, each n in reverse lexicographic order.
    for w in all.windows(2) {
        let (a, b) = (&w[0].0, &w[1].0);
        assert!(
            a.volume() < b.volume() || (a.volume() == b.volume() && a > b),
            "{a} {b}"
        );
    }
    // Past 10 cells the box engine still agrees (partitions of 14 in the 14x14 box would be
    // large; those of n ≤ 14 with at most 6 rows and 9 columns fit a 6x9 box).
    let table = GrundyTable::compute(ChompBox { rows: 6, cols: 9 }).unwrap();
    let mut checked = 0;
    for (p, g) in by_cells(14).unwrap() {
        if let Some(v) = table.value(&p) {
            assert_eq!(v, g, "{p}");
            checked += 1;
        }
    }
    assert!(checked > 300, "{checked}");
    assert_usage_error(
        &chompute(&["chomp", "grundy", "--findstat", "10", "--box", "3x3"]),
        "cannot be used with",
    );
    // No partition has 0 cells to list, and lists stop at 50.
    for (max, got) in [("0", "(got 0)"), ("51", "(got 51)")] {
        let o = chompute(&["chomp", "grundy", "--findstat", max]);
        assert_usage_error(&o, "--findstat must be from 1 to 50");
        assert_usage_error(&o, got);
        assert!(o.stdout.is_empty());
    }
}
