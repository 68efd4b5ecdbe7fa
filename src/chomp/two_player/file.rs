//! Two-player tables on disk (docs/formats.md, "Two-player tables"), a function of the box
//! alone: the finished table (`chomp solve -o FILE`: the store's sealed header, ⌈positions/64⌉
//! little-endian u64 words, bit r of word r/64 set iff entry r is P, then the chunk CRCs) and
//! the checkpoint of a run (`FILE.partial`: a record a finished step, its P indexes ascending).
//! `rank transpose-hook N` keeps one bit a transposed pair, `p-positions` counting it twice.
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs.

use super::table::{BitSource, PTable, RectangleBites};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::index::hook::weighted_count;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{
    self, header_lines, read_raw_record, sealed_header, Checkpoint, Recount, Sealed, P_TABLE,
};
use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

pub(super) const PARTIAL_MAGIC: &str = "chompute chomp p-table partial 1";

pub(super) fn header_text(magic: &str, index: &BitLayout, extra: &[(&str, String)]) -> String {
    header_lines(magic, index.shape(), &index.scheme(), extra)
}

/// Write a finished table to `path` (a temporary file renamed when complete).
pub fn save_table(table: &PTable, path: &Path) -> Result<()> {
    let header = table_header(&P_TABLE.magic(), table.layout(), table.p_count());
    let words = table.raw_words().iter().map(|w| w.load(Relaxed));
    store::save_sealed(path, &header, |sink| le_chunks(words, 1 << 14, sink))
}

/// The little-endian u64 words of `bytes` (whole words only).
pub(super) fn words_of(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    (bytes.chunks_exact(8)).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
}

