//! Output files that appear complete or not at all, and what an interrupt leaves behind.
//!
//! [`AtomicFile`] decides how to write by what the target is, before anything is written
//! ([`check_target`] asks the same question up front):
//!
//! | target | how it is written |
//! |---|---|
//! | a new path, or an existing regular file | to a hidden `.NAME.PID.N.tmp` beside it (NAME cut so that it fits in 255 bytes), renamed over it by [`AtomicFile::commit`] |
//! | a symbolic link (to a regular file, or dangling) | the links are followed to the path they end at; the temporary file is written beside that path and renamed onto it, so the link stays a link and the file it names is replaced whole |
//! | `-` (also `/dev/stdout`, `/dev/fd/1`) | straight to standard output (a PNG streamed into a pipe); refused when standard output is a terminal |
//! | a FIFO or a character device (`/dev/null`, a tty) | opened and written straight, never replaced |
//! | a directory, a block device, a socket | refused with an error before anything is written |
//!
//! A temporary file is removed whenever it does not become the target: dropped uncommitted
//! (an error, a panic), a commit that fails (a full disk), or an interrupt. A run killed
//! outright (SIGKILL, a lost machine) cannot remove its own: the next output made for the
//! same name does, once no process here has the PID in its name and no process anywhere holds
//! the lock its writer keeps on it ([`remove_stale_temps`] does the same for a table and its
//! checkpoint folder before a run).
//!
//! ## Interrupts
//!
//! [`stop_outputs`] is what a program calls when it is interrupted (the binary calls it from
//! its Ctrl-C, SIGTERM and SIGHUP handler, then prints the line it returns and exits with
//! status 130): it removes every temporary file and directory still being written and says
//! what was kept (finished tiles and frames stay: a rerun resumes from them). It must not race
//! the threads that are still writing. Every file-system change that makes or finishes an
//! output (creating a temporary file or directory, writing a file inside a temporary
//! directory, renaming into place) holds a shared *gate* for its duration; [`stop_outputs`]
//! sets a flag that refuses new changes, takes the gate exclusively — so it waits for the
//! changes in flight — removes the temporary files, and never releases the gate, so no thread
//! can create anything after the removal. Writes through a temporary file already open need no
//! gate: once the file is removed its later writes go nowhere. Threads that find the flag set
//! get [`Error::Interrupted`]; a program that is stopping reports nothing more ([`stopping`])
//! so the interrupt's line is the only one. Nothing here ends the process: that is the
//! program's business.
//!
//! Tests: this file's unit tests.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::time::Instant;

/// Held shared by every file-system change that makes or finishes an output; taken
/// exclusively (and never released) by [`stop_outputs`].
static GATE: RwLock<()> = RwLock::new(());
/// Set once the process is stopping: no new output may be started or finished.
static STOPPING: AtomicBool = AtomicBool::new(false);
/// Temporary files and directories being written, removed by [`stop_outputs`], each with the target
/// it becomes (for messages).
static LIVE: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());
/// What has been finished, and what is being streamed, for the interrupt's message.
static DONE: Mutex<Done> = Mutex::new(Done::new());
/// Checkpoints of runs in progress (`FILE.partial`, `FILE.blocks/`), kept on an interrupt.
static CHECKPOINTS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Note that `path` is the checkpoint of the run in progress: an interrupt keeps it and says
/// so ("kept the checkpoint …: the same command resumes").
pub fn keep_checkpoint(path: &Path) {
    lock(&CHECKPOINTS).push(path.to_path_buf());
}

/// The run of checkpoint `path` is over (its output saved, the checkpoint removed).
pub fn drop_checkpoint(path: &Path) {
    lock(&CHECKPOINTS).retain(|p| p != path);
}

/// Remove the temporary files and directories that runs no longer running left beside
/// `target` (`.NAME.PID.N.tmp`, a run killed while it wrote NAME), and in the directory
/// `target` when it is one (a checkpoint folder's pieces). Returns how many were removed.
pub fn remove_stale_temps(target: &Path) -> usize {
    let mut found = Vec::new();
    if let Some(name) = target.file_name() {
        let mut beside = temps_in(&parent_dir(target));
        found.extend(
            beside
                .remove(temp_stem(&name.to_string_lossy()))
                .into_iter()
                .flatten(),
        );
    }
    if target.is_dir() {
        found.extend(temps_in(target).into_values().flatten());
    }
    found
        .into_iter()
        .filter(|(path, pid)| remove_if_abandoned(path, *pid))
        .count()
}

/// The temporaries in one directory, by the name they were written for ([`temp_stem`]),
/// each with the PID in its name.
type Temps = BTreeMap<String, Vec<(PathBuf, i32)>>;

/// The [`Temps`] of a directory as listed at one time, and until when they are kept.
struct Listing {
    temps: Temps,
    /// When the listing has aged [`LISTING_AGE`] times what it took, so that listing again
    /// costs at most about 0.1 % more than the outputs themselves.
    until: Instant,
}

