//! SIGTERM and SIGINT at random moments, for every command that writes files: no temporary
//! file survives, the status is 130 with one line that says what was kept (or 0 when the
//! run finished first), and every file that was kept is whole. SIGKILL, which no program
//! can answer, leaves its temporaries: the next run to the same target removes them.

use super::harness::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One writer: its arguments (`{D}` is the scratch directory) and how long after the start
/// an interrupt may land.
struct Writer {
    name: &'static str,
    args: &'static [&'static str],
    max_delay_ms: u64,
}

const RENDER_PNG: Writer = Writer {
    name: "render png",
    args: &[
        "render",
        "30001",
        "--compression",
        "best",
        "-o",
        "{D}/x.png",
    ],
    max_delay_ms: 900,
};
const RENDER_DZI: Writer = Writer {
    name: "render --dzi",
    args: &["render", "8191", "--dzi", "{D}/DZ"],
    max_delay_ms: 1000,
};
const RENDER_TILES: Writer = Writer {
    name: "render --tiles",
    args: &[
        "render",
        "16383",
        "--tiles",
        "{D}/T",
        "--tile-size",
        "1024",
        "--shard",
        "0/2",
    ],
    max_delay_ms: 700,
};
const CA_FRAMES: Writer = Writer {
    name: "ca --frames",
    args: &["ca", "400", "--frames", "{D}/FR"],
    max_delay_ms: 900,
};
const CA_STACK: Writer = Writer {
    name: "ca --stack",
    args: &["ca", "150", "--stack", "{D}/s.ply"],
    max_delay_ms: 1000,
};
const OCTAHEDRON_STL: Writer = Writer {
    name: "octahedron --stl",
    args: &["octahedron", "7", "--stl", "{D}/o.stl"],
    max_delay_ms: 600,
};
const CHOMP_IMAGE: Writer = Writer {
    name: "chomp image",
    args: &[
        "chomp",
        "image",
        "--rule",
        "0,2,1",
        "--first-row",
        "1000",
        "-o",
        "{D}/c.png",
    ],
    max_delay_ms: 1000,
};
const NIMPASS_GRID: Writer = Writer {
    name: "nimpass-grid",
    args: &["nimpass-grid", "400", "-o", "{D}/n.png"],
    max_delay_ms: 1200,
};
const ASSEMBLE_PNG: Writer = Writer {
    name: "assemble png",
    args: &["assemble", "{T}", "-o", "{D}/a.png"],
    max_delay_ms: 400,
};
const ASSEMBLE_DZI: Writer = Writer {
    name: "assemble --dzi",
    args: &["assemble", "{T}", "--dzi", "{D}/AD"],
    max_delay_ms: 1000,
};

