//! `chompute count M [N] [--window ROW,COL,HEIGHT,WIDTH]`: the exact P-count of a bar or of a
//! window of it, by one method or all of them.
//!
//! Tests: the command as users run it in tests/, tests/faults/, tests/pictures/, tests/project/.

use super::out::{print_report, Report, Stdout};
use super::window_of;
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
    #[serde(serialize_with = "chompute::json::count")]
    m: u64,
    #[serde(serialize_with = "chompute::json::count")]
    n: u64,
    /// `--window` as [first row, first column, height, width], decimal strings.
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<[String; 4]>,
    count: String,
    methods: Vec<MethodResult>,
    agree: bool,
    /// What was counted, for the text: `g(M,N)` or the window's description.
    #[serde(skip)]
    what: String,
    /// `--method all`: the table and verdict even when one method was feasible.
    #[serde(skip)]
    all: bool,
}

impl Report for CountReport {
    /// The count alone, or each method's count and time with the verdict.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        if self.methods.len() == 1 && !self.all {
            return writeln!(out, "{}", self.count);
        }
        writeln!(out, "{}:", self.what)?;
        for r in &self.methods {
            writeln!(
                out,
                "  {:<10} {:>40}  {:>10.6} s",
                r.method, r.count, r.seconds
            )?;
        }
        let verdict = if self.agree {
            "all methods agree"
        } else {
            "METHODS DISAGREE"
        };
        writeln!(out, "{verdict}")
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "m,n,method,count,seconds")?;
        for r in &self.methods {
            let (m, n) = (self.m, self.n);
            writeln!(out, "{m},{n},{},{},{:.6}", r.method, r.count, r.seconds)?;
        }
        Ok(())
    }
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
    #[serde(serialize_with = "chompute::json::count")]
    from: u64,
    #[serde(serialize_with = "chompute::json::count")]
    to: u64,
    /// g(from), g(from+1), …, g(to), as strings.
    g: Terms,
}

/// g(m) for m in from..=to, computed as they are written (a range can be far longer than
/// memory; `| head` stops it early).
#[derive(Debug)]
struct Terms {
    from: u64,
    to: u64,
}

impl Terms {
    fn each(&self, mut f: impl FnMut(u64, u128) -> std::io::Result<()>) -> std::io::Result<()> {
        for m in self.from..=self.to {
            let g = g_recurrence(m).map_err(std::io::Error::other)?;
            f(m, g)?;
        }
        Ok(())
    }
}

impl Serialize for Terms {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = s.serialize_seq(None)?;
        for m in self.from..=self.to {
            let g = g_recurrence(m).map_err(S::Error::custom)?;
            seq.serialize_element(&g.to_string())?;
        }
        seq.end()
    }
}

/// `count --range A..B`: g(m) for every m from A to B, by the recurrence, as a table, an OEIS
/// b-file (`m g(m)` per line), CSV or JSON.
fn run_range(args: &CountArgs, (a, b): (u64, u64)) -> anyhow::Result<()> {
    if args.n.is_some() {
        return Err(anyhow::anyhow!("--range counts square bars; drop N"));
    }
    let g = Terms { from: a, to: b };
    print_report(&RangeReport { from: a, to: b, g }, args.format.get())
}

impl Report for RangeReport {
    /// `m g(m)` in right-aligned columns, as wide as the largest m and the largest possible
    /// g(m) ≤ m².
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let mw = self.to.to_string().len();
        let gw = (self.to as u128 * self.to as u128).to_string().len().max(4);
        writeln!(out, "{:>mw$}  {:>gw$}", "m", "g(m)")?;
        self.g.each(|m, g| writeln!(out, "{m:>mw$}  {g:>gw$}"))
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "m,g")?;
        self.g.each(|m, g| writeln!(out, "{m},{g}"))
    }

    fn bfile(&self, out: &mut Stdout) -> std::io::Result<()> {
        self.g.each(|m, g| writeln!(out, "{m} {g}"))
    }
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
    let report = CountReport {
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
        what,
        all: args.method == Some(CountMethod::All),
    };
    print_report(&report, args.format.get())?;
    plan.verdict(&results)?;
    Ok(())
}
