//! What a table file's path must be, and what the file system must give: a regular file
//! (never a directory, device or FIFO), its lock, the room on disk, and the one error for a
//! file found damaged.
//!
//! Tests: src/chomp/store/ and the kinds' unit tests; tests/faults/tables.rs (every kind).

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Bytes a header may take, before its empty line.
pub(crate) const HEADER_MAX: usize = 4096;

/// `table` with `ext` appended to its name.
fn beside(table: &Path, ext: &str) -> PathBuf {
    let mut s = table.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// The suffix of a table's checkpoint file, the longest of its checkpoints' suffixes.
const PARTIAL: &str = ".partial";

/// The checkpoint path of a table file: `FILE.partial`.
pub fn partial_path(table: &Path) -> PathBuf {
    beside(table, PARTIAL)
}

/// The snapshot of the marks of a run saving to `table`: `FILE.marks`.
pub fn marks_path(table: &Path) -> PathBuf {
    beside(table, ".marks")
}

/// The checkpoint folder of a table solved in pieces: `FILE.blocks`.
pub fn blocks_dir(table: &Path) -> PathBuf {
    beside(table, ".blocks")
}

/// Whether `path` holds a checkpoint a run could resume: a folder (of pieces), or a file whose
/// header is whole (not an empty lock, nor one cut off by a kill in its first moments).
pub fn holds_checkpoint(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => true,
        Ok(m) if m.is_file() => File::open(path).is_ok_and(|f| has_header(&f, path)),
        _ => false,
    }
}

/// Whether the first bytes of `file` hold a whole header (one that ends with an empty line).
pub(crate) fn has_header(file: &File, path: &Path) -> bool {
    let first = read_prefix(file, path, HEADER_MAX as u64 + 2);
    first.is_ok_and(|b| b.windows(2).any(|w| w == b"\n\n"))
}

/// An error unless `meta` (of `path`) is a regular file's.
fn regular(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{}: not a regular file; a table is read from and written to a regular file",
        path.display()
    )))
}

/// Open a saved table for reading: a regular file (checked before the open, as a FIFO would
/// block it and a device or a directory is no table, and after it, which does not block).
pub(crate) fn open_regular(path: &Path) -> Result<File> {
    regular(
        path,
        &std::fs::metadata(path).map_err(|e| Error::io(path, e))?,
    )?;
    let mut open = OpenOptions::new();
    let file = open.read(true).custom_flags(libc::O_NONBLOCK).open(path);
    let file = file.map_err(|e| Error::io(path, e))?;
    regular(path, &file.metadata().map_err(|e| Error::io(path, e))?)?;
    Ok(file)
}

/// The error for a file found damaged: `PATH: WHY; the file is damaged`.
pub(crate) fn damaged(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{}: {why}; the file is damaged", path.display()))
}

/// The first `n` bytes of `file`, or all of it when shorter.
pub(crate) fn read_prefix(file: &File, path: &Path, n: u64) -> Result<Vec<u8>> {
    let mut first = vec![0u8; n as usize];
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

/// The error for a run to `table` while another process holds the lock on `held` (the
/// checkpoint or the plan of a run in any mode).
pub(crate) fn being_solved(table: &Path, held: &Path) -> Error {
    Error::invalid(format!(
        "{} is being solved by another process ({} is locked)",
        table.display(),
        held.display()
    ))
}

/// Refuse a run to `table` while another process holds an flock on `held`.
pub(crate) fn refuse_if_held(table: &Path, held: &Path) -> Result<()> {
    match OpenOptions::new().read(true).open(held) {
        Ok(f) if f.metadata().is_ok_and(|m| m.is_file()) && flock_now(&f, false).is_err() => {
            Err(being_solved(table, held))
        }
        _ => Ok(()),
    }
}

/// Open (or create) the regular checkpoint file `path` for reading and writing under an
/// exclusive flock: a second process is refused ("TABLE is being `verb` by another process").
pub(crate) fn open_checkpoint_file(path: &Path, verb: &str) -> Result<File> {
    // Under the interrupt's gate: a checkpoint made after the interrupt line would be one
    // the line did not name.
    crate::output::gated(|| open_and_lock(path, verb))
}

/// [`open_checkpoint_file`] without the gate, for callers already inside it.
fn open_and_lock(path: &Path, verb: &str) -> Result<File> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::invalid(format!(
            "{}: the checkpoint is not a regular file",
            path.display()
        )));
    }
    let mut open = OpenOptions::new();
    let file = open
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path);
    let file = file.map_err(|e| Error::io(path, e))?;
    flock_now(&file, false).map_err(|_| {
        Error::invalid(format!(
            "{} is being {verb} by another process (its checkpoint {} is locked)",
            path.with_extension("").display(),
            path.display()
        ))
    })?;
    Ok(file)
}

