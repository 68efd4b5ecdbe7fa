//! Tile directories: a picture cut into square PNG tiles that independent processes (array
//! jobs of a cluster scheduler) render, and that `assemble` streams back into one picture.
//!
//! `DIR/tiles.json` says what the tiles are of; tile (R, C) is `DIR/tile-R-C.png`, pixel
//! rows `R·S ..` and columns `C·S ..` of the picture (S = tile size, a multiple of 8 so that
//! 1-bit rows join on byte boundaries). Shard I of N renders tiles t = R·cols + C with
//! t mod N = I.
//!
//! A tile counts as complete only when it is verified. Each tile is written atomically and
//! then, also atomically, its record `DIR/tile-R-C.json`: the tile's name, its length, the
//! CRC-32 of its bytes and the CRC-32 of the manifest it belongs to. A tile without a record
//! (its task stopped between the two), or whose bytes do not match the record (truncated,
//! overwritten, another tile's file, a directory in its place, a tile of another render), is
//! rendered again by a rerun, and `assemble` refuses it, naming it, before it writes anything.
//!
//! The manifest is published exclusively (a hard link from a complete temporary file fails if
//! the name exists), so of two renders started at once into one new directory exactly one
//! writes it; the other reads it and is refused unless it asks for the same picture, in which
//! case it shares the work and skips the verified tiles.
//!
//! Tests: this file's unit tests.

use crate::chocolate::grid::Window;
use crate::error::{Error, Input, Result};
use crate::output::AtomicFile;
use crate::render::encode::stream_png;
use crate::render::picture::shade::Shade;
use crate::render::picture::source::CellSource;
use crate::render::picture::{Colours, Picture, PixelRect, Scale};
use crate::render::Compression;
use serde::{Deserialize, Serialize};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// The manifest's file name inside a tile directory.
pub const MANIFEST: &str = "tiles.json";

/// What a tile directory holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileManifest {
    /// Rows of the bar C(m,n).
    pub m: u64,
    /// Columns of the bar.
    pub n: u64,
    /// The window: first row, first column (1-based), height, width in cells.
    pub window: [u64; 4],
    /// `--cell K` (pixels per cell side), or absent when fitted.
    pub cell: Option<u64>,
    /// Cells per pixel side when fitted (`--fit`).
    pub fit_block: Option<u64>,
    /// `[P colour, N colour]` as RGB, or absent for black on white.
    pub colours: Colours,
    /// The whole picture's width in pixels.
    pub width: u64,
    /// The whole picture's height in pixels.
    pub height: u64,
    /// A tile's side in pixels (edge tiles are cut to the picture).
    pub tile_size: u64,
    /// Tiles across.
    pub tiles_x: u64,
    /// Tiles down.
    pub tiles_y: u64,
    /// How fitted pixels are shaded; absent for `linear` (and in manifests older than it).
    #[serde(default, skip_serializing_if = "Shade::is_linear")]
    pub shade: Shade,
}

/// What is written after a tile, to say that the tile is complete and what its bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct TileRecord {
    /// The tile's file name, so that a record moved with another tile's file does not match.
    tile: String,
    /// The tile's length in bytes.
    bytes: u64,
    /// CRC-32 (IEEE) of the tile's bytes.
    crc32: u32,
    /// CRC-32 of the manifest's JSON ([`TileManifest::id`]): the render the tile belongs to.
    manifest_crc32: u32,
}

/// Why a tile is not complete (the message names the tile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileFault(pub String);

impl TileManifest {
    /// The manifest of `pic` cut into tiles of `tile_size` pixels (a positive multiple of 8).
    pub fn of(pic: &Picture, tile_size: u64) -> Result<TileManifest> {
        TileManifest::within(pic, tile_size, crate::memory::Room::SYSTEM)
    }

