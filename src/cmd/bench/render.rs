//! `chompute bench` figures for pictures: a full 1-bit render (generation overlapped with
//! parallel compression) against the PNG encoder alone on the same rows held in memory.
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs and the device script's full run.

use super::{BenchEnv, Measurement};
use chompute::chocolate::grid::Window;
use chompute::gpu::Engine;
use chompute::render::encode::stream_png;
use chompute::render::picture::source::CellSource;
use chompute::render::picture::Picture;
use chompute::render::{Compression, PngSpec};

/// Render C(s,s) to a 1-bit PNG (into a sink, so the disk is not measured) on each backend,
/// and encode the same rows from memory, at `fast` and at the default `balanced`; the two
/// rates show how well generation hides behind compression.
pub fn bench_render(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    let side: u64 = if env.quick { 4095 } else { 32767 };
    let pic = Picture::cells(Window::full(side, side)?, 1, None)?;
    let size = format!("{side}x{side}");
    let pixels = pic.width as u128 * pic.height as u128;
    let mut engines = vec![Engine::Cpu];
    if let Some(ctx) = &env.gpu {
        engines.push(Engine::Gpu(ctx.clone()));
    }
    // The same rows, generated once beforehand: what the encoder alone sustains.
    let row_bytes = pic.format().row_bytes(pic.width as u32);
    let mut raw = vec![0u8; row_bytes * pic.height as usize];
    pic.fill_rows(
        &CellSource::new(Engine::Cpu, false),
        pic.band(0, pic.height),
        &mut raw,
    )?;
    for (compression, name) in [
        (Compression::Fast, "fast"),
        (Compression::Balanced, "balanced"),
    ] {
        let spec = pic.spec(compression)?;
        for engine in &engines {
            let cells = CellSource::new(engine.clone(), false);
            let kernel = format!("render png {name}");
            env.measure(out, &kernel, &size, engine.name(), "pixels", pixels, || {
                encode_to_sink(&spec, |y0, rows, bytes| {
                    pic.fill_rows(&cells, pic.band(y0 as u64, rows as u64), bytes)
                })
            })?;
        }
        let kernel = format!("png alone {name}");
        env.measure(out, &kernel, &size, "cpu", "pixels", pixels, || {
            encode_to_sink(&spec, |y0, rows, bytes| {
                bytes.copy_from_slice(&raw[y0 * row_bytes..(y0 + rows) * row_bytes]);
                Ok(())
            })
        })?;
    }
    Ok(())
}

/// Stream a whole picture into a sink, band by band, each band filled by `fill(y0, rows, bytes)`.
fn encode_to_sink(
    spec: &PngSpec,
    mut fill: impl FnMut(usize, usize, &mut [u8]) -> chompute::Result<()>,
) -> anyhow::Result<()> {
    Ok(stream_png(
        "the benchmark picture",
        &mut std::io::sink(),
        spec,
        |sink| {
            while sink.rows_left() > 0 {
                sink.fill_band(&mut fill)?;
            }
            Ok(())
        },
    )?)
}
