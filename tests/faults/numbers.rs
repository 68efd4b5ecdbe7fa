//! A property test over the command line's numbers: random u64s, zeros, maxima, 2^64 (one too
//! many), windows that overflow, malformed digits. Whatever the numbers, a run ends with
//! status 0, 1 or 2, never a panic or an abort; an error is one line; an error leaves no
//! file; a success leaves only whole files. Sizes that would be valid and large are left
//! out (the strategies draw small values or ones so large they must be refused), and a run
//! that passes its time limit is a failure.

use super::harness::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::time::Duration;

/// Numbers written oddly: one too many for a u64, signs, exponents, hex, blanks, underscores.
const MALFORMED: &[&str] = &[
    "18446744073709551616",
    "99999999999999999999999",
    "-1",
    "1e3",
    "0x10",
    "",
    "1__0",
    "+5",
    " 7",
];

/// Values so large that every command must refuse them at once.
const HUGE: &[u64] = &[u64::MAX, u64::MAX - 1, 1 << 63, (1 << 40) + 1];

/// A numeric argument: mostly small, often an edge (zero, the maxima, 2^31-1, a random u64).
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (1u64..=64).prop_map(|v| v.to_string()),
        1 => Just("0".to_string()),
        2 => prop::sample::select([HUGE, &[(1 << 31) - 1, 1 << 31]].concat())
            .prop_map(|v| v.to_string()),
        2 => any::<u64>().prop_map(|v| v.to_string()),
        1 => prop::sample::select(MALFORMED).prop_map(String::from),
    ]
}

/// An argument that is small (at most `max`) or one no command can take; for sizes whose
/// valid middle values are costly (picture sides, box sides, players).
fn small(max: u64) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (1u64..=max).prop_map(|v| v.to_string()),
        1 => Just("0".to_string()),
        2 => prop::sample::select(HUGE).prop_map(|v| v.to_string()),
        1 => prop::sample::select(MALFORMED).prop_map(String::from),
    ]
}

/// A level of the octahedron: the quick ones, the largest, and too large.
fn level() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..=8).prop_map(|v| v.to_string()),
        1 => prop::sample::select(vec!["60", "61", "4294967295", "4294967296", "-1"])
            .prop_map(String::from),
    ]
}

/// A command line from a template: `{0}`..`{5}` are numbers, `{S0}`..`{S2}` small numbers
/// (at most 64), `{R}` a tiny one (at most 4), `{L}` a level, `{D}` the case's directory;
/// `~` marks an argument that may come out empty.
fn case(template: &'static str) -> impl Strategy<Value = Vec<String>> {
    (
        prop::collection::vec(number(), 6),
        prop::collection::vec(small(64), 3),
        small(4),
        level(),
    )
        .prop_map(move |(n, sm, r, l)| {
            let mut line = template.to_string();
            for (k, v) in n.iter().enumerate() {
                line = line.replace(&format!("{{{k}}}"), v);
            }
            for (k, v) in sm.iter().enumerate() {
                line = line.replace(&format!("{{S{k}}}"), v);
            }
            line = line.replace("{R}", &r).replace("{L}", &l);
            line.split(' ').map(|a| a.replace('~', "")).collect()
        })
}

/// Run one command line in a fresh directory and judge it.
fn judge(args: &[String]) {
    static CASE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CASE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch(&format!("numbers-case-{n}"));
    let args: Vec<String> = args.iter().map(|a| a.replace("{D}", s(&dir))).collect();
    let mut c = command(&["--backend", "cpu"]);
    c.args(&args);
    // Every legal case ends in well under a second alone (the largest section picture,
    // `octahedron 60 --m 53 --px 57`, walks only the octahedra its plane cuts); 20 s leaves
    // room for a loaded machine and still catches a hang.
    let r = run_for(c, Duration::from_secs(20));
    assert!(!r.timed_out, "{}: still running after 20 s", r.what);
    r.assert_no_panic();
    let code = r.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{}: exit status {code:?}; stderr: {}",
        r.what,
        r.stderr
    );
    assert_no_temporaries(&dir, &r.what);
    let left = files(&dir);
    if code == Some(2) {
        let lines = r.stderr_lines();
        assert_eq!(
            lines.len(),
            1,
            "{}: one line for an error: {lines:?}",
            r.what
        );
        assert!(
            lines[0].starts_with("chompute: "),
            "{}: {}",
            r.what,
            lines[0]
        );
    }
    if code != Some(0) {
        assert!(left.is_empty(), "{}: failed but left {left:?}", r.what);
    }
    for f in &left {
        assert_complete(f, &r.what);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn check_all(templates: &[&'static str], cases: u32) {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    };
    for &t in templates {
        let mut runner = TestRunner::new(config.clone());
        runner
            .run(&case(t), |args| {
                judge(&args);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{t}: {e}"));
    }
}

#[test]
fn counts_and_grids_take_any_numbers() {
    check_all(
        &[
            "count ~{0} ~{1}",
            "count ~{0} ~{1} --method histogram --json",
            "grid ~{0} ~{1}",
            "gp ~{0} --check",
            "theorems --max-m ~{S0}",
        ],
        24,
    );
}

#[test]
fn games_with_a_pass_take_any_numbers() {
    check_all(
        &[
            "nimpass --heaps ~{R} --max ~{S0}",
            "nimpass-grid --counts ~{0}..~{1}",
            "nimpass-grid ~{0} -o {D}/n.png --scale ~{2}",
            "cb --f floor(z/2) --bound ~{0},~{S1}",
            "cb --f floor(z/2) --bound ~{S0},~{1}",
            "cb --f floor(z/2) --bound ~{S0},~{S1} --pass --check",
        ],
        24,
    );
}

#[test]
fn the_automaton_and_the_octahedron_take_any_numbers() {
    check_all(
        &[
            "ca ~{0}",
            "ca ~{S0} --frames {D}/FR --every ~{1}",
            "octahedron {L} --m ~{0}/~{1} -o {D}/s.png --px ~{2}",
            "octahedron {L} --m ~{0} -o {D}/s.png --px ~{S0}",
            "octahedron {L} --check",
        ],
        24,
    );
}

#[test]
fn chomp_takes_any_numbers() {
    check_all(
        &[
            "chomp ord --rule 0,2,1 --box ~{R}x~{S0}",
            "chomp ord --rule 0,2,1 --box ~{R}x~{S0} --list ~{2}",
            "chomp classes --players ~{R} --box ~{R}x~{R}",
            "chomp image --rule 0,2,1 --first-row ~{0} --scale ~{1} -o {D}/c.png",
            "chomp image --rule 0,2,1 --rows 2 --first-row ~{0} -o {D}/c.png",
        ],
        24,
    );
}

#[test]
fn render_takes_any_windows() {
    // Windows of at most 64×64 cells, scaled at most 64 times, anywhere in bars of any size,
    // so nothing huge is drawn; the starts and the bars overflow freely. Whole huge bars
    // (--fit, --tiles without a window) have their own tests.
    check_all(
        &[
            "render ~{0} ~{1} --window ~{2},~{3},~{S0},~{S1} -o {D}/w.png",
            "render ~{0} ~{1} --window ~{2},~{3},~{S0},~{S1} --cell ~{S2} -o {D}/w.png",
            "render ~{0} ~{0} --window ~{2},~{2},~{S0},~{S0} --dzi {D}/DZ --tile-size ~{4}",
            "render ~{0} ~{1} --window ~{2},~{3},~{S0},~{S1} --tiles {D}/T --tile-size ~{4} --shard ~{5}/~{S2}",
        ],
        24,
    );
}
