//! Two-player tables on disk: the finished table (`chomp solve -o FILE`) and the checkpoint of
//! a run in progress (`FILE.partial`).
//!
//! # The table file
//! Version 3: an ASCII header of `key value` lines ending with an empty line, then the bits,
//! then a trailer of chunk CRCs:
//!
//! ```text
//! chompute chomp p-table 3
//! box 12x12
//! rank colex-lattice-path
//! positions 2704156
//! p-positions 26838
//! chunk-bytes 65536
//! header-crc32 1c0ffee5
//!
//! <⌈positions/64⌉ little-endian u64 words: bit r of word r/64 is 1 iff rank r is P>
//! <one little-endian u32 per chunk-bytes bytes of bits (the last chunk may be shorter)>
//! ```
//!
//! `rank colex-lattice-path` is [`Ranker`]'s scheme: rows a_1 ≥ … ≥ a_R (0-based j) have rank
//! Σ_j C(a_j + R-1-j, R-j), so rank order is lexicographic order of rows and rank 0 is the
//! empty diagram. `rank transpose-hook N` (square boxes) is the hook index of `index::hook`
//! with child squares from side N: one bit for each pair of transposed positions, `positions`
//! still counting the whole box, and `p-positions` counting a stored pair twice.
//! `header-crc32` is the CRC-32 (IEEE) of the header's bytes before that line; each trailer
//! entry is the CRC-32 of one 64 KiB chunk of the bits, started from the CRC-32 of the whole
//! header (`store::chunks`), so an edited header fails every chunk. Version-2 files (chunk CRCs
//! from zero) are still read. A reader checks the header on open
//! and each chunk before it answers from it (once per chunk), and `--verify` checks every
//! chunk and recounts the P-positions, so a damaged file is refused, never answered from.
//! The trailer comes after the bits so that a table is written in one pass
//! ([`save_words`]). The file is a function of the box alone: an interrupted and resumed run
//! writes the same bytes.
//!
//! Version-1 files (`chompute chomp p-table 1`: one CRC over all the bits, none over the
//! header) are refused with a line saying to compute it again: a query of one would have
//! to read the whole file before its first answer, and its header could not be trusted.
//!
//! # The checkpoint
//! `chompute chomp p-table partial 1`, `box`, `rank`, an empty line, then one record per
//! finished step of the schedule, in order: a prefix layer of a colex box (see
//! `engine::schedule`) or a hook step of a square's hook index (see `index::hook`). A record
//! is `LAYR`, the step (u64), the number of P indexes (u64), those indexes (u64 each,
//! ascending), and the CRC-32 of everything in the
//! record after `LAYR`. A run killed mid-record leaves a torn last record; resuming keeps the
//! records before it and cuts the file there.
//!
//! The sealed header, the chunk CRCs ([`ChunkWriter`] and its reader `CheckedBody`) and the
//! checkpoint's records are shared with the Grundy table file (`super::grundy_file`), whose
//! values take the place of the bits and of the P indexes.
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs,
//! tests/games/chomp/grundy_file.rs.

use super::table::{BitSource, PTable, RectangleBites};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::engine::lifecycle::{check_fields, read_steps};
use crate::chomp::index::{BitLayout, HookIndex};
use crate::chomp::store::{
    self, chunk_seed, damaged, header_lines, read_header, read_raw_record, sealed_header,
    Checkpoint, ChunkCrcs, Recount, Sealed, P_TABLE,
};
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub use crate::chomp::store::CHUNK_BYTES;

pub(super) const PARTIAL_MAGIC: &str = "chompute chomp p-table partial 1";

pub(super) fn header_text(magic: &str, index: &BitLayout, extra: &[(&str, String)]) -> String {
    header_lines(magic, index.shape(), &index.scheme(), extra)
}

/// Write a finished table to `path` (a temporary file renamed when complete).
pub fn save_table(table: &PTable, path: &Path) -> Result<()> {
    save_words(path, table.layout(), table.p_count(), |sink| {
        let mut buf = Vec::with_capacity(1 << 14);
        let mut err = Ok(());
        table.for_each_word(|w| {
            if err.is_ok() {
                buf.push(w);
                if buf.len() == buf.capacity() {
                    err = sink(&buf);
                    buf.clear();
                }
            }
        });
        err?;
        if !buf.is_empty() {
            sink(&buf)?;
        }
        Ok(())
    })
}

