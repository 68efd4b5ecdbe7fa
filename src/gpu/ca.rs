//! The automaton kernels: `ca_step.wgsl` (one step per dispatch), `ca_block.wgsl` (up to 16
//! steps per dispatch in workgroup memory) and `ca_regs.wgsl` (16 steps per dispatch in
//! registers, neighbours' bits by subgroup shuffle), rotating grids on the GPU, bands of rows
//! that fit one storage binding, and many steps per submission. The CPU twins are
//! `chocolate::automaton::ca_step`, `chocolate::automaton::ca_block` and
//! `chocolate::automaton::ca_regs`.
//!
//! A grid holds generations up to `capacity`: (capacity+1) rows of `stride` u32 words, the
//! stride padded so that every row starts at a legal storage-binding offset. A band of rows is
//! bound as a window of each grid (with halo rows above for b_n and b_{n-1}: one for the step
//! kernel, a block's step count for the block kernel), so grids may be larger than one binding.
//! Each dispatch covers one band where it meets the active square; the parameters of all of a
//! submission's dispatches sit in one uniform buffer at dynamic offsets, so a batch of hundreds
//! of steps is one submission with no host round trip.
//!
//! The step kernel rotates three grids (b_{n-1}, b_n, b_{n+1}). The block and register kernels
//! read b_{n-1} and b_n from one pair of grids and write b_{n+k-1} and b_{n+k} to the other pair
//! (a tile's halo is its neighbours' output, so it cannot write in place): four grids.
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/automaton.rs,
//! tests/engine/foundation.rs.

use super::choice;
use super::context::{dispatch, GpuContext, ParamsArena, Pipeline, Readback};
use super::kernel::{kernel_params, Access, Kernel, KernelId};
use super::ptest::{CountParams, COUNT_P};
use crate::chocolate::automaton::{
    BlockShape, RegsShape, TileTraffic, BLOCK_COLS, REGS_OUT_ROWS, REGS_STEPS,
};
use crate::chocolate::backend::AutomatonBackend;
use crate::error::{Error, Result};
use std::sync::Arc;

/// Invocations per workgroup along a row (the step shader's `workgroup_size`).
const GROUP_WORDS: u32 = 64;
/// Rows each invocation walks down (the step shader's `ROWS`).
const ROWS_PER_INVOCATION: u32 = 8;
/// Invocations down a tile of the block kernel (its `LANES_Y`).
const BLOCK_LANES: u32 = 4;
/// Invocations per workgroup of the register kernel (its `GROUP`).
const REGS_GROUP: u32 = 128;

/// `ca_step.wgsl`: one invocation per word column of [`ROWS_PER_INVOCATION`] rows.
pub(crate) const CA_STEP: Kernel = Kernel {
    consts: &[("ROWS", ROWS_PER_INVOCATION)],
    ..Kernel::with_params::<StepParams>(
        "ca_step.wgsl",
        include_str!("../../shaders/ca_step.wgsl"),
        "ca_step",
        [GROUP_WORDS, 1, 1],
        &[Access::Read, Access::Read, Access::ReadWrite],
    )
};

/// `ca_block.wgsl`: one workgroup per tile of [`BLOCK_COLS`] words, its shape set by overrides.
pub(crate) const CA_BLOCK: Kernel = Kernel {
    consts: &[
        ("COLS", BLOCK_COLS as u32),
        ("OUT_COLS", BLOCK_COLS as u32 - 1),
        ("LANES_Y", BLOCK_LANES),
    ],
    overrides: &["STEPS_MAX", "TILE_ROWS"],
    ..Kernel::with_params::<StepParams>(
        "ca_block.wgsl",
        include_str!("../../shaders/ca_block.wgsl"),
        "ca_block",
        [BLOCK_COLS as u32, BLOCK_LANES, 1],
        &[
            Access::Read,
            Access::Read,
            Access::ReadWrite,
            Access::ReadWrite,
        ],
    )
};

/// `ca_regs.wgsl`: one workgroup of [`REGS_GROUP`] lanes, whole subgroups of any size.
pub(crate) const CA_REGS: Kernel = Kernel {
    consts: &[
        ("STEPS_MAX", REGS_STEPS),
        ("OUT_ROWS", REGS_OUT_ROWS),
        ("HELD", REGS_STEPS + REGS_OUT_ROWS),
        ("GROUP", REGS_GROUP),
    ],
    ..Kernel::with_params::<StepParams>(
        "ca_regs.wgsl",
        include_str!("../../shaders/ca_regs.wgsl"),
        "ca_regs",
        [REGS_GROUP, 1, 1],
        &[
            Access::Read,
            Access::Read,
            Access::ReadWrite,
            Access::ReadWrite,
        ],
    )
};