impl Listing {
    /// List `dir` now.
    fn of(dir: &Path) -> Listing {
        let at = Instant::now();
        let temps = temps_in(dir);
        Listing {
            temps,
            until: at + at.elapsed() * LISTING_AGE,
        }
    }

    /// Whether the listing is old enough to list again.
    fn stale(&self) -> bool {
        Instant::now() > self.until
    }
}

/// A directory's listing is kept until it is this many times as old as the listing took; then
/// [`sweep_before`] lists the directory again.
const LISTING_AGE: u32 = 1000;

/// The [`Listing`] of each directory an output has been made in.
static TEMPS_BY_DIR: Mutex<BTreeMap<PathBuf, Listing>> = Mutex::new(BTreeMap::new());

/// Before a temporary is made for `dest`: remove what runs no longer running left for the
/// same name beside it (a picture, a mesh or a pyramid killed outright, with no chance to
/// remove its own). A directory's listing is kept until it is [`LISTING_AGE`] times as old as
/// the listing took, then made again, so a folder that gets thousands of tiles or frames
/// costs a few listings, not one a tile, each output looks its name up, and a long-lived
/// process (a Python session) still sees what a run killed later left. Only temporaries of
/// `dest`'s own name are touched: nothing another program keeps there.
fn sweep_before(dest: &Path) {
    let Some(name) = dest.file_name() else {
        return;
    };
    let dir = parent_dir(dest);
    let name = name.to_string_lossy();
    let stem = temp_stem(&name);
    let kept = match lock(&TEMPS_BY_DIR).get_mut(&dir) {
        Some(listing) if !listing.stale() => Some(listing.temps.remove(stem)),
        _ => None,
    };
    // A new listing is made outside the lock, so outputs in other directories do not wait for
    // it. Two threads that list one directory at once each sweep their own name from their own
    // listing, and the later listing is kept.
    let found = kept.unwrap_or_else(|| {
        let mut listing = Listing::of(&dir);
        let found = listing.temps.remove(stem);
        lock(&TEMPS_BY_DIR).insert(dir, listing);
        found
    });
    for (path, pid) in found.into_iter().flatten() {
        remove_if_abandoned(&path, pid);
    }
}

/// The [`Temps`] of `dir`.
fn temps_in(dir: &Path) -> Temps {
    let mut temps = Temps::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let file = e.file_name();
        if let Some((base, pid)) = temp_name_parts(&file.to_string_lossy()) {
            temps
                .entry(base.to_string())
                .or_default()
                .push((e.path(), pid));
        }
    }
    temps
}

/// NAME and PID of a temporary's name `.NAME.PID.N.tmp` ([`temp_beside`]); `None` for any
/// other name.
fn temp_name_parts(file: &str) -> Option<(&str, i32)> {
    let rest = file.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    let (Some(n), Some(pid), Some(base)) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    n.parse::<u64>().ok()?;
    let pid = pid.parse().ok().filter(|&p: &i32| p > 0)?;
    Some((base, pid))
}

/// Remove the temporary `path` that process `pid` made, if its run is over: no process here
/// has that PID, and no process anywhere holds the lock its writer keeps on a temporary file
/// (a run on another machine writing into a shared file system keeps it while it lives).
/// Whether it was removed.
fn remove_if_abandoned(path: &Path, pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    let alive = pid == std::process::id() as i32
        || unsafe { libc::kill(pid, 0) } == 0
        || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    if alive {
        return false;
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).is_ok(),
        Ok(m) if m.is_file() => {
            // A network file system takes an exclusive lock only on a file open for writing.
            let file = File::options()
                .write(true)
                .open(path)
                .or_else(|_| File::open(path));
            if file.is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock))) {
                return false;
            }
            std::fs::remove_file(path).is_ok()
        }
        Ok(_) => std::fs::remove_file(path).is_ok(),
        Err(_) => false,
    }
}

/// Whether standard output carries an output file (`-o -`).
static STDOUT_IS_OUTPUT: AtomicBool = AtomicBool::new(false);
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whether the process is stopping: [`stop_outputs`] has been called, so no output may be
/// started or finished any more.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Whether an output file is being written to standard output (`-o -`), so that reports a
/// command would print there must go to stderr instead.
pub fn stdout_is_output() -> bool {
    STDOUT_IS_OUTPUT.load(Ordering::SeqCst)
}

/// Stop every output for good, as a program does on an interrupt or before it exits early:
/// refuse new file-system changes, wait for those in flight, remove every temporary file and
/// directory still being written, and say what was kept ("kept 3 finished files in 'FR'; no
/// partial file was left", or "no output file was written"). The gate is never released, so
/// the caller should end the process (or at least write no more outputs) once this returns.
pub fn stop_outputs() -> String {
    STOPPING.store(true, Ordering::SeqCst);
    // Wait for the changes in flight, then keep the gate until the process is gone.
    let gate = GATE.write().unwrap_or_else(|p| p.into_inner());
    std::mem::forget(gate);
    let live = std::mem::take(&mut *lock(&LIVE));
    for (temp, _) in &live {
        remove_temp(temp);
    }
    // Only what is there: a snapshot that was never taken is not kept.
    let mut checkpoints = lock(&CHECKPOINTS).clone();
    checkpoints.retain(|c| c.exists());
    lock(&DONE).summary_with(&checkpoints)
}

