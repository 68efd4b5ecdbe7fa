//! Deep Zoom pyramids: `DIR/NAME.dzi` and `DIR/NAME_files/LEVEL/COL_ROW.png`, built in one
//! streaming pass over the cell rows.
//!
//! The top level is the 1-bit picture itself. Level `top - k` has one pixel per 2^k × 2^k
//! block of cells, shaded by the block's exact P-count (as a fitted picture). Counts are exact
//! integers carried up the pyramid: a block's count is the sum of its four children's, so
//! every level is exact without resampling any image. Each level keeps one partial row of
//! counts and one band of at most a tile's height of finished pixel rows, so memory is about
//! `tile × width` bytes in all, whatever the height.
//!
//! Tests: this file's unit tests.

use crate::chocolate::grid::Window;
use crate::render::encode::png::{PixelFormat, PngSpec};
use crate::render::encode::png_bytes;
use crate::render::picture::{
    check_tile_size, shade_level, words_to_bytes, Colours, Picture, Scale,
};
use crate::render::Compression;
use crate::{Error, Result};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// One lower level (`k ≥ 1`: 2^k × 2^k cells a pixel).
struct Level {
    k: u32,
    width: u64,
    height: u64,
    /// Counts of the pixel row being accumulated.
    counts: Vec<u64>,
    /// Rows of the level above (or cell rows, for k = 1) added into `counts`.
    rows_in: u32,
    /// Index of the pixel row being accumulated.
    row: u64,
    /// Finished pixel rows not yet cut into tiles.
    band: Vec<u8>,
    band_rows: u64,
}

/// Writes a pyramid's tiles into `files_dir` (the `NAME_files` directory) as cell rows arrive.
pub struct DziBuilder {
    files_dir: PathBuf,
    width: u64,
    height: u64,
    tile: u64,
    top: u32,
    colours: Colours,
    compression: Compression,
    top_band: Vec<u8>,
    top_band_rows: u64,
    cell_rows: u64,
    levels: Vec<Level>,
    /// Tiles written so far.
    pub tiles_written: u64,
    /// The Description of every tile's PNG.
    description: Option<String>,
}

/// The XML descriptor of a Deep Zoom image of `width × height` pixels in PNG tiles of side
/// `tile`, without overlap.
pub fn descriptor(tile: u64, width: u64, height: u64) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Image xmlns=\"http://schemas.microsoft.com/deepzoom/2008\" Format=\"png\" Overlap=\"0\" TileSize=\"{tile}\">\n  <Size Width=\"{width}\" Height=\"{height}\"/>\n</Image>\n"
    )
}

/// The number of the top level: ⌈log₂ max(width, height)⌉ (a 1×1 picture has level 0 only).
pub fn top_level(width: u64, height: u64) -> u32 {
    let side = width.max(height);
    if side <= 1 {
        0
    } else {
        64 - (side - 1).leading_zeros()
    }
}

/// The most memory a pyramid `width`×`height` pixels with `tile`-pixel tiles holds, in bytes:
/// the top level's band of 1-bit rows and of packed cells, and for every lower level its row of
/// u64 counts and its band of 8-bit rows (widths halving), plus the tiles being encoded. A band
/// is at most a tile high and a tile at most the picture, so a tile larger than the picture
/// costs no more than one that fits it.
pub fn memory_bound(width: u64, height: u64, tile: u64) -> u64 {
    let threads = rayon::current_num_threads().max(1) as u64;
    let (band, tile_width) = (tile.min(height), tile.min(width));
    let top = band.saturating_mul(width.div_ceil(8) + 4 * width.div_ceil(32));
    // Σ over lower levels of (8 + band)·⌈width/2^k⌉ ≤ (8 + band)·(width + levels).
    let lower = (8 + band).saturating_mul(width + 64);
    let encoding = threads.saturating_mul(2 * band.saturating_mul(tile_width));
    top.saturating_add(lower).saturating_add(encoding)
}

/// A typed error ([`crate::Error::TooLarge`]) when a pyramid `width`×`height` pixels needs more
/// memory than `room` has ([`memory_bound`]).
pub fn ensure_memory(
    width: u64,
    height: u64,
    tile: u64,
    room: crate::memory::Room,
) -> crate::Result<()> {
    room.ensure(
        memory_bound(width, height, tile),
        &format!("a Deep Zoom pyramid {width} pixels wide"),
        "each level keeps a band of a tile's height; draw a window of the bar or use smaller tiles",
    )
}