    /// [`TileManifest::of`], with a tile's encoding checked against `room`.
    pub fn within(
        pic: &Picture,
        tile_size: u64,
        room: crate::memory::Room,
    ) -> Result<TileManifest> {
        if tile_size == 0 || !tile_size.is_multiple_of(8) {
            return Err(Error::bad_input(
                crate::Input::TileSize,
                tile_size,
                "a positive multiple of 8",
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
        m.check_shape()
            .map_err(|why| Error::invalid(format!("cannot cut this picture into tiles: {why}")))?;
        let tile = pic.spec_for(
            tile_size.min(pic.width),
            tile_size.min(pic.height),
            Compression::Fast,
        )?;
        crate::render::encode::ensure_memory(&tile, &format!("a {tile_size}-pixel tile"), room)?;
        Ok(m)
    }

    /// The manifest against itself: a tile size that joins rows on byte boundaries, a picture
    /// of at least one pixel, and exactly the tiles that cover it.
    fn check_shape(&self) -> std::result::Result<(), String> {
        let ts = self.tile_size;
        if ts == 0 || !ts.is_multiple_of(8) {
            return Err(format!("tile_size is {ts}, not a positive multiple of 8"));
        }
        if self.width == 0 || self.height == 0 {
            return Err(format!(
                "the picture is {}×{} pixels, which has no tiles",
                self.height, self.width
            ));
        }
        // `assemble` writes a PNG or a Deep Zoom image, both at most 2^31-1 pixels a side.
        if self.width > i32::MAX as u64 || self.height > i32::MAX as u64 {
            return Err(format!(
                "the picture is {}×{} pixels, and tiles are assembled into pictures of at most 2^31-1 pixels a side; draw a window of the bar or a fitted picture",
                self.height, self.width
            ));
        }
        let (need_x, need_y) = (self.width.div_ceil(ts), self.height.div_ceil(ts));
        if (self.tiles_x, self.tiles_y) != (need_x, need_y) {
            return Err(format!(
                "tiles_x = {}, tiles_y = {}, but a {}×{}-pixel picture in tiles of {ts} needs {need_x} and {need_y}",
                self.tiles_x, self.tiles_y, self.height, self.width
            ));
        }
        Ok(())
    }

    /// The picture the tiles are of, checked against the manifest's own sizes.
    pub fn picture(&self) -> Result<Picture> {
        let [r, c, h, w] = self.window;
        let window = Window::new(self.m, self.n, r, c, h, w)?;
        let scale = match (self.cell, self.fit_block) {
            (Some(k), None) => Scale::Cells(k),
            (None, Some(b)) => Scale::Fit(b),
            _ => {
                return Err(Error::invalid(format!(
                    "{MANIFEST}: exactly one of cell and fit_block must be given"
                )))
            }
        };
        let pic = Picture::with_scale(window, scale, self.colours)?.with_shade(self.shade);
        if pic.width != self.width || pic.height != self.height {
            return Err(Error::invalid(format!(
                "{MANIFEST}: the picture is {}×{} pixels, not {}×{}",
                pic.height, pic.width, self.height, self.width
            )));
        }
        Ok(pic)
    }

    /// How many tiles the picture is cut into.
    pub fn count(&self) -> u64 {
        self.tiles_x * self.tiles_y
    }

    /// Which render this is: the CRC-32 of the manifest's JSON, kept in every tile record.
    pub fn id(&self) -> u32 {
        crc32fast::hash(&serde_json::to_vec(self).expect("a manifest serialises"))
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

    fn tile_name(&self, t: u64, ext: &str) -> String {
        format!("tile-{}-{}.{ext}", t / self.tiles_x, t % self.tiles_x)
    }

    /// Where tile `t` lies in the tile directory `dir`.
    pub fn tile_path(&self, dir: &Path, t: u64) -> PathBuf {
        dir.join(self.tile_name(t, "png"))
    }

    /// Where tile t's record is.
    pub fn record_path(&self, dir: &Path, t: u64) -> PathBuf {
        dir.join(self.tile_name(t, "json"))
    }

    /// Read `DIR/tiles.json` and check it against itself.
    pub fn read(dir: &Path) -> Result<TileManifest> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::invalid(format!(
                "'{}' is not a tile directory ({}: {e})",
                dir.display(),
                path.display()
            ))
        })?;
        let manifest: TileManifest = serde_json::from_str(&text).map_err(|e| {
            Error::invalid(format!(
                "'{}' is not a chompute tile manifest: {e}",
                path.display()
            ))
        })?;
        manifest.check_shape().map_err(|why| {
            Error::invalid(format!("'{}' is inconsistent: {why}", path.display()))
        })?;
        manifest
            .picture()
            .map_err(|e| Error::invalid(format!("'{}' is inconsistent: {e}", path.display())))?;
        Ok(manifest)
    }

    /// Make `dir` this render's tile directory: publish the manifest if there is none (only
    /// one of several renders started at once can), else require the one there to be this.
    fn claim(&self, dir: &Path) -> Result<()> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            let mut file = AtomicFile::create(&path)?;
            serde_json::to_writer_pretty(&mut file, self)
                .map_err(|e| Error::io(&path, e.into()))?;
            file.write_all(b"\n").map_err(|e| Error::io(&path, e))?;
            if file.commit_exclusive()? {
                return Ok(());
            }
        }
        let theirs = TileManifest::read(dir)?;
        if theirs != *self {
            return Err(Error::invalid(format!(
                "'{}' holds tiles of a different render (see its {MANIFEST}); use another directory",
                dir.display()
            )));
        }
        Ok(())
    }

    /// Whether tile t in `dir` is complete: its record is there, is of this render and this
    /// tile, and matches the tile's length and checksum.
    pub fn check_tile(&self, dir: &Path, t: u64) -> std::result::Result<(), TileFault> {
        let path = self.tile_path(dir, t);
        let shown = path.display();
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|e| TileFault(format!("tile '{shown}' is missing ({e})")))?;
        if !meta.is_file() {
            return Err(TileFault(format!("tile '{shown}' is not a regular file")));
        }
        let record_path = self.record_path(dir, t);
        let text = std::fs::read(&record_path).map_err(|_| {
            TileFault(format!(
                "tile '{shown}' has no record '{}' (its render did not finish)",
                record_path.display()
            ))
        })?;
        let record: TileRecord = serde_json::from_slice(&text).map_err(|_| {
            TileFault(format!(
                "tile '{shown}': its record '{}' is damaged",
                record_path.display()
            ))
        })?;
        let name = self.tile_name(t, "png");
        if record.tile != name {
            return Err(TileFault(format!(
                "tile '{shown}': its record is the record of {}",
                record.tile
            )));
        }
        if record.manifest_crc32 != self.id() {
            return Err(TileFault(format!(
                "tile '{shown}' belongs to another render (its record's manifest checksum differs)"
            )));
        }
        if meta.len() != record.bytes {
            return Err(TileFault(format!(
                "tile '{shown}' is damaged: {} bytes, its record says {}",
                meta.len(),
                record.bytes
            )));
        }
        let (bytes, crc) = checksum_file(&path)
            .map_err(|e| TileFault(format!("cannot read tile '{shown}': {e}")))?;
        if (bytes, crc) != (record.bytes, record.crc32) {
            return Err(TileFault(format!(
                "tile '{shown}' is damaged: {bytes} bytes with CRC-32 {crc:08x}, its record says {} bytes with {:08x}",
                record.bytes, record.crc32
            )));
        }
        Ok(())
    }

    /// Whether `name` is one the render gives a file of its tile directory: the manifest, a
    /// tile or a tile's record.
    fn names_file(&self, name: &std::ffi::OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        if name == MANIFEST {
            return true;
        }
        let Some((stem, ext)) = name.strip_prefix("tile-").and_then(|s| s.rsplit_once('.')) else {
            return false;
        };
        let Some((r, c)) = stem.split_once('-') else {
            return false;
        };
        let (Ok(r), Ok(c)) = (r.parse::<u64>(), c.parse::<u64>()) else {
            return false;
        };
        matches!(ext, "png" | "json")
            && r < self.tiles_y
            && c < self.tiles_x
            && self.tile_name(r * self.tiles_x + c, ext) == name
    }

    /// Refuse `output` when it is, or would be, one of the files of the tile directory `dir`
    /// (its manifest, a tile or a tile's record): named as one inside `dir`, or a link to one.
    /// Writing there would damage the render, or be overwritten by it.
    pub fn check_apart(&self, dir: &Path, output: &Path) -> Result<()> {
        let refuse = |name: &std::ffi::OsStr| {
            Err(Error::invalid(format!(
                "'{}' would be {} of the tile directory '{}'; write the picture elsewhere",
                output.display(),
                name.to_string_lossy(),
                dir.display()
            )))
        };
        if let Some(name) = output.file_name().filter(|n| self.names_file(n)) {
            let parent = output
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if crate::output::same_file(parent, dir) {
                return refuse(name);
            }
        }
        if !output.exists() {
            return Ok(());
        }
        let tiles =
            (0..self.count()).flat_map(|t| [self.tile_path(dir, t), self.record_path(dir, t)]);
        for input in std::iter::once(dir.join(MANIFEST)).chain(tiles) {
            if crate::output::same_file(output, &input) {
                return refuse(input.file_name().unwrap_or_default());
            }
        }
        Ok(())
    }

    /// Every tile complete, or an error naming the first that is not and the shard that
    /// renders it.
    pub fn check_all(&self, dir: &Path) -> Result<()> {
        for t in 0..self.count() {
            if let Err(TileFault(why)) = self.check_tile(dir, t) {
                return Err(Error::invalid(format!(
                    "{why}; rerun the shard that renders tile {t} (shard {t} mod N)"
                )));
            }
        }
        Ok(())
    }
}

