//! `chompute count M [N] [--window ROW,COL,HEIGHT,WIDTH]`: the exact P-count of a bar or of a
//! window of it, by one method or all of them.
//!
//! Tests: the command as users run it in tests/, tests/faults/, tests/pictures/, tests/project/.

use super::{print_json, u64_string, window_of};
use crate::cli::CountArgs;
use crate::cli::Format;
use chompute::chocolate::count::{describe, g_recurrence, is_whole, CountMethod, CountPlan};
use chompute::chocolate::grid::{count_cpu, Window};
use chompute::gpu::{ptest::PGridGpu, BackendChoice, GpuContext};
use serde::Serialize;
use std::io::Write;

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

use chompute::gpu::count_gpu;

/// Count by a generating method: the CPU's submask generator, or the WGSL kernels.
fn generate(method: CountMethod, w: &Window) -> chompute::Result<u128> {
    match method {
        CountMethod::Gpu => GpuContext::shared().and_then(|ctx| PGridGpu::new(ctx).count(w)),
        _ => Ok(count_cpu(w)),
    }
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
    let mut out = super::out::stdout();
    if args.format.get() == Format::Json {
        let g = (a..=b)
            .map(|m| g_recurrence(m).map(|g| g.to_string()))
            .collect::<chompute::Result<_>>()?;
        drop(out);
        return print_json(&RangeReport { from: a, to: b, g });
    }
    // Columns as wide as the largest m and the largest possible g(m) ≤ m².
    let mw = b.to_string().len();
    let gw = (b as u128 * b as u128).to_string().len().max(4);
    if args.format.get() == Format::Csv {
        writeln!(out, "m,g")?;
    } else if args.format.get() != Format::Bfile {
        writeln!(out, "{:>mw$}  {:>gw$}", "m", "g(m)")?;
    }
    for m in a..=b {
        let g = g_recurrence(m)?;
        if args.format.get() == Format::Csv {
            writeln!(out, "{m},{g}")?;
        } else if args.format.get() == Format::Bfile {
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
    if args.format.get() == Format::Bfile {
        // clap drops `requires` when M is given, since M conflicts with --range.
        return Err(anyhow::anyhow!(
            "--bfile prints the sequence of --range A..B; give --range"
        ));
    }
    let m = args
        .m
        .ok_or_else(|| anyhow::anyhow!("count needs M (or --range A..B)"))?;
    let n = args.n.unwrap_or(m);
    let window = window_of(args.window, m, n)?;
    let plan = CountPlan::new(window, args.method, count_gpu(backend))?;
    let results = plan.run(generate).map_err(|e| match e {
        chompute::Error::NoAdapter(_) | chompute::Error::Gpu(_) => super::on_gpu(e),
        e => e.into(),
    })?;
    let count = results[0].count;
    let agree = plan.verdict(&results).is_ok();
    let what = if is_whole(&window) {
        format!("g({m},{n})")
    } else {
        format!("the P-cells of {}", describe(&window))
    };
    if args.format.get() == Format::Json {
        print_json(&CountReport {
            m,
            n,
            window: args.window.as_ref().map(|_| {
                [window.row0, window.col0, window.height, window.width].map(|v| v.to_string())
            }),
            count: count.to_string(),
            methods: results
                .iter()
                .map(|r| MethodResult {
                    method: r.method.name(),
                    count: r.count.to_string(),
                    seconds: r.seconds,
                })
                .collect(),
            agree,
        })?;
    } else if args.format.get() == Format::Csv {
        let mut out = super::out::stdout();
        writeln!(out, "m,n,method,count,seconds")?;
        for r in &results {
            writeln!(
                out,
                "{m},{n},{},{},{:.6}",
                r.method.name(),
                r.count,
                r.seconds
            )?;
        }
        out.flush()?;
    } else if results.len() == 1 && args.method != Some(CountMethod::All) {
        crate::outln!("{count}");
    } else {
        // `--method all` always prints its table and verdict, even when only one method is
        // feasible at this size.
        crate::outln!("{what}:");
        for r in &results {
            crate::outln!(
                "  {:<10} {:>40}  {:>10.6} s",
                r.method.name(),
                r.count,
                r.seconds
            );
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
    plan.verdict(&results)?;
    Ok(())
}