/// Write a table file from its words: `source` calls the sink with the table's
/// ⌈positions/64⌉ words as consecutive slices, in order, once through. The header (with
/// `p_positions`), the bits and the trailer of chunk CRCs are written under a temporary name
/// that is renamed to `path` when complete. Too few or too many words is an error and leaves
/// no file.
pub fn save_words(
    path: &Path,
    index: &BitLayout,
    p_positions: u64,
    source: impl FnOnce(&mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    let header = table_header(&P_TABLE.magic(), index, p_positions);
    let (total, mut written) = (index.bytes(), 0);
    store::save_sealed(path, &header, |sink| {
        let mut bytes = Vec::new();
        source(&mut |words: &[u64]| {
            written += words.len() as u64 * 8;
            if written > total {
                return Err(wrong_length(path, index, written));
            }
            bytes.clear();
            bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            sink(&bytes)
        })?;
        match written == total {
            true => Ok(()),
            false => Err(wrong_length(path, index, written)),
        }
    })
}

/// The error for a body of `written` bytes of bits where `index`'s box has another number.
fn wrong_length(path: &Path, index: &BitLayout, written: u64) -> Error {
    let (shape, total) = (index.shape(), index.bytes());
    Error::invalid(match written > total {
        true => format!("{}: more words than the {shape} box has", path.display()),
        false => format!(
            "{}: {written} bytes of bits, but the {shape} box has {total}",
            path.display()
        ),
    })
}

/// A table file built in place over one or several runs (a box solved in blocks is assembled
/// window by window inside its checkpoint folder, each window removed once its words are in):
/// the sealed header, then words appended, cut back or read again, and the trailer when the
/// body is whole. Reopened after a crash it keeps the whole words on disk and recomputes
/// their chunk CRCs from them, so the finished file is the one a single pass writes
/// ([`save_words`]).
pub(super) struct TableInPlace {
    path: PathBuf,
    file: File,
    index: BitLayout,
    /// Bytes of header.
    start: u64,
    crcs: ChunkCrcs,
}

impl TableInPlace {
    /// Start the table of `index` with `p_positions` at `path` (a new file: its header).
    pub(super) fn create(path: &Path, index: &BitLayout, p_positions: u64) -> Result<TableInPlace> {
        let header = table_header(&P_TABLE.magic(), index, p_positions);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        file.write_all_at(header.as_bytes(), 0)
            .map_err(|e| Error::io(path, e))?;
        Ok(TableInPlace {
            path: path.to_path_buf(),
            file,
            index: index.clone(),
            start: header.len() as u64,
            crcs: ChunkCrcs::new(chunk_seed(header.as_bytes())),
        })
    }

    /// Reopen the table of `index` begun at `path` by an earlier run: its header must be the
    /// one [`TableInPlace::create`] writes; the whole words after it are read once, in order,
    /// each slice shown to `each(first word, words)` and kept (their chunk CRCs recomputed)
    /// until `each` says stop; what follows is cut off, as is a torn last word. Also returns
    /// the header's P-positions.
    pub(super) fn reopen(
        path: &Path,
        index: &BitLayout,
        mut each: impl FnMut(u64, &[u64]) -> bool,
    ) -> Result<(TableInPlace, u64)> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let first = store::read_prefix(&file, path, store::HEADER_MAX as u64 + 2)?;
        let (pairs, start) = read_header(path, &mut &first[..], &P_TABLE.magic())?;
        let p = store::number(path, &pairs, "p-positions")?;
        let header = table_header(&P_TABLE.magic(), index, p);
        if first[..start as usize] != *header.as_bytes() {
            return Err(damaged(
                path,
                format!(
                    "its header is not that of the {} box's table",
                    index.shape()
                ),
            ));
        }
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len() - start;
        let keep = (len / 8 * 8).min(index.bytes());
        let mut table = TableInPlace {
            path: path.to_path_buf(),
            file,
            index: index.clone(),
            start,
            crcs: ChunkCrcs::new(chunk_seed(header.as_bytes())),
        };
        let mut buf = vec![0u8; CHUNK_BYTES as usize];
        let mut words = Vec::with_capacity(buf.len() / 8);
        let mut at = 0;
        while at < keep {
            let n = (keep - at).min(CHUNK_BYTES) as usize;
            table.read(at, &mut buf[..n])?;
            table.crcs.update(&buf[..n]);
            at += n as u64;
            words.clear();
            words.extend(
                buf[..n]
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            );
            if !each((at - n as u64) / 8, &words) {
                break;
            }
        }
        table.set_len(at)?;
        Ok((table, p))
    }

    fn read(&self, at: u64, out: &mut [u8]) -> Result<()> {
        self.file
            .read_exact_at(out, self.start + at)
            .map_err(|e| Error::io(&self.path, e))
    }

    fn set_len(&self, body: u64) -> Result<()> {
        self.file
            .set_len(self.start + body)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Word `i` of the body (one of the words written so far).
    pub(super) fn word(&self, i: u64) -> Result<u64> {
        let mut w = [0u64];
        self.read_words(i, &mut w)?;
        Ok(w[0])
    }

    /// Words `first..first + out.len()` of the body, in one read.
    pub(super) fn read_words(&self, first: u64, out: &mut [u64]) -> Result<()> {
        let mut bytes = vec![0u8; out.len() * 8];
        self.read(first * 8, &mut bytes)?;
        for (w, b) in out.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        }
        Ok(())
    }

    /// Cut the body back to its first `n` words (at most those it has).
    pub(super) fn truncate_words(&mut self, n: u64) -> Result<()> {
        let len = n * 8;
        if len >= self.crcs.written() {
            return Ok(());
        }
        let mut partial = vec![0u8; (len % CHUNK_BYTES) as usize];
        self.read(len - partial.len() as u64, &mut partial)?;
        self.crcs.cut(len, &partial);
        self.set_len(len)
    }

    /// Append `words` to the body.
    pub(super) fn append(&mut self, words: &[u64]) -> Result<()> {
        let written = self.crcs.written() + words.len() as u64 * 8;
        if written > self.index.bytes() {
            return Err(wrong_length(&self.path, &self.index, written));
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.file
            .write_all_at(&bytes, self.start + self.crcs.written())
            .map_err(|e| Error::io(&self.path, e))?;
        self.crcs.update(&bytes);
        Ok(())
    }

    /// Make what was written durable (before the pieces it came from are removed).
    pub(super) fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io(&self.path, e))
    }

    /// The body is whole: write the trailer and sync. Too few words is an error.
    pub(super) fn finish(self) -> Result<()> {
        let total = self.index.bytes();
        if self.crcs.written() != total {
            return Err(wrong_length(&self.path, &self.index, self.crcs.written()));
        }
        let at = self.start + total;
        self.file
            .write_all_at(&self.crcs.trailer(), at)
            .map_err(|e| Error::io(&self.path, e))?;
        self.file.sync_all().map_err(|e| Error::io(&self.path, e))
    }
}

