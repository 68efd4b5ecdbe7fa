//! Games with a pass through the built binary: `gp`, `cb`, `nimpass`, `nimpass-grid`, each
//! checked against the plain recursive mex of the library (and Table 2 / Table 1 against the
//! paper).

use crate::common;

use chompute::pass::cb::{grundy_naive as cb_naive, FTable};
use chompute::pass::expr::parse;
use chompute::pass::gp::gp_naive;
use chompute::pass::nimpass::grundy_naive as nim_naive;
use common::{assert_usage_error, chompute, scratch_dir, stdout};
use serde_json::Value;
use std::collections::HashMap;

fn json(args: &[&str]) -> Value {
    let o = chompute(args);
    assert!(o.status.success(), "{args:?}: {}", common::stderr(&o));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn numbers(line: &str) -> Vec<u32> {
    line.split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// Table 2 of the paper, G_P(x,y) for 0 <= x,y <= 12.
const TABLE_2: &str = "
0 2 1 4 3 6 5 8 7 10 9 12 11
2 1 0 3 4 5 6 7 8 9 10 11 12
1 0 2 5 7 3 8 4 6 12 11 10 9
4 3 5 1 0 2 7 6 9 8 12 13 10
3 4 7 0 1 8 9 2 5 6 13 14 15
6 5 3 2 8 1 0 9 4 7 14 15 13
5 6 8 7 9 0 1 3 2 4 15 16 14
8 7 4 6 2 9 3 1 0 5 16 17 18
7 8 6 9 5 4 2 0 1 3 17 18 16
10 9 12 8 6 7 4 5 3 1 0 19 2
9 10 11 12 13 14 15 16 17 0 1 2 3
12 11 10 13 14 15 16 17 18 19 2 1 0
11 12 9 10 15 13 14 18 16 2 3 0 1";

#[test]
fn gp_13_prints_table_2() {
    let o = chompute(&["gp", "13"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(
        numbers(lines.next().unwrap()),
        (0..13).collect::<Vec<u32>>(),
        "header"
    );
    let paper: Vec<Vec<u32>> = TABLE_2.trim().lines().map(numbers).collect();
    let naive = gp_naive(13);
    for (x, line) in lines.enumerate() {
        let row = numbers(line);
        assert_eq!(row[0] as usize, x);
        assert_eq!(row[1..], paper[x][..], "row {x} against the paper");
        assert_eq!(row[1..], naive[x][..], "row {x} against the recursive mex");
    }
}

#[test]
fn gp_csv_and_json_match_the_recursive_mex() {
    let naive = gp_naive(37);
    let o = chompute(&["gp", "37", "--csv"]);
    let text = stdout(&o);
    let mut lines = text.lines();
    // The header names the columns: x, then y = 0..36.
    let header: Vec<String> = (0..37).map(|y: u32| y.to_string()).collect();
    assert_eq!(
        lines.next(),
        Some(format!("x,{}", header.join(",")).as_str())
    );
    let rows: Vec<Vec<u32>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    for (x, row) in rows.iter().enumerate() {
        assert_eq!(row[0], x as u32);
        assert_eq!(row[1..], naive[x][..], "row {x}");
    }
    assert_eq!(rows.len(), naive.len());
    let v = json(&["gp", "37", "--json"]);
    assert_eq!(v["value_bits"], 8);
    let rows: Vec<Vec<u32>> = serde_json::from_value(v["rows"].clone()).unwrap();
    assert_eq!(rows, naive);
}

#[test]
fn gp_check_reports_every_claim_with_its_range() {
    let o = chompute(&["gp", "301", "--check"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for name in [
        "Lemma 6",
        "Lemma 7",
        "Lemma 8",
        "Rows distinct",
        "Columns distinct",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in {text}"));
        assert!(
            line.contains(" pass ") && line.contains("0 <= x,y < 301"),
            "{line}"
        );
    }
    let v = json(&["gp", "300", "--check", "--json"]);
    assert_eq!(v["value_bits"], 16);
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["pass"] == true && c["checked"] == "90000"));
    // --check --csv: the claims, one row each.
    let o = chompute(&["gp", "50", "--check", "--csv"]);
    assert_eq!(o.status.code(), Some(0));
    let csv = stdout(&o);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], chompute::claim::CSV_HEADER);
    assert_eq!(rows.len(), 6, "{csv}");
    assert!(rows[1].starts_with("Lemma 6,theorem,pass,2500,"), "{csv}");
}

#[test]
fn gp_bad_input_exits_2() {
    assert_usage_error(&chompute(&["gp", "0"]), "at least 1");
    assert_usage_error(&chompute(&["gp", "x"]), "not a positive integer");
    assert_usage_error(&chompute(&["gp", "40000"]), "N must be between 1 and 32768");
    assert_usage_error(
        &chompute(&["gp", "4", "--csv", "--json"]),
        "cannot be used with",
    );
}

fn claims(v: &Value) -> HashMap<String, bool> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c["pass"] == true))
        .collect()
}