/// Length and CRC-32 of a file's bytes.
fn checksum_file(path: &Path) -> std::io::Result<(u64, u32)> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let k = file.read(&mut buf)?;
        if k == 0 {
            return Ok((bytes, hasher.finalize()));
        }
        hasher.update(&buf[..k]);
        bytes += k as u64;
    }
}

/// A writer that counts and checksums what passes through it.
struct Checksummed<W> {
    inner: W,
    hasher: crc32fast::Hasher,
    bytes: u64,
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let k = self.inner.write(buf)?;
        self.hasher.update(&buf[..k]);
        self.bytes += k as u64;
        Ok(k)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Which shard of the tiles a render writes, as `--shard` gives it: `I/N`, or `auto/N` to be
/// told I by the batch system ([`Shard::resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shard {
    /// Shard `i` of `n` (0 ≤ i < n).
    Index(u64, u64),
    /// Shard I of `n`, I from the environment.
    Auto(u64),
}

impl std::str::FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shard> {
        let bad = || {
            Error::bad_input(
                Input::Shard,
                format!("'{s}'"),
                "I/N with 0 ≤ I < N, or auto/N",
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if i.trim() == "auto" {
            return Ok(Shard::Auto(n));
        }
        let i: u64 = i.trim().parse().map_err(|_| bad())?;
        check_shard(i, n)?;
        Ok(Shard::Index(i, n))
    }
}

impl Shard {
    /// `(i, n)`: for `auto/N`, I read by `var` from SLURM_ARRAY_TASK_ID or
    /// JOB_COMPLETION_INDEX (a program passes its environment; a test its own values).
    pub fn resolve(self, var: impl Fn(&str) -> Option<String>) -> Result<(u64, u64)> {
        let n = match self {
            Shard::Index(i, n) => return Ok((i, n)),
            Shard::Auto(n) => n,
        };
        let (name, value) = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"]
            .iter()
            .find_map(|v| var(v).map(|x| (*v, x)))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "shard auto/{n} needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment"
                ))
            })?;
        let i: u64 = value
            .trim()
            .parse()
            .map_err(|_| Error::invalid(format!("{name}='{value}' is not a shard number")))?;
        // The input is named, and the variable it came from: a job array numbered from 1
        // ends here on its last task, and a face may say how to number it.
        check_shard(i, n).map_err(|_| {
            Error::bad_input(
                Input::Shard,
                format!("auto/{n} with {name}={i}"),
                "auto/N with the task's number I from 0 to N-1",
            )
        })?;
        Ok((i, n))
    }
}

