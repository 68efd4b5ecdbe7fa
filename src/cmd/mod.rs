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
    crate::render::png::set_description(Some(command_line()));
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
        Command::Completions(a) => completions(&a),
        Command::Man(a) => man(&a),
    }
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
            return Err(crate::usage!("`{name}` has no subcommand '{word}'"));
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
    crate::render::png::set_description(Some(format!("{}: {what}", command_line())));
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

/// Print a serialisable value as one line of JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}
