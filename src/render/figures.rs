//! The pictures of the automaton, the octahedron, Nim with a pass and Chomp: each a PNG
//! streamed row by row through [`write_png`], palettes from [`super::palette`].

use super::legend::Legend;
use super::palette::{ordinal_palette, CHOCOLATE, PASS_GRID};
use super::picture::words_to_bytes;
use super::png::{write_png, Compression, PixelFormat, PngSpec};
use crate::chocolate::grid::words_per_row;
use crate::chocolate::octahedron::Section;
use crate::chomp::OrdinalPlane;
use crate::pass::nimpass::{pass_cell, NimPass};
use crate::{Error, Result};
use rayon::prelude::*;
use std::path::Path;

/// A PNG side from a pixel count, or [`Error::TooLarge`] naming `what`.
fn png_side(pixels: u64, what: &str) -> Result<u32> {
    u32::try_from(pixels)
        .ok()
        .filter(|&s| s <= i32::MAX as u32)
        .ok_or_else(|| {
            Error::too_large(
                what,
                format!("{pixels} pixels a side is larger than a PNG can be"),
            )
        })
}

/// A square 1-bit PNG `px` pixels a side in the chocolate palette (0 cream, 1 chocolate).
fn chocolate_spec(px: u32, compression: Compression) -> PngSpec {
    PngSpec {
        width: px,
        height: px,
        format: PixelFormat::Indexed {
            bits: 1,
            palette: CHOCOLATE.to_vec(),
        },
        compression,
    }
}

/// Write an automaton generation (`side`×`side` packed rows, the u32 layout) into a
/// `canvas`×`canvas` 1-bit PNG: P-cells in chocolate on cream, the rest of the canvas empty.
pub fn write_generation_png(path: &Path, canvas: u64, side: u64, words: &[u32]) -> Result<()> {
    let spec = chocolate_spec(png_side(canvas, "an automaton frame")?, Compression::Fast);
    let wpr = words_per_row(side);
    write_png(path, &spec, |y, row| {
        row.fill(0);
        if (y as u64) < side {
            // The generation's words are a 1-bit PNG row; the canvas past it stays empty.
            let take = row.len().min(4 * wpr);
            words_to_bytes(
                &words[y as usize * wpr..(y as usize + 1) * wpr],
                &mut row[..take],
                0,
            );
        }
        Ok(())
    })
}

/// Write the cross-section `s` of the Sierpiński octahedron as a 1-bit PNG, points inside S_N
/// in chocolate on cream. Returns the pixels inside.
pub fn write_section_png(path: &Path, s: &Section) -> Result<u64> {
    let side = s.side();
    let spec = chocolate_spec(png_side(side, "a cross-section")?, Compression::Balanced);
    let mut inside = 0u64;
    write_png(path, &spec, |y, row| {
        let bits: Vec<bool> = (0..side)
            .into_par_iter()
            .map(|b| s.pixel(y as u64, b))
            .collect();
        row.fill(0);
        for (b, &on) in bits.iter().enumerate() {
            if on {
                row[b / 8] |= 0x80 >> (b % 8);
                inside += 1;
            }
        }
        Ok(())
    })?;
    Ok(inside)
}

/// Write C(m,m) as Nim with a pass (SPEC §4), `scale` pixels a cell: plain Nim P-cells blue,
/// pass P-cells red, both purple, the rest white. `t` is the four-heap table (side ≥ m).
pub fn write_pass_grid_png(path: &Path, t: &NimPass, m: u64, scale: u32) -> Result<()> {
    let scale = scale.max(1) as u64;
    let side = m.checked_mul(scale).ok_or_else(|| {
        Error::too_large(
            format!("a {m}×{m} picture at scale {scale}"),
            "more than 2^64 pixels a side",
        )
    })?;
    let px = png_side(side, &format!("a {m}×{m} picture at scale {scale}"))?;
    let spec = PngSpec {
        width: px,
        height: px,
        format: PixelFormat::Indexed {
            bits: 2,
            palette: PASS_GRID.to_vec(),
        },
        compression: Compression::Balanced,
    };
    let mut colours = vec![0u8; m as usize];
    write_png(path, &spec, |y, row| {
        let i = y as u64 / scale + 1;
        for j in 1..=m {
            colours[(j - 1) as usize] = pass_cell(t, m, i, j).index();
        }
        row.fill(0);
        for px in 0..side as usize {
            let c = colours[px / scale as usize];
            row[px / 4] |= c << (6 - 2 * (px % 4));
        }
        Ok(())
    })
}

/// Largest side of an ordinal-plane picture, in pixels.
pub const ORDINAL_PICTURE_MAX_SIDE: u64 = 32_768;

/// Write an ordinal plane, `scale` pixels a position, one colour per ordinal, with a legend of
/// the ordinals below it. Returns the picture's (width, height).
pub fn write_ordinal_plane_png(
    path: &Path,
    plane: &OrdinalPlane,
    scale: u32,
) -> Result<(u32, u32)> {
    let side = plane.side;
    if scale == 0 || side as u64 * scale as u64 > ORDINAL_PICTURE_MAX_SIDE {
        return Err(Error::bad_argument(
            "the pixels per position",
            scale,
            format!(
                "at least 1 and at most {} for a plane of side {side}",
                ORDINAL_PICTURE_MAX_SIDE / side as u64
            ),
        ));
    }
    let grid = side * scale;
    let entries = plane.players as usize + 1;
    let width = grid.max(Legend::one_line_width(entries)).max(64);
    let legend = Legend::new(entries, width);
    let height = grid + legend.height();
    let spec = PngSpec {
        width,
        height,
        format: PixelFormat::Indexed {
            bits: 8,
            palette: ordinal_palette(plane.players),
        },
        compression: Compression::Balanced,
    };
    write_png(path, &spec, |y, row| {
        if y < grid {
            let cy = y / scale;
            for (x, px) in row.iter_mut().enumerate() {
                let x = x as u32;
                *px = if x < grid {
                    plane.ordinal(cy, x / scale).map_or(0, |o| 2 + o)
                } else {
                    0
                };
            }
        } else {
            for (x, px) in row.iter_mut().enumerate() {
                *px = legend.pixel(x as u32, y - grid);
            }
        }
        Ok(())
    })?;
    Ok((width, height))
}

/// One packed row of P-cells as text: `#` for a P-cell, `.` otherwise, for `width` cells,
/// appended to `line`.
pub fn text_row(row: &[u32], width: u64, line: &mut Vec<u8>) {
    line.extend((0..width).map(|c| {
        if row[(c / 32) as usize] >> (31 - c % 32) & 1 == 1 {
            b'#'
        } else {
            b'.'
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::grid::{p_rows_cpu, Window};

    #[test]
    fn text_rows_are_the_p_test() {
        let w = Window::full(37, 45).unwrap();
        let mut words = vec![0u32; w.total_words().unwrap()];
        p_rows_cpu(&w, &mut words);
        for (i, row) in words.chunks_exact(w.words_per_row()).enumerate() {
            let mut line = Vec::new();
            text_row(row, 45, &mut line);
            for (j, &c) in line.iter().enumerate() {
                let p = crate::chocolate::p_cell(37, 45, i as u64 + 1, j as u64 + 1);
                assert_eq!(c == b'#', p);
            }
        }
    }
}
