//! `chompute info`: the adapter and limits.
//! What they do is in cmd/info.rs.
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/pictures/cli_foundation.rs.

use super::format::{JsonOnly, Output};
use clap::Args;

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub format: Output<JsonOnly>,
}
