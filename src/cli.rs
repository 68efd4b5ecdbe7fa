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
    /// Multiplayer Chomp: ordinals under any n-player rule, rule classes, pictures.
    Chomp(ChompArgs),
    /// Two-heap Nim with a pass: the table G_P(x,y) for 0 <= x,y < N (N = 13 is Table 2).
    Gp(GpArgs),
    /// Grundy numbers of the 3-D chocolate bar CB(F,x,y,z), with or without a pass.
    Cb(CbArgs),
    /// P-positions (pass still available) of K-heap Nim with one shared pass.
    Nimpass(NimpassArgs),
    /// C(M,M) as Nim with a pass: plain-Nim P-cells blue, pass P-cells red (PNG), or counts.
    NimpassGrid(NimpassGridArgs),
}

#[derive(Debug, Args)]
pub struct ChompArgs {
    #[command(subcommand)]
    pub command: ChompCommand,
}

#[derive(Debug, Subcommand)]
pub enum ChompCommand {
    /// Ordinals of every position in a box by Fact 2.10: histogram, one position's Sol set and
    /// solution chain, or every position of one ordinal.
    Ord(ChompOrdArgs),
    /// Group all N! normalised rules for N players into isomorphism classes on a box.
    Classes(ChompClassesArgs),
    /// Picture of the ordinals of two- or three-row positions, with a legend.
    Image(ChompImageArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChompEngine {
    /// The three-row engine for boxes of 3 rows, else the general one.
    Auto,
    /// Fact 2.10 over every move of every position, any box (one sweep in rank order, or
    /// volume layers when there are 8 or more threads).
    General,
    /// The general engine by volume layers, each layer in parallel.
    Layers,
    /// O(1) work per position; boxes of exactly 3 rows.
    ThreeRow,
}

#[derive(Debug, Args)]
pub struct ChompOrdArgs {
    /// The rule: n ≥ 2 distinct numbers α_1,…,α_n (the last biter scores α_1), e.g. 0,2,1 or 5,-1.5,3.
    #[arg(long, value_parser = crate::chomp::Rule::parse, allow_hyphen_values = true)]
    pub rule: crate::chomp::Rule,
    /// The box ROWSxCOLUMNS of positions (default: the smallest box holding --position).
    #[arg(long = "box", value_parser = crate::chomp::ChompBox::parse)]
    pub shape: Option<crate::chomp::ChompBox>,
    /// Report this position's ordinal, Sol set and one solution chain: row lengths a,b,c.
    #[arg(long, value_parser = crate::chomp::Diagram::parse)]
    pub position: Option<crate::chomp::Diagram>,
    /// Print every position of ordinal K, one per line (a,b,c), in lexicographic order.
    #[arg(long, value_name = "K")]
    pub list: Option<u8>,
    /// Verify Theorems 2.7, 2.8, Fact 2.9 and the Res form of Fact 2.10 over the box.
    #[arg(long)]
    pub check: bool,
    #[arg(long, value_enum, default_value_t = ChompEngine::Auto)]
    pub engine: ChompEngine,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV on stdout (the histogram, or the list).
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Args)]
pub struct ChompClassesArgs {
    /// Number of players N (2 to 8).
    #[arg(long)]
    pub players: usize,
    /// The box ROWSxCOLUMNS.
    #[arg(long = "box", value_parser = crate::chomp::ChompBox::parse)]
    pub shape: crate::chomp::ChompBox,
    /// Also verify Theorem 3.3 (rules with the same order land in the same class).
    #[arg(long)]
    pub check: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ChompImageArgs {
    #[arg(long, value_parser = crate::chomp::Rule::parse, allow_hyphen_values = true)]
    pub rule: crate::chomp::Rule,
    /// 3: the (b,c) plane of positions (A,b,c); 2: the whole triangle of positions (a,b), a ≤ A.
    #[arg(long, default_value_t = 3)]
    pub rows: u32,
    /// A: the first row (rows 3) or the largest first row (rows 2).
    #[arg(long, value_name = "A")]
    pub first_row: u32,
    /// Pixels per position (default: enough for a picture about 600 pixels wide).
    #[arg(long)]
    pub scale: Option<u32>,
    /// Output PNG file.
    #[arg(short, long)]
    pub output: std::path::PathBuf,
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

#[derive(Debug, Args)]
pub struct GpArgs {
    /// Side of the table: 0 <= x,y < N.
    #[arg(value_parser = parse_size)]
    pub n: u64,
    /// Print the table as CSV, one row of G_P(x,·) per line.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Verify Lemmas 6, 7, 8 and distinct rows and columns over the whole table; print the
    /// report instead of the table. Exit status 1 if a claim fails.
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct CbArgs {
    /// F(x,z) in the expression language: x, z, integers, + - * / %, min, max, floor, log2,
    /// pow2, e.g. "floor(z/2)" or "pow2(log2(max(z,1)))-1".
    #[arg(long = "f", value_name = "EXPR")]
    pub f: String,
    /// The box: positions with x <= X and z <= Z (and y <= F(x,z)). Default 0,15 with --table1.
    #[arg(long, value_name = "X,Z", value_parser = parse_bound)]
    pub bound: Option<(u64, u64)>,
    /// Add one pass (Def 10): positions (x,y,z,p). Needs F = h(z) with h NS, h(0) = 0, h(z) < z.
    #[arg(long)]
    pub pass: bool,
    /// Check Theorem 2 (or, with --pass, Theorems 3, 4 and Corollaries 2, 3, 4) on the box.
    #[arg(long)]
    pub check: bool,
    /// Print Table 1: G(CB_2(h,y,z)) for y <= h(z), rows y, columns z (F read at x = 0).
    #[arg(long, conflicts_with_all = ["pass", "csv"])]
    pub table1: bool,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print every position and its Grundy number as CSV.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Args)]
pub struct NimpassArgs {
    /// Number of heaps: 2, 3 or 4.
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=4))]
    pub heaps: u8,
    /// Largest heap size: heaps run over 0..=M.
    #[arg(long, value_name = "M", value_parser = parse_count)]
    pub max: u64,
    /// List the P-positions, sorted, one per line (default: only count them).
    #[arg(long)]
    pub list: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct NimpassGridArgs {
    /// The bar C(M,M); its cell (i,j) is the position (i-1, j-1, M-i, M-j).
    #[arg(value_parser = parse_size, required_unless_present = "counts")]
    pub m: Option<u64>,
    /// Write the picture here (PNG).
    #[arg(short = 'o', long = "output", value_name = "FILE.png")]
    pub output: Option<std::path::PathBuf>,
    /// Pixels per cell side.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub scale: u32,
    /// Print, for each M in A..B (inclusive), the number of pass P-cells and plain P-cells.
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub counts: Option<(u64, u64)>,
    /// Print one JSON object on stdout (with --counts).
    #[arg(long)]
    pub json: bool,
}

/// "X,Z": two non-negative integers.
pub fn parse_bound(s: &str) -> Result<(u64, u64), String> {
    let (x, z) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not X,Z (two integers and a comma)"))?;
    Ok((parse_count(x.trim())?, parse_count(z.trim())?))
}

/// "A..B" (or "A..=B"): an inclusive range of positive sizes with A <= B.
pub fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("'{s}' is not a range A..B"))?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let (a, b) = (parse_size(a.trim())?, parse_size(b.trim())?);
    if a > b {
        return Err(format!("the range {a}..{b} is empty"));
    }
    Ok((a, b))
}

/// A non-negative integer (0 allowed): digits only, underscores allowed as separators.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a non-negative integer"));
    }
    digits
        .parse::<u64>()
        .map_err(|_| format!("'{s}' is larger than 2^64-1"))
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
