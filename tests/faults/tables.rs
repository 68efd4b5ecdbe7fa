//! The table files under faults: every kind (one-bit, Grundy, ordinal, cells) and run mode
//! (whole in memory, in blocks) killed or interrupted at a random moment and run again ends in
//! the file an uninterrupted run writes, byte for byte, with nothing else left; an interrupt's
//! line says truthfully what it kept. Then each hole that fault injection once found in one
//! kind or mode, tried again as it was found: targets checked before any work, a live
//! checkpoint of the other mode refused, stale ones removed, damaged pieces solved again,
//! edited headers refused, huge parts, and the files of the previous format still answering.

use super::harness::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One table run: its arguments (`{O}` the table file) and how long after its start a
/// signal may land.
struct Job {
    name: &'static str,
    args: &'static [&'static str],
    max_delay_ms: u64,
}

const JOBS: [Job; 6] = [
    Job {
        name: "solve",
        args: &["chomp", "solve", "--box", "13x13", "-o", "{O}"],
        max_delay_ms: 700,
    },
    // The GPU's route: no checkpoint, only the one lock on the file, which an interrupt or a
    // kill must never leave behind as a stray file (a kill leaves an empty FILE.partial, which
    // every mode takes for no checkpoint and the next run removes).
    Job {
        name: "solve-gpu",
        args: &[
            "--backend",
            "gpu",
            "chomp",
            "solve",
            "--box",
            "10x10",
            "-o",
            "{O}",
        ],
        max_delay_ms: 3000,
    },
    Job {
        name: "solve-blocks",
        args: &[
            "chomp", "solve", "--box", "13x13", "--memory", "200K", "-o", "{O}",
        ],
        max_delay_ms: 2500,
    },
    Job {
        name: "grundy",
        args: &["chomp", "grundy", "--box", "11x11", "-o", "{O}"],
        max_delay_ms: 1000,
    },
    Job {
        name: "ord",
        args: &[
            "chomp", "ord", "--box", "11x11", "--rule", "0,1,2", "-o", "{O}",
        ],
        max_delay_ms: 400,
    },
    Job {
        name: "cells",
        args: &["chomp", "cells", "--max", "50", "-o", "{O}"],
        max_delay_ms: 400,
    },
];