#[test]
fn cb_check_shows_theorem_2() {
    for (f, ns) in [
        ("floor(z/2)", true),
        ("pow2(log2(max(z,1)))-1", true),
        ("floor((x+z)/3)", false),
    ] {
        let v = json(&["cb", "--f", f, "--bound", "40,40", "--check", "--json"]);
        let c = claims(&v);
        assert!(c["Monotone"], "{f}");
        assert_eq!(c["NS property"], ns, "{f}");
        assert_eq!(c["Nim-sum formula"], ns, "{f}");
        assert!(c["Theorem 2"], "{f}");
    }
}

#[test]
fn cb_pass_check_passes_for_the_papers_h() {
    for f in ["floor(z/2)", "floor(z/4)", "pow2(log2(max(z,1)))-1"] {
        let o = chompute(&["cb", "--f", f, "--bound", "64,64", "--pass", "--check"]);
        assert_eq!(o.status.code(), Some(0), "{f}: {}", common::stderr(&o));
        let text = stdout(&o);
        for name in [
            "Theorem 3",
            "Theorem 4",
            "Corollary 2",
            "Corollary 3",
            "Corollary 4(a)",
            "Corollary 4(b)",
            "Corollary 4(c)",
        ] {
            let line = text
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("{name}"));
            assert!(
                line.contains(" pass ") && line.contains("x <= 64, 0 <= z <= 64"),
                "{f}: {line}"
            );
        }
    }
}

#[test]
fn cb_csv_matches_the_recursive_mex() {
    for f in ["floor((x+z)/3)", "floor(z/2)"] {
        let table = FTable::from_expr(&parse(f).unwrap(), 6, 9).unwrap();
        let pass = f == "floor(z/2)";
        let mut args = vec!["cb", "--f", f, "--bound", "6,9", "--csv"];
        if pass {
            args.push("--pass");
        }
        let o = chompute(&args);
        assert!(o.status.success());
        let text = stdout(&o);
        let mut memo = HashMap::new();
        let mut rows = 0;
        for line in text.lines().skip(1) {
            let v: Vec<u64> = line.split(',').map(|s| s.parse().unwrap()).collect();
            let (x, y, z) = (v[0], v[1], v[2]);
            let (p, g) = if pass {
                (v[3] == 1, v[4])
            } else {
                (false, v[3])
            };
            assert_eq!(
                g as u32,
                cb_naive(&table, x, y, z, p, &mut memo),
                "{f} {line}"
            );
            rows += 1;
        }
        let positions: u64 = (0..=6)
            .flat_map(|x| (0..=9).map(move |z| (x, z)))
            .map(|(x, z)| table.get(x, z) + 1)
            .sum();
        assert_eq!(rows, positions * if pass { 2 } else { 1 });
    }
}

