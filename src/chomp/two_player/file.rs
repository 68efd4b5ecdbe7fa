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
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs.

use super::table::{BitSource, PTable, RectangleBites};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::index::BitLayout;
use crate::error::{Error, Result};
use crate::output::AtomicFile;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

const TABLE_MAGIC: &str = "chompute chomp p-table 2";
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
    let mut h = format!("{magic}\nbox {}\nrank {}\n", index.shape(), index.scheme());
    for (k, v) in extra {
        h.push_str(&format!("{k} {v}\n"));
    }
    h.push('\n');
    h
}

/// Read a header: lines up to the empty one. Returns the `key value` pairs after the magic line
/// and the header's length in bytes.
pub(super) fn read_header(
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

pub(super) fn field<'a>(path: &Path, pairs: &'a [(String, String)], key: &str) -> Result<&'a str> {
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
        let mut crcs: Vec<u32> = Vec::with_capacity(total.div_ceil(CHUNK_BYTES) as usize);
        let mut crc = crc32fast::Hasher::new();
        let mut in_chunk = 0u64;
        let mut written = 0u64;
        let mut bytes = Vec::new();
        source(&mut |words: &[u64]| {
            if written + words.len() as u64 * 8 > total {
                return Err(Error::invalid(format!(
                    "{}: more words than the {} box has",
                    path.display(),
                    index.shape()
                )));
            }
            bytes.clear();
            bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let n = ((CHUNK_BYTES - in_chunk) as usize).min(rest.len());
                crc.update(&rest[..n]);
                in_chunk += n as u64;
                rest = &rest[n..];
                if in_chunk == CHUNK_BYTES {
                    crcs.push(std::mem::take(&mut crc).finalize());
                    in_chunk = 0;
                }
            }
            written += bytes.len() as u64;
            out.write_all(&bytes).map_err(io)
        })?;
        if written != total {
            return Err(Error::invalid(format!(
                "{}: {written} bytes of bits, but the {} box has {total}",
                path.display(),
                index.shape()
            )));
        }
        if in_chunk > 0 {
            crcs.push(crc.finalize());
        }
        for c in crcs {
            out.write_all(&c.to_le_bytes()).map_err(io)?;
        }
        out.flush().map_err(io)?;
    }
    file.commit()
}

/// The header of a version-2 table: the lines, then `header-crc32` of the bytes before it.
fn table_header(index: &BitLayout, p_positions: u64) -> String {
    let mut h = header_text(
        TABLE_MAGIC,
        index,
        &[
            ("positions", index.positions().to_string()),
            ("p-positions", p_positions.to_string()),
            ("chunk-bytes", CHUNK_BYTES.to_string()),
        ],
    );
    h.pop(); // the empty line comes after the header's CRC
    let crc = crc32fast::hash(h.as_bytes());
    h.push_str(&format!("header-crc32 {crc:08x}\n\n"));
    h
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

/// A saved table opened for reading single bits without loading it. Every bit read comes from
/// a chunk whose CRC-32 was checked (once per chunk, remembered).
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    file: File,
    data_start: u64,
    /// How the bits are numbered.
    pub index: BitLayout,
    /// P-positions, as the header says.
    pub p_positions: u64,
    /// The trailer: the CRC-32 of each chunk of bits.
    crcs: Vec<u32>,
    /// Bit c set once chunk c was checked against its CRC.
    checked: Vec<std::sync::atomic::AtomicU64>,
}

impl TableFile {
    /// Open a table written by [`save_table`]: checks the header (its CRC, the box, the
    /// numbering) and the file's length, and reads the trailer of chunk CRCs.
    pub fn open(path: &Path) -> Result<TableFile> {
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
        let mut first = [0u8; TABLE_MAGIC_V1.len() + 1];
        let got = file
            .read_at(&mut first, 0)
            .map_err(|e| Error::io(path, e))?;
        if first[..got] == *format!("{TABLE_MAGIC_V1}\n").as_bytes() {
            return Err(Error::invalid(format!(
                "{}: a version-1 table (one CRC for all its bits, none over its header); solve \
                 the box again to write version 2",
                path.display()
            )));
        }
        let mut reader = BufReader::new(&file);
        let (pairs, data_start) = read_header(path, &mut reader, TABLE_MAGIC)?;
        let damaged =
            |why: String| Error::invalid(format!("{}: {why}; the file is damaged", path.display()));
        let index = header_index(path, &pairs)?;
        let num = |key: &str| -> Result<u64> {
            field(path, &pairs, key)?
                .parse()
                .map_err(|_| Error::invalid(format!("{}: '{key}' is not a number", path.display())))
        };
        let p_positions = num("p-positions")?;
        if table_header(&index, p_positions).len() as u64 != data_start
            || table_header(&index, p_positions).as_bytes() != read_prefix(&file, path, data_start)?
        {
            return Err(damaged("the header does not match its header-crc32".into()));
        }
        let shape = index.shape();
        let bytes = index.bytes();
        let chunks = bytes.div_ceil(CHUNK_BYTES);
        let want = data_start + bytes + chunks * 4;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len != want {
            return Err(damaged(format!(
                "{len} bytes, but a table of the {shape} box has {want}"
            )));
        }
        let mut trailer = vec![0u8; (chunks * 4) as usize];
        file.read_exact_at(&mut trailer, data_start + bytes)
            .map_err(|e| Error::io(path, e))?;
        let crcs = trailer
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Ok(TableFile {
            path: path.to_path_buf(),
            p_positions,
            file,
            data_start,
            index,
            crcs,
            checked: (0..chunks.div_ceil(64))
                .map(|_| std::sync::atomic::AtomicU64::new(0))
                .collect(),
        })
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.index.shape()
    }

