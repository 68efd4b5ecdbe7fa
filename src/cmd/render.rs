//! `chompute render` and `chompute assemble`: pictures of P-grids as streamed PNGs, Deep Zoom
//! pyramids and sharded tile directories.

use super::{describe_pictures, parse_window, print_json, u64_string, u64_strings};
use crate::cli::{AssembleArgs, RenderArgs};
use anyhow::anyhow;
use chompute::chocolate::grid::Window;
use chompute::gpu::BackendChoice;
use chompute::render::dzi::{write_dzi, write_dzi_from_tiles, DziReport};
use chompute::render::output::{check_output, stream_image, summary};
use chompute::render::parse_colour;
use chompute::render::picture::{check_tile_size, Colours, Picture, Scale};
use chompute::render::source::CellSource;
use chompute::render::tiles::{parse_shard, render_shard, ShardReport, TileManifest, TileRows};
use indicatif::ProgressBar;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

const DZI_TILE: u64 = 256;
const SHARD_TILE: u64 = 4096;

#[derive(Debug, Serialize)]
struct RenderReport {
    #[serde(serialize_with = "u64_string")]
    m: u64,
    #[serde(serialize_with = "u64_string")]
    n: u64,
    /// [first row, first column, height, width] in cells.
    #[serde(serialize_with = "u64_strings")]
    window: [u64; 4],
    #[serde(serialize_with = "u64_string")]
    width: u64,
    #[serde(serialize_with = "u64_string")]
    height: u64,
    backend: String,
    output: Option<PathBuf>,
    dzi: Option<DziReport>,
    tiles: Option<PathBuf>,
    shard: Option<[u64; 2]>,
    #[serde(flatten)]
    shard_report: Option<ShardReport>,
    seconds: f64,
}

/// `P,N` → the two colours.
fn parse_colours(s: &str) -> anyhow::Result<Colours> {
    match s.split_once(',') {
        Some((p, n)) => Ok(Some([parse_colour(p)?, parse_colour(n)?])),
        None => Err(anyhow!(
            "--colors wants two colours P,N such as '#5b2a86,#f4efe6' (got '{s}')"
        )),
    }
}

fn tile_size(given: Option<u64>, default: u64) -> anyhow::Result<u64> {
    Ok(check_tile_size(given.unwrap_or(default))?)
}

/// Rows done, cells per second and the time left, when stderr is a terminal.
fn progress(rows: u64) -> ProgressBar {
    chompute::progress::bar(rows, "rows")
}

/// The bar and the window a picture shows, for its summary line: `C(30001,30001)`, or
/// `C(100,100), window 1,1,5,5`.
fn bar_text(pic: &Picture) -> String {
    let w = &pic.window;
    if w.height == w.m && w.width == w.n {
        format!("C({},{})", w.m, w.n)
    } else {
        format!(
            "C({},{}), window {},{},{},{}",
            w.m, w.n, w.row0, w.col0, w.height, w.width
        )
    }
}

/// What a picture shows, for its PNG Description: the bar, the window, the scale and the
/// colours.
fn picture_text(pic: &Picture) -> String {
    let scale = match pic.scale {
        Scale::Cells(k) => format!("{k} pixel{} per cell", if k == 1 { "" } else { "s" }),
        Scale::Fit(b) => format!("each pixel a {b}×{b} block shaded by its P-fraction"),
    };
    let colours = match pic.colours {
        Some([p, n]) => format!(
            "P-cells #{:02x}{:02x}{:02x} on N-cells #{:02x}{:02x}{:02x}",
            p[0], p[1], p[2], n[0], n[1], n[2]
        ),
        None => "P-cells black on white".into(),
    };
    format!("{}, {scale}, {colours}", bar_text(pic))
}

