//! A render, planned: [`Plan::new`] makes every check a picture needs before anything is
//! drawn or created — the sizes, the output's format by its extension, the target, the tiles,
//! the Deep Zoom limits and the memory each output will hold — and [`Plan::run`] does the
//! work, reporting its progress to the thread's [`crate::progress::Observer`]. The binary's
//! `render`, the Python module's `render` and any other face translate their arguments into
//! a [`Request`] and call these two and nothing else, so each refuses what the others refuse,
//! in the same words (a face names the inputs its own way, [`crate::Error::worded`]).
//!
//! ```
//! use chompute::chocolate::Window;
//! use chompute::gpu::Engine;
//! use chompute::render::plan::{Plan, Request};
//! use chompute::render::picture::source::CellSource;
//!
//! let dir = std::env::temp_dir().join(format!("chompute-plan-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let mut request = Request::new(Window::full(11, 11)?);
//! request.scale = Some(4);
//! request.output = Some(dir.join("r11.png"));
//! let plan = Plan::new(request)?;
//! assert_eq!((plan.picture.width, plan.picture.height), (44, 44));
//! plan.run(&CellSource::new(Engine::Cpu, true))?;
//! assert!(dir.join("r11.png").exists());
//!
//! // Refused before anything is made: a format chompute does not write.
//! let mut request = Request::new(Window::full(11, 11)?);
//! request.output = Some(dir.join("r11.xyz"));
//! assert!(Plan::new(request).is_err());
//! assert!(!dir.join("r11.xyz").exists());
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Tests: tests/pictures/ (every output a plan makes), tests/faults/targets.rs and
//! tests/faults/interrupts.rs.

use crate::chocolate::grid::Window;
use crate::memory::Room;
use crate::render::encode::output::{check_output, stream_image};
use crate::render::encode::png::{Compression, PngSpec};
use crate::render::picture::shade::Shade;
use crate::render::picture::source::CellSource;
use crate::render::picture::{check_tile_size, Colours, Picture, Scale};
use crate::render::pyramid::dzi::{write_dzi, DziReport};
use crate::render::pyramid::tiles::{render_shard, ShardReport, TileManifest};
use crate::{Error, Input, Result};
use std::path::PathBuf;

/// Tile side of a Deep Zoom pyramid when none is asked for.
pub const DZI_TILE: u64 = 256;
/// Tile side of tile shards when none is asked for.
pub const SHARD_TILE: u64 = 4096;

/// What a face asks to render, its arguments already typed. [`Request::new`] gives the
/// defaults: the window at one pixel a cell, black on white, balanced compression, nothing
/// written yet.
#[derive(Debug, Clone)]
pub struct Request {
    /// The cells drawn.
    pub window: Window,
    /// Pixels per cell (with `fit` unset; one when neither is set).
    pub scale: Option<u64>,
    /// The longer side of a fitted picture, in pixels.
    pub fit: Option<u64>,
    /// How a fitted picture is shaded (only with `fit`).
    pub shade: Option<Shade>,
    /// Two colours, or black on white.
    pub colours: Colours,
    /// Deflate effort.
    pub compression: Compression,
    /// The picture file; its extension picks the format.
    pub output: Option<PathBuf>,
    /// A Deep Zoom pyramid's directory.
    pub dzi: Option<PathBuf>,
    /// A tile directory for shards.
    pub tiles: Option<PathBuf>,
    /// Shard `i` of `n` of the tiles (only with `tiles`).
    pub shard: Option<(u64, u64)>,
    /// Tile side (default [`DZI_TILE`] for a pyramid, [`SHARD_TILE`] for tiles).
    pub tile_size: Option<u64>,
    /// What the face says made the picture (the command line), put before the picture's own
    /// description in every PNG's Description.
    pub made_by: Option<String>,
    /// The memory the outputs may hold.
    pub room: Room,
}

impl Request {
    /// Render `window` at one pixel a cell, with nothing to write yet.
    pub fn new(window: Window) -> Request {
        Request {
            window,
            scale: None,
            fit: None,
            shade: None,
            colours: None,
            compression: Compression::Balanced,
            output: None,
            dzi: None,
            tiles: None,
            shard: None,
            tile_size: None,
            made_by: None,
            room: Room::SYSTEM,
        }
    }
}

