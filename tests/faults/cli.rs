//! The command line's hardening (issue 20's CLI items): file names that are not UTF-8, the
//! mode and owner of an overwritten file, help and version into a full disk, `--range` with
//! `--window`, `--method all` with one feasible method, and `render --help`'s shades against
//! the code, and the empty position named as such.

use super::harness::*;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::Command;
use std::time::Duration;

/// `args`, then the arguments that are not UTF-8.
fn with_raw(args: &[&str], raw: &[&OsStr]) -> Run {
    let mut c: Command = command(args);
    c.args(raw);
    run_for(c, Duration::from_secs(60))
}

#[test]
fn names_that_are_not_utf8_are_written_and_read_without_a_panic() {
    let dir = scratch("not-utf8");
    let picture = dir.join(OsStr::from_bytes(b"\xff\xfe.png"));
    let r = with_raw(
        &["--backend", "cpu", "render", "11", "-o"],
        &[picture.as_os_str()],
    );
    r.assert_success();
    assert_complete(&picture, "render -o \\xff\\xfe.png");
    let pyramid = dir.join(OsStr::from_bytes(b"\xff"));
    let r = with_raw(
        &["--backend", "cpu", "render", "11", "--dzi"],
        &[pyramid.as_os_str()],
    );
    r.assert_success();
    assert!(pyramid.is_dir(), "the pyramid's directory");
    // Tiles in a directory whose name is not UTF-8, assembled into a picture that is not.
    let tiles = dir.join(OsStr::from_bytes(b"t\xfe"));
    let r = with_raw(
        &[
            "--backend",
            "cpu",
            "render",
            "64",
            "--tile-size",
            "32",
            "--tiles",
        ],
        &[tiles.as_os_str()],
    );
    r.assert_success();
    let whole = dir.join(OsStr::from_bytes(b"w\xff.png"));
    let r = with_raw(
        &["assemble"],
        &[tiles.as_os_str(), OsStr::new("-o"), whole.as_os_str()],
    );
    r.assert_success();
    assert_complete(&whole, "assemble into w\\xff.png");
    // A missing directory of such a name: one line, status 2.
    let r = with_raw(
        &["assemble"],
        &[
            OsStr::from_bytes(b"\xff-missing"),
            OsStr::new("-o"),
            whole.as_os_str(),
        ],
    );
    r.assert_error("");
    assert_no_temporaries(&dir, "not-UTF-8 names");
}

