//! Running the built binary under faults: time limits, signals, stray temporary files, small
//! file systems, and a judge of what a run may print.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The binary under test: `CHOMPUTE_BIN` when set (to run this suite against another build),
/// else the one cargo built.
pub fn bin() -> PathBuf {
    std::env::var_os("CHOMPUTE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_chompute")))
}

/// A command for the binary with a clean environment for chompute's own variables.
pub fn command(args: &[&str]) -> Command {
    super::common::quiet_mesa();
    let mut c = Command::new(bin());
    c.args(args)
        .env_remove("CHOMPUTE_BACKEND")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null());
    c
}

/// What one run did.
#[derive(Debug)]
pub struct Run {
    pub what: String,
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// The run passed its time limit and was sent SIGTERM.
    pub timed_out: bool,
}

impl Run {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// The signal that ended the process, if one did.
    pub fn signal(&self) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        self.status.signal()
    }

    pub fn stderr_lines(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect()
    }

    /// No panic, abort or allocation failure, whatever the status.
    pub fn assert_no_panic(&self) {
        for bad in [
            "panicked",
            "RUST_BACKTRACE",
            "stack backtrace",
            "memory allocation of",
            "Broken pipe",
        ] {
            assert!(
                !self.stderr.contains(bad),
                "{}: stderr mentions {bad:?}: {}",
                self.what,
                self.stderr
            );
        }
        assert!(
            self.signal().is_none() || self.timed_out,
            "{}: killed by signal {:?}; stderr: {}",
            self.what,
            self.signal(),
            self.stderr
        );
    }

    /// An error: exit status 2 and exactly one line on stderr mentioning `expect`.
    pub fn assert_error(&self, expect: &str) {
        self.assert_no_panic();
        assert_eq!(
            self.code(),
            Some(2),
            "{}: exit status of an error; stderr: {}",
            self.what,
            self.stderr
        );
        let lines = self.stderr_lines();
        assert_eq!(
            lines.len(),
            1,
            "{}: one line on stderr: {:?}",
            self.what,
            lines
        );
        assert!(
            lines[0].starts_with("chompute: ") && lines[0].contains(expect),
            "{}: stderr {:?} should mention {expect:?}",
            self.what,
            lines[0]
        );
    }

    pub fn assert_success(&self) {
        self.assert_no_panic();
        assert_eq!(
            self.code(),
            Some(0),
            "{}: should succeed; stderr: {}",
            self.what,
            self.stderr
        );
    }
}

/// A started run whose standard streams go to files (so a chatty run never blocks on a
/// full pipe).
pub struct Started {
    pub what: String,
    pub child: Child,
    /// The standard streams, in unnamed temporary files (nothing is left behind).
    out: File,
    err: File,
}

/// Start `cmd` with stdout and stderr going to files.
pub fn start(mut cmd: Command) -> Started {
    let what = describe(&cmd);
    let (out, err) = (tempfile::tempfile().unwrap(), tempfile::tempfile().unwrap());
    cmd.stdout(out.try_clone().unwrap())
        .stderr(err.try_clone().unwrap());
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    Started {
        what,
        child,
        out,
        err,
    }
}

impl Started {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait up to `limit`; past it, SIGTERM (and SIGKILL if that does not end it in 10 s).
    pub fn wait(mut self, limit: Duration) -> Run {
        let deadline = Instant::now() + limit;
        let mut timed_out = false;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            let now = Instant::now();
            if !timed_out && now > deadline {
                timed_out = true;
                signal(self.child.id(), "TERM");
            } else if timed_out && now > deadline + Duration::from_secs(10) {
                let _ = self.child.kill();
                break self.child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let run = Run {
            what: self.what.clone(),
            status,
            stdout: read_back(&mut self.out),
            stderr: String::from_utf8_lossy(&read_back(&mut self.err)).into_owned(),
            timed_out,
        };
        run
    }
}

/// All a run wrote to one of its streams.
fn read_back(f: &mut File) -> Vec<u8> {
    let mut bytes = Vec::new();
    f.seek(SeekFrom::Start(0)).unwrap();
    f.read_to_end(&mut bytes).unwrap();
    bytes
}

/// Run to the end (at most `limit`).
pub fn run_for(cmd: Command, limit: Duration) -> Run {
    start(cmd).wait(limit)
}

/// Run `args` to the end (at most a minute).
pub fn run(args: &[&str]) -> Run {
    run_for(command(args), Duration::from_secs(60))
}

/// Send a signal ("TERM", "INT") to a process.
pub fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

fn describe(cmd: &Command) -> String {
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!("chompute {}", args.join(" "))
}

/// Every path under `dir` (files and directories), sorted.
pub fn all_paths(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Regular files under `dir`.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    all_paths(dir)
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
        .collect()
}

/// chompute's temporary files and directories (`.NAME.PID.N.tmp`) under `dir`.
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    all_paths(dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp"))
        })
        .collect()
}

