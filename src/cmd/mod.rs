//! Command implementations, one file per command family. `main` calls [`run`].

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
use crate::gpu::Engine;

/// Run one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let backend = cli.backend;
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Count(a) => count::run(backend, &a),
        Command::Grid(a) => grid::run(Engine::select(backend)?, &a),
        Command::Bench(a) => crate::bench::run(backend, &a),
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

/// A write to a closed pipe (`chompute grid 999 | head`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `--window ROW,COL,HEIGHT,WIDTH` → a window of C(m,n) (checked: inside the bar, no sum
/// past 2^64-1).
pub(crate) fn parse_window(s: &str, m: u64, n: u64) -> anyhow::Result<crate::chocolate::Window> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let nums: Option<Vec<u64>> = parts
        .iter()
        .map(|p| crate::cli::parse_size(p).ok())
        .collect();
    match nums.as_deref() {
        Some(&[r, c, h, w]) if parts.len() == 4 => crate::chocolate::Window::new(m, n, r, c, h, w),
        _ => Err(crate::usage!(
            "--window wants ROW,COL,HEIGHT,WIDTH, four positive integers (got '{s}')"
        )),
    }
}

/// Print a serialisable value as one line of JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}
