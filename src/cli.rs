//! The command line: clap derive types only. Each subcommand's behaviour lives in
//! `crate::cmd`, one file per command family.

use chompute::chocolate::grid::WindowRect;
use chompute::gpu::BackendChoice;
use clap::{Args, Parser, Subcommand, ValueEnum};

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
  auto  the GPU when it is a real one, else the CPU (which is faster than a software
        adapter such as lavapipe or llvmpipe); the default
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
    /// Chomp on Young diagrams: multiplayer ordinals, rule classes, pictures; two-player tables.
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
    /// Print a manual page (roff) on stdout: `chompute man > chompute.1`, or one subcommand's
    /// (`chompute man render`).
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (0.0.0.0 or :: for every interface).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// The port; 0 takes a free one.
    #[arg(long, value_name = "P", default_value_t = 8080)]
    pub port: u16,
    /// Memory for the cache of encoded tiles, in MiB (0: no cache).
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub cache_mb: u64,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print, e.g. `render` or `chomp ord` (default: the top
    /// level, which lists them all).
    #[arg(value_name = "SUBCOMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
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
    /// Two-player Chomp: P or N for every position of a box at one bit each; with -o, a saved
    /// table that an interrupted run resumes.
    Solve(ChompSolveArgs),
    /// One position of a saved table: P or N, and every winning bite.
    Query(ChompQueryArgs),
    /// The winning bites of every rectangle of a box, each as the P-position it leaves.
    Bites(ChompBitesArgs),
    /// The Grundy value (nim-value) of every position of a box.
    Grundy(ChompGrundyArgs),
    /// For every n up to N: the Young diagrams of n cells and how many are P-positions.
    Cells(ChompCellsArgs),
}

#[derive(Debug, Args)]
pub struct ChompSolveArgs {
    /// The box ROWSxCOLUMNS.
    #[arg(long = "box", value_parser = chompute::chomp::ChompBox::parse)]
    pub shape: chompute::chomp::ChompBox,
    /// Save the table here (finished layers go to FILE.partial, or, for a table solved in
    /// blocks, FILE.blocks/; the same command resumes).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Memory the table may take, such as 512M or 6G (default: what the machine has). With
    /// -o, a square box whose table is larger is solved in blocks that fit, with the same file.
    #[arg(long, value_name = "SIZE", value_parser = chompute::memory::parse_bytes)]
    pub memory: Option<u64>,
    /// With -o: solve only share I of N of the next wave of blocks (a square box is planned
    /// in 2·side waves, the blocks of one wave independent), record it in FILE.blocks/ and
    /// exit; a run without --part finishes what is left and writes FILE. For job arrays.
    #[arg(long, value_name = "I/N", requires = "output", value_parser = chompute::chomp::blocks::Part::parse)]
    pub part: Option<chompute::chomp::blocks::Part>,
    /// Print the plan of blocks this run would follow (or, with -o, the one its checkpoint
    /// folder follows, with the pieces done) and exit: pieces, waves, bits per wave. With
    /// --part (any), the plan in waves.
    #[arg(long)]
    pub plan: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ChompQueryArgs {
    /// A table saved by `chomp solve -o`.
    #[arg(value_name = "FILE")]
    pub table: std::path::PathBuf,
    /// The position: row lengths a,b,c (top row first).
    #[arg(long, value_parser = chompute::chomp::Diagram::parse)]
    pub position: chompute::chomp::Diagram,
    /// Read the whole table first and check its CRC-32.
    #[arg(long)]
    pub verify: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ChompBitesArgs {
    /// The rectangles r×c with r ≤ ROWS and c ≤ COLUMNS (default: the --table's box).
    #[arg(long = "box", value_parser = chompute::chomp::ChompBox::parse)]
    pub shape: Option<chompute::chomp::ChompBox>,
    /// Read a table saved by `chomp solve -o` instead of solving the box (bit by bit: the table
    /// is never loaded).
    #[arg(long, value_name = "FILE")]
    pub table: Option<std::path::PathBuf>,
    /// With --table: first read the whole file and check its CRC-32.
    #[arg(long, requires = "table")]
    pub verify: bool,
    /// A picture: one square per rectangle, coloured by its number of winning bites.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV on stdout: rows,cols,winning_bites,bites.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GrundyBfile {
    /// G of the n×n squares, n = 1, 2, …
    Square,
    /// G of the 2×n rectangles.
    TwoRows,
    /// G of the 3×n rectangles.
    ThreeRows,
}

#[derive(Debug, Args)]
pub struct ChompGrundyArgs {
    /// The box ROWSxCOLUMNS.
    #[arg(long = "box", value_parser = chompute::chomp::ChompBox::parse)]
    pub shape: chompute::chomp::ChompBox,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with_all = ["csv", "bfile"])]
    pub json: bool,
    /// Print CSV on stdout: rows,cols,grundy for every rectangle.
    #[arg(long, conflicts_with = "bfile")]
    pub csv: bool,
    /// Print one sequence as an OEIS b-file (`n value` per line).
    #[arg(long, value_enum, value_name = "SEQUENCE")]
    pub bfile: Option<GrundyBfile>,
}

