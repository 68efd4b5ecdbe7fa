//! Two-player Chomp tables end to end: every solver against an independent one on boxes that
//! are not special, the table file and its resumption, Grundy values, counts by cells, the
//! GPU layer kernel against its twin, and the CLI as a user runs it.

use crate::common::{
    assert_usage_error, chompute, interrupted_when, json_of, scratch_dir, stderr, stdout,
};
use chompute::cancel::Cancel;
use chompute::chomp::engine::lifecycle::RunEvent;
use chompute::chomp::store::{marks_path, partial_path};
use chompute::chomp::two_player::cells::{CellsEngine, CellsTable};
use chompute::chomp::two_player::file::TableFile;
use chompute::chomp::two_player::grundy::GrundyTable;
use chompute::chomp::two_player::reference::solve_by_rank_order;
use chompute::chomp::two_player::run::{solve_to_file, solve_to_file_every};
use chompute::chomp::two_player::solve::{solve, solve_box};
use chompute::chomp::two_player::table::rectangle;
use chompute::chomp::{ChompBox, Diagram};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

fn bx(rows: usize, cols: u32) -> ChompBox {
    ChompBox { rows, cols }
}

/// Rows packed four bits each (columns ≤ 15, at most 16 rows): the independent solver's key.
fn key(rows: &[u32]) -> u64 {
    rows.iter()
        .enumerate()
        .fold(0, |k, (i, &a)| k | (a as u64) << (4 * i))
}

/// Every option of `rows` except the poison, by the definition: bite (x, c) cuts rows x, x+1,
/// … to length ≤ c (0-based c).
fn options(rows: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for x in 0..rows.len() {
        for c in 0..rows[x] {
            if x == 0 && c == 0 {
                continue;
            }
            let q: Vec<u32> = rows
                .iter()
                .enumerate()
                .map(|(i, &a)| if i >= x { a.min(c) } else { a })
                .collect();
            out.push(q);
        }
    }
    out
}

/// An independent two-player solver that knows nothing of ranks: walk the box's diagrams in
/// lexicographic order (every option is lexicographically smaller), keep the P-positions in
/// a hash set. Returns that set.
fn independent_p_set(shape: ChompBox) -> HashSet<u64> {
    assert!(shape.cols <= 15 && shape.rows <= 16);
    let mut p_set = HashSet::new();
    let mut rows = vec![0u32; shape.rows];
    // Odometer over non-increasing rows, lexicographic order: grow the deepest row that can.
    loop {
        let mut j = shape.rows;
        loop {
            if j == 0 {
                return p_set;
            }
            j -= 1;
            let cap = if j == 0 { shape.cols } else { rows[j - 1] };
            if rows[j] < cap {
                rows[j] += 1;
                rows[j + 1..].iter_mut().for_each(|r| *r = 0);
                break;
            }
        }
        // The options' keys straight from the bites (x, c), without building them.
        let mut is_p = true;
        'moves: for x in 0..shape.rows {
            for c in 0..rows[x] {
                if x == 0 && c == 0 {
                    continue;
                }
                let mut k = 0u64;
                for (i, &a) in rows.iter().enumerate() {
                    k |= (if i >= x { a.min(c) } else { a } as u64) << (4 * i);
                }
                if p_set.contains(&k) {
                    is_p = false;
                    break 'moves;
                }
            }
        }
        if is_p {
            p_set.insert(key(&rows));
        }
    }
}

fn trimmed(rows: Vec<u32>) -> Vec<u32> {
    Diagram::new(rows).unwrap().rows().to_vec()
}

/// `docs/data/chomp-bites-RxC.json`: every one committed, as (R, C, rectangles).
fn committed_bites() -> Vec<(usize, u32, Vec<serde_json::Value>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(shape) = name
            .strip_prefix("chomp-bites-")
            .and_then(|n| n.strip_suffix(".json"))
        else {
            continue;
        };
        let b = ChompBox::parse(shape).unwrap();
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let j: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(j["box"], shape, "{name}");
        let rects = j["rectangles"].as_array().unwrap().clone();
        assert_eq!(rects.len(), b.rows * b.cols as usize, "{name}");
        out.push((b.rows, b.cols, rects));
    }
    out.sort_by_key(|f| (f.0, f.1));
    out
}

