//! The command line: clap derive types, one file per command family as in `crate::cmd`
//! (the arguments of `cmd/render.rs` are in `cli/render.rs`), the value parsers
//! ([`values`]), the output formats ([`format`]), and the words errors are said in
//! ([`errors`]: flag names, one line, exit status).
//!
//! Tests: each file's unit tests; the command line as users give it in tests/faults/cli.rs.

mod bench;
mod ca;
mod cb;
mod chomp;
mod chomp_solve;
mod count;
pub mod errors;
pub mod format;
mod gp;
mod grid;
mod info;
mod nimpass;
mod octahedron;
mod render;
mod serve;
mod theorems;
pub mod values;

pub use bench::*;
pub use ca::*;
pub use cb::*;
pub use chomp::*;
pub use chomp_solve::*;
pub use count::*;
pub use errors::{exit_code, flag, is_broken_pipe, one_line};
pub use format::Format;
pub use gp::*;
pub use grid::*;
pub use info::*;
pub use nimpass::*;
pub use octahedron::*;
pub use render::*;
pub use serve::*;
pub use theorems::*;

use chompute::gpu::BackendChoice;
use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "chompute",
    version,
    about = "Compute engine for the mathematics of chocolate games",
    long_about = None,
    after_help = AFTER_HELP
)]
pub struct Cli {
    /// Where to compute: auto (the default), gpu or cpu; CHOMPUTE_BACKEND sets the default.
    #[arg(long, global = true, value_enum, hide_possible_values = true)]
    pub backend: Option<BackendChoice>,

    #[command(subcommand)]
    pub command: Command,
}

/// The `--backend` choices, told once in the top-level help (each subcommand's help has the
/// one-line summary of the option).
pub const AFTER_HELP: &str = "\
Backends (--backend, or the environment variable CHOMPUTE_BACKEND when set and not empty;
--backend wins):
  auto  per job, the faster side on this machine: by the rates `chompute bench --save`
        measured, else a default table (`chompute info` lists each job's side); never a
        software adapter such as lavapipe or llvmpipe, which is slower than the CPU; the
        default
  gpu   the GPU, software adapters included; one line of error if there is none
  cpu   the CPU, always

Exit status: 0 success; 1 a check or verification found a disagreement; 2 an error (bad
input, I/O, no GPU, too large); 130 interrupted (temporary files are removed, finished tiles
and frames are kept).
";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the GPU adapter and the limits in use, or why there is none.
    Info(InfoArgs),
    /// Count the P-positions g(M,N) of the chocolate game C(M,N) exactly.
    Count(CountArgs),
    /// Print the P-grid of C(M,N) as text: '#' for a P-cell, '.' otherwise.
    Grid(GridArgs),
    /// Benchmark GPU against CPU on chompute's kernels.
    Bench(BenchArgs),
    /// Draw the P-grid of C(M,N) as a PNG, a Deep Zoom pyramid, or a shard of tiles.
    Render(RenderArgs),
    /// Join a tile directory written by `render --tiles` into one PNG or a Deep Zoom pyramid.
    Assemble(AssembleArgs),
    /// Chomp: two-player tables (P-positions, winning bites, Grundy values, counts by
    /// cells) and multiplayer ordinals under any n-player rule, rule classes, pictures.
    Chomp(ChompArgs),
    /// Two-heap Nim with a pass: the table G_P(x,y) for 0 <= x,y < N (N = 13 is Table 2).
    Gp(GpArgs),
    /// Grundy numbers of the 3-D chocolate bar CB(F,x,y,z), with or without a pass.
    Cb(CbArgs),
    /// P-positions (pass still available) of K-heap Nim with one shared pass.
    Nimpass(NimpassArgs),
    /// C(M,M) as Nim with a pass: plain-Nim P-cells blue, pass P-cells red (PNG), or counts.
    NimpassGrid(NimpassGridArgs),
    /// Run the second-order cellular automaton whose generation n is the P-grid of C(n+1,n+1).
    Ca(CaArgs),
    /// The Sierpiński octahedron S_N: cross-sections, the correspondence with P-grids, meshes.
    Octahedron(OctahedronArgs),
    /// Check every claim of the chocolate paper for all m up to a bound, and print a table.
    Theorems(TheoremsArgs),
    /// Serve a live deep zoom into any bar C(M,N), M, N up to 2^64-1, with a viewer at the
    /// URL printed on the first line (Deep Zoom tiles, a JSON API); Ctrl-C stops it.
    Serve(ServeArgs),
    /// Print a shell completion script on stdout (e.g. `chompute completions bash`).
    Completions(CompletionsArgs),
    /// Print a manual page (roff) on stdout: `chompute man > chompute.1`, one subcommand's
    /// (`chompute man render`), or write them all with `--dir DIR`.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print, e.g. `render`, `chomp ord` or "chomp ord"
    /// (default: the top level, which lists them all).
    #[arg(value_name = "SUBCOMMAND", conflicts_with = "dir")]
    pub command: Vec<String>,
    /// Write every page into DIR instead (chompute.1, chompute-render.1, chompute-chomp-ord.1,
    /// …: the pages the top level refers to), creating DIR if missing.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
