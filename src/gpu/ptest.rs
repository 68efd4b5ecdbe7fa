//! The P-grid kernels `ptest.wgsl` (generate) and `pcount.wgsl` (count): buffers, tiling,
//! dispatch and readback. The CPU twin is `chocolate::grid::p_rows_cpu`.

use super::context::{dispatch, dispatch_2d, GpuContext};
use super::kernel::{kernel_params, Access, Kernel};
use crate::chocolate::Window;
use anyhow::Context as _;

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

const PTEST_WGSL: &str = P_ROWS.source;
pub(crate) const PCOUNT_WGSL: &str = COUNT_P.source;
/// Invocations per workgroup of both kernels (their shaders' linear index assumes it).
const WORKGROUP: u64 = P_ROWS.workgroup_size[0] as u64;

/// One tile: a band of rows × a run of whole words of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    /// First row, as an offset from the window's row0.
    pub row_start: u64,
    pub rows: u32,
    /// First word of each row, as an offset in words from the window's first column.
    pub word_start: u64,
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

/// Runs the P-grid kernels on one GPU context.
pub struct PGridGpu<'a> {
    ctx: &'a GpuContext,
    tile_bytes: u64,
}

impl<'a> PGridGpu<'a> {
    /// Tiles as large as one storage binding allows.
    pub fn new(ctx: &'a GpuContext) -> PGridGpu<'a> {
        PGridGpu {
            ctx,
            tile_bytes: ctx.max_binding_bytes(),
        }
    }

    /// Smaller tiles (tests use this to exercise multi-tile paths on small grids).
    pub fn with_tile_bytes(ctx: &'a GpuContext, tile_bytes: u64) -> PGridGpu<'a> {
        PGridGpu {
            ctx,
            tile_bytes: tile_bytes.clamp(4, ctx.max_binding_bytes()),
        }
    }

    pub fn tiles(&self, w: &Window) -> Vec<Tile> {
        plan_tiles(w, self.tile_bytes / 4)
    }

    /// Encode the ptest dispatch for `tile` of `w` into `enc`, writing `words`.
    fn encode_tile(
        &self,
        enc: &mut wgpu::CommandEncoder,
        w: &Window,
        tile: &Tile,
        words: &wgpu::Buffer,
    ) -> anyhow::Result<()> {
        let ctx = self.ctx;
        let pipeline = ctx.pipeline("ptest", PTEST_WGSL, "p_rows")?;
        let total = tile.rows as u64 * tile.words as u64;
        let groups = total.div_ceil(WORKGROUP) as u32;
        let (gx, gy) = dispatch_2d(groups, ctx.limits.max_compute_workgroups_per_dimension);
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
        let bind = ctx.bind_params(
            "ptest",
            &pipeline,
            bytemuck::bytes_of(&params),
            &[wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: words,
                offset: 0,
                size: wgpu::BufferSize::new(total * 4),
            })],
        );
        dispatch(enc, "ptest", &pipeline, &bind, (gx, gy));
        Ok(())
    }

    fn storage(&self, bytes: u64, usage: wgpu::BufferUsages) -> anyhow::Result<wgpu::Buffer> {
        self.ctx.checked(|| {
            self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("p-grid tile"),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        })
    }

