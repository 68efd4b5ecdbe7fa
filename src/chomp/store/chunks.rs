//! The body of a table file and its trailer: the CRC-32 of every [`CHUNK_BYTES`] chunk, seeded
//! with the header's CRC (`chunk_seed`), so an edited header (its CRC recomputed) fails every
//! chunk. Written once through (`save_sealed`) or in place (`ChunkCrcs`), and read back
//! only from checked chunks (`CheckedBody`).
//!
//! Tests: src/chomp/store/ and the kinds' unit tests; tests/faults/tables.rs (every kind).

use super::files::damaged;
use crate::error::{Error, Result};
use crate::output::AtomicFile;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What every chunk CRC of a body written after `header` starts from: the header's CRC-32.
pub(crate) fn chunk_seed(header: &[u8]) -> u32 {
    crc32fast::hash(header)
}

/// Bytes of bits covered by one CRC-32 of the trailer (the last chunk may be shorter).
pub const CHUNK_BYTES: u64 = 1 << 16;

/// The CRC-32 of every [`CHUNK_BYTES`] chunk of a body, kept as the body is written.
pub(crate) struct ChunkCrcs {
    /// What every chunk's CRC starts from: the header's CRC-32 (0 in a legacy version).
    seed: u32,
    /// The CRC of the last chunk so far.
    crc: crc32fast::Hasher,
    /// Bytes of body seen so far.
    written: u64,
    crcs: Vec<u32>,
}

impl ChunkCrcs {
    /// The CRCs of a body whose chunks are seeded with `seed` ([`chunk_seed`]).
    pub(crate) fn new(seed: u32) -> ChunkCrcs {
        ChunkCrcs {
            seed,
            crc: crc32fast::Hasher::new_with_initial(seed),
            written: 0,
            crcs: Vec::new(),
        }
    }

    /// Bytes of body seen so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// The body goes on with `bytes`.
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let n = ((CHUNK_BYTES - self.written % CHUNK_BYTES) as usize).min(bytes.len());
            self.crc.update(&bytes[..n]);
            self.written += n as u64;
            bytes = &bytes[n..];
            if self.written.is_multiple_of(CHUNK_BYTES) {
                let fresh = crc32fast::Hasher::new_with_initial(self.seed);
                self.crcs
                    .push(std::mem::replace(&mut self.crc, fresh).finalize());
            }
        }
    }

    /// The body ends after its first `len` bytes (at most those seen), `partial` being the
    /// bytes of its last chunk from the chunk's start to `len`.
    pub(crate) fn cut(&mut self, len: u64, partial: &[u8]) {
        debug_assert!(len <= self.written && partial.len() as u64 == len % CHUNK_BYTES);
        self.crcs.truncate((len / CHUNK_BYTES) as usize);
        self.crc = crc32fast::Hasher::new_with_initial(self.seed);
        self.crc.update(partial);
        self.written = len;
    }

    /// The trailer: one CRC-32 per chunk (the last one possibly shorter), little-endian.
    pub(crate) fn trailer(mut self) -> Vec<u8> {
        if !self.written.is_multiple_of(CHUNK_BYTES) {
            self.crcs.push(self.crc.finalize());
        }
        self.crcs.iter().flat_map(|c| c.to_le_bytes()).collect()
    }
}

/// Write the table file `path` once through: `header`, the body that `body` streams to the
/// sink it is given, then the trailer of the body's chunk CRCs (seeded with the header's),
/// under a temporary name renamed to `path` when whole; an error leaves no file.
pub(crate) fn save_sealed(
    path: &Path,
    header: &str,
    body: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    let io = |e| Error::io(path, e);
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(header.as_bytes()).map_err(io)?;
        let mut crcs = ChunkCrcs::new(chunk_seed(header.as_bytes()));
        body(&mut |bytes: &[u8]| {
            crcs.update(bytes);
            out.write_all(bytes).map_err(io)
        })?;
        out.write_all(&crcs.trailer()).map_err(io)?;
        out.flush().map_err(io)?;
    }
    file.commit()
}

/// What a verify recounts in a kind's body: fed every chunk in order (each checked against
/// its CRC first), then asked whether the count agrees with what the header states.
pub(crate) trait Recount {
    /// The body goes on with `chunk`.
    fn feed(&mut self, chunk: &[u8]);
    /// Why the recount disagrees with the header, or `None` when it agrees.
    fn disagreement(self) -> Option<String>;
}

/// Bytes read at a time when the body is streamed.
const READ_BYTES: u64 = 1 << 20;

