//! The P-grid kernels `ptest.wgsl` (generate) and `pcount.wgsl` (count): buffers, tiling,
//! dispatch and readback. The CPU twin is `chocolate::grid::p_rows_cpu`.
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/foundation.rs.

use super::context::{
    dispatch, dispatch_2d, GpuContext, ParamsArena, Pipeline, Readback, Reusable,
};
use super::kernel::{kernel_params, Access, Kernel, KernelId};
use crate::chocolate::backend::PGridBackend;
use crate::chocolate::Window;
use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// `ptest.wgsl`: one invocation per word of a tile.
pub(crate) const P_ROWS: Kernel = Kernel::with_params::<PtestParams>(
    "ptest.wgsl",
    include_str!("../../shaders/ptest.wgsl"),
    "p_rows",
    [256, 1, 1],
    &[Access::ReadWrite],
);

/// `pcount.wgsl`: one invocation per word, one atomic counter per tile.
pub(crate) const COUNT_P: Kernel = Kernel::with_params::<CountParams>(
    "pcount.wgsl",
    include_str!("../../shaders/pcount.wgsl"),
    "count_p",
    [256, 1, 1],
    &[Access::Read, Access::ReadWrite],
);

/// Invocations per workgroup of both kernels (their shaders' linear index assumes it).
const WORKGROUP: u64 = P_ROWS.workgroup_size[0] as u64;

/// One tile: a band of rows × a run of whole words of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    /// First row, as an offset from the window's row0.
    pub row_start: u64,
    /// Rows in the tile.
    pub rows: u32,
    /// First word of each row, as an offset in words from the window's first column.
    pub word_start: u64,
    /// Words in each row of the tile.
    pub words: u32,
    /// Cells in each row of the tile (the last column run may be partial).
    pub width: u32,
}

/// Split a window into tiles of at most `tile_words` u32 words each, with u32 rows and
/// widths. Column runs are whole words, so a tile's rows are runs of the window's rows.
pub fn plan_tiles(w: &Window, tile_words: u64) -> Vec<Tile> {
    let tile_words = tile_words.max(1);
    let wpr = w.words_per_row() as u64;
    let run = wpr.min(tile_words).min(u32::MAX as u64 / 64);
    let rows_per_tile = (tile_words / run).clamp(1, u32::MAX as u64);
    let mut tiles = Vec::new();
    let mut row = 0;
    while row < w.height {
        let rows = rows_per_tile.min(w.height - row);
        let mut word = 0;
        while word < wpr {
            let words = run.min(wpr - word);
            let width = (w.width - word * 32).min(words * 32);
            tiles.push(Tile {
                row_start: row,
                rows: rows as u32,
                word_start: word,
                words: words as u32,
                width: width as u32,
            });
            word += words;
        }
        row += rows;
    }
    tiles
}

kernel_params! {
    /// Params of `ptest.wgsl`: the pile sizes of the tile's first row and column as (lo, hi)
    /// u32 pairs, and the tile's shape.
    struct PtestParams {
        row_a: [u32; 2],
        row_b: [u32; 2],
        col_a: [u32; 2],
        col_b: [u32; 2],
        height: u32,
        width: u32,
        words_per_row: u32,
        groups_x: u32,
    }
}

kernel_params! {
    /// Params of `pcount.wgsl` (shared with the automaton's live-cell count).
    pub(crate) struct CountParams {
        pub total_words: u32,
        pub groups_x: u32,
        pub slot: u32,
        pub _pad: u32,
    }
}

