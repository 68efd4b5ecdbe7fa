//! Two-player Chomp of a square on the GPU: `chomp_hook.wgsl` over the hook index of
//! `chomp solve`'s own table (the same bits, so the same file), 64-bit indexes, the table in up
//! to [`TABLE_BINDINGS`] buffers. The CPU twin is `two_player::pull` (the same units of the
//! same levels, the same options in the same order); the GPU==CPU tests compare with the
//! forward solver.
//! This is the [`ChompDevice`] of the GPU; the volume-layer kernel (`super::chomp`) still
//! solves the boxes that are not square.
//!
//! # The algorithm: a pull scan
//! Each step of the forward solver's schedule is split into levels; a position is P when none
//! of its options is, read until the first P one. A forward marking (each P-position marks its
//! parents, as the CPU does) reads less, but its fills branch by the hooks they reach and
//! recurse into child squares, and its marks land anywhere in the table; the pull scan's
//! options are each one index computed on its own, and its only write is the position's own
//! bit. Measured by the CPU twin's [`PullStats`] and the kernel's own count
//! (`CHOMPUTE_GPU_STATS=1`, the same numbers): with the bites to one or two rows or columns
//! or to an L first (the winning ones of most N-positions), then the interior, then the other
//! hook cells, 9.3 options read a position on 10×10 (870,144 for 93,337 positions), 10.1 on
//! 11×11, 12.0 on 12×12 (16,379,775 for 1,363,341), where the interior first read 23.1, 28.8
//! and 35.9; a position has up to n² options, so the first P one comes early.
//!
//! # Parallelism: levels of a step
//! A range of a step is a prefix block of a colex block (its first r/2 interior rows fixed, the
//! f = r - r/2 *free* rows under them, each of at most `cap` cells). An option of a position in
//! the same range comes of a bite in the free rows (a bite in the prefix or in a hook leaves
//! the range), so it has fewer cells there: the positions of a range with equally many cells
//! in the free rows (a *level*) are independent, and a step is decided level by level,
//! ascending, all the ranges' positions of a level at once. The host gives each level the start
//! of each of its ranges ([`PullScan::split`]); an invocation finds its position's range by
//! those starts and unranks it by the level counts (`two_player::pull::LevelCounts`, in the
//! index buffer); one invocation a position ([`HookTable::set_positions_per_invocation`] gives
//! the tests more), one dispatch a level, the levels of a step in one compute pass of one
//! submission (wgpu puts a barrier on every read_write buffer between the dispatches of a
//! pass, as between passes, so each one's writes are visible to the next). A pass a dispatch
//! cost the host a third more on lavapipe (BENCHMARKS.md).
//!
//! Walking each range in index order, one invocation a range, left a GPU nearly idle: a step
//! of the 20×20 box has 929 ranges on average (at most 132,856), and its longest range,
//! walked by one invocation, has up to 6,906,900 positions. The schedule counted
//! (`cargo run --release --example chomp_split -- 16 18 20`, BENCHMARKS.md):
//!
//! | box | steps | ranges a step (max, mean) | positions a range (max, mean) | levels (all, max a step) | positions a level (max, mean) | positions in levels ≥ 10⁴ |
//! |---|---|---|---|---|---|---|
//! | 16×16 | 20,914 | 4,672, 63.0 | 170,544, 229.9 | 434,671, 106 | 90,096, 696 | 57.5 % |
//! | 18×18 | 35,930 | 24,591, 231.4 | 1,081,575, 549.5 | 1,011,619, 137 | 931,635, 4,516 | 87.3 % |
//! | 20×20 | 56,958 | 132,856, 929.3 | 6,906,900, 1,310.6 | 2,096,878, 172 | 10,057,877, 33,084 | 96.9 % |
//!
//! So the 20×20 box is some 2.1 million dispatches (37 a step on average), and almost all its
//! positions lie in levels of at least ten thousand independent positions, up to ten million.
//! The positions decided one after another (the sum over the steps of the longest range for
//! the walk, the levels for the split) fall from 1,044,434,054 to 2,096,878 on 20×20, from
//! 142,362,047 to 1,011,619 on 18×18.
//!
//! # Walks cut short by a driver
//! Mesa's llvmpipe (lavapipe) ends every loop of a shader call once all its loops together
//! have made 65,535 trips (gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`, one count for a SIMD group
//! of invocations): a long walk stopped there silently, leaving later P-positions N. The
//! kernel ends each position with a loop of two trips that a cut ends after one: then it leaves
//! that position undecided and records where its unit stopped, and on a software adapter the
//! host dispatches each level alone and again until every unit is done (each dispatch starts
//! with a fresh count, so it decides at least one more position of each unfinished unit). Any
//! other device gets all the levels of a step in one submission and an error if a walk was
//! cut. The host may split steps faster than the device decides them, and each step's
//! uploads (its ranges, level starts and params: 30 GB over 22×22) stay staged in host memory
//! until their submission is done, so the host waits for its oldest steps while more than
//! `AHEAD_BYTES` are ahead. The tests run this schedule on lavapipe too
//! ([`HookTable::set_whole_steps`]).
//!
//! # Tables larger than one binding
//! The bits lie in up to [`TABLE_BINDINGS`] storage buffers of 2^shift u32 words, each within
//! the device's largest binding; the kernel selects one by a switch on the buffer's number
//! (bindings 4, 5, …: WGSL names a binding statically, and binding arrays of storage buffers
//! are an optional feature). It binds the buffers the table has, rounded up to a power of two,
//! rather than every one the device allows: wgpu tracks every bound buffer at every dispatch,
//! and on lavapipe a dispatch with 29 table bindings cost the host about 4 µs more than with
//! one (`examples/chomp_host_cost.rs`, BENCHMARKS.md); 21×21 is 2.9 million dispatches.
//! `buffer_words` (or `CHOMPUTE_GPU_TABLE_WORDS` on the command line) forces small buffers, so
//! that the tests on lavapipe cross every boundary.
//!
//! # Reads: atomic or plain
//! The kernel writes a position's bit with `atomicOr` (32 positions share a word) and, by
//! default ([`TableReads::Atomic`]), reads options with `atomicLoad`, relaxed at device scope.
//! A GPU whose first-level caches are not coherent is expected (not measured) to serve such
//! loads past those caches, although every bit a step reads was settled by an earlier dispatch
//! (an option in the same range lies in an earlier level) and neighbouring invocations read
//! neighbouring words. [`TableReads::Plain`] (`CHOMPUTE_GPU_TABLE_READS=plain`) binds each
//! table buffer a second time as plain `array<u32>` (bindings after all the first ones; wgpu
//! takes one buffer in two read_write bindings as one use) and reads through it with plain
//! loads, which a first-level cache may serve: a word's bits being written in the same
//! dispatch are never the bits read, and wgpu's barrier between dispatches makes the earlier
//! ones visible. It costs twice the bindings, so lavapipe's 32 bind 14 table buffers. Whether
//! it is faster is a question for a real GPU: `scripts/device-bench.sh chomp` runs its first
//! checked box both ways. The variant is made from the file's text (`kernel`), checked by
//! naga in the tests.
//!
//! Tests: tests/engine/chomp_hook.rs.

