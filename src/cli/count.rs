//! `chompute count`: exact P-counts of a bar, a window, or g(m) over a range.
//! What they do is in cmd/count.rs.
//!
//! Tests: the command as users run it in tests/, tests/faults/, tests/pictures/, tests/project/.

use super::format::{Offer, Output};
use super::values::{library, parse_range, parse_size};
use chompute::chocolate::grid::WindowRect;
use clap::Args;

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
    #[command(flatten)]
    pub format: Output<CountOutput>,
}

/// `count`'s output flags.
pub struct CountOutput;
impl Offer for CountOutput {
    const CSV: Option<&'static str> =
        Some("Print CSV on stdout with a header row (the methods, or the --range values).");
    const BFILE: Option<&'static str> =
        Some("With --range: print an OEIS b-file, `m g(m)` per line.");
    const BFILE_NEEDS: Option<&'static str> = Some("range");
}
