//! A live Deep Zoom pyramid of any bar C(m,n), m, n up to 2^64-1: any tile of any level on
//! demand, without writing the picture first (`chompute serve`).
//!
//! The image is n pixels wide and m high (a cell a pixel), in tiles of 256 without overlap,
//! as Deep Zoom (and so OpenSeadragon) expects. The top level, ⌈log₂ max(m,n)⌉, is the 1-bit
//! picture: P black, N white, rows from the P-row generator of [`crate::render::picture::source`].
//! Level L has one pixel per 2^k × 2^k block of cells, k = top - L, shaded from the block's
//! exact P-count ([`crate::chocolate::dyadic`], O(1) a pixel) by [`crate::render::picture::shade::p_level`];
//! blocks on the right and bottom edges are cut to the bar and shaded over their own cells,
//! exactly as `render --fit` and `render --dzi` shade. So every tile costs about the same,
//! at every depth, in every bar.
//!
//! Tests: this file's unit tests.

use crate::chocolate::dyadic::DyadicBlocks;
use crate::chocolate::grid::Window;
use crate::render::encode::png::PngSpec;
use crate::render::encode::png_bytes_described;
use crate::render::picture::shade::{p_level, Shade};
use crate::render::picture::source::CellSource;
use crate::render::picture::{Colours, Picture, Scale};
use crate::render::Compression;
use crate::{Error, Result};

/// The side of a tile, in pixels.
pub const TILE: u64 = 256;

/// The pyramid of C(m,n).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pyramid {
    m: u64,
    n: u64,
    top: u32,
}

/// Where a tile lies: its level, its pixel rectangle in that level, and the block side 2^k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRect {
    /// The pyramid level (0 = one pixel for the whole bar).
    pub level: u32,
    /// Tile column and row (Deep Zoom's `COL_ROW.png`).
    pub col: u64,
    /// The tile's row in its level.
    pub row: u64,
    /// The first pixel column and row of the tile in its level.
    pub x0: u64,
    /// The first pixel row of the tile in its level.
    pub y0: u64,
    /// Pixels; less than [`TILE`] on the right and bottom edges.
    pub width: u32,
    /// The tile's height in pixels (edge tiles are cut to the image).
    pub height: u32,
    /// Each pixel is a 2^k × 2^k block of cells (k = 0: a cell).
    pub k: u32,
}

/// How a tile is drawn: the shading of blocks and the colours (`None`: black P on white).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TileStyle {
    /// How block counts become grey levels.
    pub shade: Shade,
    /// Optional P and N colours.
    pub colours: Colours,
}

impl Pyramid {
    /// The pyramid of C(m,n).
    pub fn new(m: u64, n: u64) -> Result<Pyramid> {
        for (what, v) in [("m", m), ("n", n)] {
            if v == 0 {
                return Err(Error::bad_argument(what, v, "at least 1"));
            }
        }
        Ok(Pyramid {
            m,
            n,
            top: crate::render::pyramid::dzi::top_level(n, m),
        })
    }

    /// The bar's number of rows m.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// The bar's number of columns n.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The top level: ⌈log₂ max(m,n)⌉, where a pixel is a cell.
    pub fn top(&self) -> u32 {
        self.top
    }

    /// The DZI descriptor: `Width` = n, `Height` = m.
    pub fn descriptor(&self) -> String {
        crate::render::pyramid::dzi::descriptor(TILE, self.n, self.m)
    }

    /// Width and height of `level` in pixels: ⌈n / 2^k⌉ × ⌈m / 2^k⌉.
    pub fn level_size(&self, level: u32) -> Result<(u64, u64)> {
        if level > self.top {
            return Err(Error::bad_argument(
                "the level",
                level,
                format!("at most {} for C({},{})", self.top, self.m, self.n),
            ));
        }
        let k = self.top - level;
        let side = |len: u64| (len as u128).div_ceil(1u128 << k) as u64;
        Ok((side(self.n), side(self.m)))
    }

