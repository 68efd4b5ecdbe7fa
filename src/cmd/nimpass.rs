//! `chompute nimpass` (K-heap Nim with a pass) and `chompute nimpass-grid` (C(M,M) as
//! four-heap Nim with a pass, SPEC §4).

use super::{describe_pictures, print_json};
use crate::chocolate::p_cell;
use crate::cli::{NimpassArgs, NimpassGridArgs};
use crate::gpu::nimpass::nimpass4_gpu;
use crate::gpu::{BackendChoice, Engine};
use crate::pass::nimpass::NimPass;
use crate::render::label::Legend;
use crate::render::{check_output, write_image, Compression, PixelFormat, PngSpec};
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
    match Engine::select(backend)? {
        Engine::Cpu => NimPass::compute(k, side),
        Engine::Gpu(ctx) => nimpass4_gpu(&ctx, side),
    }
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
        let sep = if args.csv { "," } else { " " };
        if args.csv {
            let head: Vec<String> = (1..=args.heaps).map(|k| format!("h{k}")).collect();
            writeln!(out, "{}", head.join(","))?;
        }
        t.for_each(|h| {
            let words: Vec<String> = h.iter().map(|a| a.to_string()).collect();
            writeln!(out, "{}", words.join(sep))?;
            Ok(())
        })?;
    } else if args.csv {
        writeln!(out, "heaps,max,p_positions")?;
        writeln!(out, "{},{},{}", args.heaps, args.max, t.count())?;
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
const INK: u8 = 4; // the legend's text and swatch borders
/// RGB of the palette entries, in index order.
const PALETTE: [u8; 15] = [
    255, 255, 255, 40, 90, 220, 220, 40, 40, 150, 60, 180, 0, 0, 0,
];

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
    #[serde(skip_serializing_if = "Option::is_none")]
    picture: Option<PictureReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<Vec<CountRow>>,
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
    // The picture: C(M,M) scaled, with a legend below it.
    let layout = match (&args.output, args.m) {
        (Some(path), Some(m)) => {
            let scale = args.scale as u64;
            let side = m
                .checked_mul(scale)
                .filter(|&s| s <= i32::MAX as u64 / 2)
                .ok_or_else(|| {
                    usage!("a {m}×{m} picture at scale {scale} is larger than a PNG can be")
                })? as u32;
            let mut entries = vec![(BLUE, "Nim P"), (RED, "pass P")];
            if m == 1 {
                entries.push((PURPLE, "both"));
            }
            let legend = Legend::new(&entries, INK, WHITE, side);
            let (width, height) = (side.max(legend.width()), side + legend.height());
            check_output(path, width as u64, height as u64)?;
            Some((path, m, side, legend, width, height))
        }
        _ => None,
    };
    let t = table(backend, 4, largest)?;
    let mut report = GridReport {
        picture: None,
        counts: None,
    };
    if let Some((path, m, side, legend, width, height)) = layout {
        let scale = args.scale as u64;
        describe_pictures(&format!(
            "C({m},{m}) as four-heap Nim with a pass, {scale} pixel{} per cell, Nim P-cells blue, pass P-cells red",
            if scale == 1 { "" } else { "s" }
        ));
        let spec = PngSpec {
            width,
            height,
            format: PixelFormat::Indexed {
                bits: 4,
                palette: PALETTE.to_vec(),
            },
            compression: Compression::Balanced,
        };
        let mut colours = vec![0u8; m as usize];
        let put = |row: &mut [u8], px: usize, c: u8| row[px / 2] |= c << (4 - 4 * (px % 2));
        write_image(path, &spec, |y, row| {
            row.fill(0);
            if y < side {
                let i = y as u64 / scale + 1;
                for j in 1..=m {
                    colours[(j - 1) as usize] = cell_colour(&t, m, i, j);
                }
                for px in 0..side as usize {
                    put(row, px, colours[px / scale as usize]);
                }
            } else {
                for px in 0..width {
                    put(row, px as usize, legend.pixel(px, y - side));
                }
            }
            Ok(())
        })?;
        let (pass_p, nim_p) = count_cells(&t, m);
        report.picture = Some(PictureReport {
            file: path.display().to_string(),
            m,
            scale: args.scale,
            width,
            height,
            pass_p_cells: pass_p,
            nim_p_cells: nim_p,
        });
        if args.counts.is_none() && !args.json {
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
        if !args.json {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            if args.csv {
                writeln!(out, "m,pass_p_cells,nim_p_cells")?;
            } else if !args.bfile {
                writeln!(out, "M\tpass_P\tnim_P")?;
            }
            for r in &rows {
                if args.csv {
                    writeln!(out, "{},{},{}", r.m, r.pass_p_cells, r.nim_p_cells)?;
                } else if args.bfile {
                    writeln!(out, "{} {}", r.m, r.pass_p_cells)?;
                } else {
                    writeln!(out, "{}\t{}\t{}", r.m, r.pass_p_cells, r.nim_p_cells)?;
                }
            }
            out.flush()?;
        }
        report.counts = Some(rows);
    }
    if args.json {
        print_json(&report)?;
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
