//! Output files that appear complete or not at all.
//!
//! An [`AtomicFile`] writes to a hidden temporary name beside its target and renames it into
//! place on [`AtomicFile::commit`]. Dropping it uncommitted (an error, a panic) removes the
//! temporary file; an interrupt (Ctrl-C, SIGTERM) removes every live temporary file through
//! [`install_interrupt_handler`] before the process exits.

use anyhow::Context;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Temporary files currently being written, removed by the interrupt handler.
static LIVE_TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Install once, early in `main`: on Ctrl-C or SIGTERM remove every temporary output file,
/// say so in one line, and exit with status 130.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        let temps = LIVE_TEMPS.lock().map(|g| g.clone()).unwrap_or_default();
        for t in &temps {
            remove_temp(t);
        }
        eprintln!("chompute: interrupted; no output file was written");
        std::process::exit(130);
    });
}

/// A file being written under a temporary name beside `target`.
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(target: impl AsRef<Path>) -> anyhow::Result<AtomicFile> {
        let target = target.as_ref().to_path_buf();
        let temp = temp_beside(&target)?;
        if let Ok(mut live) = LIVE_TEMPS.lock() {
            live.push(temp.clone());
        }
        let file = File::create(&temp).map_err(|e| {
            forget(&temp);
            anyhow::anyhow!("cannot write '{}': {e}", target.display())
        })?;
        Ok(AtomicFile {
            target,
            temp,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flush, sync and rename into place.
    pub fn commit(mut self) -> anyhow::Result<()> {
        self.finish()?;
        match std::fs::rename(&self.temp, &self.target) {
            Ok(()) => {
                forget(&self.temp);
                Ok(())
            }
            Err(e) => {
                self.discard_temp();
                Err(anyhow::anyhow!(
                    "cannot rename into '{}': {e}",
                    self.target.display()
                ))
            }
        }
    }

    /// Flush, sync and publish under the target name only if nothing has that name yet, so
    /// that of several writers exactly one wins: a hard link from the temporary name (which
    /// fails when the name exists); where the filesystem has no hard links, an exclusive
    /// create of the name and then the rename. `false` (the existing file left alone) when
    /// the name was taken.
    pub fn commit_exclusive(mut self) -> anyhow::Result<bool> {
        self.finish()?;
        let published = match std::fs::hard_link(&self.temp, &self.target) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(_) => match File::options()
                .write(true)
                .create_new(true)
                .open(&self.target)
            {
                Ok(_) => std::fs::rename(&self.temp, &self.target)
                    .map(|()| true)
                    .with_context(|| format!("cannot rename into '{}'", self.target.display())),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(anyhow::anyhow!(
                    "cannot write '{}': {e}",
                    self.target.display()
                )),
            },
        };
        self.discard_temp();
        published
    }

    /// Flush and sync the temporary file; on an error it is removed.
    fn finish(&mut self) -> anyhow::Result<()> {
        let writer = self.writer.take().expect("writer present until commit");
        let synced = match writer.into_inner() {
            Ok(file) => file.sync_all().map_err(|e| e.to_string()),
            Err(e) => Err(e.error().to_string()),
        };
        synced.map_err(|e| {
            self.discard_temp();
            anyhow::anyhow!("cannot write '{}': {e}", self.target.display())
        })
    }

    /// Remove the temporary file and stop tracking it.
    fn discard_temp(&self) {
        let _ = std::fs::remove_file(&self.temp);
        forget(&self.temp);
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer
            .as_mut()
            .expect("writer present until commit")
            .write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer
            .as_mut()
            .expect("writer present until commit")
            .flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.is_some() {
            self.writer = None;
            let _ = std::fs::remove_file(&self.temp);
            forget(&self.temp);
        }
    }
}

/// Remove a temporary file or directory. A directory may still be gaining files from other
/// threads while it is removed, so it is tried a few times.
fn remove_temp(t: &Path) {
    if t.is_dir() {
        for _ in 0..5 {
            if std::fs::remove_dir_all(t).is_ok() || !t.exists() {
                break;
            }
        }
    } else {
        let _ = std::fs::remove_file(t);
    }
}

/// A temporary name beside `target`: `.NAME.PID.N.tmp` in the same directory.
fn temp_beside(target: &Path) -> anyhow::Result<PathBuf> {
    let name = target
        .file_name()
        .with_context(|| format!("'{}' is not a file name", target.display()))?
        .to_string_lossy()
        .into_owned();
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )))
}

/// A directory being filled under a temporary name beside `target`, renamed into place by
/// [`AtomicDir::commit`] (replacing an older directory of that name). Dropped uncommitted,
/// or interrupted, it is removed with everything in it.
pub struct AtomicDir {
    target: PathBuf,
    temp: PathBuf,
    live: bool,
}

impl AtomicDir {
    pub fn create(target: impl AsRef<Path>) -> anyhow::Result<AtomicDir> {
        let target = target.as_ref().to_path_buf();
        let temp = temp_beside(&target)?;
        if let Ok(mut live) = LIVE_TEMPS.lock() {
            live.push(temp.clone());
        }
        std::fs::create_dir(&temp).map_err(|e| {
            forget(&temp);
            anyhow::anyhow!("cannot write '{}': {e}", target.display())
        })?;
        Ok(AtomicDir {
            target,
            temp,
            live: true,
        })
    }

    /// Where to write the directory's contents until it is committed.
    pub fn path(&self) -> &Path {
        &self.temp
    }

    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Rename into place, replacing an older directory at the target.
    pub fn commit(mut self) -> anyhow::Result<()> {
        if self.target.is_dir() {
            std::fs::remove_dir_all(&self.target)
                .with_context(|| format!("cannot replace '{}'", self.target.display()))?;
        }
        std::fs::rename(&self.temp, &self.target)
            .with_context(|| format!("cannot rename into '{}'", self.target.display()))?;
        forget(&self.temp);
        self.live = false;
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if self.live {
            remove_temp(&self.temp);
            forget(&self.temp);
        }
    }
}

fn forget(temp: &Path) {
    if let Ok(mut live) = LIVE_TEMPS.lock() {
        live.retain(|t| t != temp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncommitted_file_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("chompute-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("x.bin");
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert!(!target.exists());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"whole");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
