//! `chompute grid M [N]`: the P-grid as text.
//!
//! Tests: the command as users run it in tests/faults/, tests/pictures/.

use crate::cli::GridArgs;
use anyhow::anyhow;
use chompute::chocolate::grid::Window;
use chompute::gpu::Engine;
use chompute::render::figures::text_row;
use std::io::Write;

/// Widest bar printed as text; beyond this a picture (`render`) is the way to look.
pub const MAX_TEXT_COLUMNS: u64 = 1024;
/// Most rows printed as text.
pub const MAX_TEXT_ROWS: u64 = 1 << 20;

pub fn run(engine: Engine, args: &GridArgs) -> anyhow::Result<()> {
    let (m, n) = (args.m, args.n.unwrap_or(args.m));
    if n > MAX_TEXT_COLUMNS || m > MAX_TEXT_ROWS {
        return Err(anyhow!(
            "C({m},{n}) is too large to read as text (at most {MAX_TEXT_ROWS} rows and {MAX_TEXT_COLUMNS} columns); use `chompute render`"
        ));
    }
    let mut out = super::out::stdout();
    let mut line = Vec::with_capacity(n as usize + 1);
    // Bands of rows keep memory small for tall bars.
    const BAND: u64 = 4096;
    let full = Window::full(m, n)?;
    let wpr = full.words_per_row();
    let grid = engine.p_grid();
    let mut start = 0;
    while start < m {
        let band = full.rows(start, BAND.min(m - start));
        let mut words = vec![0u32; wpr * band.height as usize];
        grid.p_rows(&band, &mut words).map_err(super::on_gpu)?;
        for row in words.chunks_exact(wpr) {
            line.clear();
            text_row(row, n, &mut line);
            line.push(b'\n');
            out.write_all(&line)?;
        }
        start += band.height;
    }
    out.flush()?;
    Ok(())
}
