//! `chompute nimpass` and `nimpass-grid`: Nim with one shared pass.
//! What they do is in cmd/nimpass.rs.
//!
//! Tests: the command as users run it in tests/faults/, tests/games/, tests/pictures/.

use super::format::{Offer, Output};
use super::values::{int_in, parse_count, parse_range, parse_size};
use clap::Args;

#[derive(Debug, Args)]
pub struct NimpassArgs {
    /// Number of heaps: 2, 3 or 4.
    #[arg(long, value_parser = int_in::<u8>(2..=4))]
    pub heaps: u8,
    /// Largest heap size: heaps run over 0..=M.
    #[arg(long, value_name = "M", value_parser = parse_count)]
    pub max: u64,
    /// List the P-positions, sorted, one per line (default: only count them).
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub format: Output<NimpassOutput>,
}

/// `nimpass`'s output flags.
pub struct NimpassOutput;
impl Offer for NimpassOutput {
    const CSV: Option<&'static str> = Some(
        "Print CSV on stdout with a header row: the listed positions (h1,…,hK), or the count.",
    );
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
    #[arg(long, default_value_t = 1, value_parser = int_in::<u32>(1..=256))]
    pub scale: u32,
    /// Print, for each M in A..B (inclusive), the number of pass P-cells and plain P-cells.
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub counts: Option<(u64, u64)>,
    #[command(flatten)]
    pub format: Output<NimpassGridOutput>,
}

/// `nimpass-grid`'s output flags.
pub struct NimpassGridOutput;
impl Offer for NimpassGridOutput {
    const CSV: Option<&'static str> = Some("With --counts: CSV on stdout with a header row.");
    const CSV_NEEDS: Option<&'static str> = Some("counts");
    const BFILE: Option<&'static str> =
        Some("With --counts: an OEIS b-file of the pass P-cell counts, `M count` per line.");
    const BFILE_NEEDS: Option<&'static str> = Some("counts");
}
