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
    /// Draw the P-grid of C(M,N) as a PNG, a Deep Zoom pyramid, or a shard of tiles.
    Render(RenderArgs),
    /// Join a tile directory written by `render --tiles` into one PNG or a Deep Zoom pyramid.
    Assemble(AssembleArgs),
    /// Multiplayer Chomp: ordinals under any n-player rule, rule classes, pictures.
    Chomp(ChompArgs),
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
pub struct RenderArgs {
    /// Rows of the bar.
    #[arg(value_parser = parse_size)]
    pub m: u64,
    /// Columns of the bar (default: M).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
    /// The PNG to write (written to a temporary file and renamed when complete).
    #[arg(short, long, value_name = "FILE.png")]
    pub output: Option<std::path::PathBuf>,
    /// Only this part of the bar: first row and column (1-based), height and width.
    #[arg(long, value_name = "ROW,COL,HEIGHT,WIDTH")]
    pub window: Option<String>,
    /// Draw each cell as K×K pixels.
    #[arg(long, value_name = "K")]
    pub cell: Option<u64>,
    /// Fit the bar into PIXELS on its longer side: each pixel is a block of cells shaded by
    /// its exact fraction of P-cells (8-bit).
    #[arg(long, value_name = "PIXELS")]
    pub fit: Option<u64>,
    /// Two colours, P-cells then N-cells (e.g. '#5b2a86,#f4efe6'): an indexed PNG.
    /// Default: black P-cells on white.
    #[arg(long, value_name = "P,N")]
    pub colors: Option<String>,
    /// Deflate effort: `fast` (deflate level 1, about 3.5× larger files, for when the disk
    /// is faster than two cores), `balanced` (level 5, the default: a 32767² gigapixel in
    /// well under a second on two cores, bands deflated in parallel) or `best` (level 9).
    #[arg(long, value_enum, default_value_t = crate::render::Compression::Balanced)]
    pub compression: crate::render::Compression,
    /// Compare every generated tile with a second method on a sample of rows (the CPU for
    /// GPU tiles, the cell-by-cell P-test for CPU tiles); a disagreement exits with status 1.
    #[arg(long)]
    pub verify: bool,
    /// Write a Deep Zoom pyramid DIR/NAME.dzi + DIR/NAME_files/ (NAME = DIR's last part).
    #[arg(long, value_name = "DIR")]
    pub dzi: Option<std::path::PathBuf>,
    /// Tile side in pixels for --dzi (default 256) and --tiles (default 4096); a multiple of 8.
    #[arg(long, value_name = "PIXELS")]
    pub tile_size: Option<u64>,
    /// Write the picture as tiles into DIR (for `chompute assemble`), skipping tiles already
    /// there.
    #[arg(long, value_name = "DIR")]
    pub tiles: Option<std::path::PathBuf>,
    /// Render only shard I of N of the tiles (needs --tiles). `auto/N` reads I from
    /// SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Print one JSON object describing what was written on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// A tile directory written by `chompute render --tiles DIR`.
    pub dir: std::path::PathBuf,
    /// The PNG to write.
    #[arg(short, long, value_name = "FILE.png")]
    pub output: Option<std::path::PathBuf>,
    /// Write a Deep Zoom pyramid instead (or as well).
    #[arg(long, value_name = "DIR")]
    pub dzi: Option<std::path::PathBuf>,
    /// Tile side of the Deep Zoom pyramid (default 256).
    #[arg(long, value_name = "PIXELS")]
    pub tile_size: Option<u64>,
    /// Deflate effort (default balanced).
    #[arg(long, value_enum, default_value_t = crate::render::Compression::Balanced)]
    pub compression: crate::render::Compression,
    /// Print one JSON object describing what was written on stdout.
    #[arg(long)]
    pub json: bool,
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