fn check_shard(i: u64, n: u64) -> Result<()> {
    if n == 0 || i >= n {
        return Err(Error::invalid(format!(
            "shard {i}/{n}: the shard number must be below the number of shards (0 ≤ I < N)"
        )));
    }
    Ok(())
}

/// What one shard did.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct ShardReport {
    /// Tiles in the whole picture.
    pub tiles_total: u64,
    /// Tiles this shard owns.
    pub tiles_in_shard: u64,
    /// Tiles this run wrote.
    pub tiles_written: u64,
    /// Tiles already complete and verified, left as they were (a resumed shard).
    pub tiles_skipped: u64,
}

/// Render shard `i` of `n` of `pic`'s tiles into `dir`, skipping the tiles that are verified
/// complete ([`TileManifest::check_tile`]) and rendering every other one again.
pub fn render_shard(
    pic: &Picture,
    cells: &CellSource,
    dir: &Path,
    tile_size: u64,
    (i, n): (u64, u64),
    compression: Compression,
) -> Result<ShardReport> {
    let manifest = TileManifest::of(pic, tile_size)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    manifest.claim(dir)?;
    let total = manifest.count();
    let mut report = ShardReport {
        tiles_total: total,
        tiles_in_shard: total.saturating_sub(i).div_ceil(n),
        ..Default::default()
    };
    let phase = crate::progress::phase("tiles", Some(report.tiles_in_shard));
    let step = usize::try_from(n).unwrap_or(usize::MAX);
    for t in (i..total).step_by(step) {
        if manifest.check_tile(dir, t).is_ok() {
            report.tiles_skipped += 1;
        } else {
            render_tile(pic, cells, &manifest, dir, t, compression)?;
            report.tiles_written += 1;
        }
        phase.inc(1);
    }
    Ok(report)
}

