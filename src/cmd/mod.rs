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
    let backend = cli.backend.into();
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Count(a) => count::run(backend, &a),
        Command::Grid(a) => grid::run(engine(backend)?, &a),
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

/// A library error from GPU work in the CLI's words. A missing adapter says how to get one or
/// to use `--backend cpu`; a job too large for the GPU (whose message ends with the way to
/// shrink it) and bad input are usage errors (exit status 2); driver errors stay as they are.
pub(crate) fn on_gpu(e: crate::Error) -> anyhow::Error {
    use crate::Error;
    match e {
        Error::NoAdapter(why) => anyhow::anyhow!("{why} or use --backend cpu"),
        Error::TooLarge { .. } => crate::usage!("{e} or --backend cpu"),
        Error::BadArgument { .. } | Error::Invalid(_) => crate::usage!("{e}"),
        other => other.into(),
    }
}

/// The engine for `--backend`, or why there is none, in the CLI's words.
pub(crate) fn engine(backend: crate::gpu::BackendChoice) -> anyhow::Result<Engine> {
    Engine::select(backend).map_err(on_gpu)
}

/// A write to a closed pipe (`chompute grid 999 | head`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Print a serialisable value as one line of JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}
