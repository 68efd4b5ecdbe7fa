//! Multiplayer Chomp end to end: the two engines against each other, two players against plain
//! win/lose Chomp, rule classes across boxes, the paper's claims, and the CLI as a user runs it.

use crate::common;

use chompute::chomp::multiplayer::ordinal::{
    ordinals_by_volume, ordinals_in_rank_order, OrdEngine, OrdPlan,
};
use chompute::chomp::multiplayer::packed::PackedOrds;
use chompute::chomp::{
    all_normalised_rules, ordinals_three_rows, rule_classes, Choice, ChompBox, Diagram, Ranker,
    Rule,
};
use common::{assert_usage_error, chompute, scratch_dir, stderr, stdout};
use std::collections::{BTreeSet, HashMap};

#[test]
fn three_row_engine_matches_general_engine_on_every_box_up_to_60() {
    for rule in ["0,1", "0,2,1", "2,0,1", "1,2,0", "1,3,0,2", "4,0,3,1,2"] {
        let rule = Rule::parse(rule).unwrap();
        let choice = Choice::new(&rule);
        for cols in 1..=60u32 {
            let ranker = Ranker::new(ChompBox { rows: 3, cols }).unwrap();
            let general = ordinals_in_rank_order(&ranker, &choice).unwrap();
            let mut fast = Vec::with_capacity(general.len());
            ordinals_three_rows(cols, &choice, |_, s| fast.extend_from_slice(s));
            assert_eq!(fast.len(), general.len());
            if let Some(i) = (0..fast.len()).find(|&i| fast[i] != general[i]) {
                panic!(
                    "rule {rule}, 3x{cols}: at {} three-row {} vs general {}",
                    ranker.unrank(i as u64),
                    fast[i],
                    general[i]
                );
            }
        }
    }
}

#[test]
fn packed_engine_equals_the_byte_engines_on_boxes_of_many_shapes() {
    let shapes = [
        (5, 7),
        (7, 5),
        (6, 6),
        (9, 4),
        (4, 9),
        (8, 8),
        (10, 6),
        (1, 60),
        (60, 1),
        (2, 40),
        (13, 3),
    ];
    let mut rules: Vec<Rule> = all_normalised_rules(3);
    for r in ["1,3,0,2", "3,2,1,0", "0,1,2,3", "2,0,3,1", "0,3,1,4,2"] {
        rules.push(Rule::parse(r).unwrap());
    }
    for rule in &rules {
        let choice = Choice::new(rule);
        for (rows, cols) in shapes {
            let shape = ChompBox { rows, cols };
            let ranker = Ranker::new(shape).unwrap();
            let want = ordinals_in_rank_order(&ranker, &choice).unwrap();
            let by_volume = ordinals_by_volume(&ranker, &choice).unwrap();
            assert_eq!(by_volume, want, "volume layers, {rule} on {shape}");
            let packed = PackedOrds::compute(&ranker, &choice).unwrap();
            if let Some(r) = (0..want.len()).find(|&r| packed.get(r as u64) != want[r]) {
                panic!(
                    "{rule} on {shape}: at {} packed {} vs rank order {}",
                    ranker.unrank(r as u64),
                    packed.get(r as u64),
                    want[r]
                );
            }
            let table = OrdPlan::new(shape, OrdEngine::Auto)
                .unwrap()
                .table(rule)
                .unwrap();
            assert_eq!(table.to_bytes(), want, "auto, {rule} on {shape}");
        }
    }
}

/// Plain Chomp: the mover loses at P iff every move except eating the poisoned last cell leads
/// to a position where the mover wins.
fn mover_loses(p: &Diagram, memo: &mut HashMap<Diagram, bool>) -> bool {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let mut loses = true;
    'all: for x in 0..p.height() {
        for t in 0..p.rows()[x] {
            let q = p.bite(x, t);
            if !q.is_empty() && mover_loses(&q, memo) {
                loses = false;
                break 'all;
            }
        }
    }
    memo.insert(p.clone(), loses);
    loses
}

