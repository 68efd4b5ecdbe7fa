//! Closed pipes on every command: `| head -0` (the reader is gone before the first write)
//! and `| head -1` (gone after the first line). Either way the run ends with status 0 and
//! says nothing: no panic, no "Broken pipe". And a closed stderr: an error still exits 2.

use super::harness::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Every command that prints on stdout, in the forms that print most.
const COMMANDS: &[&[&str]] = &[
    &["info"],
    &["info", "--json"],
    &["count", "30001"],
    &["count", "30001", "--method", "all"],
    &["count", "4097", "4000", "--method", "all", "--json"],
    &["grid", "300"],
    &["bench", "--quick"],
    &["gp", "64"],
    &["gp", "13", "--check"],
    &["gp", "40", "--csv"],
    &["cb", "--f", "floor(z/2)", "--bound", "3,40"],
    &["cb", "--f", "floor(z/2)", "--bound", "3,40", "--csv"],
    &["cb", "--f", "floor(z/2)", "--table1"],
    &["nimpass", "--heaps", "3", "--max", "60", "--list"],
    &["nimpass-grid", "--counts", "1..300"],
    &["ca", "300", "--verify"],
    &["octahedron", "10", "--check"],
    &["octahedron", "4", "--check", "--json"],
    &["theorems", "--max-m", "512"],
    &[
        "chomp", "ord", "--rule", "0,2,1", "--box", "3x30", "--list", "2",
    ],
    &["chomp", "ord", "--rule", "0,2,1", "--box", "3x30", "--csv"],
    &[
        "chomp", "ord", "--rule", "0,2,1", "--box", "3x12", "--check",
    ],
    &["chomp", "classes", "--players", "3", "--box", "3x4"],
    &["render", "2000", "-o", "-"],
    &["render", "100", "-o", "/dev/null", "--json"],
    &["nimpass-grid", "20", "-o", "/dev/null"],
    &["octahedron", "3", "--m", "2", "-o", "/dev/null", "--json"],
    &[
        "chomp",
        "image",
        "--rule",
        "0,2,1",
        "--first-row",
        "5",
        "-o",
        "/dev/null",
    ],
    &["--help"],
    &["render", "--help"],
    &["--version"],
];

/// Run `args` with stdout into a pipe that is closed after `lines` lines.
fn closed_after(args: &[&str], lines: usize) -> Run {
    let mut c = command(&["--backend", "cpu"]);
    c.args(args).stdout(Stdio::piped());
    let what = format!("chompute {} | head -{lines}", args.join(" "));
    let err = std::env::temp_dir().join(format!(
        "chompute-faults-pipe-{}-{lines}-{}.err",
        std::process::id(),
        args.join("_").replace(['/', '.'], "")
    ));
    c.stderr(std::fs::File::create(&err).unwrap());
    let mut child = c.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    if lines > 0 {
        let mut r = BufReader::new(stdout);
        let mut line = Vec::new();
        for _ in 0..lines {
            line.clear();
            let _ = r.read_until(b'\n', &mut line);
        }
    } else {
        drop(stdout);
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: did not end");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = String::from_utf8_lossy(&std::fs::read(&err).unwrap()).into_owned();
    let _ = std::fs::remove_file(&err);
    Run {
        what,
        status,
        stdout: Vec::new(),
        stderr,
        timed_out: false,
    }
}

fn check(args: &[&str], lines: usize) {
    let r = closed_after(args, lines);
    r.assert_success();
    assert!(
        r.stderr_lines().is_empty(),
        "{}: nothing on stderr, got {}",
        r.what,
        r.stderr
    );
}

/// Every command, and `assemble` of a small tile directory, with the pipe closed after
/// `lines` lines.
fn check_every_command(lines: usize) {
    for args in COMMANDS {
        check(args, lines);
    }
    let dir = scratch(&format!("pipes-{lines}"));
    let t = small_tiles(&dir);
    check(&["assemble", s(&t), "-o", "/dev/null", "--json"], lines);
    check(&["assemble", s(&t), "-o", "-"], lines);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pipe_closed_before_the_first_line_ends_every_command_quietly() {
    check_every_command(0);
}

#[test]
fn a_pipe_closed_after_the_first_line_ends_every_command_quietly() {
    check_every_command(1);
}

/// Run `args` with stderr into a pipe whose reader is gone before the first line.
fn stderr_closed(args: &[&str]) -> Run {
    let mut c = command(&["--backend", "cpu"]);
    c.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    Run {
        what: format!("chompute {} 2>&1 >/dev/null | head -0", args.join(" ")),
        status,
        stdout: Vec::new(),
        stderr: String::new(),
        timed_out: false,
    }
}

#[test]
fn a_closed_stderr_changes_no_exit_status() {
    // The error's line cannot be written, but the status still says it was an error: 2, not
    // the 101 of a panic in `eprintln!`. A warning that cannot be written does not stop a run.
    let dir = scratch("stderr-closed");
    let picture = dir.join("one.png");
    for (args, code) in [
        (vec!["count", "x"], 2),
        (vec!["count", "5", "--window", "9,9,9,9"], 2),
        (vec!["render", "11", "-o", "/nonexistent/x.png"], 2),
        (vec!["render", "4096", "-o", s(&picture)], 0),
    ] {
        let r = stderr_closed(&args);
        assert_eq!(r.code(), Some(code), "{}: {:?}", r.what, r.status);
    }
    assert_complete(&picture, "the one-colour picture");
    std::fs::remove_dir_all(&dir).unwrap();
}
