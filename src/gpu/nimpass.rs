//! Four-heap Nim with a pass on the GPU: `nimpass.wgsl`, one dispatch per level of the
//! wavefront over the prefix sum. The CPU twin is `pass::nimpass::wavefront`.

use super::context::{dispatch_2d, GpuContext};
use super::kernel::{kernel_params, Access, Kernel};
use crate::pass::nimpass::{wavefront, NimPass};
use crate::usage;

/// `nimpass.wgsl`: one invocation per prefix (a0, a1, a2) of one level.
pub(crate) const NIMPASS_LEVEL: Kernel = Kernel::with_params::<Params>(
    "nimpass.wgsl",
    include_str!("../../shaders/nimpass.wgsl"),
    "nimpass_level",
    [256, 1, 1],
    &[Access::ReadWrite, Access::ReadWrite],
);

const NIMPASS_WGSL: &str = NIMPASS_LEVEL.source;
const WORKGROUP: u64 = NIMPASS_LEVEL.workgroup_size[0] as u64;
/// Levels encoded per submission (bounds the per-level uniforms held at once).
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

/// P-positions with the pass available of four-heap Nim, heaps 0..side, on the GPU.
pub fn nimpass4_gpu(ctx: &GpuContext, side: usize) -> anyhow::Result<NimPass> {
    let wpr = wavefront::line_words(side);
    let line_bytes = 3 * (side * side * wpr) as u64 * 4;
    let last_bytes = wavefront::last_words(side) as u64 * 4;
    let limit = ctx.max_binding_bytes();
    if side == 0
        || line_bytes > limit
        || last_bytes > limit
        || (side as u64).pow(2) > u32::MAX as u64 / 4
    {
        return Err(usage!(
            "four heaps of size up to {} do not fit one GPU storage binding ({} MiB); use --backend cpu",
            side.saturating_sub(1),
            limit >> 20
        ));
    }
    let pipeline = ctx.pipeline("nimpass", NIMPASS_WGSL, "nimpass_level")?;
    let storage = |label: &str, bytes: u64, usage: wgpu::BufferUsages| {
        ctx.checked(|| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        })
    };
    let lines = storage(
        "nimpass lines",
        line_bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    )?;
    let last = storage(
        "nimpass last",
        last_bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    )?;
    let groups = ((side * side) as u64).div_ceil(WORKGROUP) as u32;
    let (gx, gy) = dispatch_2d(groups, ctx.limits.max_compute_workgroups_per_dimension);
    let levels: Vec<u32> = (0..=3 * (side as u32 - 1)).collect();
    let mut first = true;
    for chunk in levels.chunks(LEVELS_PER_SUBMIT) {
        ctx.checked(|| -> anyhow::Result<()> {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            if first {
                enc.clear_buffer(&lines, 0, None);
                enc.clear_buffer(&last, 0, None);
            }
            let binds: Vec<wgpu::BindGroup> = chunk
                .iter()
                .map(|&level| {
                    let params = Params {
                        side: side as u32,
                        words_per_row: wpr as u32,
                        level,
                        groups_x: gx,
                    };
                    ctx.bind_params(
                        "nimpass",
                        &pipeline,
                        bytemuck::bytes_of(&params),
                        &[lines.as_entire_binding(), last.as_entire_binding()],
                    )
                })
                .collect();
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("nimpass levels"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&pipeline);
                for bind in &binds {
                    pass.set_bind_group(0, bind, &[]);
                    pass.dispatch_workgroups(gx, gy, 1);
                }
            }
            ctx.queue.submit([enc.finish()]);
            Ok(())
        })??;
        first = false;
    }
    let packed: Vec<u32> = ctx.read_back(&last, last_bytes, |bytes| {
        bytemuck::cast_slice(bytes).to_vec()
    })?;
    Ok(NimPass::from_wavefront(side, &packed))
}
