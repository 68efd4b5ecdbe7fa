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
        let k = PGridGpu::new(ctx);
        group.bench_function("gpu", |b| b.iter(|| k.p_rows(&w, &mut out).unwrap()));
    }
    group.finish();

    let mut group = c.benchmark_group("p-grid count 8191x8191");
    let w = Window::full(8191, 8191).unwrap();
    group.throughput(Throughput::Elements(w.cells() as u64));
    group.sample_size(10);
    group.bench_function("cpu", |b| b.iter(|| count_cpu(&w)));
    if let Some(ctx) = &gpu {
        let k = PGridGpu::new(ctx);
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
        let mut g = CaGpu::new(&ctx, steps).unwrap();
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

criterion_group!(benches, p_grid, counts, automaton);
criterion_main!(benches);
