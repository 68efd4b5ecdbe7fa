//! Block counts of fitted pictures on the GPU: `block_count.wgsl`, one invocation per block,
//! each running the digit programme on its four corners. The CPU twin is
//! `chocolate::window` (`p_prefix` and `BlockGrid::counts`): the same state encoding, the
//! same corners, the same inclusion–exclusion; the host computes the corners (exact u64) and
//! reads back each block's count as four u32 limbs.
//!
//! Tests: tests/engine/foundation.rs, tests/pictures/window.rs.

use super::context::{dispatch, dispatch_2d, GpuContext, ParamsArena, Readback, Reusable};
use super::kernel::{kernel_params, Access, Kernel, KernelId};
use crate::chocolate::backend::BlockCountBackend;
use crate::chocolate::window::{BlockGrid, BlockRect};
use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// `block_count.wgsl`: one invocation per block; row corners, column corners, counts.
pub(crate) const BLOCK_COUNTS: Kernel = Kernel::with_params::<BlockCountParams>(
    "block_count.wgsl",
    include_str!("../../shaders/block_count.wgsl"),
    "block_counts",
    [64, 1, 1],
    &[Access::Read, Access::Read, Access::ReadWrite],
);

/// Invocations per workgroup (the shader's linear index assumes it).
const WORKGROUP: u64 = BLOCK_COUNTS.workgroup_size[0] as u64;