pub fn assert_no_temporaries(dir: &Path, what: &str) {
    let t = temporaries(dir);
    assert!(t.is_empty(), "{what}: left temporary files {t:?}");
}

/// A fresh empty directory.
pub fn scratch(name: &str) -> super::common::Scratch {
    super::common::scratch_dir(&format!("faults-{name}"))
}

/// A tile directory `dir/T` of C(64) in four 32-pixel tiles, for the commands that read one.
pub fn small_tiles(dir: &Path) -> PathBuf {
    let t = dir.join("T");
    run(&[
        "--backend",
        "cpu",
        "render",
        "64",
        "--tiles",
        s(&t),
        "--tile-size",
        "32",
    ])
    .assert_success();
    t
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Check that a finished output file is whole: a PNG decodes to its last row, a JSON file
/// parses, an STL has as many triangles as its header says, a PLY as many bytes as its
/// header implies, a Deep Zoom descriptor is closed.
pub fn assert_complete(path: &Path, what: &str) {
    let name = path.to_string_lossy();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{what}: read {name}: {e}"));
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "png" => {
            let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes))
                .read_info()
                .unwrap_or_else(|e| panic!("{what}: {name} is not a PNG: {e}"));
            let mut buf = vec![0; reader.output_buffer_size().unwrap()];
            reader
                .next_frame(&mut buf)
                .unwrap_or_else(|e| panic!("{what}: {name} does not decode: {e}"));
            reader
                .finish()
                .unwrap_or_else(|e| panic!("{what}: {name} has no end: {e}"));
        }
        "json" => {
            serde_json::from_slice::<serde_json::Value>(&bytes)
                .unwrap_or_else(|e| panic!("{what}: {name} is not JSON: {e}"));
        }
        "stl" => {
            assert!(bytes.len() >= 84, "{what}: {name} is shorter than a header");
            let count = u32::from_le_bytes(bytes[80..84].try_into().unwrap()) as usize;
            assert_eq!(bytes.len(), 84 + 50 * count, "{what}: {name} is cut short");
        }
        "ply" => {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(400)]).into_owned();
            let number = |key: &str| -> usize {
                text.split(key)
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let (v, f) = (number("element vertex"), number("element face"));
            let header = text.find("end_header\n").unwrap() + "end_header\n".len();
            assert_eq!(
                bytes.len(),
                header + 12 * v + 13 * f,
                "{what}: {name} is cut short"
            );
        }
        "dzi" => {
            assert!(
                String::from_utf8_lossy(&bytes).contains("</Image>"),
                "{what}: {name} is cut short"
            );
        }
        _ => {}
    }
}

/// A small random generator for the moments of interrupts (xorshift64*); the seed is shown
/// in every failure message.
pub struct Rng(pub u64);

impl Rng {
    pub fn from_clock() -> Rng {
        let seed = std::env::var("CHOMPUTE_FAULTS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        Rng(seed)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// A tmpfs mounted for one test, unmounted when dropped.
pub struct Mount(pub PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Mount a tmpfs with `options` (e.g. `size=2m`) at a new directory `dir`, or say why not.
pub fn tmpfs(dir: &Path, options: &str) -> Result<Mount, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let o = Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs", s(dir)])
        .output()
        .map_err(|e| format!("cannot run mount: {e}"))?;
    if o.status.success() {
        Ok(Mount(dir.to_path_buf()))
    } else {
        Err(format!(
            "mount -t tmpfs failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// Say on the test's stderr (past the harness's capture) that a test did not run, and why.
pub fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}
