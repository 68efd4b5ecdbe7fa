//! Criterion benchmarks for chompute's kernels, CPU and GPU side by side.
//! Run with `cargo bench`; the GPU rows appear when an adapter is found.

use chompute::chocolate::count::{g_histogram, g_recurrence};
use chompute::chocolate::grid::{count_cpu, p_rows_cpu, Window};
use chompute::gpu::{ptest::PGridGpu, GpuContext};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn p_grid(c: &mut Criterion) {
    let gpu = GpuContext::shared().ok();
    let mut group = c.benchmark_group("p-grid generate 4095x4095");
    let w = Window::full(4095, 4095).unwrap();
    group.throughput(Throughput::Elements(w.cells() as u64));
    group.sample_size(10);
    let mut out = vec![0u32; w.total_words().unwrap()];
    group.bench_function("cpu", |b| b.iter(|| p_rows_cpu(&w, &mut out)));
    if let Some(ctx) = &gpu {
        let k = PGridGpu::new(ctx.clone());
        group.bench_function("gpu", |b| b.iter(|| k.p_rows(&w, &mut out).unwrap()));
    }
    group.finish();

    let mut group = c.benchmark_group("p-grid count 8191x8191");
    let w = Window::full(8191, 8191).unwrap();
    group.throughput(Throughput::Elements(w.cells() as u64));
    group.sample_size(10);
    group.bench_function("cpu", |b| b.iter(|| count_cpu(&w)));
    if let Some(ctx) = &gpu {
        let k = PGridGpu::new(ctx.clone());
        group.bench_function("gpu", |b| b.iter(|| k.count(&w).unwrap()));
    }
    group.finish();
}

fn counts(c: &mut Criterion) {
    let mut group = c.benchmark_group("g(m)");
    group.bench_function("recurrence u64::MAX", |b| {
        b.iter(|| g_recurrence(u64::MAX).unwrap())
    });
    group.bench_function("histogram 1000001", |b| {
        b.iter(|| g_histogram(1_000_001, 1_000_001).unwrap())
    });
    group.finish();
}

