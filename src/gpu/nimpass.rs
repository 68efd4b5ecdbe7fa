//! Four-heap Nim with a pass on the GPU: `nimpass.wgsl`, one dispatch per level of the
//! wavefront over the prefix sum. The CPU twin is `pass::nimpass::wavefront`.
//!
//! Tests: tests/engine/foundation.rs.

use super::context::{dispatch_2d, GpuContext, ParamsArena, Readback, Reusable};
use super::kernel::{kernel_params, Access, Kernel, KernelId};
use crate::error::{Error, Result};
use crate::pass::backend::NimPassBackend;
use crate::pass::nimpass::{wavefront, NimPass};
use std::sync::{Arc, Mutex};

/// `nimpass.wgsl`: one invocation per prefix (a0, a1, a2) of one level.
pub(crate) const NIMPASS_LEVEL: Kernel = Kernel::with_params::<Params>(
    "nimpass.wgsl",
    include_str!("../../shaders/nimpass.wgsl"),
    "nimpass_level",
    [256, 1, 1],
    &[Access::ReadWrite, Access::ReadWrite],
);

const WORKGROUP: u64 = NIMPASS_LEVEL.workgroup_size[0] as u64;
/// Levels encoded per submission (keeps each submission short).
const LEVELS_PER_SUBMIT: usize = 256;

kernel_params! {
    /// Params of `nimpass.wgsl`: the heap bound, the line words and the level (prefix sum).
    struct Params {
        side: u32,
        words_per_row: u32,
        level: u32,
        groups_x: u32,
    }
}

/// Four-heap Nim with a pass on one GPU context. Build it once and keep it: the line bitsets,
/// the `last` table, the staging buffer and the levels' params are kept between calls and grow
/// only for a larger heap bound than any before.
pub struct NimPassGpu {
    ctx: Arc<GpuContext>,
    pool: Mutex<Pool>,
}

/// What [`NimPassGpu`] keeps between calls.
struct Pool {
    lines: Reusable,
    last: Reusable,
    readback: Readback,
    params: Option<ParamsArena>,
    /// The bind group over the three above (rebuilt when one of them is reallocated).
    bind: Option<wgpu::BindGroup>,
}

impl Pool {
    fn new() -> Pool {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        Pool {
            lines: Reusable::new("nimpass lines", usage),
            last: Reusable::new("nimpass last", usage | wgpu::BufferUsages::COPY_SRC),
            readback: Readback::default(),
            params: None,
            bind: None,
        }
    }
}

impl NimPassGpu {
    /// The kernel on a context, with an empty buffer pool.
    pub fn new(ctx: Arc<GpuContext>) -> NimPassGpu {
        NimPassGpu {
            ctx,
            pool: Mutex::new(Pool::new()),
        }
    }

    /// Free the pooled buffers (the next call allocates them again).
    pub fn release(&self) {
        if let Ok(mut pool) = self.pool.lock() {
            *pool = Pool::new();
        }
    }