#[derive(Debug, Args)]
pub struct ChompCellsArgs {
    /// The largest number of cells N.
    #[arg(long, value_name = "N")]
    pub max: u32,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with_all = ["csv", "bfile"])]
    pub json: bool,
    /// Print CSV on stdout: n,diagrams,p_positions.
    #[arg(long, conflicts_with = "bfile")]
    pub csv: bool,
    /// Print the P-position counts as an OEIS b-file (`n count` per line).
    #[arg(long)]
    pub bfile: bool,
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
    #[arg(long, value_parser = chompute::chomp::Rule::parse, allow_hyphen_values = true)]
    pub rule: chompute::chomp::Rule,
    /// The box ROWSxCOLUMNS of positions (default: the smallest box holding --position).
    #[arg(long = "box", value_parser = chompute::chomp::ChompBox::parse)]
    pub shape: Option<chompute::chomp::ChompBox>,
    /// Report this position's ordinal, Sol set and one solution chain: row lengths a,b,c.
    #[arg(long, value_parser = chompute::chomp::Diagram::parse)]
    pub position: Option<chompute::chomp::Diagram>,
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
    /// Print CSV on stdout (the histogram, or the list; with --check: the claims).
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Args)]
pub struct ChompClassesArgs {
    /// Number of players N (2 to 8), or a range A..B: then only the number of classes for each
    /// N from A to B.
    #[arg(long, value_name = "N|A..B", value_parser = parse_players)]
    pub players: (usize, usize),
    /// The box ROWSxCOLUMNS.
    #[arg(long = "box", value_parser = chompute::chomp::ChompBox::parse)]
    pub shape: chompute::chomp::ChompBox,
    /// Also verify Theorem 3.3 (rules with the same order land in the same class).
    #[arg(long)]
    pub check: bool,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with_all = ["csv", "bfile"])]
    pub json: bool,
    /// Print CSV on stdout with a header row: one row per class (or per N for a range; with
    /// --check: the claims).
    #[arg(long, conflicts_with = "bfile")]
    pub csv: bool,
    /// Print the class counts as an OEIS b-file, `N classes` per line (for --players A..B).
    #[arg(long)]
    pub bfile: bool,
}

/// `--players`: "N" or "A..B" (players from 2 up), as an inclusive range.
pub fn parse_players(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = if s.contains("..") {
        parse_range(s)?
    } else {
        let n = parse_size(s)?;
        (n, n)
    };
    let a = usize::try_from(a).map_err(|_| format!("'{s}' is too many players"))?;
    let b = usize::try_from(b).map_err(|_| format!("'{s}' is too many players"))?;
    Ok((a, b))
}