/// A render that has passed every check ([`Plan::new`]); [`Plan::run`] draws it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The picture, its PNGs described.
    pub picture: Picture,
    /// The picture file and its PNG spec.
    pub output: Option<(PathBuf, PngSpec)>,
    /// The pyramid's directory and tile side.
    pub dzi: Option<(PathBuf, u64)>,
    /// The tile directory, the tile side and the shard.
    pub tiles: Option<(PathBuf, u64, (u64, u64))>,
    compression: Compression,
}

/// What [`Plan::run`] wrote.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Bytes of the picture file.
    pub output_bytes: Option<u64>,
    /// The pyramid written.
    pub dzi: Option<DziReport>,
    /// What the shard did.
    pub shard: Option<ShardReport>,
    /// A fitted picture file whose pixels all came out alike: their one value (the shade
    /// level for an indexed picture, the gray for a gray one).
    pub one_value: Option<u8>,
}

impl Plan {
    /// Check everything the render needs, in the order a user would fix it, before anything
    /// is drawn or created: the scale, the shade, that there is something to write, the
    /// output's target, format and size, the Deep Zoom and tile limits, and the memory of
    /// every output.
    pub fn new(r: Request) -> Result<Plan> {
        let mut pic = match (r.scale, r.fit) {
            (Some(_), Some(_)) => {
                return Err(Error::conflict(
                    &[Input::CellSize, Input::Fit],
                    "{0} and {1} cannot be used together",
                ))
            }
            (Some(k), None) => Picture::cells(r.window, k, r.colours)?,
            (None, Some(pixels)) => Picture::fit(r.window, pixels, r.colours)?,
            (None, None) => Picture::cells(r.window, 1, r.colours)?,
        };
        if let Some(shade) = r.shade {
            if !matches!(pic.scale, Scale::Fit(_)) {
                return Err(Error::conflict(
                    &[Input::Shade, Input::Fit],
                    format!("{{0}} {} shades fitted pictures; add {{1}}", shade.name()),
                ));
            }
            pic = pic.with_shade(shade);
        }
        if r.output.is_none() && r.dzi.is_none() && r.tiles.is_none() {
            return Err(Error::conflict(
                &[Input::Output, Input::Dzi, Input::Tiles],
                "nothing to write: give {0}, {1} or {2}",
            ));
        }
        if let Some(path) = &r.output {
            crate::output::check_target(path)?;
        }
        if r.dzi.is_some() && pic.scale != Scale::Cells(1) {
            return Err(Error::conflict(
                &[Input::Dzi, Input::CellSize, Input::Fit],
                "{0} draws every cell and zooms out by itself; drop {1} and {2}",
            ));
        }
        let shard = match (r.shard, &r.tiles) {
            (Some(s), Some(_)) => s,
            (Some(_), None) => {
                return Err(Error::conflict(
                    &[Input::Shard, Input::Tiles],
                    "{0} needs {1} (the directory the shards share)",
                ))
            }
            (None, _) => (0, 1),
        };
        let description = match &r.made_by {
            Some(by) => format!("{by}: {}", describe(&pic)),
            None => describe(&pic),
        };
        pic = pic.with_description(description);
        let output = match &r.output {
            Some(path) => {
                let spec = pic.spec(r.compression)?;
                check_output(path, pic.width, pic.height)?;
                crate::render::encode::ensure_memory(
                    &spec,
                    &format!("'{}'", path.display()),
                    r.room,
                )?;
                Some((path.clone(), spec))
            }
            None => None,
        };
        let dzi_tile = check_tile_size(r.tile_size.unwrap_or(DZI_TILE))?;
        let shard_tile = check_tile_size(r.tile_size.unwrap_or(SHARD_TILE))?;
        let tiles = match &r.tiles {
            Some(dir) => {
                crate::output::check_dir_target(dir, true)?;
                let manifest = TileManifest::within(&pic, shard_tile, r.room)?;
                if let Some(path) = &r.output {
                    manifest.check_apart(dir, path)?;
                }
                Some((dir.clone(), shard_tile, shard))
            }
            None => None,
        };
        let dzi = match &r.dzi {
            Some(dir) => {
                crate::render::pyramid::dzi::check_target(dir)?;
                pic.spec_for(
                    dzi_tile.min(pic.width),
                    dzi_tile.min(pic.height),
                    r.compression,
                )?;
                if pic.width > i32::MAX as u64 || pic.height > i32::MAX as u64 {
                    return Err(Error::conflict(
                        &[Input::Window],
                        "a Deep Zoom image is at most 2^31-1 pixels a side; use {0}",
                    ));
                }
                crate::render::pyramid::dzi::ensure_memory(
                    pic.width, pic.height, dzi_tile, r.room,
                )?;
                Some((dir.clone(), dzi_tile))
            }
            None => None,
        };
        Ok(Plan {
            picture: pic,
            output,
            dzi,
            tiles,
            compression: r.compression,
        })
    }

