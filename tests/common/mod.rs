//! Shared test helpers: the GPU (or a clear skip), and running the built binary.
#![allow(dead_code)]

pub mod http;

use chompute::gpu::GpuContext;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Once};

static XDG: Once = Once::new();

/// Give Mesa a private 0700 XDG_RUNTIME_DIR so it does not warn on stderr.
pub fn quiet_mesa() {
    XDG.call_once(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            // One per user, reused by every run, not one per process left behind.
            let uid = std::fs::metadata("/proc/self").map_or(0, |m| {
                use std::os::unix::fs::MetadataExt;
                m.uid()
            });
            let dir = std::env::temp_dir().join(format!("chompute-xdg-{uid}"));
            let _ = std::fs::create_dir_all(&dir);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
            }
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    });
}

/// One test body for every backend, as cubecl's `testgen_*!` and ripgrep's `rgtest!`:
///
/// ```ignore
/// backend_tests! {
///     fn p_rows_equal_the_p_test(engine) { ... }
/// }
/// ```
///
/// defines the body as a function of a `chompute::gpu::Engine` and the tests `cpu::NAME` and
/// `gpu::NAME`. The GPU test runs on any adapter, software ones included; without one it
/// prints `SKIPPED gpu::NAME: why` and passes, unless CHOMPUTE_REQUIRE_GPU=1, where it fails.
#[macro_export]
macro_rules! backend_tests {
    ($($(#[$meta:meta])* fn $name:ident($engine:ident) $body:block)*) => {
        $($(#[$meta])* fn $name($engine: chompute::gpu::Engine) $body)*

        mod cpu {
            $(#[test]
            fn $name() {
                super::$name(chompute::gpu::Engine::Cpu)
            })*
        }

        mod gpu {
            $(#[test]
            fn $name() {
                let test = concat!("gpu::", stringify!($name));
                if let Some(ctx) = $crate::common::gpu_or_skip(test) {
                    super::$name(chompute::gpu::Engine::Gpu(ctx))
                }
            })*
        }
    };
}

/// The GPU context, software adapters included. Without one: panic when
/// CHOMPUTE_REQUIRE_GPU=1 (CI), else print why the test skipped and return None.
pub fn gpu_or_skip(test: &str) -> Option<Arc<GpuContext>> {
    quiet_mesa();
    match GpuContext::shared() {
        Ok(ctx) => Some(ctx),
        Err(why) => {
            if std::env::var("CHOMPUTE_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: CHOMPUTE_REQUIRE_GPU=1 but there is no GPU: {why}");
            }
            // Straight to the stderr handle, past the harness's capture, so the skip shows.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
            None
        }
    }
}

/// The binary under test: `CHOMPUTE_BIN` when set (another build, or a copy of this one on a
/// machine where cargo's path does not exist, such as a GPU machine), else the one cargo built.
pub fn bin() -> std::path::PathBuf {
    std::env::var_os("CHOMPUTE_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_chompute").into())
}

/// Run the built `chompute` binary with `args`.
pub fn chompute(args: &[&str]) -> Output {
    quiet_mesa();
    Command::new(bin())
        .args(args)
        .output()
        .expect("run chompute")
}

/// Run the built `chompute` binary with `args` and the environment variables `env` set.
pub fn chompute_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    quiet_mesa();
    let mut c = Command::new(bin());
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run chompute")
}

/// For each step in `stops`: `stop(path, step)` runs a table into `dir/parts-STEP` and stops it
/// once that step is recorded; `resume(path)` runs it again to the end and returns the steps it
/// said it resumed after. Checks that it resumed after exactly `step + 1` steps and that the
/// file equals `whole`, byte for byte.
pub fn resumes_to_the_same_bytes(
    dir: &Path,
    whole: &Path,
    stops: &[u64],
    stop: impl Fn(&Path, u64),
    resume: impl Fn(&Path) -> Option<u64>,
) {
    for &step in stops {
        let parts = dir.join(format!("parts-{step}"));
        stop(&parts, step);
        assert_eq!(resume(&parts), Some(step + 1), "stopped after step {step}");
        assert_eq!(
            std::fs::read(whole).unwrap(),
            std::fs::read(&parts).unwrap(),
            "stopped after step {step}"
        );
    }
}

/// Start `chompute args`, wait (two minutes at most) until `ready()`, interrupt it with
/// SIGINT and return what it did (its stdout discarded).
pub fn interrupted_when(args: &[&str], ready: impl Fn() -> bool) -> Output {
    use std::time::{Duration, Instant};
    quiet_mesa();
    let child = Command::new(bin())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run chompute");
    let t = Instant::now();
    while !ready() {
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "chompute {args:?} was never ready to interrupt"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: an interrupt to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait_with_output().expect("wait for chompute")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh empty directory for one test's files, removed when the returned guard drops (also
/// when the test fails), so test runs leave nothing in the temporary directory.
pub fn scratch_dir(test: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("chompute-test-{test}-"))
        .tempdir()
        .expect("create scratch dir");
    Scratch(dir)
}

/// A test's scratch directory (see [`scratch_dir`]): a path while it lives, gone after.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A bad-input run: exit status 2, exactly one line on stderr, no panic or backtrace.
pub fn assert_usage_error(o: &Output, expect_in_message: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "exit status for bad input; stderr: {err}"
    );
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line on stderr, got: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "no panic: {err}"
    );
    assert!(
        err.contains(expect_in_message),
        "stderr {err:?} should mention {expect_in_message:?}"
    );
}

/// Decode a 1-bit PNG into rows of booleans (bit 1 = a P-cell in chompute's pictures).
pub fn read_bits_png(path: &std::path::Path) -> Vec<Vec<bool>> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    assert_eq!(reader.info().bit_depth, png::BitDepth::One);
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[y * info.line_size + x / 8] >> (7 - x % 8) & 1 == 1)
                .collect()
        })
        .collect()
}

/// A successful run's stdout as one JSON object (the exit status and stderr are shown if not).
pub fn json_of(o: &Output) -> serde_json::Value {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        stderr(o)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON object on stdout")
}

/// The pixel values of an 8-bit (gray or indexed) or 1-bit PNG, rows top first.
pub fn png_values(path: &std::path::Path) -> Vec<Vec<u8>> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut reader = dec.read_info().expect("a PNG");
    let (width, bits) = (
        reader.info().width as usize,
        reader.info().bit_depth as usize,
    );
    let mut rows = Vec::new();
    while let Some(row) = reader.next_row().expect("decodable rows") {
        let data = row.data();
        rows.push(
            (0..width)
                .map(|x| match bits {
                    1 => data[x / 8] >> (7 - x % 8) & 1,
                    8 => data[x],
                    b => panic!("unexpected bit depth {b}"),
                })
                .collect(),
        );
    }
    rows
}
