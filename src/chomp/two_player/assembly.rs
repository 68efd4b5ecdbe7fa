//! The table of a box solved in blocks, assembled in place in its checkpoint folder
//! (`FILE.blocks/table`, written as [`file::save_table`] writes one): each finished piece's
//! words go in, in index order, and its file is removed, so the disk holds the bits about once.
//!
//! Before a piece's file is removed, its CRC-32 and P-positions are appended to the journal
//! `FILE.blocks/assembled` (a step log, made durable). A resumed assembly keeps a piece's words
//! only while they still give that CRC (its neighbours' bits masked off) and recomputes their
//! chunk CRCs; a piece then neither in the table nor on disk is solved again. So damage to the
//! table between runs never reaches the published file.
//!
//! Tests: src/chomp/two_player/blocks.rs (an assembly of windows and of waves, whose pieces
//! share words, stopped after any piece, torn or with a flipped bit), tests/faults/.

use super::block_plan::BlockPlan;
use super::file::{self, words_of};
use crate::chomp::bits::Window;
use crate::chomp::store::{self, chunk_seed, Checkpoint, ChunkCrcs, Sealed, CHUNK_BYTES, P_TABLE};
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const JOURNAL_MAGIC: &str = "chompute chomp assembly 1";
/// Bytes of a journal record: the tag, the piece, the count (2), its CRC and P-positions, the
/// record's CRC.
const RECORD_BYTES: u64 = 4 + 8 + 8 + 16 + 4;

/// The table being assembled in a checkpoint folder.
pub(super) fn table_path(dir: &Path) -> PathBuf {
    dir.join("table")
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("assembled")
}

/// A piece as it went into the table: the CRC-32 of its words (bits of other pieces clear)
/// and its P-positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Assembled {
    pub crc: u32,
    pub p: u64,
}

/// The table being assembled, its journal, and the pieces verified in it (the first
/// `pieces.len()` of the plan).
pub(super) struct Assembly {
    /// The table, open.
    path: PathBuf,
    file: File,
    /// Bytes of its header.
    start: u64,
    /// The chunk CRCs of its words so far.
    crcs: ChunkCrcs,
    journal: Checkpoint,
    /// The box's P-positions, as the table's header says.
    pub p_positions: u64,
    /// The pieces in the table, in order, each checked against its record.
    pub pieces: Vec<Assembled>,
}

/// Clear the bits of `words` (from `lo` rounded down) outside `lo..hi`.
fn mask_piece(lo: u64, hi: u64, words: &mut [u64]) {
    if let Some(first) = words.first_mut() {
        *first &= u64::MAX << (lo % 64);
    }
    if !hi.is_multiple_of(64) {
        if let Some(last) = words.last_mut() {
            *last &= (1u64 << (hi % 64)) - 1;
        }
    }
}

impl Assembly {
    /// Begin the table of `plan`, whose box has `p_positions` (anything at its place is
    /// replaced), and its journal.
    pub(super) fn create(plan: &BlockPlan, dir: &Path, p_positions: u64) -> Result<Assembly> {
        let path = table_path(dir);
        for p in [&path, &journal_path(dir)] {
            if p.exists() {
                std::fs::remove_file(p).map_err(|e| Error::io(p, e))?;
            }
        }
        let header = file::table_header(&P_TABLE.magic(), &plan.index, p_positions);
        let file = OpenOptions::new().write(true).create_new(true).open(&path);
        let wrote = file.and_then(|mut f| f.write_all(header.as_bytes()));
        wrote.map_err(|e| Error::io(&path, e))?;
        Assembly::reopen(plan, dir)
    }

