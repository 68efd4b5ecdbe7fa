//! Pieces of a table on disk: the bits of a window `lo..hi` of a table (a finished window of
//! a box solved in blocks) or a snapshot of its N-marks while it runs (which a resume loads
//! instead of redoing the steps before it). A header in the table files' style (`box`,
//! `rank`, `lo`, `hi`, a number, the `crc32` of the words), an empty line, the words
//! (little-endian u64, bit i of word j is index (lo rounded down to 64) + 64j + i), written
//! under a temporary name and renamed, so a piece is whole or absent.
//!
//! Tests: src/chomp/two_player/blocks.rs and src/chomp/two_player/run.rs, whose runs resume
//! from them; tests/games/blocks.rs.

use super::file;
use crate::chomp::bits::Window;
use crate::chomp::index::BitLayout;
use crate::chomp::store;
use crate::error::{Error, Result};
use crate::output::AtomicFile;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The kind line of a finished window.
pub const WINDOW_MAGIC: &str = "chompute chomp window 1";
/// The kind line of a snapshot of a window's marks.
pub const MARKS_MAGIC: &str = "chompute chomp window marks 1";

/// When to snapshot the marks of a run: at least `every` apart (zero: at every step), and so
/// that at most a twentieth of the time goes to them, judged by the last snapshot's write time.
#[derive(Debug, Clone, Copy)]
pub struct Cadence {
    every: Duration,
    last: Instant,
    write_time: Duration,
}

impl PieceHeader {
    /// The CRC-32 of the piece's words.
    pub fn crc(&self) -> u32 {
        self.crc
    }
}

impl Cadence {
    /// A cadence from now, the first snapshot assumed to take `first_write`.
    pub fn new(every: Duration, first_write: Duration) -> Cadence {
        Cadence {
            every,
            last: Instant::now(),
            write_time: first_write,
        }
    }

    /// Whether a snapshot is due.
    pub fn due(&self) -> bool {
        let wait = match self.every.is_zero() {
            true => Duration::ZERO,
            false => self.every.max(20 * self.write_time),
        };
        self.last.elapsed() >= wait
    }

    /// Take a snapshot by `save`, timing it.
    pub fn take(&mut self, save: impl FnOnce() -> Result<()>) -> Result<()> {
        let t = Instant::now();
        save()?;
        self.write_time = t.elapsed();
        self.last = Instant::now();
        Ok(())
    }
}

/// Where a piece lies: the table's layout and its indexes `lo..hi`.
#[derive(Debug, Clone, Copy)]
pub struct Span<'a> {
    /// The table's bit layout.
    pub index: &'a BitLayout,
    /// First index.
    pub lo: u64,
    /// One past the last index.
    pub hi: u64,
}

/// The header of a piece, as read.
pub struct PieceHeader {
    /// The window's P-positions, or the step a snapshot was taken before.
    pub number: u64,
    crc: u32,
    data_start: u64,
    end: u64,
}

/// The header of a piece: its finished bits (`p-positions`) or a snapshot of its marks
/// (`step`).
fn piece_header_text(span: Span, magic: &str, number: (&str, u64), crc: u32) -> String {
    file::header_text(
        magic,
        span.index,
        &[
            ("lo", span.lo.to_string()),
            ("hi", span.hi.to_string()),
            (number.0, number.1.to_string()),
            ("crc32", format!("{crc:08x}")),
        ],
    )
}

/// Save the finished bits of a window, with its P-positions.
pub fn save_window(
    path: &Path,
    span: Span,
    p: u64,
    words: &[AtomicU64],
    chunk: usize,
) -> Result<()> {
    save_words_piece(path, words, chunk, |crc| {
        piece_header_text(span, WINDOW_MAGIC, ("p-positions", p), crc)
    })
}

/// Snapshot the marks of a window before step `step`.
pub fn save_marks(
    path: &Path,
    span: Span,
    step: u64,
    words: &[AtomicU64],
    chunk: usize,
) -> Result<()> {
    save_words_piece(path, words, chunk, |crc| {
        piece_header_text(span, MARKS_MAGIC, ("step", step), crc)
    })
}

/// Load a snapshot of a window's marks into `words`: the step it was taken before. An error
/// (the words then unspecified) when it is absent, torn or not of this window.
pub fn load_marks(path: &Path, span: Span, words: &[AtomicU64], chunk: usize) -> Result<u64> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let h = read_piece_header(path, &file, span, MARKS_MAGIC)?;
    let mut i = 0;
    read_piece_words(path, &file, &h, chunk, |ws| {
        for &w in ws {
            words[i].store(w, Relaxed);
            i += 1;
        }
        Ok(())
    })?;
    Ok(h.number)
}

/// Write `words` under the header `header(crc)` to `path` (a temporary name renamed when
/// whole); the CRC is written last, over a placeholder of the same width.
fn save_words_piece(
    path: &Path,
    words: &[AtomicU64],
    chunk: usize,
    header: impl Fn(u32) -> String,
) -> Result<()> {
    let mut file = AtomicFile::create_piece(path)?;
    let io = |e| Error::io(path, e);
    let mut crc = crc32fast::Hasher::new();
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(header(0).as_bytes()).map_err(io)?;
        let mut bytes = Vec::with_capacity(chunk * 8);
        for chunk in words.chunks(chunk) {
            bytes.clear();
            chunk
                .iter()
                .for_each(|w| bytes.extend_from_slice(&w.load(Relaxed).to_le_bytes()));
            crc.update(&bytes);
            out.write_all(&bytes).map_err(io)?;
        }
        out.flush().map_err(io)?;
    }
    file.rewrite_start(header(crc.finalize()).as_bytes())?;
    file.commit()
}

/// The header of a piece of `span` (its finished bits or a snapshot of its marks), checked
/// against the span and the file's length (not the CRC, which is checked as the words are
/// read).
pub fn read_piece_header(path: &Path, file: &File, span: Span, magic: &str) -> Result<PieceHeader> {
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let (pairs, data_start) = store::read_header(path, &mut BufReader::new(file), magic)?;
    let got = store::header_index(path, &pairs)?;
    let num = |key: &str| -> Result<u64> {
        store::field(path, &pairs, key)?
            .parse()
            .map_err(|_| Error::invalid(format!("{}: '{key}' is not a number", path.display())))
    };
    let damaged = || {
        Error::invalid(format!(
            "{}: not the piece {}..{} of this table",
            path.display(),
            span.lo,
            span.hi
        ))
    };
    let end = data_start + Window::words_for(span.lo, span.hi) * 8;
    if got.shape() != span.index.shape()
        || got.scheme() != span.index.scheme()
        || num("lo")? != span.lo
        || num("hi")? != span.hi
        || len != end
    {
        return Err(damaged());
    }
    let crc =
        u32::from_str_radix(store::field(path, &pairs, "crc32")?, 16).map_err(|_| damaged())?;
    let number = num(if magic == MARKS_MAGIC {
        "step"
    } else {
        "p-positions"
    })?;
    Ok(PieceHeader {
        number,
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
        ws.extend(
            buf[..n]
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))),
        );
        each(&ws)?;
        at += n as u64;
    }
    if crc.finalize() != h.crc {
        return Err(store::damaged(path, "the bits do not match its crc32"));
    }
    Ok(())
}
