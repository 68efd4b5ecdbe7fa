//! `chompute render` and `chompute assemble` through the built binary: every picture is
//! decoded and compared pixel by pixel with the P-test (cell by cell) or with block counts
//! made cell by cell.

use crate::common;

use chompute::chocolate::p_cell;
use chompute::render::picture::source::RowSource;
use common::{assert_usage_error, chompute, gpu_or_skip, scratch_dir, stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};

/// A decoded PNG: one value per pixel (gray level or palette index), rows top first.
struct Decoded {
    width: usize,
    height: usize,
    color: png::ColorType,
    depth: png::BitDepth,
    palette: Option<Vec<u8>>,
    pixels: Vec<Vec<u8>>,
}

fn decode(path: &Path) -> Decoded {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut reader = dec.read_info().expect("a PNG");
    let info = reader.info().clone();
    let (width, height) = (info.width as usize, info.height as usize);
    let bits = info.bit_depth as usize;
    let mut pixels = Vec::with_capacity(height);
    while let Some(row) = reader.next_row().expect("decodable rows") {
        let data = row.data();
        pixels.push(
            (0..width)
                .map(|x| match bits {
                    1 => data[x / 8] >> (7 - x % 8) & 1,
                    8 => data[x],
                    b => panic!("unexpected bit depth {b}"),
                })
                .collect(),
        );
    }
    assert_eq!(pixels.len(), height);
    Decoded {
        width,
        height,
        color: info.color_type,
        depth: info.bit_depth,
        palette: info.palette.map(|p| p.to_vec()),
        pixels,
    }
}

fn ok(o: &Output) {
    assert!(o.status.success(), "chompute failed: {}", stderr(o));
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Backends to run: the CPU always, the GPU (lavapipe in CI) when there is one.
fn backends(test: &str) -> Vec<&'static str> {
    let mut v = vec!["cpu"];
    if gpu_or_skip(test).is_some() {
        v.push("gpu");
    }
    v
}