/// The header of a table (`magic` its first line): the lines, then `header-crc32` of the bytes before it.
fn table_header(magic: &str, index: &BitLayout, p_positions: u64) -> String {
    sealed_header(
        magic,
        index.shape(),
        &index.scheme(),
        &[
            ("positions", index.positions().to_string()),
            ("p-positions", p_positions.to_string()),
            ("chunk-bytes", CHUNK_BYTES.to_string()),
        ],
    )
}

/// A saved table opened for reading single bits without loading it. Every bit read comes from
/// a chunk whose CRC-32 was checked (once per chunk, remembered).
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    body: store::CheckedBody,
    /// How the bits are numbered.
    pub index: BitLayout,
    /// P-positions, as the header says.
    pub p_positions: u64,
}

impl TableFile {
    /// Open a table written by [`save_table`]: checks the header (its CRC, the box, the
    /// numbering) and the file's length, and reads the trailer of chunk CRCs.
    pub fn open(path: &Path) -> Result<TableFile> {
        TableFile::read(Sealed::open(path)?.of(P_TABLE)?)
    }

    /// The table whose sealed header was read (the file's first bytes, read once).
    pub(crate) fn read(sealed: Sealed) -> Result<TableFile> {
        let index = sealed.layout()?;
        let p_positions = sealed.number("p-positions")?;
        let header = table_header(&sealed.magic(), &index, p_positions);
        sealed.expect(&header, "the header does not match its header-crc32")?;
        let what = format!("a table of the {} box", index.shape());
        let path = sealed.path.clone();
        let body = sealed.body(index.bytes(), &what)?;
        Ok(TableFile {
            path,
            p_positions,
            body,
            index,
        })
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.index.shape()
    }

