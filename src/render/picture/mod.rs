//! What a picture of a window of C(m,n) shows, pixel by pixel, and its parts: the rows of
//! cells it reads ([`source`]), how a block's count becomes a level ([`shade`]), palettes
//! ([`palette`]) and legends and labels in a small pixel font ([`label`]).
//!
//! - Cells ([`Picture::cells`], K = 1 by default): each cell is K×K pixels, black for a P-cell.
//! - Fit ([`Picture::fit`]): each pixel covers a B×B block of cells and is shaded by the exact
//!   fraction of P-cells in it (counted, never sampled; [`Picture::with_shade`] picks the
//!   rule, see [`Shade`]); blocks on the right and bottom edges may be smaller and are shaded
//!   by their own cell count. Small blocks are counted from the generated rows, large ones by
//!   the digit method ([`crate::chocolate::window`]), whichever is cheaper ([`FitCounts`]),
//!   so a picture of C(2^64-1) is as quick as one of C(40000).
//!
//! Two colours make indexed PNGs; the default is black on white.
//!
//! Tests: this file's unit tests; benches/, tests/, tests/games/chomp/, tests/pictures/.

pub mod label;
pub mod palette;
pub mod shade;
pub mod source;

use crate::chocolate::grid::Window;
use crate::chocolate::window::{BlockGrid, BlockRect};
use crate::render::encode::png::{PixelFormat, PngSpec};
use crate::render::picture::shade::{p_level, Shade};
use crate::render::picture::source::CellSource;
use crate::render::Compression;
use crate::{Error, Result};
use rayon::prelude::*;

/// Words of cells generated at a time when counting blocks from rows.
const COUNT_CHUNK_WORDS: u64 = 1 << 20;

/// Cells a pixel must cover, per bit of the bar's larger side, for its block count to come
/// from the digit method rather than from generated rows. A digit count costs about one corner
/// prefix a pixel, which grows with the bits of the bar (about 6 ns a bit of CPU), while the
/// rows cost about 0.1 ns a cell; the two cross near 64 cells a bit, so about 1000 cells a pixel
/// for C(65535) and 4096 for C(2^64-1) (BENCHMARKS.md, "render --fit").
pub const DIGITS_CELLS_PER_BIT: u128 = 64;

/// Where a fitted picture's block counts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitCounts {
    /// Generate the block rows' cells and add up each block's (cheaper for small blocks).
    Rows,
    /// The digit method: four corner prefixes a block, shared with the neighbours.
    Digits,
}

/// How cells map to pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Each cell is `k×k` pixels.
    Cells(u64),
    /// Each pixel is a `b×b` block of cells.
    Fit(u64),
}

/// The two colours: `[P colour, N colour]`, or `None` for 1-bit/8-bit black on white.
pub type Colours = Option<[[u8; 3]; 2]>;

/// A picture of a window of C(m,n): its scale, colours and size in pixels.
#[derive(Debug, Clone)]
pub struct Picture {
    /// The cells drawn.
    pub window: Window,
    /// Cells to pixels.
    pub scale: Scale,
    /// Two colours, or black on white.
    pub colours: Colours,
    /// Pixels a row.
    pub width: u64,
    /// Pixel rows.
    pub height: u64,
    /// How fitted pixels are shaded (ignored for cells).
    pub shade: Shade,
    /// The Description text of its PNGs ([`PngSpec::description`]), if any.
    pub description: Option<String>,
}

/// A tile side for tiled output (Deep Zoom pyramids, tile shards): a positive multiple of 8, so
/// that every tile of 1-bit rows starts on a byte boundary. Returns the side.
pub fn check_tile_size(tile: u64) -> Result<u64> {
    if tile == 0 || !tile.is_multiple_of(8) {
        return Err(Error::bad_input(
            crate::Input::TileSize,
            tile,
            "a positive multiple of 8",
        ));
    }
    Ok(tile)
}

/// Round `255·count/cells` to the nearest integer (halves up): the shade level of a block,
/// 0 for no P-cells, 255 for all.
pub fn shade_level(count: u64, cells: u64) -> u8 {
    debug_assert!(count <= cells && cells > 0);
    ((255 * count as u128 * 2 + cells as u128) / (2 * cells as u128)) as u8
}