#[test]
fn overwriting_a_file_keeps_its_mode_and_owner() {
    let dir = scratch("mode");
    let target = dir.join("private.png");
    std::fs::write(&target, b"old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    // As root, the file belongs to someone else first; elsewhere it stays the user's own.
    let other = std::os::unix::fs::chown(&target, Some(4321), Some(4321)).is_ok();
    let before = std::fs::metadata(&target).unwrap();
    run(&["--backend", "cpu", "render", "11", "-o", s(&target)]).assert_success();
    let after = std::fs::metadata(&target).unwrap();
    assert_complete(&target, "render -o over a 0600 file");
    assert_eq!(after.mode() & 0o7777, 0o600, "the mode is kept");
    assert_eq!(
        (after.uid(), after.gid()),
        (before.uid(), before.gid()),
        "the owner is kept"
    );
    if other {
        assert_eq!(after.uid(), 4321);
    }
    // A new file gets the umask's mode, as any new file.
    let fresh = dir.join("fresh.png");
    run(&["--backend", "cpu", "render", "11", "-o", s(&fresh)]).assert_success();
    assert_ne!(std::fs::metadata(&fresh).unwrap().mode() & 0o777, 0);
}

#[test]
fn help_and_version_into_a_full_disk_fail_with_one_line() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["help", "count"],
        &["count", "--help"],
    ] {
        // The harness sends stdout to a file; this run's goes to the full disk.
        let out = command(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?} into /dev/full: {stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("chompute: cannot write"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // Into a pipe closed early it is not an error (the pipes tests close every command).
    let r = run(&["--help"]);
    r.assert_success();
}

#[test]
fn range_with_window_is_refused() {
    run(&["count", "--range", "1..5", "--window", "1,1,1,1"]).assert_error("--window");
    // One rule for spaces, as in the server: a window is four numbers, nothing around them.
    run(&["count", "5", "7", "--window", " 1,1,1,1"]).assert_error("--window");
    run(&["count", "5", "7", "--window", "1, 1,1,1"]).assert_error("--window");
}

#[test]
fn every_integer_flag_says_what_it_takes_in_the_same_words() {
    // Each integer flag reads its value with the project's parsers: letters are "not a
    // non-negative integer" and a value past the field's type names the largest it holds,
    // never the standard library's "invalid digit found in string".
    let image = "chomp image --rule 0,1,2 -o i.png";
    let cases = [
        ("render 11 --dzi d", "--tile-size", ""),
        ("serve", "--port", "65535"),
        ("serve", "--cache-mb", ""),
        ("chomp cells", "--max", "4294967295"),
        ("chomp cells --max 3 -o c", "--save-every", ""),
        ("chomp ord --rule 0,1,2 --box 2x2", "--list", "255"),
        (&format!("{image} --first-row 2"), "--rows", "4294967295"),
        (image, "--first-row", "4294967295"),
        (&format!("{image} --first-row 2"), "--scale", "4294967295"),
        ("chomp grundy", "--findstat", "4294967295"),
        ("chomp grundy --box 2x2", "--value-bytes", "1..=2"),
        ("nimpass --max 3", "--heaps", "2..=4"),
        ("nimpass-grid --counts 1..2 -o n.png", "--scale", "1..=256"),
    ];
    for (line, flag, largest) in cases {
        let run_with = |value: &str| {
            let args: Vec<&str> = line.split(' ').chain([flag, value]).collect();
            run(&args)
        };
        let r = run_with("x");
        r.assert_error("'x' is not a non-negative integer");
        assert!(!r.stderr.contains("invalid digit"), "{flag}: {}", r.stderr);
        if !largest.is_empty() {
            // One past the type's largest value, or past the flag's range.
            let max = largest.rsplit("..=").next().unwrap();
            let past = (max.parse::<u64>().unwrap() + 1).to_string();
            run_with(&past).assert_error(largest);
        }
    }
}

#[test]
fn method_all_prints_its_table_and_verdict_even_for_one_method() {
    let big = u64::MAX.to_string();
    let side = (1u64 << 40).to_string();
    let window = format!("1,1,{side},{side}");
    let r = run(&[
        "--backend",
        "cpu",
        "count",
        &big,
        &big,
        "--window",
        &window,
        "--method",
        "all",
    ]);
    r.assert_success();
    let out = String::from_utf8_lossy(&r.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "a heading, one method, the verdict: {out}");
    assert!(lines[1].trim_start().starts_with("digits"), "{out}");
    assert_eq!(lines[2], "all methods agree", "{out}");
}

#[test]
fn render_help_states_the_shades_the_code_draws() {
    use chompute::render::Shade;
    let r = run(&["render", "--help"]);
    r.assert_success();
    let help = String::from_utf8_lossy(&r.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
        assert!(
            help.contains(shade.formula()),
            "render --help lacks {}",
            shade.formula()
        );
    }
    assert!(!help.contains("log₂(1+count)"), "the old curve");
}

#[test]
fn method_all_leaves_a_software_adapter_out_unless_asked_for() {
    let Some(ctx) = super::common::gpu_or_skip("method_all_leaves_a_software_adapter_out") else {
        return;
    };
    let rows = |args: &[&str]| -> Vec<String> {
        let r = run(args);
        r.assert_success();
        String::from_utf8_lossy(&r.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(String::from))
            .collect()
    };
    let auto = rows(&["count", "301", "--method", "all"]);
    assert_eq!(
        auto.iter().any(|r| r == "gpu"),
        !ctx.is_software(),
        "auto takes a real GPU only: {auto:?}"
    );
    let gpu = rows(&["--backend", "gpu", "count", "301", "--method", "all"]);
    assert!(gpu.iter().any(|r| r == "gpu"), "asked for: {gpu:?}");
}

/// Every manual page the top-level page names (`chompute\-info(1)`, …) is one that
/// `man --dir` writes, and a nested subcommand's page is found under either spelling.
#[test]
fn man_writes_every_page_the_top_level_names() {
    let dir = scratch("man-dir");
    let pages = dir.join("man1");
    let r = run(&["man", "--dir", s(&pages)]);
    r.assert_success();
    let top = std::fs::read_to_string(pages.join("chompute.1")).unwrap();
    let mut named = 0;
    for (at, _) in top.match_indices("(1)") {
        let start = top[..at]
            .rfind(|c: char| c.is_whitespace())
            .map_or(0, |i| i + 1);
        let name = top[start..at]
            .replace("\\-", "-")
            .replace("\\fB", "")
            .replace("\\fR", "");
        if name.starts_with("chompute-") {
            assert!(
                pages.join(format!("{name}.1")).is_file(),
                "{name}(1) is named, not written"
            );
            named += 1;
        }
    }
    assert!(
        named >= 15,
        "the top level names the subcommands' pages ({named})"
    );
    assert!(pages.join("chompute-chomp-solve.1").is_file());
    assert_no_temporaries(&pages, "man --dir");
    let spaced = run(&["man", "chomp solve"]);
    spaced.assert_success();
    let split = run(&["man", "chomp", "solve"]);
    assert_eq!(spaced.stdout, split.stdout);
    let written = std::fs::read(pages.join("chompute-chomp-solve.1")).unwrap();
    assert_eq!(
        spaced.stdout, written,
        "the page printed is the page written"
    );
    run(&["man", "chomp", "solvee"]).assert_error("has no subcommand 'solvee'");
    // A --dir that is a file is said to be one.
    let plain = dir.join("plain");
    std::fs::write(&plain, "x").unwrap();
    run(&["man", "--dir", s(&plain)]).assert_error("not a directory");
}

/// `render --shade` lists its values in `--help`, and shell completion offers them.
#[test]
fn the_shades_are_listed_in_help_and_completions() {
    let help = run(&["render", "--help"]);
    help.assert_success();
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("[possible values: linear, sqrt, log]"),
        "render --help lists the shades"
    );
    let bash = run(&["completions", "bash"]);
    bash.assert_success();
    let script = String::from_utf8_lossy(&bash.stdout).to_string();
    let at = script
        .find("--shade)")
        .expect("bash completes --shade's value");
    let line = script[at..].lines().nth(1).unwrap_or_default();
    assert!(line.contains("linear sqrt log"), "{line}");
}

/// The output flags are decided once: two of them are one usage error, and a flag a command
/// does not offer is unknown to it.
#[test]
fn output_flags_exclude_each_other() {
    for args in [
        &["chomp", "cells", "--max", "3", "--json", "--bfile"][..],
        &[
            "chomp", "grundy", "--box", "3x3", "--csv", "--bfile", "square",
        ],
        &["count", "--range", "1..4", "--bfile", "--csv"],
        &["gp", "4", "--json", "--csv"],
    ] {
        run(args).assert_error("cannot be used with");
    }
    run(&["chomp", "solve", "--box", "3x3", "--csv"]).assert_error("unexpected argument '--csv'");
    run(&["count", "5", "--bfile"]).assert_error("--range");
}

/// The empty position is refused as such by every command that takes a position, not with
/// a request for a box the user did give a position for.
#[test]
fn the_empty_position_is_named_as_such() {
    run(&["chomp", "grundy", "--position", "0"])
        .assert_error("the empty diagram is not a position");
    run(&["chomp", "grundy", "--position", ""]).assert_error("the empty diagram is not a position");
    run(&["chomp", "grundy"]).assert_error("--box");
}
