//! The pictures of the automaton, the octahedron, Nim with a pass and Chomp: each streamed row
//! by row through [`write_png`] (the output path's extension chooses the format), palettes
//! from [`crate::render::picture::palette`], legends and axis labels from [`crate::render::picture::label`].
//!
//! Tests: this file's unit tests.

use crate::chocolate::grid::words_per_row;
use crate::chocolate::octahedron::Section;
use crate::chomp::OrdinalPlane;
use crate::pass::nimpass::{pass_cell, NimPass};
use crate::render::encode::png::{write_png, Compression, PixelFormat, PngSpec};
use crate::render::picture::label::{Axes, Legend, AXIS_BAND};
use crate::render::picture::palette::{ordinal_palette, CHOCOLATE, PASS_GRID};
use crate::render::picture::words_to_bytes;
use crate::{Error, Result};
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
fn chocolate_spec(px: u32, compression: Compression, description: Option<&str>) -> PngSpec {
    PngSpec {
        width: px,
        height: px,
        format: PixelFormat::Indexed {
            bits: 1,
            palette: CHOCOLATE.to_vec(),
        },
        compression,
        description: description.map(str::to_string),
    }
}

/// Write an automaton generation (`side`×`side` packed rows, the u32 layout) into a
/// `canvas`×`canvas` 1-bit PNG: P-cells in chocolate on cream, the rest of the canvas empty.
/// `description` is the PNG's Description text.
pub fn write_generation_png(
    path: &Path,
    canvas: u64,
    side: u64,
    words: &[u32],
    description: Option<&str>,
) -> Result<()> {
    let spec = chocolate_spec(
        png_side(canvas, "an automaton frame")?,
        Compression::Fast,
        description,
    );
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

/// The frames of an automaton run as a [`Watcher`](crate::chocolate::automaton::Watcher):
/// every `every`-th generation as `DIR/gen-NNNN.png` ([`write_generation_png`]), on a canvas
/// the size of the last generation.
pub struct FrameWriter {
    dir: std::path::PathBuf,
    every: u64,
    steps: u64,
    description: Option<String>,
    /// Frames written so far.
    pub written: u64,
}

impl FrameWriter {
    /// Frames of a run of `steps` steps into `dir` (which must exist), every `every`-th
    /// generation (at least 1), each PNG described by `description`.
    pub fn new(
        dir: &Path,
        every: u64,
        steps: u64,
        description: Option<String>,
    ) -> Result<FrameWriter> {
        if every == 0 {
            return Err(Error::bad_argument(
                "the frame interval",
                every,
                "at least 1",
            ));
        }
        Ok(FrameWriter {
            dir: dir.to_path_buf(),
            every,
            steps,
            description,
            written: 0,
        })
    }

    /// The frame of generation `n`: `gen-NNNN.png`, as many digits as the last generation has.
    pub fn path(&self, n: u64) -> std::path::PathBuf {
        let digits = self.steps.to_string().len();
        self.dir.join(format!("gen-{n:0digits$}.png"))
    }
}

impl crate::chocolate::automaton::Watcher for FrameWriter {
    fn next_after(&self, n: u64) -> Option<u64> {
        Some((n / self.every + 1) * self.every)
    }

    fn see(
        &mut self,
        n: u64,
        runner: &dyn crate::chocolate::backend::AutomatonBackend,
    ) -> Result<()> {
        if n.is_multiple_of(self.every) {
            write_generation_png(
                &self.path(n),
                self.steps + 1,
                n + 1,
                &runner.current_u32()?,
                self.description.as_deref(),
            )?;
            self.written += 1;
        }
        Ok(())
    }
}

/// Write the cross-section `s` of the Sierpiński octahedron as a 1-bit PNG, points inside S_N
/// in chocolate on cream, `description` its Description text. Returns the pixels inside.
pub fn write_section_png(path: &Path, s: &Section, description: Option<&str>) -> Result<u64> {
    let side = s.side();
    let spec = chocolate_spec(
        png_side(side, "a cross-section")?,
        Compression::Balanced,
        description,
    );
    // At most 2^14 a side (`MAX_SECTION_SIDE`): 32 MiB of rows, computed at once.
    let bits = s.pixels();
    let stride = side.div_ceil(8) as usize;
    let inside = bits.iter().map(|b| b.count_ones() as u64).sum();
    write_png(path, &spec, |y, row| {
        let n = stride.min(row.len());
        row.fill(0);
        row[..n].copy_from_slice(&bits[y as usize * stride..][..n]);
        Ok(())
    })?;
    Ok(inside)
}

/// Palette index of the legend's text and swatch borders in a Nim-with-a-pass picture (after
/// the four [`PassCell`](crate::pass::nimpass::PassCell) colours of [`PASS_GRID`]).
const PASS_GRID_INK: u8 = 4;

/// The layout of C(m,m) drawn as Nim with a pass: the grid, `scale` pixels a cell, and a
/// legend of its colours below it.
#[derive(Debug, Clone)]
pub struct PassGridLayout {
    /// The side of the bar.
    pub m: u64,
    /// Pixels a cell.
    pub scale: u32,
    /// Pixels a side of the grid.
    pub side: u32,
    /// The picture's width and height in pixels, the legend included.
    pub width: u32,
    /// See `width`.
    pub height: u32,
    legend: Legend,
}

impl PassGridLayout {
    /// The layout for C(m,m) at `scale` pixels a cell (0 is taken as 1), or
    /// [`Error::TooLarge`] when it would not fit in a picture.
    pub fn new(m: u64, scale: u32) -> Result<PassGridLayout> {
        let scale = scale.max(1);
        let what = || format!("a {m}×{m} picture at scale {scale}");
        let side = m
            .checked_mul(scale as u64)
            .filter(|&s| s <= i32::MAX as u64 / 2)
            .ok_or_else(|| Error::too_large(what(), "more pixels a side than a PNG can hold"))?;
        let side = png_side(side, &what())?;
        let mut entries = vec![(1, "Nim P"), (2, "pass P")];
        if m == 1 {
            entries.push((3, "both"));
        }
        let legend = Legend::new(&entries, PASS_GRID_INK, 0, side);
        Ok(PassGridLayout {
            m,
            scale,
            side,
            width: side.max(legend.width()),
            height: side + legend.height(),
            legend,
        })
    }
}

/// Write C(m,m) as Nim with a pass (docs/mathematics.md §4) laid out by `layout`: plain Nim P-cells
/// blue, pass P-cells red, both purple, the rest white, and the legend below. `t` is the four-heap
/// table (side ≥ m); `description` is the PNG's Description text.
pub fn write_pass_grid_png(
    path: &Path,
    t: &NimPass,
    layout: &PassGridLayout,
    description: Option<&str>,
) -> Result<()> {
    let (m, scale, side) = (layout.m, layout.scale as usize, layout.side);
    let mut palette = PASS_GRID.to_vec();
    palette.extend_from_slice(&[0, 0, 0]);
    let spec = PngSpec {
        width: layout.width,
        height: layout.height,
        format: PixelFormat::Indexed { bits: 4, palette },
        compression: Compression::Balanced,
        description: description.map(str::to_string),
    };
    let mut colours = vec![0u8; m as usize];
    let put = |row: &mut [u8], px: usize, c: u8| row[px / 2] |= c << (4 - 4 * (px % 2));
    write_png(path, &spec, |y, row| {
        row.fill(0);
        if y < side {
            let i = y as u64 / scale as u64 + 1;
            for j in 1..=m {
                colours[(j - 1) as usize] = pass_cell(t, m, i, j).index();
            }
            for px in 0..side as usize {
                put(row, px, colours[px / scale]);
            }
        } else {
            for px in 0..layout.width {
                put(row, px as usize, layout.legend.pixel(px, y - side));
            }
        }
        Ok(())
    })
}

/// Largest side of an ordinal-plane picture, in pixels.
pub const ORDINAL_PICTURE_MAX_SIDE: u64 = 32_768;

/// Refuse a scale of 0, or one that makes a plane of `side` positions a side wider than
/// [`ORDINAL_PICTURE_MAX_SIDE`]: the check [`write_ordinal_plane_png`] makes, for a caller to
/// make before it computes the plane.
pub fn check_ordinal_scale(side: u32, scale: u32) -> Result<()> {
    if scale == 0 || side as u64 * scale as u64 > ORDINAL_PICTURE_MAX_SIDE {
        return Err(Error::bad_input(
            crate::Input::PixelsPerPosition,
            scale,
            format!(
                "at least 1 and at most {} for a plane of side {side}",
                ORDINAL_PICTURE_MAX_SIDE / side.max(1) as u64
            ),
        ));
    }
    Ok(())
}

/// Write an ordinal plane, `scale` pixels a position, one colour per ordinal (palette entry
/// 2 + k for ordinal k), with axis labels above and left of it and a legend of the ordinals
/// below it, `description` its Description text. Returns the picture's (width, height).
pub fn write_ordinal_plane_png(
    path: &Path,
    plane: &OrdinalPlane,
    scale: u32,
    description: Option<&str>,
) -> Result<(u32, u32)> {
    let side = plane.side;
    check_ordinal_scale(side, scale)?;
    let grid = side * scale;
    let (across, down) = plane.axis_names();
    let axes = Axes::new(across, down, grid, grid);
    let names: Vec<String> = (0..=plane.players).map(|k| k.to_string()).collect();
    let entries = legend_entries(&names);
    let one_line = Legend::new(&entries, 1, 0, u32::MAX).width();
    let width = (AXIS_BAND + grid).max(one_line).max(64);
    let legend = Legend::new(&entries, 1, 0, width);
    let top = AXIS_BAND + grid;
    let height = top + legend.height();
    let spec = PngSpec {
        width,
        height,
        format: PixelFormat::Indexed {
            bits: 8,
            palette: ordinal_palette(plane.players),
        },
        compression: Compression::Balanced,
        description: description.map(str::to_string),
    };
    write_png(path, &spec, |y, row| {
        if y < top {
            for (x, px) in row.iter_mut().enumerate() {
                let x = x as u32;
                let in_grid = (AXIS_BAND..top).contains(&x) && y >= AXIS_BAND;
                *px = if in_grid {
                    let (cy, cx) = ((y - AXIS_BAND) / scale, (x - AXIS_BAND) / scale);
                    plane.ordinal(cy, cx).map_or(0, |o| 2 + o)
                } else {
                    axes.ink(x, y) as u8
                };
            }
        } else {
            for (x, px) in row.iter_mut().enumerate() {
                *px = legend.pixel(x as u32, y - top);
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

/// Largest number of rectangles a side of the winning-bites picture may have.
pub const BITES_PICTURE_MAX_SIDE: usize = 1024;

/// Refuse a winning-bites picture of a `rows`×`cols` box with more than
/// [`BITES_PICTURE_MAX_SIDE`] rectangles a side: the check [`write_bites_png`] makes, for a
/// caller to make before it solves the box.
pub fn check_bites_picture(rows: usize, cols: u32) -> Result<()> {
    if rows > BITES_PICTURE_MAX_SIDE || cols as usize > BITES_PICTURE_MAX_SIDE {
        return Err(Error::too_large(
            "the winning-bites picture",
            format!("{rows}x{cols} rectangles; at most {BITES_PICTURE_MAX_SIDE} a side"),
        ));
    }
    Ok(())
}

/// The winning-bites picture of two-player Chomp: one square per rectangle r×c (row r down,
/// column c across, 1×1 at the top left), coloured by its number of winning bites, with axes and
/// a legend of the counts. `counts` lists (r, c, number of winning bites) for every rectangle
/// of the `rows`×`cols` box. Returns the picture's width and height.
pub fn write_bites_png(
    path: &Path,
    rows: usize,
    cols: u32,
    counts: &[(usize, u32, usize)],
    description: Option<&str>,
) -> Result<(u32, u32)> {
    check_bites_picture(rows, cols)?;
    let most = counts.iter().map(|&(_, _, n)| n).max().unwrap_or(0);
    let most = u8::try_from(most)
        .ok()
        .filter(|&m| m < 250)
        .ok_or_else(|| {
            Error::too_large("the winning-bites picture", "more than 249 winning bites")
        })?;
    let mut grid = vec![0u8; rows * cols as usize];
    for &(r, c, n) in counts {
        grid[(r - 1) * cols as usize + (c as usize - 1)] = n as u8;
    }
    // About 600 pixels across, at least 4 a rectangle.
    let scale = (600 / cols.max(rows as u32)).max(4);
    let (gw, gh) = (cols * scale, rows as u32 * scale);
    let axes = Axes::new("columns", "rows", gw, gh);
    let names: Vec<String> = (0..=most)
        .map(|k| match k {
            1 => "1 winning bite".to_string(),
            k => format!("{k} winning bites"),
        })
        .collect();
    let entries = legend_entries(&names);
    let width = (AXIS_BAND + gw).max(64);
    let legend = Legend::new(&entries, 1, 0, width);
    let width = width.max(legend.width());
    let top = AXIS_BAND + gh;
    let height = top + legend.height();
    let spec = PngSpec {
        width,
        height,
        format: PixelFormat::Indexed {
            bits: 8,
            palette: ordinal_palette(most),
        },
        compression: Compression::Balanced,
        description: description.map(str::to_string),
    };
    write_png(path, &spec, |y, row| {
        for (x, px) in row.iter_mut().enumerate() {
            let x = x as u32;
            *px = if y >= top {
                legend.pixel(x, y - top)
            } else if y >= AXIS_BAND && (AXIS_BAND..AXIS_BAND + gw).contains(&x) {
                let (r, c) = ((y - AXIS_BAND) / scale, (x - AXIS_BAND) / scale);
                // A one-pixel gap between squares once they are large enough to show it.
                let edge = scale >= 6
                    && ((y - AXIS_BAND).is_multiple_of(scale)
                        || (x - AXIS_BAND).is_multiple_of(scale));
                if edge {
                    0
                } else {
                    2 + grid[r as usize * cols as usize + c as usize]
                }
            } else {
                axes.ink(x, y) as u8
            };
        }
        Ok(())
    })?;
    Ok((width, height))
}

/// The colour of a winning bite (a cell whose bite leaves value 0) in the position picture.
pub const WINNING_BITE: [u8; 3] = [255, 204, 0];

/// Pixels a cell of the position picture takes.
pub const POSITION_CELL: u32 = 32;
/// Most rows or columns the position picture draws.
pub const POSITION_MAX_SIDE: u32 = 64;

/// A picture of one Chomp position: its Young diagram, rows down from the poisoned corner
/// (1,1) at the top left, every cell coloured by the Grundy value of the position that biting
/// it leaves (`leaves(row, column)`, 1-based; its value 0 marks a winning bite), the poisoned
/// cell in the ink colour, with axes and a legend. Returns the picture's width and height.
pub fn write_position_png(
    path: &Path,
    rows: &[u32],
    leaves: impl Fn(usize, u32) -> u16,
    description: Option<&str>,
) -> Result<(u32, u32)> {
    let (height, width) = (rows.len() as u32, rows.first().copied().unwrap_or(0));
    if height == 0 || height > POSITION_MAX_SIDE || width > POSITION_MAX_SIDE {
        return Err(Error::too_large(
            "the position picture",
            format!("{height} rows of up to {width} cells; 1 to {POSITION_MAX_SIDE} a side"),
        ));
    }
    let mut value = vec![None; (height * width) as usize];
    for (x, &a) in rows.iter().enumerate() {
        for t in 0..a {
            if (x, t) != (0, 0) {
                value[x * width as usize + t as usize] = Some(leaves(x + 1, t + 1));
            }
        }
    }
    let most = value.iter().flatten().copied().max().unwrap_or(0);
    let most = u8::try_from(most)
        .ok()
        .filter(|&m| m < 250)
        .ok_or_else(|| Error::too_large("the position picture", "a value above 249"))?;
    let scale = POSITION_CELL;
    let (gw, gh) = (width * scale, height * scale);
    let axes = Axes::new("columns", "rows", gw, gh);
    // The legend names the values some bite leaves, each once.
    let mut present = vec![false; most as usize + 1];
    value
        .iter()
        .flatten()
        .for_each(|&v| present[v as usize] = true);
    let names: Vec<(u8, String)> = std::iter::once((1, "poisoned cell".to_string()))
        .chain(
            (0..=most)
                .filter(|&k| present[k as usize])
                .map(|k| match k {
                    0 => (2, "winning bite".to_string()),
                    k => (2 + k, format!("leaves {k}")),
                }),
        )
        .collect();
    let entries: Vec<(u8, &str)> = names.iter().map(|(c, n)| (*c, n.as_str())).collect();
    // Wide enough for two legend entries a line.
    let wide = (AXIS_BAND + gw).max(480);
    let legend = Legend::new(&entries, 1, 0, wide);
    let mut palette = ordinal_palette(most);
    // Value 0, the winning bites, in gold: a colour no other value takes.
    palette[6..9].copy_from_slice(&WINNING_BITE);
    let picture_width = wide.max(legend.width());
    let top = AXIS_BAND + gh;
    let spec = PngSpec {
        width: picture_width,
        height: top + legend.height(),
        format: PixelFormat::Indexed { bits: 8, palette },
        compression: Compression::Balanced,
        description: description.map(str::to_string),
    };
    write_png(path, &spec, |y, row| {
        for (x, px) in row.iter_mut().enumerate() {
            let x = x as u32;
            *px = if y >= top {
                legend.pixel(x, y - top)
            } else if y >= AXIS_BAND && (AXIS_BAND..AXIS_BAND + gw).contains(&x) {
                let (gx, gy) = (x - AXIS_BAND, y - AXIS_BAND);
                let (r, c) = ((gy / scale) as usize, gx / scale);
                let edge = gx.is_multiple_of(scale) || gy.is_multiple_of(scale);
                match (edge, rows[r] > c, value[r * width as usize + c as usize]) {
                    (true, _, _) | (_, false, _) => 0,
                    (false, true, None) => 1,
                    (false, true, Some(v)) => 2 + v as u8,
                }
            } else {
                axes.ink(x, y) as u8
            };
        }
        Ok(())
    })?;
    Ok((picture_width, spec.height))
}

/// A legend's entries for `names`: palette entry 2+k for the k-th, as [`ordinal_palette`]
/// colours them (entries 0 and 1 are the background and the ink).
fn legend_entries(names: &[String]) -> Vec<(u8, &str)> {
    names
        .iter()
        .enumerate()
        .map(|(k, name)| (2 + k as u8, name.as_str()))
        .collect()
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