/// Steps encoded into one submission (a multiple of every block length).
pub const STEPS_PER_SUBMISSION: u64 = 256;

kernel_params! {
    /// The parameters of one dispatch of either kernel: the band's rows, the active words, the
    /// grid stride, the halo rows bound above the band and the steps (one for the step kernel).
    struct StepParams {
        rows: u32,
        words: u32,
        stride: u32,
        halo: u32,
        steps: u32,
        pad0: u32,
        pad1: u32,
        pad2: u32,
    }
}

/// Which kernel steps the automaton on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaKernel {
    /// `ca_step.wgsl`: one step per dispatch, three grids.
    Step,
    /// `ca_block.wgsl`: up to `steps_max` steps per dispatch in workgroup memory, four grids.
    Block(BlockShape),
    /// `ca_regs.wgsl`: up to `steps_max` steps per dispatch in registers, four grids; `lanes`
    /// is the device's smallest subgroup, which the dispatch is sized for.
    Regs(RegsShape),
}

impl CaKernel {
    /// The kernel `ca --kernel auto` and `bench` use: the fastest of the kernels this device
    /// runs by the rates `bench --save` measured on this machine
    /// ([`choice::fastest_kernel`]), else [`CaKernel::by_rule`].
    pub fn best(ctx: &GpuContext) -> CaKernel {
        CaKernel::best_with_reason(ctx, choice::saved_rates()).0
    }

    /// [`CaKernel::best`] with the rates file `saved`, and why it is that kernel.
    pub fn best_with_reason(
        ctx: &GpuContext,
        saved: Option<&choice::RatesFile>,
    ) -> (CaKernel, choice::KernelReason) {
        let runs: Vec<CaKernel> = [
            Some(CaKernel::Step),
            CaKernel::block(ctx),
            CaKernel::regs(ctx),
        ]
        .into_iter()
        .flatten()
        .collect();
        let families: Vec<&str> = runs.iter().map(|k| k.family()).collect();
        let key = choice::MachineKey::of(ctx);
        match choice::fastest_kernel(&families, &key, saved) {
            Some(f) => (
                *runs
                    .iter()
                    .find(|k| k.family() == f)
                    .expect("a kernel it runs"),
                choice::KernelReason::Measured,
            ),
            None => (CaKernel::by_rule(ctx), choice::KernelReason::Rule),
        }
    }

    /// The kernel without measured rates: the register kernel on a real GPU with
    /// subgroups, else the step kernel. The step kernel was measured faster than the block
    /// kernel wherever both ran (BENCHMARKS.md, "The automaton"): on an NVIDIA H200 7.9·10¹²
    /// cell updates/s against 6.4·10¹², the block kernel's barriers costing more than its 10×
    /// less traffic saves. The register kernel moves as little as the block kernel with no
    /// barrier at all. On a software adapter (lavapipe) the step kernel stays: there "memory"
    /// is the CPU's cache either way, and the register kernel's 48-row columns spill.
    pub fn by_rule(ctx: &GpuContext) -> CaKernel {
        match CaKernel::regs(ctx) {
            Some(regs) if !ctx.is_software() => regs,
            _ => CaKernel::Step,
        }
    }

    /// The register kernel, where the device has subgroup operations.
    pub fn regs(ctx: &GpuContext) -> Option<CaKernel> {
        ctx.subgroup_sizes()
            .map(|(min, _)| CaKernel::Regs(RegsShape::for_lanes(min.clamp(4, REGS_GROUP))))
    }

    /// Bytes of grid traffic and cell updates of one tile, by the kernel's own arithmetic
    /// (the register kernel's for its smallest subgroup).
    pub fn traffic(&self) -> TileTraffic {
        match self {
            CaKernel::Step => TileTraffic::step_kernel(),
            CaKernel::Block(s) => s.traffic(),
            CaKernel::Regs(s) => s.traffic(),
        }
    }

