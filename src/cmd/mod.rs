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
    chompute::render::png::set_description(Some(command_line()));
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
        Command::Completions(a) => completions(&a),
        Command::Man(a) => man(&a),
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
/// `chompute man chomp ord`).
fn man(args: &crate::cli::ManArgs) -> anyhow::Result<()> {
    use clap::CommandFactory;
    use std::io::Write;
    let mut cmd = Cli::command();
    cmd.build();
    for word in &args.command {
        let Some(sub) = cmd.find_subcommand(word).cloned() else {
            let name = cmd.get_bin_name().unwrap_or("chompute").to_string();
            return Err(anyhow::anyhow!("`{name}` has no subcommand '{word}'"));
        };
        cmd = sub;
    }
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(cmd)
        .source(format!("chompute {}", env!("CARGO_PKG_VERSION")))
        .render(&mut out)?;
    out.flush()?;
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
    std::iter::once("chompute".to_string())
        .chain(std::env::args().skip(1).map(|a| quote(&a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Set the Description of every PNG this command writes: the command line, then `what` the
/// picture shows (bar, window, scale, colours), e.g. `chompute render 11 -o r11.png:
/// C(11,11), 1 pixel per cell, P-cells black on white`.
pub fn describe_pictures(what: &str) {
    chompute::render::png::set_description(Some(format!("{}: {what}", command_line())));
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

/// Serialise a u64 that can pass 2^53 as a JSON string (JavaScript reads larger numbers
/// inexactly).
pub fn u64_string<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Serialise u64s that can pass 2^53 as JSON strings.
pub fn u64_strings<S: serde::Serializer>(v: &[u64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|x| x.to_string()))
}

/// A write to a closed pipe (`chompute grid 999 | head`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
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
    ("the cell size", "--scale"),
    ("the number of rows", "--rows"),
    ("the first row of a plane", "--first-row"),
    ("the pixels per position", "--scale"),
    ("the fit size", "--fit"),
    ("the tile size", "--tile-size"),
    ("the pixels per cell", "--scale"),
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
