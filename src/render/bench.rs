//! `chompute bench` figures for pictures: a full 1-bit render (generation overlapped with
//! parallel compression) against the PNG encoder alone on the same rows held in memory.

use super::encode::stream_png;
use super::picture::Picture;
use super::source::CellSource;
use super::Compression;
use crate::bench::{BenchEnv, Measurement};
use crate::chocolate::grid::Window;
use crate::gpu::Engine;

/// Render C(s,s) to a 1-bit PNG (into a sink, so the disk is not measured) on each backend,
/// and encode the same rows from memory; the two rates show how well generation hides
/// behind compression.
pub fn bench_render(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    let side: u64 = if env.quick { 4095 } else { 32767 };
    let pic = Picture::new(Window::full(side, side)?, None, None, None)?;
    let spec = pic.spec(Compression::Fast)?;
    let size = format!("{side}x{side}");
    let pixels = pic.width as u128 * pic.height as u128;
    let mut engines = vec![Engine::Cpu];
    if let Some(ctx) = &env.gpu {
        engines.push(Engine::Gpu(ctx.clone()));
    }
    for engine in engines {
        let name = engine.name();
        let cells = CellSource::new(engine, false);
        env.measure(
            out,
            "render png 1-bit",
            &size,
            name,
            "pixels",
            pixels,
            || {
                stream_png(
                    "the benchmark picture",
                    &mut std::io::sink(),
                    &spec,
                    |sink| {
                        while sink.rows_left() > 0 {
                            sink.fill_band(|y0, rows, bytes| {
                                pic.fill_rows(&cells, 0, pic.width, y0 as u64, rows as u64, bytes)
                            })?;
                        }
                        Ok(())
                    },
                )
            },
        )?;
    }
    // The same rows, generated once beforehand: what the encoder alone sustains.
    let row_bytes = spec.format.row_bytes(spec.width);
    let mut raw = vec![0u8; row_bytes * pic.height as usize];
    pic.fill_rows(
        &CellSource::new(Engine::Cpu, false),
        0,
        pic.width,
        0,
        pic.height,
        &mut raw,
    )?;
    env.measure(
        out,
        "png encode alone",
        &size,
        "cpu",
        "pixels",
        pixels,
        || {
            stream_png(
                "the benchmark picture",
                &mut std::io::sink(),
                &spec,
                |sink| {
                    while sink.rows_left() > 0 {
                        sink.fill_band(|y0, rows, bytes| {
                            bytes.copy_from_slice(&raw[y0 * row_bytes..(y0 + rows) * row_bytes]);
                            Ok(())
                        })?;
                    }
                    Ok(())
                },
            )
        },
    )?;
    Ok(())
}