/// The body of a saved table (`bytes` bytes from `start`) and the CRC-32 of every chunk: every
/// byte read through it comes from a chunk checked against its CRC (once, remembered).
#[derive(Debug)]
pub(crate) struct CheckedBody {
    path: PathBuf,
    file: File,
    start: u64,
    bytes: u64,
    /// Bytes of a chunk ([`CHUNK_BYTES`] unless the kind says otherwise).
    chunk: u64,
    /// The CRC-32 of each chunk of the body.
    crcs: Vec<u32>,
    /// What every chunk's CRC starts from ([`ChunkCrcs`]).
    seed: u32,
    /// Bit c set once chunk c was checked against its CRC.
    checked: Vec<AtomicU64>,
}

impl CheckedBody {
    /// The body at bytes `start..start + bytes` of `file`, in chunks of `chunk` bytes whose
    /// CRC-32s, each started from `seed`, are `crcs` (the last chunk possibly shorter).
    pub(crate) fn new(
        path: &Path,
        file: File,
        (start, bytes): (u64, u64),
        chunk: u64,
        crcs: Vec<u32>,
        seed: u32,
    ) -> CheckedBody {
        debug_assert_eq!(bytes.div_ceil(chunk), crcs.len() as u64);
        CheckedBody {
            path: path.to_path_buf(),
            file,
            start,
            bytes,
            chunk,
            checked: (0..crcs.len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            crcs,
            seed,
        }
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The error for a question this file cannot answer: `PATH: WHY`.
    pub(crate) fn invalid(&self, why: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {why}", self.path.display()))
    }

    /// The error for damage found in this file: `PATH: WHY; the file is damaged`.
    pub(crate) fn damaged(&self, why: impl std::fmt::Display) -> Error {
        damaged(&self.path, why)
    }

    /// Read chunks `first..first + n` into `buf` and check each against its CRC-32.
    fn read_chunks(&self, first: u64, n: u64, buf: &mut Vec<u8>) -> Result<()> {
        let at = first * self.chunk;
        buf.resize((self.bytes - at).min(n * self.chunk) as usize, 0);
        self.file
            .read_exact_at(buf, self.start + at)
            .map_err(|e| Error::io(&self.path, e))?;
        for (c, bytes) in (first..).zip(buf.chunks(self.chunk as usize)) {
            let mut crc = crc32fast::Hasher::new_with_initial(self.seed);
            crc.update(bytes);
            if crc.finalize() != self.crcs[c as usize] {
                return Err(damaged(
                    &self.path,
                    format!("chunk {c} of the table does not match its crc32"),
                ));
            }
            self.checked[(c / 64) as usize].fetch_or(1 << (c % 64), Relaxed);
        }
        Ok(())
    }

    /// Bytes `at..at + out.len()` of the body, from checked chunks.
    pub(crate) fn read_at(&self, at: u64, out: &mut [u8]) -> Result<()> {
        let end = at + out.len() as u64;
        assert!(end <= self.bytes, "a read inside the body");
        if out.is_empty() {
            return Ok(());
        }
        for c in at / self.chunk..=(end - 1) / self.chunk {
            if self.checked[(c / 64) as usize].load(Relaxed) >> (c % 64) & 1 == 0 {
                self.read_chunks(c, 1, &mut Vec::new())?;
            }
        }
        self.file
            .read_exact_at(out, self.start + at)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Every chunk of the body in order to `each`, each checked before it goes.
    pub(crate) fn for_each_chunk(&self, mut each: impl FnMut(&[u8])) -> Result<()> {
        let (chunks, per) = (self.crcs.len() as u64, (READ_BYTES / self.chunk).max(1));
        let mut buf = Vec::with_capacity((per * self.chunk) as usize);
        for first in (0..chunks).step_by(per as usize) {
            self.read_chunks(first, per.min(chunks - first), &mut buf)?;
            buf.chunks(self.chunk as usize).for_each(&mut each);
        }
        Ok(())
    }

    /// The one verify of every kind: every chunk checked against its CRC-32 (else damage) and
    /// the body recounted through `tally` against its header (else a failed check, exit 1:
    /// `PATH: WHY; the file is damaged`).
    pub(crate) fn verify(&self, mut tally: impl Recount) -> Result<()> {
        self.for_each_chunk(|c| tally.feed(c))?;
        let Some(why) = tally.disagreement() else {
            return Ok(());
        };
        let why = format!("{}: {why}; the file is damaged", self.path.display());
        Err(Error::CheckFailed(why))
    }
}
