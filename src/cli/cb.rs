//! `chompute cb`: the 3-D chocolate bar CB(F,x,y,z).
//! What they do is in cmd/cb.rs.
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/games/pass.rs, tests/pictures/cli_outputs.rs.

use super::format::{Offer, Output};
use super::values::parse_bound;
use clap::Args;

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
    #[command(flatten)]
    pub format: Output<CbOutput>,
}

/// `cb`'s output flags.
pub struct CbOutput;
impl Offer for CbOutput {
    const CSV: Option<&'static str> =
        Some("Print every position and its Grundy number as CSV (with --check: the claims).");
}