/// The palette colour for shade level `l`: the N colour blended towards the P colour.
fn blend(p: [u8; 3], n: [u8; 3], l: u8) -> [u8; 3] {
    let mix =
        |p: u8, n: u8| ((n as u32 * (255 - l as u32) + p as u32 * l as u32 + 127) / 255) as u8;
    [mix(p[0], n[0]), mix(p[1], n[1]), mix(p[2], n[2])]
}

impl Picture {
    /// A picture of `window` with each cell `k`×`k` pixels (`k` ≥ 1).
    pub fn cells(window: Window, k: u64, colours: Colours) -> Result<Picture> {
        if k == 0 {
            return Err(Error::bad_input(crate::Input::CellSize, k, "at least 1"));
        }
        Picture::with_scale(window, Scale::Cells(k), colours)
    }

    /// A picture of the whole `window` fitted into `pixels` on its longer side (`pixels` ≥ 1):
    /// each pixel a block of cells shaded by its exact fraction of P-cells.
    pub fn fit(window: Window, pixels: u64, colours: Colours) -> Result<Picture> {
        if pixels == 0 {
            return Err(Error::bad_input(
                crate::Input::Fit,
                pixels,
                "at least 1 pixel",
            ));
        }
        let block = window.height.max(window.width).div_ceil(pixels);
        Picture::with_scale(window, Scale::Fit(block), colours)
    }

    /// A picture of `window` at a given scale.
    pub fn with_scale(window: Window, scale: Scale, colours: Colours) -> Result<Picture> {
        let (height, width) = match scale {
            Scale::Cells(0) | Scale::Fit(0) => {
                return Err(Error::bad_argument("the scale", 0, "at least 1"))
            }
            Scale::Cells(k) => match (window.height.checked_mul(k), window.width.checked_mul(k)) {
                (Some(h), Some(w)) => (h, w),
                _ => {
                    return Err(Error::too_large(
                        format!("a picture at {k} pixels per cell"),
                        "it is larger than 2^64 pixels a side",
                    ))
                }
            },
            Scale::Fit(b) => (window.height.div_ceil(b), window.width.div_ceil(b)),
        };
        Ok(Picture {
            window,
            scale,
            colours,
            width,
            height,
            shade: Shade::Linear,
            description: None,
        })
    }

    /// The picture with `text` as the Description of every PNG made of it (whole or in tiles).
    pub fn with_description(self, text: impl Into<String>) -> Picture {
        Picture {
            description: Some(text.into()),
            ..self
        }
    }

    /// The same picture shaded by `shade`.
    pub fn with_shade(self, shade: Shade) -> Picture {
        Picture { shade, ..self }
    }

    /// Where the block counts of a fitted picture come from (None for cells): the digit
    /// method once a pixel covers [`DIGITS_CELLS_PER_BIT`] cells per bit of the bar's larger
    /// side, else the rows.
    pub fn fit_counts(&self) -> Option<FitCounts> {
        match self.scale {
            Scale::Cells(_) => None,
            Scale::Fit(b) => {
                let w = &self.window;
                let cells = b.min(w.height) as u128 * b.min(w.width) as u128;
                let bits = 64 - (w.m.max(w.n) - 1).leading_zeros().min(63);
                Some(if cells >= DIGITS_CELLS_PER_BIT * bits as u128 {
                    FitCounts::Digits
                } else {
                    FitCounts::Rows
                })
            }
        }
    }

    /// The level (0..=255) of a block with `count` P-cells out of `cells`, as its pixel value:
    /// the level itself for an indexed picture, 255 - level for gray.
    fn pixel(&self, count: u128, cells: u128) -> u8 {
        let level = p_level(self.shade, count, cells);
        if self.p_is_one() {
            level
        } else {
            255 - level
        }
    }

