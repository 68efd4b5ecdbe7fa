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
pub mod out;
mod render;
mod theorems;

pub use out::print_json;

use crate::cli::{Cli, Command};
use crate::gpu::{BackendChoice, Engine, GpuContext};
use clap::ValueEnum;

/// Run one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let backend = backend_in_effect(cli.backend)?;
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Count(a) => {
            gpu_kernel(backend)?;
            count::run(backend, &a)
        }
        Command::Grid(a) => grid::run(Engine::select(backend)?, &a),
        Command::Bench(a) => {
            gpu_kernel(backend)?;
            crate::bench::run(backend, &a)
        }
        Command::Render(a) => render::run(backend, &a),
        Command::Assemble(a) => {
            cpu_only(backend, "assemble");
            render::assemble(&a)
        }
        Command::Chomp(a) => {
            cpu_only(backend, "chomp");
            chomp::run(&a)
        }
        Command::Gp(a) => {
            cpu_only(backend, "gp");
            gp::run(&a)
        }
        Command::Cb(a) => {
            cpu_only(backend, "cb");
            cb::run(&a)
        }
        Command::Nimpass(a) => {
            gpu_kernel(backend)?;
            nimpass::run(backend, &a)
        }
        Command::NimpassGrid(a) => {
            gpu_kernel(backend)?;
            nimpass::run_grid(backend, &a)
        }
        Command::Ca(a) => ca::run(backend, &a),
        Command::Octahedron(a) => {
            cpu_only(backend, "octahedron");
            octahedron::run(&a)
        }
        Command::Theorems(a) => {
            cpu_only(backend, "theorems");
            theorems::run(&a)
        }
    }
}

/// The backend in effect: `--backend`, else `CHOMPUTE_BACKEND` when it is set and not empty,
/// else `auto`. A bad value in the environment is an error only when it is the one in effect.
fn backend_in_effect(flag: Option<BackendChoice>) -> anyhow::Result<BackendChoice> {
    if let Some(choice) = flag {
        return Ok(choice);
    }
    match std::env::var("CHOMPUTE_BACKEND") {
        Err(std::env::VarError::NotPresent) => Ok(BackendChoice::Auto),
        Ok(v) if v.trim().is_empty() => Ok(BackendChoice::Auto),
        Ok(v) => BackendChoice::from_str(v.trim(), true).map_err(|_| {
            crate::usage!("CHOMPUTE_BACKEND='{v}' is not a backend: use auto, gpu or cpu")
        }),
        Err(std::env::VarError::NotUnicode(_)) => Err(crate::usage!(
            "CHOMPUTE_BACKEND is not valid UTF-8: use auto, gpu or cpu"
        )),
    }
}

/// A command with a GPU kernel: `--backend gpu` without an adapter is an error (exit 2)
/// before any work.
fn gpu_kernel(backend: BackendChoice) -> anyhow::Result<()> {
    if backend == BackendChoice::Gpu {
        GpuContext::shared().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(())
}

/// A command without a GPU kernel runs on the CPU; asked for the GPU, it says so on stderr.
fn cpu_only(backend: BackendChoice, command: &str) {
    if backend == BackendChoice::Gpu {
        eprintln!("chompute: {command} has no GPU kernel; it runs on the CPU");
    }
    out::mark_cpu_only();
}

/// A write to a closed pipe (`chompute render 65535 -o - | head -c 100`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            // The png crate's error names its I/O cause only through the old `cause()`.
            || matches!(
                c.downcast_ref::<png::EncodingError>(),
                Some(png::EncodingError::IoError(io)) if io.kind() == BrokenPipe
            )
    })
}