impl DziBuilder {
    /// A builder writing the pyramid of `window` into `files_dir`, `tile` pixels a tile side.
    pub fn new(
        files_dir: &Path,
        window: &Window,
        tile: u64,
        colours: Colours,
        compression: Compression,
    ) -> Result<DziBuilder> {
        check_tile_size(tile)?;
        let (width, height) = (window.width, window.height);
        if width > i32::MAX as u64 || height > i32::MAX as u64 {
            return Err(Error::too_large(
                format!("a {height}×{width} Deep Zoom image"),
                "at most 2^31-1 pixels a side; draw a window of the bar",
            ));
        }
        ensure_memory(width, height, tile, crate::memory::Room::SYSTEM)?;
        let top = top_level(width, height);
        let levels = (1..=top)
            .map(|k| {
                let w = width.div_ceil(1 << k);
                Level {
                    k,
                    width: w,
                    height: height.div_ceil(1 << k),
                    counts: vec![0; w as usize],
                    rows_in: 0,
                    row: 0,
                    band: Vec::new(),
                    band_rows: 0,
                }
            })
            .collect();
        Ok(DziBuilder {
            files_dir: files_dir.to_path_buf(),
            width,
            height,
            tile,
            top,
            colours,
            compression,
            top_band: Vec::new(),
            top_band_rows: 0,
            cell_rows: 0,
            levels,
            tiles_written: 0,
            description: None,
        })
    }

    /// The XML descriptor (`NAME.dzi`).
    pub fn descriptor(&self) -> String {
        descriptor(self.tile, self.width, self.height)
    }

    /// Cell rows to send at a time: one tile row of the top level.
    pub fn band_rows(&self) -> u64 {
        self.tile
    }

    fn format(&self, one_bit: bool) -> PixelFormat {
        let pic = Picture {
            window: Window::full(1, 1).expect("1×1"),
            scale: if one_bit {
                Scale::Cells(1)
            } else {
                Scale::Fit(2)
            },
            colours: self.colours,
            width: 1,
            height: 1,
            shade: crate::render::picture::shade::Shade::Linear,
            description: None,
        };
        pic.format()
    }

    /// Add the next `rows` cell rows (packed words, `words_per_row(width)` a row).
    pub fn push(&mut self, words: &[u32], rows: u64) -> Result<()> {
        let wpr = self.width.div_ceil(32) as usize;
        if words.len() != wpr * rows as usize {
            return Err(Error::invalid(format!(
                "DZI: a band of {rows} rows needs {} words, not {}",
                wpr * rows as usize,
                words.len()
            )));
        }
        let row_bytes = self.width.div_ceil(8) as usize;
        let invert = if self.colours.is_some() { 0 } else { 0xff };
        for row in words.chunks_exact(wpr) {
            let start = self.top_band.len();
            self.top_band.resize(start + row_bytes, 0);
            words_to_bytes(row, &mut self.top_band[start..], invert);
            self.top_band_rows += 1;
            self.cell_rows += 1;
            let last = self.cell_rows == self.height;
            if self.top_band_rows == self.tile || last {
                let band = std::mem::take(&mut self.top_band);
                let y0 = self.cell_rows - self.top_band_rows;
                self.cut_tiles(self.top, self.width, y0, &band, self.top_band_rows, true)?;
                self.top_band = band;
                self.top_band.clear();
                self.top_band_rows = 0;
            }
            if let Some(first) = self.levels.first_mut() {
                add_pair_counts(row, &mut first.counts);
                first.rows_in += 1;
                if first.rows_in == 2 || last {
                    self.finish_row(0, last)?;
                }
            }
        }
        Ok(())
    }

    /// Level `i` (k = i+1) has a complete pixel row: shade it, pass its counts up, and cut
    /// tiles when a band is full.
    fn finish_row(&mut self, i: usize, input_done: bool) -> Result<()> {
        let (width, height, tile) = (self.width, self.height, self.tile);
        let p_is_one = self.colours.is_some();
        let level = &mut self.levels[i];
        let side = 1u64 << level.k;
        let block_rows = side.min(height - level.row * side);
        let start = level.band.len();
        level.band.reserve(level.width as usize);
        for (x, &c) in level.counts.iter().enumerate() {
            let block_cols = side.min(width - x as u64 * side);
            let l = shade_level(c, block_rows * block_cols);
            level.band.push(if p_is_one { l } else { 255 - l });
        }
        debug_assert_eq!(level.band.len() - start, level.width as usize);
        level.band_rows += 1;
        level.row += 1;
        let last = level.row == level.height;
        debug_assert!(!last || input_done);
        let counts = std::mem::take(&mut level.counts);
        if let Some(up) = self.levels.get_mut(i + 1) {
            for (x, &c) in counts.iter().enumerate() {
                up.counts[x / 2] += c;
            }
            up.rows_in += 1;
        }
        let level = &mut self.levels[i];
        level.counts = counts;
        level.counts.fill(0);
        level.rows_in = 0;
        if level.band_rows == tile || last {
            let band = std::mem::take(&mut level.band);
            let (rows, lw, y0) = (level.band_rows, level.width, level.row - level.band_rows);
            let number = self.top - level.k;
            self.cut_tiles(number, lw, y0, &band, rows, false)?;
            let level = &mut self.levels[i];
            level.band = band;
            level.band.clear();
            level.band_rows = 0;
        }
        if let Some(up) = self.levels.get(i + 1) {
            if up.rows_in == 2 || (last && up.rows_in > 0) {
                self.finish_row(i + 1, input_done)?;
            }
        }
        Ok(())
    }

