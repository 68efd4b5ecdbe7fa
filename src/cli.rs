//! The command line: clap derive types only. Each subcommand's behaviour lives in
//! `crate::cmd`, one file per command family.

use crate::gpu::BackendChoice;
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(name = "chompute", version, about = "Compute engine for the mathematics of chocolate games", long_about = None)]
pub struct Cli {
    /// Where to compute: `auto` uses a real GPU when there is one, else the CPU.
    #[arg(long, global = true, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,

    #[command(subcommand)]
    pub command: Command,
}

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
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CountMethod {
    /// g(2m) = 4g(m), g(2m+1) = g(m)+g(m+1): O(log m), square bars only.
    Recurrence,
    /// Σ_v hr[v]·hc[v] over row and column key histograms: O(M+N).
    Histogram,
    /// Generate the grid on the CPU and count it.
    Cpu,
    /// Generate the grid on the GPU and count it there.
    Gpu,
    /// Every feasible method; exit status 1 if any two disagree.
    All,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// Rows of the bar.
    #[arg(value_parser = parse_size)]
    pub m: u64,
    /// Columns of the bar (default: M).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
    /// Method (default: the fastest exact one).
    #[arg(long, value_enum)]
    pub method: Option<CountMethod>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GridArgs {
    #[arg(value_parser = parse_size)]
    pub m: u64,
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Smaller sizes, for a quick look (and for tests).
    #[arg(long)]
    pub quick: bool,
}

/// A positive integer size: digits only (underscores allowed as separators), at least 1.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a positive integer"));
    }
    match digits.parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("'{s}' is larger than 2^64-1")),
    }
}
