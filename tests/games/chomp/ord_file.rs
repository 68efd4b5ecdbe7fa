//! Ordinal table files end to end: the file against the table in memory ordinal for ordinal
//! (2 and 3 bits an ordinal), a run stopped and resumed to the same bytes (in the library with
//! a damaged checkpoint, and through the command with SIGINT), a checkpoint of another rule,
//! and `chomp query` answering the ordinal, Sol and a chain from the file, or refusing a
//! damaged file in one line with status 2.

use crate::common::{
    assert_usage_error, chompute, interrupted_when, json_of, resumes_to_the_same_bytes,
    scratch_dir, stderr,
};
use chompute::cancel::Cancel;
use chompute::chomp::engine::lifecycle::RunEvent;
use chompute::chomp::multiplayer::ord_file::{compute_to_file, OrdFile};
use chompute::chomp::multiplayer::ordinal::{OrdEngine, OrdPlan, OrdTable};
use chompute::chomp::store::partial_path;
use chompute::chomp::{ChompBox, Rule};
use std::path::Path;

fn bx(rows: usize, cols: u32) -> ChompBox {
    ChompBox { rows, cols }
}

fn rule(s: &str) -> Rule {
    Rule::parse(s).unwrap()
}

/// The byte engine's table, the twin the files are checked against.
fn in_memory(shape: ChompBox, r: &Rule) -> OrdTable {
    OrdPlan::new(shape, OrdEngine::General)
        .unwrap()
        .table(r)
        .unwrap()
}

/// The packed engine's plan: one entry a transposed pair on a square, else by colex rank.
fn packed(shape: ChompBox) -> OrdPlan {
    OrdPlan::new(shape, OrdEngine::Packed).unwrap()
}

/// The packed engine by colex rank on any box.
fn by_rank(shape: ChompBox) -> OrdPlan {
    OrdPlan::new(shape, OrdEngine::PackedColex).unwrap()
}

/// The length of a file's header: up to and with its empty line.
fn header_len(bytes: &[u8]) -> usize {
    bytes.windows(2).position(|w| w == b"\n\n").unwrap() + 2
}

/// Where each record of an ordinal checkpoint starts, and where the last one ends.
fn record_starts(bytes: &[u8]) -> Vec<usize> {
    let mut at = header_len(bytes);
    let mut out = vec![at];
    while at < bytes.len() {
        assert_eq!(&bytes[at..at + 4], b"LAYR");
        let n = u64::from_le_bytes(bytes[at + 12..at + 20].try_into().unwrap()) as usize;
        at += 24 + n;
        out.push(at);
    }
    assert_eq!(at, bytes.len(), "whole records");
    out
}