    /// Whether bit `r` is P, read from the file (from a checked chunk).
    pub fn is_p_bit(&self, r: u64) -> Result<bool> {
        if r >= self.index.len() {
            return Err(Error::invalid(format!(
                "{}: bit {r} is outside the table",
                self.path.display()
            )));
        }
        let mut word = [0u8; 8];
        self.body.read_at((r >> 6) * 8, &mut word)?;
        Ok((u64::from_le_bytes(word) >> (r & 63)) & 1 == 1)
    }

    /// The error for a position with no bit in this table.
    fn no_bit(&self, p: &Diagram) -> Error {
        if p.is_empty() {
            Error::invalid("the empty diagram is not a position")
        } else {
            Error::invalid(format!(
                "position {p} does not fit in the {} box",
                self.shape()
            ))
        }
    }

    /// Whether `p` is P; an error when it is empty or outside the box.
    pub fn is_p(&self, p: &Diagram) -> Result<bool> {
        BitSource::is_p(self, p)?.ok_or_else(|| self.no_bit(p))
    }

    /// The winning bites of `p`: its P options, sorted (empty when `p` is P).
    pub fn winning_bites(&self, p: &Diagram) -> Result<Vec<Diagram>> {
        BitSource::winning_bites(self, p)?.ok_or_else(|| self.no_bit(p))
    }

    /// The winning bites of every rectangle up to `shape` (a box inside this file's), read bit
    /// by bit from the file: a few reads per option, so the table is never loaded.
    pub fn rectangle_bites(&self, shape: ChompBox) -> Result<Vec<RectangleBites>> {
        if shape.rows > self.shape().rows || shape.cols > self.shape().cols {
            return Err(Error::invalid(format!(
                "{} holds the {} box, which does not contain {shape}",
                self.path.display(),
                self.shape()
            )));
        }
        BitSource::rectangle_bites(self, shape)
    }

    /// Check every chunk against its CRC-32 and recount the P-positions against the header
    /// (the store's one verify).
    pub fn verify(&self) -> Result<()> {
        self.body.verify(PCount {
            hook: self.index.hook_index().map(|h| &**h),
            words: 0,
            count: 0,
            stated: self.p_positions,
        })
    }

    /// Read the whole table, checking every chunk's CRC-32.
    pub fn load(&self) -> Result<PTable> {
        let mut words = Vec::with_capacity(self.index.len().div_ceil(64) as usize);
        self.body.for_each_chunk(|buf| {
            let each = buf.chunks_exact(8);
            words.extend(each.map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))))
        })?;
        PTable::from_words(self.index.clone(), words)
    }
}

/// What a one-bit table's verify recounts: its P-positions (a stored pair of a hook index
/// counts twice).
struct PCount<'a> {
    hook: Option<&'a HookIndex>,
    words: u64,
    count: u64,
    stated: u64,
}

impl Recount for PCount<'_> {
    fn feed(&mut self, chunk: &[u8]) {
        for w in chunk.chunks_exact(8) {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            self.count += match self.hook {
                None => w.count_ones() as u64,
                Some(h) => h.p_count_word(w, self.words << 6),
            };
            self.words += 1;
        }
    }

    fn disagreement(self) -> Option<String> {
        (self.count != self.stated).then(|| {
            format!(
                "the bits hold {} P-positions, the header says {}",
                self.count, self.stated
            )
        })
    }
}

impl BitSource for TableFile {
    fn layout(&self) -> &BitLayout {
        &self.index
    }

    fn is_p_bit(&self, b: u64) -> Result<bool> {
        TableFile::is_p_bit(self, b)
    }
}

