//! Exit statuses: 0 success, 1 a check found a disagreement, 2 any error, 130 interrupted
//! (the interrupt tests check 130), stated in `--help`.

use super::harness::*;

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

/// A disagreement's status 1 is tested where a check can be made to fail (the exit-code unit
/// test of the binary, and the library's tests with injected wrong rows); through the binary
/// every check holds, so here a check that holds exits 0 and every error exits 2.
#[test]
fn checks_that_hold_exit_0_and_errors_exit_2() {
    let dir = scratch("status");
    for args in [
        &["gp", "13", "--check"][..],
        &["octahedron", "4", "--check"],
        &["count", "301", "--method", "all"],
        &["--backend", "cpu", "ca", "40", "--verify"],
    ] {
        run(args).assert_success();
    }
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
    let t = small_tiles(&dir);
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