#[test]
fn a_saved_table_equals_the_table_in_memory_ordinal_for_ordinal() {
    let dir = scratch_dir("ord_file_values");
    // 10x10 at 3 bits an ordinal (5 players) fills two chunks of the trailer. The squares are
    // saved both ways: one entry a transposed pair (the default) and by colex rank.
    for (shape, r, bits) in [
        (bx(5, 7), "0,1,2", 2),
        (bx(7, 5), "2,0,1", 2),
        (bx(1, 9), "1,0,2", 2),
        (bx(6, 6), "1,3,0,2", 3),
        (bx(9, 9), "0,1,2", 2),
        (bx(10, 10), "0,3,1,4,2", 3),
    ] {
        let r = rule(r);
        let mem = in_memory(shape, &r);
        let positions = mem.ranker().len();
        for plan in [packed(shape), by_rank(shape)] {
            let path = dir.join(format!("{shape}-{}.ord", plan.engine.name()));
            let saved = compute_to_file(plan, &r, &path, |_| {}).unwrap();
            assert!(
                !partial_path(&path).exists(),
                "{shape}: the checkpoint goes"
            );
            let file = OrdFile::open(&path).unwrap();
            file.verify().unwrap();
            assert_eq!(file.shape(), shape);
            assert_eq!(file.histogram(), &mem.histogram()[..], "{shape}");
            assert_eq!(saved.histogram(), mem.histogram(), "{shape}");
            let layout = saved.layout();
            assert_eq!(
                layout.hook_index().is_some(),
                plan.keeps_pairs(),
                "{shape} {plan:?}"
            );
            assert_eq!(file.layout().scheme(), layout.scheme());
            for q in 0..positions {
                let o = mem.ordinal_rank(q);
                let p = mem.ranker().unrank(q);
                assert_eq!(file.ordinal(&p).unwrap(), o, "{shape} {p}");
                assert_eq!(saved.ordinal_rank(q), o, "{shape} rank {q}");
                assert_eq!(saved.ordinal(&p), Some(o), "{shape} {p}");
            }
            for q in (1..positions).step_by(37) {
                let p = mem.ranker().unrank(q);
                assert_eq!(file.sol(&p).unwrap(), mem.sol(&p), "{shape} {p}");
                assert_eq!(file.chain(&p).unwrap(), mem.chain(&p), "{shape} {p}");
            }
            // The file is the header, the packed words and one CRC per 64 KiB of them.
            let bytes = std::fs::read(&path).unwrap();
            let entries = layout.len();
            assert!(entries <= positions);
            assert_eq!(entries < positions, plan.keeps_pairs() && shape.rows > 1);
            let body = (entries as usize * bits).div_ceil(64) * 8;
            let h = header_len(&bytes);
            assert_eq!(bytes.len(), h + body + body.div_ceil(65536) * 4, "{shape}");
            let head = std::str::from_utf8(&bytes[..h]).unwrap();
            let hist: Vec<String> = mem.histogram().iter().map(u64::to_string).collect();
            let rank = match plan.keeps_pairs() {
                true => format!("transpose-hook {}", shape.rows),
                false => "colex-lattice-path".to_string(),
            };
            assert!(
                head.starts_with(&format!(
                    "chompute chomp ord-table 2\nbox {shape}\nrank {rank}\n\
                     rule {}\nplayers {}\npositions {positions}\nordinal-bits {bits}\n\
                     histogram {}\nchunk-bytes 65536\nheader-crc32 ",
                    r.normalised(),
                    r.players(),
                    hist.join(" ")
                )),
                "{head}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run `plan` into `path` and stop it once step `stop_after` is recorded.
fn stopped_run(plan: OrdPlan, r: &Rule, path: &Path, stop_after: u64) {
    let stop = Cancel::new();
    let res = stop.scope(|| {
        compute_to_file(plan, r, path, |e| {
            if let RunEvent::Step(p) = e {
                if p.steps_done == stop_after + 1 {
                    stop.cancel();
                }
            }
        })
    });
    assert!(matches!(res, Err(chompute::Error::Interrupted)), "{res:?}");
    assert!(!path.exists() && partial_path(path).exists());
}

#[test]
fn an_interrupted_run_resumes_to_the_identical_file() {
    let dir = scratch_dir("ord_file_resume");
    // 51 layers by colex rank; 3 bits an ordinal, so entries straddle words and records end
    // mid-byte.
    let (shape, r) = (bx(10, 10), rule("3,0,2,1,4"));
    let plan = by_rank(shape);
    let whole = dir.join("whole");
    let parts = dir.join("parts");
    compute_to_file(plan, &r, &whole, |_| {}).unwrap();
    stopped_run(plan, &r, &parts, 10);
    let mut resumed = None;
    let stop = Cancel::new();
    let res = stop.scope(|| {
        compute_to_file(plan, &r, &parts, |e| match e {
            RunEvent::Resumed { steps_done, .. } => resumed = Some(steps_done),
            RunEvent::Step(p) if p.steps_done == 31 => stop.cancel(),
            _ => {}
        })
    });
    assert!(matches!(res, Err(chompute::Error::Interrupted)));
    assert_eq!(resumed, Some(11));
    // Layers 0..=30 are recorded. Cut the last record short and flip a bit of layer 20's
    // ordinals: the resumed run keeps layers 0..=19 and reports the rest as dropped.
    let partial = partial_path(&parts);
    let mut log = std::fs::read(&partial).unwrap();
    let starts = record_starts(&log);
    assert_eq!(starts.len(), 32, "31 records");
    log.truncate(log.len() - 5);
    log[starts[20] + 21] ^= 0x04;
    std::fs::write(&partial, &log).unwrap();
    let mut events = Vec::new();
    let table = compute_to_file(plan, &r, &parts, |e| {
        if let RunEvent::Resumed {
            steps_done,
            steps,
            dropped_bytes,
            ..
        } = e
        {
            events.push((steps_done, steps, dropped_bytes));
        }
    })
    .unwrap();
    assert_eq!(events, [(20, 51, (log.len() - starts[20]) as u64)]);
    assert!(!partial.exists());
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&parts).unwrap()
    );
    assert_eq!(table.histogram(), in_memory(shape, &r).histogram());

    // A checkpoint of another rule or box is refused, not mixed in.
    let other = dir.join("other");
    stopped_run(packed(bx(6, 6)), &r, &other, 3);
    let e = compute_to_file(packed(bx(6, 6)), &rule("0,1,2"), &other, |_| {}).unwrap_err();
    assert!(
        e.to_string().contains("checkpoint of the rule 3,0,2,1,4"),
        "{e}"
    );
    let e = compute_to_file(packed(bx(6, 7)), &r, &other, |_| {}).unwrap_err();
    assert!(e.to_string().contains("checkpoint of the 6x6 box"), "{e}");
    // One entry a transposed pair, or every position: the steps differ, so a checkpoint of
    // one layout is refused by the other.
    let e = compute_to_file(by_rank(bx(6, 6)), &r, &other, |_| {}).unwrap_err();
    assert!(
        e.to_string().contains("numbered by 'transpose-hook 6'"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_square_stopped_at_any_step_resumes_to_the_identical_file() {
    let dir = scratch_dir("ord_file_resume_hook");
    let (shape, r) = (bx(9, 9), rule("0,2,1"));
    let plan = packed(shape);
    assert!(plan.keeps_pairs());
    let whole = dir.join("whole");
    let table = compute_to_file(plan, &r, &whole, |_| {}).unwrap();
    let steps = table.hook().expect("a square keeps pairs").steps();
    assert!(steps > 20, "{steps}");
    let stops = [0, 1, steps / 3, steps - 2];
    let stop = |parts: &Path, step| stopped_run(plan, &r, parts, step);
    resumes_to_the_same_bytes(&dir, &whole, &stops, stop, |parts| {
        let mut resumed = None;
        compute_to_file(plan, &r, parts, |e| {
            if let RunEvent::Resumed { steps_done, .. } = e {
                resumed = Some(steps_done);
            }
        })
        .unwrap();
        resumed
    });
    assert_eq!(table.histogram(), in_memory(shape, &r).histogram());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn query_answers_from_the_file_and_refuses_a_damaged_one() {
    let dir = scratch_dir("ord_file_query");
    let path = dir.join("t.ord");
    let p = path.to_str().unwrap();
    let o = chompute(&[
        "chomp", "ord", "--rule", "10,30,20", "--box", "6x7", "-o", p, "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let made = json_of(&o);
    assert_eq!(made["engine"], "packed");
    assert_eq!(made["file"], p);
    assert_eq!(made["resumed_layers"], 0);
    let r = rule("0,2,1");
    let mem = in_memory(bx(6, 7), &r);
    assert_eq!(
        made["histogram"],
        serde_json::to_value(mem.histogram()).unwrap()
    );
    for pos in ["7,7,7,7,7,7", "5,3,3,1", "1", "4,4,2,2,1,1"] {
        let d = chompute::chomp::Diagram::parse(pos).unwrap();
        let o = chompute(&["chomp", "query", p, "--position", pos, "--json", "--verify"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let j = json_of(&o);
        assert_eq!(j["rule"], "0,2,1");
        assert_eq!(j["players"], 3);
        assert_eq!(j["ordinal"], mem.ordinal(&d).unwrap(), "{pos}");
        let sol: Vec<String> = mem.sol(&d).iter().map(|q| q.to_string()).collect();
        assert_eq!(j["sol"], serde_json::to_value(&sol).unwrap(), "{pos}");
        let chain: Vec<String> = mem.chain(&d).iter().map(|q| q.to_string()).collect();
        assert_eq!(j["chain"], serde_json::to_value(&chain).unwrap(), "{pos}");
    }
    // The text names the ordinal, the rule and Sol.
    let o = chompute(&["chomp", "query", p, "--position", "5,3,3,1"]);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(text.contains("under rule 0,2,1 (3 players)"), "{text}");
    assert!(text.contains("Sol = {"), "{text}");
    // Outside the box: one line, status 2.
    assert_usage_error(
        &chompute(&["chomp", "query", p, "--position", "8"]),
        "does not fit in the 6x7 box",
    );
    // A flipped bit of the ordinals or of the header: refused in one line, status 2.
    let good = std::fs::read(&path).unwrap();
    let h = header_len(&good);
    let mut bad = good.clone();
    bad[h + 100] ^= 0x10;
    let damaged = dir.join("damaged.ord");
    std::fs::write(&damaged, &bad).unwrap();
    let d = damaged.to_str().unwrap();
    assert_usage_error(
        &chompute(&["chomp", "query", d, "--position", "7,7,7,7,7,7", "--verify"]),
        "the file is damaged",
    );
    let mut bad = good.clone();
    let at = String::from_utf8_lossy(&good[..h])
        .find("players 3")
        .unwrap();
    bad[at + 8] = b'4';
    std::fs::write(&damaged, &bad).unwrap();
    assert_usage_error(
        &chompute(&["chomp", "query", d, "--position", "1"]),
        "the file is damaged",
    );
    std::fs::write(&damaged, &good[..good.len() - 3]).unwrap();
    assert_usage_error(
        &chompute(&["chomp", "query", d, "--position", "1"]),
        "the file is damaged",
    );
    // -o with a byte engine is refused before any work.
    assert_usage_error(
        &chompute(&[
            "chomp", "ord", "--rule", "0,1,2", "--box", "4x4", "-o", d, "--engine", "general",
        ]),
        "-o keeps the packed engine's table: choose --engine packed or packed-colex",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_command_keeps_its_checkpoint_and_the_same_command_resumes() {
    let dir = scratch_dir("ord_file_sigint");
    let (out, whole) = (dir.join("t.ord"), dir.join("whole.ord"));
    let o = out.to_str().unwrap();
    let args = |o: &str| -> Vec<String> {
        ["chomp", "ord", "--rule", "0,2,1", "--box", "13x13", "-o", o]
            .map(String::from)
            .to_vec()
    };
    // Interrupted once its checkpoint holds a record (the header is under 120 bytes).
    let partial = partial_path(&out);
    let a = args(o);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let run = interrupted_when(&a, || {
        std::fs::metadata(&partial).map_or(0, |m| m.len()) >= 200
    });
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(130), "{err}");
    assert!(
        err.contains("kept the checkpoint") && err.contains("t.ord.partial"),
        "{err}"
    );
    assert!(!out.exists() && partial.exists());
    let a = args(o);
    let again = chompute(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("resuming from") && stderr(&again).contains("steps done"),
        "{}",
        stderr(&again)
    );
    assert!(!partial.exists());
    let w = args(whole.to_str().unwrap());
    assert!(chompute(&w.iter().map(String::as_str).collect::<Vec<_>>())
        .status
        .success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}