impl Checkpoint {
    /// Open `path` for the run of `table`'s box: a new checkpoint, or an existing one whose
    /// layers are copied into `table` (which must be empty). Returns the checkpoint and the
    /// first layer still to do. A torn last record (a run killed while writing it) is cut off.
    pub fn open(path: &Path, table: &PTable) -> Result<(Checkpoint, u64)> {
        Checkpoint::open_for(path, table.layout(), |_, r| table.set_p_bit(r))
    }

    /// [`Checkpoint::open`] for a run of `index`'s box whose P-bits are kept elsewhere (a
    /// window of a box solved in blocks): each P index read back goes to `set_p(layer, index)`.
    pub fn open_for(
        path: &Path,
        index: &BitLayout,
        mut set_p: impl FnMut(u64, u64),
    ) -> Result<(Checkpoint, u64)> {
        let header = header_text(PARTIAL_MAGIC, index, &[]);
        let want = [("box", index.shape().to_string()), ("rank", index.scheme())];
        let check = |pairs: &[(String, String)]| check_fields(path, pairs, &want, |_, _| None);
        let layers = super::solve::steps(index);
        let read = |reader: &mut dyn Read| {
            read_steps(layers, |next| match read_record(reader, index.len())? {
                Some((v, ranks, bytes)) if v == next => {
                    ranks.into_iter().for_each(|r| set_p(v, r));
                    Ok(Some(bytes))
                }
                _ => Ok(None),
            })
        };
        Checkpoint::open_log(path, &header, PARTIAL_MAGIC, "solved", check, read)
    }

    /// Append the record of layer `v` with its P ranks, and make it durable.
    pub fn append(&mut self, v: u64, ranks: &[u64]) -> Result<()> {
        self.append_stream(v, ranks.len() as u64, |sink| {
            let mut bytes = Vec::with_capacity(ranks.len().min(1 << 13) * 8);
            for part in ranks.chunks(1 << 13) {
                bytes.clear();
                bytes.extend(part.iter().flat_map(|r| r.to_le_bytes()));
                sink(&bytes)?;
            }
            Ok(())
        })
    }
}

