//! The arguments of the two-player table commands `chomp solve`, `chomp query` and `chomp bites`
//! (`chomp grundy`'s are in cli/chomp.rs).
//! What they do is in cmd/chomp_solve.rs.
//!
//! Tests: the command as users run it in tests/faults/cli.rs, tests/games/blocks.rs,
//! tests/games/chomp/two_player.rs, tests/games/tables.rs.

use super::format::{JsonOnly, Offer, Output};
use clap::Args;

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
    /// -o, a table that is larger is solved in blocks that fit, with the same file.
    #[arg(long, value_name = "SIZE", value_parser = chompute::memory::parse_bytes)]
    pub memory: Option<u64>,
    /// With -o: solve only share I of N, counted from 1 (1 ≤ I ≤ N), of the next wave of
    /// blocks (a square box is planned in 2·side waves, the blocks of one wave independent;
    /// other boxes are one chain of windows, solved by one process), record it in
    /// FILE.blocks/ and exit; a run without --part finishes what is left and writes FILE. For
    /// job arrays.
    #[arg(long, value_name = "I/N", requires = "output", value_parser = chompute::chomp::two_player::block_plan::Part::parse)]
    pub part: Option<chompute::chomp::two_player::block_plan::Part>,
    /// Print the plan of blocks this run would follow (or, with -o, the one its checkpoint
    /// folder follows, with the pieces done) and exit: pieces, waves, bits per wave. With
    /// --part (any), the plan in waves.
    #[arg(long)]
    pub plan: bool,
    /// With --backend gpu: also print the winning bites of every rectangle of the box, read
    /// from the table on the device (as `chomp bites --table` reads them from a file), for a
    /// box whose table the host cannot hold.
    #[arg(long)]
    pub bites: bool,
    #[command(flatten)]
    pub format: Output<JsonOnly>,
}

#[derive(Debug, Args)]
pub struct ChompQueryArgs {
    /// A saved table of any of the four kinds, as its first line says: `chomp solve -o` (one
    /// bit a position: P or N and the winning bites), `chomp grundy -o` (Grundy values: the
    /// value and a move to each smaller one), `chomp ord -o` (n-player ordinals: the ordinal,
    /// Sol and a solution chain) or `chomp cells -o` (one bit a diagram of at most N cells, no
    /// box: P or N and the winning bites). A bite is named by the cell it takes, (row, column)
    /// from the poisoned corner (1,1), and the position it leaves.
    #[arg(value_name = "FILE")]
    pub table: std::path::PathBuf,
    /// The position: row lengths a,b,c (top row first).
    #[arg(long, value_parser = chompute::chomp::Diagram::parse)]
    pub position: chompute::chomp::Diagram,
    /// Read the whole table first, check every chunk's CRC-32 and recount what the header
    /// says (the P-positions, the largest Grundy value, or the ordinals' histogram).
    #[arg(long)]
    pub verify: bool,
    #[command(flatten)]
    pub format: Output<JsonOnly>,
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
    #[command(flatten)]
    pub format: Output<ChompBitesOutput>,
}

/// `chomp bites`'s output flags.
pub struct ChompBitesOutput;
impl Offer for ChompBitesOutput {
    const CSV: Option<&'static str> =
        Some("Print CSV on stdout: rows,cols,winning_bites,bites,cells.");
}