#[derive(Debug, Args)]
pub struct ChompImageArgs {
    /// The rule: n ≥ 2 distinct numbers α_1,…,α_n (the last biter scores α_1), e.g. 0,1,2.
    #[arg(long, value_parser = chompute::chomp::Rule::parse, allow_hyphen_values = true)]
    pub rule: chompute::chomp::Rule,
    /// 3: the (b,c) plane of positions (A,b,c); 2: the whole triangle of positions (a,b), a ≤ A.
    #[arg(long, default_value_t = 3)]
    pub rows: u32,
    /// A: the first row (rows 3) or the largest first row (rows 2).
    #[arg(long, value_name = "A")]
    pub first_row: u32,
    /// Pixels per position (default: enough for a picture about 600 pixels wide).
    #[arg(long)]
    pub scale: Option<u32>,
    /// The picture to write; its extension picks the format (.png, .tiff, .webp, ...).
    #[arg(short, long, value_name = "FILE")]
    pub output: std::path::PathBuf,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `count --method`: the library's methods, with their help from the library's docs.
pub use chompute::chocolate::count::CountMethod;

#[derive(Debug, Args)]
#[command(
    override_usage = "chompute count [OPTIONS] <M> [N]\n       chompute count [OPTIONS] --range <A..B>"
)]
pub struct CountArgs {
    /// Rows of the bar.
    #[arg(value_parser = parse_size, required_unless_present = "range")]
    pub m: Option<u64>,
    /// Columns of the bar (default: M).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
    /// Count only this part of the bar: first row and column (1-based), height and width.
    #[arg(long, value_name = "ROW,COL,HEIGHT,WIDTH", value_parser = library::<WindowRect>)]
    pub window: Option<WindowRect>,
    /// Method (default: the fastest exact one, `digits`).
    #[arg(long, value_enum)]
    pub method: Option<CountMethod>,
    /// g(m) of the square bars C(m,m) for every m from A to B (inclusive), by the recurrence.
    #[arg(long, value_name = "A..B", value_parser = parse_range, conflicts_with_all = ["m", "method", "window"])]
    pub range: Option<(u64, u64)>,
    /// With --range: print an OEIS b-file, `m g(m)` per line.
    #[arg(long, requires = "range", conflicts_with_all = ["json", "csv"])]
    pub bfile: bool,
    /// Print CSV on stdout with a header row (the methods, or the --range values).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GridArgs {
    /// Rows of the bar (at most 2^20 as text).
    #[arg(value_parser = parse_size)]
    pub m: u64,
    /// Columns of the bar (default: M; at most 1024 as text).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print every measurement as CSV on stdout, with a header row.
    #[arg(long)]
    pub csv: bool,
    /// Smaller sizes, for a quick look (and for tests).
    #[arg(long)]
    pub quick: bool,
    /// Automaton steps for the `ca` benchmark (default: scaled to the adapter, 32767 on a real
    /// GPU; the CPU runs min(this, 4095)).
    #[arg(long, value_name = "STEPS", value_parser = parse_size)]
    pub ca_steps: Option<u64>,
}