/// A lock that survives a panic in another holder (the data here stays consistent).
fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The shared gate for one file-system change, or [`Error::Interrupted`] when stopping.
fn gate() -> Result<RwLockReadGuard<'static, ()>> {
    if stopping() {
        return Err(Error::Interrupted);
    }
    let guard = GATE.read().unwrap_or_else(|p| p.into_inner());
    if stopping() {
        return Err(Error::Interrupted);
    }
    Ok(guard)
}

/// Outputs finished so far and outputs being written straight to a stream.
struct Done {
    files: u64,
    last_file: Option<PathBuf>,
    /// Directories holding the finished files (the first few).
    places: Vec<PathBuf>,
    /// Straight outputs (standard output, FIFOs, devices) opened and not yet complete.
    streams: Vec<PathBuf>,
}

impl Done {
    const fn new() -> Done {
        Done {
            files: 0,
            last_file: None,
            places: Vec::new(),
            streams: Vec::new(),
        }
    }

    fn finished(&mut self, target: &Path) {
        self.files += 1;
        self.last_file = Some(target.to_path_buf());
        let place = parent_dir(target);
        if self.places.len() < 4 && !self.places.contains(&place) {
            self.places.push(place);
        }
    }

    /// "no output file was written", or what was kept and what was cut short.
    #[cfg(test)]
    fn summary(&self) -> String {
        self.summary_with(&[])
    }

    /// `Done::summary`, and the checkpoints of runs in progress, which are kept.
    fn summary_with(&self, checkpoints: &[PathBuf]) -> String {
        let mut parts = Vec::new();
        match (self.files, &self.last_file) {
            (0, _) | (_, None) => {}
            (1, Some(f)) => parts.push(format!(
                "kept the finished file '{}'; no partial file was left",
                f.display()
            )),
            (n, Some(_)) => {
                let places: Vec<String> = self
                    .places
                    .iter()
                    .map(|p| format!("'{}'", p.display()))
                    .collect();
                parts.push(format!(
                    "kept {n} finished files in {}; no partial file was left",
                    places.join(", ")
                ));
            }
        }
        for s in &self.streams {
            parts.push(format!(
                "the output written straight to '{}' is incomplete",
                s.display()
            ));
        }
        let kept: Vec<String> = checkpoints
            .iter()
            .map(|c| format!("'{}'", c.display()))
            .collect();
        match kept.len() {
            0 => {}
            1 => parts.push(format!(
                "kept the checkpoint {}: the same command resumes",
                kept[0]
            )),
            _ => parts.push(format!(
                "kept the checkpoints {}: the same command resumes",
                kept.join(" and ")
            )),
        }
        if parts.is_empty() {
            "no output file was written".to_string()
        } else {
            parts.join("; ")
        }
    }
}

/// How an output is written, decided from what its target is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// The process's standard output.
    Stdout,
    /// Opened and written in place: a FIFO, a character device, or a file reached through
    /// `/proc` (a descriptor of another process's making).
    Straight(PathBuf),
    /// Written beside this path (the target with its symbolic links followed) and renamed
    /// onto it.
    Replace(PathBuf),
}

/// Paths that name this process's standard output.
fn names_stdout(path: &Path) -> bool {
    path == Path::new("-")
        || path == Path::new("/dev/stdout")
        || path == Path::new("/dev/fd/1")
        || path == Path::new("/proc/self/fd/1")
}

fn refused(target: &Path, kind: io::ErrorKind, why: &str) -> Error {
    Error::io(target, io::Error::new(kind, why.to_string()))
}

/// Decide how `target` is written; an error for targets that cannot be.
fn classify(target: &Path) -> Result<Target> {
    if names_stdout(target) {
        return Ok(Target::Stdout);
    }
    if target.as_os_str().is_empty() {
        return Err(Error::invalid("an output path cannot be empty"));
    }
    match std::fs::metadata(target) {
        Ok(meta) => {
            let kind = meta.file_type();
            if kind.is_dir() {
                return Err(refused(
                    target,
                    io::ErrorKind::IsADirectory,
                    "is a directory; name a file inside it",
                ));
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                if kind.is_fifo() || kind.is_char_device() {
                    return Ok(Target::Straight(target.to_path_buf()));
                }
            }
            if !kind.is_file() {
                return Err(refused(
                    target,
                    io::ErrorKind::InvalidInput,
                    "is not a regular file, a FIFO or a character device; chompute does not write there",
                ));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A new file (or a dangling link): its directory must exist.
            let dir = parent_dir(&follow_links(target)?.unwrap_or_else(|| target.into()));
            check_creatable(target, dir, false)?;
        }
        Err(e) => return Err(Error::io(target, e)),
    }
    Ok(match follow_links(target)? {
        Some(path) => Target::Replace(path),
        None => Target::Straight(target.to_path_buf()),
    })
}

/// Follow the symbolic links at the end of `target` to the path they end at (which may not
/// exist yet). `None` when a link lives under `/proc`: such a link names an open descriptor,
/// whose file must be written in place rather than replaced.
fn follow_links(target: &Path) -> Result<Option<PathBuf>> {
    let mut path = target.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let dir = parent_dir(&path);
                if std::fs::canonicalize(&dir).is_ok_and(|d| d.starts_with("/proc")) {
                    return Ok(None);
                }
                let link = std::fs::read_link(&path).map_err(|e| Error::io(&path, e))?;
                path = dir.join(link);
            }
            _ => return Ok(Some(path)),
        }
    }
    Err(refused(
        target,
        io::ErrorKind::InvalidInput,
        "has too many levels of symbolic links",
    ))
}

