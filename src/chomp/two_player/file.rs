//! Two-player tables on disk: the finished table (`chomp solve -o FILE`) and the checkpoint of
//! a run in progress (`FILE.partial`).
//!
//! # The table file
//! Version 2: an ASCII header of `key value` lines ending with an empty line, then the bits,
//! then a trailer of chunk CRCs:
//!
//! ```text
//! chompute chomp p-table 2
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
//! entry is the CRC-32 of one 64 KiB chunk of the bits. A reader checks the header on open
//! and each chunk before it answers from it (once per chunk), and `--verify` checks every
//! chunk and recounts the P-positions, so a damaged file is refused, never answered from.
//! The trailer comes after the bits so that a table is written in one pass
//! ([`save_words`]). The file is a function of the box alone: an interrupted and resumed run
//! writes the same bytes.
//!
//! Version-1 files (`chompute chomp p-table 1`: one CRC over all the bits, none over the
//! header) are refused with a line saying to solve the box again: a query of one would have
//! to read the whole file before its first answer, and its header could not be trusted.
//!
//! # The checkpoint
//! `chompute chomp p-table partial 1`, `box`, `rank`, an empty line, then one record per
//! finished step of the schedule, in order: a prefix layer of a colex box (see
//! `two_player::schedule`) or a hook step of a square's hook index (see `index::hook`). A record
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
use crate::chomp::index::BitLayout;
use crate::error::{Error, Result};
use crate::output::AtomicFile;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub(super) const TABLE_MAGIC: &str = "chompute chomp p-table 2";
/// The first line of a Grundy table file (`super::grundy_file`).
pub const GRUNDY_MAGIC: &str = "chompute chomp grundy-table 1";
/// The first line of an ordinal table file (`multiplayer::ord_file`).
pub const ORD_MAGIC: &str = "chompute chomp ord-table 1";
/// How the first line of a one-bit table file of any version starts.
pub(super) const TABLE_KIND: &str = "chompute chomp p-table ";
const TABLE_MAGIC_V1: &str = "chompute chomp p-table 1";
pub(super) const PARTIAL_MAGIC: &str = "chompute chomp p-table partial 1";
const RECORD_TAG: &[u8; 4] = b"LAYR";

/// The checkpoint path of a table file: `FILE.partial`.
pub fn partial_path(table: &Path) -> PathBuf {
    let mut s = table.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

pub(super) fn header_text(magic: &str, index: &BitLayout, extra: &[(&str, String)]) -> String {
    header_lines(magic, index.shape(), &index.scheme(), extra)
}

/// A header: the magic line, `box`, `rank`, the `extra` lines, an empty line.
pub(crate) fn header_lines(
    magic: &str,
    shape: ChompBox,
    scheme: &str,
    extra: &[(&str, String)],
) -> String {
    let mut h = format!("{magic}\nbox {shape}\nrank {scheme}\n");
    for (k, v) in extra {
        h.push_str(&format!("{k} {v}\n"));
    }
    h.push('\n');
    h
}

/// A header sealed by its CRC ([`header_lines`] with `header-crc32`, the CRC-32 of the bytes
/// before that line, as its last line): a table file's header.
pub(crate) fn sealed_header(
    magic: &str,
    shape: ChompBox,
    scheme: &str,
    extra: &[(&str, String)],
) -> String {
    let mut h = header_lines(magic, shape, scheme, extra);
    h.pop(); // the empty line comes after the header's CRC
    let crc = crc32fast::hash(h.as_bytes());
    h.push_str(&format!("header-crc32 {crc:08x}\n\n"));
    h
}

/// Read a header: lines up to the empty one. Returns the `key value` pairs after the magic line
/// and the header's length in bytes.
pub(crate) fn read_header(
    path: &Path,
    r: &mut impl Read,
    magic: &str,
) -> Result<(Vec<(String, String)>, u64)> {
    let bad =
        |why: &str| Error::invalid(format!("{}: not a chompute table ({why})", path.display()));
    let mut bytes = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match r.read(&mut byte) {
            Ok(0) => return Err(bad("no end of header")),
            Ok(_) => bytes.push(byte[0]),
            Err(e) => return Err(Error::io(path, e)),
        }
        if bytes.ends_with(b"\n\n") {
            break;
        }
        if bytes.len() > 4096 {
            return Err(bad("header too long"));
        }
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| bad("header is not text"))?;
    let mut lines = text.lines();
    if lines.next() != Some(magic) {
        return Err(bad(&format!("its first line is not '{magic}'")));
    }
    let pairs = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split_once(' ')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| bad("a header line is not 'key value'"))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((pairs, bytes.len() as u64))
}