    /// The block kernel with the largest tile this device's workgroup memory holds, if any.
    pub fn block(ctx: &GpuContext) -> Option<CaKernel> {
        BlockShape::for_workgroup_bytes(ctx.limits.max_compute_workgroup_storage_size)
            .map(CaKernel::Block)
    }

    /// Whether this device runs the kernel: the register kernel needs subgroups of at least
    /// its lanes, the block kernel a tile within the device's workgroup memory.
    fn check(&self, ctx: &GpuContext) -> Result<()> {
        let kernel = *self;
        let workgroup_bytes = ctx.limits.max_compute_workgroup_storage_size;
        if let CaKernel::Regs(shape) = kernel {
            let lanes = ctx.subgroup_sizes().map(|(min, _)| min);
            if lanes.is_none_or(|min| shape.lanes < 4 || shape.lanes > min) {
                return Err(Error::bad_argument(
                    "the register kernel's subgroup",
                    format!("{shape:?}"),
                    format!("a GPU with subgroup operations whose smallest subgroup has at least {} lanes (this one: {lanes:?})", shape.lanes),
                ));
            }
            if (shape.steps_max, shape.out_rows) != (REGS_STEPS, REGS_OUT_ROWS) {
                return Err(Error::bad_argument(
                    "the register kernel's shape",
                    format!("{shape:?}"),
                    format!("{REGS_STEPS} steps and {REGS_OUT_ROWS} output rows, the shader's"),
                ));
            }
        }
        if let CaKernel::Block(shape) = kernel {
            if !(1..=32).contains(&shape.steps_max)
                || shape.tile_rows == 0
                || shape.workgroup_bytes() > workgroup_bytes as u64
            {
                return Err(Error::bad_argument(
                    "the block shape",
                    format!("{shape:?}"),
                    format!("1 to 32 steps and a tile within this GPU's {workgroup_bytes} bytes of workgroup memory"),
                ));
            }
        }
        Ok(())
    }

    /// The kernel's family, as the rates file keys it: `step`, `block` or `regs`.
    pub fn family(&self) -> &'static str {
        match self {
            CaKernel::Step => "step",
            CaKernel::Block(_) => "block",
            CaKernel::Regs(_) => "regs",
        }
    }

    /// A short name for reports: `step`, or `block` or `regs` with steps × output rows per tile.
    pub fn name(&self) -> String {
        match self {
            CaKernel::Step => "step".into(),
            CaKernel::Block(s) => format!("block {}x{}", s.steps_max, s.tile_rows),
            CaKernel::Regs(s) => format!("regs {}x{}", s.steps_max, s.out_rows),
        }
    }

    /// The pipeline that runs it.
    fn id(&self) -> KernelId {
        match self {
            CaKernel::Step => KernelId::CaStep,
            CaKernel::Block(s) => KernelId::CaBlock(*s),
            CaKernel::Regs(_) => KernelId::CaRegs,
        }
    }

    fn grids(&self) -> usize {
        match self {
            CaKernel::Step => 3,
            CaKernel::Block(_) | CaKernel::Regs(_) => 4,
        }
    }

    /// Halo rows a band binds above its first row.
    fn halo_rows(&self) -> u64 {
        match self {
            CaKernel::Step => 1,
            CaKernel::Block(s) => s.steps_max as u64,
            CaKernel::Regs(s) => s.steps_max as u64,
        }
    }

    /// Rows one workgroup covers (bounds the rows of one dispatch).
    fn rows_per_group(&self) -> u64 {
        match self {
            CaKernel::Step => ROWS_PER_INVOCATION as u64,
            CaKernel::Block(s) => s.tile_rows as u64,
            CaKernel::Regs(s) => s.out_rows as u64,
        }
    }

    /// Steps one dispatch takes.
    fn steps_per_dispatch(&self) -> u64 {
        match self {
            CaKernel::Step => 1,
            CaKernel::Block(s) => s.steps_max as u64,
            CaKernel::Regs(s) => s.steps_max as u64,
        }
    }

    /// Workgroups of one dispatch over `words` words and `rows` rows.
    fn groups(&self, words: u32, rows: u32) -> (u32, u32) {
        match self {
            CaKernel::Step => (
                words.div_ceil(GROUP_WORDS),
                rows.div_ceil(ROWS_PER_INVOCATION),
            ),
            CaKernel::Block(s) => (
                words.div_ceil(BLOCK_COLS as u32 - 1),
                rows.div_ceil(s.tile_rows),
            ),
            // A workgroup's subgroups of `lanes` lanes each own `lanes - 1` words; larger
            // subgroups own more words a workgroup, so the dispatch covers the grid whatever
            // the size the device picks.
            CaKernel::Regs(s) => {
                let lanes = s.lanes.min(REGS_GROUP);
                let words_per_group = REGS_GROUP / lanes * (lanes - 1);
                (words.div_ceil(words_per_group), rows.div_ceil(s.out_rows))
            }
        }
    }
}