pub fn run(backend: BackendChoice, args: &RenderArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let (m, n) = (args.m, args.n.unwrap_or(args.m));
    // Every option is checked before anything is created, so bad input leaves no file.
    let window = match &args.window {
        Some(s) => parse_window(s, m, n)?,
        None => Window::full(m, n)?,
    };
    let colours = args
        .colors
        .as_deref()
        .map(parse_colours)
        .transpose()?
        .flatten();
    let mut pic = match (args.scale, args.fit) {
        (Some(_), Some(_)) => return Err(anyhow!("--scale and --fit cannot be used together")),
        (Some(k), None) => Picture::cells(window, k, colours)?,
        (None, Some(pixels)) => Picture::fit(window, pixels, colours)?,
        (None, None) => Picture::cells(window, 1, colours)?,
    };
    if let Some(shade) = args.shade {
        if !matches!(pic.scale, Scale::Fit(_)) {
            return Err(anyhow!(
                "--shade {} shades fitted pictures; add --fit PIXELS",
                shade.name()
            ));
        }
        pic = pic.with_shade(shade);
    }
    if args.output.is_none() && args.dzi.is_none() && args.tiles.is_none() {
        return Err(anyhow!(
            "nothing to write: give -o FILE.png, --dzi DIR or --tiles DIR"
        ));
    }
    if let Some(path) = &args.output {
        chompute::render::atomic::check_target(path)?;
    }
    if args.dzi.is_some() && pic.scale != Scale::Cells(1) {
        return Err(anyhow!(
            "--dzi draws every cell and zooms out by itself; drop --scale and --fit"
        ));
    }
    let shard = match (&args.shard, &args.tiles) {
        (Some(s), Some(_)) => parse_shard(s)?,
        (Some(_), None) => {
            return Err(anyhow!(
                "--shard needs --tiles DIR (the directory the shards share)"
            ))
        }
        (None, _) => (0, 1),
    };
    let spec = match &args.output {
        Some(path) => {
            let spec = pic.spec(args.compression)?;
            check_output(path, pic.width, pic.height)?;
            chompute::render::encode::ensure_memory(&spec, &format!("'{}'", path.display()))?;
            Some(spec)
        }
        None => None,
    };
    let dzi_tile = tile_size(args.tile_size, DZI_TILE)?;
    let shard_tile = tile_size(args.tile_size, SHARD_TILE)?;
    if args.tiles.is_some() {
        TileManifest::of(&pic, shard_tile)?;
    }
    if args.dzi.is_some() {
        pic.spec_for(
            dzi_tile.min(pic.width),
            dzi_tile.min(pic.height),
            args.compression,
        )?;
        if pic.width > i32::MAX as u64 || pic.height > i32::MAX as u64 {
            return Err(anyhow!(
                "a Deep Zoom image is at most 2^31-1 pixels a side; use --window"
            ));
        }
        chompute::render::dzi::ensure_memory(pic.width, dzi_tile)?;
    }

    let what = picture_text(&pic);
    describe_pictures(&what);
    let cells = CellSource::new(super::engine(backend)?, args.verify);
    let mut report = RenderReport {
        m,
        n,
        window: [window.row0, window.col0, window.height, window.width],
        width: pic.width,
        height: pic.height,
        backend: cells.backend().to_string(),
        output: args.output.clone(),
        dzi: None,
        tiles: args.tiles.clone(),
        shard: args.shard.as_ref().map(|_| [shard.0, shard.1]),
        shard_report: None,
        seconds: 0.0,
    };
    if let (Some(path), Some(spec)) = (&args.output, &spec) {
        let bar = progress(pic.height);
        // Cells of the bar behind each picture row (a fraction for --scale, B rows for --fit).
        let cells_per_row = window.cells() as f64 / pic.height as f64;
        let bytes = stream_image(path, spec, |sink| {
            while sink.rows_left() > 0 {
                let before = sink.rows_left();
                sink.fill_band(|y0, rows, bytes| {
                    pic.fill_rows(&cells, 0, pic.width, y0 as u64, rows as u64, bytes)
                })?;
                bar.inc((before - sink.rows_left()) as u64);
                chompute::progress::set_rate(&bar, bar.position() as f64 * cells_per_row, "cells");
            }
            Ok(())
        })?;
        bar.finish_and_clear();
        chompute::progress::summary(&summary(
            path,
            &bar_text(&pic),
            spec,
            bytes,
            start.elapsed().as_secs_f64(),
        ));
    }
    if let Some(dir) = &args.dzi {
        report.dzi = Some(write_dzi(
            dir,
            &window,
            dzi_tile,
            colours,
            args.compression,
            |y0, rows, words| cells.rows(&window.rows(y0, rows), words),
        )?);
        dzi_summary(report.dzi.as_ref(), &bar_text(&pic), start);
    }
    if let Some(dir) = &args.tiles {
        let r = render_shard(&pic, &cells, dir, shard_tile, shard, args.compression)?;
        if !args.json {
            eprintln!(
                "chompute: shard {}/{}: wrote {} tiles, skipped {} already complete ({} tiles in all)",
                shard.0, shard.1, r.tiles_written, r.tiles_skipped, r.tiles_total
            );
        }
        report.shard_report = Some(r);
    }
    report.seconds = start.elapsed().as_secs_f64();
    if args.json {
        print_json(&report)?;
    }
    Ok(())
}