/// Check, before any work, that `target` can be written as an output file: not a
/// directory, a block device or a socket, and (for a new file) in a directory that exists.
/// Nothing is created.
pub fn check_target(target: impl AsRef<Path>) -> Result<()> {
    let target = target.as_ref();
    if classify(target)? == Target::Stdout && io::stdout().is_terminal() {
        return Err(stdout_is_terminal());
    }
    Ok(())
}

/// Whether `a` and `b` are one existing file or directory (their links followed, hard links
/// included): an output that is one of its command's inputs would replace what it is made
/// from.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    id(a).is_some_and(|a| Some(a) == id(b))
}

/// Refuse writing `target` when it is the file `input` it is made from ([`same_file`]);
/// `input` is described as `what` in the error (e.g. "the table").
pub fn check_apart(target: &Path, input: &Path, what: &str) -> Result<()> {
    if same_file(target, input) {
        return Err(Error::invalid(format!(
            "'{}' is {what} '{}' it is made from; write it elsewhere",
            target.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Check, before any work, that `dir` can be written as an output directory: an existing
/// directory (its links followed), or a new one whose parent exists, or with `parents`, whose
/// nearest existing ancestor is a directory (a directory made with its parents). Nothing is
/// created.
pub fn check_dir_target(dir: &Path, parents: bool) -> Result<()> {
    if dir.as_os_str().is_empty() {
        return Err(Error::invalid("an output directory cannot be empty"));
    }
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(refused(
            dir,
            io::ErrorKind::NotADirectory,
            "exists and is not a directory",
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            check_creatable(dir, parent_dir(dir), parents)
        }
        Err(e) => Err(Error::io(dir, e)),
    }
}

/// Whether `target`, which does not exist, can be created in the folder `up`: `up` must be a
/// directory, or with `parents`, its nearest existing ancestor must be one.
fn check_creatable(target: &Path, mut up: PathBuf, parents: bool) -> Result<()> {
    loop {
        match std::fs::metadata(&up) {
            Ok(m) if m.is_dir() => return Ok(()),
            Ok(_) => {
                return Err(refused(
                    target,
                    io::ErrorKind::NotADirectory,
                    "cannot be created: its parent is not a directory",
                ))
            }
            Err(e) if parents && e.kind() == io::ErrorKind::NotFound && parent_dir(&up) != up => {
                up = parent_dir(&up);
            }
            Err(_) => {
                return Err(refused(
                    target,
                    io::ErrorKind::NotFound,
                    "cannot be created: its directory does not exist",
                ))
            }
        }
    }
}

/// Make `done`, a finished file written elsewhere on the same file system (a table assembled
/// in its checkpoint folder), the output `target`: renamed onto it (the links of `target`
/// followed, its mode and owner kept, as [`AtomicFile::commit`] does), or where the rename
/// crosses file systems, copied through a temporary file and `done` removed. `target` must
/// be replaceable: a regular file or a new path.
pub fn publish(done: &Path, target: &Path) -> Result<()> {
    let Target::Replace(dest) = classify(target)? else {
        return Err(Error::invalid(format!(
            "{}: this output is written as a stream, so it must be a regular file",
            target.display()
        )));
    };
    {
        let _gate = gate()?;
        if let Ok(f) = File::open(done) {
            keep_mode_and_owner(&f, &dest);
        }
        match std::fs::rename(done, &dest) {
            Ok(()) => {
                lock(&DONE).finished(target);
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {}
            Err(e) => return Err(Error::io(target, e)),
        }
    }
    let mut out = AtomicFile::create(target)?;
    let mut from = File::open(done).map_err(|e| Error::io(done, e))?;
    io::copy(&mut from, &mut out).map_err(|e| Error::io(target, e))?;
    out.commit()?;
    std::fs::remove_file(done).map_err(|e| Error::io(done, e))
}

fn stdout_is_terminal() -> Error {
    Error::invalid(
        "standard output is a terminal: redirect it (-o - > FILE, or into a pipe) or name a file",
    )
}

/// Give the temporary file that replaces `dest` the owner (where allowed: as root, or the
/// group for a member) and then the mode of the file it replaces, so that `render -o` over a
/// 0600 file leaves a 0600 file. A new file keeps the default (the umask's).
fn keep_mode_and_owner(temp: &File, dest: &Path) {
    let Ok(old) = std::fs::metadata(dest) else {
        return;
    };
    if !old.is_file() {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::fchown(temp, Some(old.uid()), Some(old.gid()));
        let _ = std::os::unix::fs::fchown(temp, None, Some(old.gid()));
    }
    let _ = temp.set_permissions(old.permissions());
}

/// A file being written: under a temporary name beside its target and renamed into place on
/// [`AtomicFile::commit`], or straight into a stream (see the module's table).
pub struct AtomicFile {
    /// The path as given, for messages.
    target: PathBuf,
    /// The temporary file and where it is renamed to; `None` when written straight.
    replace: Option<(PathBuf, PathBuf)>,
    writer: Option<BufWriter<File>>,
    /// Whether the file is a piece of a checkpoint, not an output: not listed among the
    /// finished files an interrupt line names.
    piece: bool,
}

impl AtomicFile {
    /// Start writing `target` (see the module's table): refused targets are an error, and
    /// nothing is created then.
    pub fn create(target: impl AsRef<Path>) -> Result<AtomicFile> {
        let target = target.as_ref().to_path_buf();
        let (file, replace) = match classify(&target)? {
            Target::Stdout => {
                if io::stdout().is_terminal() {
                    return Err(stdout_is_terminal());
                }
                if STDOUT_IS_OUTPUT.swap(true, Ordering::SeqCst) {
                    return Err(Error::invalid(
                        "only one output can be written to standard output",
                    ));
                }
                let _ = io::stdout().flush();
                (stdout_file().map_err(|e| Error::io(&target, e))?, None)
            }
            Target::Straight(path) => {
                let file = OpenOptions::new()
                    .write(true)
                    .truncate(std::fs::metadata(&path).is_ok_and(|m| m.is_file()))
                    .open(&path)
                    .map_err(|e| Error::io(&target, e))?;
                (file, None)
            }
            Target::Replace(dest) => {
                sweep_before(&dest);
                let temp = temp_beside(&dest)?;
                let _gate = gate()?;
                lock(&LIVE).push((temp.clone(), target.clone()));
                match File::create_new(&temp) {
                    Ok(file) => {
                        // Held until the rename: a sweep elsewhere sees the run is alive
                        // ([`remove_if_abandoned`]). A file system without locks goes without.
                        let _ = file.try_lock();
                        keep_mode_and_owner(&file, &dest);
                        (file, Some((temp, dest)))
                    }
                    Err(e) => {
                        forget(&temp);
                        return Err(Error::io(&target, e));
                    }
                }
            }
        };
        if replace.is_none() {
            lock(&DONE).streams.push(target.clone());
        }
        Ok(AtomicFile {
            target,
            replace,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            piece: false,
        })
    }

    /// [`AtomicFile::create`] for a piece of a checkpoint (a finished block of a table solved
    /// in blocks): written and renamed the same way, but not an output of the command.
    pub fn create_piece(target: impl AsRef<Path>) -> Result<AtomicFile> {
        let mut f = AtomicFile::create(target)?;
        f.piece = true;
        Ok(f)
    }

    /// The path as given.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Overwrite the first bytes written with `bytes` (a header whose checksum is known only
    /// at the end). Only a file written under a temporary name can be rewritten: a stream is
    /// refused.
    pub fn rewrite_start(&mut self, bytes: &[u8]) -> Result<()> {
        let io = |e| Error::io(&self.target, e);
        if self.replace.is_none() {
            return Err(Error::invalid(format!(
                "{}: this output is written as a stream, so it must be a regular file",
                self.target.display()
            )));
        }
        let writer = self.writer.as_mut().expect("writer present until commit");
        writer.flush().map_err(io)?;
        std::os::unix::fs::FileExt::write_all_at(writer.get_ref(), bytes, 0).map_err(io)
    }

    /// Flush, sync and rename into place (or, written straight, flush). On any failure the
    /// temporary file is removed and the target is left as it was.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("writer present until commit");
        let result = self.finish(writer);
        if result.is_err() {
            self.discard();
        }
        result
    }

    /// Flush, sync and publish under the target name only if nothing has that name yet, so
    /// that of several writers exactly one wins: a hard link from the temporary name (which
    /// fails when the name exists); where the file system has no hard links, an exclusive
    /// create of the name and then the rename. `false` (the existing file left alone) when
    /// the name was taken. Written straight (a FIFO, a device), the output is published by
    /// being written: `true`.
    pub fn commit_exclusive(mut self) -> Result<bool> {
        let writer = self.writer.take().expect("writer present until commit");
        let result = self.finish_exclusive(writer);
        self.discard();
        result
    }

    fn finish(&self, writer: BufWriter<File>) -> Result<()> {
        // The file stays open (and locked) until the rename is done.
        let Some((_file, temp, dest)) = self.flushed(writer)? else {
            return Ok(());
        };
        let _gate = gate()?;
        std::fs::rename(temp, dest).map_err(|e| Error::io(&self.target, e))?;
        forget(temp);
        if !self.piece {
            lock(&DONE).finished(&self.target);
        }
        Ok(())
    }

    fn finish_exclusive(&self, writer: BufWriter<File>) -> Result<bool> {
        let Some((_file, temp, dest)) = self.flushed(writer)? else {
            return Ok(true);
        };
        let _gate = gate()?;
        let published = match std::fs::hard_link(temp, dest) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(_) => match File::options().write(true).create_new(true).open(dest) {
                Ok(_) => {
                    std::fs::rename(temp, dest).map_err(|e| Error::io(&self.target, e))?;
                    true
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                Err(e) => return Err(Error::io(&self.target, e)),
            },
        };
        if published {
            lock(&DONE).finished(&self.target);
        }
        Ok(published)
    }

    /// Flush (and, for a temporary file, sync) what was written; the temporary file (still
    /// open), its path and its destination, or `None` when written straight.
    fn flushed(&self, writer: BufWriter<File>) -> Result<Option<(File, &PathBuf, &PathBuf)>> {
        let file = writer
            .into_inner()
            .map_err(|e| Error::io(&self.target, e.into_error()))?;
        let Some((temp, dest)) = &self.replace else {
            let mut done = lock(&DONE);
            if let Some(k) = done.streams.iter().position(|s| s == &self.target) {
                done.streams.swap_remove(k);
            }
            return Ok(None);
        };
        file.sync_all().map_err(|e| Error::io(&self.target, e))?;
        Ok(Some((file, temp, dest)))
    }

    /// Remove the temporary file (written straight: nothing to remove).
    fn discard(&mut self) {
        self.writer = None;
        if let Some((temp, _)) = self.replace.take() {
            let _ = std::fs::remove_file(&temp);
            forget(&temp);
        }
    }
}

/// A new handle on standard output, so the writer can move to the encoder's thread.
#[cfg(unix)]
fn stdout_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdout().as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn stdout_file() -> io::Result<File> {
    use std::os::windows::io::AsHandle;
    Ok(File::from(io::stdout().as_handle().try_clone_to_owned()?))
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer
            .as_mut()
            .expect("writer present until commit")
            .write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer
            .as_mut()
            .expect("writer present until commit")
            .flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.is_some() {
            self.discard();
        }
    }
}

/// Remove a temporary file or directory.
fn remove_temp(t: &Path) {
    if t.is_dir() {
        let _ = std::fs::remove_dir_all(t);
    } else {
        let _ = std::fs::remove_file(t);
    }
}

/// The directory a path lives in (`.` for a bare name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The longest file name most file systems take (Linux's NAME_MAX), in bytes.
pub(crate) const NAME_MAX: usize = 255;

/// The bytes of NAME a temporary name `.NAME.PID.N.tmp` keeps, so that it fits in
/// [`NAME_MAX`] whatever the PID (a u32) and N (a u64).
const TEMP_NAME_KEPT: usize =
    NAME_MAX - ".".len() - ".4294967295".len() - ".18446744073709551615".len() - ".tmp".len();

/// NAME as a temporary name keeps it: whole, or its first [`TEMP_NAME_KEPT`] bytes (cut at a
/// character's boundary), so that a target with a long but legal name can still be written.
fn temp_stem(name: &str) -> &str {
    let mut end = name.len().min(TEMP_NAME_KEPT);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// A temporary name beside `target`: `.NAME.PID.N.tmp` in the same directory, NAME cut by
/// [`temp_stem`].
fn temp_beside(target: &Path) -> Result<PathBuf> {
    let name = target
        .file_name()
        .ok_or_else(|| {
            refused(
                target,
                io::ErrorKind::InvalidInput,
                "does not end in a file name",
            )
        })?
        .to_string_lossy()
        .into_owned();
    Ok(parent_dir(target).join(format!(
        ".{}.{}.{}.tmp",
        temp_stem(&name),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )))
}

/// A directory being filled under a temporary name beside `target`, renamed into place by
/// [`AtomicDir::commit`] (replacing an older directory of that name). Dropped uncommitted,
/// or interrupted, it is removed with everything in it. Files inside it are written with
/// [`write_inside`] and [`create_dir_inside`], so that an interrupt cannot race them.
pub struct AtomicDir {
    target: PathBuf,
    temp: PathBuf,
    live: bool,
}

impl AtomicDir {
    /// Start filling a temporary directory that becomes `target` (which, if it exists, must
    /// be a directory).
    pub fn create(target: impl AsRef<Path>) -> Result<AtomicDir> {
        let target = target.as_ref().to_path_buf();
        if target.exists() && !target.is_dir() {
            return Err(refused(
                &target,
                io::ErrorKind::NotADirectory,
                "exists and is not a directory",
            ));
        }
        sweep_before(&target);
        let temp = temp_beside(&target)?;
        let _gate = gate()?;
        lock(&LIVE).push((temp.clone(), target.clone()));
        if let Err(e) = std::fs::create_dir(&temp) {
            forget(&temp);
            return Err(Error::io(&target, e));
        }
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

    /// The directory it becomes.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Rename into place, replacing an older directory at the target.
    pub fn commit(mut self) -> Result<()> {
        let _gate = gate()?;
        if self.target.is_dir() {
            std::fs::remove_dir_all(&self.target).map_err(|e| Error::io(&self.target, e))?;
        }
        std::fs::rename(&self.temp, &self.target).map_err(|e| Error::io(&self.target, e))?;
        forget(&self.temp);
        self.live = false;
        lock(&DONE).finished(&self.target);
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

/// Run `f` under the gate that [`stop_outputs`] closes: a checkpoint or lock file it makes
/// either exists before an interrupt says what was kept, or is never made.
pub fn gated<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let _gate = gate()?;
    f()
}

/// Note that `path`, an empty lock file this process holds, goes if the outputs stop (call it
/// inside [`gated`], where it was opened) until [`lock_file_released`].
pub fn remove_on_stop(path: &Path) {
    lock(&LIVE).push((path.to_path_buf(), path.to_path_buf()));
}

/// The lock file `path` of [`remove_on_stop`] is removed (or handed on) by its owner.
pub fn lock_file_released(path: &Path) {
    forget(path);
}

/// Write a whole file inside an [`AtomicDir`]'s temporary directory.
pub fn write_inside(path: &Path, bytes: &[u8]) -> Result<()> {
    gated(|| std::fs::write(path, bytes).map_err(|e| Error::io(as_target(path), e)))
}

/// Create a directory (and its parents) under the gate ([`gated`]): inside an
/// [`AtomicDir`]'s temporary directory (an error names it as it will be), or a checkpoint
/// folder.
pub fn create_dir_inside(path: &Path) -> Result<()> {
    gated(|| std::fs::create_dir_all(path).map_err(|e| Error::io(as_target(path), e)))
}

/// A path inside a temporary directory, named as it will be once the directory is in place.
fn as_target(path: &Path) -> PathBuf {
    lock(&LIVE)
        .iter()
        .find_map(|(temp, target)| Some(target.join(path.strip_prefix(temp).ok()?)))
        .unwrap_or_else(|| path.to_path_buf())
}

fn forget(temp: &Path) {
    lock(&LIVE).retain(|(t, _)| t != temp);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("chompute-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn uncommitted_file_leaves_nothing() {
        let dir = scratch("uncommitted");
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

    #[test]
    fn a_target_with_the_longest_name_is_written_and_its_stale_temporaries_swept() {
        let dir = scratch("long-name");
        // 255 bytes, with two-byte characters across the cut at TEMP_NAME_KEPT.
        let name = format!("x{}{}", "é".repeat(110), "x".repeat(NAME_MAX - 221));
        assert_eq!(name.len(), NAME_MAX);
        let target = dir.join(&name);
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"whole");
        // A run that died while writing it (no process has this PID) left its temporary.
        let stem = temp_stem(&name);
        assert_eq!(
            stem.len(),
            TEMP_NAME_KEPT - 1,
            "cut before the character across the limit"
        );
        assert!(name.starts_with(stem));
        let stale = dir.join(format!(".{stem}.2147483646.18446744073709551615.tmp"));
        assert_eq!(stale.file_name().unwrap().len(), stem.len() + 37);
        std::fs::write(&stale, b"partial").unwrap();
        assert_eq!(remove_stale_temps(&target), 1);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_new_output_sweeps_what_dead_runs_left_for_its_name_and_nothing_else() {
        let dir = scratch("sweep-before");
        // No process has this PID.
        let dead = 2147483646;
        // Left by runs killed outright: a picture's temporary file, a pyramid's temporary
        // folder, and a link of the temporaries' form (removed as a link, not followed).
        let stale_file = dir.join(format!(".x.png.{dead}.0.tmp"));
        std::fs::write(&stale_file, b"partial").unwrap();
        let stale_dir = dir.join(format!(".d.{dead}.7.tmp"));
        std::fs::create_dir_all(stale_dir.join("d_files/0")).unwrap();
        std::fs::write(stale_dir.join("d_files/0/0_0.png"), b"tile").unwrap();
        let kept_dir = dir.join("keep");
        std::fs::create_dir(&kept_dir).unwrap();
        std::fs::write(kept_dir.join("k"), b"kept").unwrap();
        std::os::unix::fs::symlink(&kept_dir, dir.join(format!(".d.{dead}.8.tmp"))).unwrap();
        // Left alone: another name's, a running process's, one whose writer still holds its
        // lock (a run on another machine of a shared file system), names of other forms.
        let others = [
            format!(".y.png.{dead}.0.tmp"),
            format!(".x.png.{}.5.tmp", std::os::unix::process::parent_id()),
            format!(".x.png.{}.1.tmp", dead - 1),
            ".x.png.tmp".to_string(),
            format!(".x.png.{dead}.N.tmp"),
            format!("x.png.{dead}.0.tmp"),
        ];
        for o in &others {
            std::fs::write(dir.join(o), b"other").unwrap();
        }
        let held = File::open(dir.join(&others[2])).unwrap();
        held.lock().unwrap();
        let mut f = AtomicFile::create(dir.join("x.png")).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit().unwrap();
        let d = AtomicDir::create(dir.join("d")).unwrap();
        write_inside(&d.path().join("d.dzi"), b"pyramid").unwrap();
        d.commit().unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected: Vec<String> = others.to_vec();
        expected.extend(["x.png", "d", "keep"].map(String::from));
        expected.sort();
        assert_eq!(left, expected);
        assert_eq!(std::fs::read(kept_dir.join("k")).unwrap(), b"kept");
        assert_eq!(std::fs::read(dir.join("x.png")).unwrap(), b"whole");
        drop(held);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directorys_listing_is_kept_a_while_then_listed_again() {
        let dir = scratch("sweep-again");
        let dead = 2147483646;
        let write = |name: &str| {
            let mut f = AtomicFile::create(dir.join(name)).unwrap();
            f.write_all(b"whole").unwrap();
            f.commit().unwrap();
        };
        // The first output lists the folder; a run killed after that leaves a temporary.
        write("a.png");
        let stale = dir.join(format!(".b.png.{dead}.0.tmp"));
        let set_took = |took: Duration| {
            let mut listings = lock(&TEMPS_BY_DIR);
            listings.get_mut(&dir).unwrap().until = Instant::now() + took * LISTING_AGE;
        };
        // A listing that took an hour is kept: the temporary, planted after it, is not seen.
        std::fs::write(&stale, b"partial").unwrap();
        set_took(Duration::from_secs(3600));
        write("b.png");
        assert!(stale.exists());
        // Once it has aged past what it took, the folder is listed again and the temporary
        // goes before the next output of its name.
        set_took(Duration::ZERO);
        write("b.png");
        assert!(!stale.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_target_is_refused_before_anything_is_written() {
        let dir = scratch("dir-target");
        let target = dir.join("out");
        std::fs::create_dir(&target).unwrap();
        let e = check_target(&target).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        assert!(AtomicFile::create(&target).is_err());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(std::fs::read_dir(&target).unwrap().next().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn targets_are_classified() {
        let dir = scratch("classify");
        let file = dir.join("f.png");
        std::fs::write(&file, b"old").unwrap();
        assert_eq!(classify(&file).unwrap(), Target::Replace(file.clone()));
        assert_eq!(classify(Path::new("-")).unwrap(), Target::Stdout);
        assert!(classify(&dir.join("missing/f.png")).is_err());
        assert!(classify(&file.join("f.png")).is_err());
        #[cfg(unix)]
        {
            let link = dir.join("link.png");
            std::os::unix::fs::symlink("f.png", &link).unwrap();
            assert_eq!(classify(&link).unwrap(), Target::Replace(dir.join("f.png")));
            let dangling = dir.join("dangling.png");
            std::os::unix::fs::symlink("new.png", &dangling).unwrap();
            assert_eq!(
                classify(&dangling).unwrap(),
                Target::Replace(dir.join("new.png"))
            );
            let null = Path::new("/dev/null");
            assert_eq!(classify(null).unwrap(), Target::Straight(null.into()));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_stays_a_link_and_its_file_is_replaced() {
        let dir = scratch("symlink");
        std::fs::write(dir.join("real.bin"), b"old").unwrap();
        let link = dir.join("link.bin");
        std::os::unix::fs::symlink("real.bin", &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(dir.join("real.bin")).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_exclusive_commit_publishes_only_a_new_name() {
        let dir = scratch("exclusive");
        let target = dir.join("tiles.json");
        let mut first = AtomicFile::create(&target).unwrap();
        let mut second = AtomicFile::create(&target).unwrap();
        first.write_all(b"first").unwrap();
        second.write_all(b"second").unwrap();
        assert!(first.commit_exclusive().unwrap());
        assert!(!second.commit_exclusive().unwrap());
        assert_eq!(std::fs::read(&target).unwrap(), b"first");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_interrupt_message_says_what_was_kept() {
        let mut d = Done::new();
        assert_eq!(d.summary(), "no output file was written");
        d.finished(Path::new("FR/gen-0001.png"));
        assert!(d
            .summary()
            .contains("kept the finished file 'FR/gen-0001.png'"));
        d.finished(Path::new("FR/gen-0002.png"));
        assert!(d.summary().contains("kept 2 finished files in 'FR'"));
        d.streams.push(PathBuf::from("-"));
        assert!(d.summary().contains("straight to '-' is incomplete"));
        let kept = d.summary_with(&[PathBuf::from("t.tbl.partial")]);
        assert!(
            kept.contains("kept the checkpoint 't.tbl.partial': the same command resumes"),
            "{kept}"
        );
        let both = d.summary_with(&[PathBuf::from("t.tbl.partial"), PathBuf::from("t.tbl.marks")]);
        assert!(
            both.contains("kept the checkpoints 't.tbl.partial' and 't.tbl.marks': the same"),
            "{both}"
        );
    }
}
