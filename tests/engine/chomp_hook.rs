//! The GPU's hook kernel (`chomp_hook.wgsl`) against the CPU: the forward solver's bits on
//! every square to 12×12 with the default buffers and with the tiniest (as many as the kernel
//! binds, so positions and their options lie in different buffers and steps cross buffers),
//! the index arithmetic on indexes past 2^32 (22×22, no table allocated), the winning bites
//! read on the device, and the buffers of the 22×22 table under a large GPU's limits; the
//! same bits with the table read by plain loads through second bindings, and by a hardware
//! adapter's schedule (whole steps a submission, the host's run-ahead bounded); and every
//! variant a large GPU may take (1 to 128 table bindings, both reads) validated by naga.

use chompute::chomp::index::hook::{Rows, MAX_SIDE};
use chompute::chomp::index::{BitLayout, HookIndex};
use chompute::chomp::two_player::device::{device_bites, ChompDevice, DeviceTable, TableReads};
use chompute::chomp::two_player::solve::solve_layers;
use chompute::chomp::ChompBox;
use chompute::gpu::chomp_hook::{plan_buffers, ChompGpuDevice, HookTable, TABLE_BINDINGS};
use chompute::gpu::GpuContext;
use std::sync::Arc;

fn square(n: usize) -> ChompBox {
    ChompBox::square(n)
}

/// The smallest buffers the kernel can bind `layout`'s table in on `device`.
fn tiniest(device: &ChompGpuDevice, layout: &BitLayout) -> u64 {
    let bindings = device.preflight(layout, None).unwrap().table_bindings;
    assert!(bindings > 1 && bindings <= TABLE_BINDINGS, "{bindings}");
    layout
        .len()
        .div_ceil(32)
        .div_ceil(bindings as u64)
        .next_power_of_two()
        .max(2)
}

/// The hook kernel's words of the n×n table (buffers of `buffer_words`, or the tiniest with
/// `Some(0)`; the table read as `reads` says) and the forward solver's.
pub fn gpu_and_cpu(
    ctx: &Arc<GpuContext>,
    n: usize,
    buffer_words: Option<u64>,
    reads: TableReads,
) -> (Vec<u64>, Vec<u64>) {
    let layout = BitLayout::for_box(square(n)).unwrap();
    let cpu = solve_layers(layout.clone()).unwrap();
    let device = ChompGpuDevice::new(ctx.clone()).with_reads(reads);
    let words = buffer_words.map(|w| if w == 0 { tiniest(&device, &layout) } else { w });
    let plan = device.preflight(&layout, words).unwrap();
    if buffer_words.is_some() && layout.len() > 64 * 32 {
        assert!(plan.buffers > 1, "{n}: {}", plan.line());
    }
    let table = device.solve_hook(&layout, &plan, false).unwrap();
    assert_eq!(table.p_count().unwrap(), cpu.p_count(), "{n}: P-count");
    (table.words().unwrap(), cpu.words())
}

#[test]
fn gpu_hook_kernel_gives_the_forward_solvers_bits_on_every_square_to_9() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_kernel_gives_the_forward_solvers_bits")
    else {
        return;
    };
    for n in 1..=9 {
        let (gpu, cpu) = gpu_and_cpu(&ctx, n, None, TableReads::Atomic);
        assert!(gpu == cpu, "{n}x{n}: default buffers");
    }
}

/// The larger squares, whose levels hold up to a thousand positions; should a shader call run
/// past the 65,535 loop trips that lavapipe allows one, the kernel notices the cut and the
/// host dispatches the level again from where each invocation stopped.
#[test]
fn gpu_hook_kernel_gives_the_forward_solvers_bits_on_squares_10_to_12() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_kernel_10_to_12") else {
        return;
    };
    for n in 10..=12 {
        let (gpu, cpu) = gpu_and_cpu(&ctx, n, None, TableReads::Atomic);
        assert!(gpu == cpu, "{n}x{n}: default buffers");
        let (gpu, cpu) = gpu_and_cpu(&ctx, n, Some(0), TableReads::Atomic);
        assert!(gpu == cpu, "{n}x{n}: tiniest buffers");
    }
}

#[test]
fn gpu_hook_kernel_gives_the_same_bits_in_the_tiniest_buffers() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_kernel_gives_the_same_bits_in_tiny")
    else {
        return;
    };
    for n in 1..=9 {
        let (gpu, cpu) = gpu_and_cpu(&ctx, n, Some(0), TableReads::Atomic);
        assert!(gpu == cpu, "{n}x{n}: tiniest buffers");
    }
}