use super::context::{
    dispatch, dispatch_2d, dispatches, GpuContext, ParamsArena, Readback, Reusable,
};
use super::kernel::{kernel_params, Access, Kernel, KernelId};
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::driver::{drive_steps, Run};
use crate::chomp::index::hook::{Rows, MAX_SIDE};
use crate::chomp::index::{BitLayout, HookIndex};
use crate::chomp::two_player::device::{
    weighted_count_u32, ChompDevice, DeviceTable, Preflight, TableReads,
};
use crate::chomp::two_player::pull::{LevelCounts, PullScan, PullStats, StepSplit};
use crate::chomp::two_player::PTable;
use crate::error::{Error, Result};
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// Table buffers the kernel binds (bindings 4 to 131). wgpu caps a storage binding below 2 GiB,
/// so a buffer holds at most 2^28 words (1 GiB, a power of two) and 128 of them hold 128 GiB:
/// the 22×22 box's 123.3 GiB fits in 124.
pub const TABLE_BINDINGS: u32 = 128;

/// Storage bindings besides the table: the index, the input, the results.
const OTHER_BINDINGS: u32 = 3;

/// Words of one probe result (`PROBE_WORDS` in the shader).
pub const PROBE_WORDS: usize = 36;

/// The bindings' access: the index, the input, the results, the table's buffers and, for
/// [`TableReads::Plain`], the same buffers again (a cut kernel takes a prefix of each).
const STORAGE: [Access; (OTHER_BINDINGS + 2 * TABLE_BINDINGS) as usize] = {
    let mut a = [Access::ReadWrite; (OTHER_BINDINGS + 2 * TABLE_BINDINGS) as usize];
    a[0] = Access::Read;
    a
};

const fn hook_kernel(entry: &'static str) -> Kernel {
    Kernel {
        consts: &[
            ("MAXN", MAX_SIDE as u32 + 1),
            ("PROBE_WORDS", PROBE_WORDS as u32),
        ],
        ..Kernel::with_params::<ChompHookParams>(
            "chomp_hook.wgsl",
            include_str!("../../shaders/chomp_hook.wgsl"),
            entry,
            [64, 1, 1],
            STORAGE
                .split_at((OTHER_BINDINGS + TABLE_BINDINGS) as usize)
                .0,
        )
    }
}

/// `chomp_hook.wgsl`'s step: one invocation per unit of a level of a step.
pub(crate) const CHOMP_HOOK_STEP: Kernel = hook_kernel("chomp_hook_step");
/// `chomp_hook.wgsl`'s gather: the bits at chosen indexes.
pub(crate) const CHOMP_HOOK_GATHER: Kernel = hook_kernel("chomp_hook_gather");
/// `chomp_hook.wgsl`'s probe: the index arithmetic alone.
pub(crate) const CHOMP_HOOK_PROBE: Kernel = hook_kernel("chomp_hook_probe");