#[test]
fn the_committed_bites_agree_with_the_solver_the_classical_facts_and_each_other() {
    let files = committed_bites();
    assert!(!files.is_empty(), "docs/data holds no chomp-bites-RxC.json");
    let small = bx(12, 12);
    let want = solve(small).unwrap().rectangle_bites(small);
    for (rows, cols, rects) in &files {
        let name = format!("chomp-bites-{rows}x{cols}.json");
        for (k, rect) in rects.iter().enumerate() {
            let (r, c) = (k / *cols as usize + 1, (k % *cols as usize) as u32 + 1);
            assert_eq!(
                (rect["rows"].as_u64(), rect["cols"].as_u64()),
                (Some(r as u64), Some(c as u64)),
                "{name}: rectangle {k}"
            );
            let bites: Vec<Vec<u32>> = serde_json::from_value(rect["bites"].clone()).unwrap();
            // Each bite's cell (row, column) is the one whose bite leaves its position: the rows
            // above it keep all c cells, it and the rows below keep column - 1.
            let cells: Vec<(usize, u32)> =
                serde_json::from_value(rect["bite_cells"].clone()).unwrap();
            assert_eq!(cells.len(), bites.len(), "{name}: {r}x{c}");
            for (&(row, col), b) in cells.iter().zip(&bites) {
                assert!(
                    (1..=r).contains(&row) && (1..=c).contains(&col),
                    "{name}: {r}x{c}"
                );
                let mut left = vec![c; row - 1];
                left.extend(std::iter::repeat_n(col - 1, r - row + 1));
                assert_eq!(trimmed(left), *b, "{name}: {r}x{c} bite ({row},{col})");
            }
            // Every bite leaves a diagram inside the rectangle, with fewer cells.
            for b in &bites {
                let d = Diagram::new(b.clone()).unwrap();
                let cells: u64 = b.iter().map(|&x| x as u64).sum();
                assert!(
                    d.rows().len() <= r && b[0] <= c && cells < r as u64 * c as u64,
                    "{name}: {r}x{c} bite {b:?}"
                );
            }
            // The classical facts: a 1x1 is P, every other rectangle has a winning bite;
            // a row's only one leaves (1); the n×n square's only one leaves the L
            // (n,1,…,1); the 2×n's leaves (n, n-1).
            assert_eq!(bites.is_empty(), r == 1 && c == 1, "{name}: {r}x{c}");
            if r == c as usize && r > 1 {
                let mut l = vec![1; r];
                l[0] = c;
                assert_eq!(bites, vec![l], "{name}: the square {r}x{c}");
            }
            if r == 1 && c > 1 {
                assert_eq!(bites, vec![vec![1]], "{name}: 1x{c}");
            }
            if r == 2 && c > 1 {
                assert_eq!(bites, vec![vec![c, c - 1]], "{name}: 2x{c}");
            }
            if r <= small.rows && c <= small.cols {
                let w = &want[(r - 1) * small.cols as usize + c as usize - 1];
                assert_eq!((w.rows, w.cols), (r, c));
                assert_eq!(
                    (&bites, &cells),
                    (&w.bites, &w.bite_cells),
                    "{name}: {r}x{c} against a fresh 12x12 table"
                );
            }
        }
    }
    // A rectangle's bites are the conjugates of its transpose's (a square box's table keeps
    // one bit a transposed pair, so this checks the pairing too).
    let conjugate = |rows: &[u32]| -> Vec<u32> {
        (0..rows[0])
            .map(|j| rows.iter().filter(|&&x| x > j).count() as u32)
            .collect()
    };
    for (rows, cols, rects) in &files {
        let at = |r: usize, c: usize| &rects[(r - 1) * *cols as usize + c - 1]["bites"];
        for r in 1..=(*rows).min(*cols as usize) {
            for c in 1..=(*rows).min(*cols as usize) {
                let mine: Vec<Vec<u32>> = serde_json::from_value(at(r, c).clone()).unwrap();
                let theirs: Vec<Vec<u32>> = serde_json::from_value(at(c, r).clone()).unwrap();
                let mut flipped: Vec<Vec<u32>> = theirs.iter().map(|b| conjugate(b)).collect();
                flipped.sort();
                let mut mine = mine;
                mine.sort();
                assert_eq!(mine, flipped, "{r}x{c} against {c}x{r} in {rows}x{cols}");
            }
        }
    }
    // Files from different runs agree wherever their boxes overlap.
    for (i, (r1, c1, a)) in files.iter().enumerate() {
        for (r2, c2, b) in &files[i + 1..] {
            for r in 1..=*r1.min(r2) {
                for c in 1..=*c1.min(c2) as usize {
                    assert_eq!(
                        a[(r - 1) * *c1 as usize + c - 1],
                        b[(r - 1) * *c2 as usize + c - 1],
                        "{r}x{c}: {r1}x{c1} and {r2}x{c2} disagree"
                    );
                }
            }
        }
    }
}

#[test]
fn the_14x14_table_and_every_rectangles_bites_equal_an_independent_solver() {
    let shape = bx(14, 14);
    let p_set = independent_p_set(shape);
    let table = solve(shape).unwrap();
    assert_eq!(table.p_count(), p_set.len() as u64);
    assert_eq!(table.p_count(), 256_366);
    // The same set: every independent P-position is P in the table (and the counts agree).
    let mut rows = vec![0u32; 14];
    for r in 1..table.ranker().len() {
        table.ranker().unrank_into(r, &mut rows);
        assert_eq!(table.is_p_bit(r), p_set.contains(&key(&rows)), "{rows:?}");
    }
    let rects = table.rectangle_bites(shape);
    assert_eq!(rects.len(), 196);
    for rect in &rects {
        let full = vec![rect.cols; rect.rows];
        let mut want: Vec<Vec<u32>> = options(&full)
            .into_iter()
            .filter(|q| p_set.contains(&key(q)))
            .map(trimmed)
            .collect();
        want.sort();
        want.dedup();
        assert_eq!(rect.bites, want, "{}x{}", rect.rows, rect.cols);
    }
}

#[test]
fn classical_facts_hold() {
    let table = solve(bx(13, 13)).unwrap();
    for n in 2..=13u32 {
        // The square's only winning bite leaves the L (n, 1^(n-1)).
        let l: Vec<u32> = std::iter::once(n)
            .chain(std::iter::repeat_n(1, n as usize - 1))
            .collect();
        assert_eq!(
            table
                .rectangle_bites(bx(n as usize, n))
                .last()
                .unwrap()
                .bites,
            vec![l],
            "{n}x{n}"
        );
    }
    // Two rows (a, b) are P iff a = b + 1; no rectangle but (1) is P; transposes agree.
    for a in 1..=13u32 {
        for b in 0..=a {
            let p = Diagram::new(vec![a, b]).unwrap();
            assert_eq!(table.is_p(&p), Some(a == b + 1), "({a},{b})");
        }
    }
    for r in 1..=13 {
        for c in 1..=13u32 {
            assert_eq!(table.is_p(&rectangle(r, c)), Some(r == 1 && c == 1));
        }
    }
    let mut rows = vec![0u32; 13];
    for r in 1..table.ranker().len() {
        table.ranker().unrank_into(r, &mut rows);
        let d = Diagram::new(rows.clone()).unwrap();
        let t: Vec<u32> = (1..=d.width())
            .map(|c| d.rows().iter().filter(|&&a| a >= c).count() as u32)
            .collect();
        assert_eq!(
            table.is_p(&Diagram::new(t).unwrap()),
            Some(table.is_p_bit(r))
        );
    }
}

