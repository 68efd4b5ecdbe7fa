//! `chompute grid`: the P-grid as text.
//! What they do is in cmd/grid.rs.
//!
//! Tests: the command as users run it in tests/faults/, tests/pictures/.

use super::values::parse_size;
use clap::Args;

#[derive(Debug, Args)]
pub struct GridArgs {
    /// Rows of the bar (at most 2^20 as text).
    #[arg(value_parser = parse_size)]
    pub m: u64,
    /// Columns of the bar (default: M; at most 1024 as text).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
}