    /// The pixel format: 1-bit (gray or two-colour indexed) for cells, 8-bit (gray or a
    /// 256-colour blend) for fitted pictures.
    pub fn format(&self) -> PixelFormat {
        match (self.scale, self.colours) {
            (Scale::Cells(_), None) => PixelFormat::Gray1,
            (Scale::Cells(_), Some([p, n])) => PixelFormat::Indexed {
                bits: 1,
                palette: [n, p].concat(),
            },
            (Scale::Fit(_), None) => PixelFormat::Gray8,
            (Scale::Fit(_), Some([p, n])) => PixelFormat::Indexed {
                bits: 8,
                palette: (0..=255u8).flat_map(|l| blend(p, n, l)).collect(),
            },
        }
    }

    /// The PNG of the whole picture (an error if it is larger than PNG allows).
    pub fn spec(&self, compression: Compression) -> Result<PngSpec> {
        self.spec_for(self.width, self.height, compression)
    }

    /// The PNG of a `width × height` part of the picture (a tile).
    pub fn spec_for(&self, width: u64, height: u64, compression: Compression) -> Result<PngSpec> {
        let side = |s: u64| u32::try_from(s).ok().filter(|&s| s <= i32::MAX as u32);
        match (side(width), side(height)) {
            (Some(w), Some(h)) => {
                let spec = PngSpec {
                    width: w,
                    height: h,
                    format: self.format(),
                    compression,
                    description: self.description.clone(),
                };
                spec.validate()?;
                Ok(spec)
            }
            _ => Err(Error::too_large(
                format!("a {height}×{width} picture"),
                "it is larger than a PNG can be (2^31-1 pixels a side); draw a window, fit it \
                 into fewer pixels or make a Deep Zoom pyramid",
            )),
        }
    }

    /// Whether a 1-bit pixel value 1 means a P-cell (indexed: palette entry 1 is the P colour)
    /// rather than an N-cell (gray: 1 is white).
    fn p_is_one(&self) -> bool {
        self.colours.is_some()
    }

    /// The pixel rows `y0 .. y0+rows`, the picture's whole width.
    pub fn band(&self, y0: u64, rows: u64) -> PixelRect {
        PixelRect::new(0, y0, self.width, rows)
    }

    /// Fill the raw PNG rows of the pixel rectangle `pixels` into `out` (`pixels.height ×
    /// row_bytes(pixels.width)` bytes).
    pub fn fill_rows(&self, cells: &CellSource, pixels: PixelRect, out: &mut [u8]) -> Result<()> {
        let PixelRect {
            x0: px0,
            y0: py0,
            width: pw,
            height: rows,
        } = pixels;
        let row_bytes = self.format().row_bytes(pw as u32);
        debug_assert_eq!(out.len() as u64, rows * row_bytes as u64);
        match self.scale {
            Scale::Cells(1) => {
                let w = self.window.rows(py0, rows).cols(px0, pw);
                let invert = if self.p_is_one() { 0 } else { 0xff };
                cells.png_rows(&w, invert, row_bytes, out)?;
            }
            Scale::Cells(k) => {
                let (r0, c0) = (py0 / k, px0 / k);
                let w = self
                    .window
                    .rows(r0, (py0 + rows - 1) / k - r0 + 1)
                    .cols(c0, (px0 + pw - 1) / k - c0 + 1);
                let mut words = vec![0u32; w.total_words()?];
                cells.rows(&w, &mut words)?;
                let wpr = w.words_per_row();
                let p_one = self.p_is_one();
                out.par_chunks_mut(row_bytes)
                    .enumerate()
                    .for_each(|(y, dst)| {
                        let src = &words[((py0 + y as u64) / k - r0) as usize * wpr..][..wpr];
                        dst.fill(0);
                        for x in 0..pw {
                            let c = (px0 + x) / k - c0;
                            let p = src[(c / 32) as usize] >> (31 - c % 32) & 1 == 1;
                            if p == p_one {
                                dst[(x / 8) as usize] |= 0x80 >> (x % 8);
                            }
                        }
                    });
            }
            Scale::Fit(b) => match self.fit_counts() {
                Some(FitCounts::Digits) => self.fill_fit_digits(cells, b, pixels, out)?,
                _ => self.fill_fit_rows(cells, b, pixels, out)?,
            },
        }
        Ok(())
    }

