//! Standard output, the one way every command prints (but for `serve`'s URL line, written
//! straight so that a closed pipe does not stop the server), and standard error's lines.
//!
//! Commands print with [`outln!`](crate::outln), write tables through [`stdout`] and JSON
//! through [`print_json`]; none uses `println!`, which panics when the reader has gone. Here a
//! closed pipe (`chompute count 30001 | head -0`) ends the process quietly with status 0, as
//! `cat` and ripgrep do, after removing any temporary output file; any other failure to write
//! (a full disk behind `> FILE`) ends it with one line on stderr and status 2.
//!
//! Lines for standard error go through [`errln!`](crate::errln), never `eprintln!`: a standard
//! error that cannot be written loses the line, never the run or its exit status.
//!
//! While standard output carries an output file (`render -o -`), everything a command would
//! print there — its report, its JSON — goes to stderr instead, so the stream stays a PNG.
//!
//! A command's result is a [`Report`]: [`print_report`] prints it in the [`Format`] the
//! command line asked for, JSON from its `Serialize` and the others by its own methods.
//!
//! Commands without a GPU kernel are marked at dispatch ([`mark_cpu_only`]); their JSON
//! object then opens with `"backend":"cpu"`.
//!
//! Tests: tests/faults/pipes.rs (a closed stdout for every command, a closed stderr),
//! tests/faults/targets.rs (`-o -`).

use crate::cli::Format;
use chompute::output;
use serde::Serialize;
use std::io::{self, Write};
use std::sync::OnceLock;

/// Print one line on standard output (see the module's notes on closed pipes).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cmd::out::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cmd::out::print_line(format_args!($($arg)*))
    };
}

/// Print one line on standard error. A standard error that cannot be written (its reader
/// gone, a full disk) changes nothing: the exit status still says how the run ended. So a
/// failed write neither panics, as `eprintln!` would, nor stops the work.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cmd::out::error_line(format_args!($($arg)*))
    };
}

/// The body of [`errln!`].
#[doc(hidden)]
pub fn error_line(args: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{args}");
}

/// Where a command's printed output goes: stdout, or stderr while stdout carries a file.
fn sink() -> Box<dyn Write> {
    if output::stdout_is_output() {
        Box::new(io::stderr().lock())
    } else {
        Box::new(io::stdout().lock())
    }
}

/// The end of a command whose output cannot be written.
fn failed(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        exit_now(0);
    }
    let _ = writeln!(
        io::stderr(),
        "chompute: cannot write to standard output: {e}"
    );
    exit_now(2)
}

/// End the process now with `code`, removing every temporary output first (a closed standard
/// output ends a command this way). Waits for file-system changes in flight.
pub fn exit_now(code: i32) -> ! {
    output::stop_outputs();
    std::process::exit(code)
}

/// The body of [`outln!`].
#[doc(hidden)]
pub fn print_line(args: std::fmt::Arguments<'_>) {
    let mut out = sink();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        failed(e);
    }
}

/// Buffered standard output for long listings. Its writes never fail: a closed pipe or a
/// write error ends the process as described above. Dropping it flushes it.
pub struct Stdout {
    inner: Option<io::BufWriter<Box<dyn Write>>>,
}

/// Standard output, buffered.
pub fn stdout() -> Stdout {
    Stdout {
        inner: Some(io::BufWriter::with_capacity(1 << 16, sink())),
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let inner = self.inner.as_mut().expect("present until dropped");
        match inner.write(buf) {
            Ok(n) => Ok(n),
            // Retried by write_all.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => failed(e),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("present until dropped");
        match inner.flush() {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => failed(e),
        }
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        if let Some(mut inner) = self.inner.take() {
            if let Err(e) = inner.flush() {
                // A panic is already on its way out: do not end the process under it.
                if !std::thread::panicking() {
                    failed(e);
                }
            }
            // The buffer is empty now; forgetting the writer skips its second flush.
            let _ = inner.into_parts();
        }
    }
}

static JSON_BACKEND: OnceLock<&'static str> = OnceLock::new();

/// Mark this run as one on the CPU whatever `--backend` says (a command without a GPU
/// kernel): its JSON says `"backend":"cpu"`.
pub fn mark_cpu_only() {
    let _ = JSON_BACKEND.set("cpu");
}

#[derive(Serialize)]
struct WithBackend<'a, T: Serialize> {
    backend: &'static str,
    #[serde(flatten)]
    report: &'a T,
}

/// Print a serialisable value as one line of JSON on standard output.
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = stdout();
    match JSON_BACKEND.get() {
        Some(&backend) => serde_json::to_writer(
            &mut out,
            &WithBackend {
                backend,
                report: value,
            },
        )?,
        None => serde_json::to_writer(&mut out, value)?,
    }
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A command's result, printable in each format the command offers. JSON is its `Serialize`
/// (one object, through [`print_json`]); text, CSV and b-file are written here.
pub trait Report: Serialize {
    /// The report for a reader.
    fn text(&self, out: &mut Stdout) -> io::Result<()>;

    /// CSV with a header row, for a command that offers `--csv`.
    fn csv(&self, out: &mut Stdout) -> io::Result<()> {
        let _ = out;
        Err(io::Error::other("this command prints no CSV"))
    }

    /// An OEIS b-file (`n a(n)` per line), for a command that offers `--bfile`.
    fn bfile(&self, out: &mut Stdout) -> io::Result<()> {
        let _ = out;
        Err(io::Error::other("this command prints no b-file"))
    }
}

/// Print `report` on standard output in `format`.
pub fn print_report<R: Report>(report: &R, format: Format) -> anyhow::Result<()> {
    let mut out = stdout();
    match format {
        Format::Json => return print_json(report),
        Format::Text => report.text(&mut out)?,
        Format::Csv => report.csv(&mut out)?,
        Format::Bfile => report.bfile(&mut out)?,
    }
    out.flush()?;
    Ok(())
}