const WORKGROUP: u64 = 64;

/// The kernel of entry `entry` (0 step, 1 gather, 2 probe) with `tables` table bindings,
/// reading them as `reads` says: the file as it is for [`TABLE_BINDINGS`] and atomic reads;
/// else its text without the bindings and switch cases of the buffers past `tables` (a device
/// that binds fewer storage buffers, such as lavapipe's 32), and for plain reads with a second
/// binding `r<k>` of each table buffer, after all the first ones, that `load_word` reads by a
/// plain load. Made once and kept.
pub(crate) fn kernel(entry: usize, tables: u8, reads: TableReads) -> &'static Kernel {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Made = HashMap<(usize, u32, TableReads), &'static Kernel>;
    let full = [&CHOMP_HOOK_STEP, &CHOMP_HOOK_GATHER, &CHOMP_HOOK_PROBE][entry];
    let tables = (tables as u32).clamp(1, TABLE_BINDINGS);
    if tables == TABLE_BINDINGS && reads == TableReads::Atomic {
        return full;
    }
    static MADE: OnceLock<Mutex<Made>> = OnceLock::new();
    let mut made = MADE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    made.entry((entry, tables, reads)).or_insert_with(|| {
        let bindings = tables * reads.bindings_per_buffer();
        let file = format!(
            "chomp_hook.wgsl ({tables} table bindings, {} reads)",
            reads.name()
        );
        Box::leak(Box::new(Kernel {
            file: Box::leak(file.into_boxed_str()),
            source: Box::leak(variant_source(full.source, tables, reads).into_boxed_str()),
            storage: &STORAGE[..(OTHER_BINDINGS + bindings) as usize],
            ..hook_kernel(full.entry)
        }))
    })
}

/// `source` (the file) without the bindings and switch cases of the table buffers past
/// `tables`; for plain reads, each kept buffer's `load_word` case a plain load of a second
/// binding `r<k>`, those bindings declared after the last first one.
fn variant_source(source: &str, tables: u32, reads: TableReads) -> String {
    let dropped: Vec<String> = (tables..TABLE_BINDINGS)
        .flat_map(|k| [format!(" t{k}: "), format!("&t{k}[")])
        .collect();
    let last = format!(" t{}: ", tables - 1);
    let mut out = String::new();
    for l in source.lines() {
        if dropped.iter().any(|d| l.contains(d.as_str())) {
            continue;
        }
        let plain_case = l
            .strip_prefix("        case ")
            .and_then(|c| c.strip_suffix("[local]); }"))
            .and_then(|c| c.split_once("u: { return atomicLoad(&t"))
            .filter(|(k, t)| k == t);
        match (reads, plain_case) {
            (TableReads::Plain, Some((k, _))) => {
                out.push_str(&format!("        case {k}u: {{ return r{k}[local]; }}\n"));
            }
            _ => {
                out.push_str(l);
                out.push('\n');
            }
        }
        if reads == TableReads::Plain && l.starts_with("@group(0)") && l.contains(&last) {
            for k in 0..tables {
                let b = 1 + OTHER_BINDINGS + tables + k;
                out.push_str(&format!(
                    "@group(0) @binding({b}) var<storage, read_write> r{k}: array<u32>;\n"
                ));
            }
        }
    }
    out
}

kernel_params! {
    /// Params of `chomp_hook.wgsl`: the side n and n + 1, where the squares and the blocks
    /// start in the index buffer, the items of this dispatch and its x extent in workgroups,
    /// log2 of the words of a table buffer, whether to count the options read, the loop
    /// sentinel's trips (2); the dispatch's level, where its range starts lie in the input and
    /// how many, its positions, the positions an invocation decides, where the invocations'
    /// resume counts lie (0: none); where the level counts start in the index buffer and their
    /// extents.
    struct ChompHookParams {
        n: u32,
        s: u32,
        sq0: u32,
        bk0: u32,
        count: u32,
        groups_x: u32,
        shift: u32,
        stats: u32,
        twice: u32,
        level: u32,
        s0: u32,
        slen: u32,
        size: u32,
        per: u32,
        res0: u32,
        lc0: u32,
        caps: u32,
        vs: u32,
    }
}

