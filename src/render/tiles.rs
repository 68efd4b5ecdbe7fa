//! Tile directories: a picture cut into square PNG tiles that independent processes (array
//! jobs of a cluster scheduler) render, and that `assemble` streams back into one picture.
//!
//! `DIR/tiles.json` says what the tiles are of; tile (R, C) is `DIR/tile-R-C.png`, pixel
//! rows `R·S ..` and columns `C·S ..` of the picture (S = tile size, a multiple of 8 so that
//! 1-bit rows join on byte boundaries). Each tile is written atomically, so a tile file that
//! exists is complete and a rerun skips it. Shard I of N renders tiles t = R·cols + C with
//! t mod N = I.

use super::atomic::AtomicFile;
use super::encode::stream_png;
use super::picture::{Colours, Picture, Scale};
use super::shade::Shade;
use super::source::CellSource;
use super::Compression;
use crate::chocolate::grid::Window;
use crate::usage;
use serde::{Deserialize, Serialize};
use std::io::BufReader;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "tiles.json";

/// What a tile directory holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileManifest {
    pub m: u64,
    pub n: u64,
    /// The window: first row, first column (1-based), height, width in cells.
    pub window: [u64; 4],
    /// `--cell K` (pixels per cell side), or absent when fitted.
    pub cell: Option<u64>,
    /// Cells per pixel side when fitted (`--fit`).
    pub fit_block: Option<u64>,
    /// `[P colour, N colour]` as RGB, or absent for black on white.
    pub colours: Colours,
    pub width: u64,
    pub height: u64,
    pub tile_size: u64,
    pub tiles_x: u64,
    pub tiles_y: u64,
    /// How fitted pixels are shaded; absent for `linear` (and in manifests older than it).
    #[serde(default, skip_serializing_if = "Shade::is_linear")]
    pub shade: Shade,
}

impl TileManifest {
    pub fn of(pic: &Picture, tile_size: u64) -> anyhow::Result<TileManifest> {
        if tile_size == 0 || tile_size % 8 != 0 {
            return Err(usage!(
                "--tile-size must be a positive multiple of 8 (got {tile_size})"
            ));
        }
        // `assemble` joins the tiles into one PNG or Deep Zoom image, at most 2^31-1 pixels a
        // side; checked first, so that no tile count can overflow and no manifest is written.
        if pic.width > i32::MAX as u64 || pic.height > i32::MAX as u64 {
            return Err(usage!(
                "a {}×{} picture cannot be assembled from tiles: a PNG or Deep Zoom image is at most 2^31-1 pixels a side; use --window, --fit or --cell",
                pic.height,
                pic.width
            ));
        }
        let w = &pic.window;
        let (cell, fit_block) = match pic.scale {
            Scale::Cells(k) => (Some(k), None),
            Scale::Fit(b) => (None, Some(b)),
        };
        let m = TileManifest {
            m: w.m,
            n: w.n,
            window: [w.row0, w.col0, w.height, w.width],
            cell,
            fit_block,
            colours: pic.colours,
            width: pic.width,
            height: pic.height,
            tile_size,
            tiles_x: pic.width.div_ceil(tile_size),
            tiles_y: pic.height.div_ceil(tile_size),
            shade: pic.shade,
        };
        let tile = pic.spec_for(
            tile_size.min(pic.width),
            tile_size.min(pic.height),
            Compression::Fast,
        )?;
        super::encode::ensure_memory(&tile, &format!("a {tile_size}-pixel tile"))?;
        Ok(m)
    }

    /// The picture the tiles are of.
    pub fn picture(&self) -> anyhow::Result<Picture> {
        let [r, c, h, w] = self.window;
        let window = Window::new(self.m, self.n, r, c, h, w)?;
        let scale = match (self.cell, self.fit_block) {
            (Some(k), None) => Scale::Cells(k),
            (None, Some(b)) => Scale::Fit(b),
            _ => anyhow::bail!("tiles.json: exactly one of cell and fit_block must be given"),
        };
        let pic = Picture::with_scale(window, scale, self.colours)?.with_shade(self.shade);
        anyhow::ensure!(
            pic.width == self.width && pic.height == self.height,
            "tiles.json: the picture is {}×{} pixels, not {}×{}",
            pic.height,
            pic.width,
            self.height,
            self.width
        );
        Ok(pic)
    }