impl CountParams {
    /// Params and dispatch size for counting `total_words` words into counter `slot`.
    pub fn for_words(total_words: u64, slot: usize, max_per_dim: u32) -> (CountParams, (u32, u32)) {
        let (gx, gy) = dispatch_2d(total_words.div_ceil(WORKGROUP) as u32, max_per_dim);
        let params = CountParams {
            total_words: total_words as u32,
            groups_x: gx,
            slot: slot as u32,
            _pad: 0,
        };
        (params, (gx, gy))
    }
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// Tiles counted per submission (one u32 counter each).
const COUNT_SLOTS: usize = 1024;

/// Runs the P-grid kernels on one GPU context. Build it once and keep it: its buffers (two
/// tiles of words and their staging, the tile counters, the params of a submission) are kept
/// between calls and grow only when a call needs larger tiles than any before, so a renderer
/// or a server can call it for every window without allocating. Calls from several threads
/// take turns.
pub struct PGridGpu {
    ctx: Arc<GpuContext>,
    tile_bytes: u64,
    pool: Mutex<Pool>,
}

/// One tile's device buffers: the words the kernel writes and the staging they are copied to.
struct TileBuffers {
    words: Reusable,
    staging: Reusable,
    /// `ptest.wgsl`'s bind group over `words` (rebuilt when `words` or the params move).
    bind: Option<wgpu::BindGroup>,
}

/// What [`PGridGpu`] keeps between calls.
struct Pool {
    /// Double buffering: while the host reads tile t from one, the GPU fills the other.
    tiles: [TileBuffers; 2],
    counts: Reusable,
    /// `pcount.wgsl`'s bind group over tile 0's words and `counts`.
    count_bind: Option<wgpu::BindGroup>,
    count_readback: Readback,
    params: Option<ParamsArena>,
}

impl Pool {
    fn new() -> Pool {
        let tile = || TileBuffers {
            words: Reusable::new(
                "p-grid tile",
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            ),
            staging: Reusable::new(
                "p-grid staging",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            bind: None,
        };
        Pool {
            tiles: [tile(), tile()],
            counts: Reusable::new(
                "p-grid counts",
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            ),
            count_bind: None,
            count_readback: Readback::default(),
            params: None,
        }
    }

    /// Room for `slots` params; a new arena invalidates every bind group.
    fn ensure_params(&mut self, ctx: &GpuContext, slots: u64) -> Result<&ParamsArena> {
        if self.params.as_ref().is_none_or(|a| a.slots() < slots) {
            let old = self.params.as_ref().map_or(0, |a| a.slots());
            let bytes = P_ROWS.params_bytes.max(COUNT_P.params_bytes);
            self.params = Some(ParamsArena::new(ctx, bytes, slots.max(2 * old))?);
            self.tiles.iter_mut().for_each(|t| t.bind = None);
            self.count_bind = None;
        }
        self.params
            .as_ref()
            .ok_or_else(|| Error::Gpu("p-grid params missing".into()))
    }

    /// Tile buffers `k` of at least `bytes` (at most `cap`), with their bind group.
    fn ensure_tile(
        &mut self,
        ctx: &GpuContext,
        k: usize,
        bytes: u64,
        cap: u64,
        staging: bool,
        ptest: &Pipeline,
    ) -> Result<()> {
        let tile = &mut self.tiles[k];
        if tile.words.ensure(ctx, bytes, cap)? {
            tile.bind = None;
            if k == 0 {
                self.count_bind = None;
            }
        }
        if staging {
            tile.staging.ensure(ctx, bytes, cap)?;
        }
        if tile.bind.is_none() {
            let params = self
                .params
                .as_ref()
                .ok_or_else(|| Error::Gpu("p-grid params missing".into()))?;
            let words = tile.words.get()?.as_entire_binding();
            tile.bind = Some(ctx.bind_group("ptest", ptest, params, &[words]));
        }
        Ok(())
    }

    /// The tile counters and `pcount.wgsl`'s bind group (over tile 0's words).
    fn ensure_counts(&mut self, ctx: &GpuContext, pcount: &Pipeline) -> Result<()> {
        if self
            .counts
            .ensure(ctx, COUNT_SLOTS as u64 * 4, COUNT_SLOTS as u64 * 4)?
        {
            self.count_bind = None;
        }
        if self.count_bind.is_none() {
            let params = self
                .params
                .as_ref()
                .ok_or_else(|| Error::Gpu("p-grid params missing".into()))?;
            let words = self.tiles[0].words.get()?.as_entire_binding();
            let counts = self.counts.get()?.as_entire_binding();
            self.count_bind = Some(ctx.bind_group("pcount", pcount, params, &[words, counts]));
        }
        Ok(())
    }
}

impl PGridGpu {
    /// Tiles as large as one storage binding allows.
    pub fn new(ctx: Arc<GpuContext>) -> PGridGpu {
        let tile_bytes = ctx.max_binding_bytes();
        PGridGpu {
            ctx,
            tile_bytes,
            pool: Mutex::new(Pool::new()),
        }
    }

    /// Smaller tiles (tests use this to exercise multi-tile paths on small grids).
    pub fn with_tile_bytes(ctx: Arc<GpuContext>, tile_bytes: u64) -> PGridGpu {
        let tile_bytes = tile_bytes.clamp(4, ctx.max_binding_bytes());
        PGridGpu {
            ctx,
            tile_bytes,
            pool: Mutex::new(Pool::new()),
        }
    }