    /// Encode and write the tiles of one band of level `number` (rows `y0 ..`).
    fn cut_tiles(
        &mut self,
        number: u32,
        width: u64,
        y0: u64,
        band: &[u8],
        rows: u64,
        one_bit: bool,
    ) -> Result<()> {
        let tile = self.tile;
        let format = self.format(one_bit);
        let row_bytes = format.row_bytes(width as u32);
        let dir = self.files_dir.join(number.to_string());
        if y0 == 0 {
            crate::output::create_dir_inside(&dir)?;
        }
        let tile_row = y0 / tile;
        let cols = width.div_ceil(tile);
        let compression = self.compression;
        (0..cols).into_par_iter().try_for_each(|c| -> Result<()> {
            let x0 = c * tile;
            let tw = tile.min(width - x0);
            let spec = PngSpec {
                width: tw as u32,
                height: rows as u32,
                format: format.clone(),
                compression,
                description: self.description.clone(),
            };
            let tile_bytes = spec.format.row_bytes(tw as u32);
            let off = format.row_bytes(x0 as u32);
            let mut raw = Vec::with_capacity(tile_bytes * rows as usize);
            for r in band.chunks_exact(row_bytes) {
                raw.extend_from_slice(&r[off..off + tile_bytes]);
            }
            let bytes = png_bytes(&spec, &raw)?;
            let path = dir.join(format!("{c}_{tile_row}.png"));
            crate::output::write_inside(&path, &bytes)
        })?;
        self.tiles_written += cols;
        Ok(())
    }

    /// Check that every row arrived and every level was written.
    pub fn finish(&self) -> Result<()> {
        if self.cell_rows != self.height {
            return Err(Error::invalid(format!(
                "DZI: {} of {} rows arrived",
                self.cell_rows, self.height
            )));
        }
        if let Some(l) = self.levels.iter().find(|l| l.row != l.height) {
            return Err(Error::invalid(format!(
                "DZI: level {} has {} of {} rows",
                self.top - l.k,
                l.row,
                l.height
            )));
        }
        Ok(())
    }
}

/// Add the P-cells of a packed row to `counts[col / 2]`: within each word, the 16 pairs of
/// bits are summed at once (x - (x>>1 & 0x5555…) leaves each pair's count in its two bits).
fn add_pair_counts(row: &[u32], counts: &mut [u64]) {
    for (k, &word) in row.iter().enumerate() {
        if word == 0 {
            continue;
        }
        let pairs = word - ((word >> 1) & 0x5555_5555);
        let base = k * 16;
        for j in 0..16usize.min(counts.len() - base) {
            counts[base + j] += ((pairs >> (30 - 2 * j)) & 3) as u64;
        }
    }
}

/// NAME, the last part of a pyramid's directory DIR: the pyramid is DIR/NAME.dzi and
/// DIR/NAME_files/.
fn pyramid_name(dir: &Path) -> Result<String> {
    let name = dir.file_name().ok_or_else(|| {
        Error::invalid(format!(
            "'{}' does not name a directory for a Deep Zoom pyramid",
            dir.display()
        ))
    })?;
    Ok(name.to_string_lossy().into_owned())
}

/// Check, before any work, that a pyramid can be written into `dir`: it names a directory
/// that exists or can be made, and where it exists, NAME_files can be a directory and
/// NAME.dzi a file there. Nothing is created.
pub fn check_target(dir: &Path) -> Result<()> {
    let name = pyramid_name(dir)?;
    crate::output::check_dir_target(dir, false)?;
    if dir.is_dir() {
        crate::output::check_dir_target(&dir.join(format!("{name}_files")), false)?;
        crate::output::check_target(dir.join(format!("{name}.dzi")))?;
    }
    Ok(())
}