/// The hook index as the kernel reads it (see the shader's header): weights, squares, `at`
/// tables, blocks, level counts; and where the squares, blocks and counts start, and the
/// counts' extents.
fn index_words(hook: &HookIndex) -> (Vec<u32>, [u32; 5]) {
    let n = hook.side();
    let s = n + 1;
    let mut out = Vec::new();
    for r in 0..s {
        for j in 0..s {
            for len in 0..s {
                let w = if j < r {
                    hook.weight(r, j, len as u32)
                } else {
                    0
                };
                out.extend([w as u32, (w >> 32) as u32]);
            }
        }
    }
    let sq0 = out.len();
    out.resize(sq0 + 3 * s, 0);
    let mut first = 0u32;
    let mut at_tables = Vec::new();
    for m in 0..s {
        let sq = &hook.squares[m];
        out[sq0 + 3 * m] = first;
        out[sq0 + 3 * m + 1] = sq.blocks.len() as u32;
        at_tables.push(
            sq.at
                .iter()
                .map(|&i| {
                    if i == usize::MAX {
                        u32::MAX
                    } else {
                        first + i as u32
                    }
                })
                .collect::<Vec<u32>>(),
        );
        first += sq.blocks.len() as u32;
    }
    for (m, at) in at_tables.into_iter().enumerate() {
        out[sq0 + 3 * m + 2] = out.len() as u32;
        out.extend(at);
    }
    let bk0 = out.len();
    for m in 0..s {
        for b in &hook.squares[m].blocks {
            use crate::chomp::index::hook::Kind;
            let (kind, r, c, mc) = match b.kind {
                Kind::Empty => (0, 0, 0, 0),
                Kind::Colex { r, c } => (1, r as u32, c, 0),
                Kind::Child { m } => (2, 0, 0, m as u32),
            };
            out.extend([b.off as u32, (b.off >> 32) as u32, kind, r, c, mc]);
        }
    }
    let lc0 = out.len();
    let (counts, caps, vs) = LevelCounts::for_side(n).words();
    out.extend(counts);
    (out, [sq0 as u32, bk0 as u32, lc0 as u32, caps, vs])
}

/// The two-player tables on one GPU context.
pub struct ChompGpuDevice {
    ctx: Arc<GpuContext>,
    reads: TableReads,
}

impl ChompGpuDevice {
    /// The device of `ctx`, its hook kernel reading the table by atomic loads.
    pub fn new(ctx: Arc<GpuContext>) -> ChompGpuDevice {
        ChompGpuDevice {
            ctx,
            reads: TableReads::Atomic,
        }
    }

    /// The same device, its hook kernel reading the table as `reads` says.
    pub fn with_reads(self, reads: TableReads) -> ChompGpuDevice {
        ChompGpuDevice { reads, ..self }
    }
}

impl ChompDevice for ChompGpuDevice {
    fn solve_by_layers(&self, shape: ChompBox) -> Result<PTable> {
        super::chomp::ChompGpu::new(self.ctx.clone()).solve(shape)
    }

    fn preflight(&self, layout: &BitLayout, buffer_words: Option<u64>) -> Result<Preflight> {
        plan_buffers(
            &self.ctx.info.name,
            &self.ctx.limits,
            layout,
            buffer_words,
            self.reads,
        )
    }

    fn solve_hook(
        &self,
        layout: &BitLayout,
        plan: &Preflight,
        stats: bool,
    ) -> Result<Box<dyn DeviceTable>> {
        let Some(hook) = layout.hook_index() else {
            return Err(Error::invalid(format!(
                "the hook kernel solves squares, not the {} box",
                layout.shape()
            )));
        };
        let table = HookTable::new(self.ctx.clone(), hook.clone(), plan)?;
        table.solve(stats)?;
        Ok(Box::new(table))
    }
}

/// How `layout`'s table lies on a device named `device` with `limits`: buffers of
/// `buffer_words` words (rounded up to a power of two), else the fewest, each within the largest
/// binding; refused in one line, with the numbers, when the kernel cannot bind them all (each
/// buffer twice for `reads` [`TableReads::Plain`]).
pub fn plan_buffers(
    device: &str,
    limits: &wgpu::Limits,
    layout: &BitLayout,
    buffer_words: Option<u64>,
    reads: TableReads,
) -> Result<Preflight> {
    let max_binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let words = layout.len().div_ceil(32).max(1);
    let largest = prev_power_of_two((max_binding / 4).min(1 << 31));
    let buffer_words = match buffer_words {
        Some(w) => w.clamp(2, largest).next_power_of_two().min(largest),
        None => words.next_power_of_two().clamp(2, largest),
    };
    let max_bindings = limits.max_storage_buffers_per_shader_stage;
    let plan = Preflight {
        device: device.to_string(),
        max_binding: limits.max_storage_buffer_binding_size,
        max_buffer: limits.max_buffer_size,
        max_bindings,
        table_bindings: (max_bindings.saturating_sub(OTHER_BINDINGS) / reads.bindings_per_buffer())
            .min(TABLE_BINDINGS),
        table_bytes: words * 4,
        buffer_words,
        buffers: words.div_ceil(buffer_words),
        reads,
    };
    let shape = layout.shape();
    if plan.buffers > plan.table_bindings as u64 {
        return Err(Error::too_large(
            format!("the {shape} box on this GPU"),
            format!(
                "{}: more buffers than the kernel binds; use a smaller box",
                plan.line()
            ),
        ));
    }
    Ok(plan)
}