/// Pictures: the submask row generator against the scatter generator on a dense bar, and a
/// whole 1-bit render (generation overlapped with parallel deflate) into a sink.
fn pictures(c: &mut Criterion) {
    use chompute::chocolate::rows::p_rows_submask;
    use chompute::gpu::Engine;
    use chompute::render::{
        encode::stream_png, picture::source::CellSource, picture::Picture, Compression,
    };
    let mut group = c.benchmark_group("p-grid generate dense 4095x4095");
    let w = Window::full(4095, 4095).unwrap();
    group.throughput(Throughput::Elements(w.cells() as u64));
    group.sample_size(10);
    let mut out = vec![0u32; w.total_words().unwrap()];
    group.bench_function("cpu scatter", |b| b.iter(|| p_rows_cpu(&w, &mut out)));
    group.bench_function("cpu submask", |b| b.iter(|| p_rows_submask(&w, &mut out)));
    group.finish();

    // The render's generation stage alone: 1-bit PNG rows of C(32767,32767) (134 MB), one
    // thread per core, from the row generator straight into bytes.
    let mut group = c.benchmark_group("png rows 32767x32767");
    let big = Window::full(32767, 32767).unwrap();
    group.throughput(Throughput::Elements(big.cells() as u64));
    group.sample_size(10);
    let big_pic = Picture::cells(big, 1, None).unwrap();
    let row_bytes = big_pic.format().row_bytes(big_pic.width as u32);
    let mut rows = vec![0u8; row_bytes * big_pic.height as usize];
    let cpu = CellSource::new(Engine::Cpu, false);
    group.bench_function("cpu", |b| {
        b.iter(|| {
            big_pic
                .fill_rows(&cpu, big_pic.band(0, big_pic.height), &mut rows)
                .unwrap()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("render png 4095x4095");
    group.throughput(Throughput::Elements(w.cells() as u64));
    group.sample_size(10);
    let pic = Picture::cells(w, 1, None).unwrap();
    let cells = CellSource::new(Engine::Cpu, false);
    for (name, compression) in [
        ("fast", Compression::Fast),
        ("balanced", Compression::Balanced),
    ] {
        let spec = pic.spec(compression).unwrap();
        group.bench_function(name, |b| {
            b.iter(|| {
                stream_png("bench", &mut std::io::sink(), &spec, |sink| {
                    while sink.rows_left() > 0 {
                        sink.fill_band(|y0, rows, bytes| {
                            pic.fill_rows(&cells, pic.band(y0 as u64, rows as u64), bytes)
                        })?;
                    }
                    Ok(())
                })
                .unwrap()
            })
        });
    }
    group.finish();
}

fn chomp_ordinals(c: &mut Criterion) {
    use chompute::chomp::{
        multiplayer::ordinal::ordinals_in_rank_order, ordinals_three_rows, Choice, ChompBox,
        Ranker, Rule,
    };
    let choice = Choice::new(&Rule::from_perm(vec![0, 1, 2]));
    let mut group = c.benchmark_group("chomp ordinals 3-player rule 0,1,2");
    group.sample_size(10);
    let ranker = Ranker::new(ChompBox { rows: 9, cols: 9 }).unwrap();
    group.throughput(Throughput::Elements(ranker.len()));
    group.bench_function("general 9x9", |b| {
        b.iter(|| ordinals_in_rank_order(&ranker, &choice).unwrap())
    });
    let cols = 300;
    group.throughput(Throughput::Elements(
        ChompBox { rows: 3, cols }.positions().unwrap(),
    ));
    group.bench_function("three-row 3x300", |b| {
        b.iter(|| {
            let mut last = 0u8;
            ordinals_three_rows(cols, &choice, |_, s| last = s[s.len() - 1]);
            last
        })
    });
    group.finish();
}

/// The pull scan of a square's hook index on the CPU (the GPU kernel's twin): the options it
/// reads before the first P one are most of its work.
fn chomp_pull_scan(c: &mut Criterion) {
    use chompute::chomp::{diagram::ChompBox, index::BitLayout, two_player::pull::solve_pull};
    let mut group = c.benchmark_group("chomp pull scan");
    group.sample_size(10);
    let layout = BitLayout::for_box(ChompBox::square(11)).unwrap();
    group.throughput(Throughput::Elements(layout.len()));
    group.bench_function("11x11", |b| b.iter(|| solve_pull(&layout).unwrap()));
    group.finish();
}

fn games_with_a_pass(c: &mut Criterion) {
    use chompute::pass::{
        cb::{Bar, FTable},
        gp::GpTable,
        nimpass::NimPass,
    };
    let mut group = c.benchmark_group("games with a pass");
    group.sample_size(10);
    group.throughput(Throughput::Elements(1000 * 1000));
    group.bench_function("G_P 1000x1000", |b| {
        b.iter(|| GpTable::compute(1000).unwrap())
    });
    group.throughput(Throughput::Elements(41u64.pow(4)));
    group.bench_function("nim with a pass K=4 0..=40", |b| {
        b.iter(|| NimPass::compute(4, 41).unwrap().count())
    });
    let f = FTable::from_fn(40, 40, |_, z| z / 2).unwrap();
    group.throughput(Throughput::Elements(
        Bar::compute(f.clone(), false).unwrap().len() as u64,
    ));
    group.bench_function("CB(floor(z/2)) 40,40 with a pass", |b| {
        b.iter(|| Bar::compute(f.clone(), true).unwrap())
    });
    group.finish();
}

fn automaton(c: &mut Criterion) {
    use chompute::chocolate::automaton::{cell_updates, Automaton};
    use chompute::gpu::ca::CaGpu;
    let steps = 1023;
    let mut group = c.benchmark_group("ca 1023 steps");
    group.throughput(Throughput::Elements(cell_updates(0, steps) as u64));
    group.sample_size(10);
    let mut a = Automaton::new(steps).unwrap();
    group.bench_function("cpu", |b| {
        b.iter(|| {
            a.reset();
            a.run(steps)
        })
    });
    if let Ok(ctx) = GpuContext::shared() {
        let mut g = CaGpu::new(ctx, steps).unwrap();
        group.bench_function("gpu", |b| {
            b.iter(|| {
                g.reset().unwrap();
                g.advance(steps).unwrap();
                g.finish().unwrap()
            })
        });
    }
    group.finish();
}

/// The digit method: one window count deep inside C(2^64-1) (four corner prefixes), by the
/// tabulated 8-state programme and by the 16-state reference, and one prefix alone.
fn window_counts(c: &mut Criterion) {
    use chompute::chocolate::window::{p_count, p_count_reference, p_prefix};
    let mut group = c.benchmark_group("window count C(2^64-1)");
    let w = Window::new(
        u64::MAX,
        u64::MAX,
        0x1234_5678_9abc_def1,
        0x0fed_cba9_8765_4321,
        0x0123_4567_89ab_cdef,
        0x7654_3210_fedc_ba98,
    )
    .unwrap();
    group.bench_function("digits", |b| b.iter(|| p_count(std::hint::black_box(&w))));
    group.bench_function("digits reference", |b| {
        b.iter(|| p_count_reference(std::hint::black_box(&w)))
    });
    group.bench_function("one prefix", |b| {
        b.iter(|| {
            p_prefix(
                u64::MAX,
                u64::MAX,
                std::hint::black_box(0x9abc_def0_1234_5678),
                std::hint::black_box(0x7654_3210_fedc_ba98),
            )
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    window_counts,
    p_grid,
    counts,
    pictures,
    chomp_ordinals,
    chomp_pull_scan,
    games_with_a_pass,
    automaton
);
criterion_main!(benches);