    /// P-positions with the pass available of four-heap Nim, heaps 0..side: one dispatch per
    /// level of the wavefront, all levels' params written at once.
    pub fn four_heaps(&self, side: usize) -> Result<NimPass> {
        let ctx = &*self.ctx;
        if side == 0 {
            return Err(Error::bad_argument(
                "the values per heap",
                side,
                "at least 1",
            ));
        }
        // The sizes in u128, so that no side can wrap them into a small buffer (a usize side
        // squared fits; the products past it are checked).
        let (s, wpr) = (side as u128, wavefront::line_words(side) as u128);
        let square = s * s;
        let sizes = square
            .checked_mul(3 * wpr * 4)
            .zip(square.checked_mul(s).map(|cube| cube.div_ceil(2) * 4));
        let limit = ctx.max_binding_bytes();
        let Some((line_bytes, last_bytes)) = sizes.filter(|&(lines, last)| {
            lines <= limit as u128 && last <= limit as u128 && square <= u32::MAX as u128 / 4
        }) else {
            let needed = sizes.map_or("more than 2^128 bytes".to_string(), |(lines, last)| {
                format!("{lines} bytes of lines and {last} of P-positions")
            });
            return Err(Error::too_large(
                format!("Nim with a pass on four heaps of size up to {}", side - 1),
                format!(
                    "{needed}, more than one GPU storage binding ({} MiB); use a smaller maximum",
                    limit >> 20
                ),
            ));
        };
        let (line_bytes, last_bytes) = (line_bytes as u64, last_bytes as u64);
        // The table keeps each line's P-position as a u16, as the CPU's does.
        if side as u64 - 1 > NimPass::MAX_HEAP {
            return Err(NimPass::heaps_too_large(side as u64 - 1));
        }
        let pipeline = ctx.pipeline(KernelId::NimpassLevel)?;
        let levels = 3 * (side as u32 - 1) + 1;
        let mut pool = self
            .pool
            .lock()
            .map_err(|_| Error::Gpu("the nimpass buffers are poisoned".into()))?;
        let pool = &mut *pool;
        let mut stale = pool.bind.is_none();
        if pool
            .params
            .as_ref()
            .is_none_or(|a| a.slots() < levels as u64)
        {
            pool.params = Some(ParamsArena::new(
                ctx,
                NIMPASS_LEVEL.params_bytes,
                levels as u64,
            )?);
            stale = true;
        }
        stale |= pool.lines.ensure(ctx, line_bytes, limit)?;
        stale |= pool.last.ensure(ctx, last_bytes, limit)?;
        let (params, lines, last) = match (&pool.params, pool.lines.get(), pool.last.get()) {
            (Some(p), Ok(l), Ok(t)) => (p, l, t),
            _ => return Err(Error::Gpu("nimpass buffers missing".into())),
        };
        if stale {
            pool.bind = Some(ctx.bind_group(
                "nimpass",
                &pipeline,
                params,
                &[lines.as_entire_binding(), last.as_entire_binding()],
            ));
        }
        let bind = pool
            .bind
            .as_ref()
            .ok_or_else(|| Error::Gpu("nimpass bind group missing".into()))?;
        let groups = ((side * side) as u64).div_ceil(WORKGROUP) as u32;
        let (gx, gy) = dispatch_2d(groups, ctx.limits.max_compute_workgroups_per_dimension);
        let all: Vec<Params> = (0..levels)
            .map(|level| Params {
                side: side as u32,
                words_per_row: wpr as u32,
                level,
                groups_x: gx,
            })
            .collect();
        ctx.checked(|| {
            params.write(ctx, 0, &all);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(lines, 0, Some(line_bytes));
            enc.clear_buffer(last, 0, Some(last_bytes));
            ctx.queue.submit([enc.finish()]);
        })?;
        for chunk in (0..levels).collect::<Vec<u32>>().chunks(LEVELS_PER_SUBMIT) {
            crate::cancel::check()?;
            ctx.checked(|| {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("nimpass levels"),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&pipeline.pipeline);
                    for &level in chunk {
                        pass.set_bind_group(0, bind, &[params.offset(level as u64)]);
                        pass.dispatch_workgroups(gx, gy, 1);
                    }
                }
                ctx.queue.submit([enc.finish()]);
            })?;
        }
        let packed: Vec<u32> = pool.readback.read(ctx, last, 0, last_bytes, |bytes| {
            bytemuck::cast_slice(bytes).to_vec()
        })?;
        Ok(NimPass::from_wavefront(side, &packed))
    }
}

impl NimPassBackend for NimPassGpu {
    fn backend(&self) -> &'static str {
        "gpu"
    }

    fn four_heaps(&self, side: usize) -> Result<NimPass> {
        NimPassGpu::four_heaps(self, side)
    }
}