    /// The context it runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// The tiles a window is cut into, each within the binding and dispatch limits.
    pub fn tiles(&self, w: &Window) -> Vec<Tile> {
        plan_tiles(w, self.tile_bytes / 4)
    }

    /// Free the pooled buffers (the next call allocates them again).
    pub fn release(&self) {
        if let Ok(mut pool) = self.pool.lock() {
            *pool = Pool::new();
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Pool>> {
        self.pool
            .lock()
            .map_err(|_| Error::Gpu("the p-grid buffers are poisoned".into()))
    }

    /// The params and dispatch size of `ptest.wgsl` for `tile` of `w`.
    fn ptest_params(&self, w: &Window, tile: &Tile) -> (PtestParams, (u32, u32)) {
        let total = tile.rows as u64 * tile.words as u64;
        let groups = total.div_ceil(WORKGROUP) as u32;
        let (gx, gy) = dispatch_2d(groups, self.ctx.limits.max_compute_workgroups_per_dimension);
        let row0 = w.row0 + tile.row_start;
        let col0 = w.col0 + tile.word_start * 32;
        let params = PtestParams {
            row_a: split(row0 - 1),
            row_b: split(w.m - row0),
            col_a: split(col0 - 1),
            col_b: split(w.n - col0),
            height: tile.rows,
            width: tile.width,
            words_per_row: tile.words,
            groups_x: gx,
        };
        (params, (gx, gy))
    }

    /// Generate the packed window into `out` (`w.height × w.words_per_row()` words), tile by
    /// tile, with the same word layout as the CPU twin.
    pub fn p_rows(&self, w: &Window, out: &mut [u32]) -> Result<()> {
        let wpr = w.words_per_row();
        let need = wpr as u128 * w.height as u128;
        if out.len() as u128 != need {
            return Err(Error::bad_argument(
                "the output",
                format!("{} words", out.len()),
                format!("{need} words, the packed window"),
            ));
        }
        let ctx = &*self.ctx;
        let ptest = ctx.pipeline(KernelId::PRows)?;
        let tiles = self.tiles(w);
        let max_bytes = max_tile_words(&tiles) * 4;
        // Double buffering: while the host copies tile t out of one staging buffer, the GPU
        // generates tile t+1 into the other pair of buffers and copies it to its staging.
        let slots = if tiles.len() > 1 { 2 } else { 1 };
        let mut pool = self.lock()?;
        pool.ensure_params(ctx, 2)?;
        for k in 0..slots {
            pool.ensure_tile(ctx, k, max_bytes, self.tile_bytes, true, &ptest)?;
        }
        let pool = &*pool;
        let params = pool
            .params
            .as_ref()
            .ok_or_else(|| Error::Gpu("p-grid params missing".into()))?;
        let submit = |t: usize, tile: &Tile| -> Result<wgpu::SubmissionIndex> {
            let k = t % slots;
            let buffers = &pool.tiles[k];
            let (words, staging) = (buffers.words.get()?, buffers.staging.get()?);
            let bind = buffers
                .bind
                .as_ref()
                .ok_or_else(|| Error::Gpu("p-grid bind group missing".into()))?;
            let (p, groups) = self.ptest_params(w, tile);
            let bytes = tile.rows as u64 * tile.words as u64 * 4;
            ctx.checked(|| {
                params.write(ctx, k as u64, &[p]);
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                dispatch(
                    &mut enc,
                    "ptest",
                    &ptest,
                    bind,
                    params.offset(k as u64),
                    groups,
                );
                enc.copy_buffer_to_buffer(words, 0, staging, 0, bytes);
                ctx.queue.submit([enc.finish()])
            })
        };
        let mut pending = Some(submit(0, &tiles[0])?);
        for (t, tile) in tiles.iter().enumerate() {
            let index = pending
                .take()
                .ok_or_else(|| Error::Gpu("a p-grid tile was not submitted".into()))?;
            if let Some(next) = tiles.get(t + 1) {
                pending = Some(submit(t + 1, next)?);
            }
            let staging = pool.tiles[t % slots].staging.get()?;
            let bytes = tile.rows as u64 * tile.words as u64 * 4;
            // Waits for this tile's submission only, not for the next tile's.
            ctx.map_and_read(staging, bytes, Some(index), |view| {
                let src: &[u32] = bytemuck::cast_slice(view);
                let tw = tile.words as usize;
                for (r, src_row) in src.chunks_exact(tw).enumerate() {
                    let dst = (tile.row_start as usize + r) * wpr + tile.word_start as usize;
                    out[dst..dst + tw].copy_from_slice(src_row);
                }
            })?;
        }
        Ok(())
    }

    /// Count the P-cells of a window: generate each tile, count it with `pcount.wgsl`
    /// (one u32 counter per tile, up to 1024 tiles a submission), and add the tiles
    /// on the host in u128.
    pub fn count(&self, w: &Window) -> Result<u128> {
        let ctx = &*self.ctx;
        let ptest = ctx.pipeline(KernelId::PRows)?;
        let pcount = ctx.pipeline(KernelId::CountP)?;
        let tiles = self.tiles(w);
        let max_bytes = max_tile_words(&tiles) * 4;
        let batch_len = tiles.len().min(COUNT_SLOTS) as u64;
        let mut pool = self.lock()?;
        // Slots [0, batch) hold the tiles' ptest params, [batch, 2·batch) their pcount params.
        pool.ensure_params(ctx, 2 * batch_len)?;
        pool.ensure_tile(ctx, 0, max_bytes, self.tile_bytes, false, &ptest)?;
        pool.ensure_counts(ctx, &pcount)?;
        let pool = &*pool;
        let (params, counts) = match (&pool.params, pool.counts.get()) {
            (Some(p), Ok(c)) => (p, c),
            _ => return Err(Error::Gpu("p-grid count buffers missing".into())),
        };
        let (bind, count_bind) = match (&pool.tiles[0].bind, &pool.count_bind) {
            (Some(b), Some(c)) => (b, c),
            _ => return Err(Error::Gpu("p-grid bind groups missing".into())),
        };
        let mut total: u128 = 0;
        for batch in tiles.chunks(COUNT_SLOTS) {
            let n = batch.len() as u64;
            let (gen, sizes): (Vec<PtestParams>, Vec<(u32, u32)>) =
                batch.iter().map(|t| self.ptest_params(w, t)).unzip();
            let (count, count_sizes): (Vec<CountParams>, Vec<(u32, u32)>) = batch
                .iter()
                .enumerate()
                .map(|(slot, t)| {
                    CountParams::for_words(
                        t.rows as u64 * t.words as u64,
                        slot,
                        ctx.limits.max_compute_workgroups_per_dimension,
                    )
                })
                .unzip();
            ctx.checked(|| {
                params.write(ctx, 0, &gen);
                params.write(ctx, batch_len, &count);
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                enc.clear_buffer(counts, 0, Some(n * 4));
                for i in 0..n {
                    let k = i as usize;
                    dispatch(&mut enc, "ptest", &ptest, bind, params.offset(i), sizes[k]);
                    let offset = params.offset(batch_len + i);
                    dispatch(
                        &mut enc,
                        "pcount",
                        &pcount,
                        count_bind,
                        offset,
                        count_sizes[k],
                    );
                }
                ctx.queue.submit([enc.finish()]);
            })?;
            total += pool.count_readback.read(ctx, counts, 0, n * 4, |bytes| {
                bytemuck::cast_slice::<u8, u32>(bytes)
                    .iter()
                    .map(|&c| c as u128)
                    .sum::<u128>()
            })?;
        }
        Ok(total)
    }
}

impl PGridBackend for PGridGpu {
    fn backend(&self) -> &'static str {
        "gpu"
    }

    fn p_rows(&self, w: &Window, out: &mut [u32]) -> Result<()> {
        PGridGpu::p_rows(self, w, out)
    }

    fn count(&self, w: &Window) -> Result<u128> {
        PGridGpu::count(self, w)
    }
}

/// Words in the largest of `tiles` (the size of the buffers they share), at least 1.
fn max_tile_words(tiles: &[Tile]) -> u64 {
    tiles
        .iter()
        .map(|t| t.rows as u64 * t.words as u64)
        .max()
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_the_window_exactly_once() {
        for (h, wd, tw) in [
            (100, 70, 3),
            (5, 1000, 4),
            (37, 33, 1),
            (1, 1, 8),
            (64, 64, 1 << 20),
        ] {
            let w = Window::new(1000, 1000, 1, 1, h, wd).unwrap();
            let tiles = plan_tiles(&w, tw);
            let wpr = w.words_per_row();
            let mut seen = vec![0u8; wpr * h as usize];
            for t in &tiles {
                assert!(t.rows as u64 * t.words as u64 <= tw.max(1));
                for r in 0..t.rows as u64 {
                    for k in 0..t.words as u64 {
                        seen[((t.row_start + r) * wpr as u64 + t.word_start + k) as usize] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{h}x{wd} tile words {tw}");
        }
    }
}