fn prev_power_of_two(x: u64) -> u64 {
    x.checked_ilog2().map_or(0, |l| 1 << l)
}

/// A square's table on the GPU: its buffers and the hook index the kernel reads.
pub struct HookTable {
    ctx: Arc<GpuContext>,
    hook: Arc<HookIndex>,
    index: wgpu::Buffer,
    /// Where the squares, blocks and level counts start in `index`, the counts' extents.
    at: [u32; 5],
    tables: Vec<wgpu::Buffer>,
    /// Stand-ins bound where the table has no buffer.
    spare: Vec<wgpu::Buffer>,
    shift: u32,
    /// Table bindings of the kernel (the table's buffers and the stand-ins).
    bindings: u8,
    /// How the kernel reads the table (plain: each buffer bound a second time).
    reads: TableReads,
    words: u64,
    stats: std::sync::Mutex<Option<PullStats>>,
    /// Positions of a level an invocation decides, one after another.
    per: u32,
    /// Levels dispatched again (walks cut short on a software adapter).
    again: std::sync::atomic::AtomicU64,
    /// Each step's levels in one submission (a hardware adapter's schedule), else each level
    /// alone and again until its walks are done (a software adapter's).
    whole_steps: bool,
    /// Bytes of uploads (input and params) the host may have submitted ahead of the device.
    ahead: u64,
}

/// Bytes of uploads a solve may have submitted and not seen done: the host splits steps
/// faster than the device decides them, and each upload is staged in host memory until its
/// submission is done (30 GB in all for 22×22).
const AHEAD_BYTES: u64 = 256 << 20;

impl HookTable {
    /// The buffers of `hook`'s table laid out as `plan` says, zeroed; refuses in one line a
    /// table the device cannot allocate.
    pub fn new(ctx: Arc<GpuContext>, hook: Arc<HookIndex>, plan: &Preflight) -> Result<HookTable> {
        let words = hook.len().div_ceil(32).max(1);
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let mut tables = Vec::new();
        for k in 0..plan.buffers {
            let w = (words - k * plan.buffer_words).min(plan.buffer_words);
            let made = ctx.buffer("chomp hook table", w * 4, usage);
            match made {
                Ok(b) => tables.push(b),
                Err(e) => {
                    return Err(Error::too_large(
                        format!("the {0}x{0} box on this GPU", hook.side()),
                        format!(
                            "{}: buffer {} of {} not allocated ({e}); use a smaller box",
                            plan.line(),
                            k + 1,
                            plan.buffers
                        ),
                    ))
                }
            }
        }
        HookTable::with_buffers(
            ctx,
            hook,
            tables,
            plan.buffer_words,
            plan.table_bindings,
            plan.reads,
        )
    }

    /// The index alone, no table (its buffers of `buffer_words` u32 words, a power of two, are
    /// not allocated): for [`HookTable::probe`] on boxes of any size, on a device that binds
    /// `bindings` table buffers ([`Preflight::table_bindings`]).
    pub fn probe_only(
        ctx: Arc<GpuContext>,
        hook: Arc<HookIndex>,
        buffer_words: u64,
        bindings: u32,
    ) -> Result<HookTable> {
        if !buffer_words.is_power_of_two() || buffer_words < 2 {
            return Err(Error::invalid(format!(
                "table buffers hold a power of two words, at least 2, not {buffer_words}"
            )));
        }
        HookTable::with_buffers(
            ctx,
            hook,
            Vec::new(),
            buffer_words,
            bindings,
            TableReads::Atomic,
        )
    }