/// The number a header's `key` holds.
pub(crate) fn number(path: &Path, pairs: &[(String, String)], key: &str) -> Result<u64> {
    field(path, pairs, key)?
        .parse()
        .map_err(|_| Error::invalid(format!("{}: '{key}' is not a number", path.display())))
}

pub(crate) fn field<'a>(path: &Path, pairs: &'a [(String, String)], key: &str) -> Result<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| Error::invalid(format!("{}: the header has no '{key}'", path.display())))
}

pub(super) fn header_index(path: &Path, pairs: &[(String, String)]) -> Result<BitLayout> {
    let b = field(path, pairs, "box")?;
    let shape =
        ChompBox::parse(b).map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
    let scheme = field(path, pairs, "rank")?;
    BitLayout::from_scheme(shape, scheme).map_err(|e| match e {
        Error::Invalid(m) => Error::invalid(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Bytes of bits covered by one CRC-32 of the trailer (the last chunk may be shorter).
pub const CHUNK_BYTES: u64 = 1 << 16;

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
    let header = table_header(index, p_positions);
    let total = index.bytes();
    let mut file = AtomicFile::create(path)?;
    let io = |e| Error::io(path, e);
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(header.as_bytes()).map_err(io)?;
        let mut body = ChunkWriter::new(out);
        let mut bytes = Vec::new();
        source(&mut |words: &[u64]| {
            if body.written() + words.len() as u64 * 8 > total {
                return Err(Error::invalid(format!(
                    "{}: more words than the {} box has",
                    path.display(),
                    index.shape()
                )));
            }
            bytes.clear();
            bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            body.write(&bytes).map_err(io)
        })?;
        if body.written() != total {
            return Err(Error::invalid(format!(
                "{}: {} bytes of bits, but the {} box has {total}",
                path.display(),
                body.written(),
                index.shape()
            )));
        }
        body.finish().map_err(io)?;
    }
    file.commit()
}

/// The CRC-32 of every [`CHUNK_BYTES`] chunk of a body, kept as the body is written.
#[derive(Default)]
pub(super) struct ChunkCrcs {
    crc: crc32fast::Hasher,
    in_chunk: u64,
    written: u64,
    crcs: Vec<u32>,
}

impl ChunkCrcs {
    /// Bytes of body seen so far.
    pub(super) fn written(&self) -> u64 {
        self.written
    }

    /// The body goes on with `bytes`.
    pub(super) fn update(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let n = ((CHUNK_BYTES - self.in_chunk) as usize).min(rest.len());
            self.crc.update(&rest[..n]);
            self.in_chunk += n as u64;
            rest = &rest[n..];
            if self.in_chunk == CHUNK_BYTES {
                self.crcs.push(std::mem::take(&mut self.crc).finalize());
                self.in_chunk = 0;
            }
        }
        self.written += bytes.len() as u64;
    }

    /// The body ends after its first `len` bytes (at most those seen), `partial` being the
    /// bytes of its last chunk from the chunk's start to `len`.
    fn cut(&mut self, len: u64, partial: &[u8]) {
        debug_assert!(len <= self.written && partial.len() as u64 == len % CHUNK_BYTES);
        self.crcs.truncate((len / CHUNK_BYTES) as usize);
        self.crc = crc32fast::Hasher::new();
        self.crc.update(partial);
        self.in_chunk = len % CHUNK_BYTES;
        self.written = len;
    }

    /// The trailer: one CRC-32 per chunk (the last one possibly shorter), little-endian.
    pub(super) fn trailer(mut self) -> Vec<u8> {
        if self.in_chunk > 0 {
            self.crcs.push(self.crc.finalize());
        }
        self.crcs.iter().flat_map(|c| c.to_le_bytes()).collect()
    }
}

/// The body of a table file written through `out` with the CRC-32 of every [`CHUNK_BYTES`]
/// chunk kept, and the trailer of those CRCs written after it by [`ChunkWriter::finish`].
pub(crate) struct ChunkWriter<W: Write> {
    out: W,
    crcs: ChunkCrcs,
}

impl<W: Write> ChunkWriter<W> {
    /// A writer of a body that starts here in `out` (after the header).
    pub(crate) fn new(out: W) -> ChunkWriter<W> {
        ChunkWriter {
            out,
            crcs: ChunkCrcs::default(),
        }
    }

    /// Bytes of body written so far.
    pub(super) fn written(&self) -> u64 {
        self.crcs.written()
    }

    /// Append `bytes` to the body.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crcs.update(bytes);
        self.out.write_all(bytes)
    }

    /// Write the trailer (one CRC-32 per chunk, the last one possibly shorter) and flush.
    pub(crate) fn finish(mut self) -> std::io::Result<W> {
        self.out.write_all(&self.crcs.trailer())?;
        self.out.flush()?;
        Ok(self.out)
    }
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
        let header = table_header(index, p_positions);
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
            crcs: ChunkCrcs::default(),
        })
    }

    /// Reopen the table of `index` begun at `path` by an earlier run: its header must be the
    /// one [`TableInPlace::create`] writes; the whole words after it are kept (a torn last one
    /// is cut off) and their chunk CRCs recomputed. Also returns the header's P-positions.
    pub(super) fn reopen(path: &Path, index: &BitLayout) -> Result<(TableInPlace, u64)> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let (pairs, start) = read_header(path, &mut BufReader::new(&file), TABLE_MAGIC)?;
        let p = number(path, &pairs, "p-positions")?;
        let header = table_header(index, p);
        if read_prefix(&file, path, start)? != header.as_bytes() {
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
            crcs: ChunkCrcs::default(),
        };
        let mut buf = vec![0u8; CHUNK_BYTES as usize];
        let mut at = 0;
        while at < keep {
            let n = (keep - at).min(CHUNK_BYTES) as usize;
            table.read(at, &mut buf[..n])?;
            table.crcs.update(&buf[..n]);
            at += n as u64;
        }
        table.set_len(keep)?;
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

    /// Words of body so far.
    pub(super) fn words(&self) -> u64 {
        self.crcs.written() / 8
    }

    /// Word `i` of the body (`i` < [`TableInPlace::words`]).
    pub(super) fn word(&self, i: u64) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read(i * 8, &mut b)?;
        Ok(u64::from_le_bytes(b))
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
        if self.crcs.written() + words.len() as u64 * 8 > self.index.bytes() {
            return Err(Error::invalid(format!(
                "{}: more words than the {} box has",
                self.path.display(),
                self.index.shape()
            )));
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
            return Err(Error::invalid(format!(
                "{}: {} bytes of bits, but the {} box has {total}",
                self.path.display(),
                self.crcs.written(),
                self.index.shape()
            )));
        }
        let at = self.start + total;
        self.file
            .write_all_at(&self.crcs.trailer(), at)
            .map_err(|e| Error::io(&self.path, e))?;
        self.file.sync_all().map_err(|e| Error::io(&self.path, e))
    }
}

