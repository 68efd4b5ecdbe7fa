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
    /// Run the second-order cellular automaton whose generation n is the P-grid of C(n+1,n+1).
    Ca(CaArgs),
    /// The Sierpiński octahedron S_N: cross-sections, the correspondence with P-grids, meshes.
    Octahedron(OctahedronArgs),
    /// Check every claim of the chocolate paper for all m up to a bound, and print a table.
    Theorems(TheoremsArgs),
}

#[derive(Debug, Args)]
pub struct CaArgs {
    /// Steps to run from b_0 = {(0,0)}; the last generation is P(STEPS+1).
    #[arg(value_parser = parse_size)]
    pub steps: u64,
    /// Compare every generation with the P-test (whole grids while small, sampled rows beyond,
    /// the last one whole) and, on the GPU, the GPU with the CPU; exit status 1 on a mismatch.
    #[arg(long)]
    pub verify: bool,
    /// Write generations as PNG frames into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub frames: Option<std::path::PathBuf>,
    /// With --frames: write every K-th generation (default 1).
    #[arg(long, value_name = "K", value_parser = parse_size)]
    pub every: Option<u64>,
    /// Export generations 0..=STEPS stacked as a closed voxel surface (binary PLY).
    #[arg(long, value_name = "FILE.ply")]
    pub stack: Option<std::path::PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct OctahedronArgs {
    /// Level N: S_N is a union of 6^N octahedra; its sections at integer M ≤ 2^N are P-grids.
    #[arg(value_parser = parse_level)]
    pub n: u32,
    /// Height of the cross-section H_{N,M} (z = 1 - M/2^N): an integer, a decimal such as 5.5,
    /// or a fraction such as 11/2, read exactly.
    #[arg(long, value_name = "M", value_parser = parse_ratio)]
    pub m: Option<crate::chocolate::octahedron::Ratio>,
    /// PNG file for the cross-section.
    #[arg(short = 'o', long = "output", value_name = "FILE.png")]
    pub output: Option<std::path::PathBuf>,
    /// Pixels per cell side in the cross-section (M·px must be a whole number).
    #[arg(long, default_value_t = 16, value_parser = parse_size)]
    pub px: u64,
    /// Check, for every M ≤ 2^N, that the P-cells of C(M,M) are exactly the cells whose centre
    /// points lie in S_N; exit status 1 on a mismatch.
    #[arg(long)]
    pub check: bool,
    /// Export S_N as a mesh: FILE.stl or FILE.ply by the extension.
    #[arg(long, value_name = "FILE")]
    pub stl: Option<std::path::PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TheoremsArgs {
    /// Check every claim for all m ≤ M (and sampled larger m through the recursions).
    #[arg(long, value_name = "M", value_parser = parse_size)]
    pub max_m: Option<u64>,
    /// Print one JSON object on stdout: a `claims` list with one object per claim.
    #[arg(long)]
    pub json: bool,
}

/// A level N of the Sierpiński octahedron: 0 ..= 60.
pub fn parse_level(s: &str) -> Result<u32, String> {
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a level (an integer 0..=60)"));
    }
    match s.parse::<u32>() {
        Ok(n) if n <= crate::chocolate::octahedron::MAX_LEVEL => Ok(n),
        _ => Err(format!(
            "level '{s}' is larger than {}",
            crate::chocolate::octahedron::MAX_LEVEL
        )),
    }
}

/// An exact positive rational: 5, 5.5 or 11/2.
pub fn parse_ratio(s: &str) -> Result<crate::chocolate::octahedron::Ratio, String> {
    crate::chocolate::octahedron::parse_ratio(s)
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
    /// Automaton steps for the `ca` benchmark (default: scaled to the adapter, 32767 on a real
    /// GPU; the CPU runs min(this, 4095)).
    #[arg(long, value_name = "STEPS", value_parser = parse_size)]
    pub ca_steps: Option<u64>,
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
