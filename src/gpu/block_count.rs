//! Block counts of fitted pictures on the GPU: `block_count.wgsl`, one invocation per block,
//! each running the digit programme on its four corners. The CPU twin is
//! `chocolate::window` (`p_prefix` and `BlockGrid::counts`): the same state encoding, the
//! same corners, the same inclusion–exclusion; the host computes the corners (exact u64) and
//! reads back each block's count as four u32 limbs.

use super::context::{dispatch, dispatch_2d, GpuContext};
use crate::chocolate::window::BlockGrid;
use crate::{Error, Result};
use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

const BLOCK_COUNT_WGSL: &str = include_str!("../../shaders/block_count.wgsl");
const WORKGROUP: u64 = 64;

#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct Params {
    m1: [u32; 2],
    n1: [u32; 2],
    rows: u32,
    cols: u32,
    groups_x: u32,
    _pad: u32,
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

fn gpu_error(e: anyhow::Error) -> Error {
    Error::Gpu(format!("{e:#}"))
}

/// Runs `block_count.wgsl` on one GPU context.
pub struct BlockCountGpu<'a> {
    ctx: &'a GpuContext,
    max_blocks: u64,
}

impl<'a> BlockCountGpu<'a> {
    /// Dispatches as large as one storage binding allows (16 bytes a block).
    pub fn new(ctx: &'a GpuContext) -> BlockCountGpu<'a> {
        BlockCountGpu {
            ctx,
            max_blocks: (ctx.max_binding_bytes() / 16).min(u32::MAX as u64),
        }
    }

    /// Smaller dispatches (tests use this to exercise the multi-dispatch paths).
    pub fn with_max_blocks(ctx: &'a GpuContext, max_blocks: u64) -> BlockCountGpu<'a> {
        let mut k = BlockCountGpu::new(ctx);
        k.max_blocks = max_blocks.clamp(1, k.max_blocks);
        k
    }

    /// The most blocks one dispatch counts.
    pub fn max_blocks(&self) -> u64 {
        self.max_blocks
    }

    /// Exact P-counts of blocks `by0 .. by0+rows` × `bx0 .. bx0+cols` of `grid`, row-major:
    /// the same values as [`BlockGrid::counts`], in dispatches of at most
    /// [`BlockCountGpu::max_blocks`] blocks.
    pub fn counts(
        &self,
        grid: &BlockGrid,
        by0: u64,
        rows: u64,
        bx0: u64,
        cols: u64,
    ) -> Result<Vec<u128>> {
        grid.check_range(by0, rows, bx0, cols)?;
        let max = self.max_blocks();
        if cols > max {
            // Column runs of at most `max` blocks, one row at a time.
            let mut out = Vec::with_capacity((rows * cols) as usize);
            for r in 0..rows {
                let mut x = 0;
                while x < cols {
                    let w = max.min(cols - x);
                    out.extend(self.dispatch(grid, by0 + r, 1, bx0 + x, w)?);
                    x += w;
                }
            }
            return Ok(out);
        }
        let band = (max / cols).max(1);
        let mut out = Vec::with_capacity((rows * cols) as usize);
        let mut y = 0;
        while y < rows {
            let h = band.min(rows - y);
            out.extend(self.dispatch(grid, by0 + y, h, bx0, cols)?);
            y += h;
        }
        Ok(out)
    }

    /// One dispatch: `rows × cols` ≤ max_blocks blocks.
    fn dispatch(
        &self,
        grid: &BlockGrid,
        by0: u64,
        rows: u64,
        bx0: u64,
        cols: u64,
    ) -> Result<Vec<u128>> {
        let ctx = self.ctx;
        let blocks = rows * cols;
        let row_corners: Vec<[u32; 4]> = (0..=rows)
            .map(|k| corner_words(grid.corner_row(by0 + k)))
            .collect();
        let col_corners: Vec<[u32; 4]> = (0..=cols)
            .map(|k| corner_words(grid.corner_col(bx0 + k)))
            .collect();
        let pipeline = ctx
            .pipeline("block_count", BLOCK_COUNT_WGSL, "block_counts")
            .map_err(gpu_error)?;
        let (gx, gy) = dispatch_2d(
            blocks.div_ceil(WORKGROUP) as u32,
            ctx.limits.max_compute_workgroups_per_dimension,
        );
        let params = Params {
            m1: split(grid.window.m - 1),
            n1: split(grid.window.n - 1),
            rows: rows as u32,
            cols: cols as u32,
            groups_x: gx,
            _pad: 0,
        };
        let out_bytes = blocks * 16;
        let counts = ctx
            .checked(|| {
                let init = |label: &str, words: &[[u32; 4]]| {
                    ctx.device
                        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some(label),
                            contents: bytemuck::cast_slice(words),
                            usage: wgpu::BufferUsages::STORAGE,
                        })
                };
                let rows_buf = init("block_count row corners", &row_corners);
                let cols_buf = init("block_count column corners", &col_corners);
                let counts = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("block counts"),
                    size: out_bytes,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let bind = ctx.bind_params(
                    "block_count",
                    &pipeline,
                    bytemuck::bytes_of(&params),
                    &[
                        rows_buf.as_entire_binding(),
                        cols_buf.as_entire_binding(),
                        counts.as_entire_binding(),
                    ],
                );
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                dispatch(&mut enc, "block_count", &pipeline, &bind, (gx, gy));
                ctx.queue.submit([enc.finish()]);
                counts
            })
            .map_err(gpu_error)?;
        ctx.read_back(&counts, out_bytes, |bytes| {
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
        .map_err(gpu_error)
    }
}