fn job_command(job: &Job, out: &Path) -> std::process::Command {
    let args: Vec<String> = job.args.iter().map(|a| a.replace("{O}", s(out))).collect();
    let mut cmd = match args[0] == "--backend" {
        true => command(&[]),
        false => command(&["--backend", "cpu"]),
    };
    cmd.args(&args);
    cmd
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Kill or interrupt `job` at random moments, twice in a row, then let it finish: the file is
/// the uninterrupted one and nothing else is left.
fn kill_and_resume(job: &Job, tries: u32) {
    let mut rng = Rng::from_clock();
    let seed = rng.0;
    let dir = scratch(&format!("tables-{}", job.name));
    let reference = dir.join("reference");
    run_for(job_command(job, &reference), Duration::from_secs(120)).assert_success();
    let want = std::fs::read(&reference).unwrap();
    std::fs::remove_file(&reference).unwrap();
    for k in 0..tries {
        let out = dir.join(format!("t{k}"));
        for round in 0..2 {
            let sig = if (k + round) % 2 == 0 { "KILL" } else { "INT" };
            let ours = |n: &String| n.starts_with(&format!("t{k}"));
            let before: Vec<String> = names(&dir).into_iter().filter(ours).collect();
            let started = start(job_command(job, &out));
            let delay = rng.below(job.max_delay_ms);
            std::thread::sleep(Duration::from_millis(delay));
            signal(started.pid(), sig);
            let got = started.wait(Duration::from_secs(120));
            let what = format!(
                "{} (SIG{sig} after {delay} ms, round {round}; CHOMPUTE_FAULTS_SEED={seed})",
                job.name
            );
            assert!(!got.stderr.contains("panicked"), "{what}: {}", got.stderr);
            if sig == "INT" && got.code() == Some(130) {
                // One true line: a checkpoint said kept is there, "nothing" leaves nothing.
                let lines = got.stderr_lines();
                let line = lines.last().copied().unwrap_or_default();
                assert!(
                    line.starts_with("chompute: interrupted; "),
                    "{what}: {line}"
                );
                let left: Vec<String> = names(&dir).into_iter().filter(ours).collect();
                if line.contains("no output file was written") {
                    // Nothing new: what a killed run before it left (its finished file, when
                    // the kill came after it was published) may stay.
                    assert!(
                        left.iter().all(|n| before.contains(n)),
                        "{what}: says nothing, left {left:?} (before it: {before:?})"
                    );
                } else {
                    // A checkpoint ("the same command resumes"), or the finished file when
                    // the signal came as it was published.
                    assert!(line.contains("kept"), "{what}: {line}");
                    assert!(!left.is_empty(), "{what}: says kept, left nothing: {line}");
                }
            }
        }
        let got = run_for(job_command(job, &out), Duration::from_secs(120));
        got.assert_success();
        assert_eq!(
            std::fs::read(&out).unwrap(),
            want,
            "{}: the resumed file differs (CHOMPUTE_FAULTS_SEED={seed})",
            job.name
        );
        assert_eq!(
            names(&dir),
            vec![format!("t{k}")],
            "{}: stray files (CHOMPUTE_FAULTS_SEED={seed})",
            job.name
        );
        std::fs::remove_file(&out).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_kind_and_mode_killed_or_interrupted_resumes_to_the_same_bytes() {
    let gpu = super::common::gpu_or_skip("every_kind_and_mode_killed (the GPU's route)").is_some();
    for job in JOBS.iter().filter(|j| gpu || j.name != "solve-gpu") {
        kill_and_resume(job, 3);
    }
}

#[test]
fn a_run_in_pieces_checks_its_target_before_any_work() {
    let dir = scratch("tables-targets");
    let folder = dir.join("DIR");
    std::fs::create_dir(&folder).unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "--memory".into(),
            "200K".into(),
            "-o".into(),
            s(&folder).into(),
        ],
        vec![
            "--part".into(),
            "1/2".into(),
            "-o".into(),
            s(&folder).into(),
        ],
        vec![
            "--memory".into(),
            "200K".into(),
            "-o".into(),
            "/dev/null".into(),
        ],
        vec![
            "--part".into(),
            "1/2".into(),
            "-o".into(),
            "/dev/null".into(),
        ],
    ];
    for extra in cases {
        let mut args = vec!["--backend", "cpu", "chomp", "solve", "--box", "14x14"];
        args.extend(extra.iter().map(String::as_str));
        let got = run(&args);
        assert_eq!(got.code(), Some(2), "{:?}: {}", extra, got.stderr);
        // Refused before any work: the one line is the target's, not a failure at the end.
        assert_eq!(got.stderr_lines().len(), 1, "{}", got.stderr);
        let target = extra.last().unwrap();
        assert!(
            got.stderr.contains(target.as_str()),
            "{extra:?}: {}",
            got.stderr
        );
    }
    assert_eq!(
        names(&dir),
        vec!["DIR".to_string()],
        "nothing made beside DIR"
    );
    assert!(!Path::new("/dev/null.blocks").exists());
    // Standard output named as a path has no "beside" either.
    let got = run(&["chomp", "cells", "--max", "20", "-o", "/dev/stdout"]);
    assert_eq!(got.code(), Some(2), "{}", got.stderr);
    assert!(!Path::new("/dev/stdout.partial").exists());
    // /dev/shm is a folder of files: a table may go there.
    if Path::new("/dev/shm").is_dir() {
        let shm = PathBuf::from(format!("/dev/shm/chompute-faults-{}", std::process::id()));
        let got = run(&["chomp", "cells", "--max", "12", "-o", s(&shm)]);
        assert_eq!(got.code(), Some(0), "{}", got.stderr);
        std::fs::remove_file(&shm).unwrap();
    }
    // A regular file where the folder of pieces would go is one line, not "File exists".
    let out = dir.join("Z");
    std::fs::write(dir.join("Z.blocks"), b"in the way").unwrap();
    let got = run(&[
        "--backend",
        "cpu",
        "chomp",
        "solve",
        "--box",
        "10x10",
        "--memory",
        "200K",
        "-o",
        s(&out),
    ]);
    got.assert_error("Z.blocks");
    assert!(!got.stderr.contains("os error"), "{}", got.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tables_name_leaves_room_for_its_checkpoint() {
    let dir = scratch("tables-long-names");
    // FILE.partial must fit in 255 bytes: a longer name is one line before any work, for
    // every kind and mode, and nothing is made.
    let long = dir.join("t".repeat(248));
    for job in &JOBS {
        let got = run_for(job_command(job, &long), Duration::from_secs(60));
        assert_eq!(got.code(), Some(2), "{}: {}", job.name, got.stderr);
        assert_eq!(got.stderr_lines().len(), 1, "{}: {}", job.name, got.stderr);
        assert!(
            got.stderr
                .contains("a table's name may take at most 247 bytes (this one takes 248)"),
            "{}: {}",
            job.name,
            got.stderr
        );
        assert_eq!(names(&dir), Vec::<String>::new(), "{}", job.name);
    }
    // The longest name that fits is written, and nothing is left beside it.
    let name = "t".repeat(247);
    run(&["chomp", "cells", "--max", "12", "-o", s(&dir.join(&name))]).assert_success();
    assert_eq!(names(&dir), vec![name]);
}

#[test]
fn huge_parts_are_an_empty_share_not_an_allocation() {
    let dir = scratch("tables-parts");
    for part in [
        "1/4294967296",
        "1/18446744073709551615",
        "18446744073709551615/18446744073709551615",
    ] {
        let out = dir.join("Z");
        let got = run(&[
            "--backend",
            "cpu",
            "chomp",
            "solve",
            "--box",
            "10x10",
            "--part",
            part,
            "-o",
            s(&out),
        ]);
        got.assert_success();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hold an exclusive flock on `path` (created when absent) while the returned file is open.
fn hold_lock(path: &Path) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    f
}

#[test]
fn a_live_run_of_one_mode_refuses_the_other_and_a_stopped_one_is_not_left_behind() {
    let dir = scratch("tables-modes");
    let out = dir.join("Z");
    let partial = PathBuf::from(format!("{}.partial", s(&out)));
    // An in-memory run in progress holds Z.partial: a run in pieces is refused at once.
    let held = hold_lock(&partial);
    let got = run(&[
        "--backend",
        "cpu",
        "chomp",
        "solve",
        "--box",
        "11x11",
        "--memory",
        "200K",
        "-o",
        s(&out),
    ]);
    got.assert_error("another process");
    assert!(!out.exists());
    drop(held);
    // Stopped, its checkpoint is of no use to the pieces: it goes, and nothing is left.
    std::fs::write(&partial, b"chompute chomp p-table partial 1\nbox 11x11\n").unwrap();
    let got = run(&[
        "--backend",
        "cpu",
        "chomp",
        "solve",
        "--box",
        "11x11",
        "--memory",
        "200K",
        "-o",
        s(&out),
    ]);
    got.assert_success();
    assert_eq!(names(&dir), vec!["Z".to_string()]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_piece_is_an_error_then_solved_again() {
    let dir = scratch("tables-piece");
    let out = dir.join("Z");
    let whole = dir.join("W");
    run(&[
        "--backend",
        "cpu",
        "chomp",
        "solve",
        "--box",
        "11x11",
        "-o",
        s(&whole),
    ])
    .assert_success();
    let args = |part: Option<&str>| {
        let mut a = vec![
            "--backend",
            "cpu",
            "chomp",
            "solve",
            "--box",
            "11x11",
            "--memory",
            "200K",
        ];
        if let Some(p) = part {
            a.extend(["--part", p]);
        }
        a.extend(["-o", s(&out)]);
        run(&a)
    };
    // The first wave's pieces, then a bit of one flipped.
    args(Some("1/1")).assert_success();
    let folder = dir.join("Z.blocks");
    let piece = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".bits"))
        .expect("a finished piece");
    let mut bytes = std::fs::read(&piece).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x80;
    std::fs::write(&piece, &bytes).unwrap();
    let run1 = args(None);
    run1.assert_error("solves piece");
    assert!(!run1.stderr.contains("remove it"), "{}", run1.stderr);
    args(None).assert_success();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Replace the header field `key`'s value in a table file and reseal the header (its
/// `header-crc32` recomputed), as a careful forger would.
fn forge(path: &Path, key: &str, value: &str) {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let text = std::str::from_utf8(&bytes[..end]).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.retain(|l| !l.is_empty() && !l.starts_with("header-crc32 "));
    for l in lines.iter_mut() {
        if l.starts_with(&format!("{key} ")) {
            *l = format!("{key} {value}");
        }
    }
    let mut head = lines.join("\n");
    head.push('\n');
    let crc = crc32fast::hash(head.as_bytes());
    head.push_str(&format!("header-crc32 {crc:08x}\n\n"));
    let mut out = head.into_bytes();
    out.extend_from_slice(&bytes[end..]);
    std::fs::write(path, out).unwrap();
}

#[test]
fn an_edited_and_resealed_header_fails_every_chunk() {
    let dir = scratch("tables-forge");
    let cases: [(&[&str], &str, &str, &str); 3] = [
        (&["chomp", "solve", "--box", "6x9"], "box", "9x6", "1,1"),
        (&["chomp", "grundy", "--box", "6x9"], "box", "9x6", "1,1"),
        (
            &["chomp", "ord", "--box", "5x6", "--rule", "0,1,2"],
            "rule",
            "0,2,1",
            "1,1",
        ),
    ];
    for (i, (args, key, value, position)) in cases.iter().enumerate() {
        let out = dir.join(format!("f{i}"));
        let mut a = vec!["--backend", "cpu"];
        a.extend_from_slice(args);
        a.extend(["-o", s(&out)]);
        run(&a).assert_success();
        forge(&out, key, value);
        let q = run(&[
            "chomp",
            "query",
            s(&out),
            "--verify",
            "--position",
            position,
        ]);
        assert_eq!(
            q.code(),
            Some(2),
            "{args:?}: {} {}",
            q.stderr,
            String::from_utf8_lossy(&q.stdout)
        );
        assert!(q.stderr.contains("damaged"), "{args:?}: {}", q.stderr);
        let q = run(&["chomp", "query", s(&out), "--position", position]);
        assert_ne!(q.code(), Some(0), "{args:?}: answered from a forged header");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The table files of the previous format (written by chompute 2f83573), kept in tests/data.
fn legacy(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/legacy-2f83573")
        .join(name)
}

#[test]
fn files_of_the_previous_format_answer_as_fresh_ones_do() {
    let dir = scratch("tables-legacy");
    let cases: [(&str, &[&str], &[&str]); 7] = [
        (
            "p-table-6x9.tbl",
            &["chomp", "solve", "--box", "6x9"],
            &["3,2,1", "9,9,4", "2", "6,6,6,6,6,6"],
        ),
        (
            "p-table-7x7.tbl",
            &["chomp", "solve", "--box", "7x7"],
            &["3,2,1", "7,5,5,1", "2", "4,4"],
        ),
        (
            "grundy-5x6.tbl",
            &["chomp", "grundy", "--box", "5x6"],
            &["5,3,1", "6,6,6", "2,2"],
        ),
        (
            "grundy-6x6.tbl",
            &["chomp", "grundy", "--box", "6x6"],
            &["5,3,1", "6,6,6,6,6,6", "3,3,2"],
        ),
        (
            "ord-4x5.tbl",
            &["chomp", "ord", "--box", "4x5", "--rule", "0,1,2"],
            &["5,3,1", "2,2", "5,5,5,5"],
        ),
        (
            "ord-5x5.tbl",
            &["chomp", "ord", "--box", "5x5", "--rule", "0,1,2"],
            &["5,3,1", "4,4,2", "1"],
        ),
        (
            "cells-14.tbl",
            &["chomp", "cells", "--max", "14"],
            &["5,3,1", "2,2", "4,4,3,2,1"],
        ),
    ];
    for (name, make, positions) in cases {
        let old = legacy(name);
        assert!(old.exists(), "{}", old.display());
        let fresh = dir.join(name);
        let mut a = vec!["--backend", "cpu"];
        a.extend_from_slice(make);
        a.extend(["-o", s(&fresh)]);
        run(&a).assert_success();
        let first_line = |p: &Path| {
            let b = std::fs::read(p).unwrap();
            let end = b.iter().position(|&c| c == b'\n').unwrap();
            b[..end].to_vec()
        };
        assert_ne!(
            first_line(&old),
            first_line(&fresh),
            "{name}: a new file is of the new version"
        );
        for p in positions {
            let q_old = run(&[
                "chomp",
                "query",
                s(&old),
                "--verify",
                "--position",
                p,
                "--json",
            ]);
            let q_new = run(&[
                "chomp",
                "query",
                s(&fresh),
                "--verify",
                "--position",
                p,
                "--json",
            ]);
            q_old.assert_success();
            q_new.assert_success();
            assert_eq!(q_old.stdout, q_new.stdout, "{name} {p}");
        }
    }
    // A count that disagrees in an old file (whose chunks do not check its header) is a
    // disagreement found by --verify: exit 1.
    let old = dir.join("edited.tbl");
    std::fs::copy(legacy("p-table-6x9.tbl"), &old).unwrap();
    forge(&old, "p-positions", "178");
    let q = run(&["chomp", "query", s(&old), "--verify", "--position", "2"]);
    assert_eq!(q.code(), Some(1), "{}", q.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