    /// Draw the planned outputs from `cells`: the picture file, then the pyramid, then the
    /// shard of tiles, each reported as a phase to the thread's observer.
    pub fn run(&self, cells: &CellSource) -> Result<Report> {
        let pic = &self.picture;
        let mut report = Report::default();
        if let Some((path, spec)) = &self.output {
            let phase = crate::progress::phase("rows", Some(pic.height));
            // A fitted picture has one byte a pixel: watch whether they all come out alike.
            let mut alike = Alike::new(matches!(pic.scale, Scale::Fit(_)));
            report.output_bytes = Some(stream_image(path, spec, |sink| {
                while sink.rows_left() > 0 {
                    let before = sink.rows_left();
                    sink.fill_band(|y0, rows, bytes| {
                        crate::cancel::check()?;
                        pic.fill_rows(cells, pic.band(y0 as u64, rows as u64), bytes)?;
                        alike.see(bytes);
                        Ok(())
                    })?;
                    phase.inc((before - sink.rows_left()) as u64);
                }
                Ok(())
            })?);
            report.one_value = alike.value();
        }
        if let Some((dir, tile)) = &self.dzi {
            let window = pic.window;
            report.dzi = Some(write_dzi(
                dir,
                &window,
                *tile,
                pic.colours,
                self.compression,
                pic.description.as_deref(),
                |y0, rows, words| {
                    crate::cancel::check()?;
                    cells.rows(&window.rows(y0, rows), words)
                },
            )?);
        }
        if let Some((dir, tile, shard)) = &self.tiles {
            report.shard = Some(render_shard(
                pic,
                cells,
                dir,
                *tile,
                *shard,
                self.compression,
            )?);
        }
        Ok(report)
    }
}

/// Whether every byte seen so far is one value (for pictures of one byte a pixel).
struct Alike {
    watching: bool,
    value: Option<u8>,
}

impl Alike {
    fn new(watching: bool) -> Alike {
        Alike {
            watching,
            value: None,
        }
    }

    fn see(&mut self, bytes: &[u8]) {
        if !self.watching || bytes.is_empty() {
            return;
        }
        let v = *self.value.get_or_insert(bytes[0]);
        if bytes.iter().any(|&b| b != v) {
            self.watching = false;
        }
    }

    fn value(&self) -> Option<u8> {
        self.value.filter(|_| self.watching)
    }
}

