//! `chompute theorems`: the chocolate paper's claims, checked.
//! What they do is in cmd/theorems.rs.
//!
//! Tests: the command as users run it in tests/engine/theorems.rs, tests/faults/backend.rs,
//! tests/faults/pipes.rs, tests/pictures/cli_outputs.rs.

use super::format::{Offer, Output};
use super::values::parse_size;
use clap::Args;

#[derive(Debug, Args)]
pub struct TheoremsArgs {
    /// Check every claim for all m ≤ M (and sampled larger m through the recursions).
    #[arg(long, value_name = "M", value_parser = parse_size)]
    pub max_m: u64,
    /// Check only the claim NAME (repeatable; the claims run in the table's order). An unknown
    /// name is an error that lists them all.
    #[arg(long = "claim", value_name = "NAME")]
    pub claims: Vec<String>,
    #[command(flatten)]
    pub format: Output<TheoremsOutput>,
}

/// `theorems`'s output flags.
pub struct TheoremsOutput;
impl Offer for TheoremsOutput {
    const JSON: &'static str =
        "Print one JSON object on stdout: a `claims` list with one object per claim.";
    const CSV: Option<&'static str> = Some("Print the claims as CSV on stdout, one row per claim.");
}