/// A Deep Zoom pyramid of the picture in a tile directory written by tile shards (1-bit
/// tiles of single cells, `pic` read from its manifest): each picture row is read back into
/// packed cells and streamed through [`write_dzi`].
pub fn write_dzi_from_tiles(
    tiles: &Path,
    dir: &Path,
    pic: &Picture,
    tile: u64,
    compression: Compression,
) -> Result<DziReport> {
    let mut rows = crate::render::pyramid::tiles::TileRows::open(tiles)?;
    let mut bytes = vec![0u8; rows.row_bytes];
    // Gray: a 0 pixel is black, a P-cell; indexed: entry 1 is the P colour.
    let invert = if pic.colours.is_some() { 0 } else { 0xff };
    let wpr = pic.window.words_per_row();
    write_dzi(
        dir,
        &pic.window,
        tile,
        pic.colours,
        compression,
        pic.description.as_deref(),
        |_, _, words| {
            for row in words.chunks_exact_mut(wpr) {
                rows.next_row(&mut bytes)?;
                for (k, w) in row.iter_mut().enumerate() {
                    let mut b = [0u8; 4];
                    for (j, x) in b.iter_mut().enumerate() {
                        *x = bytes.get(4 * k + j).map_or(0, |&v| v ^ invert);
                    }
                    *w = u32::from_be_bytes(b);
                }
                // Padding bits past the last cell must be zero (no P-cells there).
                let pad = (wpr as u64 * 32 - pic.width) as u32;
                if pad > 0 {
                    row[wpr - 1] &= !((1u32 << pad) - 1);
                }
            }
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_of_small_pictures() {
        assert_eq!(top_level(1, 1), 0);
        assert_eq!(top_level(2, 1), 1);
        assert_eq!(top_level(3, 3), 2);
        assert_eq!(top_level(256, 100), 8);
        assert_eq!(top_level(257, 100), 9);
    }

    #[test]
    fn pair_counts_equal_bit_counts() {
        let row = [0xdead_beefu32, 0x8000_0001, 0, 0xffff_ffff];
        let mut counts = vec![0u64; 63];
        add_pair_counts(&row, &mut counts);
        for (j, &c) in counts.iter().enumerate() {
            let bit = |col: usize| (row[col / 32] >> (31 - col % 32) & 1) as u64;
            let expect = bit(2 * j) + if 2 * j + 1 < 128 { bit(2 * j + 1) } else { 0 };
            assert_eq!(c, expect, "pair {j}");
        }
    }
}

/// What a pyramid write produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DziReport {
    /// The `.dzi` descriptor written.
    pub descriptor: PathBuf,
    /// Levels of the pyramid.
    pub levels: u32,
    /// Tiles written.
    pub tiles: u64,
}

/// Write the Deep Zoom pyramid of a `window`-sized picture into `dir` (`DIR/NAME.dzi` and
/// `DIR/NAME_files/`, NAME = DIR's last part). `fill(y0, rows, words)` produces the packed
/// cell rows `y0 .. y0+rows`, in order. Nothing appears at the target until the pyramid is
/// complete: a new DIR is built under a temporary name, or, when DIR exists, NAME_files is
/// built under a temporary name and NAME.dzi written atomically after it. Every tile's PNG
/// carries `description` as its Description.
#[allow(clippy::too_many_arguments)]
pub fn write_dzi(
    dir: &Path,
    window: &Window,
    tile: u64,
    colours: Colours,
    compression: Compression,
    description: Option<&str>,
    mut fill: impl FnMut(u64, u64, &mut [u32]) -> Result<()>,
) -> Result<DziReport> {
    use crate::output::{AtomicDir, AtomicFile};
    use std::io::Write as _;
    let name = pyramid_name(dir)?;
    let fresh = !dir.exists();
    let holder = AtomicDir::create(if fresh {
        dir.to_path_buf()
    } else {
        dir.join(format!("{name}_files"))
    })?;
    let files_dir = if fresh {
        holder.path().join(format!("{name}_files"))
    } else {
        holder.path().to_path_buf()
    };
    let mut builder = DziBuilder::new(&files_dir, window, tile, colours, compression)?;
    builder.description = description.map(str::to_string);
    let wpr = window.words_per_row();
    let band = builder.band_rows();
    let mut words = vec![0u32; wpr * band.min(window.height) as usize];
    let phase = crate::progress::phase("rows", Some(window.height));
    let mut y = 0;
    while y < window.height {
        let rows = band.min(window.height - y);
        let buf = &mut words[..wpr * rows as usize];
        fill(y, rows, buf)?;
        builder.push(buf, rows)?;
        y += rows;
        phase.inc(rows);
    }
    drop(phase);
    builder.finish()?;
    let descriptor = dir.join(format!("{name}.dzi"));
    if fresh {
        crate::output::write_inside(
            &holder.path().join(format!("{name}.dzi")),
            builder.descriptor().as_bytes(),
        )?;
        holder.commit()?;
    } else {
        holder.commit()?;
        let mut f = AtomicFile::create(&descriptor)?;
        f.write_all(builder.descriptor().as_bytes())
            .map_err(|e| Error::io(&descriptor, e))?;
        f.commit()?;
    }
    Ok(DziReport {
        descriptor,
        levels: builder.top + 1,
        tiles: builder.tiles_written,
    })
}