/// Why a picture comes out in one colour, decided before it is drawn from the exact P-count
/// of its window (docs/mathematics.md §1b): the P and N colours are the same, every cell is
/// P (for a whole bar exactly when m = n = 2^k, Thm 3.3), or no cell is (for a whole bar
/// always when m and n differ in parity). `None` when the window holds both kinds of cell; a
/// fitted picture may still shade every block alike, which [`Report::one_value`] says.
pub fn one_colour(pic: &Picture) -> Option<String> {
    if let Some([p, n]) = pic.colours {
        if p == n {
            return Some("the P and N colours are the same".into());
        }
    }
    let w = &pic.window;
    let count = crate::chocolate::window::p_count(w);
    let area = w.height as u128 * w.width as u128;
    let whole = w.height == w.m && w.width == w.n;
    let bar = bar_text(pic);
    if count == area {
        let why = if whole {
            format!(": m = n = 2^{}", w.m.trailing_zeros())
        } else {
            String::new()
        };
        return Some(format!("every cell of {bar} is a P-position{why}"));
    }
    if count == 0 {
        let why = if whole && (w.m ^ w.n) & 1 == 1 {
            ": m and n differ in parity"
        } else {
            ""
        };
        return Some(format!("no cell of {bar} is a P-position{why}"));
    }
    None
}

/// The bar and the window a picture shows: `C(30001,30001)`, or `C(100,100), window
/// 1,1,5,5`.
pub fn bar_text(pic: &Picture) -> String {
    let w = &pic.window;
    if w.height == w.m && w.width == w.n {
        format!("C({},{})", w.m, w.n)
    } else {
        format!(
            "C({},{}), window {},{},{},{}",
            w.m, w.n, w.row0, w.col0, w.height, w.width
        )
    }
}

/// What a picture shows, for its PNG Description: the bar, the window, the scale and the
/// colours.
pub fn describe(pic: &Picture) -> String {
    let scale = match pic.scale {
        Scale::Cells(k) => format!("{k} pixel{} per cell", if k == 1 { "" } else { "s" }),
        Scale::Fit(b) => format!("each pixel a {b}×{b} block shaded by its P-fraction"),
    };
    let colours = match pic.colours {
        Some([p, n]) => format!(
            "P-cells #{:02x}{:02x}{:02x} on N-cells #{:02x}{:02x}{:02x}",
            p[0], p[1], p[2], n[0], n[1], n[2]
        ),
        None => "P-cells black on white".into(),
    };
    format!("{}, {scale}, {colours}", bar_text(pic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::p_cell;

    /// Whether the cells of `w` are all P or all N, cell by cell.
    fn all_alike(w: &Window) -> bool {
        let first = p_cell(w.m, w.n, w.row0, w.col0);
        (w.row0..w.row0 + w.height)
            .all(|i| (w.col0..w.col0 + w.width).all(|j| p_cell(w.m, w.n, i, j) == first))
    }

    #[test]
    fn one_colour_is_decided_by_the_count() {
        let said = |w: Window| one_colour(&Picture::cells(w, 1, None).unwrap());
        for m in 1..=40 {
            for n in 1..=40 {
                let w = Window::full(m, n).unwrap();
                let why = said(w);
                assert_eq!(why.is_some(), all_alike(&w), "C({m},{n})");
                // Every cell P exactly for m = n = 2^k, and the reason says so.
                let all_p = m == n && m.is_power_of_two();
                assert_eq!(
                    why.as_deref().is_some_and(|y| y.starts_with("every cell")),
                    all_p,
                    "C({m},{n}): {why:?}"
                );
            }
        }
        let w = Window::full(4096, 4096).unwrap();
        assert_eq!(
            said(w).unwrap(),
            "every cell of C(4096,4096) is a P-position: m = n = 2^12"
        );
        assert_eq!(said(Window::full(4097, 4097).unwrap()), None);
        // Windows of bars that are not special, every one.
        for (m, n) in [(12, 12), (13, 17), (16, 16), (9, 14)] {
            for r0 in 1..=m {
                for c0 in 1..=n {
                    for h in 1..=m - r0 + 1 {
                        for wd in 1..=n - c0 + 1 {
                            let w = Window::new(m, n, r0, c0, h, wd).unwrap();
                            assert_eq!(said(w).is_some(), all_alike(&w), "{w:?}");
                        }
                    }
                }
            }
        }
        // The same two colours say nothing of the cells.
        let same = Picture::cells(Window::full(11, 11).unwrap(), 1, Some([[1, 2, 3]; 2])).unwrap();
        assert_eq!(
            one_colour(&same).unwrap(),
            "the P and N colours are the same"
        );
    }
}