/// A band of grid rows [start, end) bound as one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// The first row of the band.
    pub start: u64,
    /// One past the last row of the band.
    pub end: u64,
}

/// Split `rows` rows of `row_bytes` each into bands whose windows (with `halo` rows above)
/// fit `max_bytes`, and whose rows fit the dispatch limit.
pub fn plan_bands(
    rows: u64,
    row_bytes: u64,
    max_bytes: u64,
    max_rows: u64,
    halo: u64,
) -> Result<Vec<Band>> {
    let per_band = (max_bytes / row_bytes).saturating_sub(halo).min(max_rows);
    if per_band == 0 {
        return Err(Error::too_large(
            format!("a band of {} grid rows ({row_bytes} bytes each)", halo + 1),
            format!("more than one GPU storage binding ({max_bytes} bytes)"),
        ));
    }
    let mut bands = Vec::new();
    let mut start = 0;
    while start < rows {
        let end = (start + per_band).min(rows);
        bands.push(Band { start, end });
        start = end;
    }
    Ok(bands)
}

/// The automaton on one GPU context: grids, bind groups, params and counters built once for
/// its capacity and reused by every step, count and readback.
pub struct CaGpu {
    ctx: Arc<GpuContext>,
    kernel: CaKernel,
    capacity: u64,
    stride: u64,
    grids: Vec<wgpu::Buffer>,
    bands: Vec<Band>,
    /// `bind_groups[band][phase]`. Step kernel: phase φ binds (prev, cur, next) = grids (φ, φ+1,
    /// φ+2) mod 3. Block kernel: phase 0 reads grids (0, 1) and writes (2, 3); phase 1 the
    /// other way round.
    bind_groups: Vec<Vec<wgpu::BindGroup>>,
    /// The params of one submission's dispatches, one slot per (dispatch, band).
    params: ParamsArena,
    pipeline: Pipeline,
    /// The live-cell count: `pcount.wgsl`, one counter per band, its params one slot per
    /// band, and `count_binds[grid][band]` over each band of each grid.
    counts: wgpu::Buffer,
    count_params: ParamsArena,
    count_pipeline: Pipeline,
    count_binds: Vec<Vec<wgpu::BindGroup>>,
    readback: Readback,
    /// Indices in `grids` of b_{n-1} and b_n.
    prev: usize,
    cur: usize,
    n: u64,
}

impl CaGpu {
    /// Room for generations 0..=capacity, the fastest kernel for the device
    /// ([`CaKernel::best`]), bands as large as one binding allows.
    pub fn new(ctx: Arc<GpuContext>, capacity: u64) -> Result<CaGpu> {
        let kernel = CaKernel::best(&ctx);
        let tile_bytes = ctx.max_binding_bytes();
        Self::with_options(ctx, capacity, kernel, tile_bytes)
    }