/// The header of a version-2 table: the lines, then `header-crc32` of the bytes before it.
fn table_header(index: &BitLayout, p_positions: u64) -> String {
    sealed_header(
        TABLE_MAGIC,
        index.shape(),
        &index.scheme(),
        &[
            ("positions", index.positions().to_string()),
            ("p-positions", p_positions.to_string()),
            ("chunk-bytes", CHUNK_BYTES.to_string()),
        ],
    )
}

/// Whether a sealed header (its bytes, up to and with the empty line: [`sealed_header`]) ends
/// with the `header-crc32` of the bytes before that line.
pub(crate) fn header_crc_holds(header: &[u8]) -> bool {
    const KEY: &[u8] = b"header-crc32 ";
    let Some(body) = header.strip_suffix(b"\n\n") else {
        return false;
    };
    let at = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let Some(hex) = body[at..].strip_prefix(KEY) else {
        return false;
    };
    let stated = std::str::from_utf8(hex)
        .ok()
        .filter(|h| h.len() == 8)
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    stated == Some(crc32fast::hash(&body[..at]))
}

/// Refuse anything but a regular file before opening it (a FIFO would block `open`, a device
/// or a directory is no table).
pub fn check_regular(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::invalid(format!(
            "{}: not a regular file; a table is read from and written to a regular file",
            path.display()
        )));
    }
    Ok(())
}

