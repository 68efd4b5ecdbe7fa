//! `chompute theorems`: every claim passes to M = 1024; names are stable; `--claim` checks the
//! claims named; bad input.

use crate::common;

use common::*;

const NAMES: [&str; 15] = [
    "prop-3.1-symmetry",
    "prop-3.2-diagonals",
    "thm-3.3-doubling",
    "thm-3.4-corners-and-centre",
    "recursive-constructor",
    "g-doubling",
    "g-odd",
    "g-corners-and-centre",
    "sum-odd",
    "sum-power",
    "sum-mersenne",
    "window-counts",
    "g-recurrence-values",
    "automaton",
    "octahedron",
];

#[test]
fn every_claim_holds_to_1024() {
    let o = chompute(&["theorems", "--max-m", "1024", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["max_m"], 1024);
    assert_eq!(v["all_pass"], true);
    let claims = v["claims"].as_array().unwrap();
    let names: Vec<&str> = claims.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, NAMES);
    for c in claims {
        assert_eq!(c["pass"], true, "{c}");
        assert!(checked(c) > 0, "{c}");
        assert!(c["counterexample"].is_null());
    }
    // Per-cell claims cover every cell of every C(m,m), m ≤ 1024.
    let cells: u64 = (1..=1024u64).map(|m| m * m).sum();
    let by_name = |n: &str| checked(claims.iter().find(|c| c["name"] == n).unwrap());
    assert_eq!(by_name("prop-3.1-symmetry"), 3 * cells);
    assert_eq!(by_name("automaton"), cells);
    assert_eq!(by_name("octahedron"), cells);
    // Every m: the whole square and 7 windows; 2000 squares and 200 deep windows beyond.
    assert_eq!(by_name("window-counts"), 1024 * 8 + 2000 + 200);
}

/// A claim's count: a JSON string, since it can pass 2^53.
fn checked(c: &serde_json::Value) -> u64 {
    c["checked"].as_str().unwrap().parse().unwrap()
}

#[test]
fn table_output() {
    let o = chompute(&["theorems", "--max-m", "40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for n in NAMES {
        assert!(
            out.lines().any(|l| l.starts_with(n) && l.contains("pass")),
            "{n} in {out}"
        );
    }
    assert!(out.contains("15 of 15 claims hold for every m ≤ 40"));
    // --csv: a header and one row per claim, in order.
    let o = chompute(&["theorems", "--max-m", "40", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], chompute::claim::CSV_HEADER);
    assert_eq!(rows.len(), 1 + NAMES.len(), "{csv}");
    for (row, n) in rows[1..].iter().zip(NAMES) {
        assert!(row.starts_with(&format!("{n},theorem,pass,")), "{row}");
    }
}

#[test]
fn named_claims_run_on_their_own() {
    let run = |args: &[&str]| -> serde_json::Value {
        let o = chompute(args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let whole = run(&["theorems", "--max-m", "45", "--json"]);
    // Named in any order and more than once: each once, in the table's order.
    let some = run(&[
        "theorems",
        "--max-m",
        "45",
        "--json",
        "--claim",
        "sum-odd",
        "--claim",
        "g-odd",
        "--claim",
        "prop-3.2-diagonals",
        "--claim",
        "g-odd",
    ]);
    assert_eq!(some["all_pass"], true);
    let claims = some["claims"].as_array().unwrap();
    let names: Vec<&str> = claims.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["prop-3.2-diagonals", "g-odd", "sum-odd"]);
    // Each is the row of the whole table, timing aside.
    for c in claims {
        let row = whole["claims"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == c["name"])
            .unwrap();
        for key in [
            "statement",
            "kind",
            "range",
            "checked",
            "pass",
            "counterexample",
        ] {
            assert_eq!(c[key], row[key], "{key} of {}", c["name"]);
        }
    }
    let o = chompute(&["theorems", "--max-m", "45", "--claim", "octahedron"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        out.lines().nth(1).unwrap().starts_with("octahedron "),
        "{out}"
    );
    assert!(out.contains("1 of 1 claims hold for every m ≤ 45"), "{out}");
}

#[test]
fn theorems_bad_input() {
    let o = chompute(&[
        "theorems", "--max-m", "20", "--claim", "g-odd", "--claim", "g-even",
    ]);
    assert_usage_error(&o, "--claim must be one of");
    let err = stderr(&o);
    assert!(err.contains("(got 'g-even')"), "{err}");
    for n in NAMES {
        assert!(err.contains(n), "the error lists {n}: {err}");
    }
    assert!(o.stdout.is_empty(), "nothing checked");
    assert_usage_error(&chompute(&["theorems", "--max-m", "0"]), "at least 1");
    assert_usage_error(&chompute(&["theorems", "--max-m", "100000"]), "at most");
    assert_usage_error(&chompute(&["theorems"]), "--max-m");
}