/// The lock of a run to `table` that keeps no checkpoint (on a device): the flock on
/// `FILE.partial` that a run with a checkpoint holds, and no run in pieces on
/// `FILE.blocks/plan`, so of two writers of one file in any modes the second is refused. The
/// lock file is empty (no checkpoint: [`holds_checkpoint`]) and goes with the lock.
#[derive(Debug)]
pub struct TableLock {
    path: PathBuf,
    file: File,
}

/// Take [`TableLock`] on `table`.
pub(crate) fn lock_table(table: &Path) -> Result<TableLock> {
    let path = partial_path(table);
    // In one step under the interrupt's gate: a line that says no file was written is never
    // followed by one.
    let lock = crate::output::gated(|| {
        let file = open_and_lock(&path, "solved")?;
        if has_header(&file, &path) {
            return Err(Error::invalid(format!(
                "{} is the checkpoint of another run of {}: resume that run, or remove it",
                path.display(),
                table.display()
            )));
        }
        file.set_len(0).map_err(|e| Error::io(&path, e))?;
        crate::output::remove_on_stop(&path);
        Ok(TableLock {
            path: path.clone(),
            file,
        })
    })?;
    refuse_if_held(table, &blocks_dir(table).join("plan"))?;
    Ok(lock)
}

impl Drop for TableLock {
    fn drop(&mut self) {
        // Still held: no other run has written a checkpoint into it.
        if self.file.metadata().is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&self.path);
        }
        crate::output::lock_file_released(&self.path);
    }
}

/// Take a flock on `file`, shared or exclusive (released when the file is closed or the process
/// dies), waiting at most a quarter of a second: a process that starts another holds a copy
/// of its descriptors until the new program begins.
pub(crate) fn flock_now(file: &File, shared: bool) -> std::io::Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(250);
    loop {
        let got = if shared {
            file.try_lock_shared()
        } else {
            file.try_lock()
        };
        match got {
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            got => return got.map_err(std::io::Error::from),
        }
    }
}

/// [`Error::TooLarge`] when the file system of `out` has less than `bytes` free (statvfs);
/// nothing when it cannot be asked. What `kept` already holds (a file, or a folder's files: the
/// checkpoint being resumed) counts as room.
pub fn ensure_disk(out: &Path, bytes: u64, kept: &[PathBuf]) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let dir = folder_of(out);
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

/// Bytes of disk a file takes, or the files of a folder (one level), 0 when absent: the
/// blocks allocated, so a table assembled in place counts what is written, not its length.
pub(crate) fn dir_bytes(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.blocks() * 512)
                    .sum()
            })
            .unwrap_or(0),
        Ok(m) => m.blocks() * 512,
        Err(_) => 0,
    }
}

/// The folder `out` is in (`.` for a bare name).
fn folder_of(out: &Path) -> &Path {
    out.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Refuse an output that a resumable run cannot keep a checkpoint beside: `-`, or anything
/// but a regular file or a new path (a device, a FIFO has no "beside").
pub(crate) fn check_resumable_target(out: &Path) -> Result<()> {
    crate::output::check_target(out)?;
    // Never beside a device, whatever the name leads to (`/dev/stdout` may be a regular
    // file); /dev/shm is a folder of files, where a table may go.
    let special = std::fs::canonicalize(folder_of(out)).is_ok_and(|p| {
        ["/dev", "/proc", "/sys"].iter().any(|d| p.starts_with(d)) && !p.starts_with("/dev/shm")
    });
    if out.as_os_str() == "-" || special || out.exists() && !out.is_file() {
        return Err(Error::invalid(format!(
            "{}: a table that can resume is saved to a regular file",
            out.display()
        )));
    }
    let name = out.file_name().map_or(0, |n| n.len());
    let most = crate::output::NAME_MAX - PARTIAL.len();
    if name > most {
        return Err(Error::invalid(format!(
            "{}: a table's name may take at most {most} bytes (this one takes {name}): its checkpoint FILE{PARTIAL} goes beside it",
            out.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_a_folder_or_a_file_whose_header_is_whole() {
        let (tmp, pid) = (std::env::temp_dir(), std::process::id());
        let file = tmp.join(format!("chompute-holds-{pid}.partial"));
        let head = "chompute chomp p-table partial 1\nbox 3x3\n";
        let whole = format!("{head}\n");
        let cases: [(&[u8], bool); 4] = [
            (b"", false),
            (head.as_bytes(), false),
            (&[0; 64], false),
            (whole.as_bytes(), true),
        ];
        for (bytes, holds) in cases {
            std::fs::write(&file, bytes).unwrap();
            assert_eq!(holds_checkpoint(&file), holds, "{bytes:?}");
        }
        std::fs::remove_file(&file).unwrap();
        assert!(holds_checkpoint(&tmp) && !holds_checkpoint(&file));
    }
}
