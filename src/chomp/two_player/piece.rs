//! Pieces of a table on disk: the bits of a window `lo..hi` of a table (a finished window of
//! a box solved in blocks) or a snapshot of its N-marks while it runs, whole or absent. The
//! format: docs/formats.md (`window-K.bits`, `window-K.marks`).
//!
//! Tests: src/chomp/two_player/blocks.rs and src/chomp/two_player/run.rs, whose runs resume
//! from them; tests/games/blocks.rs.

use super::file;
use super::forward::Resume;
use crate::chomp::bits::Window;
use crate::chomp::engine::lifecycle::{open_step_log, Cadence, RunEvent};
use crate::chomp::engine::schedule::Progress;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, Checkpoint};
use crate::error::{Error, Result};
use crate::output::AtomicFile;
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

/// A kind of piece: its first line, and the header key of its number.
pub type PieceKind = (&'static str, &'static str);
/// A finished window, its number its P-positions.
pub const WINDOW: PieceKind = ("chompute chomp window 1", "p-positions");
/// A snapshot of a window's marks, its number the step it was taken before.
pub const MARKS: PieceKind = ("chompute chomp window marks 1", "step");

/// The header of a piece, as read.
pub struct PieceHeader {
    /// The window's P-positions, or the step a snapshot was taken before.
    pub number: u64,
    /// The CRC-32 of the piece's words.
    pub crc: u32,
    data_start: u64,
    end: u64,
}

/// Resume the run of window `win` of `index`'s table (its marks all clear): from the snapshot at
/// `marks` when one is whole (the P indexes the checkpoint at `partial` recorded since, to push
/// their parents again), else from the P bits that checkpoint records. Returns the checkpoint,
/// how to resume, and the step of the snapshot used.
pub(super) fn resume_window(
    partial: &Path,
    marks: &Path,
    index: &BitLayout,
    win: Window,
    chunk: usize,
) -> Result<(Checkpoint, Resume, Option<u64>)> {
    let mut dirty = false;
    let snapshot = (|| {
        let file = File::open(marks).map_err(|e| Error::io(marks, e))?;
        let h = read_piece_header(marks, &file, index, (win.lo, win.hi), MARKS)?;
        let mut to = win.words.iter();
        read_piece_words(marks, &file, &h, chunk, |ws| {
            dirty = true;
            let pairs = ws.iter().zip(to.by_ref());
            pairs.for_each(|(&w, t)| t.store(w, Relaxed));
            Ok(())
        })?;
        Ok::<_, Error>(h.number)
    })()
    .ok();
    // A torn or damaged snapshot was read (in part) into the words before its CRC failed.
    if snapshot.is_none() && dirty {
        win.words.par_iter().for_each(|w| w.store(0, Relaxed));
    }
    let mut after = Vec::new();
    let read = |r: &mut dyn Read, step, _: &[(u64, u64)]| match file::read_record(r, index.len()) {
        Some((v, ps, bytes)) if v == step => {
            match snapshot {
                Some(s) if step >= s => after.extend(ps),
                Some(_) => {}
                None => ps.into_iter().for_each(|p| win.mark::<true>(p)),
            }
            Ok(Some(bytes))
        }
        _ => Ok(None),
    };
    let magic = (file::PARTIAL_MAGIC, "solved");
    let (checkpoint, start) = open_step_log(partial, magic, index, &[], read)?;
    let resume = match snapshot {
        Some(_) => Resume::Marks { start, after },
        None => Resume::Bits { start },
    };
    Ok((checkpoint, resume, snapshot))
}

