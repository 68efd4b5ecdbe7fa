//! `chompute serve`: where the live deep zoom listens and how much it caches.
//! What they do is in cmd/serve.rs.
//!
//! Tests: the command as users run it in tests/common/http.rs, tests/faults/serve.rs,
//! tests/serve.rs.

use super::values::{parse_count, parse_int};
use clap::Args;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (0.0.0.0 or :: for every interface).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// The port; 0 takes a free one.
    #[arg(long, value_name = "P", default_value_t = 8080, value_parser = parse_int::<u16>)]
    pub port: u16,
    /// Memory for the cache of encoded tiles, in MiB (0: no cache).
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = parse_count)]
    pub cache_mb: u64,
}
