//! `chompute nimpass` (K-heap Nim with a pass) and `chompute nimpass-grid` (C(M,M) as
//! four-heap Nim with a pass, docs/mathematics.md §4).
//!
//! Tests: the command as users run it in tests/faults/, tests/games/, tests/pictures/.

use super::describe_pictures;
use super::out::{print_report, Report, Stdout};
use crate::cli::{NimpassArgs, NimpassGridArgs};
use anyhow::anyhow;
use chompute::gpu::{BackendChoice, Engine};
use chompute::pass::nimpass::{pass_cell_counts, NimPass};
use chompute::render::check_output;
use chompute::render::figures::{write_pass_grid_png, PassGridLayout};
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct NimpassReport<'a> {
    backend: &'static str,
    heaps: u8,
    max: u64,
    p_positions: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    positions: Option<Listing<'a>>,
    #[serde(skip)]
    table: &'a NimPass,
}

/// The P-positions as a JSON array, serialised one at a time without collecting them.
struct Listing<'a>(&'a NimPass);

impl Serialize for Listing<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.count() as usize))?;
        self.0.for_each(|h| seq.serialize_element(h))?;
        seq.end()
    }
}

/// The table for `k` heaps of sizes 0..=max and the backend that computed it, or a usage
/// error when it cannot be held. Four heaps run on the GPU when the backend choice picks one;
/// other heap counts on the CPU.
fn table(backend: BackendChoice, k: usize, max: u64) -> anyhow::Result<(NimPass, &'static str)> {
    let engine = Engine::for_nim_pass(backend, k).map_err(super::on_gpu)?;
    // Only the GPU's errors are said in the GPU's words (a table too large for it points to
    // the CPU).
    let table = engine.nim_pass_table(k, max).map_err(|e| match engine {
        Engine::Gpu(_) => super::on_gpu(e),
        Engine::Cpu => e.into(),
    })?;
    Ok((table, engine.name()))
}

impl Report for NimpassReport<'_> {
    /// The count in a sentence, or with `--list` the positions, one per line.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        if self.positions.is_some() {
            return self.list(out, " ");
        }
        writeln!(
            out,
            "{} P-positions with the pass available among {} heaps of size 0..={}",
            self.p_positions, self.heaps, self.max
        )
    }

    /// The count as one row, or with `--list` the positions under `h1,…,hK`.
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        if self.positions.is_some() {
            let head: Vec<String> = (1..=self.heaps).map(|k| format!("h{k}")).collect();
            writeln!(out, "{}", head.join(","))?;
            return self.list(out, ",");
        }
        writeln!(out, "heaps,max,p_positions")?;
        writeln!(out, "{},{},{}", self.heaps, self.max, self.p_positions)
    }
}

impl NimpassReport<'_> {
    /// The P-positions, sorted, one per line, the heaps separated by `sep`.
    fn list(&self, out: &mut Stdout, sep: &str) -> std::io::Result<()> {
        self.table.for_each(|h| {
            let words: Vec<String> = h.iter().map(|a| a.to_string()).collect();
            writeln!(out, "{}", words.join(sep))
        })
    }
}

pub fn run(backend: BackendChoice, args: &NimpassArgs) -> anyhow::Result<()> {
    let (t, backend) = table(backend, args.heaps as usize, args.max)?;
    let report = NimpassReport {
        backend,
        heaps: args.heaps,
        max: args.max,
        p_positions: t.count(),
        positions: args.list.then_some(Listing(&t)),
        table: &t,
    };
    print_report(&report, args.format.get())
}

#[derive(Serialize)]
struct CountRow {
    m: u64,
    pass_p_cells: u64,
    nim_p_cells: u64,
}

#[derive(Serialize)]
struct PictureReport {
    file: String,
    m: u64,
    scale: u32,
    width: u32,
    height: u32,
    pass_p_cells: u64,
    nim_p_cells: u64,
}

#[derive(Serialize)]
struct GridReport {
    backend: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    picture: Option<PictureReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<Vec<CountRow>>,
}

pub fn run_grid(backend: BackendChoice, args: &NimpassGridArgs) -> anyhow::Result<()> {
    if args.output.is_none() && args.counts.is_none() {
        return Err(anyhow!(
            "give -o FILE.png to draw C(M,M), or --counts A..B to count"
        ));
    }
    if args.output.is_some() && args.m.is_none() {
        return Err(anyhow!("-o needs M, the side of the bar"));
    }
    if let Some(path) = &args.output {
        chompute::output::check_target(path)?;
    }
    let largest = args.m.unwrap_or(0).max(args.counts.map_or(0, |c| c.1));
    // The picture: C(M,M) scaled, with a legend below it.
    let layout = match (&args.output, args.m) {
        (Some(path), Some(m)) => {
            let layout = PassGridLayout::new(m, args.scale)?;
            check_output(path, layout.width as u64, layout.height as u64)?;
            Some((path, layout))
        }
        _ => None,
    };
    // C(M,M)'s heaps run over 0..M.
    let (t, backend) = table(backend, 4, largest.saturating_sub(1))?;
    let mut report = GridReport {
        backend,
        picture: None,
        counts: None,
    };
    if let Some((path, layout)) = layout {
        let m = layout.m;
        let description = describe_pictures(&format!(
            "C({m},{m}) as four-heap Nim with a pass, {} pixel{} per cell, Nim P-cells blue, pass P-cells red",
            layout.scale,
            if layout.scale == 1 { "" } else { "s" }
        ));
        write_pass_grid_png(path, &t, &layout, Some(&description))?;
        let (pass_p, nim_p) = pass_cell_counts(&t, m);
        report.picture = Some(PictureReport {
            file: path.display().to_string(),
            m,
            scale: layout.scale,
            width: layout.width,
            height: layout.height,
            pass_p_cells: pass_p,
            nim_p_cells: nim_p,
        });
    }
    if let Some((a, b)) = args.counts {
        let rows: Vec<CountRow> = (a..=b)
            .map(|m| {
                let (pass_p, nim_p) = pass_cell_counts(&t, m);
                CountRow {
                    m,
                    pass_p_cells: pass_p,
                    nim_p_cells: nim_p,
                }
            })
            .collect();
        report.counts = Some(rows);
    }
    print_report(&report, args.format.get())
}

impl Report for GridReport {
    /// The counts as a table, or what the picture holds.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let Some(rows) = &self.counts else {
            if let Some(p) = &self.picture {
                let m = p.m;
                writeln!(
                    out,
                    "wrote {}: C({m},{m}), {} pass P-cells (red), {} Nim P-cells (blue)",
                    p.file, p.pass_p_cells, p.nim_p_cells
                )?;
            }
            return Ok(());
        };
        writeln!(out, "M\tpass_P\tnim_P")?;
        for r in rows {
            writeln!(out, "{}\t{}\t{}", r.m, r.pass_p_cells, r.nim_p_cells)?;
        }
        Ok(())
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "m,pass_p_cells,nim_p_cells")?;
        for r in self.counts.iter().flatten() {
            writeln!(out, "{},{},{}", r.m, r.pass_p_cells, r.nim_p_cells)?;
        }
        Ok(())
    }

    /// The pass P-cell counts, `M count` per line.
    fn bfile(&self, out: &mut Stdout) -> std::io::Result<()> {
        for r in self.counts.iter().flatten() {
            writeln!(out, "{} {}", r.m, r.pass_p_cells)?;
        }
        Ok(())
    }
}