/// A position of the n-square from a seed: rows non-increasing, each at most n.
fn position(n: usize, seed: &mut u64) -> Rows {
    let mut rows = [0u32; MAX_SIDE + 1];
    let mut top = n as u32;
    for r in rows.iter_mut().take(n) {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = ((*seed >> 33) % (top as u64 + 2)) as u32;
        *r = v.min(top);
        top = *r;
    }
    rows
}

#[test]
fn gpu_hook_index_arithmetic_agrees_past_2_to_the_32() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_index_arithmetic_agrees_past_2_32") else {
        return;
    };
    let bindings = {
        let layout = BitLayout::for_box(square(4)).unwrap();
        let device = ChompGpuDevice::new(ctx.clone());
        device.preflight(&layout, None).unwrap().table_bindings
    };
    for (n, words) in [(22usize, 1u64 << 29), (22, 1 << 20), (18, 1 << 12), (9, 2)] {
        let hook = Arc::new(HookIndex::new(n).unwrap());
        let table = HookTable::probe_only(ctx.clone(), hook.clone(), words, bindings).unwrap();
        let mut seed = n as u64 * 7919 + words;
        let mut positions: Vec<Rows> = (0..2000).map(|_| position(n, &mut seed)).collect();
        // And stored positions spread over the whole index (past 2^32 for 22x22).
        let step = hook.len() / 1000;
        positions.extend((1..1000).map(|k| hook.unrank(k * step + k)));
        // The last positions of the index, whose indexes are the largest.
        positions.push(hook.unrank(hook.len() - 1));
        let mut full = [0u32; MAX_SIDE + 1];
        full[..n].iter_mut().for_each(|r| *r = n as u32);
        positions.push(full);
        let got = table.probe(&positions).unwrap();
        let mut past = 0;
        for (p, (index, buf, word, rows)) in positions.iter().zip(got) {
            let want = hook.index(&p[..n]).unwrap();
            assert_eq!(index, want, "{n}: the index of {p:?}");
            assert_eq!(buf as u64, (want >> 5) / words, "{n}: buffer of {want}");
            assert_eq!(word as u64, (want >> 5) % words, "{n}: word of {want}");
            assert_eq!(rows, hook.unrank(want), "{n}: the rows of {want}");
            past += (want >> 32 > 0) as u32;
        }
        if n == 22 {
            assert!(past > 1000, "{n}: {past} indexes past 2^32");
        }
    }
}

/// The kernel reading the table by plain loads through a second binding of each buffer: the
/// forward solver's bits on every square to 11×11 with the default buffers and to 9×9 with the
/// tiniest (half as many bindings, so twice the words a buffer).
#[test]
fn gpu_hook_kernel_reading_plainly_gives_the_same_bits() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_kernel_reading_plainly") else {
        return;
    };
    for n in 1..=11 {
        let (gpu, cpu) = gpu_and_cpu(&ctx, n, None, TableReads::Plain);
        assert!(gpu == cpu, "{n}x{n}: default buffers, plain reads");
    }
    for n in 1..=9 {
        let (gpu, cpu) = gpu_and_cpu(&ctx, n, Some(0), TableReads::Plain);
        assert!(gpu == cpu, "{n}x{n}: tiniest buffers, plain reads");
    }
}

/// Parse and validate a kernel variant's text with naga, panicking with naga's message.
fn validate(k: &chompute::gpu::kernel::Kernel) {
    let module = naga::front::wgsl::parse_str(k.source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string_with_path(k.source, k.file)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}: {e:?}", k.file));
}

/// The hook kernel's three entries (a step, the gather of bits at chosen indexes, the index
/// probe) for `tables` table bindings read as `reads`.
fn hook_entries(tables: u8, reads: TableReads) -> [chompute::gpu::kernel::KernelId; 3] {
    use chompute::gpu::kernel::KernelId;
    [
        KernelId::ChompHookStep(tables, reads),
        KernelId::ChompHookGather(tables, reads),
        KernelId::ChompHookProbe(tables, reads),
    ]
}