    pub fn count(&self) -> u64 {
        self.tiles_x.saturating_mul(self.tiles_y)
    }

    /// Pixel rectangle of tile t: (x0, y0, width, height).
    pub fn rect(&self, t: u64) -> (u64, u64, u64, u64) {
        let (r, c) = (t / self.tiles_x, t % self.tiles_x);
        let (x0, y0) = (c * self.tile_size, r * self.tile_size);
        (
            x0,
            y0,
            self.tile_size.min(self.width - x0),
            self.tile_size.min(self.height - y0),
        )
    }

    pub fn tile_path(&self, dir: &Path, t: u64) -> PathBuf {
        dir.join(format!(
            "tile-{}-{}.png",
            t / self.tiles_x,
            t % self.tiles_x
        ))
    }

    pub fn read(dir: &Path) -> anyhow::Result<TileManifest> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            usage!(
                "'{}' is not a tile directory ({}: {e})",
                dir.display(),
                path.display()
            )
        })?;
        serde_json::from_str(&text)
            .map_err(|e| usage!("'{}' is not a chompute tile manifest: {e}", path.display()))
    }
}

/// Parse `I/N` or `auto/N` (I from SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX).
pub fn parse_shard(s: &str) -> anyhow::Result<(u64, u64)> {
    let bad = || usage!("--shard wants I/N with 0 ≤ I < N, or auto/N (got '{s}')");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    let i: u64 = if i.trim() == "auto" {
        let from_env = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"]
            .iter()
            .find_map(|v| std::env::var(v).ok().map(|x| (*v, x)));
        let (var, value) = from_env.ok_or_else(|| {
            usage!("--shard auto/{n} needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment")
        })?;
        value
            .trim()
            .parse()
            .map_err(|_| usage!("{var}='{value}' is not a shard number"))?
    } else {
        i.trim().parse().map_err(|_| bad())?
    };
    if n == 0 || i >= n {
        return Err(usage!(
            "shard {i}/{n}: the shard number must be below the number of shards (0 ≤ I < N)"
        ));
    }
    Ok((i, n))
}

/// What one shard did.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct ShardReport {
    pub tiles_total: u64,
    pub tiles_in_shard: u64,
    pub tiles_written: u64,
    pub tiles_skipped: u64,
}

