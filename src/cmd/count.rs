//! `chompute count M [N] [--window ROW,COL,HEIGHT,WIDTH]`: the exact P-count of a bar or of a
//! window of it, by one method or all of them.

use super::{parse_window, print_json, u64_string};
use crate::cli::{CountArgs, CountMethod};
use anyhow::anyhow;
use chompute::chocolate::count::{g_histogram, g_recurrence, histogram_feasible};
use chompute::chocolate::grid::{count_cpu, Window};
use chompute::chocolate::window::p_count;
use chompute::gpu::{ptest::PGridGpu, BackendChoice, GpuContext};
use serde::Serialize;
use std::io::Write;
use std::time::Instant;

/// Most cells `--method cpu` will generate (about a minute on two cores).
pub const CPU_COUNT_MAX_CELLS: u128 = 1 << 40;
/// Most cells `--method all` generates on the CPU.
pub const CPU_ALL_MAX_CELLS: u128 = 1 << 36;
/// Most cells `--method all` generates on a software GPU (real GPUs get CPU_COUNT_MAX_CELLS).
pub const SOFTWARE_GPU_ALL_MAX_CELLS: u128 = 1 << 32;

#[derive(Debug, Serialize)]
struct MethodResult {
    method: &'static str,
    count: String,
    seconds: f64,
}

#[derive(Debug, Serialize)]
struct CountReport {
    #[serde(serialize_with = "u64_string")]
    m: u64,
    #[serde(serialize_with = "u64_string")]
    n: u64,
    /// `--window` as [first row, first column, height, width], decimal strings.
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<[String; 4]>,
    count: String,
    methods: Vec<MethodResult>,
    agree: bool,
}

fn method_name(m: CountMethod) -> &'static str {
    match m {
        CountMethod::Digits => "digits",
        CountMethod::Recurrence => "recurrence",
        CountMethod::Histogram => "histogram",
        CountMethod::Cpu => "cpu",
        CountMethod::Gpu => "gpu",
        CountMethod::All => "all",
    }
}

/// Whether `w` is the whole bar (the recurrence and the histogram count only whole bars).
fn is_whole(w: &Window) -> bool {
    w.row0 == 1 && w.col0 == 1 && w.height == w.m && w.width == w.n
}

/// "C(m,n)" or "rows r..+h, columns c..+w of C(m,n)", for messages.
fn describe(w: &Window) -> String {
    if is_whole(w) {
        format!("C({},{})", w.m, w.n)
    } else {
        format!(
            "rows {}..+{}, columns {}..+{} of C({},{})",
            w.row0, w.height, w.col0, w.width, w.m, w.n
        )
    }
}

fn run_method(method: CountMethod, w: &Window) -> anyhow::Result<u128> {
    let (m, n) = (w.m, w.n);
    let cells = w.cells();
    match method {
        CountMethod::Digits => Ok(p_count(w)),
        CountMethod::Recurrence => {
            if m != n || !is_whole(w) {
                return Err(anyhow!(
                    "the recurrence counts whole square bars only (got {}); use --method digits",
                    describe(w)
                ));
            }
            Ok(g_recurrence(m)?)
        }
        CountMethod::Histogram => {
            if !is_whole(w) {
                return Err(anyhow!(
                    "the histogram counts whole bars only (got {}); use --method digits",
                    describe(w)
                ));
            }
            Ok(g_histogram(m, n)?)
        }
        CountMethod::Cpu => {
            if cells > CPU_COUNT_MAX_CELLS {
                return Err(anyhow!("{} has {cells} cells, more than --method cpu generates (2^40); use --method digits", describe(w)));
            }
            Ok(count_cpu(w))
        }
        CountMethod::Gpu => {
            if cells > CPU_COUNT_MAX_CELLS {
                return Err(anyhow!("{} has {cells} cells, more than --method gpu generates (2^40); use --method digits", describe(w)));
            }
            let ctx = GpuContext::shared().map_err(super::on_gpu)?;
            PGridGpu::new(ctx).count(w).map_err(super::on_gpu)
        }
        CountMethod::All => unreachable!("expanded by the caller"),
    }
}

/// The methods `--method all` runs for `w`: every one feasible at this size.
fn all_methods(w: &Window, backend: BackendChoice) -> Vec<CountMethod> {
    let cells = w.cells();
    let mut v = vec![CountMethod::Digits];
    if w.m == w.n && is_whole(w) {
        v.push(CountMethod::Recurrence);
    }
    if is_whole(w) && histogram_feasible(w.m, w.n) {
        v.push(CountMethod::Histogram);
    }
    if cells <= CPU_ALL_MAX_CELLS {
        v.push(CountMethod::Cpu);
    }
    if backend != BackendChoice::Cpu {
        if let Ok(ctx) = GpuContext::shared() {
            let limit = if ctx.is_software() {
                SOFTWARE_GPU_ALL_MAX_CELLS
            } else {
                CPU_COUNT_MAX_CELLS
            };
            // `auto` takes a GPU only when it is a real one, as everywhere: a software
            // adapter (lavapipe, 60 times slower than the CPU row) joins `all` only when
            // `--backend gpu` asks for it.
            let wanted = backend == BackendChoice::Gpu || !ctx.is_software();
            if wanted && cells <= limit {
                v.push(CountMethod::Gpu);
            }
        }
    }
    v
}