#[test]
fn fast_and_slow_schedules_agree_on_boxes_that_are_not_square() {
    for (r, c) in [(3, 11), (4, 9), (7, 5), (9, 6), (11, 3)] {
        assert_eq!(
            solve(bx(r, c)).unwrap().words(),
            solve_by_rank_order(bx(r, c)).unwrap().words(),
            "{r}x{c}"
        );
    }
}

/// An independent mex over explicit options, memoised on the rows.
fn grundy_slow(rows: &[u32], memo: &mut HashMap<Vec<u32>, u16>) -> u16 {
    if let Some(&g) = memo.get(rows) {
        return g;
    }
    let mut seen = HashSet::new();
    for q in options(rows) {
        seen.insert(grundy_slow(&trimmed(q), memo));
    }
    let g = (0..).find(|g| !seen.contains(g)).unwrap();
    memo.insert(rows.to_vec(), g);
    g
}

#[test]
fn grundy_values_equal_an_independent_mex_to_10x10() {
    let mut memo = HashMap::new();
    for (r, c) in [(10, 10), (4, 9), (7, 3)] {
        let table = GrundyTable::compute(bx(r, c)).unwrap();
        let p = solve(bx(r, c)).unwrap();
        let mut rows = vec![0u32; r];
        for rank in 1..table.ranker().len() {
            table.ranker().unrank_into(rank, &mut rows);
            let g = grundy_slow(&trimmed(rows.clone()), &mut memo);
            assert_eq!(table.value_rank(rank), g, "{rows:?} in {r}x{c}");
            assert_eq!(g == 0, p.is_p_bit(rank));
        }
    }
}

/// The P-positions of the Grundy table are exactly those the table solver finds, position by
/// position: on the 14×14 box (so on every position of every box up to 14×14, a position's
/// value not depending on the box), in the colex layout and in the square's hook index, and
/// on boxes that are not square.
#[test]
fn grundy_zero_is_p_on_every_box_to_14x14() {
    for (r, c) in [(14, 14), (13, 14), (14, 5), (3, 14)] {
        let g = GrundyTable::compute(bx(r, c)).unwrap();
        let colex = solve(bx(r, c)).unwrap();
        let indexed = solve_box(bx(r, c)).unwrap();
        let mut rows = vec![0u32; r];
        let mut p = 0u64;
        for rank in 1..g.ranker().len() {
            let zero = g.value_rank(rank) == 0;
            assert_eq!(zero, colex.is_p_bit(rank), "rank {rank} of {r}x{c}");
            g.ranker().unrank_into(rank, &mut rows);
            let d = Diagram::new(rows.clone()).unwrap();
            assert_eq!(Some(zero), indexed.is_p(&d), "{d} in {r}x{c}");
            p += zero as u64;
        }
        assert_eq!(g.histogram()[0], p);
        assert_eq!(p, colex.p_count(), "{r}x{c}");
    }
}

/// The committed Grundy data (`docs/data/chomp-grundy-18x18.json`) against a fresh
/// `chomp grundy --box 12x12 --json` where they overlap: every rectangle up to 12×12 and the
/// largest value of each n×n box, n ≤ 12 (a position's value does not depend on the box).
#[test]
fn the_committed_18x18_grundy_data_equals_a_fresh_12x12_run() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data/chomp-grundy-18x18.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(data["box"], "18x18");
    assert_eq!(data["rectangles"].as_array().unwrap().len(), 324);
    let fresh = json_of(&chompute(&["chomp", "grundy", "--box", "12x12", "--json"]));
    let mut committed = HashMap::new();
    for r in data["rectangles"].as_array().unwrap() {
        committed.insert(
            (r["rows"].as_u64().unwrap(), r["cols"].as_u64().unwrap()),
            r["grundy"].clone(),
        );
    }
    let rects = fresh["rectangles"].as_array().unwrap();
    assert_eq!(rects.len(), 144);
    for r in rects {
        let key = (r["rows"].as_u64().unwrap(), r["cols"].as_u64().unwrap());
        assert_eq!(committed[&key], r["grundy"], "{key:?}");
    }
    let largest = data["largest_by_side"].as_array().unwrap();
    assert_eq!(largest.len(), 18);
    assert_eq!(
        &largest[..12],
        fresh["largest_by_side"].as_array().unwrap().as_slice()
    );
    // The committed b-files: the squares and the largest value per side are the 18×18 data's;
    // the 2×n and 3×n rows start as fresh runs on smaller boxes do.
    let data_dir = path.parent().unwrap();
    let bfile = |name: &str| std::fs::read_to_string(data_dir.join(name)).unwrap();
    let squares: String = (1..=18u64)
        .map(|n| format!("{n} {}\n", committed[&(n, n)]))
        .collect();
    assert_eq!(bfile("chomp-grundy-square.txt"), squares);
    let by_side: String = largest
        .iter()
        .enumerate()
        .map(|(n, v)| format!("{} {v}\n", n + 1))
        .collect();
    assert_eq!(bfile("chomp-grundy-largest.txt"), by_side);
    for (name, shape, kind, lines) in [
        ("chomp-grundy-two-rows.txt", "2x60", "two-rows", 2000),
        ("chomp-grundy-three-rows.txt", "3x40", "three-rows", 300),
    ] {
        let text = bfile(name);
        assert_eq!(text.lines().count(), lines, "{name}");
        let fresh = chompute(&["chomp", "grundy", "--box", shape, "--bfile", kind]);
        assert!(text.starts_with(&stdout(&fresh)), "{name}");
    }
    // The histogram counts every position of the box.
    let total: u64 = data["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total.to_string(), data["positions"].to_string());
}

