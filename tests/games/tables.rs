//! Two-player table files and checkpoints that cannot mislead: each test here is one of the
//! faults a user met (a FIFO given as a table, a 0-byte checkpoint, two writers, a stale
//! temporary file, `ulimit -v`, the interrupt line), run through the built binary.

use crate::common::{assert_usage_error, chompute, scratch_dir, stderr};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> std::path::PathBuf {
    crate::common::bin()
}

#[test]
fn a_fifo_or_a_device_is_refused_at_once() {
    let dir = scratch_dir("tables-fifo");
    let fifo = dir.join("f.tbl");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Refused from the file's metadata, before an open() that would block on the FIFO.
    let f = fifo.to_str().unwrap();
    assert_usage_error(
        &chompute(&["chomp", "query", f, "--position", "1,1"]),
        "not a regular file",
    );
    assert_usage_error(
        &chompute(&["chomp", "bites", "--table", f]),
        "not a regular file",
    );
    assert_usage_error(
        &chompute(&["chomp", "query", "/dev/null", "--position", "1"]),
        "not a regular file",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_zero_byte_checkpoint_resumes_as_a_fresh_run_and_stale_temporaries_go() {
    let dir = scratch_dir("tables-zero");
    let out = dir.join("t.tbl");
    let o = out.to_str().unwrap();
    std::fs::write(dir.join("t.tbl.partial"), b"").unwrap();
    // A temporary file of a process that is gone (pid 2^22 + 1 is past Linux's pid_max).
    let stale = dir.join(".t.tbl.4194305.0.tmp");
    std::fs::write(&stale, b"half a table").unwrap();
    let r = chompute(&["chomp", "solve", "--box", "9x9", "-o", o]);
    assert!(r.status.success(), "{}", stderr(&r));
    let whole = chompute(&[
        "chomp",
        "solve",
        "--box",
        "9x9",
        "-o",
        dir.join("w.tbl").to_str().unwrap(),
    ]);
    assert!(whole.status.success());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(dir.join("w.tbl")).unwrap()
    );
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(!dir.join("t.tbl.partial").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Start `chomp solve --box 17x17 -o OUT` and wait until its checkpoint has a record.
fn start_solve(out: &std::path::Path) -> std::process::Child {
    let child = Command::new(bin())
        .args([
            "chomp",
            "solve",
            "--box",
            "17x17",
            "-o",
            out.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let partial = out.with_extension("tbl.partial");
    let t = Instant::now();
    while std::fs::metadata(&partial).map_or(0, |m| m.len()) < 200 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no checkpoint record"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn a_second_writer_is_refused_and_an_interrupt_says_the_checkpoint_resumes() {
    let dir = scratch_dir("tables-lock");
    let out = dir.join("same.tbl");
    let first = start_solve(&out);
    assert_usage_error(
        &chompute(&[
            "chomp",
            "solve",
            "--box",
            "17x17",
            "-o",
            out.to_str().unwrap(),
        ]),
        "is being solved by another process",
    );
    // SAFETY: an interrupt to the child this test started.
    unsafe { libc::kill(first.id() as i32, libc::SIGINT) };
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("kept the checkpoint")
            && err.contains("same.tbl.partial")
            && err.contains("the same command resumes"),
        "{err}"
    );
    assert!(out.with_extension("tbl.partial").exists());
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_address_space_limit_is_counted_before_any_work() {
    for cmd in ["chomp solve --box 19x19", "chomp grundy --box 17x17"] {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!("ulimit -v 400000; exec {} {cmd}", bin().display()))
            .output()
            .unwrap();
        assert_usage_error(&o, "is too large");
    }
    // Refused on its cells before its 2 GiB ranking is built (which the limit would abort).
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v 400000; exec {} chomp grundy --box 1x268435455",
            bin().display()
        ))
        .output()
        .unwrap();
    assert_usage_error(&o, "at most 65535 cells");
}
