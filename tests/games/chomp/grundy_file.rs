//! Grundy table files end to end: the file against the table in memory value for value, one
//! and two bytes a value, a run stopped and resumed to the same bytes (in the library, with a
//! damaged checkpoint, and through the command with SIGINT), a second writer, and
//! `chomp query` answering from the file (its moves checked against the table in memory) or
//! refusing a damaged, edited or foreign file.

use crate::common::{
    assert_usage_error, chompute, interrupted_when, json_of, resumes_to_the_same_bytes,
    scratch_dir, stderr, stdout,
};
use chompute::cancel::Cancel;
use chompute::chomp::engine::lifecycle::RunEvent;
use chompute::chomp::saved::SavedTable;
use chompute::chomp::store::partial_path;
use chompute::chomp::two_player::grundy::{GrundyPlan, GrundyTable, ValueBytes};
use chompute::chomp::two_player::grundy_file::{compute_to_file, GrundyFile};
use chompute::chomp::{ChompBox, Diagram};
use chompute::memory::Room;
use std::path::Path;

fn bx(rows: usize, cols: u32) -> ChompBox {
    ChompBox { rows, cols }
}

fn plan(shape: ChompBox, width: ValueBytes) -> GrundyPlan {
    GrundyPlan::new(shape, Some(width), false, Room::assume(1 << 32)).unwrap()
}

/// Every position by colex rank, squares too.
fn by_rank(shape: ChompBox, width: ValueBytes) -> GrundyPlan {
    GrundyPlan::new(shape, Some(width), true, Room::assume(1 << 32)).unwrap()
}

/// The length of a file's header: up to and with its empty line.
fn header_len(bytes: &[u8]) -> usize {
    bytes.windows(2).position(|w| w == b"\n\n").unwrap() + 2
}

/// Where each record of a Grundy checkpoint starts, and where the last one ends.
fn record_starts(bytes: &[u8], width: usize) -> Vec<usize> {
    let mut at = header_len(bytes);
    let mut out = vec![at];
    while at < bytes.len() {
        assert_eq!(&bytes[at..at + 4], b"LAYR");
        let n = u64::from_le_bytes(bytes[at + 12..at + 20].try_into().unwrap()) as usize;
        at += 24 + n * width;
        out.push(at);
    }
    assert_eq!(at, bytes.len(), "whole records");
    out
}

