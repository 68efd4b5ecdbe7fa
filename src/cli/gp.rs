//! `chompute gp`: two-heap Nim with a pass, the table G_P.
//! What they do is in cmd/gp.rs.
//!
//! Tests: the command as users run it in tests/faults/, tests/games/.

use super::format::{Offer, Output};
use super::values::parse_size;
use clap::Args;

#[derive(Debug, Args)]
pub struct GpArgs {
    /// Side of the table: 0 <= x,y < N.
    #[arg(value_parser = parse_size)]
    pub n: u64,
    /// Verify Lemmas 6, 7, 8 and distinct rows and columns over the whole table; print the
    /// report instead of the table. Exit status 1 if a claim fails.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub format: Output<GpOutput>,
}

/// `gp`'s output flags.
pub struct GpOutput;
impl Offer for GpOutput {
    const CSV: Option<&'static str> = Some("Print the table as CSV: a header row `x,0,1,…`, then x and the row G_P(x,·) (with --check: the claims).");
}