/// Write tile t and then its record, each atomically.
fn render_tile(
    pic: &Picture,
    cells: &CellSource,
    manifest: &TileManifest,
    dir: &Path,
    t: u64,
    compression: Compression,
) -> Result<()> {
    let path = manifest.tile_path(dir, t);
    let record_path = manifest.record_path(dir, t);
    // The old record goes first: until the new one is written, the tile is incomplete.
    remove_entry(&record_path)?;
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
        remove_entry(&path)?;
    }
    let (x0, y0, tw, th) = manifest.rect(t);
    let spec = pic.spec_for(tw, th, compression)?;
    let mut file = Checksummed {
        inner: AtomicFile::create(&path)?,
        hasher: crc32fast::Hasher::new(),
        bytes: 0,
    };
    stream_png(&path, &mut file, &spec, |sink| {
        while sink.rows_left() > 0 {
            sink.fill_band(|ty, rows, bytes| {
                pic.fill_rows(
                    cells,
                    PixelRect::new(x0, y0 + ty as u64, tw, rows as u64),
                    bytes,
                )
            })?;
        }
        Ok(())
    })?;
    let Checksummed {
        inner,
        hasher,
        bytes,
    } = file;
    inner.commit()?;
    let record = TileRecord {
        tile: manifest.tile_name(t, "png"),
        bytes,
        crc32: hasher.finalize(),
        manifest_crc32: manifest.id(),
    };
    let mut out = AtomicFile::create(&record_path)?;
    serde_json::to_writer(&mut out, &record).map_err(|e| Error::io(&record_path, e.into()))?;
    out.write_all(b"\n")
        .map_err(|e| Error::io(&record_path, e))?;
    out.commit()
}

