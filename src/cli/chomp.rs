//! `chompute chomp`: its subcommands, and the arguments of the multiplayer ones (`ord`, `classes`,
//! `image`) and of `grundy` and `cells`.
//! What they do is in cmd/chomp.rs, cmd/chomp_solve.rs.
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/games/chomp/multiplayer.rs, tests/pictures/cli_outputs.rs.

use super::chomp_solve::{ChompBitesArgs, ChompQueryArgs, ChompSolveArgs};
use super::format::{Format, Offer, Output, FORMAT_FLAGS};
use super::values::{int_in, parse_count, parse_int, parse_range, parse_size};
use clap::{Args, Subcommand};

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
    /// Two-player Chomp: P or N for every position of a box at one bit each (one bit a
    /// transposed pair for squares); with -o, a saved
    /// table that an interrupted run resumes.
    Solve(ChompSolveArgs),
    /// One position of a saved table: (a one-bit or cells table) P or N and every winning bite,
    /// (a Grundy table) its value and a move to each smaller value, or (an ordinal table) its
    /// ordinal, Sol and a solution chain.
    Query(ChompQueryArgs),
    /// The winning bites of every rectangle of a box, each as the cell bitten and the
    /// P-position it leaves.
    Bites(ChompBitesArgs),
    /// The Grundy value (nim-value) of every position of a box, of one position, or of every
    /// partition of at most N cells; with -o, a saved table that an interrupted run resumes.
    Grundy(ChompGrundyArgs),
    /// For every n up to N: the Young diagrams of n cells and how many are P-positions.
    Cells(ChompCellsArgs),
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
    #[arg(long, value_name = "K", value_parser = parse_int::<u8>)]
    pub list: Option<u8>,
    /// Verify Theorems 2.7, 2.8, Fact 2.9 and the Res form of Fact 2.10 over the box.
    #[arg(long)]
    pub check: bool,
    /// Save the table to FILE for `chomp query FILE` (the packed engine). Resumable: the
    /// finished layers are kept in FILE.partial, and a run stopped and started again goes on
    /// from them.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Also report the ordinal and Sol (the optimal first bites, as the positions they leave)
    /// of every rectangle of the box.
    #[arg(long)]
    pub rectangles: bool,
    /// The engine: `auto` (three-row for 3-row boxes, else packed), `packed` (⌈log2(n+1)⌉ bits
    /// an entry, in parallel; a square keeps one entry a transposed pair), `packed-colex` (the
    /// packed table of every position by colex rank), `general`, `layers` or `three-row` (one
    /// byte a position); all give the same ordinals.
    #[arg(long, value_enum, default_value_t = chompute::chomp::multiplayer::ordinal::OrdEngine::Auto)]
    pub engine: chompute::chomp::multiplayer::ordinal::OrdEngine,
    #[command(flatten)]
    pub format: Output<ChompOrdOutput>,
}

/// `chomp ord`'s output flags.
pub struct ChompOrdOutput;
impl Offer for ChompOrdOutput {
    const CSV: Option<&'static str> =
        Some("Print CSV on stdout (the histogram, or the list; with --check: the claims).");
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
    #[command(flatten)]
    pub format: Output<ChompClassesOutput>,
}

/// `chomp classes`'s output flags.
pub struct ChompClassesOutput;
impl Offer for ChompClassesOutput {
    const CSV: Option<&'static str> = Some("Print CSV on stdout with a header row: one row per class (or per N for a range; with --check: the claims).");
    const BFILE: Option<&'static str> = Some(
        "Print the class counts as an OEIS b-file, `N classes` per line (for --players A..B).",
    );
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
    #[arg(long, default_value_t = 3, value_parser = parse_int::<u32>)]
    pub rows: u32,
    /// A: the first row (rows 3) or the largest first row (rows 2).
    #[arg(long, value_name = "A", value_parser = parse_int::<u32>)]
    pub first_row: u32,
    /// Pixels per position (default: enough for a picture about 600 pixels wide).
    #[arg(long, value_parser = parse_int::<u32>)]
    pub scale: Option<u32>,
    /// The picture to write; its extension picks the format (.png, .tiff, .webp, ...).
    #[arg(short, long, value_name = "FILE")]
    pub output: std::path::PathBuf,
}

