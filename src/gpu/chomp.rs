//! Two-player Chomp on the GPU: `chomp_layer.wgsl`, one invocation per position of a volume
//! layer. The CPU twin is `two_player::reference::solve_by_volume_layers`: the same schedule
//! (`VolumeLayers`, walked by the one driver), the same unranking, the same scan of the
//! options, the same bits. Each step of the schedule is one dispatch (split where a layer has
//! more positions than a binding holds) into one table buffer, read back once at the end.
//!
//! Tests: tests/engine/foundation.rs, tests/games/chomp/two_player.rs.

use super::context::{dispatch, dispatch_2d, GpuContext, ParamsArena, Readback};
use super::kernel::{kernel_params, Access, Kernel, KernelId};
use crate::chomp::engine::driver::{drive_steps, Run};
use crate::chomp::engine::schedule::VolumeLayers;
use crate::chomp::index::BitLayout;
use crate::chomp::two_player::PTable;
use crate::chomp::ChompBox;
use crate::error::{Error, Result};
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// `chomp_layer.wgsl`: weights, the layer's ranks, the table.
pub(crate) const CHOMP_LAYER: Kernel = Kernel {
    consts: &[("MAX_ROWS", MAX_ROWS)],
    ..Kernel::with_params::<ChompLayerParams>(
        "chomp_layer.wgsl",
        include_str!("../../shaders/chomp_layer.wgsl"),
        "chomp_layer",
        [64, 1, 1],
        &[Access::Read, Access::Read, Access::ReadWrite],
    )
};

/// Most rows of a box the kernel takes.
pub const MAX_ROWS: u32 = 32;

const WORKGROUP: u64 = CHOMP_LAYER.workgroup_size[0] as u64;

kernel_params! {
    /// Params of `chomp_layer.wgsl`: the box's rows, the weight table's row stride (columns
    /// + 1), the positions in this dispatch, and the dispatch's x extent in workgroups.
    struct ChompLayerParams {
        rows: u32,
        stride: u32,
        count: u32,
        groups_x: u32,
    }
}

/// Runs `chomp_layer.wgsl` on one GPU context.
pub struct ChompGpu {
    ctx: Arc<GpuContext>,
}

impl ChompGpu {
    /// The kernel on `ctx`.
    pub fn new(ctx: Arc<GpuContext>) -> ChompGpu {
        ChompGpu { ctx }
    }

    /// Check that the box fits the kernel: ranks in u32, the table in one storage binding,
    /// at most [`MAX_ROWS`] rows.
    pub fn check(&self, shape: ChompBox) -> Result<()> {
        let total = shape.positions().unwrap_or(u64::MAX);
        let bytes = total.div_ceil(64) * 8;
        if shape.rows as u32 > MAX_ROWS || total > u32::MAX as u64 {
            return Err(Error::too_large(
                format!("the {shape} box on the GPU"),
                format!("the kernel takes at most {MAX_ROWS} rows and 2^32 positions; use a smaller box"),
            ));
        }
        if bytes > self.ctx.max_binding_bytes() {
            return Err(Error::too_large(
                format!("the {shape} box on the GPU"),
                format!(
                    "its table of {bytes} bytes is larger than one storage binding ({} bytes); use a smaller box",
                    self.ctx.max_binding_bytes()
                ),
            ));
        }
        Ok(())
    }

    /// The whole table of `shape`, one dispatch per volume layer (split where a layer has
    /// more positions than a binding of ranks holds), read back at the end.
    pub fn solve(&self, shape: ChompBox) -> Result<PTable> {
        self.check(shape)?;
        let ctx = &*self.ctx;
        let layout = BitLayout::colex_for(shape)?;
        let ranker = layout.ranker();
        let pipeline = ctx.pipeline(KernelId::ChompLayer)?;
        let weights: Vec<u32> = ranker.weights().iter().map(|&w| w as u32).collect();
        let words = (ranker.len().div_ceil(64) * 2) as usize;
        let table_bytes = (words * 4) as u64;
        let storage = wgpu::BufferUsages::STORAGE;
        let weights_buf = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("chomp weights"),
                contents: bytemuck::cast_slice(&weights),
                usage: storage,
            });
        let bits = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("chomp table"),
            size: table_bytes.max(4),
            usage: storage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let chunk = (ctx.max_binding_bytes() / 4).min(1 << 24);
        let mut arena = ParamsArena::new(ctx, CHOMP_LAYER.params_bytes, 1)?;
        let mut ranks_buf: Option<(wgpu::Buffer, u64)> = None;
        let schedule = VolumeLayers { ranker };
        let run = Run::new(&schedule, ranker.len(), 0);
        let mut dispatch_layer = |ranges: &[(u64, u64)]| -> Result<Vec<u64>> {
            for part in ranges.chunks(chunk as usize) {
                let ranks: Vec<u32> = part.iter().map(|&(r, _)| r as u32).collect();
                let need = (ranks.len() * 4) as u64;
                if ranks_buf.as_ref().is_none_or(|(_, cap)| *cap < need) {
                    ranks_buf = Some((
                        ctx.device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some("chomp layer ranks"),
                            size: need.next_power_of_two(),
                            usage: storage | wgpu::BufferUsages::COPY_DST,
                            mapped_at_creation: false,
                        }),
                        need.next_power_of_two(),
                    ));
                    arena = ParamsArena::new(ctx, CHOMP_LAYER.params_bytes, 1)?;
                }
                let (rbuf, _) = ranks_buf.as_ref().expect("made above");
                let (gx, gy) = dispatch_2d(
                    (ranks.len() as u64).div_ceil(WORKGROUP) as u32,
                    ctx.limits.max_compute_workgroups_per_dimension,
                );
                let params = ChompLayerParams {
                    rows: shape.rows as u32,
                    stride: ranker.stride() as u32,
                    count: ranks.len() as u32,
                    groups_x: gx,
                };
                let bind = ctx.bind_group(
                    "chomp_layer",
                    &pipeline,
                    &arena,
                    &[
                        weights_buf.as_entire_binding(),
                        rbuf.as_entire_binding(),
                        bits.as_entire_binding(),
                    ],
                );
                ctx.checked(|| {
                    ctx.queue
                        .write_buffer(rbuf, 0, bytemuck::cast_slice(&ranks));
                    arena.write(ctx, 0, &[params]);
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    dispatch(
                        &mut enc,
                        "chomp_layer",
                        &pipeline,
                        &bind,
                        arena.offset(0),
                        (gx, gy),
                    );
                    ctx.queue.submit([enc.finish()])
                })?;
            }
            Ok(Vec::new())
        };
        drive_steps(run, |_, ranges| dispatch_layer(ranges), |_, _, _| Ok(()))?;
        let readback = Readback::default();
        let host: Vec<u32> = readback.read(ctx, &bits, 0, table_bytes, |bytes| {
            bytemuck::cast_slice::<u8, u32>(bytes).to_vec()
        })?;
        let words: Vec<u64> = host
            .chunks(2)
            .map(|p| p[0] as u64 | (p.get(1).copied().unwrap_or(0) as u64) << 32)
            .collect();
        PTable::from_words(layout.clone(), words)
    }
}
