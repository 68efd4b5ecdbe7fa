//! `chompute render` and `chompute assemble`: pictures of P-grids as streamed PNGs, Deep Zoom
//! pyramids and sharded tile directories.
//!
//! Tests: the command as users run it in tests/, tests/faults/, tests/pictures/, tests/project/.

use super::out::{print_report, Report, Stdout};
use super::{describe_pictures, window_of};
use crate::cli::Format;
use crate::cli::{AssembleArgs, RenderArgs};
use anyhow::anyhow;
use chompute::gpu::BackendChoice;
use chompute::render::encode::output::{check_output, stream_image, summary};
use chompute::render::picture::source::CellSource;
use chompute::render::picture::{check_tile_size, Scale};
use chompute::render::plan::{bar_text, describe, one_colour, Plan, Request, DZI_TILE};
use chompute::render::pyramid::dzi::{write_dzi_from_tiles, DziReport};
use chompute::render::pyramid::tiles::{Shard, ShardReport, TileManifest, TileRows};
use indicatif::ProgressBar;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Serialize)]
struct RenderReport {
    #[serde(serialize_with = "chompute::json::count")]
    m: u64,
    #[serde(serialize_with = "chompute::json::count")]
    n: u64,
    /// [first row, first column, height, width] in cells.
    #[serde(serialize_with = "chompute::json::counts")]
    window: [u64; 4],
    #[serde(serialize_with = "chompute::json::count")]
    width: u64,
    #[serde(serialize_with = "chompute::json::count")]
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

fn tile_size(given: Option<u64>, default: u64) -> anyhow::Result<u64> {
    Ok(check_tile_size(given.unwrap_or(default))?)
}

/// Rows done, cells per second and the time left, when stderr is a terminal.
fn progress(rows: u64) -> ProgressBar {
    crate::cmd::bars::bar(rows, "rows")
}

pub fn run(backend: BackendChoice, args: &RenderArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let (m, n) = (args.m, args.n.unwrap_or(args.m));
    // Every option is checked before anything is created, so bad input leaves no file.
    let window = window_of(args.window, m, n)?;
    let colours = args.colors;
    let shard = match (args.shard, &args.tiles) {
        (Some(s), Some(_)) => Some(
            s.resolve(|v| std::env::var(v).ok())
                .map_err(|e| array_hint(s, e))?,
        ),
        (Some(_), None) => Some((0, 1)),
        (None, _) => None,
    };
    let plan = Plan::new(Request {
        window,
        scale: args.scale,
        fit: args.fit,
        shade: args.shade,
        colours,
        compression: args.compression,
        output: args.output.clone(),
        dzi: args.dzi.clone(),
        tiles: args.tiles.clone(),
        shard,
        tile_size: args.tile_size,
        made_by: Some(super::command_line()),
        room: super::room(),
    })?;
    let pic = &plan.picture;
    let job = if args.fit.is_some() {
        chompute::gpu::Job::Fit
    } else {
        chompute::gpu::Job::Render
    };
    let cells = CellSource::new(super::engine(backend, job)?, args.verify);
    let done = plan.run(&cells)?;
    // Said once the picture is written (a refused render says only why it was refused).
    let warned = one_colour(pic);
    if let Some(why) = &warned {
        crate::errln!("chompute: warning: the picture comes out in one colour: {why}");
    }
    if let (None, Some(v), Scale::Fit(b)) = (&warned, done.one_value, pic.scale) {
        crate::errln!(
            "chompute: warning: the picture comes out in one colour: every pixel's {b}×{b} \
             block has the same shade (pixel value {v})"
        );
    }
    let what = bar_text(pic);
    if let (Some((path, spec)), Some(bytes)) = (&plan.output, done.output_bytes) {
        crate::cmd::bars::summary(&summary(
            path,
            &what,
            spec,
            bytes,
            start.elapsed().as_secs_f64(),
        ));
    }
    dzi_summary(done.dzi.as_ref(), &what, start);
    if let (Some(r), Some((_, _, shard))) = (&done.shard, &plan.tiles) {
        if args.format.get() != Format::Json {
            crate::errln!(
                "chompute: shard {}/{}: wrote {} tiles, skipped {} already complete ({} tiles in all)",
                shard.0, shard.1, r.tiles_written, r.tiles_skipped, r.tiles_total
            );
        }
    }
    let report = RenderReport {
        m,
        n,
        window: [window.row0, window.col0, window.height, window.width],
        width: pic.width,
        height: pic.height,
        backend: cells.backend().to_string(),
        output: args.output.clone(),
        dzi: done.dzi,
        tiles: args.tiles.clone(),
        shard: plan
            .tiles
            .as_ref()
            .filter(|_| args.shard.is_some())
            .map(|(_, _, s)| [s.0, s.1]),
        shard_report: done.shard,
        seconds: start.elapsed().as_secs_f64(),
    };
    print_report(&report, args.format.get())
}

#[derive(Debug, Serialize)]
struct AssembleReport {
    tiles: PathBuf,
    #[serde(serialize_with = "chompute::json::count")]
    width: u64,
    #[serde(serialize_with = "chompute::json::count")]
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
        chompute::output::check_target(path)?;
    }
    if let Some(dir) = &args.dzi {
        chompute::render::pyramid::dzi::check_target(dir)?;
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
        manifest.check_apart(&args.dir, path)?;
    }
    let description = describe_pictures(&describe(&pic));
    let pic = pic.with_description(description);
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
        crate::cmd::bars::summary(&summary(
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
    print_report(&report, args.format.get())
}

/// `render` prints nothing on stdout but its JSON (stdout may carry the picture, `-o -`): what
/// it wrote is said on stderr, on a terminal or for a shard.
impl Report for RenderReport {
    fn text(&self, _: &mut Stdout) -> std::io::Result<()> {
        Ok(())
    }
}

/// `assemble`, like `render`, says what it wrote on stderr; stdout has only its JSON.
impl Report for AssembleReport {
    fn text(&self, _: &mut Stdout) -> std::io::Result<()> {
        Ok(())
    }
}

/// The summary line of a finished Deep Zoom pyramid, on a terminal.
fn dzi_summary(report: Option<&DziReport>, what: &str, start: Instant) {
    if let Some(r) = report {
        crate::cmd::bars::summary(&format!(
            "wrote {}: {what}, {} levels, {} tiles, {:.2} s",
            r.descriptor.display(),
            r.levels,
            r.tiles,
            start.elapsed().as_secs_f64()
        ));
    }
}

/// An auto shard whose task number is out of range, with the job array that gives the right
/// ones (`sbatch --array=0-{N-1}`); other errors as they are.
fn array_hint(shard: Shard, e: chompute::Error) -> anyhow::Error {
    match (shard, e.input()) {
        (Shard::Auto(n @ 1..), Some(chompute::Input::Shard)) => anyhow!(
            "{}; number the job array 0 to {last}: `sbatch --array=0-{last}`",
            e.worded(&crate::cli::flag),
            last = n - 1
        ),
        _ => e.into(),
    }
}