/// Table 1 of the paper (h(z) = 2^⌊log₂ z⌋ - 1), rows y = 0..7, columns z = 0..15, with the
/// paper's blanks. The paper prints 13, 12 at (2,14), (2,15), where y^z is 12, 13: those two
/// cells are the only disagreements, and Corollary 1 (G = y^z) decides them.
const TABLE_1: [&str; 8] = [
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
    "- - 3 2 5 4 7 6 9 8 11 10 13 12 15 14",
    "- - - - 6 7 4 5 10 11 8 9 14 15 13 12",
    "- - - - 7 6 5 4 11 10 9 8 15 14 13 12",
    "- - - - - - - - 12 13 14 15 8 9 10 11",
    "- - - - - - - - 13 12 15 14 9 8 11 10",
    "- - - - - - - - 14 15 12 13 10 11 8 9",
    "- - - - - - - - 15 14 13 12 11 10 9 8",
];

#[test]
fn cb_table1_reproduces_the_paper() {
    let v = json(&["cb", "--f", "pow2(log2(max(z,1)))-1", "--table1", "--json"]);
    let table = v["table"].as_array().unwrap();
    assert_eq!(table.len(), 8);
    let mut differ = Vec::new();
    for (y, paper) in TABLE_1.iter().enumerate() {
        for (z, cell) in paper.split_whitespace().enumerate() {
            let ours = &table[y][z];
            if cell == "-" {
                assert!(ours.is_null(), "({y},{z}) blank");
            } else {
                assert_eq!(
                    ours.as_u64().unwrap() as usize,
                    y ^ z,
                    "Corollary 1 at ({y},{z})"
                );
                if ours.as_u64().unwrap() != cell.parse::<u64>().unwrap() {
                    differ.push((y, z));
                }
            }
        }
    }
    assert_eq!(differ, [(2, 14), (2, 15)]);
    assert!(claims(&v)["Corollary 1"]);
    let o = chompute(&["cb", "--f", "floor(z/2)", "--table1"]);
    assert!(o.status.success());
    assert!(stdout(&o)
        .lines()
        .any(|l| l.starts_with("Corollary 1") && l.contains(" pass ")));
}

#[test]
fn cb_bad_input_exits_2_with_the_column() {
    assert_usage_error(
        &chompute(&["cb", "--f", "floor(z/2))", "--bound", "4,4"]),
        "unexpected ')' at column 11",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "z +", "--bound", "4,4"]),
        "column 4",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "z/(x-x)", "--bound", "4,4"]),
        "division by zero",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "z-3", "--bound", "4,4"]),
        "negative",
    );
    assert_usage_error(&chompute(&["cb", "--f", "z/2"]), "--bound");
    assert_usage_error(&chompute(&["cb", "--f", "z/2", "--bound", "4"]), "X,Z");
    assert_usage_error(
        &chompute(&["cb", "--f", "floor((x+z)/3)", "--bound", "4,4", "--pass"]),
        "reads x",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "z/3", "--bound", "4,9", "--pass"]),
        "NS",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "z", "--bound", "4,9", "--pass"]),
        "h(z) < z",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "pow2(z)", "--bound", "4,4000"]),
        "pow2",
    );
    assert_usage_error(
        &chompute(&["cb", "--f", "z*z*z", "--bound", "400,400"]),
        "too large",
    );
}

#[test]
fn nimpass_lists_exactly_the_recursive_mex_p_positions() {
    for (k, m) in [(2usize, 30usize), (3, 9), (4, 5)] {
        let v = json(&[
            "nimpass",
            "--heaps",
            &k.to_string(),
            "--max",
            &m.to_string(),
            "--list",
            "--json",
        ]);
        assert_eq!(
            v["backend"], "cpu",
            "K = {k}: auto on a software adapter, or none"
        );
        let listed: Vec<Vec<usize>> = serde_json::from_value(v["positions"].clone()).unwrap();
        let mut memo = HashMap::new();
        let expected: Vec<Vec<usize>> = chompute::pass::nimpass::all_positions(k, m + 1)
            .into_iter()
            .filter(|h| {
                nim_naive(
                    &h.iter().map(|&a| a as u8).collect::<Vec<_>>(),
                    true,
                    &mut memo,
                ) == 0
            })
            .collect();
        assert_eq!(listed, expected, "K = {k}, M = {m}");
        assert_eq!(v["p_positions"], expected.len() as u64);
    }
    let o = chompute(&["nimpass", "--heaps", "3", "--max", "4", "--list"]);
    assert!(stdout(&o).lines().next().is_some_and(|l| l == "0 0 0"));
    // Four heaps on the GPU: the same list, and the JSON says where it ran.
    if common::gpu_or_skip("nimpass_lists_on_the_gpu").is_some() {
        let four = ["nimpass", "--heaps", "4", "--max", "5", "--list", "--json"];
        let on_gpu = json(&[&["--backend", "gpu"][..], &four[..]].concat());
        let on_cpu = json(&[&["--backend", "cpu"][..], &four[..]].concat());
        assert_eq!(
            (&on_gpu["backend"], &on_cpu["backend"]),
            (&"gpu".into(), &"cpu".into())
        );
        assert_eq!(on_gpu["positions"], on_cpu["positions"]);
    }
}