    /// Generate the packed window into `out` (`w.height × w.words_per_row()` words), tile by
    /// tile, with the same word layout as the CPU twin.
    pub fn p_rows(&self, w: &Window, out: &mut [u32]) -> anyhow::Result<()> {
        let wpr = w.words_per_row();
        anyhow::ensure!(
            out.len() == wpr * w.height as usize,
            "output buffer does not hold the window"
        );
        let tiles = self.tiles(w);
        let max_words = max_tile_words(&tiles);
        // Double buffering: while the host copies tile t out of one staging buffer, the GPU
        // generates tile t+1 into the other pair of buffers and copies it to its staging.
        let slots = if tiles.len() > 1 { 2 } else { 1 };
        let mut buffers = Vec::with_capacity(slots);
        for _ in 0..slots {
            let words = self.storage(
                max_words * 4,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )?;
            let staging = self.storage(
                max_words * 4,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )?;
            buffers.push((words, staging));
        }
        let submit = |tile: &Tile, (words, staging): &(wgpu::Buffer, wgpu::Buffer)| {
            let bytes = tile.rows as u64 * tile.words as u64 * 4;
            self.ctx
                .checked(|| -> anyhow::Result<wgpu::SubmissionIndex> {
                    let mut enc = self.ctx.device.create_command_encoder(&Default::default());
                    self.encode_tile(&mut enc, w, tile, words)?;
                    enc.copy_buffer_to_buffer(words, 0, staging, 0, bytes);
                    Ok(self.ctx.queue.submit([enc.finish()]))
                })?
        };
        let mut pending = Some(submit(&tiles[0], &buffers[0])?);
        for (t, tile) in tiles.iter().enumerate() {
            let index = pending.take().context("GPU tile was not submitted")?;
            if let Some(next) = tiles.get(t + 1) {
                pending = Some(submit(next, &buffers[(t + 1) % slots])?);
            }
            let staging = &buffers[t % slots].1;
            let bytes = tile.rows as u64 * tile.words as u64 * 4;
            let (tx, rx) = std::sync::mpsc::channel();
            staging
                .slice(..bytes)
                .map_async(wgpu::MapMode::Read, move |r| {
                    let _ = tx.send(r);
                });
            // Wait for this tile's submission only, not for the next tile's.
            self.ctx
                .device
                .poll(wgpu::PollType::Wait {
                    submission_index: Some(index),
                    timeout: None,
                })
                .map_err(|e| anyhow::anyhow!("GPU poll failed: {e}"))?;
            rx.recv()
                .context("GPU readback dropped")?
                .map_err(|e| anyhow::anyhow!("GPU readback failed: {e}"))?;
            {
                let view = staging
                    .slice(..bytes)
                    .get_mapped_range()
                    .map_err(|e| anyhow::anyhow!("GPU readback failed: {e}"))?;
                let src: &[u32] = bytemuck::cast_slice(&view);
                let tw = tile.words as usize;
                for (r, src_row) in src.chunks_exact(tw).enumerate() {
                    let dst = (tile.row_start as usize + r) * wpr + tile.word_start as usize;
                    out[dst..dst + tw].copy_from_slice(src_row);
                }
            }
            staging.unmap();
        }
        Ok(())
    }

    /// Count the P-cells of a window: generate each tile, count it with `pcount.wgsl`
    /// (one u32 counter per tile), and add the tiles on the host in u128.
    pub fn count(&self, w: &Window) -> anyhow::Result<u128> {
        let ctx = self.ctx;
        let count_pipeline = ctx.pipeline("pcount", PCOUNT_WGSL, "count_p")?;
        let tiles = self.tiles(w);
        let max_words = max_tile_words(&tiles);
        let words = self.storage(max_words * 4, wgpu::BufferUsages::STORAGE)?;
        const SLOTS: usize = 1024;
        let counts = self.storage(
            SLOTS as u64 * 4,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        )?;
        let mut total: u128 = 0;
        for batch in tiles.chunks(SLOTS) {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(&counts, 0, None);
            ctx.queue.submit([enc.finish()]);
            for (slot, tile) in batch.iter().enumerate() {
                let (params, (gx, gy)) = CountParams::for_words(
                    tile.rows as u64 * tile.words as u64,
                    slot,
                    ctx.limits.max_compute_workgroups_per_dimension,
                );
                ctx.checked(|| -> anyhow::Result<()> {
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    self.encode_tile(&mut enc, w, tile, &words)?;
                    let bind = ctx.bind_params(
                        "pcount",
                        &count_pipeline,
                        bytemuck::bytes_of(&params),
                        &[words.as_entire_binding(), counts.as_entire_binding()],
                    );
                    dispatch(&mut enc, "pcount", &count_pipeline, &bind, (gx, gy));
                    ctx.queue.submit([enc.finish()]);
                    Ok(())
                })??;
            }
            let slots = ctx.read_back(&counts, batch.len() as u64 * 4, |bytes| {
                bytemuck::cast_slice::<u8, u32>(bytes).to_vec()
            })?;
            total += slots.iter().map(|&c| c as u128).sum::<u128>();
        }
        Ok(total)
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
