//! `chompute bench`: GPU against CPU.
//! What they do is in cmd/bench.rs.
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs, tests/faults/backend.rs,
//! tests/faults/pipes.rs.

use super::format::{Offer, Output};
use super::values::parse_steps;
use clap::Args;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Smaller sizes, for a quick look (and for tests).
    #[arg(long)]
    pub quick: bool,
    /// Automaton steps for the `ca` benchmark (default: scaled to the adapter, 32767 on a real
    /// GPU; the CPU runs min(this, 4095)).
    #[arg(long, value_name = "STEPS", value_parser = parse_steps)]
    pub ca_steps: Option<u64>,
    /// Save the measured rates for `--backend auto` in the cache directory
    /// ($XDG_CACHE_HOME/chompute/rates.json or ~/.cache/chompute/rates.json), keyed by this
    /// adapter, its driver and the CPU count; `chompute info` then shows the choices.
    #[arg(long)]
    pub save: bool,
    #[command(flatten)]
    pub format: Output<BenchOutput>,
}

/// `bench`'s output flags.
pub struct BenchOutput;
impl Offer for BenchOutput {
    const CSV: Option<&'static str> =
        Some("Print every measurement as CSV on stdout, with a header row.");
}