#[test]
fn nimpass_bad_input_exits_2() {
    assert_usage_error(
        &chompute(&["nimpass", "--heaps", "5", "--max", "3"]),
        "2..=4",
    );
    assert_usage_error(
        &chompute(&["nimpass", "--heaps", "4", "--max", "ten"]),
        "not a non-negative integer",
    );
    assert_usage_error(
        &chompute(&["nimpass", "--heaps", "4", "--max", "5000"]),
        "MiB",
    );
    // Too large for the CPU: the way out is a smaller maximum, not the CPU it ran on.
    let o = chompute(&[
        "nimpass",
        "--heaps",
        "4",
        "--max",
        "5000",
        "--backend",
        "cpu",
    ]);
    assert_usage_error(&o, "choose a smaller maximum");
    assert!(
        !common::stderr(&o).contains("--backend"),
        "{}",
        common::stderr(&o)
    );
    // Two heaps fit the memory to the u16 values' bound; past it, the flag the user gave.
    assert_usage_error(
        &chompute(&["nimpass", "--heaps", "2", "--max", "65534"]),
        "--max must be at most 65533 (got 65534)",
    );
    assert_usage_error(
        &chompute(&["nimpass", "--heaps", "2", "--max", "18446744073709551615"]),
        "--max must be at most 65533 (got 18446744073709551615)",
    );
}