    /// Reopen the assembly begun in `dir`: the table's words read once, keeping the pieces whose
    /// words still give their journal record's CRC (the first that does not ends what is kept).
    pub(super) fn reopen(plan: &BlockPlan, dir: &Path) -> Result<Assembly> {
        let (journal, records) = open_journal(plan, dir)?;
        // Word `w` is `x`: whether to read on (not once a piece fails or all are checked).
        let (mut pieces, mut crc) = (Vec::new(), crc32fast::Hasher::new());
        let mut word = |w: u64, x: u64| {
            // A word may end one piece and begin the next.
            while let Some(rec) = records.get(pieces.len()) {
                let (lo, hi) = plan.window(pieces.len() as u64);
                let end = hi.div_ceil(64);
                let mut v = [x];
                let from = if w == lo >> 6 { lo } else { 0 };
                mask_piece(from, if w + 1 == end { hi } else { 0 }, &mut v);
                crc.update(&v[0].to_le_bytes());
                if w + 1 < end {
                    return true;
                }
                if std::mem::take(&mut crc).finalize() != rec.crc {
                    return false;
                }
                pieces.push(*rec);
                if hi % 64 == 0 {
                    break;
                }
            }
            pieces.len() < records.len()
        };
        let path = table_path(dir);
        let sealed = Sealed::open(&path)?;
        let p_positions = sealed.number("p-positions")?;
        let header = file::table_header(&P_TABLE.magic(), &plan.index, p_positions);
        let why = format!(
            "its header is not that of the {} box's table",
            plan.index.shape()
        );
        sealed.expect(&header, &why)?;
        let file = OpenOptions::new().read(true).write(true).open(&path);
        let mut a = Assembly {
            file: file.map_err(|e| Error::io(&path, e))?,
            path,
            start: header.len() as u64,
            crcs: ChunkCrcs::new(chunk_seed(header.as_bytes())),
            journal,
            p_positions,
            pieces: Vec::new(),
        };
        let len = a.file.metadata().map_err(|e| Error::io(&a.path, e))?.len() - a.start;
        let keep = (len / 8 * 8).min(plan.index.bytes());
        let (mut buf, mut at) = (vec![0u8; CHUNK_BYTES as usize], 0);
        while at < keep {
            let n = (keep - at).min(CHUNK_BYTES) as usize;
            a.read(at, &mut buf[..n])?;
            a.crcs.update(&buf[..n]);
            let first = at / 8;
            at += n as u64;
            if !words_of(&buf[..n]).zip(first..).all(|(x, w)| word(w, x)) {
                break;
            }
        }
        a.file
            .set_len(a.start + at)
            .map_err(|e| Error::io(&a.path, e))?;
        let last = (pieces.len() as u64).checked_sub(1);
        a.truncate_words(last.map_or(0, |m| plan.window(m).1.div_ceil(64)))?;
        let records = RECORD_BYTES * pieces.len() as u64;
        a.journal
            .truncate(journal_header(plan).len() as u64 + records)?;
        a.pieces = pieces;
        Ok(a)
    }

    /// Bytes `at..at + out.len()` of the body.
    fn read(&self, at: u64, out: &mut [u8]) -> Result<()> {
        (self.file.read_exact_at(out, self.start + at)).map_err(|e| Error::io(&self.path, e))
    }

    /// Words `first..first + out.len()` of the body, in one read.
    fn read_words(&self, first: u64, out: &mut [u64]) -> Result<()> {
        let mut bytes = vec![0u8; out.len() * 8];
        self.read(first * 8, &mut bytes)?;
        out.iter_mut()
            .zip(words_of(&bytes))
            .for_each(|(o, w)| *o = w);
        Ok(())
    }

    /// Cut the body back to its first `n` words (at most those it has).
    fn truncate_words(&mut self, n: u64) -> Result<()> {
        let len = n * 8;
        if len >= self.crcs.written() {
            return Ok(());
        }
        let mut partial = vec![0u8; (len % CHUNK_BYTES) as usize];
        self.read(len - partial.len() as u64, &mut partial)?;
        self.crcs.cut(len, &partial);
        let cut = self.file.set_len(self.start + len);
        cut.map_err(|e| Error::io(&self.path, e))
    }

    /// Piece `k`'s words (from its `lo` rounded down, other pieces' bits clear), read from the
    /// table in slices of at most `chunk` words: `k` must be one of [`Assembly::pieces`].
    pub(super) fn for_each_piece_slice(
        &self,
        plan: &BlockPlan,
        k: u64,
        chunk: usize,
        mut each: impl FnMut(&[u64]) -> Result<()>,
    ) -> Result<()> {
        assert!(k < self.pieces.len() as u64, "a piece in the table");
        let (lo, hi) = plan.window(k);
        let n = Window::words_for(lo, hi);
        let mut at = 0;
        let mut buf = Vec::with_capacity(chunk);
        while at < n {
            let m = (n - at).min(chunk as u64);
            buf.resize(m as usize, 0);
            self.read_words((lo >> 6) + at, &mut buf)?;
            // Only its first and last words are shared (0 masks nothing).
            let from = if at == 0 { lo } else { 0 };
            let to = if at + m == n { hi } else { 0 };
            mask_piece(from, to, &mut buf);
            each(&buf)?;
            at += m;
        }
        Ok(())
    }