kernel_params! {
    /// Params of `block_count.wgsl`: M = m-1 and N = n-1 as (lo, hi) u32 pairs, and the
    /// blocks of one dispatch, `rows × cols`.
    struct BlockCountParams {
        m1: [u32; 2],
        n1: [u32; 2],
        rows: u32,
        cols: u32,
        groups_x: u32,
        _pad: u32,
    }
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// A corner as the kernel reads it: (lo, hi, valid, 0).
fn corner_words(c: Option<u64>) -> [u32; 4] {
    match c {
        Some(v) => [v as u32, (v >> 32) as u32, 1, 0],
        None => [0; 4],
    }
}

/// What [`BlockCountGpu`] keeps between calls.
struct Pool {
    row_corners: Reusable,
    col_corners: Reusable,
    counts: Reusable,
    readback: Readback,
    params: Option<ParamsArena>,
    /// The bind group over the three buffers (rebuilt when one of them moves).
    bind: Option<wgpu::BindGroup>,
}

impl Pool {
    fn new() -> Pool {
        let input = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        Pool {
            row_corners: Reusable::new("block_count row corners", input),
            col_corners: Reusable::new("block_count column corners", input),
            counts: Reusable::new(
                "block counts",
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: Readback::default(),
            params: None,
            bind: None,
        }
    }
}

/// Runs `block_count.wgsl` on one GPU context. Build it once and keep it: its buffers grow
/// only when a call needs more blocks than any before. Calls from several threads take turns.
pub struct BlockCountGpu {
    ctx: Arc<GpuContext>,
    max_blocks: u64,
    pool: Mutex<Pool>,
}

impl BlockCountGpu {
    /// Dispatches as large as one storage binding allows (16 bytes a block).
    pub fn new(ctx: Arc<GpuContext>) -> BlockCountGpu {
        let max_blocks = (ctx.max_binding_bytes() / 16).clamp(1, u32::MAX as u64);
        BlockCountGpu {
            ctx,
            max_blocks,
            pool: Mutex::new(Pool::new()),
        }
    }

    /// Smaller dispatches (tests use this to exercise the multi-dispatch paths).
    pub fn with_max_blocks(ctx: Arc<GpuContext>, max_blocks: u64) -> BlockCountGpu {
        let mut k = BlockCountGpu::new(ctx);
        k.max_blocks = max_blocks.clamp(1, k.max_blocks);
        k
    }

    /// The most blocks one dispatch counts.
    pub fn max_blocks(&self) -> u64 {
        self.max_blocks
    }

    /// Exact P-counts of blocks `blocks` of `grid`, row-major:
    /// the same values as [`BlockGrid::counts`], in dispatches of at most
    /// [`BlockCountGpu::max_blocks`] blocks.
    pub fn counts(&self, grid: &BlockGrid, blocks: BlockRect) -> Result<Vec<u128>> {
        let BlockRect {
            row0: by0,
            rows,
            col0: bx0,
            cols,
        } = blocks;
        grid.check_range(blocks)?;
        let max = self.max_blocks;
        let mut out = Vec::with_capacity((rows * cols) as usize);
        if cols > max {
            // Column runs of at most `max` blocks, one row at a time.
            for r in 0..rows {
                let mut x = 0;
                while x < cols {
                    let w = max.min(cols - x);
                    out.extend(self.dispatch(grid, BlockRect::new(by0 + r, 1, bx0 + x, w))?);
                    x += w;
                }
            }
            return Ok(out);
        }
        let band = (max / cols).max(1);
        let mut y = 0;
        while y < rows {
            let h = band.min(rows - y);
            out.extend(self.dispatch(grid, BlockRect::new(by0 + y, h, bx0, cols))?);
            y += h;
        }
        Ok(out)
    }

    /// One dispatch: `rows × cols` ≤ max_blocks blocks.
    fn dispatch(&self, grid: &BlockGrid, blocks: BlockRect) -> Result<Vec<u128>> {
        let BlockRect {
            row0: by0,
            rows,
            col0: bx0,
            cols,
        } = blocks;
        let ctx = &*self.ctx;
        let pipeline = ctx.pipeline(KernelId::BlockCounts)?;
        let blocks = rows * cols;
        let row_corners: Vec<[u32; 4]> = (0..=rows)
            .map(|k| corner_words(grid.corner_row(by0 + k)))
            .collect();
        let col_corners: Vec<[u32; 4]> = (0..=cols)
            .map(|k| corner_words(grid.corner_col(bx0 + k)))
            .collect();
        let (gx, gy) = dispatch_2d(
            blocks.div_ceil(WORKGROUP) as u32,
            ctx.limits.max_compute_workgroups_per_dimension,
        );
        let params = BlockCountParams {
            m1: split(grid.window.m - 1),
            n1: split(grid.window.n - 1),
            rows: rows as u32,
            cols: cols as u32,
            groups_x: gx,
            _pad: 0,
        };
        let out_bytes = blocks * 16;
        let cap = ctx.max_binding_bytes();
        let mut pool = self
            .pool
            .lock()
            .map_err(|_| Error::Gpu("the block-count buffers are poisoned".into()))?;
        if pool.params.is_none() {
            pool.params = Some(ParamsArena::new(ctx, BLOCK_COUNTS.params_bytes, 1)?);
            pool.bind = None;
        }
        let mut moved = pool.row_corners.ensure(ctx, (rows + 1) * 16, cap)?;
        moved |= pool.col_corners.ensure(ctx, (cols + 1) * 16, cap)?;
        moved |= pool.counts.ensure(ctx, out_bytes, cap)?;
        if moved || pool.bind.is_none() {
            let bind = {
                let p = &*pool;
                let arena = p
                    .params
                    .as_ref()
                    .ok_or_else(|| Error::Gpu("block-count params missing".into()))?;
                ctx.bind_group(
                    "block_count",
                    &pipeline,
                    arena,
                    &[
                        p.row_corners.get()?.as_entire_binding(),
                        p.col_corners.get()?.as_entire_binding(),
                        p.counts.get()?.as_entire_binding(),
                    ],
                )
            };
            pool.bind = Some(bind);
        }
        let p = &*pool;
        let (arena, bind) = match (&p.params, &p.bind) {
            (Some(a), Some(b)) => (a, b),
            _ => return Err(Error::Gpu("block-count bind group missing".into())),
        };
        let (rows_buf, cols_buf, counts) =
            (p.row_corners.get()?, p.col_corners.get()?, p.counts.get()?);
        ctx.checked(|| {
            ctx.queue
                .write_buffer(rows_buf, 0, bytemuck::cast_slice(&row_corners));
            ctx.queue
                .write_buffer(cols_buf, 0, bytemuck::cast_slice(&col_corners));
            arena.write(ctx, 0, &[params]);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            dispatch(
                &mut enc,
                "block_count",
                &pipeline,
                bind,
                arena.offset(0),
                (gx, gy),
            );
            ctx.queue.submit([enc.finish()])
        })?;
        p.readback.read(ctx, counts, 0, out_bytes, |bytes| {
            bytemuck::cast_slice::<u8, [u32; 4]>(bytes)
                .iter()
                .map(|l| {
                    l[0] as u128
                        | (l[1] as u128) << 32
                        | (l[2] as u128) << 64
                        | (l[3] as u128) << 96
                })
                .collect()
        })
    }
}

impl BlockCountBackend for BlockCountGpu {
    fn backend(&self) -> &'static str {
        "gpu"
    }

    fn counts(&self, grid: &BlockGrid, blocks: BlockRect) -> Result<Vec<u128>> {
        BlockCountGpu::counts(self, grid, blocks)
    }

    fn chunk_blocks(&self) -> u64 {
        (1 << 20).min(self.max_blocks)
    }
}