#[test]
fn nimpass_grid_picture_is_blue_nim_and_red_pass() {
    let dir = scratch_dir("nimpass-grid");
    let path = dir.join("c14.png");
    let (m, scale) = (14usize, 3usize);
    let o = chompute(&[
        "nimpass-grid",
        "14",
        "-o",
        path.to_str().unwrap(),
        "--scale",
        "3",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    // Decoded to RGB, whatever the palette's bit depth.
    let mut decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    // The grid, then a legend below it (Nim P, pass P), at least as wide as the grid.
    assert!(w >= m * scale && h > m * scale, "{w}x{h}");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    let colour = |px: usize, py: usize| {
        let at = py * frame.line_size + 3 * px;
        buf[at..at + 3].to_vec()
    };
    // The legend has a swatch of each colour and black ink.
    let legend: std::collections::BTreeSet<Vec<u8>> = (m * scale..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| colour(x, y))
        .collect();
    for c in [[40, 90, 220], [220, 40, 40], [0, 0, 0]] {
        assert!(legend.contains(c.as_slice()), "legend colour {c:?}");
    }
    let mut memo = HashMap::new();
    let (mut red, mut blue) = (0, 0);
    for i in 1..=m {
        for j in 1..=m {
            let heaps = [i - 1, j - 1, m - i, m - j].map(|a| a as u8);
            let nim_p = heaps.iter().fold(0, |a, &b| a ^ b) == 0;
            let pass_p = nim_naive(&heaps, true, &mut memo) == 0;
            let c = colour((j - 1) * scale + 1, (i - 1) * scale + 2);
            let expected = match (nim_p, pass_p) {
                (true, false) => [40, 90, 220],
                (false, true) => [220, 40, 40],
                (false, false) => [255, 255, 255],
                (true, true) => unreachable!("only C(1,1)"),
            };
            assert_eq!(c, expected, "cell ({i},{j})");
            red += pass_p as u64;
            blue += nim_p as u64;
        }
    }
    assert!(red > 0, "C(14,14) has pass P-cells");
    assert!(stdout(&o).contains(&format!(
        "{red} pass P-cells (red), {blue} Nim P-cells (blue)"
    )));
}

#[test]
fn nimpass_grid_counts_match_the_recursive_mex() {
    let v = json(&["nimpass-grid", "--counts", "1..11", "--json"]);
    assert_eq!(v["backend"], "cpu", "auto on a software adapter, or none");
    let rows = v["counts"].as_array().unwrap();
    assert_eq!(rows.len(), 11);
    let mut memo = HashMap::new();
    for (k, row) in rows.iter().enumerate() {
        let m = k + 1;
        let (mut pass_p, mut nim_p) = (0u64, 0u64);
        for i in 1..=m {
            for j in 1..=m {
                let heaps = [i - 1, j - 1, m - i, m - j].map(|a| a as u8);
                nim_p += (heaps.iter().fold(0, |a, &b| a ^ b) == 0) as u64;
                pass_p += (nim_naive(&heaps, true, &mut memo) == 0) as u64;
            }
        }
        assert_eq!(row["m"], m as u64);
        assert_eq!(row["pass_p_cells"], pass_p, "M = {m}");
        assert_eq!(row["nim_p_cells"], nim_p, "M = {m}");
    }
    let o = chompute(&["nimpass-grid", "--counts", "6..6"]);
    assert_eq!(stdout(&o).lines().nth(1), Some("6\t8\t20"));
}

#[test]
fn nimpass_grid_bad_input_exits_2() {
    assert_usage_error(&chompute(&["nimpass-grid", "14"]), "-o FILE.png");
    assert_usage_error(&chompute(&["nimpass-grid", "--counts", "9..3"]), "empty");
    assert_usage_error(&chompute(&["nimpass-grid", "--counts", "1-3"]), "A..B");
    assert_usage_error(
        &chompute(&["nimpass-grid", "0", "-o", "x.png"]),
        "at least 1",
    );
    let dir = scratch_dir("nimpass-grid-bad");
    let missing = dir.join("no/such/dir/x.png");
    let o = chompute(&["nimpass-grid", "5", "-o", missing.to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(common::stderr(&o).trim_end().lines().count(), 1);
}

backend_tests! {
    /// Four heaps on the backend's own Nim with a pass (one handle, sides growing and then
    /// shrinking) against the GPU kernel's CPU twin, the line method, and the game tree.
    fn nimpass_four_heaps_match_the_twin_the_line_method_and_the_game(engine) {
        use chompute::pass::nimpass::{wavefront, NimPass};
        let nimpass = engine.nim_pass();
        assert_eq!(nimpass.backend(), engine.name());
        for side in [1usize, 5, 37, 70, 23] {
            let table = nimpass.four_heaps(side).unwrap();
            let twin = NimPass::from_wavefront(side, &wavefront::run_cpu(side));
            assert_eq!(table, twin, "against the CPU twin, side {side}");
            assert_eq!(
                table,
                NimPass::compute(4, side).unwrap(),
                "against the line method, side {side}"
            );
        }
        let side = 6;
        let table = nimpass.four_heaps(side).unwrap();
        let mut memo = HashMap::new();
        for heaps in chompute::pass::nimpass::all_positions(4, side) {
            let small: Vec<u8> = heaps.iter().map(|&a| a as u8).collect();
            assert_eq!(
                table.is_p(&heaps),
                nim_naive(&small, true, &mut memo) == 0,
                "against the game tree at {heaps:?}"
            );
        }
        assert!(nimpass.four_heaps(0).is_err());
        // Sides whose sizes wrap in 64 bits are too large, never a wrapped small buffer.
        for side in [65_535usize, (1 << 32) + 1, 1 << 43, usize::MAX] {
            match nimpass.four_heaps(side) {
                Err(chompute::Error::TooLarge { .. }) => {}
                other => panic!("side {side}: {:?}", other.map(|t| t.count())),
            }
        }
    }
}