/// The 1-bit black-on-white picture of cells rows r0.., cols c0.. of C(m,n) is the P-test.
/// `chompute --backend B render ARGS -o OUT --verify`, which must succeed, decoded.
fn render_verified(backend: &str, args: &[&str], out: &Path) -> Decoded {
    let mut all = vec!["--backend", backend, "render"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", path_str(out), "--verify"]);
    ok(&chompute(&all));
    decode(out)
}

fn assert_cells(d: &Decoded, m: u64, n: u64, r0: u64, c0: u64) {
    assert_eq!(
        (d.color, d.depth),
        (png::ColorType::Grayscale, png::BitDepth::One)
    );
    for (y, row) in d.pixels.iter().enumerate() {
        for (x, &v) in row.iter().enumerate() {
            let p = p_cell(m, n, r0 + y as u64, c0 + x as u64);
            assert_eq!(
                v == 0,
                p,
                "cell ({}, {}) of C({m},{n}): pixel {v}",
                r0 + y as u64,
                c0 + x as u64
            );
        }
    }
}

#[test]
fn whole_bars_are_the_p_test() {
    let dir = scratch_dir("render-whole");
    for backend in backends("whole_bars_are_the_p_test") {
        for (m, n) in [(37u64, 100u64), (100, 37), (11, 11), (129, 65)] {
            let out = dir.join(format!("{backend}-{m}x{n}.png"));
            let d = render_verified(backend, &[&m.to_string(), &n.to_string()], &out);
            assert_eq!((d.width, d.height), (n as usize, m as usize));
            assert_cells(&d, m, n, 1, 1);
        }
    }
    // Every compression level decodes to the same picture.
    for level in ["fast", "balanced", "best"] {
        let out = dir.join(format!("{level}.png"));
        ok(&chompute(&[
            "--backend",
            "cpu",
            "render",
            "300",
            "-o",
            path_str(&out),
            "--compression",
            level,
        ]));
        assert_cells(&decode(&out), 300, 300, 1, 1);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn windows_deep_inside_a_huge_bar() {
    let dir = scratch_dir("render-window");
    let m: u64 = 1_000_000_000_039;
    for backend in backends("windows_deep_inside_a_huge_bar") {
        for (r0, c0, h, w) in [
            (400_000_000_000u64, 399_999_999_990u64, 40u64, 77u64),
            (1, m - 70, 33, 71),
            (m - 5, 1, 6, 300),
        ] {
            let out = dir.join(format!("{backend}-{r0}-{c0}.png"));
            let window = format!("{r0},{c0},{h},{w}");
            let d = render_verified(backend, &[&m.to_string(), "--window", &window], &out);
            assert_eq!((d.width, d.height), (w as usize, h as usize));
            assert_cells(&d, m, m, r0, c0);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cells_are_k_by_k_pixels_in_two_colours() {
    let dir = scratch_dir("render-cell");
    let out = dir.join("r11.png");
    ok(&chompute(&[
        "render",
        "11",
        "--scale",
        "3",
        "--colors",
        "#5b2a86,#f4efe6",
        "-o",
        path_str(&out),
    ]));
    let d = decode(&out);
    assert_eq!(
        (d.width, d.height, d.color, d.depth),
        (33, 33, png::ColorType::Indexed, png::BitDepth::One)
    );
    assert_eq!(
        d.palette.as_deref(),
        Some(&[0xf4, 0xef, 0xe6, 0x5b, 0x2a, 0x86][..]),
        "entry 0 = N colour, 1 = P colour"
    );
    for (y, row) in d.pixels.iter().enumerate() {
        for (x, &v) in row.iter().enumerate() {
            assert_eq!(
                v == 1,
                p_cell(11, 11, y as u64 / 3 + 1, x as u64 / 3 + 1),
                "pixel ({x},{y})"
            );
        }
    }
    // A window at 5 pixels a cell, black on white.
    let out = dir.join("w.png");
    ok(&chompute(&[
        "render",
        "1000",
        "999",
        "--window",
        "500,123,7,13",
        "--cell",
        "5",
        "-o",
        path_str(&out),
    ]));
    let d = decode(&out);
    assert_eq!((d.width, d.height), (65, 35));
    for (y, row) in d.pixels.iter().enumerate() {
        for (x, &v) in row.iter().enumerate() {
            assert_eq!(
                v == 0,
                p_cell(1000, 999, 500 + y as u64 / 5, 123 + x as u64 / 5)
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// round(255·count/cells), halves up, by integers.
fn level(count: u64, cells: u64) -> u8 {
    ((510 * count + cells) / (2 * cells)) as u8
}

/// P-count of the cells rows r0..r0+h, cols c0..c0+w of C(m,n), one by one.
fn brute_count(m: u64, n: u64, r0: u64, c0: u64, h: u64, w: u64) -> u64 {
    (r0..r0 + h)
        .flat_map(|i| (c0..c0 + w).map(move |j| p_cell(m, n, i, j) as u64))
        .sum()
}

#[test]
fn fitted_pictures_shade_exact_block_fractions() {
    let dir = scratch_dir("render-fit");
    for backend in backends("fitted_pictures_shade_exact_block_fractions") {
        // 300×200 into 37 pixels: blocks of ⌈300/37⌉ = 9 cells, the last row and column of
        // blocks cut short (300 = 33·9 + 3, 200 = 22·9 + 2).
        for (m, n, window, fit, colours) in [
            (300u64, 200u64, None, 37u64, None),
            (
                5000,
                7000,
                Some((1234u64, 2345u64, 130u64, 170u64)),
                16,
                Some("#ff0000,#0000ff"),
            ),
        ] {
            let out = dir.join(format!("{backend}-{m}.png"));
            let mut args = vec![
                "--backend".to_string(),
                backend.into(),
                "render".into(),
                m.to_string(),
                n.to_string(),
            ];
            args.extend([
                "-o".into(),
                path_str(&out).into(),
                "--fit".into(),
                fit.to_string(),
                "--verify".into(),
            ]);
            if let Some((r, c, h, w)) = window {
                args.extend(["--window".into(), format!("{r},{c},{h},{w}")]);
            }
            if let Some(c) = colours {
                args.extend(["--colors".into(), c.into()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&chompute(&args));
            let (r0, c0, h, w) = window.unwrap_or((1, 1, m, n));
            let b = h.max(w).div_ceil(fit);
            let d = decode(&out);
            assert_eq!(
                (d.width as u64, d.height as u64),
                (w.div_ceil(b), h.div_ceil(b))
            );
            assert_eq!(d.depth, png::BitDepth::Eight);
            for (y, row) in d.pixels.iter().enumerate() {
                for (x, &v) in row.iter().enumerate() {
                    let (by, bx) = (y as u64 * b, x as u64 * b);
                    let (bh, bw) = (b.min(h - by), b.min(w - bx));
                    let l = level(brute_count(m, n, r0 + by, c0 + bx, bh, bw), bh * bw);
                    let expect = if colours.is_some() { l } else { 255 - l };
                    assert_eq!(v, expect, "{backend} block ({x},{y}) of {m}×{n}");
                }
            }
            if colours.is_some() {
                let pal = d.palette.unwrap();
                assert_eq!(pal.len(), 256 * 3);
                assert_eq!(&pal[..3], &[0, 0, 255], "level 0 is the N colour");
                assert_eq!(&pal[255 * 3..], &[255, 0, 0], "level 255 is the P colour");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    common::quiet_mesa();
    let mut c = Command::new(crate::common::bin());
    c.args(args)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run chompute")
}

#[test]
fn four_shards_and_assemble_equal_one_render() {
    let dir = scratch_dir("render-shards");
    let tiles = dir.join("tiles");
    let t = path_str(&tiles);
    // 150×230 cells at 2 pixels a cell: 300×460 pixels, 5×8 tiles of 64 (the last ones cut).
    let common_args = [
        "render",
        "150",
        "230",
        "--cell",
        "2",
        "--tile-size",
        "64",
        "--tiles",
        t,
    ];
    for i in 0..4 {
        let shard = if i == 1 {
            "auto/4".to_string()
        } else {
            format!("{i}/4")
        };
        let mut args = common_args.to_vec();
        args.extend(["--shard", &shard, "--json"]);
        // Shard 1 takes its number from the scheduler's variable, as an array job would.
        let env: &[(&str, &str)] = match i {
            1 => &[("SLURM_ARRAY_TASK_ID", "1")],
            _ => &[],
        };
        let o = run_env(&args, env);
        ok(&o);
        let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(
            j["tiles_written"], 10,
            "shard {i} renders every 4th of the 40 tiles"
        );
    }
    // JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is read too; every tile is done, so the
    // rerun skips them all.
    let mut args = common_args.to_vec();
    args.extend(["--shard", "auto/4", "--json"]);
    let o = run_env(&args, &[("JOB_COMPLETION_INDEX", "3")]);
    ok(&o);
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (j["tiles_written"].as_u64(), j["tiles_skipped"].as_u64()),
        (Some(0), Some(10))
    );
    // A removed tile is rendered again by its shard (tile 13 = row 1, column 5: shard 1).
    std::fs::remove_file(tiles.join("tile-1-5.png")).unwrap();
    let mut args = common_args.to_vec();
    args.extend(["--shard", "1/4", "--json"]);
    let o = run_env(&args, &[]);
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (j["tiles_written"].as_u64(), j["tiles_skipped"].as_u64()),
        (Some(1), Some(9))
    );

    let joined = dir.join("joined.png");
    ok(&chompute(&["assemble", t, "-o", path_str(&joined)]));
    let single = dir.join("single.png");
    ok(&chompute(&[
        "render",
        "150",
        "230",
        "--cell",
        "2",
        "-o",
        path_str(&single),
    ]));
    let (a, b) = (decode(&joined), decode(&single));
    assert_eq!((a.width, a.height), (460, 300));
    assert_eq!(a.pixels, b.pixels);
    for (y, row) in a.pixels.iter().enumerate() {
        for (x, &v) in row.iter().enumerate() {
            assert_eq!(v == 0, p_cell(150, 230, y as u64 / 2 + 1, x as u64 / 2 + 1));
        }
    }

    // A shard of a different render into the same directory is refused.
    let o = chompute(&[
        "render",
        "151",
        "230",
        "--cell",
        "2",
        "--tile-size",
        "64",
        "--tiles",
        t,
        "--shard",
        "0/4",
    ]);
    assert_usage_error(&o, "different render");
    // A missing tile stops assemble with no output.
    std::fs::remove_file(tiles.join("tile-4-7.png")).unwrap();
    let bad = dir.join("bad.png");
    let o = chompute(&["assemble", t, "-o", path_str(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("tile-4-7.png"), "{}", stderr(&o));
    assert!(!bad.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Read level `level` of a pyramid back into one picture.
fn read_level(files: &Path, level: u32, width: u64, height: u64, tile: u64) -> Vec<Vec<u8>> {
    let mut px = vec![vec![0u8; width as usize]; height as usize];
    for ty in 0..height.div_ceil(tile) {
        for tx in 0..width.div_ceil(tile) {
            let d = decode(&files.join(level.to_string()).join(format!("{tx}_{ty}.png")));
            assert_eq!(d.width as u64, tile.min(width - tx * tile));
            assert_eq!(d.height as u64, tile.min(height - ty * tile));
            for (y, row) in d.pixels.iter().enumerate() {
                for (x, &v) in row.iter().enumerate() {
                    px[(ty * tile) as usize + y][(tx * tile) as usize + x] = v;
                }
            }
        }
    }
    px
}

#[test]
fn deep_zoom_levels_are_exact_block_counts() {
    let dir = scratch_dir("render-dzi");
    let (m, n, tile) = (300u64, 200u64, 64u64);
    let zoom = dir.join("zoom");
    let o = chompute(&[
        "render",
        &m.to_string(),
        &n.to_string(),
        "--dzi",
        path_str(&zoom),
        "--tile-size",
        "64",
    ]);
    ok(&o);
    let xml = std::fs::read_to_string(zoom.join("zoom.dzi")).unwrap();
    assert!(
        xml.contains("TileSize=\"64\"") && xml.contains("Width=\"200\" Height=\"300\""),
        "{xml}"
    );
    let files = zoom.join("zoom_files");
    // ⌈log₂ 300⌉ = 9: levels 0 (1×1) to 9 (the picture).
    assert_eq!(files_in(&files).len(), 10);
    for level in 0..=9u32 {
        let k = 9 - level;
        let side = 1u64 << k;
        let (w, h) = (n.div_ceil(side), m.div_ceil(side));
        let px = read_level(&files, level, w, h, tile);
        for (y, row) in px.iter().enumerate() {
            for (x, &v) in row.iter().enumerate() {
                let (r0, c0) = (y as u64 * side, x as u64 * side);
                let (bh, bw) = (side.min(m - r0), side.min(n - c0));
                let count = brute_count(m, n, r0 + 1, c0 + 1, bh, bw);
                let expect = if k == 0 {
                    u8::from(count == 0)
                } else {
                    255 - level_of(count, bh * bw)
                };
                assert_eq!(v, expect, "level {level} pixel ({x},{y})");
            }
        }
    }
    // The same pyramid from shard tiles: the same pixels in every tile (the files differ only
    // in their Description, the command that made them).
    let tiles = dir.join("tiles");
    ok(&chompute(&[
        "render",
        "300",
        "200",
        "--tiles",
        path_str(&tiles),
        "--tile-size",
        "96",
    ]));
    let again = dir.join("again");
    ok(&chompute(&[
        "assemble",
        path_str(&tiles),
        "--dzi",
        path_str(&again),
        "--tile-size",
        "64",
    ]));
    for level in 0..=9 {
        for f in files_in(&files.join(level.to_string())) {
            let a = png_pixels(&files.join(level.to_string()).join(&f));
            let b = png_pixels(&again.join("again_files").join(level.to_string()).join(&f));
            assert!(a == b, "level {level} tile {f} differs");
        }
    }
    // A tile larger than the picture is one tile a level, each the picture's size: the memory
    // it needs is the picture's, not a 2^20-pixel tile's (once refused as 4096 GiB).
    let big = dir.join("big");
    ok(&chompute(&[
        "render",
        "300",
        "200",
        "--dzi",
        path_str(&big),
        "--tile-size",
        "1048576",
    ]));
    let xml = std::fs::read_to_string(big.join("big.dzi")).unwrap();
    assert!(xml.contains("TileSize=\"1048576\""), "{xml}");
    for level in 0..=9 {
        let tiles = files_in(&big.join("big_files").join(level.to_string()));
        assert_eq!(tiles, ["0_0.png"], "level {level}");
        let side = 1u64 << (9 - level);
        let (w, h) = (n.div_ceil(side), m.div_ceil(side));
        let px = read_level(&big.join("big_files"), level, w, h, 1 << 20);
        assert_eq!(px, read_level(&files, level, w, h, tile), "level {level}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A PNG's size, colour type, palette and raw rows, for comparing pictures by their pixels.
fn png_pixels(path: &Path) -> (u32, u32, png::ColorType, Option<Vec<u8>>, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let palette = reader.info().palette.as_ref().map(|p| p.to_vec());
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    (info.width, info.height, info.color_type, palette, buf)
}

fn level_of(count: u64, cells: u64) -> u8 {
    level(count, cells)
}

#[test]
fn failures_leave_no_file() {
    let dir = scratch_dir("render-fail");
    let d = path_str(&dir);
    let target = dir.join("x.png");
    let x = path_str(&target);
    for (args, msg) in [
        (
            vec!["render", "100", "--window", "0,1,5,5", "-o", x],
            "--window",
        ),
        (
            vec!["render", "100", "--window", "90,1,20,5", "-o", x],
            "outside",
        ),
        (vec!["render", "100", "--scale", "0", "-o", x], "--scale"),
        (
            vec!["render", "100", "--scale", "2", "--fit", "9", "-o", x],
            "cannot be used with",
        ),
        (
            vec!["render", "100", "--colors", "#12345", "-o", x],
            "colour",
        ),
        (
            vec!["render", "100", "--tiles", d, "--shard", "4/4"],
            "shard",
        ),
        (
            vec!["render", "100", "--tiles", d, "--tile-size", "12"],
            "multiple of 8",
        ),
        (vec!["render", "100", "--dzi", d, "--cell", "2"], "--dzi"),
        (vec!["render", "100"], "nothing to write"),
        (
            vec!["render", "100000", "--cell", "100000", "-o", x],
            "larger",
        ),
    ] {
        let o = chompute(&args);
        assert_usage_error(&o, msg);
        assert!(
            files_in(&dir).is_empty(),
            "{args:?} left {:?}",
            files_in(&dir)
        );
    }
    let o = run_env(&["render", "100", "--tiles", d, "--shard", "auto/4"], &[]);
    assert_usage_error(&o, "SLURM_ARRAY_TASK_ID");
    // The last task of an array numbered from 1: the variable named, and the array to use.
    let o = run_env(
        &["render", "100", "--tiles", d, "--shard", "auto/4"],
        &[("SLURM_ARRAY_TASK_ID", "4")],
    );
    assert_usage_error(&o, "SLURM_ARRAY_TASK_ID=4");
    assert_usage_error(&o, "`sbatch --array=0-3`");
    // Unwritable targets: a directory that does not exist, a "directory" that is a file.
    std::fs::write(dir.join("file"), b"not a directory").unwrap();
    for target in [dir.join("no/such/dir/x.png"), dir.join("file/x.png")] {
        let o = chompute(&["render", "100", "-o", path_str(&target)]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(
            stderr(&o).trim_end().lines().count(),
            1,
            "one line: {}",
            stderr(&o)
        );
        assert!(!target.exists());
    }
    assert_eq!(files_in(&dir), vec!["file".to_string()]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A generator that is wrong on purpose: the engine's rows with the first cell of every
/// window flipped.
struct Corrupted(chompute::render::picture::source::EngineRows);

impl RowSource for Corrupted {
    fn p_rows(&self, w: &chompute::chocolate::Window, out: &mut [u32]) -> chompute::Result<()> {
        self.0.p_rows(w, out)?;
        out[0] ^= 0x8000_0000;
        Ok(())
    }
    fn name(&self) -> &str {
        "corrupted generator"
    }
    fn on_gpu(&self) -> bool {
        self.0.on_gpu()
    }
}

#[test]
fn verify_catches_a_corrupted_tile() {
    use chompute::chocolate::Window;
    use chompute::gpu::Engine;
    use chompute::render::picture::source::{CellSource, EngineRows};
    use chompute::render::picture::Picture;
    use chompute::render::{write_png, Compression};
    let dir = scratch_dir("render-verify");
    let mut engines = vec![Engine::Cpu];
    if let Some(ctx) = gpu_or_skip("verify_catches_a_corrupted_tile") {
        engines.push(Engine::Gpu(ctx));
    }
    // One 64×40 tile of C(200,150), away from the bar's corner.
    let tile = Window::new(200, 150, 65, 33, 64, 40).unwrap();
    let pic = Picture::cells(tile, 1, None).unwrap();
    let spec = pic.spec(Compression::Fast).unwrap();
    let draw = |cells: &CellSource, path: &Path| {
        write_png(path, &spec, |y, row| {
            pic.fill_rows(cells, pic.band(y as u64, 1), row)
        })
    };
    for engine in engines {
        let name = engine.name();
        let out = dir.join("tile.png");
        // The right generator passes verification; the tile is the P-test's.
        let right = CellSource::with_source(Box::new(EngineRows::new(&engine)), true);
        draw(&right, &out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_cells(&decode(&out), 200, 150, 65, 33);
        std::fs::remove_file(&out).unwrap();
        // The wrong one is caught, as a check failure naming the cell, and leaves no file.
        let wrong = CellSource::with_source(Box::new(Corrupted(EngineRows::new(&engine))), true);
        match draw(&wrong, &out) {
            Err(chompute::Error::CheckFailed(why)) => {
                assert!(why.contains("disagree at cell (65, 33)"), "{name}: {why}")
            }
            other => panic!("{name}: a corrupted tile gave {other:?}"),
        }
        assert!(files_in(&dir).is_empty(), "{name}: {:?}", files_in(&dir));
        // Without verification the corruption goes through: the check is what caught it.
        let unchecked =
            CellSource::with_source(Box::new(Corrupted(EngineRows::new(&engine))), false);
        draw(&unchecked, &out).unwrap();
        let d = decode(&out);
        assert_ne!(d.pixels[0][0] == 0, p_cell(200, 150, 65, 33), "{name}");
        std::fs::remove_file(&out).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn an_interrupt_leaves_no_file() {
    let dir = scratch_dir("render-interrupt");
    let target = dir.join("big.png");
    let mut interrupted = 0;
    for signal in ["-TERM", "-INT"] {
        common::quiet_mesa();
        let child = Command::new(crate::common::bin())
            .args([
                "--backend",
                "cpu",
                "render",
                "65535",
                "--compression",
                "best",
                "-o",
                path_str(&target),
            ])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the temporary file exists, then interrupt.
        let mut seen = false;
        for _ in 0..3000 {
            if !files_in(&dir).is_empty() {
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(seen, "the render never started writing");
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            // Finished before the signal arrived: nothing to check this time.
            std::fs::remove_file(&target).unwrap();
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(130),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
        assert!(files_in(&dir).is_empty(), "left {:?}", files_in(&dir));
        interrupted += 1;
    }
    assert!(
        interrupted > 0,
        "a 4.3-gigapixel render at --compression best finished before either signal"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_picture_in_one_colour_is_said_on_stderr() {
    let dir = scratch_dir("one-colour");
    let out = dir.join("x.png");
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["-o", path_str(&out)]);
        let o = chompute(&all);
        ok(&o);
        stderr(&o)
    };
    // Every cell of C(2^k, 2^k) is P: one colour, and the warning says why.
    let said = run(&["render", "4096", "--colors", "#1b4965,#fde2e4"]);
    assert_eq!(
        said,
        "chompute: warning: the picture comes out in one colour: every cell of C(4096,4096) \
         is a P-position: m = n = 2^12\n"
    );
    let d = decode(&out);
    assert!(d
        .pixels
        .iter()
        .all(|row| row.iter().all(|&v| v == d.pixels[0][0])));
    // One more row and column: both kinds of cell, and nothing said.
    assert_eq!(run(&["render", "4097"]), "");
    let d = decode(&out);
    assert!(d.pixels.iter().flatten().any(|&v| v != d.pixels[0][0]));
    // Bars of different parity have no P-cell; a window of N-cells only is said too.
    assert!(run(&["render", "100", "201"])
        .contains("no cell of C(100,201) is a P-position: m and n differ in parity"));
    // C(11,11) = P(3) in the corners and P(5) in the centre, nothing between (Thm 3.4).
    let window = run(&["render", "11", "--window", "1,4,3,5"]);
    assert!(
        window.ends_with("no cell of C(11,11), window 1,4,3,5 is a P-position\n"),
        "{window}"
    );
    assert_eq!(
        run(&["render", "11", "--window", "1,1,1,1"])
            .lines()
            .count(),
        1
    );
    // A fitted picture whose every block has the same shade, though it holds both kinds of
    // cell: said from its pixels.
    let flat = run(&["render", "18446744073709551615", "--fit", "1024"]);
    assert_eq!(
        flat,
        "chompute: warning: the picture comes out in one colour: every pixel's \
         18014398509481984×18014398509481984 block has the same shade (pixel value 170)\n"
    );
    assert_eq!(run(&["render", "40000", "--fit", "512"]), "");
    let _ = std::fs::remove_dir_all(&dir);
}