    /// A chosen kernel and band size (tests use small bands to exercise the multi-band path on
    /// small grids).
    pub fn with_options(
        ctx: Arc<GpuContext>,
        capacity: u64,
        kernel: CaKernel,
        tile_bytes: u64,
    ) -> Result<CaGpu> {
        let max_steps = crate::chocolate::automaton::MAX_STEPS;
        if capacity > max_steps {
            return Err(Error::bad_argument(
                "the automaton's steps",
                capacity,
                format!("at most {max_steps}"),
            ));
        }
        kernel.check(&ctx)?;
        let side = capacity + 1;
        let align_words = (ctx.limits.min_storage_buffer_offset_alignment as u64 / 4).max(1);
        let stride = side.div_ceil(32).div_ceil(align_words) * align_words;
        let row_bytes = stride * 4;
        let grid_bytes = side * row_bytes;
        if grid_bytes > ctx.limits.max_buffer_size {
            return Err(Error::too_large(
                format!("the automaton for {capacity} steps"),
                format!(
                    "GPU grids of {grid_bytes} bytes, more than this GPU's largest buffer ({}); use fewer steps",
                    ctx.limits.max_buffer_size
                ),
            ));
        }
        // A software adapter's buffers are host memory.
        let need = kernel.grids() as u64 * grid_bytes;
        let room = ctx
            .is_software()
            .then(crate::memory::available_bytes)
            .flatten();
        if let Some(room) = room.filter(|&room| need > room) {
            return Err(Error::too_large(
                format!("the automaton for {capacity} steps on a software GPU"),
                format!(
                    "{} of memory but only {} is available; use fewer steps",
                    crate::memory::gib(need),
                    crate::memory::gib(room)
                ),
            ));
        }
        let max_rows =
            ctx.limits.max_compute_workgroups_per_dimension as u64 * kernel.rows_per_group();
        let bands = plan_bands(
            side,
            row_bytes,
            tile_bytes.min(ctx.max_binding_bytes()),
            max_rows,
            kernel.halo_rows(),
        )?;
        let pipeline = ctx.pipeline(kernel.id())?;
        let count_pipeline = ctx.pipeline(KernelId::CountP)?;
        let grid_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let grids = (0..kernel.grids())
            .map(|k| ctx.buffer(&format!("ca grid {k}"), grid_bytes, grid_usage))
            .collect::<Result<Vec<_>>>()?;
        let params = ParamsArena::new(
            &ctx,
            CA_STEP.params_bytes,
            STEPS_PER_SUBMISSION * bands.len() as u64,
        )?;
        let counts = ctx.buffer("ca counts", bands.len() as u64 * 4, grid_usage)?;
        let count_params = ParamsArena::new(&ctx, COUNT_P.params_bytes, bands.len() as u64)?;
        // Grids (inputs, outputs) of each phase.
        let phases: Vec<(Vec<usize>, Vec<usize>)> = match kernel {
            CaKernel::Step => (0..3)
                .map(|phase| (vec![phase, (phase + 1) % 3], vec![(phase + 2) % 3]))
                .collect(),
            CaKernel::Block(_) | CaKernel::Regs(_) => {
                vec![(vec![0, 1], vec![2, 3]), (vec![2, 3], vec![0, 1])]
            }
        };
        let window = |grid: usize, first_row: u64, rows: u64| {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &grids[grid],
                offset: first_row * row_bytes,
                size: wgpu::BufferSize::new(rows * row_bytes),
            })
        };
        let (bind_groups, count_binds) = ctx.checked(|| {
            let steps = bands
                .iter()
                .map(|b| {
                    let halo = kernel.halo_rows().min(b.start);
                    let rows = b.end - b.start;
                    phases
                        .iter()
                        .map(|(inputs, outputs)| {
                            let windows: Vec<wgpu::BindingResource<'_>> = inputs
                                .iter()
                                .map(|&g| window(g, b.start - halo, rows + halo))
                                .chain(outputs.iter().map(|&g| window(g, b.start, rows)))
                                .collect();
                            ctx.bind_group("ca", &pipeline, &params, &windows)
                        })
                        .collect()
                })
                .collect::<Vec<Vec<wgpu::BindGroup>>>();
            let counting = (0..grids.len())
                .map(|g| {
                    bands
                        .iter()
                        .map(|b| {
                            let band = window(g, b.start, b.end - b.start);
                            let resources = [band, counts.as_entire_binding()];
                            ctx.bind_group("ca count", &count_pipeline, &count_params, &resources)
                        })
                        .collect()
                })
                .collect::<Vec<Vec<wgpu::BindGroup>>>();
            (steps, counting)
        })?;
        let mut gpu = CaGpu {
            ctx,
            kernel,
            capacity,
            stride,
            grids,
            bands,
            bind_groups,
            params,
            pipeline,
            counts,
            count_params,
            count_pipeline,
            count_binds,
            readback: Readback::default(),
            prev: 0,
            cur: 1,
            n: 0,
        };
        gpu.reset()?;
        Ok(gpu)
    }

    /// Back to b_0 = {(0,0)}: clear the grids and set the corner cell.
    pub fn reset(&mut self) -> Result<()> {
        let ctx = &*self.ctx;
        ctx.checked(|| {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            for g in &self.grids {
                enc.clear_buffer(g, 0, None);
            }
            ctx.queue.submit([enc.finish()]);
            ctx.queue
                .write_buffer(&self.grids[1], 0, bytemuck::bytes_of(&0x8000_0000u32));
            ctx.queue.submit([]);
        })?;
        self.prev = 0;
        self.cur = 1;
        self.n = 0;
        Ok(())
    }

    /// The kernel that steps this automaton.
    pub fn kernel(&self) -> CaKernel {
        self.kernel
    }

    /// How many generations the automaton has been stepped since its seed (or its last reset).
    pub fn generation(&self) -> u64 {
        self.n
    }

    /// The largest generation the grids were sized for.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The bands of rows the grids are split into, each bound as one window.
    pub fn bands(&self) -> &[Band] {
        &self.bands
    }

    /// Advance `k` generations: batches of up to [`STEPS_PER_SUBMISSION`] steps, each batch one
    /// submission. Does not wait for the GPU; reading a result does.
    pub fn advance(&mut self, k: u64) -> Result<()> {
        if self.n + k > self.capacity {
            return Err(Error::bad_argument(
                "the generation",
                self.n + k,
                format!("at most {}, the capacity it was built for", self.capacity),
            ));
        }
        let mut left = k;
        while left > 0 {
            let batch = left.min(STEPS_PER_SUBMISSION);
            self.encode_batch(batch)?;
            left -= batch;
        }
        Ok(())
    }

    fn encode_batch(&mut self, steps: u64) -> Result<()> {
        let ctx = &*self.ctx;
        // Parameters of every (dispatch, band), one slot each.
        let mut params = Vec::new();
        let mut dispatches = Vec::new();
        let (mut prev, mut cur) = (self.prev, self.cur);
        let mut done = 0;
        while done < steps {
            let n = self.n + done;
            let k = (steps - done).min(self.kernel.steps_per_dispatch());
            // The active square of b_{n+k}.
            let rows_active = n + k + 1;
            let words = rows_active.div_ceil(32) as u32;
            let phase = match self.kernel {
                CaKernel::Step => prev,
                CaKernel::Block(_) | CaKernel::Regs(_) => cur / 2,
            };
            for (b, band) in self.bands.iter().enumerate() {
                if band.start >= rows_active {
                    break;
                }
                let rows = (band.end.min(rows_active) - band.start) as u32;
                let offset = self.params.offset(params.len() as u64);
                params.push(StepParams {
                    rows,
                    words,
                    stride: self.stride as u32,
                    halo: self.kernel.halo_rows().min(band.start) as u32,
                    steps: k as u32,
                    pad0: 0,
                    pad1: 0,
                    pad2: 0,
                });
                dispatches.push((b, phase, offset, self.kernel.groups(words, rows)));
            }
            (prev, cur) = match self.kernel {
                CaKernel::Step => (cur, 3 - prev - cur),
                CaKernel::Block(_) | CaKernel::Regs(_) => ((prev + 2) % 4, (cur + 2) % 4),
            };
            done += k;
        }
        let max = ctx.limits.max_compute_workgroups_per_dimension;
        ctx.checked(|| {
            self.params.write(ctx, 0, &params);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("ca"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipeline.pipeline);
                for &(b, phase, offset, (gx, gy)) in &dispatches {
                    debug_assert!(gx <= max && gy <= max);
                    pass.set_bind_group(0, &self.bind_groups[b][phase], &[offset]);
                    pass.dispatch_workgroups(gx, gy, 1);
                }
            }
            ctx.queue.submit([enc.finish()]);
        })?;
        (self.prev, self.cur) = (prev, cur);
        self.n += steps;
        Ok(())
    }

    /// Wait for the submitted steps to finish.
    pub fn finish(&self) -> Result<()> {
        self.ctx.wait(None)
    }

    /// b_n in the u32 layout of the P-grid generators (n+1 rows of `words_per_row(n+1)` words).
    pub fn current_u32(&self) -> Result<Vec<u32>> {
        self.read_generation(self.cur, self.n)
    }

    /// b_{n-1} in the same layout (empty for n = 0).
    pub fn previous_u32(&self) -> Result<Vec<u32>> {
        if self.n == 0 {
            return Ok(Vec::new());
        }
        self.read_generation(self.prev, self.n - 1)
    }

    /// Row `i` (0-based, at most n) of b_n alone, in the u32 layout.
    pub fn row_u32(&self, i: u64) -> Result<Vec<u32>> {
        if i > self.n {
            return Err(Error::bad_argument(
                "the row",
                i,
                format!("at most {}, the generation held", self.n),
            ));
        }
        let wpr = (self.n + 1).div_ceil(32) as usize;
        let row_bytes = self.stride * 4;
        self.readback.read(
            &self.ctx,
            &self.grids[self.cur],
            i * row_bytes,
            row_bytes,
            |bytes| bytemuck::cast_slice::<u8, u32>(bytes)[..wpr].to_vec(),
        )
    }

    fn read_generation(&self, slot: usize, n: u64) -> Result<Vec<u32>> {
        let side = n + 1;
        let wpr = side.div_ceil(32) as usize;
        let stride = self.stride as usize;
        self.readback.read(
            &self.ctx,
            &self.grids[slot],
            0,
            side * self.stride * 4,
            |bytes| {
                let words: &[u32] = bytemuck::cast_slice(bytes);
                let mut out = vec![0u32; wpr * side as usize];
                for (dst, src) in out.chunks_exact_mut(wpr).zip(words.chunks_exact(stride)) {
                    dst.copy_from_slice(&src[..wpr]);
                }
                out
            },
        )
    }

    /// Live cells of b_n (= g(n+1)), counted on the GPU with `pcount.wgsl`, one counter per band.
    pub fn live_cells(&self) -> Result<u64> {
        let ctx = &*self.ctx;
        let side = self.n + 1;
        let mut params = Vec::new();
        let mut sizes = Vec::new();
        for (slot, band) in self.bands.iter().enumerate() {
            if band.start >= side {
                break;
            }
            let rows = band.end.min(side) - band.start;
            let (p, groups) = CountParams::for_words(
                rows * self.stride,
                slot,
                ctx.limits.max_compute_workgroups_per_dimension,
            );
            params.push(p);
            sizes.push(groups);
        }
        ctx.checked(|| {
            self.count_params.write(ctx, 0, &params);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(&self.counts, 0, None);
            for (slot, &groups) in sizes.iter().enumerate() {
                dispatch(
                    &mut enc,
                    "ca count",
                    &self.count_pipeline,
                    &self.count_binds[self.cur][slot],
                    self.count_params.offset(slot as u64),
                    groups,
                );
            }
            ctx.queue.submit([enc.finish()]);
        })?;
        let bytes = self.bands.len() as u64 * 4;
        self.readback.read(ctx, &self.counts, 0, bytes, |b| {
            bytemuck::cast_slice::<u8, u32>(b)
                .iter()
                .map(|&c| c as u64)
                .sum()
        })
    }
}