#[test]
fn a_saved_table_equals_the_table_in_memory_value_for_value() {
    let dir = scratch_dir("grundy_file_values");
    // 10x10's 184756 values fill three chunks of the trailer.
    for (shape, width) in [
        (bx(5, 7), ValueBytes::One),
        (bx(7, 5), ValueBytes::One),
        (bx(8, 8), ValueBytes::One),
        (bx(1, 9), ValueBytes::Two),
        (bx(10, 10), ValueBytes::One),
    ] {
        // The twin: the table of every position by colex rank.
        let mem = GrundyTable::compute_with(by_rank(shape, ValueBytes::One)).unwrap();
        let positions = mem.ranker().len();
        let square = shape.rows == shape.cols as usize;
        let plans = match square {
            true => vec![plan(shape, width), by_rank(shape, width)],
            false => vec![plan(shape, width)],
        };
        for plan in plans {
            let path = dir.join(format!("{shape}-{}.grundy", plan.pairs));
            let saved = compute_to_file(plan, &path, |_| {}).unwrap();
            assert!(
                !partial_path(&path).exists(),
                "{shape}: the checkpoint goes"
            );
            let file = GrundyFile::open(&path).unwrap();
            file.verify().unwrap();
            assert_eq!(file.shape(), shape);
            assert_eq!(file.max_value() as usize, mem.max_grundy(), "{shape}");
            for r in 1..positions {
                let p = mem.ranker().unrank(r);
                assert_eq!(file.value(&p).unwrap(), mem.value_rank(r), "{shape} {p}");
                assert_eq!(saved.value_rank(r), mem.value_rank(r), "{shape} rank {r}");
            }
            assert_eq!(saved.histogram(), mem.histogram(), "{shape}");
            for rows in 1..=shape.rows {
                for cols in 1..=shape.cols {
                    assert_eq!(saved.largest_in(rows, cols), mem.largest_in(rows, cols));
                }
            }
            // The file is the header, the values and one CRC per 64 KiB of them.
            let bytes = std::fs::read(&path).unwrap();
            let entries = saved.plan().entries;
            assert_eq!(entries < positions, plan.pairs, "{shape}");
            let body = entries as usize * width.bytes() as usize;
            let h = header_len(&bytes);
            assert_eq!(bytes.len(), h + body + body.div_ceil(65536) * 4, "{shape}");
            let head = std::str::from_utf8(&bytes[..h]).unwrap();
            let rank = match plan.pairs {
                true => format!("transpose-hook {}", shape.rows),
                false => "colex-lattice-path".to_string(),
            };
            assert!(
                head.starts_with(&format!(
                    "chompute chomp grundy-table 2\nbox {shape}\nrank {rank}\n\
                     positions {positions}\nvalue-bytes {}\nmax-value {}\nchunk-bytes 65536\n\
                     header-crc32 ",
                    width.bytes(),
                    mem.max_grundy()
                )),
                "{head}"
            );
            let top = Diagram::new(vec![shape.cols; shape.rows]).unwrap();
            assert_eq!(file.value(&top).unwrap(), mem.value(&top).unwrap());
            let read = SavedTable::open(&path).unwrap();
            assert!(
                matches!(read, SavedTable::Grundy(_)),
                "{shape}: read as another kind"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_and_two_bytes_hold_the_same_values_and_a_value_past_one_byte_leaves_nothing() {
    let dir = scratch_dir("grundy_file_widths");
    let (one, two) = (dir.join("one"), dir.join("two"));
    compute_to_file(plan(bx(6, 8), ValueBytes::One), &one, |_| {}).unwrap();
    compute_to_file(plan(bx(6, 8), ValueBytes::Two), &two, |_| {}).unwrap();
    let (a, b) = (std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let (ha, hb) = (header_len(&a), header_len(&b));
    let mem = GrundyTable::compute(bx(6, 8)).unwrap();
    let positions = mem.ranker().len() as usize;
    // Each two-byte value is the one-byte value, little-endian.
    let widened: Vec<u8> = a[ha..ha + positions].iter().flat_map(|&g| [g, 0]).collect();
    assert_eq!(&b[hb..hb + 2 * positions], &widened[..]);
    assert!(String::from_utf8_lossy(&b[..hb]).contains("value-bytes 2\n"));
    let (fa, fb) = (
        GrundyFile::open(&one).unwrap(),
        GrundyFile::open(&two).unwrap(),
    );
    for r in 1..positions as u64 {
        let p = mem.ranker().unrank(r);
        assert_eq!(fa.value(&p).unwrap(), fb.value(&p).unwrap(), "{p}");
    }

    // 1×300: (257) has value 256, past one byte. The one-byte run stops, and leaves neither a
    // table nor a checkpoint that a two-byte run could not take.
    let long = dir.join("long");
    let e = compute_to_file(plan(bx(1, 300), ValueBytes::One), &long, |_| {}).unwrap_err();
    assert!(e.to_string().contains("exceeds 255"), "{e}");
    assert!(!long.exists() && !partial_path(&long).exists());
    compute_to_file(plan(bx(1, 300), ValueBytes::Two), &long, |_| {}).unwrap();
    let f = GrundyFile::open(&long).unwrap();
    assert_eq!(f.value(&Diagram::new(vec![300]).unwrap()).unwrap(), 299);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run `plan` into `path` and stop it once step `stop_after` is recorded.
fn stopped_run(plan: GrundyPlan, path: &Path, stop_after: u64) {
    let stop = Cancel::new();
    let r = stop.scope(|| {
        compute_to_file(plan, path, |e| {
            if let RunEvent::Step(p) = e {
                if p.steps_done == stop_after + 1 {
                    stop.cancel();
                }
            }
        })
    });
    assert!(matches!(r, Err(chompute::Error::Interrupted)), "{r:?}");
    assert!(!path.exists() && partial_path(path).exists());
}

#[test]
fn an_interrupted_run_resumes_to_the_identical_file() {
    let dir = scratch_dir("grundy_file_resume");
    let shape = bx(10, 10); // 51 layers by colex rank
    let plan = by_rank(shape, ValueBytes::One);
    let whole = dir.join("whole");
    let parts = dir.join("parts");
    compute_to_file(plan, &whole, |_| {}).unwrap();
    stopped_run(plan, &parts, 10);
    // The second run resumes after layer 10.
    let mut resumed = None;
    let stop = Cancel::new();
    let r = stop.scope(|| {
        compute_to_file(plan, &parts, |e| match e {
            RunEvent::Resumed { steps_done, .. } => resumed = Some(steps_done),
            RunEvent::Step(p) if p.steps_done == 31 => stop.cancel(),
            _ => {}
        })
    });
    assert!(matches!(r, Err(chompute::Error::Interrupted)));
    assert_eq!(resumed, Some(11));
    // Layers 0..=30 are recorded. Cut the last record short and flip a byte in the values of
    // layer 20: the resumed run keeps layers 0..=19 and reports the rest as dropped.
    let partial = partial_path(&parts);
    let mut log = std::fs::read(&partial).unwrap();
    let starts = record_starts(&log, 1);
    assert_eq!(starts.len(), 32, "31 records");
    log.truncate(log.len() - 5);
    log[starts[20] + 24] ^= 0x04;
    std::fs::write(&partial, &log).unwrap();
    let mut events = Vec::new();
    let table = compute_to_file(plan, &parts, |e| {
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
    assert_eq!(
        events,
        [(20, 51, (log.len() - starts[20]) as u64)],
        "resumed after layer 19"
    );
    assert!(!partial.exists());
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&parts).unwrap()
    );
    // The resumed table's tallies count the layers read back too.
    let mem = GrundyTable::compute(shape).unwrap();
    assert_eq!(table.histogram(), mem.histogram());
    for rows in 1..=10 {
        for cols in 1..=10 {
            assert_eq!(table.largest_in(rows, cols), mem.largest_in(rows, cols));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_square_by_transposed_pairs_stopped_at_any_step_resumes_to_the_identical_file() {
    let dir = scratch_dir("grundy_file_resume_pairs");
    let shape = bx(9, 9);
    let plan = plan(shape, ValueBytes::One);
    assert!(plan.pairs && plan.entries < plan.positions);
    let whole = dir.join("whole");
    let table = compute_to_file(plan, &whole, |_| {}).unwrap();
    let steps = table.layout().hook_index().unwrap().steps();
    assert!(steps > 20, "{steps}");
    let mem = GrundyTable::compute_with(by_rank(shape, ValueBytes::One)).unwrap();
    let stops = [0, 1, steps / 3, steps - 2];
    let stop = |parts: &Path, step| stopped_run(plan, parts, step);
    resumes_to_the_same_bytes(&dir, &whole, &stops, stop, |parts| {
        let mut resumed = None;
        let again = compute_to_file(plan, parts, |e| {
            if let RunEvent::Resumed { steps_done, .. } = e {
                resumed = Some(steps_done);
            }
        })
        .unwrap();
        // The resumed table's tallies count the steps read back too.
        assert_eq!(again.histogram(), mem.histogram());
        for rows in 1..=9 {
            for cols in 1..=9 {
                assert_eq!(again.largest_in(rows, cols), mem.largest_in(rows, cols));
            }
        }
        resumed
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checkpoint_of_another_box_or_width_and_a_second_writer_are_refused() {
    let dir = scratch_dir("grundy_file_refused");
    let path = dir.join("g");
    stopped_run(plan(bx(6, 6), ValueBytes::One), &path, 3);
    let e = compute_to_file(plan(bx(6, 6), ValueBytes::Two), &path, |_| {}).unwrap_err();
    assert!(matches!(e, chompute::Error::Conflict { .. }), "{e:?}");
    let why = "keeps values of 1 bytes, this run 2; rerun with the value width 1 or remove it";
    assert!(e.to_string().contains(why), "{e}");
    // One value a transposed pair, or every position: another numbering, refused.
    let e = compute_to_file(by_rank(bx(6, 6), ValueBytes::One), &path, |_| {}).unwrap_err();
    assert!(
        e.to_string().contains("numbered by 'transpose-hook 6'"),
        "{e}"
    );
    let e = compute_to_file(plan(bx(6, 7), ValueBytes::One), &path, |_| {}).unwrap_err();
    let why = "is the checkpoint of the 6x6 box, not of 6x7; remove it to start afresh, or run \
               what it was";
    assert!(e.to_string().ends_with(why), "{e}");
    // A one-bit table's checkpoint is not a Grundy table's.
    let p = dir.join("p");
    std::fs::write(
        partial_path(&p),
        "chompute chomp p-table partial 1\nbox 6x6\nrank colex-lattice-path\n\n",
    )
    .unwrap();
    let e = compute_to_file(plan(bx(6, 6), ValueBytes::One), &p, |_| {}).unwrap_err();
    assert!(e.to_string().contains("grundy-table partial 1"), "{e}");

    // While one run is between two layers, a second one on the same file is refused.
    let (go_on, wait) = std::sync::mpsc::channel::<()>();
    let (started, in_layer) = std::sync::mpsc::channel::<()>();
    let first = {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut once = Some((started, wait));
            compute_to_file(plan(bx(6, 6), ValueBytes::One), &path, |e| {
                if let RunEvent::Step(_) = e {
                    if let Some((started, wait)) = once.take() {
                        started.send(()).unwrap();
                        wait.recv().unwrap();
                    }
                }
            })
        })
    };
    in_layer.recv().unwrap();
    let e = compute_to_file(plan(bx(6, 6), ValueBytes::One), &path, |_| {}).unwrap_err();
    assert!(
        e.to_string()
            .contains("is being computed by another process"),
        "{e}"
    );
    go_on.send(()).unwrap();
    first.join().unwrap().unwrap();
    let mem = GrundyTable::compute(bx(6, 6)).unwrap();
    let f = GrundyFile::open(&path).unwrap();
    for r in 1..mem.ranker().len() {
        let p = mem.ranker().unrank(r);
        assert_eq!(f.value(&p).ok(), mem.value(&p), "{p}");
    }

    // The command line says it in one line, status 2, while another process holds the lock.
    let held = dir.join("held");
    let lock = std::fs::File::create(partial_path(&held)).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a file this test opened.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let h = held.to_str().unwrap();
    assert_usage_error(
        &chompute(&["chomp", "grundy", "--box", "5x7", "-o", h]),
        "is being computed by another process",
    );
    drop(lock);
    let o = chompute(&["chomp", "grundy", "--box", "5x7", "-o", h]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(held.exists() && !partial_path(&held).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_move_the_file_gives_leads_to_its_stated_value() {
    let dir = scratch_dir("grundy_file_moves");
    for shape in [bx(5, 7), bx(7, 5)] {
        let path = dir.join(format!("{shape}"));
        compute_to_file(plan(shape, ValueBytes::One), &path, |_| {}).unwrap();
        let mem = GrundyTable::compute(shape).unwrap();
        let file = GrundyFile::open(&path).unwrap();
        let mut nonzero = 0;
        for r in 1..mem.ranker().len() {
            let p = mem.ranker().unrank(r);
            let g = mem.value(&p).unwrap();
            assert_eq!(file.value(&p).unwrap(), g);
            let moves = file.moves(&p).unwrap();
            assert_eq!(moves.len(), g as usize, "{p}");
            let options = p.options();
            for (v, q) in moves.iter().enumerate() {
                assert!(options.contains(q), "{p}: {q} is no move of it");
                assert_eq!(mem.value(q), Some(v as u16), "{p} -> {q}");
            }
            nonzero += (g > 0) as u32;
        }
        assert!(nonzero > 500, "{shape}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The position's value and moves as `chomp query --json` gives them.
fn query_json(path: &str, p: &str) -> (u16, Vec<Diagram>) {
    let o = chompute(&["chomp", "query", path, "--position", p, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json_of(&o);
    let moves = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let rows = m.as_array().unwrap();
            Diagram::new(rows.iter().map(|a| a.as_u64().unwrap() as u32).collect()).unwrap()
        })
        .collect();
    assert_eq!(j["p"], j["grundy"] == 0);
    (j["grundy"].as_u64().unwrap() as u16, moves)
}

#[test]
fn cli_grundy_o_and_query() {
    let dir = scratch_dir("grundy_file_cli");
    let file = dir.join("g8.grundy");
    let f = file.to_str().unwrap();
    let o = chompute(&["chomp", "grundy", "--box", "8x8", "-o", f, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json_of(&o);
    assert_eq!(j["file"], f);
    assert_eq!(j["resumed_layers"], 0);
    // -o adds the file: the b-file is as without it.
    let again = dir.join("again.grundy");
    let args = ["chomp", "grundy", "--box", "8x8", "--bfile", "square"];
    let with = chompute(&[&args[..], &["-o", again.to_str().unwrap()][..]].concat());
    assert_eq!(stdout(&with), stdout(&chompute(&args)));
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&file).unwrap()
    );
    let o = chompute(&["chomp", "grundy", "--box", "8x8"]);
    assert!(!stdout(&o).contains("saved"));

    let mem = GrundyTable::compute(bx(8, 8)).unwrap();
    for p in [
        "8,8,8,8,8,8,8,8",
        "5,3,3",
        "7,7,2",
        "2,1",
        "1",
        "6,6,6,6,6,6",
    ] {
        let d = Diagram::parse(p).unwrap();
        let (g, moves) = query_json(f, p);
        assert_eq!(Some(g), mem.value(&d), "{p}");
        assert_eq!(moves.len(), g as usize);
        for (v, q) in moves.iter().enumerate() {
            assert!(d.options().contains(q), "{p} -> {q}");
            assert_eq!(mem.value(q), Some(v as u16), "{p} -> {q}");
        }
    }
    let o = chompute(&["chomp", "query", f, "--position", "2,1", "--verify"]);
    assert_eq!(stdout(&o), "2,1: Grundy value 0, P (every bite loses)\n");
    let o = chompute(&["chomp", "query", f, "--position", "3"]);
    assert_eq!(
        stdout(&o),
        "3: Grundy value 2, a move to each smaller value: 0: (1,2) leaves (1); 1: (1,3) leaves (2)\n"
    );
    assert_usage_error(
        &chompute(&["chomp", "query", f, "--position", "9"]),
        "does not fit in the 8x8 box",
    );
    // A Grundy table is not a one-bit table.
    assert_usage_error(
        &chompute(&["chomp", "bites", "--table", f]),
        "a Grundy table",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn query_refuses_flipped_bits_an_edited_header_and_a_foreign_file() {
    let dir = scratch_dir("grundy_file_damage");
    let file = dir.join("g.grundy");
    let o = chompute(&[
        "chomp",
        "grundy",
        "--box",
        "9x9",
        "--value-bytes",
        "2",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&file).unwrap();
    let h = header_len(&bytes);
    // 33,099 values of two bytes (one of each transposed pair of the 48,620 positions of
    // 9×9): two chunks.
    let body = 33099 * 2;
    assert_eq!(bytes.len(), h + body + 8);
    let bad = dir.join("bad.grundy");
    let b = bad.to_str().unwrap();
    // A bit flipped in the first value (the empty diagram's, in the first chunk), the last
    // (the queried position's, in the second chunk) and the trailer: each refused in one line,
    // status 2. The full square's options lie in both chunks, so a query reads both.
    for at in [h, h + body - 2, h + body - 1, h + body + 5] {
        for bit in [0x01, 0x80] {
            let mut damaged = bytes.clone();
            damaged[at] ^= bit;
            std::fs::write(&bad, &damaged).unwrap();
            for verify in [false, true] {
                let mut args = vec!["chomp", "query", b, "--position", "9,9,9,9,9,9,9,9,9"];
                if verify {
                    args.push("--verify");
                }
                let o = chompute(&args);
                let err = stderr(&o);
                assert_eq!(o.status.code(), Some(2), "byte {at} {args:?}: {err}");
                assert!(
                    err.contains("crc32") && err.contains(b) && err.trim_end().lines().count() == 1,
                    "byte {at}: {err}"
                );
                assert!(stdout(&o).is_empty());
            }
        }
    }
    // An edited header: a digit of max-value changed (the length kept), or a box that fits.
    let head = String::from_utf8(bytes[..h].to_vec()).unwrap();
    let max = head.lines().find(|l| l.starts_with("max-value")).unwrap();
    let last = max.chars().last().unwrap().to_digit(10).unwrap();
    let other = format!("{}{}", &max[..max.len() - 1], (last + 1) % 10);
    for edited in [
        head.replacen(max, &other, 1),
        head.replacen("box 9x9", "box 8x9", 1),
        head.replacen("value-bytes 2", "value-bytes 1", 1),
    ] {
        assert_ne!(edited, head);
        let mut e = edited.into_bytes();
        e.extend_from_slice(&bytes[h..]);
        std::fs::write(&bad, &e).unwrap();
        assert_usage_error(
            &chompute(&["chomp", "query", b, "--position", "2,1"]),
            "header-crc32",
        );
    }
    // Cut short, or a file of neither kind.
    std::fs::write(&bad, &bytes[..bytes.len() - 1]).unwrap();
    assert_usage_error(
        &chompute(&["chomp", "query", b, "--position", "2,1"]),
        "the file is damaged",
    );
    std::fs::write(&bad, "box 9x9\nsomething else\n\n").unwrap();
    assert_usage_error(
        &chompute(&["chomp", "query", b, "--position", "2,1"]),
        "not a chompute table",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_command_keeps_its_checkpoint_and_the_same_command_resumes() {
    let dir = scratch_dir("grundy_file_sigint");
    let (out, whole) = (dir.join("g.grundy"), dir.join("whole.grundy"));
    let o = out.to_str().unwrap();
    // Interrupted once its checkpoint holds a record (the header is under 100 bytes).
    let partial = partial_path(&out);
    let run = interrupted_when(&["chomp", "grundy", "--box", "13x13", "-o", o], || {
        std::fs::metadata(&partial).map_or(0, |m| m.len()) >= 200
    });
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(130), "{err}");
    assert!(
        err.contains("kept the checkpoint") && err.contains("g.grundy.partial"),
        "{err}"
    );
    assert!(!out.exists() && partial.exists());
    let again = chompute(&["chomp", "grundy", "--box", "13x13", "-o", o]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("resuming from") && stderr(&again).contains("steps done"),
        "{}",
        stderr(&again)
    );
    assert!(!partial.exists());
    let w = whole.to_str().unwrap();
    assert!(chompute(&["chomp", "grundy", "--box", "13x13", "-o", w])
        .status
        .success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}
