//! `chompute serve`: parse the options, start the server of `chompute::serve`, print its URL.
//!
//! Tests: the command as users run it in tests/common/http.rs, tests/faults/serve.rs,
//! tests/serve.rs.

use crate::cli::ServeArgs;
use anyhow::anyhow;
use chompute::gpu::BackendChoice;
use chompute::serve::{run as serve, Config, Limits};
use std::io::Write;
use std::net::SocketAddr;

pub fn run(backend: BackendChoice, args: &ServeArgs) -> anyhow::Result<()> {
    let cache_bytes = args
        .cache_mb
        .checked_mul(1 << 20)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| anyhow!("--cache-mb {} is more memory than there is", args.cache_mb))?;
    // A full cache is memory in use: refused at start, as `render` refuses a job that cannot
    // fit, not when it has filled.
    chompute::memory::ensure_available(
        cache_bytes as u64,
        &format!("--cache-mb {}", args.cache_mb),
        "give a smaller --cache-mb",
    )?;
    // `auto` decides as for `render`; built once for the server's life.
    let engine = super::engine(backend, chompute::gpu::Job::Render)?;
    let config = Config {
        addr: SocketAddr::new(args.bind, args.port),
        cache_bytes,
        engine,
        workers: 0,
        limits: Limits::default(),
    };
    serve(config, |addr| {
        // The first line is the URL, flushed at once: scripts and tests read it to connect.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "http://{addr}/");
        let _ = out.flush();
    })
    .map_err(|e| anyhow!("{e}"))
}