/// Render shard `i` of `n` of `pic`'s tiles into `dir`.
pub fn render_shard(
    pic: &Picture,
    cells: &CellSource,
    dir: &Path,
    tile_size: u64,
    (i, n): (u64, u64),
    compression: Compression,
) -> anyhow::Result<ShardReport> {
    let manifest = TileManifest::of(pic, tile_size)?;
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create '{}': {e}", dir.display()))?;
    let mpath = dir.join(MANIFEST);
    if mpath.exists() {
        let old = TileManifest::read(dir)?;
        if old != manifest {
            return Err(usage!(
                "'{}' holds tiles of a different render (see its {MANIFEST}); use another directory",
                dir.display()
            ));
        }
    } else {
        let mut f = AtomicFile::create(&mpath)?;
        serde_json::to_writer_pretty(&mut f, &manifest)?;
        f.commit()?;
    }
    let mut report = ShardReport {
        tiles_total: manifest.count(),
        ..Default::default()
    };
    // Tiles t ≡ i (mod n), walked without listing them (there may be 2^56).
    report.tiles_in_shard = manifest.count().saturating_sub(i).div_ceil(n);
    let bar = crate::progress::bar(report.tiles_in_shard, "tiles");
    for t in (i..manifest.count()).step_by(usize::try_from(n).unwrap_or(usize::MAX)) {
        let path = manifest.tile_path(dir, t);
        if path.exists() {
            report.tiles_skipped += 1;
        } else {
            let (x0, y0, tw, th) = manifest.rect(t);
            let spec = pic.spec_for(tw, th, compression)?;
            let mut file = AtomicFile::create(&path)?;
            stream_png(&format!("'{}'", path.display()), &mut file, &spec, |sink| {
                while sink.rows_left() > 0 {
                    sink.fill_band(|ty, rows, bytes| {
                        pic.fill_rows(cells, x0, tw, y0 + ty as u64, rows as u64, bytes)
                    })?;
                }
                Ok(())
            })?;
            file.commit()?;
            report.tiles_written += 1;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(report)
}

/// Streams a tile directory's picture row by row: the decoders of one row of tiles at a time.
pub struct TileRows {
    dir: PathBuf,
    pub manifest: TileManifest,
    pub row_bytes: usize,
    format: super::PixelFormat,
    readers: Vec<png::Reader<BufReader<std::fs::File>>>,
    next_row: u64,
}

impl TileRows {
    pub fn open(dir: &Path) -> anyhow::Result<TileRows> {
        let manifest = TileManifest::read(dir)?;
        let pic = manifest.picture()?;
        let row_bytes = pic.format().row_bytes(manifest.width as u32);
        Ok(TileRows {
            dir: dir.to_path_buf(),
            manifest,
            row_bytes,
            format: pic.format(),
            readers: Vec::new(),
            next_row: 0,
        })
    }

    /// Open the decoders of tile row `r`, checking that every tile is there and is the right
    /// size and format.
    fn open_tile_row(&mut self, r: u64) -> anyhow::Result<()> {
        let m = &self.manifest;
        let spec_format = &self.format;
        self.readers.clear();
        for c in 0..m.tiles_x {
            let t = r * m.tiles_x + c;
            let path = m.tile_path(&self.dir, t);
            let file = std::fs::File::open(&path).map_err(|e| {
                anyhow::anyhow!(
                    "tile '{}' is missing ({e}); rerun the shard that renders tile {t} (shard {t} mod N)",
                    path.display()
                )
            })?;
            let mut dec = png::Decoder::new_with_limits(
                BufReader::new(file),
                png::Limits { bytes: usize::MAX },
            );
            dec.set_transformations(png::Transformations::IDENTITY);
            let reader = dec
                .read_info()
                .map_err(|e| anyhow::anyhow!("cannot read tile '{}': {e}", path.display()))?;
            let (_, _, tw, th) = m.rect(t);
            let info = reader.info();
            let (ct, bd) = match spec_format {
                super::PixelFormat::Gray1 => (png::ColorType::Grayscale, png::BitDepth::One),
                super::PixelFormat::Gray8 => (png::ColorType::Grayscale, png::BitDepth::Eight),
                super::PixelFormat::Indexed { bits: 1, .. } => {
                    (png::ColorType::Indexed, png::BitDepth::One)
                }
                _ => (png::ColorType::Indexed, png::BitDepth::Eight),
            };
            anyhow::ensure!(
                info.width as u64 == tw && info.height as u64 == th && info.color_type == ct && info.bit_depth == bd,
                "tile '{}' is not a tile of this render ({}×{} {:?} {:?}, expected {tw}×{th} {ct:?} {bd:?})",
                path.display(),
                info.width,
                info.height,
                info.color_type,
                info.bit_depth
            );
            self.readers.push(reader);
        }
        Ok(())
    }

    /// The next row of the picture (raw PNG row bytes) into `out`.
    pub fn next_row(&mut self, out: &mut [u8]) -> anyhow::Result<()> {
        let ts = self.manifest.tile_size;
        anyhow::ensure!(
            self.next_row < self.manifest.height,
            "read past the last row of the tiles"
        );
        if self.next_row % ts == 0 {
            self.open_tile_row(self.next_row / ts)?;
        }
        let mut offset = 0;
        for (c, reader) in self.readers.iter_mut().enumerate() {
            let row = reader
                .next_row()
                .map_err(|e| {
                    anyhow::anyhow!(
                        "cannot read tile {c} of tile row {}: {e}",
                        self.next_row / ts
                    )
                })?
                .ok_or_else(|| anyhow::anyhow!("a tile ended early"))?;
            let data = row.data();
            let tw = (self.manifest.width - c as u64 * ts).min(ts);
            let len = self.format.row_bytes(tw as u32);
            out[offset..offset + len].copy_from_slice(&data[..len]);
            offset += len;
        }
        debug_assert_eq!(offset, self.row_bytes);
        self.next_row += 1;
        Ok(())
    }
}