    /// Tile columns and rows of `level`.
    pub fn tiles(&self, level: u32) -> Result<(u64, u64)> {
        let (w, h) = self.level_size(level)?;
        Ok((w.div_ceil(TILE), h.div_ceil(TILE)))
    }

    /// The tile `col_row` of `level`, checked to lie inside the level.
    pub fn tile(&self, level: u32, col: u64, row: u64) -> Result<TileRect> {
        let (w, h) = self.level_size(level)?;
        let (across, down) = (w.div_ceil(TILE), h.div_ceil(TILE));
        if col >= across {
            return Err(Error::bad_argument(
                "the tile column",
                col,
                format!("below {across} at level {level}"),
            ));
        }
        if row >= down {
            return Err(Error::bad_argument(
                "the tile row",
                row,
                format!("below {down} at level {level}"),
            ));
        }
        let (x0, y0) = (col * TILE, row * TILE);
        Ok(TileRect {
            level,
            col,
            row,
            x0,
            y0,
            width: TILE.min(w - x0) as u32,
            height: TILE.min(h - y0) as u32,
            k: self.top - level,
        })
    }

    /// The tile's PNG format and raw rows: 1-bit at the top level, 8-bit below.
    pub fn tile_pixels(
        &self,
        t: &TileRect,
        style: &TileStyle,
        cells: &CellSource,
    ) -> Result<(PngSpec, Vec<u8>)> {
        let picture = Picture {
            window: Window {
                m: self.m,
                n: self.n,
                row0: 1,
                col0: 1,
                height: self.m,
                width: self.n,
            },
            scale: if t.k == 0 {
                Scale::Cells(1)
            } else {
                Scale::Fit(2)
            },
            colours: style.colours,
            width: 1,
            height: 1,
            shade: style.shade,
            description: None,
        };
        let spec = PngSpec {
            width: t.width,
            height: t.height,
            format: picture.format(),
            compression: Compression::Balanced,
            description: None,
        };
        let row_bytes = spec.format.row_bytes(t.width);
        let mut raw = vec![0u8; row_bytes * t.height as usize];
        if t.k == 0 {
            // A pixel is a cell: the packed P-rows of the window are the 1-bit rows (gray:
            // bit 1 is white, so P-bits are inverted; indexed: palette entry 1 is P).
            let w = Window {
                m: self.m,
                n: self.n,
                row0: t.y0 + 1,
                col0: t.x0 + 1,
                height: t.height as u64,
                width: t.width as u64,
            };
            let invert = if style.colours.is_some() { 0 } else { 0xff };
            cells
                .png_rows(&w, invert, row_bytes, &mut raw)
                .map_err(|e| Error::invalid(format!("{e:#}")))?;
        } else {
            let blocks = DyadicBlocks::new(self.m, self.n, t.k)?;
            let grey = style.colours.is_none();
            // Neighbouring blocks often hold the same count (a bar of 2^k-1, empty space):
            // the last shade is kept.
            let mut last = (u128::MAX, 0u128, 0u8);
            for (dy, dst) in raw.chunks_exact_mut(row_bytes).enumerate() {
                let a = t.y0 + dy as u64;
                for (dx, d) in dst.iter_mut().enumerate() {
                    let c = t.x0 + dx as u64;
                    let (count, cells) = (blocks.count(a, c), blocks.cells(a, c));
                    if (count, cells) != (last.0, last.1) {
                        last = (count, cells, p_level(style.shade, count, cells));
                    }
                    *d = if grey { 255 - last.2 } else { last.2 };
                }
            }
        }
        Ok((spec, raw))
    }

    /// The tile as PNG bytes, its `Description` saying which tile it is
    /// ([`Pyramid::tile_description`]): the bytes follow from the tile, the style, the
    /// compression and chompute's version alone.
    pub fn tile_png(
        &self,
        t: &TileRect,
        style: &TileStyle,
        cells: &CellSource,
        compression: Compression,
    ) -> Result<Vec<u8>> {
        let (mut spec, raw) = self.tile_pixels(t, style, cells)?;
        spec.compression = compression;
        let description = self.tile_description(t, style);
        png_bytes_described(&spec, &raw, Some(&description))
            .map_err(|e| Error::invalid(format!("{e:#}")))
    }