impl AutomatonBackend for CaGpu {
    fn backend(&self) -> &'static str {
        "gpu"
    }

    fn capacity(&self) -> u64 {
        CaGpu::capacity(self)
    }

    fn generation(&self) -> u64 {
        CaGpu::generation(self)
    }

    fn reset(&mut self) -> Result<()> {
        CaGpu::reset(self)
    }

    fn advance(&mut self, k: u64) -> Result<()> {
        CaGpu::advance(self, k)
    }

    fn finish(&self) -> Result<()> {
        CaGpu::finish(self)
    }

    fn current_u32(&self) -> Result<Vec<u32>> {
        CaGpu::current_u32(self)
    }

    fn previous_u32(&self) -> Result<Vec<u32>> {
        CaGpu::previous_u32(self)
    }

    fn row_u32(&self, i: u64) -> Result<Vec<u32>> {
        CaGpu::row_u32(self, i)
    }

    fn live_cells(&self) -> Result<u64> {
        CaGpu::live_cells(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_cover_the_rows() {
        for halo in [1, 16] {
            let bands = plan_bands(1000, 256, 256 * 31, 1 << 20, halo).unwrap();
            assert_eq!(bands.first().unwrap().start, 0);
            assert_eq!(bands.last().unwrap().end, 1000);
            assert!(bands.windows(2).all(|w| w[0].end == w[1].start));
            assert!(bands
                .iter()
                .all(|b| (b.end - b.start + halo) * 256 <= 256 * 31));
        }
        assert!(plan_bands(10, 256, 256, 1 << 20, 1).is_err());
        assert!(plan_bands(10, 256, 256 * 16, 1 << 20, 16).is_err());
        assert_eq!(plan_bands(10, 4, 1 << 20, 3, 1).unwrap().len(), 4);
    }
}
