//! Command implementations, one file per command family. `main` calls [`run`].

mod bench;
mod ca;
mod cb;
mod chomp;
mod count;
mod gp;
mod grid;
mod info;
mod nimpass;
mod octahedron;
mod render;
mod theorems;

use crate::cli::{Cli, Command};
use chompute::claim::Claim;
use chompute::gpu::Engine;

/// Run one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let backend = cli.backend.into();
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Count(a) => count::run(backend, &a),
        Command::Grid(a) => grid::run(engine(backend)?, &a),
        Command::Bench(a) => bench::run(backend, &a),
        Command::Render(a) => render::run(backend, &a),
        Command::Assemble(a) => render::assemble(&a),
        Command::Chomp(a) => chomp::run(&a),
        Command::Gp(a) => gp::run(&a),
        Command::Cb(a) => cb::run(&a),
        Command::Nimpass(a) => nimpass::run(backend, &a),
        Command::NimpassGrid(a) => nimpass::run_grid(backend, &a),
        Command::Ca(a) => ca::run(backend, &a),
        Command::Octahedron(a) => octahedron::run(&a),
        Command::Theorems(a) => theorems::run(&a),
    }
}

/// A library error from GPU work in the CLI's words. A missing adapter says how to get one or
/// to use `--backend cpu`; a job too large for the GPU (whose message ends with the way to
/// shrink it) and bad input are usage errors (exit status 2); driver errors stay as they are.
pub(crate) fn on_gpu(e: chompute::Error) -> anyhow::Error {
    use chompute::Error;
    match e {
        Error::NoAdapter(why) => anyhow::anyhow!("{why} or use --backend cpu"),
        Error::TooLarge { .. } => anyhow::anyhow!("{e} or --backend cpu"),
        Error::BadArgument { .. } | Error::Invalid(_) => anyhow::anyhow!("{e}"),
        other => other.into(),
    }
}

/// The engine for `--backend`, or why there is none, in the CLI's words.
pub(crate) fn engine(backend: chompute::gpu::BackendChoice) -> anyhow::Result<Engine> {
    Engine::select(backend).map_err(on_gpu)
}

/// A write to a closed pipe (`chompute grid 999 | head`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `--window ROW,COL,HEIGHT,WIDTH` → a window of C(m,n) (checked: inside the bar, no sum
/// past 2^64-1), for `count` and `render`.
pub(crate) fn parse_window(s: &str, m: u64, n: u64) -> anyhow::Result<chompute::chocolate::Window> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let nums: Option<Vec<u64>> = parts
        .iter()
        .map(|p| crate::cli::parse_size(p).ok())
        .collect();
    match nums.as_deref() {
        Some(&[r, c, h, w]) if parts.len() == 4 => {
            Ok(chompute::chocolate::Window::new(m, n, r, c, h, w)?)
        }
        _ => Err(anyhow::anyhow!(
            "--window wants ROW,COL,HEIGHT,WIDTH, four positive integers (got '{s}')"
        )),
    }
}

/// Print claims on stdout as the text table, or as CSV.
pub fn print_claims(claims: &[Claim], csv: bool) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if csv {
        chompute::claim::write_csv(&mut out, claims)?;
    } else {
        chompute::claim::write_text(&mut out, claims)?;
    }
    out.flush()?;
    Ok(())
}

/// Exit status 1 (a check failure naming them) when a theorem claim failed.
pub fn verdict(claims: &[Claim]) -> anyhow::Result<()> {
    Ok(chompute::claim::verdict(claims)?)
}

/// Print a serialisable value as one line of JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// The exit status for an error: 1 when a check found a disagreement, 130 when the work was
/// interrupted, 2 for everything else (bad input, I/O, no GPU).
pub fn exit_code(e: &anyhow::Error) -> u8 {
    match e.chain().find_map(|c| c.downcast_ref::<chompute::Error>()) {
        Some(chompute::Error::CheckFailed(_)) => 1,
        Some(chompute::Error::Interrupted) => 130,
        _ => 2,
    }
}

/// The library's names for the arguments that are flags here.
const FLAG_FOR: [(&str, &str); 8] = [
    ("the cell size", "--cell"),
    ("the number of rows", "--rows"),
    ("the first row of a plane", "--first-row"),
    ("the pixels per position", "--scale"),
    ("the fit size", "--fit"),
    ("the tile size", "--tile-size"),
    ("the pixels per cell", "--px"),
    ("the section height M", "--m"),
];

/// The error and its context on one line, in the command line's words: a bad argument that
/// is a flag here is called by the flag's name.
pub fn one_line(e: &anyhow::Error) -> String {
    if let Some(chompute::Error::BadArgument {
        what,
        value,
        allowed,
    }) = e.downcast_ref::<chompute::Error>()
    {
        if let Some((_, flag)) = FLAG_FOR.iter().find(|(term, _)| term == what) {
            return format!("{flag} must be {allowed} (got {value})");
        }
    }
    format!("{e:#}").replace('\n', " ")
}