/// Interrupt `w` `runs` times, alternating SIGTERM and SIGINT, each time in a fresh
/// directory holding `existing` (an older output the interrupt must leave alone).
fn interrupt(w: &Writer, runs: u32, tiles: Option<&Path>, existing: Option<(&str, &[u8])>) {
    let mut rng = Rng::from_clock();
    let seed = rng.0;
    for k in 0..runs {
        let dir = scratch(&format!("int-{}-{k}", w.name.replace([' ', '-'], "")));
        if let Some((name, bytes)) = existing {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let before = files(&dir);
        let started = start(writer_command(w, &dir, tiles));
        let delay = rng.below(w.max_delay_ms);
        std::thread::sleep(Duration::from_millis(delay));
        let sig = if k % 2 == 0 { "TERM" } else { "INT" };
        signal(started.pid(), sig);
        let run = started.wait(Duration::from_secs(60));
        let what = format!(
            "{} (SIG{sig} after {delay} ms; CHOMPUTE_FAULTS_SEED={seed})",
            run.what
        );
        judge(&run, &what, &dir, &before, existing);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// `w` on the CPU, `{D}` in its arguments the directory `dir` and `{T}` the tile directory.
fn writer_command(w: &Writer, dir: &Path, tiles: Option<&Path>) -> std::process::Command {
    let mut cmd = command(&["--backend", "cpu"]);
    cmd.args(w.args.iter().map(|a| {
        a.replace("{D}", s(dir))
            .replace("{T}", tiles.map(s).unwrap_or(""))
    }));
    cmd
}

/// Kill `w` outright (SIGKILL: nothing of it runs after) once it has a temporary on disk,
/// then run it again to the end: the rerun leaves no temporary, the killed run's included.
fn killed_then_rerun(w: &Writer) {
    let dir = killed_with_a_temporary(w);
    let rerun = run_for(writer_command(w, &dir, None), Duration::from_secs(120));
    rerun.assert_success();
    assert_no_temporaries(&dir, &format!("{} after a run killed outright", rerun.what));
    for f in files(&dir) {
        assert_complete(&f, &rerun.what);
    }
}

/// A directory where a run of `w` was killed outright and left a temporary. A temporary seen
/// may be finished and renamed before the kill lands (a frame takes milliseconds), so a run
/// that leaves none is tried again, in a fresh directory.
fn killed_with_a_temporary(w: &Writer) -> super::common::Scratch {
    for k in 0..10 {
        let dir = scratch(&format!("kill-{}-{k}", w.name.replace([' ', '-'], "")));
        let mut started = start(writer_command(w, &dir, None));
        let deadline = Instant::now() + Duration::from_secs(60);
        while temporaries(&dir).is_empty() {
            let ended = started.child.try_wait().unwrap().is_some();
            assert!(
                !ended && Instant::now() < deadline,
                "{}: ended or ran a minute before it made a temporary",
                started.what
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        started.child.kill().unwrap();
        let killed = started.wait(Duration::from_secs(60));
        assert!(
            killed.signal() == Some(9) || killed.code() == Some(0),
            "{}: {:?}; stderr: {}",
            killed.what,
            killed.status,
            killed.stderr
        );
        if !temporaries(&dir).is_empty() {
            return dir;
        }
    }
    panic!("{}: ten runs killed outright left no temporary", w.name);
}

#[test]
fn the_run_after_one_killed_outright_sweeps_its_temporaries() {
    for w in [
        &RENDER_PNG,
        &RENDER_DZI,
        &RENDER_TILES,
        &CA_FRAMES,
        &CA_STACK,
        &OCTAHEDRON_STL,
        &CHOMP_IMAGE,
        &NIMPASS_GRID,
    ] {
        killed_then_rerun(w);
    }
}

fn judge(run: &Run, what: &str, dir: &Path, before: &[PathBuf], existing: Option<(&str, &[u8])>) {
    assert!(!run.timed_out, "{what}: did not end after the signal");
    assert_no_temporaries(dir, what);
    assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
    let new: Vec<PathBuf> = files(dir)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    if let Some((name, bytes)) = existing {
        // Interrupted or not, the older file is either untouched or replaced whole.
        let now = std::fs::read(dir.join(name)).unwrap();
        if run.code() != Some(0) {
            assert_eq!(now, bytes, "{what}: the older '{name}' was changed");
        }
    }
    match (run.code(), run.signal()) {
        (Some(0), _) => {
            for f in files(dir) {
                assert_complete(&f, what);
            }
        }
        (Some(130), _) => {
            let lines = run.stderr_lines();
            assert_eq!(lines.len(), 1, "{what}: one line on stderr: {lines:?}");
            let line = lines[0];
            assert!(
                line.starts_with("chompute: interrupted; "),
                "{what}: {line}"
            );
            if line.contains("no output file was written") {
                assert!(
                    new.is_empty(),
                    "{what}: says nothing was written, but {new:?}"
                );
            } else {
                assert!(line.contains("kept"), "{what}: {line}");
                assert!(!new.is_empty(), "{what}: says files were kept: {line}");
            }
            for f in &new {
                assert_complete(f, what);
            }
        }
        // The signal came before the handler was installed: nothing may have been made.
        (None, Some(_)) => assert!(new.is_empty(), "{what}: killed early, but left {new:?}"),
        (code, sig) => panic!(
            "{what}: exit status {code:?} (signal {sig:?}); stderr: {}",
            run.stderr
        ),
    }
}

#[test]
fn interrupting_render_leaves_no_temporary_file() {
    interrupt(&RENDER_PNG, 2, None, None);
    interrupt(&RENDER_PNG, 2, None, Some(("x.png", b"an older picture")));
    interrupt(&RENDER_DZI, 4, None, None);
}

#[test]
fn interrupting_render_tiles_keeps_only_whole_tiles() {
    interrupt(&RENDER_TILES, 4, None, None);
}

#[test]
fn interrupting_ca_keeps_only_whole_frames() {
    interrupt(&CA_FRAMES, 6, None, None);
    interrupt(&CA_STACK, 2, None, None);
}

#[test]
fn interrupting_meshes_and_pictures_leaves_no_temporary_file() {
    interrupt(&OCTAHEDRON_STL, 3, None, None);
    interrupt(&CHOMP_IMAGE, 2, None, None);
    interrupt(&NIMPASS_GRID, 2, None, None);
}

#[test]
fn interrupting_assemble_leaves_no_temporary_file() {
    let tiles = scratch("int-assemble-tiles");
    let t = tiles.join("T");
    run(&[
        "--backend",
        "cpu",
        "render",
        "4095",
        "--tiles",
        s(&t),
        "--tile-size",
        "512",
    ])
    .assert_success();
    interrupt(&ASSEMBLE_PNG, 2, Some(&t), None);
    interrupt(&ASSEMBLE_DZI, 3, Some(&t), None);
    std::fs::remove_dir_all(&tiles).unwrap();
}