    /// Put piece `k` (the next), its `words` from its `lo` rounded down, into the table, durable,
    /// then record `rec`: the piece's file may go once this returns.
    pub(super) fn append(
        &mut self,
        plan: &BlockPlan,
        k: u64,
        mut words: Vec<u64>,
        rec: Assembled,
    ) -> Result<()> {
        assert_eq!(k, self.pieces.len() as u64, "pieces go in in order");
        let (lo, _) = plan.window(k);
        let w0 = lo >> 6;
        if lo % 64 != 0 {
            // The first word is shared with the piece before.
            let mut first = [0];
            self.read_words(w0, &mut first)?;
            words[0] |= first[0];
        }
        self.truncate_words(w0)?;
        let written = self.crcs.written() + words.len() as u64 * 8;
        if written > plan.index.bytes() {
            return Err(file::wrong_length(&self.path, &plan.index, written));
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let io = |e| Error::io(&self.path, e);
        (self
            .file
            .write_all_at(&bytes, self.start + self.crcs.written()))
        .map_err(io)?;
        self.crcs.update(&bytes);
        self.file.sync_data().map_err(io)?;
        self.journal.append(k, &[rec.crc as u64, rec.p])?;
        self.journal.sync()?;
        self.pieces.push(rec);
        Ok(())
    }

    /// Every piece is in: write the header's P-positions and the trailer, move the table to
    /// `out`, remove the journal. Returns the P-positions.
    pub(super) fn finish(self, plan: &BlockPlan, dir: &Path, out: &Path) -> Result<u64> {
        if self.pieces.len() as u64 != plan.windows() {
            return Err(Error::invalid(format!(
                "{}: {} of {} pieces are in the table",
                dir.display(),
                self.pieces.len(),
                plan.windows()
            )));
        }
        let p: u64 = self.pieces.iter().map(|r| r.p).sum();
        if p != self.p_positions {
            return Err(store::damaged(
                &table_path(dir),
                format!(
                    "its pieces hold {p} P-positions, its header says {}",
                    self.p_positions
                ),
            ));
        }
        let (total, io) = (plan.index.bytes(), |e| Error::io(&self.path, e));
        if self.crcs.written() != total {
            return Err(file::wrong_length(
                &self.path,
                &plan.index,
                self.crcs.written(),
            ));
        }
        (self
            .file
            .write_all_at(&self.crcs.trailer(), self.start + total))
        .map_err(io)?;
        self.file.sync_all().map_err(io)?;
        crate::output::publish(&self.path, out)?;
        self.journal.remove()?;
        Ok(p)
    }
}

fn journal_header(plan: &BlockPlan) -> String {
    file::header_text(JOURNAL_MAGIC, &plan.index, &[])
}

/// Open the journal of `plan`'s assembly, and its records in order.
fn open_journal(plan: &BlockPlan, dir: &Path) -> Result<(Checkpoint, Vec<Assembled>)> {
    let (path, mut records) = (journal_path(dir), Vec::new());
    let check = |pairs: &[(String, String)]| {
        for (key, value) in [
            ("box", plan.index.shape().to_string()),
            ("rank", plan.index.scheme()),
        ] {
            if store::field(&path, pairs, key)? != value {
                return Err(store::damaged(&path, "it is not the journal of this box"));
            }
        }
        Ok(())
    };
    let read = |reader: &mut dyn std::io::Read, k| match file::read_record(reader, u64::MAX) {
        Some((got, item, bytes)) if got == k && item.len() == 2 => {
            let (crc, p) = (item[0] as u32, item[1]);
            records.push(Assembled { crc, p });
            Ok(Some(bytes))
        }
        _ => Ok(None),
    };
    let header = journal_header(plan);
    let (journal, _) = Checkpoint::open_log(
        &path,
        &header,
        JOURNAL_MAGIC,
        "solved",
        check,
        plan.windows(),
        read,
    )?;
    Ok((journal, records))
}