#[derive(Debug, Args)]
pub struct GpArgs {
    /// Side of the table: 0 <= x,y < N.
    #[arg(value_parser = parse_size)]
    pub n: u64,
    /// Print the table as CSV: a header row `x,0,1,…`, then x and the row G_P(x,·) (with
    /// --check: the claims).
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
#[command(
    override_usage = "chompute cb [OPTIONS] --f <EXPR> --bound <X,Z>\n       chompute cb [OPTIONS] --f <EXPR> --table1"
)]
pub struct CbArgs {
    /// F(x,z) in the expression language: x, z, integers, + - * / %, min, max, floor, log2,
    /// pow2, e.g. "floor(z/2)" or "pow2(log2(max(z,1)))-1".
    #[arg(long = "f", value_name = "EXPR")]
    pub f: String,
    /// The box: positions with x <= X and z <= Z (and y <= F(x,z)). Only --table1 does
    /// without it (z <= 15).
    #[arg(long, value_name = "X,Z", value_parser = parse_bound, required_unless_present = "table1")]
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
    /// Print every position and its Grundy number as CSV (with --check: the claims).
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
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV on stdout with a header row: the listed positions (h1,…,hK), or the count.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Args)]
pub struct NimpassGridArgs {
    /// The bar C(M,M); its cell (i,j) is the position (i-1, j-1, M-i, M-j).
    #[arg(value_parser = parse_size, required_unless_present = "counts")]
    pub m: Option<u64>,
    /// Write the picture here; its extension picks the format (.png, .tiff, .webp, ...).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Pixels per cell side.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub scale: u32,
    /// Print, for each M in A..B (inclusive), the number of pass P-cells and plain P-cells.
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub counts: Option<(u64, u64)>,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with_all = ["csv", "bfile"])]
    pub json: bool,
    /// With --counts: CSV on stdout with a header row.
    #[arg(long, requires = "counts", conflicts_with = "bfile")]
    pub csv: bool,
    /// With --counts: an OEIS b-file of the pass P-cell counts, `M count` per line.
    #[arg(long, requires = "counts")]
    pub bfile: bool,
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

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Rows of the bar.
    #[arg(value_parser = parse_size)]
    pub m: u64,
    /// Columns of the bar (default: M).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
    /// The picture to write (to a temporary file, renamed when complete). The extension picks
    /// the format: .png streams at any size; .tiff, .webp, .bmp, .jpg and .gif are made in
    /// memory, for pictures up to 2^27 pixels.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Only this part of the bar: first row and column (1-based), height and width.
    #[arg(long, value_name = "ROW,COL,HEIGHT,WIDTH", value_parser = library::<WindowRect>)]
    pub window: Option<WindowRect>,
    /// Pixels per cell: draw each cell as K×K pixels.
    #[arg(long, value_name = "K", alias = "cell", value_parser = parse_size, conflicts_with = "fit")]
    pub scale: Option<u64>,
    /// Fit the bar into PIXELS on its longer side: each pixel is a block of cells shaded by
    /// its exact fraction of P-cells (8-bit).
    #[arg(long, value_name = "PIXELS", value_parser = parse_size)]
    pub fit: Option<u64>,
    /// How --fit shades a pixel from its block's exact P-count (see `--help`).
    #[arg(long, value_name = "linear|sqrt|log", value_parser = library::<chompute::render::Shade>, long_help = SHADE_HELP)]
    pub shade: Option<chompute::render::Shade>,
    /// Two colours, P-cells then N-cells (e.g. '#5b2a86,#f4efe6'): an indexed PNG.
    /// Default: black P-cells on white.
    #[arg(long, value_name = "P,N", value_parser = colours)]
    pub colors: Option<[[u8; 3]; 2]>,
    /// Deflate effort: `fast` (deflate level 1, about 3.5× larger files, for when the disk
    /// is faster than two cores), `balanced` (level 5, the default: a 32767² gigapixel in
    /// well under a second on two cores, bands deflated in parallel) or `best` (level 9).
    #[arg(long, default_value_t = chompute::render::Compression::Balanced, value_parser = compression_parser())]
    pub compression: chompute::render::Compression,
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
    /// there that match their records; a DIR of another render is refused.
    #[arg(long, value_name = "DIR")]
    pub tiles: Option<std::path::PathBuf>,
    /// Render only shard I of N of the tiles (needs --tiles). `auto/N` reads I from
    /// SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "I/N", value_parser = library::<chompute::render::pyramid::tiles::Shard>)]
    pub shard: Option<chompute::render::pyramid::tiles::Shard>,
    /// Print one JSON object describing what was written on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// A tile directory written by `chompute render --tiles DIR`; every tile is checked
    /// against its record first, and a missing or damaged one fails with exit status 2.
    pub dir: std::path::PathBuf,
    /// The picture to write; its extension picks the format, as for `render -o`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Write a Deep Zoom pyramid instead (or as well).
    #[arg(long, value_name = "DIR")]
    pub dzi: Option<std::path::PathBuf>,
    /// Tile side of the Deep Zoom pyramid (default 256).
    #[arg(long, value_name = "PIXELS")]
    pub tile_size: Option<u64>,
    /// Deflate effort (default balanced).
    #[arg(long, default_value_t = chompute::render::Compression::Balanced, value_parser = compression_parser())]
    pub compression: chompute::render::Compression,
    /// Print one JSON object describing what was written on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `--colors P,N`, read by the library's parser.
pub fn colours(s: &str) -> Result<[[u8; 3]; 2], String> {
    chompute::render::parse_colours(s).map_err(|e| e.worded(&crate::cmd::flag))
}

/// A value of one of the library's types, read by the library's own parser ([`FromStr`]):
/// a window, a shade, a shard. Its message names the input by its flag.
///
/// [`FromStr`]: std::str::FromStr
pub fn library<T: std::str::FromStr<Err = chompute::Error>>(s: &str) -> Result<T, String> {
    s.parse()
        .map_err(|e: chompute::Error| e.worded(&crate::cmd::flag))
}

/// A positive integer size: digits only (underscores allowed as separators), at least 1.
/// `render --shade`'s long help: the shades' definitions are [`chompute::render::Shade`]'s
/// own formulas (`Shade::formula`), the text docs/guide/pictures.md gives (tested).
pub const SHADE_HELP: &str = "How --fit shades a pixel from its block's exact P-count. With x = \
count/cells, the P-level ℓ (0: no P-cell, 255: all; a grey pixel is 255-ℓ) is `linear` (the \
default) ℓ = round(255x); `sqrt` ℓ = round(255√x); `log` ℓ = round(255(1 + log₂x/64)), 64 octaves \
of density with log₂ interpolated linearly between powers of two, at least 1 for any block with a \
P-cell: for bars too sparse to show linearly. All in exact integer arithmetic, halves up.";

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
    /// Export generations 0..=STEPS stacked as a closed voxel surface: FILE.stl or FILE.ply
    /// (binary) by the extension.
    #[arg(long, value_name = "FILE", alias = "stack")]
    pub mesh: Option<std::path::PathBuf>,
    /// GPU kernel: `block` takes up to 16 steps per dispatch in workgroup memory, `step` one
    /// step per dispatch; `auto` picks block on a real GPU and step on a software one.
    #[arg(long, value_enum, default_value_t = CaKernelChoice::Auto)]
    pub kernel: CaKernelChoice,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// With --verify: print the verification's claims as CSV on stdout.
    #[arg(long, requires = "verify")]
    pub csv: bool,
}