    fn with_buffers(
        ctx: Arc<GpuContext>,
        hook: Arc<HookIndex>,
        tables: Vec<wgpu::Buffer>,
        buffer_words: u64,
        bindings: u32,
        reads: TableReads,
    ) -> Result<HookTable> {
        // Each binding costs the host and the driver on every dispatch (millions of them), so
        // the kernel binds the table's buffers rounded up to a power of two (a few variants),
        // not all the device allows; with no buffers (a probe) it binds what it is told.
        let bindings = match tables.len() as u32 {
            0 => bindings,
            used => used.next_power_of_two().min(bindings),
        }
        .clamp(1, TABLE_BINDINGS);
        let words = hook.len().div_ceil(32).max(1);
        let spare = (tables.len() as u32..bindings)
            .map(|_| ctx.buffer("chomp hook spare", 4, wgpu::BufferUsages::STORAGE))
            .collect::<Result<Vec<_>>>()?;
        let (words_index, at) = index_words(&hook);
        let index = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("chomp hook index"),
                contents: bytemuck::cast_slice(&words_index),
                usage: wgpu::BufferUsages::STORAGE,
            });
        Ok(HookTable {
            whole_steps: !ctx.is_software(),
            ctx,
            hook,
            index,
            at,
            tables,
            spare,
            shift: buffer_words.trailing_zeros(),
            bindings: bindings as u8,
            reads,
            words,
            stats: std::sync::Mutex::new(None),
            per: 1,
            again: Default::default(),
            ahead: AHEAD_BYTES,
        })
    }

    /// Let each invocation decide `per` consecutive positions of a level (1, the default,
    /// gives a GPU the most parallelism): for the tests, whose longer walks run past lavapipe's
    /// loop budget, so that the dispatches again from where each walk stopped are exercised.
    pub fn set_positions_per_invocation(&mut self, per: u32) {
        self.per = per.max(1);
    }

    /// Submit each step's levels at once, as on a hardware adapter (its default), or each
    /// level alone, again until its walks are done, as on a software one (its default): the
    /// tests run the hardware schedule on lavapipe, where a walk cut short is then an error.
    pub fn set_whole_steps(&mut self, whole: bool) {
        self.whole_steps = whole;
    }

    /// Let the host submit at most `bytes` of uploads ahead of the device (at least one step's;
    /// 256 MiB by default): the tests make it wait on every step.
    pub fn set_bytes_ahead(&mut self, bytes: u64) {
        self.ahead = bytes;
    }

    /// How many times a level was dispatched again because walks were cut short.
    pub fn dispatched_again(&self) -> u64 {
        self.again.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn params(&self, count: u32, groups_x: u32, stats: bool) -> ChompHookParams {
        let [sq0, bk0, lc0, caps, vs] = self.at;
        ChompHookParams {
            n: self.hook.side() as u32,
            s: self.hook.side() as u32 + 1,
            sq0,
            bk0,
            count,
            groups_x,
            shift: self.shift,
            stats: stats as u32,
            twice: 2,
            level: 0,
            s0: 0,
            slen: 0,
            size: 0,
            per: 1,
            res0: 0,
            lc0,
            caps,
            vs,
        }
    }

    /// The kernel's bindings after the params: the index, `input`, `results`, the table's
    /// buffers and stand-ins, and for plain reads the same again.
    fn bindings_with<'a>(
        &'a self,
        input: &'a wgpu::Buffer,
        results: &'a wgpu::Buffer,
    ) -> Vec<wgpu::BindingResource<'a>> {
        let tables = || {
            self.tables
                .iter()
                .chain(&self.spare)
                .map(|b| b.as_entire_binding())
        };
        let mut buffers = vec![
            self.index.as_entire_binding(),
            input.as_entire_binding(),
            results.as_entire_binding(),
        ];
        buffers.extend(tables());
        if self.reads == TableReads::Plain {
            buffers.extend(tables());
        }
        buffers
    }

    /// Run kernel `id` over `count` items with `input` and `results` bound.
    fn run(
        &self,
        id: KernelId,
        arena: &ParamsArena,
        input: &wgpu::Buffer,
        results: &wgpu::Buffer,
        count: u32,
        stats: bool,
    ) -> Result<wgpu::SubmissionIndex> {
        let ctx = &*self.ctx;
        let pipeline = ctx.pipeline(id)?;
        let (gx, gy) = dispatch_2d(
            (count as u64).div_ceil(WORKGROUP) as u32,
            ctx.limits.max_compute_workgroups_per_dimension,
        );
        let buffers = self.bindings_with(input, results);
        let bind = ctx.bind_group("chomp_hook", &pipeline, arena, &buffers);
        ctx.checked(|| {
            arena.write(ctx, 0, &[self.params(count, gx, stats)]);
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            dispatch(
                &mut enc,
                "chomp_hook",
                &pipeline,
                &bind,
                arena.offset(0),
                (gx, gy),
            );
            ctx.queue.submit([enc.finish()])
        })
    }

    /// Solve the table: every step of the hook index through the one driver, each step's
    /// levels in turn ([`PullScan::split`], one dispatch a level).
    pub fn solve(&self, stats: bool) -> Result<()> {
        let ctx = &*self.ctx;
        let mut step = StepRun {
            table: self,
            arena: ParamsArena::new(ctx, CHOMP_HOOK_STEP.params_bytes, SLOTS)?,
            pipeline: ctx.pipeline(KernelId::ChompHookStep(self.bindings, self.reads))?,
            input: Reusable::new(
                "chomp hook units",
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            ),
            // results[0..2]: the options read; results[2]: the units a dispatch left unfinished.
            counter: ctx.buffer(
                "chomp hook counter",
                16,
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            )?,
            readback: Readback::default(),
            stats,
            in_flight: Default::default(),
            in_flight_bytes: 0,
        };
        let scan = PullScan::new(&self.hook);
        let run = Run::new(&*self.hook, self.hook.len(), 0);
        drive_steps(
            run,
            |_, ranges| {
                step.levels(&scan.split(ranges)?)?;
                Ok(Vec::new())
            },
            |_, _, _| Ok(()),
        )?;
        let read: Vec<u32> = step.readback.read(ctx, &step.counter, 0, 12, |b| {
            bytemuck::cast_slice::<u8, u32>(b).to_vec()
        })?;
        step.readback.release();
        if read[2] > 0 {
            return Err(Error::Gpu(format!(
                "the device cut {} walks of the hook kernel short: its driver ends long loops",
                read[2]
            )));
        }
        if stats {
            *self
                .stats
                .lock()
                .map_err(|_| Error::Gpu("stats poisoned".into()))? = Some(PullStats {
                positions: self.hook.len() - 1,
                options: read[0] as u64 | (read[1] as u64) << 32,
            });
        }
        Ok(())
    }

    /// Visit the table's u32 words in order, a chunk at a time: `f(first_word, words)`.
    fn for_each_chunk(&self, mut f: impl FnMut(u64, &[u32])) -> Result<()> {
        let readback = Readback::default();
        let chunk = (self.ctx.max_binding_bytes()).min(256 << 20) & !3;
        let mut first = 0u64;
        for buf in &self.tables {
            let size = buf.size();
            let mut off = 0;
            while off < size {
                let bytes = (size - off).min(chunk);
                readback.read(&self.ctx, buf, off, bytes, |b| {
                    f(first + off / 4, bytemuck::cast_slice::<u8, u32>(b))
                })?;
                off += bytes;
            }
            first += size / 4;
        }
        readback.release();
        Ok(())
    }

    /// Where each position's bits of the probe kernel (see the shader): for every row list
    /// in `positions`, its index, that bit's buffer and word, and the rows the index locates.
    pub fn probe(&self, positions: &[Rows]) -> Result<Vec<(u64, u32, u32, Rows)>> {
        let input: Vec<u32> = positions.iter().flat_map(|r| r.iter().copied()).collect();
        let out = self.gather_run(
            KernelId::ChompHookProbe(self.bindings, self.reads),
            &input,
            positions.len(),
            PROBE_WORDS,
        )?;
        Ok(out
            .chunks(PROBE_WORDS)
            .map(|o| {
                let mut rows = [0u32; MAX_SIDE + 1];
                rows.copy_from_slice(&o[4..4 + MAX_SIDE + 1]);
                (o[0] as u64 | (o[1] as u64) << 32, o[2], o[3], rows)
            })
            .collect())
    }

    /// Run a gather-shaped kernel: `count` items of `input`, `per` result words each.
    fn gather_run(
        &self,
        id: KernelId,
        input: &[u32],
        count: usize,
        per: usize,
    ) -> Result<Vec<u32>> {
        let ctx = &*self.ctx;
        let arena = ParamsArena::new(ctx, CHOMP_HOOK_STEP.params_bytes, 1)?;
        let input_buf = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("chomp hook gather input"),
                contents: bytemuck::cast_slice(if input.is_empty() { &[0u32] } else { input }),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let bytes = ((count * per).max(1) * 4) as u64;
        let results = ctx.buffer(
            "chomp hook gather results",
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )?;
        if count > 0 {
            self.run(id, &arena, &input_buf, &results, count as u32, false)?;
        }
        Readback::default().read(ctx, &results, 0, bytes, |b| {
            bytemuck::cast_slice::<u8, u32>(b)[..count * per].to_vec()
        })
    }
}

