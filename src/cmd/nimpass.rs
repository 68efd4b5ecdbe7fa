//! `chompute nimpass` (K-heap Nim with a pass) and `chompute nimpass-grid` (C(M,M) as
//! four-heap Nim with a pass, SPEC §4).

use super::print_json;
use crate::chocolate::p_cell;
use crate::cli::{NimpassArgs, NimpassGridArgs};
use crate::gpu::BackendChoice;
use crate::pass::nimpass::NimPass;
use crate::render::{write_png, Compression, PixelFormat, PngSpec};
use crate::usage;
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct NimpassReport<'a> {
    heaps: u8,
    max: u64,
    p_positions: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    positions: Option<Listing<'a>>,
}

/// The P-positions as a JSON array, serialised one at a time without collecting them.
struct Listing<'a>(&'a NimPass);

impl Serialize for Listing<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = s.serialize_seq(Some(self.0.count() as usize))?;
        let mut failure = None;
        let _ = self.0.for_each(|h| {
            if let Err(e) = seq.serialize_element(h) {
                failure = Some(e);
                anyhow::bail!("stop");
            }
            Ok(())
        });
        if let Some(e) = failure {
            return Err(S::Error::custom(e));
        }
        seq.end()
    }
}

/// The table for `k` heaps of size 0..side, or a usage error when it cannot be held. Four
/// heaps run on the GPU when the backend choice picks one; other heap counts on the CPU.
fn table(backend: BackendChoice, k: usize, side: u64) -> anyhow::Result<NimPass> {
    let side =
        usize::try_from(side).map_err(|_| usage!("heap sizes up to {} are too large", side - 1))?;
    if k != 4 {
        if backend == BackendChoice::Gpu {
            return Err(usage!(
                "the GPU computes four heaps only; use --backend cpu or auto for {k} heaps"
            ));
        }
        return NimPass::compute(k, side);
    }
    super::engine(backend)?
        .nim_pass()
        .four_heaps(side)
        .map_err(super::on_gpu)
}

pub fn run(backend: BackendChoice, args: &NimpassArgs) -> anyhow::Result<()> {
    let t = table(backend, args.heaps as usize, args.max.saturating_add(1))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        print_json(&NimpassReport {
            heaps: args.heaps,
            max: args.max,
            p_positions: t.count(),
            positions: args.list.then_some(Listing(&t)),
        })?;
    } else if args.list {
        t.for_each(|h| {
            let words: Vec<String> = h.iter().map(|a| a.to_string()).collect();
            writeln!(out, "{}", words.join(" "))?;
            Ok(())
        })?;
    } else {
        writeln!(
            out,
            "{} P-positions with the pass available among {} heaps of size 0..={}",
            t.count(),
            args.heaps,
            args.max
        )?;
    }
    out.flush()?;
    Ok(())
}

/// Palette indices of the picture.
const WHITE: u8 = 0;
const BLUE: u8 = 1; // plain Nim P-cell: nim-sum 0
const RED: u8 = 2; // P-cell of Nim with the pass available
const PURPLE: u8 = 3; // both: only the lone cell of C(1,1), which is terminal

/// The colour of cell (i,j) (1-based) of C(m,m) given the four-heap table (side ≥ m).
fn cell_colour(t: &NimPass, m: u64, i: u64, j: u64) -> u8 {
    let heaps = [
        (i - 1) as usize,
        (j - 1) as usize,
        (m - i) as usize,
        (m - j) as usize,
    ];
    match (p_cell(m, m, i, j), t.is_p(&heaps)) {
        (true, true) => PURPLE,
        (true, false) => BLUE,
        (false, true) => RED,
        (false, false) => WHITE,
    }
}

#[derive(Serialize)]
struct CountRow {
    m: u64,
    pass_p_cells: u64,
    nim_p_cells: u64,
}

pub fn run_grid(backend: BackendChoice, args: &NimpassGridArgs) -> anyhow::Result<()> {
    if args.output.is_none() && args.counts.is_none() {
        return Err(usage!(
            "give -o FILE.png to draw C(M,M), or --counts A..B to count"
        ));
    }
    if args.output.is_some() && args.m.is_none() {
        return Err(usage!("-o needs M, the side of the bar"));
    }
    let largest = args.m.unwrap_or(0).max(args.counts.map_or(0, |c| c.1));
    let t = table(backend, 4, largest)?;
    if let (Some(path), Some(m)) = (&args.output, args.m) {
        let scale = args.scale as u64;
        let side = m
            .checked_mul(scale)
            .filter(|&s| s <= i32::MAX as u64)
            .ok_or_else(|| {
                usage!("a {m}×{m} picture at scale {scale} is larger than a PNG can be")
            })?;
        let spec = PngSpec {
            width: side as u32,
            height: side as u32,
            format: PixelFormat::Indexed {
                bits: 2,
                palette: vec![255, 255, 255, 40, 90, 220, 220, 40, 40, 150, 60, 180],
            },
            compression: Compression::Balanced,
        };
        let mut colours = vec![0u8; m as usize];
        write_png(path, &spec, |y, row| {
            let i = y as u64 / scale + 1;
            for j in 1..=m {
                colours[(j - 1) as usize] = cell_colour(&t, m, i, j);
            }
            row.fill(0);
            for px in 0..side as usize {
                let c = colours[px / scale as usize];
                row[px / 4] |= c << (6 - 2 * (px % 4));
            }
            Ok(())
        })?;
        if args.counts.is_none() && !args.json {
            let (pass_p, nim_p) = count_cells(&t, m);
            println!(
                "wrote {}: C({m},{m}), {pass_p} pass P-cells (red), {nim_p} Nim P-cells (blue)",
                path.display()
            );
        }
    }
    if let Some((a, b)) = args.counts {
        let rows: Vec<CountRow> = (a..=b)
            .map(|m| {
                let (pass_p, nim_p) = count_cells(&t, m);
                CountRow {
                    m,
                    pass_p_cells: pass_p,
                    nim_p_cells: nim_p,
                }
            })
            .collect();
        if args.json {
            print_json(&serde_json::json!({ "counts": rows }))?;
        } else {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            writeln!(out, "M\tpass_P\tnim_P")?;
            for r in &rows {
                writeln!(out, "{}\t{}\t{}", r.m, r.pass_p_cells, r.nim_p_cells)?;
            }
            out.flush()?;
        }
    }
    Ok(())
}

/// (cells whose position is P with the pass available, cells that are plain Nim P) in C(m,m).
fn count_cells(t: &NimPass, m: u64) -> (u64, u64) {
    let (mut pass_p, mut nim_p) = (0, 0);
    for i in 1..=m {
        for j in 1..=m {
            let c = cell_colour(t, m, i, j);
            pass_p += (c == RED || c == PURPLE) as u64;
            nim_p += (c == BLUE || c == PURPLE) as u64;
        }
    }
    (pass_p, nim_p)
}
