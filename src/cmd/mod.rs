//! Command implementations, one file per command family. `main` calls [`run`].
//!
//! Tests: tests/faults/backend.rs (`--backend` and CHOMPUTE_BACKEND), tests/faults/status.rs, and
//! each command's own file.

pub mod bars;
mod bench;
mod ca;
mod cb;
mod chomp;
mod chomp_solve;
mod count;
mod gp;
mod grid;
mod info;
mod nimpass;
mod octahedron;
pub mod out;
mod render;
mod serve;
mod theorems;

use crate::cli::{Cli, Command};
use chompute::claim::Claim;
use chompute::gpu::{BackendChoice, Engine, GpuContext, Job};

/// Run one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // The library's long loops report to the bars drawn on a terminal.
    let bars = std::sync::Arc::new(bars::Bars::default());
    chompute::progress::observe(bars, || run_command(cli))
}

fn run_command(cli: Cli) -> anyhow::Result<()> {
    let backend = backend_in_effect(cli.backend)?;
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Count(a) => {
            gpu_kernel(backend)?;
            count::run(backend, &a)
        }
        Command::Grid(a) => grid::run(engine(backend, Job::Generate)?, &a),
        Command::Bench(a) => {
            gpu_kernel(backend)?;
            bench::run(backend, &a)
        }
        Command::Render(a) => render::run(backend, &a),
        Command::Assemble(a) => {
            cpu_only(backend, "assemble");
            render::assemble(&a)
        }
        Command::Chomp(a) => chomp::run(backend, &a),
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
        Command::Serve(a) => serve::run(backend, &a),
        Command::Completions(a) => completions(&a),
        Command::Man(a) => man(&a),
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
        Ok(v) => v.trim().parse().map_err(|_| {
            anyhow::anyhow!("CHOMPUTE_BACKEND='{v}' is not a backend: use auto, gpu or cpu")
        }),
        Err(std::env::VarError::NotUnicode(_)) => Err(anyhow::anyhow!(
            "CHOMPUTE_BACKEND is not valid UTF-8: use auto, gpu or cpu"
        )),
    }
}

/// A command with a GPU kernel: `--backend gpu` without an adapter is an error (exit 2)
/// before any work.
fn gpu_kernel(backend: BackendChoice) -> anyhow::Result<()> {
    if backend == BackendChoice::Gpu {
        GpuContext::shared().map_err(on_gpu)?;
    }
    Ok(())
}

/// A command without a GPU kernel runs on the CPU; asked for the GPU, it says so on stderr.
fn cpu_only(backend: BackendChoice, command: &str) {
    if backend == BackendChoice::Gpu {
        crate::errln!("chompute: {command} has no GPU kernel; it runs on the CPU");
    }
    out::mark_cpu_only();
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

/// The engine for `--backend` and a job (`auto` decides per job), or why there is none, in the
/// CLI's words.
pub(crate) fn engine(backend: BackendChoice, job: Job) -> anyhow::Result<Engine> {
    Engine::for_job(backend, job).map_err(on_gpu)
}

/// `chompute completions SHELL`: the completion script clap_complete makes from the CLI.
fn completions(args: &crate::cli::CompletionsArgs) -> anyhow::Result<()> {
    use clap::CommandFactory;
    use std::io::Write;
    // Into memory first: clap_complete panics on a failed write, and a closed pipe
    // (`| head`) is not an error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "chompute", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// `chompute man [SUBCOMMAND…]`: a manual page (roff) made by clap_mangen from the CLI: the
/// top-level page (every subcommand listed), or one subcommand's page (`chompute man render`,
/// `chompute man chomp ord`, `chompute man "chomp ord"`); with `--dir DIR`, every page.
fn man(args: &crate::cli::ManArgs) -> anyhow::Result<()> {
    use clap::CommandFactory;
    use std::io::Write;
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    if let Some(dir) = &args.dir {
        return man_pages(cmd, dir);
    }
    for word in args.command.iter().flat_map(|w| w.split_whitespace()) {
        let Some(sub) = cmd.find_subcommand(word).cloned() else {
            let name = cmd.get_bin_name().unwrap_or("chompute").to_string();
            return Err(anyhow::anyhow!("`{name}` has no subcommand '{word}'"));
        };
        cmd = sub;
    }
    let mut out = std::io::stdout().lock();
    man_page(cmd).render(&mut out)?;
    out.flush()?;
    Ok(())
}

/// The memory a job may count on: what the system says, or, for the tests that show the
/// checks at work, CHOMPUTE_TEST_MEMORY_AVAILABLE bytes.
pub fn room() -> chompute::memory::Room {
    match std::env::var("CHOMPUTE_TEST_MEMORY_AVAILABLE")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        Some(bytes) => chompute::memory::Room::assume(bytes),
        None => chompute::memory::Room::SYSTEM,
    }
}

/// One command's page, marked with chompute's version.
fn man_page(cmd: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd).source(format!("chompute {}", env!("CARGO_PKG_VERSION")))
}

/// Every page, each written whole under a temporary name and renamed into `dir`; the pages
/// already there of other programs are left alone. Says how many were written.
fn man_pages(cmd: clap::Command, dir: &std::path::Path) -> anyhow::Result<()> {
    use chompute::output::AtomicFile;
    use std::io::Write;
    chompute::output::check_dir_target(dir, true)?;
    std::fs::create_dir_all(dir).map_err(|e| chompute::Error::io(dir, e))?;
    let mut stack = vec![cmd];
    let mut written = 0;
    while let Some(cmd) = stack.pop() {
        stack.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
        let page = man_page(cmd);
        let mut roff = Vec::new();
        page.render(&mut roff)?;
        let mut file = AtomicFile::create(dir.join(page.get_filename()))?;
        file.write_all(&roff)?;
        file.commit()?;
        written += 1;
    }
    crate::outln!("wrote {written} manual pages into {}", dir.display());
    Ok(())
}

/// The command line as a shell would take it back: `chompute render 11 --colors '#5b2a86,…'`.
pub fn command_line() -> String {
    let quote = |a: &str| {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@%^".contains(c));
        if plain {
            a.to_string()
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    // `args_os`: a name that is not UTF-8 (`render 11 -o $'\xff.png'`) is shown with U+FFFD,
    // never a panic.
    std::iter::once("chompute".to_string())
        .chain(
            std::env::args_os()
                .skip(1)
                .map(|a| quote(&a.to_string_lossy())),
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// The Description of the PNGs a command writes: the command line, then `what` the picture
/// shows (bar, window, scale, colours), e.g. `chompute render 11 -o r11.png: C(11,11), 1
/// pixel per cell, P-cells black on white`.
pub fn describe_pictures(what: &str) -> String {
    format!("{}: {what}", command_line())
}

/// One CSV field: as it is, or in double quotes (inner quotes doubled) when it holds a comma,
/// a quote or a line break.
pub fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// `--window` placed in C(m,n) (checked: inside the bar, no sum past 2^64-1), or the whole
/// bar, for `count` and `render`.
pub(crate) fn window_of(
    rect: Option<chompute::chocolate::grid::WindowRect>,
    m: u64,
    n: u64,
) -> anyhow::Result<chompute::chocolate::Window> {
    Ok(match rect {
        Some(r) => chompute::chocolate::Window::of_bar(m, n, r)?,
        None => chompute::chocolate::Window::full(m, n)?,
    })
}

/// Exit status 1 (a check failure naming them) when a theorem claim failed.
pub fn verdict(claims: &[Claim]) -> anyhow::Result<()> {
    Ok(chompute::claim::verdict(claims)?)
}