fn partitions(n: u32, cap: u32, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
    if n == 0 {
        out.push(prefix.clone());
        return;
    }
    for a in (1..=n.min(cap)).rev() {
        prefix.push(a);
        partitions(n - a, a, prefix, out);
        prefix.pop();
    }
}

#[test]
fn cells_equal_a_brute_force_to_20() {
    let table = CellsTable::compute(20).unwrap();
    let mut p_set: HashSet<Vec<u32>> = HashSet::new();
    for n in 1..=20 {
        let mut all = Vec::new();
        partitions(n, n, &mut Vec::new(), &mut all);
        let mut p = 0;
        for d in &all {
            let is_p = options(d).into_iter().all(|q| !p_set.contains(&trimmed(q)));
            assert_eq!(table.is_p(d), Some(is_p), "{d:?}");
            if is_p {
                p += 1;
            }
        }
        for d in all.iter().filter(|d| table.is_p(d) == Some(true)) {
            p_set.insert(d.clone());
        }
        let row = table.rows()[n as usize - 1];
        assert_eq!(
            (row.n, row.diagrams, row.p_positions),
            (n, all.len() as u64, p)
        );
    }
}

#[test]
fn fresh_cells_runs_of_both_engines_equal_the_committed_data() {
    // The committed tables (to 100, 130 and 140 cells) agree where they overlap; a fresh run
    // of the command equals them to 70 cells, and the scan, the twin, to 60.
    let rows = |path: &str| -> Vec<serde_json::Value> {
        let text =
            std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["cells"].as_array().unwrap().clone()
    };
    let (to100, to130, to140) = (
        rows("docs/data/chomp-cells-100.json"),
        rows("docs/data/chomp-cells-130.json"),
        rows("docs/data/chomp-cells-140.json"),
    );
    assert_eq!((to100.len(), to130.len(), to140.len()), (100, 130, 140));
    assert_eq!(to100[..], to140[..100]);
    assert_eq!(to130[..], to140[..130]);
    // The b-file is the 140 table's counts.
    let bfile = std::fs::read_to_string(format!(
        "{}/docs/data/chomp-cells-p-positions.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let lines: Vec<String> = to140
        .iter()
        .map(|r| format!("{} {}", r["n"], r["p_positions"].as_str().unwrap()))
        .collect();
    assert_eq!(bfile.lines().collect::<Vec<_>>(), lines);
    let fresh = chompute(&["chomp", "cells", "--max", "70", "--json"]);
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    assert_eq!(
        json_of(&fresh)["cells"].as_array().unwrap()[..],
        to140[..70]
    );
    let scan = CellsTable::compute_with(60, CellsEngine::Scan).unwrap();
    for (row, want) in scan.rows().iter().zip(&to140) {
        assert_eq!(serde_json::to_value(row).unwrap(), *want);
    }
}

#[test]
fn the_cells_table_agrees_with_a_box_table_on_every_diagram_both_hold() {
    // Every diagram of up to 28 cells inside the 11×12 box: the box solver and the cells
    // table decide it apart, and agree; for n ≤ 11 the box holds every diagram of n cells.
    let (rows, cols) = (11usize, 12u32);
    let table = solve(bx(rows, cols)).unwrap();
    let cells = CellsTable::compute(28).unwrap();
    for n in 1..=28u32 {
        let mut all = Vec::new();
        partitions(n, cols, &mut Vec::new(), &mut all);
        let mut p = 0;
        for d in all.iter().filter(|d| d.len() <= rows) {
            let is_p = table.is_p(&Diagram::new(d.clone()).unwrap());
            assert_eq!(is_p, cells.is_p(d), "{d:?}");
            p += is_p.unwrap() as u64;
        }
        if n <= 11 {
            assert_eq!(p, cells.rows()[n as usize - 1].p_positions, "n = {n}");
        }
    }
}

#[test]
fn a_cells_file_run_stopped_by_an_interrupt_resumes_to_the_identical_file() {
    let dir = scratch_dir("cells_file_sigint");
    let (out, whole) = (dir.join("c.cells"), dir.join("whole.cells"));
    let args = |o: &Path| -> Vec<String> {
        [
            "chomp",
            "cells",
            "--max",
            "78",
            "--json",
            "--save-every",
            "0",
            "-o",
        ]
        .map(String::from)
        .into_iter()
        .chain([o.display().to_string()])
        .collect()
    };
    // Interrupted once a snapshot past 40 cells is on disk (a slot's `steps` line).
    let partial = partial_path(&out);
    let steps = |p: &Path| -> u64 {
        let bytes = std::fs::read(p).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 20)]).into_owned();
        text.lines()
            .filter_map(|l| l.strip_prefix("steps ")?.parse().ok())
            .max()
            .unwrap_or(0)
    };
    let a = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let run = interrupted_when(&a, || steps(&partial) >= 40);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(130), "{err}");
    assert!(err.contains("kept the checkpoint"), "{err}");
    assert!(!out.exists() && partial.exists());
    let a = args(&out);
    let again = chompute(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("resuming from"),
        "{}",
        stderr(&again)
    );
    assert!(!partial.exists());
    let w = args(&whole);
    let fresh = chompute(&w.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    assert_eq!(json_of(&again)["cells"], json_of(&fresh)["cells"]);
    // The file answers single diagrams (and checks itself) through `chomp query`.
    let o = out.to_str().unwrap();
    let q = chompute(&[
        "chomp",
        "query",
        o,
        "--position",
        "3,2,1",
        "--verify",
        "--json",
    ]);
    assert!(q.status.success(), "{}", stderr(&q));
    let j = json_of(&q);
    assert_eq!(j["p"], false);
    assert_eq!(
        j["bites"],
        serde_json::json!([[2, 2, 1], [3, 1, 1], [3, 2]])
    );
    // Each named by the cell it bites, in the same order.
    assert_eq!(j["bite_cells"], serde_json::json!([[1, 3], [2, 2], [3, 1]]));
    let q = chompute(&["chomp", "query", o, "--position", "40,40"]);
    assert_eq!(q.status.code(), Some(2));
    assert!(stderr(&q).contains("1 to 78 cells"), "{}", stderr(&q));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_15x15_run_resumes_to_the_identical_file() {
    let dir = scratch_dir("chomp_resume_15");
    let whole = dir.join("whole.tbl");
    let parts = dir.join("parts.tbl");
    solve_to_file(bx(15, 15), &whole, |_| {}).unwrap();
    // Stop after layer 20, then once more after layer 50 with a torn record at the end.
    for stop_after in [20u64, 50] {
        let stop = Cancel::new();
        let r = stop.scope(|| {
            solve_to_file(bx(15, 15), &parts, |e| {
                if let RunEvent::Step(p) = e {
                    if p.steps_done == stop_after + 1 {
                        stop.cancel();
                    }
                }
            })
        });
        assert!(matches!(r, Err(chompute::Error::Interrupted)));
        assert!(!parts.exists() && partial_path(&parts).exists());
    }
    let partial = partial_path(&parts);
    let len = std::fs::metadata(&partial).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&partial)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let mut resumed = None;
    solve_to_file(bx(15, 15), &parts, |e| {
        if let RunEvent::Resumed { steps_done, .. } = e {
            resumed = Some(steps_done);
        }
    })
    .unwrap();
    // Layers 0..=50 were written; the torn one (50) is read back as missing.
    assert_eq!(resumed, Some(50));
    assert!(!partial.exists());
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&parts).unwrap()
    );
    // The saved table reads back, checksum and all; a square keeps one of each transposed
    // pair, and the P-count is the whole box's.
    let f = TableFile::open(&parts).unwrap();
    assert_eq!(
        f.load().unwrap().words(),
        solve_box(bx(15, 15)).unwrap().words()
    );
    assert!(f.index.hook_index().is_some());
    assert_eq!(f.p_positions, solve(bx(15, 15)).unwrap().p_count());
}