    /// Fitted pixel rows from digit-method block counts, in chunks of at most the source's
    /// preferred number of pixels (so memory is a few MB however wide the picture).
    pub fn fill_fit_digits(
        &self,
        cells: &CellSource,
        b: u64,
        pixels: PixelRect,
        out: &mut [u8],
    ) -> Result<()> {
        let grid = BlockGrid::new(self.window, b)?;
        let chunk = cells.block_chunk_pixels();
        let cols = chunk.min(pixels.width);
        let band = (chunk / cols).clamp(1, pixels.height);
        self.fill_fit(&grid, pixels, (band, cols), out, |blocks| {
            cells.block_counts(&grid, blocks)
        })
    }

    /// Fitted pixel rows from the generated cells of each block row, in column chunks of at
    /// most 2^25 cells.
    pub fn fill_fit_rows(
        &self,
        cells: &CellSource,
        b: u64,
        pixels: PixelRect,
        out: &mut [u8],
    ) -> Result<()> {
        let grid = BlockGrid::new(self.window, b)?;
        let cols = ((COUNT_CHUNK_WORDS * 32) / b).clamp(1, pixels.width);
        self.fill_fit(&grid, pixels, (1, cols), out, |blocks| {
            let counts = self.block_counts(cells, b, blocks.row0, blocks.col0, blocks.cols)?;
            Ok(counts.into_iter().map(u128::from).collect())
        })
    }

    /// The fitted pixels `pixels` (one pixel a block) from exact block counts, asked of
    /// `count(blocks)` (row-major) in bands of `band` block rows and runs of `cols` blocks.
    fn fill_fit(
        &self,
        grid: &BlockGrid,
        pixels: PixelRect,
        (band, cols): (u64, u64),
        out: &mut [u8],
        mut count: impl FnMut(BlockRect) -> Result<Vec<u128>>,
    ) -> Result<()> {
        let PixelRect {
            x0: px0,
            y0: py0,
            width: pw,
            height: rows,
        } = pixels;
        let row_bytes = pw as usize;
        for y in (0..rows).step_by(band as usize) {
            let h = band.min(rows - y);
            for x in (0..pw).step_by(cols as usize) {
                let w = cols.min(pw - x);
                let counts = count(BlockRect::new(py0 + y, h, px0 + x, w))?;
                if counts.len() as u64 != h * w {
                    return Err(Error::CheckFailed(format!(
                        "the block counter gave {} counts for {h}×{w} blocks",
                        counts.len()
                    )));
                }
                for (r, row) in counts.chunks_exact(w as usize).enumerate() {
                    let by = py0 + y + r as u64;
                    let dst = &mut out[(y as usize + r) * row_bytes + x as usize..][..w as usize];
                    for (k, (d, &c)) in dst.iter_mut().zip(row).enumerate() {
                        *d = self.pixel(c, grid.block_cells(by, px0 + x + k as u64));
                    }
                }
            }
        }
        Ok(())
    }

    /// Exact P-counts of the blocks `px0 .. px0+pw` of block row `by` (blocks of `b×b`
    /// cells): generate the block row's cells in chunks and add each row's P-cells to the
    /// block holding them.
    pub fn block_counts(
        &self,
        cells: &CellSource,
        b: u64,
        by: u64,
        px0: u64,
        pw: u64,
    ) -> Result<Vec<u64>> {
        let win = &self.window;
        let r0 = by * b;
        let nrows = b.min(win.height - r0);
        let c0 = px0 * b;
        let ncols = (pw as u128 * b as u128).min((win.width - c0) as u128) as u64;
        let strip = win.rows(r0, nrows).cols(c0, ncols);
        let wpr = strip.words_per_row();
        let chunk_rows = (COUNT_CHUNK_WORDS / wpr as u64).max(1);
        let mut counts = vec![0u64; pw as usize];
        let mut words = Vec::new();
        let mut r = 0;
        while r < nrows {
            let h = chunk_rows.min(nrows - r);
            let w = strip.rows(r, h);
            words.resize(w.total_words()?, 0);
            cells.rows(&w, &mut words)?;
            let part = words
                .par_chunks(wpr)
                .fold(
                    || vec![0u64; pw as usize],
                    |mut acc, row| {
                        add_block_counts(row, b, &mut acc);
                        acc
                    },
                )
                .reduce(
                    || vec![0u64; pw as usize],
                    |mut a, b| {
                        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                        a
                    },
                );
            counts.iter_mut().zip(part).for_each(|(x, y)| *x += y);
            r += h;
        }
        Ok(counts)
    }
}