    /// Read chunk `c` and check it against its CRC-32.
    fn read_chunk(&self, c: u64, buf: &mut Vec<u8>) -> Result<()> {
        let bytes = self.index.bytes();
        let at = c * CHUNK_BYTES;
        let n = (bytes - at).min(CHUNK_BYTES) as usize;
        buf.resize(n, 0);
        self.file
            .read_exact_at(buf, self.data_start + at)
            .map_err(|e| Error::io(&self.path, e))?;
        if crc32fast::hash(buf) != self.crcs[c as usize] {
            return Err(Error::invalid(format!(
                "{}: chunk {c} of the bits does not match its crc32; the file is damaged",
                self.path.display()
            )));
        }
        use std::sync::atomic::Ordering::Relaxed;
        self.checked[(c / 64) as usize].fetch_or(1 << (c % 64), Relaxed);
        Ok(())
    }

    /// Whether bit `r` is P, read from the file (from a checked chunk).
    pub fn is_p_bit(&self, r: u64) -> Result<bool> {
        use std::sync::atomic::Ordering::Relaxed;
        if r >= self.index.len() {
            return Err(Error::invalid(format!(
                "{}: bit {r} is outside the table",
                self.path.display()
            )));
        }
        let byte = (r >> 6) * 8;
        let c = byte / CHUNK_BYTES;
        if self.checked[(c / 64) as usize].load(Relaxed) >> (c % 64) & 1 == 0 {
            self.read_chunk(c, &mut Vec::new())?;
        }
        let mut word = [0u8; 8];
        self.file
            .read_exact_at(&mut word, self.data_start + byte)
            .map_err(|e| Error::io(&self.path, e))?;
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
        let mut buf = Vec::with_capacity(CHUNK_BYTES as usize);
        for c in 0..self.crcs.len() as u64 {
            self.read_chunk(c, &mut buf)?;
            buf.chunks_exact(8)
                .for_each(|w| each(u64::from_le_bytes(w.try_into().expect("8 bytes"))));
        }
        Ok(())
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
fn read_prefix(file: &File, path: &Path, n: u64) -> Result<Vec<u8>> {
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
        let io = |e| Error::io(path, e);
        let shape = index.shape();
        let index = index.clone();
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
                "{} is being solved by another process (its checkpoint {} is locked)",
                path.with_extension("").display(),
                path.display()
            ))
        })?;
        let header = header_text(PARTIAL_MAGIC, &index, &[]);
        let len = file.metadata().map_err(io)?.len();
        let mut start = vec![0u8; (len as usize).min(header.len())];
        file.read_exact_at(&mut start, 0).map_err(io)?;
        if len < header.len() as u64 && header.as_bytes().starts_with(&start) {
            // New, or cut off while its header was written (a kill in the first moments):
            // a fresh checkpoint.
            file.set_len(0).map_err(io)?;
            file.write_all_at(header.as_bytes(), 0).map_err(io)?;
            file.seek(SeekFrom::Start(header.len() as u64))
                .map_err(io)?;
            file.sync_data().map_err(io)?;
            return Ok((
                Checkpoint {
                    path: path.to_path_buf(),
                    file,
                    synced: std::time::Instant::now(),
                    dropped_bytes: 0,
                },
                0,
            ));
        }
        let len = file.metadata().map_err(io)?.len();
        let mut reader = BufReader::with_capacity(1 << 20, &file);
        let (pairs, mut good_end) = read_header(path, &mut reader, PARTIAL_MAGIC)?;
        let got_index = header_index(path, &pairs)?;
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
        let layers = super::solve::steps(&index);
        let mut next = 0u64;
        while next < layers {
            match read_record(&mut reader, index.len())? {
                Some((v, ranks, bytes)) if v == next => {
                    for r in ranks {
                        set_p(v, r);
                    }
                    good_end += bytes;
                    next += 1;
                }
                _ => break,
            }
        }
        drop(reader);
        if good_end < len {
            file.set_len(good_end).map_err(io)?;
        }
        file.seek(SeekFrom::Start(good_end)).map_err(io)?;
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                file,
                synced: std::time::Instant::now(),
                dropped_bytes: len - good_end,
            },
            next,
        ))
    }

    /// Append the record of layer `v` with its P ranks, and make it durable.
    pub fn append(&mut self, v: u64, ranks: &[u64]) -> Result<()> {
        let mut body = Vec::with_capacity(16 + ranks.len() * 8);
        body.extend_from_slice(&v.to_le_bytes());
        body.extend_from_slice(&(ranks.len() as u64).to_le_bytes());
        for r in ranks {
            body.extend_from_slice(&r.to_le_bytes());
        }
        let crc = crc32fast::hash(&body);
        let io = |e| Error::io(&self.path, e);
        self.file.write_all(RECORD_TAG).map_err(io)?;
        self.file.write_all(&body).map_err(io)?;
        self.file.write_all(&crc.to_le_bytes()).map_err(io)?;
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
    r: &mut impl Read,
    positions: u64,
) -> Result<Option<(u64, Vec<u64>, u64)>> {
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
    if n > positions {
        return Ok(None);
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let mut ranks = Vec::with_capacity(n.min(1 << 24) as usize);
    let mut buf = [0u8; 8];
    for _ in 0..n {
        if r.read_exact(&mut buf).is_err() {
            return Ok(None);
        }
        crc.update(&buf);
        let rank = u64::from_le_bytes(buf);
        if rank >= positions {
            return Ok(None);
        }
        ranks.push(rank);
    }
    let mut tail = [0u8; 4];
    if r.read_exact(&mut tail).is_err() || u32::from_le_bytes(tail) != crc.finalize() {
        return Ok(None);
    }
    Ok(Some((v, ranks, 4 + 16 + n * 8 + 4)))
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