/// Interrupt a run of `shape` to `out` after step `stop_after`, with snapshots of the marks at
/// most every `every`.
fn interrupt_after(shape: ChompBox, out: &std::path::Path, stop_after: u64, every: Duration) {
    let stop = Cancel::new();
    let r = stop.scope(|| {
        solve_to_file_every(shape, out, every, |e| {
            if let RunEvent::Step(p) = e {
                if p.steps_done == stop_after + 1 {
                    stop.cancel();
                }
            }
        })
    });
    assert!(matches!(r, Err(chompute::Error::Interrupted)), "{shape}");
}

#[test]
fn a_run_resumes_from_a_snapshot_of_its_marks_to_the_identical_file() {
    let dir = scratch_dir("chomp_resume_marks");
    // A square (the hook index) and a box that is not square (the colex rank).
    for shape in [bx(13, 13), bx(9, 14)] {
        let whole = dir.join(format!("{shape}-whole.tbl"));
        let parts = dir.join(format!("{shape}.tbl"));
        solve_to_file(shape, &whole, |_| {}).unwrap();
        // A snapshot after every step until step 20; then none (an hour apart) until step 40,
        // so the last snapshot is older than the records.
        interrupt_after(shape, &parts, 20, Duration::ZERO);
        assert!(marks_path(&parts).exists(), "{shape}: a snapshot was kept");
        interrupt_after(shape, &parts, 40, Duration::from_secs(3600));
        let mut resumed = None;
        solve_to_file(shape, &parts, |e| {
            if let RunEvent::Resumed {
                steps_done,
                snapshot,
                ..
            } = e
            {
                resumed = Some((steps_done, snapshot));
            }
        })
        .unwrap();
        assert_eq!(resumed, Some((41, Some(21))), "{shape}");
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&parts).unwrap()
        );
        assert!(!marks_path(&parts).exists() && !partial_path(&parts).exists());
        // A damaged snapshot is left aside: the records alone resume the run.
        std::fs::remove_file(&parts).unwrap();
        interrupt_after(shape, &parts, 30, Duration::ZERO);
        let marks = marks_path(&parts);
        let mut bytes = std::fs::read(&marks).unwrap();
        let n = bytes.len();
        bytes[n - 3] ^= 0x10;
        std::fs::write(&marks, bytes).unwrap();
        let mut resumed = None;
        solve_to_file(shape, &parts, |e| {
            if let RunEvent::Resumed { snapshot, .. } = e {
                resumed = Some(snapshot);
            }
        })
        .unwrap();
        assert_eq!(
            resumed,
            Some(None),
            "{shape}: the damaged snapshot is not used"
        );
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&parts).unwrap()
        );
    }
}

#[test]
fn a_square_table_keeps_one_of_each_transposed_pair_and_agrees_with_the_colex_table() {
    // 11x11 and 13x13 reach child squares (side ≥ n - 6) and whole small ones.
    for n in [11usize, 13] {
        let shape = bx(n, n as u32);
        let sym = solve_box(shape).unwrap();
        let colex = solve(shape).unwrap();
        assert!(sym.layout().hook_index().is_some() && colex.layout().hook_index().is_none());
        assert!(
            sym.len() * 2 < colex.len() + colex.len() / 50,
            "{n}: about half"
        );
        assert_eq!(sym.p_count(), colex.p_count(), "{n}");
        let rk = colex.ranker();
        let mut rows = vec![0u32; n];
        for r in 1..rk.len() {
            rk.advance(&mut rows);
            let d = Diagram::new(rows.clone()).unwrap();
            assert_eq!(sym.is_p(&d), Some(colex.is_p_bit(r)), "{n}: {d}");
        }
        assert_eq!(
            sym.rectangle_bites(shape),
            colex.rectangle_bites(shape),
            "{n}"
        );
    }
}