/// Remove a file or a directory tree at `path`; nothing there is fine.
fn remove_entry(path: &Path) -> Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Err(_) => return Ok(()),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// Streams a tile directory's picture row by row: the decoders of one row of tiles at a time.
pub struct TileRows {
    dir: PathBuf,
    /// The directory's manifest.
    pub manifest: TileManifest,
    /// Bytes in one packed row of the whole picture.
    pub row_bytes: usize,
    format: crate::render::PixelFormat,
    readers: Vec<png::Reader<BufReader<std::fs::File>>>,
    next_row: u64,
}

impl TileRows {
    /// Open a tile directory whose manifest is consistent and whose every tile is verified
    /// complete, or fail naming the first tile that is not.
    pub fn open(dir: &Path) -> Result<TileRows> {
        let manifest = TileManifest::read(dir)?;
        let pic = manifest.picture()?;
        manifest.check_all(dir)?;
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

    /// Open the decoders of tile row `r`, checking that every tile is the right size and
    /// format.
    fn open_tile_row(&mut self, r: u64) -> Result<()> {
        let m = &self.manifest;
        let spec_format = &self.format;
        self.readers.clear();
        for c in 0..m.tiles_x {
            let t = r * m.tiles_x + c;
            let path = m.tile_path(&self.dir, t);
            let file = std::fs::File::open(&path).map_err(|e| {
                Error::invalid(format!(
                    "tile '{}' is missing ({e}); rerun the shard that renders tile {t} (shard {t} mod N)",
                    path.display()
                ))
            })?;
            let mut dec = png::Decoder::new_with_limits(
                BufReader::new(file),
                png::Limits { bytes: usize::MAX },
            );
            dec.set_transformations(png::Transformations::IDENTITY);
            let reader = dec.read_info().map_err(|e| {
                Error::invalid(format!("cannot read tile '{}': {e}", path.display()))
            })?;
            let (_, _, tw, th) = m.rect(t);
            let info = reader.info();
            let (ct, bd) = match spec_format {
                crate::render::PixelFormat::Gray1 => {
                    (png::ColorType::Grayscale, png::BitDepth::One)
                }
                crate::render::PixelFormat::Gray8 => {
                    (png::ColorType::Grayscale, png::BitDepth::Eight)
                }
                crate::render::PixelFormat::Indexed { bits: 1, .. } => {
                    (png::ColorType::Indexed, png::BitDepth::One)
                }
                _ => (png::ColorType::Indexed, png::BitDepth::Eight),
            };
            if !(info.width as u64 == tw
                && info.height as u64 == th
                && info.color_type == ct
                && info.bit_depth == bd)
            {
                return Err(Error::invalid(format!(
                    "tile '{}' is not a tile of this render ({}×{} {:?} {:?}, expected {tw}×{th} {ct:?} {bd:?})",
                    path.display(),
                    info.width,
                    info.height,
                    info.color_type,
                    info.bit_depth
                )));
            }
            self.readers.push(reader);
        }
        Ok(())
    }

    /// The next row of the picture (raw PNG row bytes) into `out`.
    pub fn next_row(&mut self, out: &mut [u8]) -> Result<()> {
        let ts = self.manifest.tile_size;
        if self.next_row >= self.manifest.height {
            return Err(Error::invalid("read past the last row of the tiles"));
        }
        if self.next_row.is_multiple_of(ts) {
            self.open_tile_row(self.next_row / ts)?;
        }
        let tile_row = self.next_row / ts;
        let mut offset = 0;
        for (c, reader) in self.readers.iter_mut().enumerate() {
            let row = reader
                .next_row()
                .map_err(|e| {
                    Error::invalid(format!("cannot read tile {c} of tile row {tile_row}: {e}"))
                })?
                .ok_or_else(|| {
                    Error::invalid(format!("tile {c} of tile row {tile_row} ended early"))
                })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> TileManifest {
        let pic = Picture::cells(Window::full(150, 230).unwrap(), 2, Colours::default()).unwrap();
        TileManifest::of(&pic, 64).unwrap()
    }

    #[test]
    fn an_auto_shard_reads_its_number_and_says_where_a_wrong_one_came_from() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |v: &str| pairs.iter().find(|p| p.0 == v).map(|p| p.1.to_string())
        };
        let auto: Shard = "auto/4".parse().unwrap();
        assert_eq!(auto, Shard::Auto(4));
        assert_eq!(
            auto.resolve(env(&[("SLURM_ARRAY_TASK_ID", "3")])).unwrap(),
            (3, 4)
        );
        assert_eq!(
            auto.resolve(env(&[("JOB_COMPLETION_INDEX", "0")])).unwrap(),
            (0, 4)
        );
        // Slurm's variable is read first when both are set.
        let both = env(&[("JOB_COMPLETION_INDEX", "1"), ("SLURM_ARRAY_TASK_ID", "2")]);
        assert_eq!(auto.resolve(both).unwrap(), (2, 4));
        // The last task of an array numbered from 1.
        let e = auto
            .resolve(env(&[("SLURM_ARRAY_TASK_ID", "4")]))
            .unwrap_err();
        assert_eq!(e.input(), Some(Input::Shard));
        let e = e.to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID=4") && e.contains("from 0 to N-1"),
            "{e}"
        );
        let e = auto.resolve(env(&[])).unwrap_err().to_string();
        assert!(e.contains("needs SLURM_ARRAY_TASK_ID"), "{e}");
        let e = auto
            .resolve(env(&[("SLURM_ARRAY_TASK_ID", "1.0")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a shard number"), "{e}");
        let zero: Shard = "auto/0".parse().unwrap();
        assert!(zero.resolve(env(&[("SLURM_ARRAY_TASK_ID", "0")])).is_err());
        assert!("2/2".parse::<Shard>().is_err() && "1/2/3".parse::<Shard>().is_err());
        assert_eq!(Shard::Index(1, 2).resolve(env(&[])).unwrap(), (1, 2));
    }

    #[test]
    fn a_manifest_agrees_with_itself() {
        let m = manifest();
        assert_eq!((m.width, m.height, m.tiles_x, m.tiles_y), (460, 300, 8, 5));
        assert!(m.check_shape().is_ok());
        for (tiles_x, tiles_y) in [(0, 0), (7, 5), (8, 6), (u64::MAX, 5), (8, 0)] {
            let bad = TileManifest {
                tiles_x,
                tiles_y,
                ..m.clone()
            };
            assert!(bad.check_shape().is_err(), "{tiles_x}×{tiles_y}");
        }
        let bad = TileManifest {
            tile_size: 60,
            tiles_x: 8,
            tiles_y: 5,
            ..m.clone()
        };
        assert!(bad.check_shape().is_err());
    }

    #[test]
    fn the_id_tells_renders_apart() {
        let m = manifest();
        assert_eq!(m.id(), manifest().id());
        let other = TileManifest {
            colours: Some([[0, 0, 0], [255, 255, 255]]),
            ..m.clone()
        };
        assert_ne!(m.id(), other.id());
    }

    #[test]
    fn checksummed_writes_count_every_byte() {
        let mut w = Checksummed {
            inner: Vec::new(),
            hasher: crc32fast::Hasher::new(),
            bytes: 0,
        };
        w.write_all(b"chocolate ").unwrap();
        w.write_all(b"bar").unwrap();
        assert_eq!(w.bytes, 13);
        assert_eq!(w.hasher.finalize(), crc32fast::hash(b"chocolate bar"));
        assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926);
    }
}