#[derive(Debug, Args)]
pub struct ChompGrundyArgs {
    /// The box ROWSxCOLUMNS (default, with --position: the smallest box holding it).
    #[arg(long = "box", value_parser = chompute::chomp::ChompBox::parse, required_unless_present_any = ["position", "findstat"])]
    pub shape: Option<chompute::chomp::ChompBox>,
    /// Report this position's Grundy value and a move to each smaller value (the cell bitten
    /// and the position left), as `chomp query` of a saved table does: row lengths a,b,c.
    #[arg(long, value_parser = chompute::chomp::Diagram::parse, conflicts_with_all = ["bfile", "output"])]
    pub position: Option<chompute::chomp::Diagram>,
    /// With --position: also draw it, every cell coloured by the Grundy value of what its bite
    /// leaves (value 0: a winning bite), the poisoned corner (1,1) at the top left.
    #[arg(long, value_name = "FILE", requires = "position")]
    pub picture: Option<std::path::PathBuf>,
    /// Print every partition of n ≤ N cells with its Grundy value, one `[λ] => value` a line,
    /// as FindStat's statistic St000681 lists them (n ascending, then reverse lexicographic
    /// order; N ≤ 50). No box: the diagrams of n cells are the partitions of n.
    #[arg(long, value_name = "N", value_parser = parse_int::<u32>, conflicts_with_all = ["shape", "position", "bfile", "output", "by_rank", "value_bytes", FORMAT_FLAGS])]
    pub findstat: Option<u32>,
    /// Print one sequence as an OEIS b-file (`n value` per line).
    #[arg(long, value_enum, value_name = "SEQUENCE", conflicts_with = FORMAT_FLAGS)]
    pub bfile: Option<chompute::chomp::two_player::grundy::GrundySequence>,
    /// Bytes a value takes in memory and in the -o file: 1 (the default; exact to 256 cells,
    /// checked above) or 2.
    #[arg(long, value_name = "BYTES", value_parser = int_in::<u8>(1..=2))]
    pub value_bytes: Option<u8>,
    /// Also save the table (every position's value) here, for `chomp query`; finished layers
    /// go to FILE.partial, and the same command resumes from it.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Keep a value for every position by colex rank, on a square too (a square otherwise
    /// keeps one value for each pair of transposed positions, about two thirds of them).
    #[arg(long)]
    pub by_rank: bool,
    #[command(flatten)]
    pub format: Output<ChompGrundyOutput>,
}

impl ChompGrundyArgs {
    /// The format asked for: `--bfile SEQUENCE` is a b-file of that sequence.
    pub fn format(&self) -> Format {
        match self.bfile {
            Some(_) => Format::Bfile,
            None => self.format.get(),
        }
    }
}

/// `chomp grundy`'s output flags (its `--bfile` takes the sequence, so it is its own).
pub struct ChompGrundyOutput;
impl Offer for ChompGrundyOutput {
    const CSV: Option<&'static str> =
        Some("Print CSV on stdout: rows,cols,grundy for every rectangle.");
}

#[derive(Debug, Args)]
pub struct ChompCellsArgs {
    /// The largest number of cells N.
    #[arg(long, value_name = "N", value_parser = parse_int::<u32>)]
    pub max: u32,
    /// The engine: `forward` (each P-position marks its parents) or `scan` (each diagram
    /// reads its options, the twin); both give the same counts.
    #[arg(long, value_enum, default_value_t = chompute::chomp::two_player::cells::CellsEngine::Forward)]
    pub engine: chompute::chomp::two_player::cells::CellsEngine,
    /// Also save the bits of every diagram here (`chompute chomp cells-table 2`, read by
    /// `chomp query`); the run keeps its state in FILE.partial, written in place now and
    /// then, and the same command resumes from it. Forward engine only.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// With -o: save the state when a quarter of the run so far has passed since the last save,
    /// never closer than SECONDS and never more than 1/10 of the time (0: after
    /// every number of cells).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60,
        requires = "output",
        value_parser = parse_count
    )]
    pub save_every: u64,
    #[command(flatten)]
    pub format: Output<ChompCellsOutput>,
}

/// `chomp cells`'s output flags.
pub struct ChompCellsOutput;
impl Offer for ChompCellsOutput {
    const CSV: Option<&'static str> = Some("Print CSV on stdout: n,diagrams,p_positions.");
    const BFILE: Option<&'static str> =
        Some("Print the P-position counts as an OEIS b-file (`n count` per line).");
}