#[test]
fn two_player_list_is_the_three_row_p_positions() {
    let o = chompute(&[
        "chomp", "ord", "--rule", "0,1", "--box", "3x14", "--list", "1",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let listed: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    let mut memo = HashMap::new();
    let mut want = Vec::new();
    for a in 1..=14u32 {
        for b in 0..=a {
            for c in 0..=b {
                let p = Diagram::new(vec![a, b, c]).unwrap();
                if mover_loses(&p, &mut memo) {
                    want.push(p.to_string());
                }
            }
        }
    }
    assert_eq!(listed, want);
    // docs/mathematics.md §5: (a, a-1) and the symmetric L (3,1,1) are among them; no
    // rectangle but (1) is.
    for a in 1..=14 {
        assert!(listed.contains(&format!("{a},{}", a - 1).trim_end_matches(",0").to_string()));
        assert!(!listed.contains(&format!("{a},{a},{a}")));
        assert!(a == 1 || !listed.contains(&format!("{a}")));
    }
    assert!(listed.contains(&"3,1,1".to_string()));
}

type Partition = BTreeSet<Vec<String>>;

fn partition(shape: ChompBox, n: usize) -> Partition {
    let ranker = Ranker::new(shape).unwrap();
    rule_classes(&ranker, &all_normalised_rules(n))
        .unwrap()
        .into_iter()
        .map(|c| c.members.iter().map(Rule::normalised).collect())
        .collect()
}

#[test]
fn classes_for_three_and_four_players_are_stable_from_5x5_to_6x6() {
    for n in [3, 4] {
        let small = partition(ChompBox { rows: 5, cols: 5 }, n);
        let large = partition(ChompBox { rows: 6, cols: 6 }, n);
        assert_eq!(small, large, "{n} players");
        let count: usize = small.iter().map(Vec::len).sum();
        assert_eq!(count, (1..=n).product::<usize>());
        // Same order ⇒ same class [Thm 3.3]: a rule given by other numbers with the same
        // order has the table of its normalised form.
        let ranker = Ranker::new(ChompBox { rows: 5, cols: 5 }).unwrap();
        let f = Rule::parse(if n == 3 {
            "10,-3.25,7"
        } else {
            "0.5,100,-1e3,2"
        })
        .unwrap();
        let g = Rule::from_perm(f.perm.clone());
        assert_eq!(
            ordinals_in_rank_order(&ranker, &Choice::new(&f)).unwrap(),
            ordinals_in_rank_order(&ranker, &Choice::new(&g)).unwrap()
        );
    }
}

#[test]
fn classes_cli_reports_and_checks() {
    let o = chompute(&[
        "chomp",
        "classes",
        "--players",
        "3",
        "--box",
        "5x5",
        "--json",
        "--check",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["rules"], 6);
    let classes = v["classes"].as_array().unwrap();
    assert_eq!(classes.len() as u64, v["class_count"].as_u64().unwrap());
    let from_lib = partition(ChompBox { rows: 5, cols: 5 }, 3);
    let from_cli: Partition = classes
        .iter()
        .map(|c| {
            c["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    assert_eq!(from_cli, from_lib);
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["pass"] == true));
    assert_usage_error(
        &chompute(&["chomp", "classes", "--players", "1", "--box", "3x3"]),
        "players",
    );
}

#[test]
fn claims_hold_over_boxes_for_several_rules() {
    for (rule, shape) in [
        ("0,1", "5x6"),
        ("0,2,1", "6x6"),
        ("2,1,0", "4x7"),
        ("1,3,0,2", "5x5"),
        ("3,1,4,0,2", "3x9"),
    ] {
        let o = chompute(&["chomp", "ord", "--rule", rule, "--box", shape, "--check"]);
        let out = stdout(&o);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{rule} {shape}: {out}{}",
            common::stderr(&o)
        );
        let claims: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("Theorem 2.") || l.starts_with("Fact 2."))
            .collect();
        assert_eq!(claims.len(), 8, "{out}");
        assert!(claims.iter().all(|l| l.contains(" pass ")), "{out}");
        for name in [
            "Theorem 2.7",
            "Theorem 2.8",
            "Fact 2.9 (i)",
            "Fact 2.9 (iv)",
            "Res form",
        ] {
            assert!(out.contains(name), "{name} reported");
        }
    }
}

#[test]
fn ord_reports_position_sol_and_chain() {
    let o = chompute(&[
        "chomp",
        "ord",
        "--rule",
        "5,-1.5,3",
        "--box",
        "4x5",
        "--position",
        "3,2,1",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["rule"], "2,0,1");
    assert_eq!(v["players"], 3);
    assert_eq!(v["positions"], 126);
    let hist: u64 = v["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_u64().unwrap())
        .sum();
    assert_eq!(hist, 126);
    // Cross-check the report against the library's own table.
    let rule = Rule::parse("2,0,1").unwrap();
    let t = chompute::chomp::OrdTable::compute(ChompBox { rows: 4, cols: 5 }, &rule).unwrap();
    let p = Diagram::parse("3,2,1").unwrap();
    let ord = t.ordinal(&p).unwrap();
    assert_eq!(v["position"]["ordinal"], ord);
    let chain: Vec<&str> = v["position"]["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        chain.len(),
        ord as usize + 1,
        "a solution chain from P has ord P moves"
    );
    assert_eq!(chain.first(), Some(&"3,2,1"));
    assert_eq!(chain.last(), Some(&"0"));
    for w in chain.windows(2) {
        let (from, to) = (Diagram::parse(w[0]).unwrap(), Diagram::parse(w[1]).unwrap());
        assert!(
            t.sol(&from).contains(&to),
            "{from} -> {to} is a solution move"
        );
    }
    let sol: Vec<&str> = v["position"]["sol"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(sol.contains(&chain[1]));

    // Text output names the normalised rule, the histogram and the chain.
    let o = chompute(&["chomp", "ord", "--rule", "5,-1.5,3", "--position", "3,2,1"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        out.contains("rule 2,0,1 (normalised from 5,-1.5,3)"),
        "{out}"
    );
    assert!(out.contains("solution chain: (3,2,1) -> "), "{out}");
    assert!(out.contains("Sol = {"), "{out}");
}

#[test]
fn ord_engines_agree_through_the_cli() {
    let run = |engine: &str| {
        let o = chompute(&[
            "chomp", "ord", "--rule", "0,2,1", "--box", "3x25", "--engine", engine, "--csv",
        ]);
        assert_eq!(o.status.code(), Some(0));
        stdout(&o)
    };
    let g = run("general");
    assert_eq!(g, run("three-row"));
    assert_eq!(g, run("packed"));
    assert!(g.starts_with("ordinal,positions\n0,1\n"), "{g}");
    let list = |engine: &str| {
        let o = chompute(&[
            "chomp", "ord", "--rule", "0,2,1", "--box", "3x25", "--engine", engine, "--list", "3",
        ]);
        stdout(&o)
    };
    assert_eq!(list("general"), list("three-row"));
    // The list as JSON and as CSV (rows padded to the box).
    let o = chompute(&[
        "chomp", "ord", "--rule", "0,2,1", "--box", "3x25", "--list", "3", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let json_list: Vec<String> = v["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    assert_eq!(json_list.join("\n") + "\n", list("three-row"));
    assert_eq!(json_list.len() as u64, v["histogram"][3].as_u64().unwrap());
    let o = chompute(&[
        "chomp", "ord", "--rule", "0,2,1", "--box", "3x25", "--list", "2", "--csv",
    ]);
    let csv = stdout(&o);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("a1,a2,a3"));
    assert!(lines.all(|l| l.split(',').count() == 3));
    // A box of 6 rows: auto is the packed engine, and it answers as the byte engines do.
    let six = |engine: &str| {
        let o = chompute(&[
            "chomp",
            "ord",
            "--rule",
            "1,0,3,2",
            "--box",
            "6x5",
            "--engine",
            engine,
            "--position",
            "5,4,4,2,1",
            "--list",
            "4",
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0));
        let mut v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        v["seconds"] = 0.into();
        v["engine"] = "".into();
        v
    };
    let auto = six("auto");
    assert_eq!(auto, six("general"));
    assert_eq!(auto, six("layers"));
    assert_eq!(auto, six("packed"));
}

/// The default engine on a square keeps one entry a transposed pair; on 13x13 its whole
/// report (histogram, a position's ordinal, Sol and chain, the positions of ordinal 1, the
/// rectangles) is the byte engine's, and so is the colex twin's.
#[test]
fn a_square_by_transposed_pairs_reports_what_the_byte_engine_does_on_13x13() {
    let run = |engine: &str| {
        let o = chompute(&[
            "chomp",
            "ord",
            "--rule",
            "0,1,2",
            "--box",
            "13x13",
            "--engine",
            engine,
            "--position",
            "13,11,11,8,5,5,2",
            "--list",
            "1",
            "--rectangles",
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        let name = v["engine"].as_str().unwrap().to_string();
        v["seconds"] = 0.into();
        v["engine"] = "".into();
        (name, v)
    };
    let (name, auto) = run("auto");
    assert_eq!(name, "packed");
    let (_, general) = run("general");
    assert_eq!(auto["histogram"], general["histogram"]);
    assert!(auto["list"].as_array().unwrap().len() > 1000);
    assert_eq!(auto["rectangles"].as_array().unwrap().len(), 169);
    assert_eq!(auto, general);
    assert_eq!(auto, run("packed-colex").1);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for (args, msg) in [
        (vec!["--rule", "1", "--box", "3x3"], "at least 2 players"),
        (vec!["--rule", "1,2,1.0", "--box", "3x3"], "equal"),
        (vec!["--rule", "1,x", "--box", "3x3"], "not a number"),
        (vec!["--rule", "0,1", "--box", "3by3"], "not a box"),
        (
            vec!["--rule", "0,1", "--box", "3x3", "--position", "1,2"],
            "must not increase",
        ),
        (
            vec!["--rule", "0,1", "--box", "3x3", "--position", "4"],
            "does not fit",
        ),
        (
            vec!["--rule", "0,1", "--box", "3x3", "--list", "3"],
            "ordinals",
        ),
        (
            vec!["--rule", "0,1", "--box", "4x3", "--engine", "three-row"],
            "3 rows",
        ),
        (vec!["--rule", "0,1"], "--box"),
    ] {
        let mut full = vec!["chomp", "ord"];
        full.extend(args);
        assert_usage_error(&chompute(&full), msg);
    }
    // A negative first entry is a number, not a flag.
    let o = chompute(&["chomp", "ord", "--rule", "-1,2,0", "--box", "2x2"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(stdout(&o).contains("rule 0,2,1"));
}

#[test]
fn image_colours_cells_by_ordinal_with_a_legend() {
    let dir = scratch_dir("chomp-image");
    for rows in ["3", "2"] {
        let path = dir.join(format!("rows{rows}.png"));
        let o = chompute(&[
            "chomp",
            "image",
            "--rule",
            "0,2,1",
            "--rows",
            rows,
            "--first-row",
            "20",
            "--scale",
            "3",
            "-o",
            path.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Indexed);
        let width = info.width as usize;
        // The grid starts after the axis bands, the legend below it.
        let band = chompute::render::picture::label::AXIS_BAND as usize;
        assert!(
            info.height as usize > band + 21 * 3,
            "a legend below the grid"
        );
        // The axis labels are ink (palette index 1) in the bands above and left of the grid.
        assert!(buf[..band * width].contains(&1), "a label above the grid");
        assert!(
            (band..band + 63).any(|y| buf[y * width..y * width + band].contains(&1)),
            "a label left of the grid"
        );
        let rule = Rule::parse("0,2,1").unwrap();
        let choice = Choice::new(&rule);
        let mut plane = Vec::new();
        if rows == "3" {
            ordinals_three_rows(20, &choice, |a, s| {
                if a == 20 {
                    plane = s.to_vec();
                }
            });
        } else {
            plane = ordinals_in_rank_order(
                &Ranker::new(ChompBox { rows: 2, cols: 20 }).unwrap(),
                &choice,
            )
            .unwrap();
        }
        // Cell (y, x) with x ≤ y is ordinal plane[tri(y) + x], drawn as palette index 2 + ord;
        // cells above the diagonal are background.
        let mut i = 0;
        for y in 0..=20usize {
            for x in 0..=20usize {
                let px = buf[(band + y * 3 + 1) * width + band + x * 3 + 1];
                if x <= y {
                    assert_eq!(px, 2 + plane[i], "cell ({y},{x})");
                    i += 1;
                } else {
                    assert_eq!(px, 0);
                }
            }
        }
        // Every ordinal 0..=3 has a swatch in the legend.
        let legend: BTreeSet<u8> = buf[(band + 21 * 3) * width..].iter().copied().collect();
        for k in 0..=3u8 {
            assert!(legend.contains(&(2 + k)), "legend swatch for ordinal {k}");
        }
    }
    assert_usage_error(
        &chompute(&[
            "chomp",
            "image",
            "--rule",
            "0,1",
            "--rows",
            "4",
            "--first-row",
            "5",
            "-o",
            "x.png",
        ]),
        "--rows",
    );
    // A scale too large for the plane is refused before its 4001² positions are computed
    // (about a minute of work on two cores when it came after them).
    assert_usage_error(
        &chompute(&[
            "chomp",
            "image",
            "--rule",
            "0,1,2",
            "--first-row",
            "4000",
            "--scale",
            "9",
            "-o",
            "x.png",
        ]),
        "--scale must be at least 1 and at most 8 for a plane of side 4001 (got 9)",
    );
}

/// The committed 3-player data (`docs/data/chomp-ord3-16x16.json`: the ordinal and Sol of every
/// rectangle up to 16×16 under each of the six normalised rules) against fresh
/// `chomp ord --rectangles --json` runs on 8×8 where they overlap (a position's ordinal and Sol
/// do not depend on the box).
#[test]
fn the_committed_3_player_rectangle_data_equals_a_fresh_8x8_run() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data/chomp-ord3-16x16.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(data["box"], "16x16");
    assert_eq!(data["players"], 3);
    let rules = data["rules"].as_array().unwrap();
    let names: Vec<&str> = rules.iter().map(|r| r["rule"].as_str().unwrap()).collect();
    let want: Vec<String> = all_normalised_rules(3)
        .iter()
        .map(Rule::normalised)
        .collect();
    assert_eq!(names, want);
    for committed in rules {
        let rule = committed["rule"].as_str().unwrap();
        assert_eq!(committed["box"], "16x16");
        let rects = committed["rectangles"].as_array().unwrap();
        assert_eq!(rects.len(), 256, "{rule}");
        let mut by_size = HashMap::new();
        for r in rects {
            let key = (r["rows"].as_u64().unwrap(), r["cols"].as_u64().unwrap());
            by_size.insert(key, (r["ordinal"].clone(), r["sol"].clone()));
        }
        let fresh = common::json_of(&chompute(&[
            "chomp",
            "ord",
            "--rule",
            rule,
            "--box",
            "8x8",
            "--rectangles",
            "--json",
        ]));
        let rects = fresh["rectangles"].as_array().unwrap();
        assert_eq!(rects.len(), 64);
        for r in rects {
            let key = (r["rows"].as_u64().unwrap(), r["cols"].as_u64().unwrap());
            assert_eq!(
                by_size[&key],
                (r["ordinal"].clone(), r["sol"].clone()),
                "rule {rule}, {key:?}"
            );
        }
        // The histogram of the whole 16×16 box covers every position once.
        let hist = committed["histogram"].as_array().unwrap();
        let total: u64 = hist.iter().map(|c| c.as_u64().unwrap()).sum();
        assert_eq!(total, 601_080_390, "{rule}");
    }
}
