//! `chompute info`: the adapter and limits.
//! What they do is in cmd/info.rs.

use super::format::{JsonOnly, Output};
use clap::Args;

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub format: Output<JsonOnly>,
}