    /// What a tile shows: `C(777,1235), Deep Zoom level 11 of 11, tile 4_3, 1 cell a pixel,
    /// shade linear, P-cells black on white`.
    pub fn tile_description(&self, t: &TileRect, style: &TileStyle) -> String {
        let scale = match t.k {
            0 => "1 cell a pixel".to_string(),
            k => format!("a block of 2^{k}×2^{k} cells a pixel"),
        };
        let colours = match style.colours {
            None => "P-cells black on white".to_string(),
            Some([p, n]) => format!(
                "P #{:02x}{:02x}{:02x}, N #{:02x}{:02x}{:02x}",
                p[0], p[1], p[2], n[0], n[1], n[2]
            ),
        };
        format!(
            "C({},{}), Deep Zoom level {} of {}, tile {}_{}, {scale}, shade {}, {colours}",
            self.m,
            self.n,
            t.level,
            self.top,
            t.col,
            t.row,
            style.shade.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::ptest::p_cell;
    use crate::gpu::Engine;
    use crate::render::picture::shade_level;

    #[test]
    fn levels_and_tiles_of_a_rectangle() {
        let p = Pyramid::new(777, 1235).unwrap();
        assert_eq!(p.top(), 11);
        assert_eq!(p.level_size(11).unwrap(), (1235, 777));
        assert_eq!(p.level_size(10).unwrap(), (618, 389));
        assert_eq!(p.level_size(0).unwrap(), (1, 1));
        assert_eq!(p.tiles(11).unwrap(), (5, 4));
        let t = p.tile(11, 4, 3).unwrap();
        assert_eq!((t.x0, t.y0, t.width, t.height, t.k), (1024, 768, 211, 9, 0));
        assert!(p.tile(11, 5, 0).is_err());
        assert!(p.tile(11, 0, 4).is_err());
        assert!(p.level_size(12).is_err());
        assert!(Pyramid::new(0, 3).is_err());
        let big = Pyramid::new(u64::MAX, u64::MAX).unwrap();
        assert_eq!(big.top(), 64);
        assert_eq!(big.level_size(0).unwrap(), (1, 1));
        assert_eq!(big.level_size(64).unwrap(), (u64::MAX, u64::MAX));
        assert_eq!(big.tiles(64).unwrap(), (1 << 56, 1 << 56));
    }

    #[test]
    fn tile_pixels_are_cells_at_the_top_and_shaded_blocks_below() {
        let cells = CellSource::new(Engine::Cpu, false);
        let (m, n) = (777u64, 1235u64);
        let p = Pyramid::new(m, n).unwrap();
        for (level, col, row) in [(11, 1, 2), (11, 4, 3), (9, 1, 0), (8, 0, 0), (3, 0, 0)] {
            let t = p.tile(level, col, row).unwrap();
            let (spec, raw) = p.tile_pixels(&t, &TileStyle::default(), &cells).unwrap();
            let row_bytes = spec.format.row_bytes(t.width);
            let side = 1u64 << t.k;
            for y in 0..t.height as u64 {
                for x in 0..t.width as u64 {
                    let (i0, j0) = ((t.y0 + y) * side, (t.x0 + x) * side);
                    let got = if t.k == 0 {
                        let byte = raw[y as usize * row_bytes + x as usize / 8];
                        (byte >> (7 - x % 8) & 1) * 255
                    } else {
                        raw[y as usize * row_bytes + x as usize]
                    };
                    let mut count = 0;
                    let (h, w) = (side.min(m - i0), side.min(n - j0));
                    for i in i0..i0 + h {
                        for j in j0..j0 + w {
                            count += p_cell(m, n, i + 1, j + 1) as u64;
                        }
                    }
                    assert_eq!(
                        got,
                        255 - shade_level(count, h * w),
                        "level {level} ({x},{y})"
                    );
                }
            }
        }
    }
}