/// What a window's run does after each step: record its P indexes in `checkpoint`, report it,
/// and (between steps no thread marks: the words are a consistent snapshot) save the marks to
/// `marks` when `cadence` says so and the window moved on since the last, but not once done.
pub(super) fn record_step<'a>(
    index: &'a BitLayout,
    (win, chunk): (Window<'a>, usize),
    checkpoint: &'a mut Checkpoint,
    marks: &'a Path,
    mut cadence: Cadence,
    report: &'a mut dyn FnMut(RunEvent),
) -> impl FnMut(u64, &[u64], Progress) -> Result<()> + 'a {
    let mut saved = 0;
    move |step, ps, p| {
        checkpoint.append(step, ps)?;
        report(RunEvent::Step(p));
        if cadence.due(p.done, p.total) && saved < p.done && p.done < p.total {
            cadence.take(|| save_piece(marks, index, win, MARKS, step + 1, chunk))?;
            saved = p.done;
            report(RunEvent::Snapshot { step: step + 1 });
        }
        Ok(())
    }
}

/// Write `win`'s words as a piece of `kind` with its `number` to `path` (a temporary name
/// renamed when whole); the CRC is written last, over a placeholder of the same width.
pub(super) fn save_piece(
    path: &Path,
    index: &BitLayout,
    win: Window,
    (magic, key): PieceKind,
    number: u64,
    chunk: usize,
) -> Result<()> {
    let header = |crc: u32| {
        let fields = [
            ("lo", win.lo.to_string()),
            ("hi", win.hi.to_string()),
            (key, number.to_string()),
            ("crc32", format!("{crc:08x}")),
        ];
        file::header_text(magic, index, &fields)
    };
    let mut file = AtomicFile::create_piece(path)?;
    let io = |e| Error::io(path, e);
    let mut crc = crc32fast::Hasher::new();
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(header(0).as_bytes()).map_err(io)?;
        let words = win.words.iter().map(|w| w.load(Relaxed));
        file::le_chunks(words, chunk, |bytes| {
            crc.update(bytes);
            out.write_all(bytes).map_err(io)
        })?;
        out.flush().map_err(io)?;
    }
    file.rewrite_start(header(crc.finalize()).as_bytes())?;
    file.commit()
}

/// The header of a piece `lo..hi` of `index`'s table, checked against them and the file's
/// length (not the CRC, which is checked as the words are read).
pub fn read_piece_header(
    path: &Path,
    file: &File,
    index: &BitLayout,
    (lo, hi): (u64, u64),
    (magic, key): PieceKind,
) -> Result<PieceHeader> {
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let (pairs, data_start) = store::read_header(path, &mut BufReader::new(file), magic)?;
    let got = store::header_index(path, &pairs)?;
    let num = |key: &str| store::number(path, &pairs, key);
    let damaged = || {
        Error::invalid(format!(
            "{}: not the piece {lo}..{hi} of this table",
            path.display()
        ))
    };
    let end = data_start + Window::words_for(lo, hi) * 8;
    if got.shape() != index.shape()
        || got.scheme() != index.scheme()
        || num("lo")? != lo
        || num("hi")? != hi
        || len != end
    {
        return Err(damaged());
    }
    let crc =
        u32::from_str_radix(store::field(path, &pairs, "crc32")?, 16).map_err(|_| damaged())?;
    Ok(PieceHeader {
        number: num(key)?,
        crc,
        data_start,
        end,
    })
}

/// Every word of a piece, in slices, then its CRC checked: a damaged piece is an error (after
/// its words were handed on, so a caller uses them only once this returns `Ok`).
pub fn read_piece_words(
    path: &Path,
    file: &File,
    h: &PieceHeader,
    chunk: usize,
    mut each: impl FnMut(&[u64]) -> Result<()>,
) -> Result<()> {
    let mut at = h.data_start;
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; chunk * 8];
    let mut ws = Vec::with_capacity(chunk);
    while at < h.end {
        let n = (h.end - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)
            .map_err(|e| Error::io(path, e))?;
        crc.update(&buf[..n]);
        ws.clear();
        ws.extend(file::words_of(&buf[..n]));
        each(&ws)?;
        at += n as u64;
    }
    if crc.finalize() != h.crc {
        return Err(store::damaged(path, "the bits do not match its crc32"));
    }
    Ok(())
}