/// The plain-read kernels' text: every table read is a plain load of the second binding, which
/// follows all the first ones, and the module validates (the full kernel, which no software
/// adapter binds, as well as a cut one).
#[test]
fn the_plain_read_kernels_read_the_second_bindings_only() {
    for tables in [TABLE_BINDINGS as u8, 14, 1] {
        for id in hook_entries(tables, TableReads::Plain) {
            let k = id.kernel();
            assert!(!k.source.contains("atomicLoad(&t"), "{}", k.file);
            assert_eq!(k.storage.len(), 3 + 2 * tables as usize, "{}", k.file);
            for t in 0..tables as usize {
                let second = format!(
                    "@group(0) @binding({}) var<storage, read_write> r{t}: array<u32>;",
                    4 + tables as usize + t
                );
                assert!(k.source.contains(&second), "{}: {second}", k.file);
                let read = format!("case {t}u: {{ return r{t}[local]; }}");
                assert!(k.source.contains(&read), "{}: {read}", k.file);
                let write = format!("case {t}u: {{ atomicOr(&t{t}[local], v); }}");
                assert!(k.source.contains(&write), "{}: {write}", k.file);
            }
            validate(k);
        }
    }
}

/// Every variant a table can be solved with: the kernel binds its buffers rounded up to a power
/// of two (`HookTable`), so a large GPU takes the ones of 1 to 128 table bindings, both reads,
/// which no software adapter binds past 29. Each declares exactly its table bindings and
/// validates.
#[test]
fn every_power_of_two_variant_binds_its_tables_and_validates() {
    for tables in (0..=TABLE_BINDINGS.ilog2()).map(|k| 1u8 << k) {
        for reads in [TableReads::Atomic, TableReads::Plain] {
            for id in hook_entries(tables, reads) {
                let k = id.kernel();
                let per = if reads == TableReads::Plain { 2 } else { 1 };
                assert_eq!(k.storage.len(), 3 + per * tables as usize, "{}", k.file);
                let declared = |t: usize| format!(" t{t}: array<atomic<u32>>;");
                for t in 0..tables as usize {
                    assert!(k.source.contains(&declared(t)), "{}: t{t}", k.file);
                }
                assert!(
                    !k.source.contains(&declared(tables as usize)),
                    "{}: t{tables}",
                    k.file
                );
                validate(k);
            }
        }
    }
}

#[test]
fn gpu_bites_read_on_the_device_equal_the_tables() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_bites_read_on_the_device_equal_the_tables")
    else {
        return;
    };
    for (n, reads) in [
        (7usize, TableReads::Atomic),
        (9, TableReads::Atomic),
        (11, TableReads::Atomic),
        (9, TableReads::Plain),
    ] {
        let device = ChompGpuDevice::new(ctx.clone()).with_reads(reads);
        let layout = BitLayout::for_box(square(n)).unwrap();
        let cpu = solve_layers(layout.clone()).unwrap();
        let plan = device
            .preflight(&layout, Some(tiniest(&device, &layout)))
            .unwrap();
        let table = device.solve_hook(&layout, &plan, true).unwrap();
        let bites = device_bites(&*table, &layout, square(n)).unwrap();
        assert_eq!(bites, cpu.rectangle_bites(square(n)), "{n}x{n} ({reads:?})");
        // The kernel reads the options its CPU twin reads, no more (a walk dispatched again
        // counts only the positions it kept).
        let (_, twin) = chompute::chomp::two_player::pull::solve_pull(&layout).unwrap();
        assert_eq!(
            table.stats().unwrap(),
            twin,
            "{n}x{n}: options read ({reads:?})"
        );
    }
}

/// Walks of a whole level an invocation run past the 65,535 loop trips that lavapipe allows a
/// shader call: the kernel leaves the position where a walk was cut undecided and the host
/// dispatches the level again from where each walk stopped, until the bits are the CPU's.
#[test]
fn gpu_hook_kernel_resumes_walks_cut_short() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_kernel_resumes_walks_cut_short") else {
        return;
    };
    let device = ChompGpuDevice::new(ctx.clone());
    let n = 12usize;
    let layout = BitLayout::for_box(square(n)).unwrap();
    let cpu = solve_layers(layout.clone()).unwrap();
    let plan = device.preflight(&layout, None).unwrap();
    let hook = layout.hook_index().unwrap().clone();
    let mut table = HookTable::new(ctx.clone(), hook, &plan).unwrap();
    table.set_positions_per_invocation(4096);
    table.solve(true).unwrap();
    assert!(table.words().unwrap() == cpu.words(), "{n}x{n}");
    let (_, twin) = chompute::chomp::two_player::pull::solve_pull(&layout).unwrap();
    assert_eq!(table.stats().unwrap(), twin, "{n}x{n}: options read");
    if ctx.is_software() {
        assert!(table.dispatched_again() > 0, "{n}x{n}: no walk was cut");
    }
}