/// One record: `Some((layer, ranks, bytes))`, or `None` at the end or at a torn or damaged
/// record.
pub(super) fn read_record(
    r: &mut (impl Read + ?Sized),
    positions: u64,
) -> Result<Option<(u64, Vec<u64>, u64)>> {
    let mut ranks = Vec::new();
    let got = read_raw_record(
        r,
        8,
        |_, n| n <= positions,
        |bytes| {
            for b in bytes.chunks_exact(8) {
                let rank = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                if rank >= positions {
                    return false;
                }
                ranks.push(rank);
            }
            true
        },
    )?;
    Ok(got.map(|(v, bytes)| (v, ranks, bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::store::{field, header_crc_holds, header_index};
    use std::io::Cursor;

    const TABLE_MAGIC: &str = "chompute chomp p-table 3";

    fn path() -> &'static Path {
        Path::new("t.tbl")
    }

    /// A record as `Checkpoint::append` writes it, built here byte by byte.
    fn record(v: u64, ranks: &[u64]) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend_from_slice(&v.to_le_bytes());
        body.extend_from_slice(&(ranks.len() as u64).to_le_bytes());
        for r in ranks {
            body.extend_from_slice(&r.to_le_bytes());
        }
        let mut out = b"LAYR".to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out
    }

    #[test]
    fn a_header_reads_back_as_written() {
        let index = BitLayout::for_box(ChompBox { rows: 4, cols: 6 }).unwrap();
        let text = header_text(TABLE_MAGIC, &index, &[("p-positions", "17".into())]);
        let mut bytes = text.clone().into_bytes();
        bytes.extend_from_slice(b"\x00\x01bits");
        let (pairs, len) = read_header(path(), &mut Cursor::new(&bytes), TABLE_MAGIC).unwrap();
        assert_eq!(len, text.len() as u64, "the header ends at its empty line");
        assert_eq!(field(path(), &pairs, "p-positions").unwrap(), "17");
        assert_eq!(field(path(), &pairs, "box").unwrap(), "4x6");
        let back = header_index(path(), &pairs).unwrap();
        assert_eq!(
            (back.shape(), back.scheme()),
            (index.shape(), index.scheme())
        );
        let e = field(path(), &pairs, "missing").unwrap_err().to_string();
        assert!(e.contains("has no 'missing'"), "{e}");
    }

    #[test]
    fn a_sealed_header_holds_its_crc_and_an_edited_one_does_not() {
        let shape = ChompBox { rows: 3, cols: 5 };
        let h = sealed_header("magic", shape, "colex-lattice-path", &[("k", "17".into())]);
        assert!(h.ends_with("\n\n") && h.contains("\nheader-crc32 "), "{h}");
        assert!(header_crc_holds(h.as_bytes()));
        let edits = [
            h.replace("k 17", "k 18"),
            h.replace("box 3x5", "box 5x3"),
            h.replace("header-crc32 ", "header-crc32 0"),
            h.trim_end().to_string(),
            h.replace("magic", "Magic"),
        ];
        for e in edits {
            assert_ne!(e, h);
            assert!(!header_crc_holds(e.as_bytes()), "{e}");
        }
        // The last line's digits are the CRC of everything before that line.
        let at = h.rfind("header-crc32 ").unwrap();
        let stated = u32::from_str_radix(&h[at + 13..at + 21], 16).unwrap();
        assert_eq!(stated, crc32fast::hash(&h.as_bytes()[..at]));
    }

    #[test]
    fn a_damaged_header_is_refused_with_its_reason() {
        let cases: [(&[u8], &str); 5] = [
            (b"chompute chomp p-table 3\nbox 3x3\n", "no end of header"),
            (b"something else\nbox 3x3\n\n", "first line is not"),
            (b"chompute chomp p-table 3\nbox3x3\n\n", "not 'key value'"),
            (b"chompute chomp p-table 3\n\xff\xfe\n\n", "not text"),
            (&[b'x'; 5000], "header too long"),
        ];
        for (bytes, why) in cases {
            let e = read_header(path(), &mut Cursor::new(bytes), TABLE_MAGIC).unwrap_err();
            assert!(e.to_string().contains(why), "{e} (expected {why})");
        }
        // A box the index cannot hold, or an unknown rank scheme.
        for text in ["box 0x3\nrank colex\n", "box 3x3\nrank spiral\n"] {
            let bytes = format!("{TABLE_MAGIC}\n{text}\n");
            let (pairs, _) = read_header(path(), &mut Cursor::new(bytes), TABLE_MAGIC).unwrap();
            assert!(header_index(path(), &pairs).is_err(), "{text}");
        }
    }

    #[test]
    fn records_read_back_and_a_torn_or_damaged_one_ends_the_log() {
        let positions = 100;
        let mut log = record(0, &[0]);
        log.extend(record(1, &[3, 7, 99]));
        log.extend(record(2, &[]));
        let mut r = Cursor::new(&log);
        assert_eq!(
            read_record(&mut r, positions).unwrap(),
            Some((0, vec![0], 32))
        );
        assert_eq!(
            read_record(&mut r, positions).unwrap(),
            Some((1, vec![3, 7, 99], 48))
        );
        assert_eq!(
            read_record(&mut r, positions).unwrap(),
            Some((2, vec![], 24))
        );
        assert_eq!(read_record(&mut r, positions).unwrap(), None, "the end");
        // Every cut of the last record, and every flipped byte in it, reads as its end.
        let whole = record(5, &[1, 2]);
        for cut in 0..whole.len() {
            let r = read_record(&mut Cursor::new(&whole[..cut]), positions).unwrap();
            assert_eq!(r, None, "cut at {cut}");
        }
        for at in 0..whole.len() {
            let mut bad = whole.clone();
            bad[at] ^= 0x10;
            let r = read_record(&mut Cursor::new(&bad), positions).unwrap();
            assert_eq!(r, None, "byte {at} flipped");
        }
        // A rank past the table, or more ranks than positions, is damage too.
        let r = read_record(&mut Cursor::new(record(1, &[100])), positions).unwrap();
        assert_eq!(r, None);
        let r = read_record(&mut Cursor::new(record(1, &[1, 2, 3])), 2).unwrap();
        assert_eq!(r, None);
    }
}