/// Params slots: a step's levels (at most 15 free rows of 30 cells, 451 levels).
const SLOTS: u64 = 512;

/// The step kernel's buffers while a table is solved.
struct StepRun<'a> {
    table: &'a HookTable,
    arena: ParamsArena,
    pipeline: super::context::Pipeline,
    input: Reusable,
    counter: wgpu::Buffer,
    readback: Readback,
    stats: bool,
    /// Whole steps submitted and not yet seen done, oldest first, with their uploads' bytes.
    in_flight: std::collections::VecDeque<(wgpu::SubmissionIndex, u64)>,
    /// The bytes of `in_flight`'s uploads.
    in_flight_bytes: u64,
}

impl StepRun<'_> {
    /// Dispatch the levels of one step, in order, [`HookTable::per`] positions an invocation
    /// (one but in tests): the input holds
    /// the ranges (first index, free rows, cap), every level's range starts and, on a software
    /// adapter, a resume count an invocation. One submission on a hardware adapter; on a
    /// software one each level alone, again until every invocation is done (see the shader's
    /// loops_whole), each dispatch leaving fewer unfinished.
    fn levels(&mut self, split: &StepSplit) -> Result<()> {
        let levels = split.levels();
        if levels == 0 {
            return Ok(());
        }
        if levels as u64 > SLOTS {
            return Err(Error::Gpu(format!("a step of {levels} levels")));
        }
        let table = self.table;
        let ctx = &*table.ctx;
        // Each level alone, again until its walks are done (a software adapter's schedule).
        let by_level = !table.whole_steps;
        let mut words: Vec<u32> = Vec::with_capacity(4 * split.ranges.len() + split.starts.len());
        for &(b, f, cap) in &split.ranges {
            words.extend([b as u32, (b >> 32) as u32, f, cap]);
        }
        let s0 = words.len() as u32;
        words.extend_from_slice(&split.starts);
        let res0 = words.len();
        let per = table.per;
        let widest = split
            .sizes
            .iter()
            .map(|s| s.div_ceil(per as u64))
            .max()
            .unwrap_or(0) as usize;
        if by_level {
            words.resize(res0 + widest.max(1), 0);
        }
        self.input
            .ensure(ctx, (words.len() * 4) as u64, ctx.max_binding_bytes())?;
        let buf = self.input.get()?;
        ctx.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
        let buffers = table.bindings_with(buf, &self.counter);
        let bind = ctx.bind_group("chomp_hook", &self.pipeline, &self.arena, &buffers);
        let max = ctx.limits.max_compute_workgroups_per_dimension;
        let groups = |count: u64| dispatch_2d(count.div_ceil(WORKGROUP) as u32, max);
        let params: Vec<ChompHookParams> = (0..levels)
            .map(|v| {
                let size = split.sizes[v] as u32;
                let count = size.div_ceil(per);
                ChompHookParams {
                    level: v as u32,
                    s0: s0 + split.at[v] as u32,
                    slen: (split.at[v + 1] - split.at[v]) as u32,
                    size,
                    per,
                    res0: if by_level { res0 as u32 } else { 0 },
                    ..table.params(count, groups(count as u64).0, self.stats)
                }
            })
            .collect();
        self.arena.write(ctx, 0, &params);
        let submit = |range: std::ops::Range<usize>| {
            ctx.checked(|| {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                let each = range.map(|v| {
                    let g = groups(split.sizes[v].div_ceil(per as u64));
                    (self.arena.offset(v as u64), g)
                });
                dispatches(&mut enc, "chomp_hook", &self.pipeline, &bind, each);
                ctx.queue.submit([enc.finish()])
            })
        };
        if !by_level {
            let done = submit(0..levels)?;
            let bytes = 4 * words.len() as u64 + self.arena.offset(levels as u64) as u64;
            self.in_flight.push_back((done, bytes));
            self.in_flight_bytes += bytes;
            // Wait for the oldest steps while the uploads ahead of the device exceed the bound.
            while self.in_flight_bytes > table.ahead && self.in_flight.len() > 1 {
                let (oldest, b) = self.in_flight.pop_front().expect("two in flight");
                ctx.wait(Some(oldest))?;
                self.in_flight_bytes -= b;
            }
            return Ok(());
        }
        let counter = &self.counter;
        let readback = &self.readback;
        let unfinished = || -> Result<u32> {
            readback.read(ctx, counter, 8, 4, |b| {
                bytemuck::cast_slice::<u8, u32>(b)[0]
            })
        };
        let zeros = vec![0u32; widest.max(1)];
        for v in 0..levels {
            if v > 0 {
                ctx.queue
                    .write_buffer(buf, res0 as u64 * 4, bytemuck::cast_slice(&zeros));
            }
            submit(v..v + 1)?;
            let mut rounds = 0u32;
            while unfinished()? > 0 {
                rounds += 1;
                if rounds > per {
                    return Err(Error::Gpu(
                        "the hook kernel's walks of a level made no progress".into(),
                    ));
                }
                ctx.queue
                    .write_buffer(counter, 8, bytemuck::cast_slice(&[0u32]));
                submit(v..v + 1)?;
                table
                    .again
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

impl DeviceTable for HookTable {
    /// Counted on every core, a part of each chunk read back at a time: one core counts
    /// about 2 GB/s, and the 22×22 table is 124 GiB.
    fn p_count(&self) -> Result<u64> {
        use rayon::prelude::*;
        const PART: usize = 4096;
        let leaves = self.hook.leaf_weights();
        let mut total = 0u64;
        self.for_each_chunk(|first, words| {
            total += words
                .par_chunks(PART)
                .enumerate()
                .map(|(k, part)| {
                    weighted_count_u32(&leaves, (first + (k * PART) as u64) * 32, part)
                })
                .sum::<u64>()
        })?;
        Ok(total)
    }

    fn words(&self) -> Result<Vec<u64>> {
        let mut out: Vec<u32> = Vec::with_capacity(self.words as usize + 1);
        self.for_each_chunk(|_, words| out.extend_from_slice(words))?;
        let want = self.hook.len().div_ceil(64) as usize;
        out.resize(want * 2, 0);
        Ok(out
            .chunks(2)
            .map(|p| p[0] as u64 | (p[1] as u64) << 32)
            .collect())
    }

    fn bits_at(&self, indexes: &[u64]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(indexes.len());
        for part in indexes.chunks(1 << 20) {
            let input: Vec<u32> = part
                .iter()
                .flat_map(|&q| [q as u32, (q >> 32) as u32])
                .collect();
            let got = self.gather_run(
                KernelId::ChompHookGather(self.bindings, self.reads),
                &input,
                part.len(),
                1,
            )?;
            out.extend(got.into_iter().map(|b| b == 1));
        }
        Ok(out)
    }

    fn stats(&self) -> Option<PullStats> {
        self.stats.lock().ok().and_then(|s| *s)
    }
}
