//! Exit statuses: 0 success, 1 a check found a disagreement, 2 any error, 130 interrupted
//! (the interrupt tests check 130), stated in `--help`.

use super::harness::*;
use std::time::Duration;

#[test]
fn help_states_the_exit_statuses() {
    let r = run(&["--help"]);
    r.assert_success();
    let help = String::from_utf8_lossy(&r.stdout);
    for part in [
        "Exit status",
        "0 success",
        "1 a check",
        "2 an error",
        "130 interrupted",
    ] {
        assert!(help.contains(part), "--help should say {part:?}:\n{help}");
    }
}

#[test]
fn only_a_disagreement_exits_with_1() {
    let dir = scratch("status");
    // A check that finds a disagreement (a generator corrupted on purpose).
    let out = dir.join("v.png");
    let mut c = command(&[
        "--backend",
        "cpu",
        "render",
        "70",
        "--verify",
        "-o",
        s(&out),
    ]);
    c.env("CHOMPUTE_TEST_CORRUPT_CELLS", "1");
    let r = run_for(c, Duration::from_secs(60));
    r.assert_no_panic();
    assert_eq!(r.code(), Some(1), "{}", r.stderr);
    assert!(all_paths(&dir).is_empty());
    // File errors are errors: 2.
    run(&[
        "--backend",
        "cpu",
        "render",
        "11",
        "-o",
        s(&dir.join("no/x.png")),
    ])
    .assert_error("does not exist");
    let t = dir.join("T");
    run(&[
        "--backend",
        "cpu",
        "render",
        "64",
        "--tiles",
        s(&t),
        "--tile-size",
        "32",
    ])
    .assert_success();
    std::fs::remove_file(t.join("tile-1-1.png")).unwrap();
    run(&["assemble", s(&t), "-o", s(&dir.join("a.png"))]).assert_error("tile-1-1.png");
    run(&[
        "assemble",
        s(&dir.join("none")),
        "-o",
        s(&dir.join("a.png")),
    ])
    .assert_error("none");
    assert!(!dir.join("a.png").exists());
    // Bad input: 2.
    run(&["count", "0"]).assert_error("at least 1");
    run(&["render", "11"]).assert_error("nothing to write");
    run(&["frobnicate"]).assert_error("frobnicate");
    std::fs::remove_dir_all(&dir).unwrap();
}