/// The automaton's GPU kernel (`ca --kernel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CaKernelChoice {
    /// Block on a real GPU, step on a software adapter.
    Auto,
    /// One step per dispatch (`ca_step.wgsl`).
    Step,
    /// Many steps per dispatch (`ca_block.wgsl`), tiles sized to the device.
    Block,
}

#[derive(Debug, Args)]
pub struct OctahedronArgs {
    /// Level N: S_N is a union of 6^N octahedra; its sections at integer M ≤ 2^N are P-grids.
    #[arg(value_parser = parse_level)]
    pub n: u32,
    /// Height of the cross-section H_{N,M} (z = 1 - M/2^N): an integer, a decimal such as 5.5,
    /// or a fraction such as 11/2, read exactly.
    #[arg(long, value_name = "M", value_parser = parse_ratio)]
    pub m: Option<chompute::chocolate::octahedron::Ratio>,
    /// The cross-section picture; its extension picks the format (.png, .tiff, .webp, ...).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Pixels per cell side in the cross-section (M times it must be a whole number).
    #[arg(long, value_name = "K", alias = "px", default_value_t = 16, value_parser = parse_size)]
    pub scale: u64,
    /// Check, for every M ≤ 2^N, that the P-cells of C(M,M) are exactly the cells whose centre
    /// points lie in S_N; exit status 1 on a mismatch.
    #[arg(long)]
    pub check: bool,
    /// Export S_N as a mesh: FILE.stl or FILE.ply (binary) by the extension.
    #[arg(long, value_name = "FILE", alias = "stl")]
    pub mesh: Option<std::path::PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// With --check: print the check's claim as CSV on stdout.
    #[arg(long, requires = "check")]
    pub csv: bool,
}

#[derive(Debug, Args)]
pub struct TheoremsArgs {
    /// Check every claim for all m ≤ M (and sampled larger m through the recursions).
    #[arg(long, value_name = "M", value_parser = parse_size)]
    pub max_m: u64,
    /// Check only the claim NAME (repeatable; the claims run in the table's order). An unknown
    /// name is an error that lists them all.
    #[arg(long = "claim", value_name = "NAME")]
    pub claims: Vec<String>,
    /// Print one JSON object on stdout: a `claims` list with one object per claim.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the claims as CSV on stdout, one row per claim.
    #[arg(long)]
    pub csv: bool,
}

/// A level N of the Sierpiński octahedron: 0 ..= 60.
pub fn parse_level(s: &str) -> Result<u32, String> {
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not a level (an integer 0..=60)"));
    }
    match s.parse::<u32>() {
        Ok(n) if n <= chompute::chocolate::octahedron::MAX_LEVEL => Ok(n),
        _ => Err(format!(
            "level '{s}' is larger than {}",
            chompute::chocolate::octahedron::MAX_LEVEL
        )),
    }
}

/// An exact positive rational: 5, 5.5 or 11/2.
pub fn parse_ratio(s: &str) -> Result<chompute::chocolate::octahedron::Ratio, String> {
    chompute::chocolate::octahedron::parse_ratio(s).map_err(|e| e.to_string())
}

/// `--compression`: one of the library's settings by name, listed in `--help`.
fn compression_parser(
) -> impl clap::builder::TypedValueParser<Value = chompute::render::Compression> {
    use clap::builder::TypedValueParser as _;
    let names = chompute::render::Compression::ALL.map(|(name, _)| name);
    clap::builder::PossibleValuesParser::new(names)
        .map(|s| s.parse().expect("one of the listed names"))
}

#[cfg(test)]
mod tests {
    use super::SHADE_HELP;
    use chompute::render::Shade;

    #[test]
    fn the_shade_help_and_the_guide_state_the_codes_formulas() {
        let guide = include_str!("../docs/guide/pictures.md");
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            let said = format!("`{}`", shade.name());
            for text in [SHADE_HELP, guide] {
                let at = text.find(&said).expect("the shade is named");
                let formula = shade.formula();
                assert!(text[at..].contains(formula), "{formula} follows {said}");
            }
        }
        assert!(
            !SHADE_HELP.contains("log₂(1+count)"),
            "the old, wrong curve"
        );
    }
}