#[derive(Debug, Serialize)]
struct AssembleReport {
    tiles: PathBuf,
    #[serde(serialize_with = "u64_string")]
    width: u64,
    #[serde(serialize_with = "u64_string")]
    height: u64,
    output: Option<PathBuf>,
    dzi: Option<DziReport>,
    seconds: f64,
}

pub fn assemble(args: &AssembleArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    if args.output.is_none() && args.dzi.is_none() {
        return Err(anyhow!("nothing to write: give -o FILE.png or --dzi DIR"));
    }
    if let Some(path) = &args.output {
        chompute::render::atomic::check_target(path)?;
    }
    let manifest = TileManifest::read(&args.dir)?;
    let pic = manifest.picture()?;
    let dzi_tile = tile_size(args.tile_size, DZI_TILE)?;
    if args.dzi.is_some() && pic.scale != Scale::Cells(1) {
        return Err(anyhow!(
            "a Deep Zoom pyramid needs tiles of single cells (rendered without --scale or --fit)"
        ));
    }
    if let Some(path) = &args.output {
        check_output(path, pic.width, pic.height)?;
    }
    let what = picture_text(&pic);
    describe_pictures(&what);
    let mut report = AssembleReport {
        tiles: args.dir.clone(),
        width: pic.width,
        height: pic.height,
        output: args.output.clone(),
        dzi: None,
        seconds: 0.0,
    };
    if let Some(path) = &args.output {
        let spec = pic.spec(args.compression)?;
        let mut rows = TileRows::open(&args.dir)?;
        let row_bytes = rows.row_bytes;
        let bar = progress(pic.height);
        let bytes = stream_image(path, &spec, |sink| {
            while sink.rows_left() > 0 {
                sink.fill_band(|_, n, bytes| {
                    for row in bytes.chunks_exact_mut(row_bytes) {
                        rows.next_row(row)?;
                    }
                    bar.inc(n as u64);
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        bar.finish_and_clear();
        chompute::progress::summary(&summary(
            path,
            &bar_text(&pic),
            &spec,
            bytes,
            start.elapsed().as_secs_f64(),
        ));
    }
    if let Some(dir) = &args.dzi {
        report.dzi = Some(write_dzi_from_tiles(
            &args.dir,
            dir,
            &pic,
            dzi_tile,
            args.compression,
        )?);
        dzi_summary(report.dzi.as_ref(), &bar_text(&pic), start);
    }
    report.seconds = start.elapsed().as_secs_f64();
    if args.json {
        print_json(&report)?;
    }
    Ok(())
}

/// The summary line of a finished Deep Zoom pyramid, on a terminal.
fn dzi_summary(report: Option<&DziReport>, what: &str, start: Instant) {
    if let Some(r) = report {
        chompute::progress::summary(&format!(
            "wrote {}: {what}, {} levels, {} tiles, {:.2} s",
            r.descriptor.display(),
            r.levels,
            r.tiles,
            start.elapsed().as_secs_f64()
        ));
    }
}