#[test]
fn cli_solve_query_bites_grundy_cells() {
    let dir = scratch_dir("chomp_two_player_cli");
    let file = dir.join("t.tbl");
    let f = file.to_str().unwrap();
    let o = chompute(&["chomp", "solve", "--box", "12x12", "-o", f, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json_of(&o);
    assert_eq!(j["p_positions"], 26838);
    assert_eq!(j["positions"], 2704155);
    // A second run over a finished table resumes nothing: it solves again, same file.
    let before = std::fs::read(&file).unwrap();
    let o = chompute(&["chomp", "solve", "--box", "12x12", "-o", f]);
    assert!(o.status.success());
    assert_eq!(std::fs::read(&file).unwrap(), before);

    let o = chompute(&["chomp", "query", f, "--position", "5,3,3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json_of(&o);
    assert_eq!(j["p"], false);
    let table = solve(bx(12, 12)).unwrap();
    let want = table
        .winning_bites(&Diagram::parse("5,3,3").unwrap())
        .unwrap();
    let got: Vec<String> = j["bites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert_eq!(got, want.iter().map(|d| d.to_string()).collect::<Vec<_>>());
    let o = chompute(&["chomp", "query", f, "--position", "2,1"]);
    assert_eq!(stdout(&o), "2,1: P (every bite loses)\n");
    assert_usage_error(
        &chompute(&["chomp", "query", f, "--position", "13"]),
        "does not fit",
    );

    let o = chompute(&["chomp", "bites", "--table", f, "--box", "3x4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json_of(&o);
    assert_eq!(j["rectangles"].as_array().unwrap().len(), 12);
    // Rectangles row by row: 3x3 is the eleventh.
    assert_eq!(j["rectangles"][10]["bites"], serde_json::json!([[3, 1, 1]]));
    assert_eq!(
        j["rectangles"][10]["bite_cells"],
        serde_json::json!([[2, 2]])
    );
    // Read bit by bit from the file, the bites equal those of the box solved now.
    let o = chompute(&[
        "chomp", "bites", "--table", f, "--box", "7x5", "--verify", "--csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        stdout(&chompute(&["chomp", "bites", "--box", "7x5", "--csv"]))
    );
    // One flipped bit in the first chunk of bits: every read checks the chunk it reads
    // against the trailer's CRC-32, so even without --verify the file is refused in one
    // line with status 2, never answered from.
    let damaged = dir.join("damaged.tbl");
    let mut bytes = std::fs::read(&file).unwrap();
    let start = bytes.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    bytes[start] ^= 0x10;
    std::fs::write(&damaged, &bytes).unwrap();
    let d = damaged.to_str().unwrap();
    for args in [
        vec!["chomp", "bites", "--table", d, "--box", "4x4", "--json"],
        vec!["chomp", "bites", "--table", d, "--box", "4x4", "--verify"],
        vec!["chomp", "query", d, "--position", "2,1", "--verify"],
    ] {
        let o = chompute(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("crc32") && err.contains(d) && err.lines().count() == 1,
            "{err}"
        );
    }
    // An edited header (a digit of the P-count changed keeps the length) fails its CRC.
    let text = std::fs::read(&file).unwrap();
    let head = String::from_utf8_lossy(&text[..start]).to_string();
    let edited = head.replacen("p-positions 26838", "p-positions 26839", 1);
    assert_ne!(edited, head);
    let mut e = edited.into_bytes();
    e.extend_from_slice(&text[start..]);
    let edited_path = dir.join("edited.tbl");
    std::fs::write(&edited_path, &e).unwrap();
    let o = chompute(&[
        "chomp",
        "query",
        edited_path.to_str().unwrap(),
        "--position",
        "2,1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).lines().count() == 1, "{}", stderr(&o));
    assert_usage_error(
        &chompute(&["chomp", "bites", "--table", f, "--box", "13x2"]),
        "does not contain 13x2",
    );

    let png = dir.join("bites.png");
    let o = chompute(&[
        "chomp",
        "bites",
        "--box",
        "6x7",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));

    let o = chompute(&["chomp", "grundy", "--box", "3x5", "--bfile", "two-rows"]);
    let g = GrundyTable::compute(bx(3, 5)).unwrap();
    let want: String = (1..=5)
        .map(|n| format!("{n} {}\n", g.value(&rectangle(2, n)).unwrap()))
        .collect();
    assert_eq!(stdout(&o), want);

    // The JSON's largest value per side is the `largest` b-file, and two bytes a value give
    // the same table as one.
    let o = chompute(&["chomp", "grundy", "--box", "6x8", "--json"]);
    let one = json_of(&o);
    let largest: String = one["largest_by_side"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(n, v)| format!("{} {v}\n", n + 1))
        .collect();
    let o = chompute(&["chomp", "grundy", "--box", "6x8", "--bfile", "largest"]);
    assert_eq!(stdout(&o), largest);
    assert_eq!(largest.lines().count(), 6);
    let o = chompute(&[
        "chomp",
        "grundy",
        "--box",
        "6x8",
        "--json",
        "--value-bytes",
        "2",
    ]);
    let two = json_of(&o);
    for key in [
        "rectangles",
        "histogram",
        "largest_by_side",
        "max_grundy",
        "box",
    ] {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert_usage_error(
        &chompute(&["chomp", "grundy", "--box", "6x8", "--value-bytes", "3"]),
        "1..=2",
    );
    assert_usage_error(
        &chompute(&["chomp", "grundy", "--box", "2x8", "--bfile", "three-rows"]),
        "fewer than 3 rows",
    );

    let o = chompute(&["chomp", "cells", "--max", "12", "--json"]);
    let j = json_of(&o);
    assert_eq!(j["cells"][11]["diagrams"], "77");

    assert_usage_error(&chompute(&["chomp", "solve", "--box", "40x40"]), "2^42");
    assert_usage_error(&chompute(&["chomp", "solve", "--box", "30x40"]), "2^38");
    // A square stores one bit per transposed pair, so its limit is higher.
    assert_usage_error(&chompute(&["chomp", "solve", "--box", "23x23"]), "2^42");
    // The checkpoint lives beside the table: a device is refused, and nothing is made.
    assert_usage_error(
        &chompute(&["chomp", "solve", "--box", "4x4", "-o", "/dev/null"]),
        "regular file",
    );
    assert!(!std::path::Path::new("/dev/null.partial").exists());
    // The bound in the flag's words.
    assert_usage_error(
        &chompute(&["chomp", "cells", "--max", "0"]),
        "--max must be from 1 to 400 (got 0)",
    );
    assert_usage_error(
        &chompute(&["chomp", "cells", "--max", "401"]),
        "--max must be from 1 to 400 (got 401)",
    );
    // A bites picture too wide to draw is refused before its box is solved.
    assert_usage_error(
        &chompute(&["chomp", "bites", "--box", "3x1025", "-o", "x.png"]),
        "3x1025 rectangles; at most 1024 a side",
    );
    assert!(!std::path::Path::new("x.png").exists());
}

/// The GPU layer kernel against its CPU twin (the same volume layers) and the fast schedule,
/// on every box up to 9×9 (lavapipe in CI, with CHOMPUTE_REQUIRE_GPU=1).
#[test]
fn gpu_layer_kernel_equals_its_twin_on_every_box_to_9x9() {
    use chompute::chomp::two_player::reference::solve_by_volume_layers;
    use chompute::chomp::two_player::solve::solve;
    use chompute::gpu::chomp::ChompGpu;
    let Some(ctx) =
        crate::common::gpu_or_skip("gpu_layer_kernel_equals_its_twin_on_every_box_to_9x9")
    else {
        return;
    };
    let gpu = ChompGpu::new(ctx);
    for r in 1..=9usize {
        for c in 1..=9u32 {
            let shape = ChompBox { rows: r, cols: c };
            let g = gpu.solve(shape).unwrap();
            let twin = solve_by_volume_layers(shape).unwrap();
            assert_eq!(g.words(), twin.words(), "{shape}: GPU vs twin");
            assert_eq!(g.words(), solve(shape).unwrap().words(), "{shape}");
        }
    }
    // A box past 9x9 and not square, to cross a dispatch of many workgroups.
    let shape = ChompBox { rows: 11, cols: 13 };
    assert_eq!(
        gpu.solve(shape).unwrap().words(),
        solve(shape).unwrap().words()
    );
}

/// `chomp solve --backend gpu -o FILE` of a square (the hook kernel) writes the CPU's file
/// byte for byte (10×10 and 12×12), with the default table buffers and with small ones (21 to
/// 23 buffers, within lavapipe's bindings), and its `--bites` (read on the device) equal
/// `chomp bites --table` of that file.
#[test]
fn gpu_hook_file_and_bites_equal_the_cpus() {
    if crate::common::gpu_or_skip("gpu_hook_file_and_bites_equal_the_cpus").is_none() {
        return;
    }
    let dir = scratch_dir("chomp-gpu-hook-file");
    for (side, small) in [("10x10", "128"), ("12x12", "2048")] {
        let cpu = dir.join(format!("cpu-{side}.tbl"));
        let c = chompute(&[
            "chomp",
            "solve",
            "--box",
            side,
            "--json",
            "-o",
            cpu.to_str().unwrap(),
        ]);
        assert!(c.status.success(), "{}", stderr(&c));
        // Default buffers, small ones, and (10×10) the table read by plain loads.
        let plain = side == "10x10";
        for (words, reads) in [("", ""), (small, ""), ("", "plain")] {
            if reads == "plain" && !plain {
                continue;
            }
            let gpu = dir.join(format!("gpu-{side}-{words}-{reads}.tbl"));
            let o = std::process::Command::new(crate::common::bin())
                .args([
                    "--backend",
                    "gpu",
                    "chomp",
                    "solve",
                    "--box",
                    side,
                    "--json",
                ])
                .args(["--bites", "-o", gpu.to_str().unwrap()])
                .env("CHOMPUTE_GPU_TABLE_WORDS", words)
                .env("CHOMPUTE_GPU_TABLE_READS", reads)
                .output()
                .unwrap();
            assert!(o.status.success(), "{side} {words} {reads}: {}", stderr(&o));
            let err = stderr(&o);
            assert_eq!(
                err.contains(", plain reads"),
                reads == "plain",
                "{side} {reads}: {err}"
            );
            assert!(
                err.contains("largest binding"),
                "{side}: the preflight line: {err}"
            );
            assert_eq!(
                words.is_empty(),
                err.contains(" in 1 of at most"),
                "{side} with '{words}' words: one buffer only by default: {err}"
            );
            assert_eq!(
                std::fs::read(&cpu).unwrap(),
                std::fs::read(&gpu).unwrap(),
                "{side} with table buffers of '{words}' words, '{reads}' reads: the GPU's file"
            );
            let bites = chompute(&["chomp", "bites", "--table", cpu.to_str().unwrap(), "--json"]);
            assert!(bites.status.success(), "{}", stderr(&bites));
            let run = crate::common::json_of(&o);
            assert_eq!(
                run["rectangles"],
                crate::common::json_of(&bites)["rectangles"],
                "{side}: bites read on the device"
            );
            assert_eq!(
                run["p_positions"],
                crate::common::json_of(&c)["p_positions"]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table file written on the GPU goes through the one lifecycle every mode takes: its target
/// checked before any work, the lock on FILE (an flock on `FILE.partial`, which a CPU run
/// holds on its checkpoint) refusing a second writer, nothing left beside the file, and an
/// empty `FILE.partial` (the lock of a device run that was killed) taken for no checkpoint by
/// the GPU and the CPU alike. Both kernels: a box that is not square and a square.
#[test]
fn gpu_table_files_take_the_one_lock_and_leave_nothing_beside() {
    use std::os::fd::AsRawFd;
    if crate::common::gpu_or_skip("gpu_table_files_take_the_one_lock").is_none() {
        return;
    }
    let dir = scratch_dir("chomp-gpu-lock");
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let solve = |backend: &str, side: &str, out: &Path| {
        chompute(&[
            "--backend",
            backend,
            "chomp",
            "solve",
            "--box",
            side,
            "-o",
            out.to_str().unwrap(),
        ])
    };
    for side in ["7x9", "8x8"] {
        let (cpu, gpu) = (dir.join("cpu"), dir.join("gpu"));
        let c = solve("cpu", side, &cpu);
        assert!(c.status.success(), "{}", stderr(&c));
        let g = solve("gpu", side, &gpu);
        assert!(g.status.success(), "{side}: {}", stderr(&g));
        assert_eq!(std::fs::read(&cpu).unwrap(), std::fs::read(&gpu).unwrap());
        assert_eq!(
            names(),
            vec!["cpu".to_string(), "gpu".to_string()],
            "{side}"
        );
        std::fs::remove_file(&gpu).unwrap();
        // A run holding the lock: the GPU's run is refused at once and writes nothing.
        let partial = partial_path(&gpu);
        let held = std::fs::File::create(&partial).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(
            unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
        let g = solve("gpu", side, &gpu);
        assert_eq!(g.status.code(), Some(2), "{side}: {}", stderr(&g));
        assert!(stderr(&g).contains("another process"), "{}", stderr(&g));
        assert!(!gpu.exists());
        // Released and left empty, as by a killed device run: no checkpoint to either.
        drop(held);
        for backend in ["gpu", "cpu"] {
            let g = solve(backend, side, &gpu);
            assert!(g.status.success(), "{side} {backend}: {}", stderr(&g));
            assert_eq!(std::fs::read(&cpu).unwrap(), std::fs::read(&gpu).unwrap());
            assert_eq!(names(), vec!["cpu".to_string(), "gpu".to_string()]);
            std::fs::remove_file(&gpu).unwrap();
            std::fs::File::create(&partial).unwrap();
        }
        std::fs::remove_file(&partial).unwrap();
        std::fs::remove_file(&cpu).unwrap();
    }
    // A folder is refused before any work, and nothing is made beside it.
    std::fs::create_dir(dir.join("DIR")).unwrap();
    let g = solve("gpu", "7x9", &dir.join("DIR"));
    assert_eq!(g.status.code(), Some(2), "{}", stderr(&g));
    assert_eq!(names(), vec!["DIR".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A square whose table the device cannot bind is refused in one line before any work, with
/// the device's numbers: 22×22 (123 GiB of bits) on any adapter this project tests on, and
/// 12×12 in buffers of 2 words; a knob with a value it does not take is refused in one line.
#[test]
fn gpu_hook_refuses_a_table_past_the_devices_bindings_in_one_line() {
    if crate::common::gpu_or_skip("gpu_hook_refuses_a_table_past_the_devices_bindings").is_none() {
        return;
    }
    for (side, words) in [("22x22", ""), ("12x12", "2")] {
        let o = std::process::Command::new(crate::common::bin())
            .args(["--backend", "gpu", "chomp", "solve", "--box", side])
            .env("CHOMPUTE_GPU_TABLE_WORDS", words)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{side}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{side}: {err}");
        assert!(
            err.contains("largest binding") && err.contains("more buffers than the kernel binds"),
            "{side}: {err}"
        );
        assert!(stdout(&o).is_empty(), "{side}");
    }
    // The knobs' values are checked, in one line each.
    for (knob, value) in [
        ("CHOMPUTE_GPU_TABLE_WORDS", "many"),
        ("CHOMPUTE_GPU_TABLE_READS", "fast"),
    ] {
        let o = std::process::Command::new(crate::common::bin())
            .args(["--backend", "gpu", "chomp", "solve", "--box", "6x6"])
            .env(knob, value)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{knob}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{knob}: {err}");
        assert!(err.contains(knob) && err.contains(value), "{knob}: {err}");
    }
}

/// `chomp bites -o FILE.png` says what it wrote, as `chomp image` does, and prints the table
/// only when asked for a format beside the picture.
#[test]
fn bites_with_a_picture_say_what_they_wrote() {
    let dir = scratch_dir("chomp-bites-wrote");
    let png = dir.join("bites.png");
    let o = chompute(&[
        "chomp",
        "bites",
        "--box",
        "3x4",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        format!(
            "wrote {}: 12 rectangles up to 3x4, 11 with a winning bite",
            png.display()
        )
    );
    assert!(png.is_file());
    let o = chompute(&[
        "chomp",
        "bites",
        "--box",
        "2x2",
        "--csv",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("rows,cols,winning_bites,bites,cells\n"));
}
