//! Windows and pictures of bars no one can enumerate, through the built binary and the
//! library: `count --window` and `--method digits`, `render --fit` of bars up to 2^64-1 with
//! every `--shade`, the checks on sizes and memory, and the GPU block-count kernel against its
//! CPU twin. Every digit count is compared with a slow method: cells one by one where that is
//! feasible, else the 16-state reference programme.

use crate::common;

use chompute::chocolate::window::{p_count, p_count_reference, BlockGrid, BlockRect};
use chompute::chocolate::{p_cell, Window};
use chompute::render::picture::shade::p_level;
use chompute::render::Shade;
use common::{assert_usage_error, chompute, png_values, scratch_dir, stderr, stdout};
use std::path::Path;
use std::process::Output;

/// P-cells of rows r0..r0+h, columns c0..c0+w of C(m,n), one by one.
fn cells_one_by_one(m: u64, n: u64, r0: u64, c0: u64, h: u64, w: u64) -> u128 {
    (r0..r0 + h)
        .map(|i| (c0..c0 + w).filter(|&j| p_cell(m, n, i, j)).count() as u128)
        .sum()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "chompute failed: {}", stderr(o));
    serde_json::from_str(&stdout(o)).expect("one JSON object")
}

fn ok(o: &Output) {
    assert!(o.status.success(), "chompute failed: {}", stderr(o));
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Files left in `dir` (a failed command must leave none, not even a temporary one).
fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

use chompute::claim::Xorshift as Rng;

#[test]
fn count_windows_agree_with_every_method() {
    // A window of a rectangle: digits, and the generated grid on the CPU, and cell by cell.
    let v = json(&chompute(&[
        "--backend",
        "cpu",
        "count",
        "1000",
        "3000",
        "--window",
        "5,6,900,1500",
        "--method",
        "all",
        "--json",
    ]));
    assert_eq!(v["agree"], true);
    assert_eq!(v["window"], serde_json::json!(["5", "6", "900", "1500"]));
    let names: Vec<&str> = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["method"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["digits", "cpu"]);
    let want = cells_one_by_one(1000, 3000, 5, 6, 900, 1500);
    assert!(want > 0);
    assert_eq!(v["count"], want.to_string());

    // Whole bars: --method all includes the digit method beside the older ones.
    for (m, n, others) in [
        ("30001", "30001", vec!["recurrence", "histogram", "cpu"]),
        ("4095", "30001", vec!["histogram", "cpu"]),
    ] {
        let v = json(&chompute(&[
            "--backend",
            "cpu",
            "count",
            m,
            n,
            "--method",
            "all",
            "--json",
        ]));
        assert_eq!(v["agree"], true);
        let names: Vec<&str> = v["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["method"].as_str().unwrap())
            .collect();
        assert_eq!(names[0], "digits");
        for o in others {
            assert!(names.contains(&o), "{m}×{n}: {names:?}");
        }
        // The default is the digit method, and it agrees.
        assert_eq!(
            stdout(&chompute(&["count", m, n])).trim(),
            v["count"].as_str().unwrap()
        );
    }

    // Windows deep inside huge bars, cell by cell.
    let mut rng = Rng::new(0xD161_7500);
    for _ in 0..6 {
        let m = u64::MAX - rng.below(1 << 30);
        let n =
            [u64::MAX, 12_345_678_901_234_567, 1 + rng.next() % u64::MAX][rng.below(3) as usize];
        let (h, w) = (1 + rng.below(40), 1 + rng.below(40));
        let (r0, c0) = (1 + rng.below(m - h + 1), 1 + rng.below(n - w + 1));
        let o = chompute(&[
            "count",
            &m.to_string(),
            &n.to_string(),
            "--window",
            &format!("{r0},{c0},{h},{w}"),
        ]);
        ok(&o);
        let want = cells_one_by_one(m, n, r0, c0, h, w);
        assert_eq!(
            stdout(&o).trim(),
            want.to_string(),
            "C({m},{n}) {r0},{c0},{h},{w}"
        );
    }

    // Rectangles no histogram can take: 0 when M and N differ in parity (bit 0 of a key
    // is the parity of the side minus one), else the reference programme's count.
    assert_eq!(
        stdout(&chompute(&["count", "1000000000", "999999999"])).trim(),
        "0"
    );
    for (m, n) in [
        (1_000_000_000u64, 999_999_998u64),
        (u64::MAX, 7),
        (u64::MAX, u64::MAX - 2),
        ((1 << 63) + 1, 1 << 33 | 1),
    ] {
        let o = chompute(&["count", &m.to_string(), &n.to_string()]);
        ok(&o);
        let want = p_count_reference(&Window::full(m, n).unwrap());
        assert_eq!(stdout(&o).trim(), want.to_string(), "C({m},{n})");
    }
    // A whole square by the default (digits) equals the recurrence.
    let d = chompute(&["count", "18446744073709551615"]);
    let r = chompute(&["count", "18446744073709551615", "--method", "recurrence"]);
    assert_eq!(stdout(&d), stdout(&r));
}

#[test]
fn bad_windows_are_one_line_and_status_2() {
    let max = "18446744073709551615";
    for (args, msg) in [
        (
            vec!["count", max, "--window", &format!("{max},1,2,1")],
            "outside",
        ),
        (
            vec!["count", max, "--window", "2,1,18446744073709551615,1"],
            "outside",
        ),
        (vec!["count", "100", "--window", "1,1,0,5"], "--window"),
        (vec!["count", "100", "--window", "1,1,5"], "--window"),
        (vec!["count", "100", "--window", "1,1,5,x"], "--window"),
        (vec!["count", "100", "--window", "0,1,5,5"], "--window"),
        (vec!["count", "100", "--window", "99,1,5,5"], "outside"),
        (
            vec![
                "count",
                "100",
                "--window",
                "2,2,5,5",
                "--method",
                "recurrence",
            ],
            "whole square",
        ),
        (
            vec![
                "count",
                "100",
                "--window",
                "2,2,5,5",
                "--method",
                "histogram",
            ],
            "whole bars",
        ),
        (
            vec![
                "count",
                max,
                "--window",
                "1,1,4294967296,4294967296",
                "--method",
                "cpu",
            ],
            "cells",
        ),
    ] {
        assert_usage_error(&chompute(&args), msg);
    }
}

/// Expected pixels of `render M N --fit FIT [--window] [--shade] [--colors]`: each block's
/// count by `count(window of the block)`, shaded by `shade`.
struct Fitted {
    m: u64,
    n: u64,
    window: (u64, u64, u64, u64),
    b: u64,
}

impl Fitted {
    fn new(m: u64, n: u64, window: Option<(u64, u64, u64, u64)>, fit: u64) -> Fitted {
        let window = window.unwrap_or((1, 1, m, n));
        Fitted {
            m,
            n,
            window,
            b: window.2.max(window.3).div_ceil(fit),
        }
    }

    fn size(&self) -> (usize, usize) {
        (
            self.window.3.div_ceil(self.b) as usize,
            self.window.2.div_ceil(self.b) as usize,
        )
    }

    /// Block (x, y) as a window of the bar.
    fn block(&self, x: usize, y: usize) -> Window {
        let (r0, c0, h, w) = self.window;
        let (by, bx) = (y as u64 * self.b, x as u64 * self.b);
        Window::new(
            self.m,
            self.n,
            r0 + by,
            c0 + bx,
            self.b.min(h - by),
            self.b.min(w - bx),
        )
        .unwrap()
    }

    fn pixel(
        &self,
        x: usize,
        y: usize,
        shade: Shade,
        gray: bool,
        count: impl Fn(&Window) -> u128,
    ) -> u8 {
        let w = self.block(x, y);
        let l = p_level(shade, count(&w), w.cells());
        if gray {
            255 - l
        } else {
            l
        }
    }
}

fn render_fit(dir: &Path, name: &str, args: &[&str]) -> Vec<Vec<u8>> {
    let out = dir.join(name);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-o", path_str(&out)]);
    ok(&chompute(&all));
    png_values(&out)
}

#[test]
fn huge_fits_are_exact() {
    let dir = scratch_dir("window-huge-fits");
    // Issue: this panicked with a division by zero and hung.
    let max = u64::MAX.to_string();
    let px = render_fit(
        &dir,
        "max.png",
        &["--backend", "cpu", "render", &max, "--fit", "512"],
    );
    let f = Fitted::new(u64::MAX, u64::MAX, None, 512);
    assert_eq!((px[0].len(), px.len()), f.size());
    assert_eq!(f.size(), (512, 512));
    let mut rng = Rng::new(0x51CE);
    let mut sample: Vec<(usize, usize)> = vec![(0, 0), (511, 511), (0, 511), (511, 0)];
    sample.extend((0..60).map(|_| (rng.below(512) as usize, rng.below(512) as usize)));
    for &(x, y) in &sample {
        let want = f.pixel(x, y, Shade::Linear, true, p_count_reference);
        assert_eq!(px[y][x], want, "C(2^64-1) --fit 512 pixel ({x},{y})");
    }
    // Issue: this aborted allocating 125 GB. Every pixel against the reference programme.
    let px = render_fit(
        &dir,
        "tera.png",
        &["render", "1000000000000", "--fit", "64"],
    );
    let f = Fitted::new(1_000_000_000_000, 1_000_000_000_000, None, 64);
    assert_eq!((px[0].len(), px.len()), f.size());
    for (y, row) in px.iter().enumerate() {
        for (x, &v) in row.iter().enumerate() {
            assert_eq!(
                v,
                f.pixel(x, y, Shade::Linear, true, p_count_reference),
                "C(10^12) ({x},{y})"
            );
        }
    }
    // A rectangle, a window with partial edge blocks, each shade, gray and indexed.
    let (m, n) = (u64::MAX - 4, 12_345_678_901_234_567_891u64);
    let window = (
        77_777_777_777,
        5,
        1_000_000_000_000_000_000,
        333_333_333_333_333_333,
    );
    let f = Fitted::new(m, n, Some(window), 100);
    for (shade, colours) in [
        (Shade::Linear, None),
        (Shade::Sqrt, Some("#ff0000,#0000ff")),
        (Shade::Log, None),
    ] {
        let win = format!("{},{},{},{}", window.0, window.1, window.2, window.3);
        let mut args = vec![
            "render".to_string(),
            m.to_string(),
            n.to_string(),
            "--window".into(),
            win,
            "--fit".into(),
            "100".into(),
            "--shade".into(),
            shade.name().into(),
        ];
        if let Some(c) = colours {
            args.extend(["--colors".into(), c.into()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let px = render_fit(&dir, &format!("{}.png", shade.name()), &args);
        assert_eq!((px[0].len(), px.len()), f.size());
        let (w, h) = f.size();
        let mut sample: Vec<(usize, usize)> = vec![(w - 1, h - 1), (0, h - 1), (w - 1, 0)];
        sample
            .extend((0..40).map(|_| (rng.below(w as u64) as usize, rng.below(h as u64) as usize)));
        for (x, y) in sample {
            let want = f.pixel(x, y, shade, colours.is_none(), p_count_reference);
            assert_eq!(px[y][x], want, "{} pixel ({x},{y})", shade.name());
        }
    }
    let left: Vec<String> = files_in(&dir)
        .into_iter()
        .filter(|f| f.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn digit_fits_equal_cell_by_cell_counts() {
    let dir = scratch_dir("window-digit-fits");
    // Blocks of 76×76 = 5776 cells and 53×53 = 2809 cells (digits), the last ones cut short.
    for (m, n, window, fit) in [
        (3001u64, 2500u64, None, 40u64),
        (5000, 7000, Some((1234u64, 2345u64, 1300u64, 1700u64)), 33),
    ] {
        let f = Fitted::new(m, n, window, fit);
        let (r, c, h, w) = window.unwrap_or((1, 1, m, n));
        let pic = chompute::render::picture::Picture::fit(
            Window::new(m, n, r, c, h, w).unwrap(),
            fit,
            None,
        )
        .unwrap();
        assert_eq!(
            pic.fit_counts(),
            Some(chompute::render::picture::FitCounts::Digits),
            "the digit method draws these"
        );
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            let mut args = vec![
                "render".to_string(),
                m.to_string(),
                n.to_string(),
                "--fit".into(),
                fit.to_string(),
                "--shade".into(),
                shade.name().into(),
                "--verify".into(),
            ];
            if let Some((r, c, h, w)) = window {
                args.extend(["--window".into(), format!("{r},{c},{h},{w}")]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let px = render_fit(&dir, "d.png", &args);
            assert_eq!((px[0].len(), px.len()), f.size());
            for (y, row) in px.iter().enumerate() {
                for (x, &v) in row.iter().enumerate() {
                    let want = f.pixel(x, y, shade, true, |w| {
                        cells_one_by_one(w.m, w.n, w.row0, w.col0, w.height, w.width)
                    });
                    assert_eq!(v, want, "C({m},{n}) {} pixel ({x},{y})", shade.name());
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fits_by_rows_and_by_digits_are_identical() {
    use chompute::gpu::Engine;
    use chompute::render::picture::source::CellSource;
    use chompute::render::picture::{Picture, Scale};
    let cells = CellSource::new(Engine::Cpu, false);
    for (m, n, window, fit) in [
        (3001u64, 2500u64, None, 40u64),
        (40000, 40000, None, 512),
        (999, 1001, Some((123u64, 456u64, 300u64, 401u64)), 9),
        (65535, 3, None, 700),
    ] {
        let w = match window {
            Some((r, c, h, wd)) => Window::new(m, n, r, c, h, wd).unwrap(),
            None => Window::full(m, n).unwrap(),
        };
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            let pic = Picture::fit(w, fit, None).unwrap().with_shade(shade);
            let Scale::Fit(b) = pic.scale else {
                panic!("fitted")
            };
            let rows = pic.height.min(80);
            let mut by_rows = vec![0u8; (pic.width * rows) as usize];
            let mut by_digits = by_rows.clone();
            pic.fill_fit_rows(&cells, b, pic.band(0, rows), &mut by_rows)
                .unwrap();
            pic.fill_fit_digits(&cells, b, pic.band(0, rows), &mut by_digits)
                .unwrap();
            assert!(
                by_rows == by_digits,
                "C({m},{n}) --fit {fit} --shade {}",
                shade.name()
            );
        }
    }
}

#[test]
fn deep_zoom_levels_equal_digit_block_counts() {
    // The pyramid carries counts up from the rows (cheaper than a digit count a pixel at
    // every level); each lower level must equal the digit method's blocks of 2^k cells.
    let dir = scratch_dir("window-dzi");
    let (m, n, tile) = (300u64, 200u64, 64u64);
    let zoom = dir.join("zoom");
    ok(&chompute(&[
        "render",
        "300",
        "200",
        "--dzi",
        path_str(&zoom),
        "--tile-size",
        "64",
    ]));
    let files = zoom.join("zoom_files");
    for k in 1..=9u32 {
        let level = 9 - k;
        let grid = BlockGrid::new(Window::full(m, n).unwrap(), 1 << k).unwrap();
        let counts = grid.counts(grid.all()).unwrap();
        for ty in 0..grid.down.div_ceil(tile) {
            for tx in 0..grid.across.div_ceil(tile) {
                let px = png_values(&files.join(level.to_string()).join(format!("{tx}_{ty}.png")));
                for (y, row) in px.iter().enumerate() {
                    for (x, &v) in row.iter().enumerate() {
                        let (by, bx) = (ty * tile + y as u64, tx * tile + x as u64);
                        let c = counts[(by * grid.across + bx) as usize];
                        let want = 255 - p_level(Shade::Linear, c, grid.block_cells(by, bx));
                        assert_eq!(v, want, "level {level} pixel ({bx},{by})");
                    }
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiles_of_pictures_that_cannot_be_assembled_are_refused() {
    let dir = scratch_dir("window-tiles");
    let t = dir.join("T");
    let max = u64::MAX.to_string();
    // Issue: a capacity-overflow panic that left T/tiles.json; and "wrote 0 tiles", exit 0.
    for args in [
        vec![
            "render",
            &max,
            "1",
            "--tiles",
            path_str(&t),
            "--tile-size",
            "8",
        ],
        vec!["render", &max, "--tiles", path_str(&t)],
        vec!["render", "2147483648", "1", "--tiles", path_str(&t)],
    ] {
        assert_usage_error(&chompute(&args), "2^31-1");
        assert!(
            files_in(&dir).is_empty(),
            "{args:?} left {:?}",
            files_in(&dir)
        );
    }
    // A fitted picture of the same bar tiles fine, and a shade is part of the render.
    ok(&chompute(&[
        "render",
        &max,
        "--fit",
        "100",
        "--shade",
        "log",
        "--tiles",
        path_str(&t),
        "--tile-size",
        "32",
    ]));
    let manifest = std::fs::read_to_string(t.join("tiles.json")).unwrap();
    assert!(manifest.contains("\"shade\": \"log\""), "{manifest}");
    let o = chompute(&[
        "render",
        &max,
        "--fit",
        "100",
        "--shade",
        "sqrt",
        "--tiles",
        path_str(&t),
        "--tile-size",
        "32",
    ]);
    assert_usage_error(&o, "different render");
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    ok(&chompute(&["assemble", path_str(&t), "-o", path_str(&a)]));
    ok(&chompute(&[
        "render",
        &max,
        "--fit",
        "100",
        "--shade",
        "log",
        "-o",
        path_str(&b),
    ]));
    assert_eq!(png_values(&a), png_values(&b));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_memory_check_refuses_before_writing() {
    let dir = scratch_dir("window-memory");
    let x = dir.join("x.png");
    let tiny = [("CHOMPUTE_TEST_MEMORY_AVAILABLE", "1000000")];
    for args in [
        vec!["render", "1", "100000000", "-o", path_str(&x)],
        vec!["render", "20000", "--dzi", path_str(&dir.join("z"))],
        vec![
            "render",
            "100",
            "100000000",
            "--tiles",
            path_str(&dir.join("t")),
            "--tile-size",
            "100000000",
        ],
    ] {
        let o = common::chompute_env(&args, &tiny);
        assert_usage_error(&o, "memory");
        assert!(
            files_in(&dir).is_empty(),
            "{args:?} left {:?}",
            files_in(&dir)
        );
    }
    // With room, the same wide row renders.
    ok(&common::chompute_env(
        &["render", "1", "100000", "-o", path_str(&x)],
        &[],
    ));
    assert_eq!(png_values(&x)[0].len(), 100000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shades_and_sizes_are_checked() {
    let dir = scratch_dir("window-shade");
    let x = dir.join("x.png");
    let x = path_str(&x);
    let max = u64::MAX.to_string();
    for (args, msg) in [
        (vec!["render", "100", "--shade", "log", "-o", x], "--fit"),
        (
            vec!["render", "100", "--fit", "10", "--shade", "cubic", "-o", x],
            "[possible values: linear, sqrt, log]",
        ),
        (vec!["render", "100", "--fit", "0", "-o", x], "--fit"),
        (
            vec!["render", &max, "--fit", "2147483648", "-o", x],
            "2^31-1",
        ),
        (vec!["render", &max, "--cell", "2", "-o", x], "2^64"),
    ] {
        assert_usage_error(&chompute(&args), msg);
        assert!(
            files_in(&dir).is_empty(),
            "{args:?} left {:?}",
            files_in(&dir)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A block counter that is off by one on the first block of every call.
struct OffByOne(std::sync::Arc<dyn chompute::chocolate::backend::BlockCountBackend>);

impl chompute::chocolate::backend::BlockCountBackend for OffByOne {
    fn backend(&self) -> &'static str {
        self.0.backend()
    }
    fn counts(&self, grid: &BlockGrid, blocks: BlockRect) -> chompute::Result<Vec<u128>> {
        let mut c = self.0.counts(grid, blocks)?;
        c[0] = c[0].checked_sub(1).unwrap_or(1);
        Ok(c)
    }
    fn chunk_blocks(&self) -> u64 {
        self.0.chunk_blocks()
    }
}

#[test]
fn verify_catches_wrong_block_counts() {
    use chompute::gpu::Engine;
    use chompute::render::picture::source::CellSource;
    use chompute::render::picture::Picture;
    let mut engines = vec![Engine::Cpu];
    if let Some(ctx) = common::gpu_or_skip("verify_catches_wrong_block_counts") {
        engines.push(Engine::Gpu(ctx));
    }
    let pic = Picture::fit(
        Window::full(1_000_000_000_000, 999_999_999_998).unwrap(),
        8,
        None,
    )
    .unwrap();
    let mut out = vec![0u8; (pic.width * pic.height) as usize];
    for engine in engines {
        // Right counts pass verification; counts off by one on a sampled block do not.
        let right = CellSource::new(engine.clone(), true);
        pic.fill_rows(&right, pic.band(0, pic.height), &mut out)
            .unwrap();
        let wrong = CellSource::new(engine.clone(), true)
            .with_blocks(std::sync::Arc::new(OffByOne(engine.block_counts())));
        match pic.fill_rows(&wrong, pic.band(0, pic.height), &mut out) {
            Err(chompute::Error::CheckFailed(why)) => assert!(why.contains("disagree"), "{why}"),
            other => panic!(
                "{}: a wrong block count was not caught: {other:?}",
                engine.name()
            ),
        }
    }
    // Through the binary, --verify on each backend passes.
    let dir = scratch_dir("window-verify");
    let backends: Vec<&str> = if common::gpu_or_skip("verify_catches_wrong_block_counts").is_some()
    {
        vec!["cpu", "gpu"]
    } else {
        vec!["cpu"]
    };
    for backend in backends {
        let out = dir.join("v.png");
        ok(&chompute(&[
            "--backend",
            backend,
            "render",
            "1000000000000",
            "--fit",
            "8",
            "--verify",
            "-o",
            path_str(&out),
        ]));
        assert_eq!(png_values(&out).len(), 8);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gpu_block_counts_equal_the_cpu() {
    use chompute::gpu::block_count::BlockCountGpu;
    let Some(ctx) = common::gpu_or_skip("gpu_block_counts_equal_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(0x6B0C);
    let mut cases: Vec<(Window, u64)> = vec![
        // Rectangles that are not powers of two, whole, with blocks that cut them short.
        (Window::full(777, 1235).unwrap(), 37),
        (Window::full(777, 1235).unwrap(), 1),
        (Window::full(4095, 30001).unwrap(), 1000),
        // Sizes near 2^32 and 2^63, where the kernel's u32 halves carry.
        (Window::full((1 << 32) + 1, (1 << 32) - 1).unwrap(), 1 << 27),
        (
            Window::full((1 << 32) - 3, (1 << 32) - 3).unwrap(),
            123_456_789,
        ),
        (Window::full((1 << 63) + 1, (1 << 63) - 1).unwrap(), 1 << 58),
        (Window::full(1 << 63, (1 << 63) + 7).unwrap(), (1 << 59) + 3),
        (Window::full(u64::MAX, u64::MAX).unwrap(), 1 << 60),
    ];
    // Random windows deep inside C(2^64-1), with blocks of every scale.
    for _ in 0..12 {
        let (h, w) = (1 + rng.next() % u64::MAX, 1 + rng.next() % u64::MAX);
        let (h, w) = (h >> rng.below(60), w >> rng.below(60));
        let (h, w) = (h.max(1), w.max(1));
        let (r0, c0) = (
            1 + rng.below(u64::MAX - h + 1),
            1 + rng.below(u64::MAX - w + 1),
        );
        let win = Window::new(u64::MAX, u64::MAX, r0, c0, h, w).unwrap();
        let block = (h.max(w) / (1 + rng.below(40))).max(1);
        cases.push((win, block));
    }
    for (k, (win, block)) in cases.into_iter().enumerate() {
        let grid = BlockGrid::new(win, block).unwrap();
        let (rows, cols) = (grid.down.min(24), grid.across.min(40));
        let (by0, bx0) = (grid.down - rows, grid.across - cols);
        let blocks = BlockRect::new(by0, rows, bx0, cols);
        let cpu = grid.counts(blocks).unwrap();
        // Every second case in dispatches of 7 blocks, to cover the multi-dispatch paths.
        let gpu = if k % 2 == 0 {
            BlockCountGpu::new(ctx.clone())
        } else {
            BlockCountGpu::with_max_blocks(ctx.clone(), 7)
        };
        let got = gpu.counts(&grid, blocks).unwrap();
        assert_eq!(got, cpu, "{win:?} blocks of {block}");
        if by0 == 0 && bx0 == 0 {
            assert_eq!(got.iter().sum::<u128>(), p_count(&win), "whole {win:?}");
        }
    }
    // Through the binary: the GPU draws the same picture as the CPU.
    let dir = scratch_dir("window-gpu-render");
    let (g, c) = (dir.join("g.png"), dir.join("c.png"));
    let max = u64::MAX.to_string();
    ok(&chompute(&[
        "--backend",
        "gpu",
        "render",
        &max,
        "77777777777",
        "--fit",
        "24",
        "--verify",
        "-o",
        path_str(&g),
    ]));
    ok(&chompute(&[
        "--backend",
        "cpu",
        "render",
        &max,
        "77777777777",
        "--fit",
        "24",
        "-o",
        path_str(&c),
    ]));
    // The same pixels (the files differ only in the Description, which names the command).
    assert_eq!(png_values(&g), png_values(&c));
    std::fs::remove_dir_all(&dir).unwrap();
}