/// Hand `words` to `each` as little-endian bytes, `chunk` words at a time.
pub(super) fn le_chunks(
    mut words: impl Iterator<Item = u64>,
    chunk: usize,
    mut each: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut bytes = Vec::with_capacity(words.size_hint().0.min(chunk) * 8);
    loop {
        bytes.clear();
        // Word by word: 1.2x the speed of extending by `flat_map(u64::to_le_bytes)`.
        for w in words.by_ref().take(chunk) {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        if bytes.is_empty() {
            return Ok(());
        }
        each(&bytes)?;
    }
}

/// The error for a body of `written` bytes of bits where `index`'s box has another number.
pub(super) fn wrong_length(path: &Path, index: &BitLayout, written: u64) -> Error {
    let (shape, total) = (index.shape(), index.bytes());
    Error::invalid(match written > total {
        true => format!("{}: more words than the {shape} box has", path.display()),
        false => format!(
            "{}: {written} bytes of bits, but the {shape} box has {total}",
            path.display()
        ),
    })
}

/// The sealed header of a table (`magic` its first line).
pub(super) fn table_header(magic: &str, index: &BitLayout, p_positions: u64) -> String {
    sealed_header(
        magic,
        index.shape(),
        &index.scheme(),
        &[
            ("positions", index.positions().to_string()),
            ("p-positions", p_positions.to_string()),
            ("chunk-bytes", store::CHUNK_BYTES.to_string()),
        ],
    )
}

/// A saved table opened for reading single bits without loading it. Every bit read comes from
/// a chunk whose CRC-32 was checked (once per chunk, remembered).
#[derive(Debug)]
pub struct TableFile {
    body: store::CheckedBody,
    /// How the bits are numbered.
    pub index: BitLayout,
    /// P-positions, as the header says.
    pub p_positions: u64,
}

impl TableFile {
    /// Open a table written by [`save_table`], its header and length checked.
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
        let body = sealed.body(index.bytes(), &what)?;
        Ok(TableFile {
            p_positions,
            body,
            index,
        })
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.index.shape()
    }

    /// The error for a position with no bit in this table.
    fn no_bit(&self, p: &Diagram) -> Error {
        Error::invalid(match p.is_empty() {
            true => "the empty diagram is not a position".to_string(),
            false => format!("position {p} does not fit in the {} box", self.shape()),
        })
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
    /// by bit from the file.
    pub fn rectangle_bites(&self, shape: ChompBox) -> Result<Vec<RectangleBites>> {
        if shape.rows > self.shape().rows || shape.cols > self.shape().cols {
            let (path, have) = (self.body.path().display(), self.shape());
            let why = format!("{path} holds the {have} box, which does not contain {shape}");
            return Err(Error::invalid(why));
        }
        BitSource::rectangle_bites(self, shape)
    }

    /// Check every chunk against its CRC-32 and recount the P-positions against the header
    /// (the store's one verify).
    pub fn verify(&self) -> Result<()> {
        self.body.verify(PCount {
            leaves: self.index.hook_index().map(|h| h.leaf_weights()),
            words: 0,
            count: 0,
            stated: self.p_positions,
        })
    }

    /// Read the whole table, checking every chunk's CRC-32.
    pub fn load(&self) -> Result<PTable> {
        let mut words = Vec::with_capacity(self.index.len().div_ceil(64) as usize);
        self.body
            .for_each_chunk(|buf| words.extend(words_of(buf)))?;
        PTable::from_words(self.index.clone(), words)
    }
}

/// What a one-bit table's verify recounts: its P-positions (a stored pair of a hook index
/// counts twice).
struct PCount {
    leaves: Option<Vec<(u64, u64, u64)>>,
    words: u64,
    count: u64,
    stated: u64,
}

impl Recount for PCount {
    fn feed(&mut self, chunk: &[u8]) {
        let words: Vec<u64> = words_of(chunk).collect();
        let bits = 64 * words.len() as u64;
        self.count += match &self.leaves {
            None => words.iter().map(|w| w.count_ones() as u64).sum(),
            Some(l) => weighted_count(l, self.words << 6, bits, |i| words[i]),
        };
        self.words += words.len() as u64;
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

    /// Read from the file (from a checked chunk).
    fn is_p_bit(&self, r: u64) -> Result<bool> {
        if r >= self.index.len() {
            return Err(self.body.invalid(format!("bit {r} is outside the table")));
        }
        let mut word = [0u8; 8];
        self.body.read_at((r >> 6) * 8, &mut word)?;
        Ok((u64::from_le_bytes(word) >> (r & 63)) & 1 == 1)
    }
}

impl Checkpoint {
    /// Append the record of layer `v` with its P ranks, and make it durable.
    pub fn append(&mut self, v: u64, ranks: &[u64]) -> Result<()> {
        let words = ranks.iter().copied();
        self.append_stream(v, ranks.len() as u64, |sink| {
            le_chunks(words, 1 << 13, sink)
        })
    }
}

/// One record: `Some((layer, ranks, bytes))`, or `None` at the end or at a torn or damaged
/// record.
pub(super) fn read_record(
    r: &mut (impl Read + ?Sized),
    positions: u64,
) -> Option<(u64, Vec<u64>, u64)> {
    let mut ranks = Vec::new();
    let got = read_raw_record(
        r,
        8,
        |_, n| n <= positions,
        |bytes| {
            let n = ranks.len();
            ranks.extend(words_of(bytes));
            ranks[n..].iter().all(|&r| r < positions)
        },
    );
    got.map(|(v, bytes)| (v, ranks, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A record as `Checkpoint::append` writes it, built here byte by byte.
    fn record(v: u64, ranks: &[u64]) -> Vec<u8> {
        let mut body = [v, ranks.len() as u64].map(u64::to_le_bytes).concat();
        body.extend(ranks.iter().flat_map(|r| r.to_le_bytes()));
        let mut out = b"LAYR".to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out
    }

    #[test]
    fn records_read_back_and_a_torn_or_damaged_one_ends_the_log() {
        let positions = 100;
        let want = [(0, vec![0]), (1, vec![3, 7, 99]), (2, vec![])];
        let log: Vec<u8> = want
            .iter()
            .flat_map(|(v, ranks)| record(*v, ranks))
            .collect();
        let mut r = Cursor::new(&log);
        for (v, ranks) in want {
            let bytes = 24 + 8 * ranks.len() as u64;
            let got = read_record(&mut r, positions);
            assert_eq!(got, Some((v, ranks, bytes)));
        }
        assert_eq!(read_record(&mut r, positions), None, "the end");
        // Every cut of the last record, and every flipped byte in it, reads as its end.
        let whole = record(5, &[1, 2]);
        let mut bad: Vec<(Vec<u8>, u64)> = (0..whole.len())
            .map(|cut| (whole[..cut].to_vec(), positions))
            .collect();
        for at in 0..whole.len() {
            bad.push((whole.clone(), positions));
            bad.last_mut().unwrap().0[at] ^= 0x10;
        }
        // A rank past the table, or more ranks than positions, is damage too.
        bad.extend([(record(1, &[100]), positions), (record(1, &[1, 2, 3]), 2)]);
        for (bytes, positions) in bad {
            let r = read_record(&mut Cursor::new(&bytes), positions);
            assert_eq!(r, None, "{bytes:?}");
        }
    }
}