/// Open a saved table for reading: a regular file (checked before and after the open, which
/// does not block).
pub(crate) fn open_regular(path: &Path) -> Result<File> {
    check_regular(path)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    if !file.metadata().map_err(|e| Error::io(path, e))?.is_file() {
        return Err(Error::invalid(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    Ok(file)
}

/// The first `n` bytes of the regular file `path`, or all of it when shorter.
pub(crate) fn first_bytes(path: &Path, n: usize) -> Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut first = vec![0u8; n];
    let mut got = 0;
    while got < first.len() {
        match file.read_at(&mut first[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    first.truncate(got);
    Ok(first)
}

/// Whether the regular file `path` starts with the line `magic` (nothing else is read).
pub(crate) fn starts_with_line(path: &Path, magic: &str) -> Result<bool> {
    let want = format!("{magic}\n");
    Ok(first_bytes(path, want.len())? == want.as_bytes())
}

/// The error for a file found damaged: `PATH: WHY; the file is damaged`.
pub(crate) fn damaged(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{}: {why}; the file is damaged", path.display()))
}

/// The body of a saved table (`bytes` bytes from `start`) and its trailer of chunk CRC-32s
/// ([`ChunkWriter`]'s): every byte read through it comes from a chunk checked against its CRC
/// (once per chunk, remembered).
#[derive(Debug)]
pub(crate) struct CheckedBody {
    path: PathBuf,
    file: File,
    start: u64,
    bytes: u64,
    /// The trailer: the CRC-32 of each chunk of the body.
    crcs: Vec<u32>,
    /// Bit c set once chunk c was checked against its CRC.
    checked: Vec<AtomicU64>,
}

impl CheckedBody {
    /// The body of `file` after a header of `start` bytes: checks that the file is exactly the
    /// header, the body and its trailer (`what` names the table in the error), and reads the
    /// trailer.
    pub(crate) fn open(
        path: &Path,
        file: File,
        start: u64,
        bytes: u64,
        what: &str,
    ) -> Result<CheckedBody> {
        let chunks = bytes.div_ceil(CHUNK_BYTES);
        let want = start + bytes + chunks * 4;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len != want {
            return Err(damaged(path, format!("{len} bytes, but {what} has {want}")));
        }
        let mut trailer = vec![0u8; (chunks * 4) as usize];
        file.read_exact_at(&mut trailer, start + bytes)
            .map_err(|e| Error::io(path, e))?;
        let crcs = trailer
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Ok(CheckedBody {
            path: path.to_path_buf(),
            file,
            start,
            bytes,
            crcs,
            checked: (0..chunks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        })
    }

    /// Read chunk `c` into `buf` and check it against its CRC-32.
    pub(crate) fn read_chunk(&self, c: u64, buf: &mut Vec<u8>) -> Result<()> {
        let at = c * CHUNK_BYTES;
        let n = (self.bytes - at).min(CHUNK_BYTES) as usize;
        buf.resize(n, 0);
        self.file
            .read_exact_at(buf, self.start + at)
            .map_err(|e| Error::io(&self.path, e))?;
        if crc32fast::hash(buf) != self.crcs[c as usize] {
            return Err(damaged(
                &self.path,
                format!("chunk {c} of the table does not match its crc32"),
            ));
        }
        self.checked[(c / 64) as usize].fetch_or(1 << (c % 64), Relaxed);
        Ok(())
    }

    /// Bytes `at..at + out.len()` of the body, from checked chunks.
    pub(crate) fn read_at(&self, at: u64, out: &mut [u8]) -> Result<()> {
        let end = at + out.len() as u64;
        assert!(end <= self.bytes, "a read inside the body");
        if out.is_empty() {
            return Ok(());
        }
        for c in at / CHUNK_BYTES..=(end - 1) / CHUNK_BYTES {
            if self.checked[(c / 64) as usize].load(Relaxed) >> (c % 64) & 1 == 0 {
                self.read_chunk(c, &mut Vec::new())?;
            }
        }
        self.file
            .read_exact_at(out, self.start + at)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Every chunk of the body in order to `each`, each checked before it goes.
    pub(crate) fn for_each_chunk(&self, mut each: impl FnMut(&[u8])) -> Result<()> {
        let mut buf = Vec::with_capacity(CHUNK_BYTES as usize);
        for c in 0..self.crcs.len() as u64 {
            self.read_chunk(c, &mut buf)?;
            each(&buf);
        }
        Ok(())
    }
}

/// A saved table opened for reading single bits without loading it. Every bit read comes from
/// a chunk whose CRC-32 was checked (once per chunk, remembered).
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    body: CheckedBody,
    /// How the bits are numbered.
    pub index: BitLayout,
    /// P-positions, as the header says.
    pub p_positions: u64,
}

impl TableFile {
    /// Open a table written by [`save_table`]: checks the header (its CRC, the box, the
    /// numbering) and the file's length, and reads the trailer of chunk CRCs.
    pub fn open(path: &Path) -> Result<TableFile> {
        let file = open_regular(path)?;
        let mut first = [0u8; 32];
        let got = file
            .read_at(&mut first, 0)
            .map_err(|e| Error::io(path, e))?;
        if first[..got].starts_with(format!("{TABLE_MAGIC_V1}\n").as_bytes()) {
            return Err(Error::invalid(format!(
                "{}: a version-1 table (one CRC for all its bits, none over its header); solve \
                 the box again to write version 2",
                path.display()
            )));
        }
        if first[..got].starts_with(b"chompute chomp grundy-table ") {
            return Err(Error::invalid(format!(
                "{}: a Grundy table (`chomp query` answers from it); this needs a one-bit \
                 table, which `chomp solve -o` writes",
                path.display()
            )));
        }
        let mut reader = BufReader::new(&file);
        let (pairs, data_start) = read_header(path, &mut reader, TABLE_MAGIC)?;
        let prefix = read_prefix(&file, path, data_start)?;
        if !header_crc_holds(&prefix) {
            return Err(damaged(path, "the header does not match its header-crc32"));
        }
        let index = header_index(path, &pairs)?;
        let p_positions = number(path, &pairs, "p-positions")?;
        let header = table_header(&index, p_positions);
        if header.as_bytes() != prefix {
            return Err(damaged(path, "the header does not match its header-crc32"));
        }
        let what = format!("a table of the {} box", index.shape());
        let body = CheckedBody::open(path, file, data_start, index.bytes(), &what)?;
        Ok(TableFile {
            path: path.to_path_buf(),
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

    /// Check every chunk against its CRC-32 and recount the P-positions against the header,
    /// streaming the bits (nothing is kept).
    pub fn verify(&self) -> Result<()> {
        let mut count = 0u64;
        let mut at = 0u64;
        let hook = self.index.hook_index().cloned();
        self.read_words(|w| {
            count += match &hook {
                None => w.count_ones() as u64,
                Some(h) => h.p_count_word(w, at << 6),
            };
            at += 1;
        })?;
        if count != self.p_positions {
            return Err(Error::invalid(format!(
                "{}: the bits hold {count} P-positions, the header says {}; the file is damaged",
                self.path.display(),
                self.p_positions
            )));
        }
        Ok(())
    }

    /// Read the whole table, checking every chunk's CRC-32.
    pub fn load(&self) -> Result<PTable> {
        let mut words = Vec::with_capacity(self.index.len().div_ceil(64) as usize);
        self.read_words(|w| words.push(w))?;
        PTable::from_words(self.index.clone(), words)
    }

    /// Every word of the table in order to `each`, each chunk checked before its words go.
    fn read_words(&self, mut each: impl FnMut(u64)) -> Result<()> {
        self.body.for_each_chunk(|buf| {
            buf.chunks_exact(8)
                .for_each(|w| each(u64::from_le_bytes(w.try_into().expect("8 bytes"))))
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

/// The first `n` bytes of `file`.
pub(crate) fn read_prefix(file: &File, path: &Path, n: u64) -> Result<Vec<u8>> {
    let mut b = vec![0u8; n as usize];
    file.read_exact_at(&mut b, 0)
        .map_err(|e| Error::io(path, e))?;
    Ok(b)
}

/// The checkpoint of a run in progress: finished layers appended as they end.
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    file: File,
    /// When the records were last made durable.
    synced: std::time::Instant,
    /// Bytes after the last whole record, cut off when it was opened (a torn or damaged
    /// record and everything after it).
    pub dropped_bytes: u64,
}

/// Take an flock on `file` without waiting, shared or exclusive (released when it is closed,
/// so also when the process dies).
pub(crate) fn flock_now(file: &File, shared: bool) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let how = if shared { libc::LOCK_SH } else { libc::LOCK_EX };
    // SAFETY: flock on a descriptor the caller owns.
    if unsafe { libc::flock(file.as_raw_fd(), how | libc::LOCK_NB) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
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
        let shape = index.shape();
        let header = header_text(PARTIAL_MAGIC, index, &[]);
        let check = |pairs: &[(String, String)]| {
            let got_index = header_index(path, pairs)?;
            let got = got_index.shape();
            if got != shape {
                return Err(Error::invalid(format!(
                    "{} is the checkpoint of the {got} box, not of {shape}; remove it or solve {got}",
                    path.display()
                )));
            }
            if got_index.scheme() != index.scheme() {
                return Err(Error::invalid(format!(
                    "{} numbers the {got} box by '{}', this run by '{}'; remove it to start afresh",
                    path.display(),
                    got_index.scheme(),
                    index.scheme()
                )));
            }
            Ok(())
        };
        let layers = super::solve::steps(index);
        let read = |reader: &mut dyn Read| {
            let (mut next, mut good) = (0u64, 0u64);
            while next < layers {
                match read_record(reader, index.len())? {
                    Some((v, ranks, bytes)) if v == next => {
                        for r in ranks {
                            set_p(v, r);
                        }
                        good += bytes;
                        next += 1;
                    }
                    _ => break,
                }
            }
            Ok((next, good))
        };
        Checkpoint::open_log(path, &header, PARTIAL_MAGIC, "solved", check, read)
    }

    /// Open the checkpoint at `path` whose header is `header` (first line `magic`), holding an
    /// exclusive flock on it (a second process is refused: "TABLE is being `verb` by another
    /// process"): a new one (also when only part of its header was written), or an existing
    /// one whose header `check` accepts and whose records `read` reads back, returning the
    /// first step still to do and the bytes of the whole records. What follows those records
    /// (a torn or damaged one and everything after it) is cut off and counted in
    /// `dropped_bytes`.
    pub(crate) fn open_log(
        path: &Path,
        header: &str,
        magic: &str,
        verb: &str,
        check: impl FnOnce(&[(String, String)]) -> Result<()>,
        read: impl FnOnce(&mut dyn Read) -> Result<(u64, u64)>,
    ) -> Result<(Checkpoint, u64)> {
        let io = |e| Error::io(path, e);
        if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(Error::invalid(format!(
                "{}: the checkpoint is not a regular file",
                path.display()
            )));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        flock_now(&file, false).map_err(|_| {
            Error::invalid(format!(
                "{} is being {verb} by another process (its checkpoint {} is locked)",
                path.with_extension("").display(),
                path.display()
            ))
        })?;
        let len = file.metadata().map_err(io)?.len();
        let mut start = vec![0u8; (len as usize).min(header.len())];
        file.read_exact_at(&mut start, 0).map_err(io)?;
        let (next, good_end) = if len < header.len() as u64 && header.as_bytes().starts_with(&start)
        {
            // New, or cut off while its header was written (a kill in the first moments):
            // a fresh checkpoint.
            file.set_len(0).map_err(io)?;
            file.write_all_at(header.as_bytes(), 0).map_err(io)?;
            file.sync_data().map_err(io)?;
            (0, header.len() as u64)
        } else {
            let mut reader = BufReader::with_capacity(1 << 20, &file);
            let (pairs, header_len) = read_header(path, &mut reader, magic)?;
            check(&pairs)?;
            let (next, records) = read(&mut reader)?;
            (next, header_len + records)
        };
        if good_end < len {
            file.set_len(good_end).map_err(io)?;
        }
        file.seek(SeekFrom::Start(good_end)).map_err(io)?;
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                file,
                synced: std::time::Instant::now(),
                dropped_bytes: len.saturating_sub(good_end),
            },
            next,
        ))
    }

    /// Append the record of layer `v` with its P ranks, and make it durable.
    pub fn append(&mut self, v: u64, ranks: &[u64]) -> Result<()> {
        self.append_with(v, ranks.len() as u64, |sink| {
            let mut bytes = Vec::with_capacity(ranks.len().min(1 << 13) * 8);
            for part in ranks.chunks(1 << 13) {
                bytes.clear();
                bytes.extend(part.iter().flat_map(|r| r.to_le_bytes()));
                sink(&bytes)?;
            }
            Ok(())
        })
    }

    /// Append one record: the tag, `step`, `n`, the payload that `payload` streams to the sink
    /// it is given (n items), and the CRC-32 of everything after the tag; then make it durable
    /// (paced).
    pub(crate) fn append_with(
        &mut self,
        step: u64,
        n: u64,
        payload: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
    ) -> Result<()> {
        let path = self.path.clone();
        let io = |e| Error::io(&path, e);
        let mut crc = crc32fast::Hasher::new();
        {
            let mut out = BufWriter::with_capacity(1 << 16, &mut self.file);
            let mut head = [0u8; 16];
            head[..8].copy_from_slice(&step.to_le_bytes());
            head[8..].copy_from_slice(&n.to_le_bytes());
            crc.update(&head);
            out.write_all(RECORD_TAG).map_err(io)?;
            out.write_all(&head).map_err(io)?;
            payload(&mut |bytes: &[u8]| {
                crc.update(bytes);
                out.write_all(bytes).map_err(io)
            })?;
            out.write_all(&crc.finalize().to_le_bytes()).map_err(io)?;
            out.flush().map_err(io)?;
        }
        // A record is in the file (and survives the process) once written; making it durable
        // against a crash of the machine is paced, so that the tens of thousands of short
        // steps of a symmetric run do not wait on the disk each.
        if self.synced.elapsed() >= std::time::Duration::from_secs(2) {
            self.file.sync_data().map_err(io)?;
            self.synced = std::time::Instant::now();
        }
        Ok(())
    }

    /// Remove the checkpoint once the table is saved.
    pub fn remove(self) -> Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path).map_err(|e| Error::io(&self.path, e))
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

/// One record of `n` items of `unit` bytes each: `Some((step, bytes))`, or `None` at the end,
/// at a torn or damaged record (its CRC), when `accept(step, n)` refuses its head, or when
/// `payload`, given the items in slices of whole items as they are read (before the CRC is
/// checked), refuses one.
pub(crate) fn read_raw_record(
    r: &mut (impl Read + ?Sized),
    unit: u64,
    accept: impl FnOnce(u64, u64) -> bool,
    mut payload: impl FnMut(&[u8]) -> bool,
) -> Result<Option<(u64, u64)>> {
    let mut tag = [0u8; 4];
    if r.read_exact(&mut tag).is_err() || &tag != RECORD_TAG {
        return Ok(None);
    }
    let mut head = [0u8; 16];
    if r.read_exact(&mut head).is_err() {
        return Ok(None);
    }
    let v = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
    let n = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
    let Some(total) = n.checked_mul(unit).filter(|_| accept(v, n)) else {
        return Ok(None);
    };
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let per = (CHUNK_BYTES / unit).max(1) * unit;
    let mut buf = vec![0u8; per.min(total) as usize];
    let mut left = total;
    while left > 0 {
        let part = &mut buf[..per.min(left) as usize];
        if r.read_exact(part).is_err() {
            return Ok(None);
        }
        crc.update(part);
        if !payload(part) {
            return Ok(None);
        }
        left -= part.len() as u64;
    }
    let mut tail = [0u8; 4];
    if r.read_exact(&mut tail).is_err() || u32::from_le_bytes(tail) != crc.finalize() {
        return Ok(None);
    }
    Ok(Some((v, 4 + 16 + total + 4)))
}

/// [`Error::TooLarge`] when the file system of `out` has less than `bytes` free (statvfs);
/// nothing when it cannot be asked. What `kept` already holds (a file, or a folder's files: the
/// checkpoint being resumed) counts as room.
pub fn ensure_disk(out: &Path, bytes: u64, kept: &[PathBuf]) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return Ok(());
    };
    // SAFETY: a statvfs is plain data, all zeros a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a statvfs to fill.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Ok(());
    }
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    let have = kept.iter().map(|p| dir_bytes(p)).sum::<u64>();
    if bytes > free.saturating_add(have) {
        return Err(Error::too_large(
            format!("the table {}", out.display()),
            format!(
                "it needs {} of disk for the table and its checkpoint, but {} has {} free; \
                 choose another folder",
                crate::memory::human_bytes(bytes),
                dir.display(),
                crate::memory::human_bytes(free)
            ),
        ));
    }
    Ok(())
}

/// Bytes of a file, or of the files of a folder (one level), 0 when absent.
pub(super) fn dir_bytes(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// Refuse an output that a resumable run cannot keep a checkpoint beside: `-`, or anything
/// but a regular file or a new path (a device, a FIFO has no "beside").
pub(crate) fn check_resumable_target(out: &Path) -> Result<()> {
    crate::output::check_target(out)?;
    if out.as_os_str() == "-" || out.exists() && !out.is_file() {
        return Err(Error::invalid(format!(
            "{}: a table that can resume is saved to a regular file",
            out.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

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
            (b"chompute chomp p-table 2\nbox 3x3\n", "no end of header"),
            (b"something else\nbox 3x3\n\n", "first line is not"),
            (b"chompute chomp p-table 2\nbox3x3\n\n", "not 'key value'"),
            (b"chompute chomp p-table 2\n\xff\xfe\n\n", "not text"),
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