/// A hardware adapter's schedule, run on lavapipe: every step's levels in one submission, one
/// position an invocation, the host waiting for the oldest steps only when its uploads run
/// ahead of the device past a bound (here each step's, so that it waits on every step; and the
/// default 256 MiB), on every square to 10×10 (whose walks, one position each, stay within
/// lavapipe's loop budget: a walk cut short would fail the solve).
#[test]
fn gpu_hook_kernel_gives_the_same_bits_by_whole_steps() {
    let Some(ctx) = crate::common::gpu_or_skip("gpu_hook_kernel_by_whole_steps") else {
        return;
    };
    for reads in [TableReads::Atomic, TableReads::Plain] {
        let device = ChompGpuDevice::new(ctx.clone()).with_reads(reads);
        for n in 1..=10 {
            for ahead in [1, 256 << 20] {
                let layout = BitLayout::for_box(square(n)).unwrap();
                let cpu = solve_layers(layout.clone()).unwrap();
                let plan = device.preflight(&layout, None).unwrap();
                let hook = layout.hook_index().unwrap().clone();
                let mut table = HookTable::new(ctx.clone(), hook, &plan).unwrap();
                table.set_whole_steps(true);
                table.set_bytes_ahead(ahead);
                table.solve(false).unwrap();
                assert!(
                    table.words().unwrap() == cpu.words(),
                    "{n}x{n}: whole steps, {ahead} bytes ahead, {reads:?}"
                );
                assert_eq!(table.dispatched_again(), 0, "{n}x{n}");
            }
        }
    }
}

/// The buffers of the 22×22 table (123.3 GiB) under the limits wgpu 30 reports for a large
/// NVIDIA GPU: a storage binding just under 2 GiB, so buffers of 2^28 words (1 GiB), 124 of
/// them within the kernel's 128 bindings; the 21×21 table in 32. A device that binds 32 storage
/// buffers (lavapipe's number) refuses 22×22 in one line that gives the numbers.
#[test]
fn the_22x22_table_fits_the_bindings_under_a_large_gpus_limits() {
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: (1 << 31) - 1,
        max_buffer_size: 1 << 52,
        max_storage_buffers_per_shader_stage: 1 << 20,
        ..wgpu::Limits::default()
    };
    let layout = BitLayout::for_box(square(22)).unwrap();
    assert_eq!(layout.len(), 1_058_746_930_244);
    let plan = plan_buffers("a large GPU", &limits, &layout, None, TableReads::Atomic).unwrap();
    assert_eq!(plan.buffer_words, 1 << 28);
    assert_eq!(plan.table_bytes, 132_343_366_284);
    assert_eq!((plan.buffers, plan.table_bindings), (124, TABLE_BINDINGS));
    let layout21 = BitLayout::for_box(square(21)).unwrap();
    let plan21 = plan_buffers("a large GPU", &limits, &layout21, None, TableReads::Atomic).unwrap();
    assert_eq!((plan21.buffer_words, plan21.buffers), (1 << 28, 32));
    let small = wgpu::Limits {
        max_storage_buffers_per_shader_stage: 32,
        ..limits
    };
    let e = plan_buffers("a small GPU", &small, &layout, None, TableReads::Atomic)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("in 124 of at most 29 buffers of 1073741824 bytes"),
        "{e}"
    );
    assert!(
        e.contains("more buffers than the kernel binds") && !e.contains('\n'),
        "{e}"
    );
    // Plain reads bind each buffer twice: the same 124 buffers under the large GPU's limits,
    // half the buffers (14) under the small one's.
    let plain = plan_buffers("a large GPU", &limits, &layout, None, TableReads::Plain).unwrap();
    assert_eq!((plain.buffers, plain.table_bindings), (124, TABLE_BINDINGS));
    assert!(plain.line().ends_with(", plain reads"), "{}", plain.line());
    let e = plan_buffers("a small GPU", &small, &layout, None, TableReads::Plain)
        .unwrap_err()
        .to_string();
    assert!(e.contains("in 124 of at most 14 buffers"), "{e}");
}
