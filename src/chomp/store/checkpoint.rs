//! The checkpoint of a run in progress as a log: a header, then one record per finished step
//! (`LAYR`, the step, the number of items, the items, the CRC-32 of all after the tag),
//! appended as steps end. A torn or damaged record ends the log: it and all after it are cut
//! off when the log is reopened, and a log with no whole header is a new one.
//!
//! Tests: src/chomp/store/ and the kinds' unit tests; tests/faults/tables.rs (every kind).

use super::files::{has_header, open_checkpoint_file};
use super::header::read_header;
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes a record's items are read by.
const READ_BYTES: u64 = 1 << 16;

const RECORD_TAG: &[u8; 4] = b"LAYR";

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

impl Checkpoint {
    /// Open the checkpoint at `path` whose header is `header` (first line `magic`) under its
    /// lock ([`open_checkpoint_file`]): new (also when it holds no whole header), or one whose
    /// header `check` accepts, its records of steps `0..steps` read back in order by
    /// `read(reader, step)` (`Some(its bytes)`, or `None` to end there). Returns the first step
    /// still to do; what follows is cut off and counted in `dropped_bytes`.
    pub(crate) fn open_log(
        path: &Path,
        header: &str,
        magic: &str,
        verb: &str,
        check: impl FnOnce(&[(String, String)]) -> Result<()>,
        steps: u64,
        mut read: impl FnMut(&mut dyn Read, u64) -> Result<Option<u64>>,
    ) -> Result<(Checkpoint, u64)> {
        let io = |e| Error::io(path, e);
        let mut file = open_checkpoint_file(path, verb)?;
        let len = file.metadata().map_err(io)?.len();
        let (next, good_end) = if !has_header(&file, path) {
            // New, or no checkpoint ([`super::holds_checkpoint`]): begun afresh.
            file.set_len(0).map_err(io)?;
            file.write_all_at(header.as_bytes(), 0).map_err(io)?;
            file.sync_data().map_err(io)?;
            (0, header.len() as u64)
        } else {
            let mut reader = BufReader::with_capacity(1 << 20, &file);
            let (pairs, header_len) = read_header(path, &mut reader, magic)?;
            check(&pairs)?;
            let (mut next, mut end) = (0, header_len);
            while next < steps {
                let Some(bytes) = read(&mut reader, next)? else {
                    break;
                };
                (next, end) = (next + 1, end + bytes);
            }
            (next, end)
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

    /// Append one record: the tag, `step`, `n`, the payload that `payload` streams to the sink
    /// it is given (n items), and the CRC-32 of everything after the tag; then make it durable
    /// (paced).
    pub(crate) fn append_stream(
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
            let head = [step, n].map(u64::to_le_bytes).concat();
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
        // Durable against a machine crash at a pace, so that the tens of thousands of short
        // steps of a symmetric run do not each wait on the disk.
        if self.synced.elapsed() >= std::time::Duration::from_secs(2) {
            self.sync()?;
        }
        Ok(())
    }

    /// Make every record written so far durable now.
    pub(crate) fn sync(&mut self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| Error::io(&self.path, e))?;
        self.synced = std::time::Instant::now();
        Ok(())
    }

    /// Keep the first `len` bytes (the header and the records to keep) and append after them.
    pub(crate) fn truncate(&mut self, len: u64) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        self.file.set_len(len).map_err(io)?;
        self.file.seek(SeekFrom::Start(len)).map_err(io)?;
        Ok(())
    }

    /// Remove the checkpoint once the table is saved.
    pub fn remove(self) -> Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path).map_err(|e| Error::io(&self.path, e))
    }

    /// Remove the checkpoint a job holds in `slot`, if it holds one (after publishing, or when
    /// the run cannot resume from it).
    pub fn remove_held(slot: &mut Option<Checkpoint>) -> Result<()> {
        slot.take().map_or(Ok(()), Checkpoint::remove)
    }
}

/// One record of `n` items of `unit` bytes each: `Some((step, bytes))`, or `None` at the end,
/// at a torn or damaged record, when `accept(step, n)` refuses its head, or when `payload`,
/// given the items in slices as read (before the CRC is checked), refuses one. A failed read
/// is the end of the log, never an error.
pub(crate) fn read_raw_record(
    r: &mut (impl Read + ?Sized),
    unit: u64,
    accept: impl FnOnce(u64, u64) -> bool,
    mut payload: impl FnMut(&[u8]) -> bool,
) -> Option<(u64, u64)> {
    let mut head = [0u8; 20];
    if r.read_exact(&mut head).is_err() || &head[..4] != RECORD_TAG {
        return None;
    }
    let v = u64::from_le_bytes(head[4..12].try_into().expect("8 bytes"));
    let n = u64::from_le_bytes(head[12..].try_into().expect("8 bytes"));
    let total = n.checked_mul(unit).filter(|_| accept(v, n))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head[4..]);
    let per = (READ_BYTES / unit).max(1) * unit;
    let mut buf = vec![0u8; per.min(total) as usize];
    let mut left = total;
    while left > 0 {
        let part = &mut buf[..per.min(left) as usize];
        if r.read_exact(part).is_err() {
            return None;
        }
        crc.update(part);
        if !payload(part) {
            return None;
        }
        left -= part.len() as u64;
    }
    let mut tail = [0u8; 4];
    if r.read_exact(&mut tail).is_err() || u32::from_le_bytes(tail) != crc.finalize() {
        return None;
    }
    Some((v, 4 + 16 + total + 4))
}