#[derive(Debug, Serialize)]
struct RangeReport {
    #[serde(serialize_with = "u64_string")]
    from: u64,
    #[serde(serialize_with = "u64_string")]
    to: u64,
    /// g(from), g(from+1), …, g(to), as strings.
    g: Vec<String>,
}

/// `count --range A..B`: g(m) for every m from A to B, by the recurrence, as a table, an OEIS
/// b-file (`m g(m)` per line), CSV or JSON.
fn run_range(args: &CountArgs, (a, b): (u64, u64)) -> anyhow::Result<()> {
    if args.n.is_some() {
        return Err(anyhow::anyhow!("--range counts square bars; drop N"));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        let g = (a..=b)
            .map(|m| g_recurrence(m).map(|g| g.to_string()))
            .collect::<chompute::Result<_>>()?;
        drop(out);
        return print_json(&RangeReport { from: a, to: b, g });
    }
    // Columns as wide as the largest m and the largest possible g(m) ≤ m².
    let mw = b.to_string().len();
    let gw = (b as u128 * b as u128).to_string().len().max(4);
    if args.csv {
        writeln!(out, "m,g")?;
    } else if !args.bfile {
        writeln!(out, "{:>mw$}  {:>gw$}", "m", "g(m)")?;
    }
    for m in a..=b {
        let g = g_recurrence(m)?;
        if args.csv {
            writeln!(out, "{m},{g}")?;
        } else if args.bfile {
            writeln!(out, "{m} {g}")?;
        } else {
            writeln!(out, "{m:>mw$}  {g:>gw$}")?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn run(backend: BackendChoice, args: &CountArgs) -> anyhow::Result<()> {
    if let Some(range) = args.range {
        return run_range(args, range);
    }
    if args.bfile {
        // clap drops `requires` when M is given, since M conflicts with --range.
        return Err(anyhow::anyhow!(
            "--bfile prints the sequence of --range A..B; give --range"
        ));
    }
    let m = args
        .m
        .ok_or_else(|| anyhow::anyhow!("count needs M (or --range A..B)"))?;
    let n = args.n.unwrap_or(m);
    let window = match &args.window {
        Some(s) => parse_window(s, m, n)?,
        None => Window::full(m, n)?,
    };
    let methods = match args.method {
        Some(CountMethod::All) => all_methods(&window, backend),
        Some(one) => vec![one],
        // The digit method is the fastest exact one for every bar and window: one prefix
        // for a whole bar (about 0.3 µs at 2^64-1, against 5 µs for the recurrence), four
        // for a window (BENCHMARKS.md).
        None => vec![CountMethod::Digits],
    };
    let mut results = Vec::new();
    for method in methods {
        let start = Instant::now();
        let count = run_method(method, &window)?;
        results.push((method, count, start.elapsed().as_secs_f64()));
    }
    let count = results[0].1;
    let agree = results.iter().all(|r| r.1 == count);
    let what = if is_whole(&window) {
        format!("g({m},{n})")
    } else {
        format!("the P-cells of {}", describe(&window))
    };
    if args.json {
        print_json(&CountReport {
            m,
            n,
            window: args.window.as_ref().map(|_| {
                [window.row0, window.col0, window.height, window.width].map(|v| v.to_string())
            }),
            count: count.to_string(),
            methods: results
                .iter()
                .map(|&(method, c, s)| MethodResult {
                    method: method_name(method),
                    count: c.to_string(),
                    seconds: s,
                })
                .collect(),
            agree,
        })?;
    } else if args.csv {
        let mut out = std::io::stdout().lock();
        writeln!(out, "m,n,method,count,seconds")?;
        for &(method, c, secs) in &results {
            writeln!(out, "{m},{n},{},{c},{secs:.6}", method_name(method))?;
        }
        out.flush()?;
    } else if results.len() == 1 && args.method != Some(CountMethod::All) {
        crate::outln!("{count}");
    } else {
        // `--method all` always prints its table and verdict, even when only one method is
        // feasible at this size.
        crate::outln!("{what}:");
        for &(method, c, s) in &results {
            crate::outln!("  {:<10} {c:>40}  {s:>10.6} s", method_name(method));
        }
        crate::outln!(
            "{}",
            if agree {
                "all methods agree"
            } else {
                "METHODS DISAGREE"
            }
        );
    }
    if !agree {
        let list: Vec<String> = results
            .iter()
            .map(|&(me, c, _)| format!("{}={c}", method_name(me)))
            .collect();
        return Err(chompute::Error::CheckFailed(format!(
            "count methods disagree for {}: {}",
            describe(&window),
            list.join(", ")
        ))
        .into());
    }
    Ok(())
}