/// Packed cells (bit 31 = leftmost) to PNG row bytes (MSB = leftmost pixel), XOR `invert`.
pub fn words_to_bytes(src: &[u32], dst: &mut [u8], invert: u8) {
    let inv = u32::from_ne_bytes([invert; 4]);
    let whole = dst.len() / 4;
    let (head, rest) = dst.split_at_mut(whole * 4);
    for (d, &w) in head.chunks_exact_mut(4).zip(src) {
        d.copy_from_slice(&(w ^ inv).to_be_bytes());
    }
    if !rest.is_empty() {
        let b = (src[whole] ^ inv).to_be_bytes();
        rest.copy_from_slice(&b[..rest.len()]);
    }
}

/// Add the P-cells of one packed row to `counts[col / b]`. A word inside one block adds its
/// popcount; a word across block edges adds bit by bit.
pub fn add_block_counts(row: &[u32], b: u64, counts: &mut [u64]) {
    for (k, &word) in row.iter().enumerate() {
        if word == 0 {
            continue;
        }
        let base = k as u64 * 32;
        if base / b == (base + 31) / b {
            counts[(base / b) as usize] += word.count_ones() as u64;
        } else {
            let mut x = word;
            while x != 0 {
                let bit = x.leading_zeros() as u64;
                counts[((base + bit) / b) as usize] += 1;
                x &= !(0x8000_0000u32 >> bit);
            }
        }
    }
}

/// A rectangle of a picture's pixels: columns `x0 .. x0+width`, rows `y0 .. y0+height`,
/// 0-based from the top left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelRect {
    /// First pixel column.
    pub x0: u64,
    /// First pixel row.
    pub y0: u64,
    /// Pixel columns.
    pub width: u64,
    /// Pixel rows.
    pub height: u64,
}

impl PixelRect {
    /// Columns `x0 .. x0+width` of rows `y0 .. y0+height`.
    pub fn new(x0: u64, y0: u64, width: u64, height: u64) -> PixelRect {
        PixelRect {
            x0,
            y0,
            width,
            height,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::grid::p_rows_naive;
    use crate::chocolate::p_cell;

    #[test]
    fn block_counts_equal_cell_by_cell_counts() {
        let w = Window::new(1000, 777, 100, 37, 70, 333).unwrap();
        let words = p_rows_naive(&w);
        let wpr = w.words_per_row();
        for b in [1, 3, 7, 32, 33, 100, 333] {
            let mut counts = vec![0u64; 333usize.div_ceil(b as usize)];
            for row in words.chunks(wpr) {
                add_block_counts(row, b, &mut counts);
            }
            let mut expect = vec![0u64; counts.len()];
            for r in 0..w.height {
                for c in 0..w.width {
                    expect[(c / b) as usize] += p_cell(w.m, w.n, w.row0 + r, w.col0 + c) as u64;
                }
            }
            assert_eq!(counts, expect, "block width {b}");
        }
    }

    #[test]
    fn shade_levels_round_to_nearest() {
        for cells in 1..60u64 {
            for count in 0..=cells {
                let exact = 255.0 * count as f64 / cells as f64;
                let l = shade_level(count, cells) as f64;
                assert!((l - exact).abs() <= 0.5, "{count}/{cells}");
            }
        }
        assert_eq!(shade_level(0, 9), 0);
        assert_eq!(shade_level(9, 9), 255);
    }

    #[test]
    fn words_to_bytes_is_big_endian() {
        let mut dst = [0u8; 7];
        words_to_bytes(&[0x8000_0001, 0xf0a0_5000], &mut dst, 0);
        assert_eq!(dst, [0x80, 0, 0, 1, 0xf0, 0xa0, 0x50]);
        words_to_bytes(&[0x8000_0001, 0xf0a0_5000], &mut dst, 0xff);
        assert_eq!(dst, [0x7f, 0xff, 0xff, 0xfe, 0x0f, 0x5f, 0xaf]);
    }
}
