//! The tile server. In-process, through `chompute::serve::router` and
//! `tower::ServiceExt::oneshot` (no port): the Deep Zoom descriptor; top-level tiles pixel by
//! pixel against the P-test and coarse tiles against slow block counts (cell by cell, row
//! generation, the digit method) for C(777,1235), C(30001,30001) and C(2^64-1,2^64-1);
//! equality with `render --dzi`; the JSON API; caching headers and ETags that follow the
//! bytes; every route's errors with their status, one line and CORS headers. End to end,
//! through the built binary on a free loopback port: a bounded concurrent load, the signals
//! and the command line's errors (malformed HTTP, half-closed and slow clients are the fault
//! suite's: `tests/faults/serve.rs`).

mod common;

use chompute::chocolate::grid::{count_cpu, Window};
use chompute::chocolate::p_cell;
use chompute::chocolate::window::p_count;
use chompute::render::picture::shade::{p_level, Shade};
use chompute::render::picture::shade_level;
use common::http::{get, Reply, Server};
use common::{chompute, gpu_or_skip, scratch_dir, stderr};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};
use tower::ServiceExt;

const BIG: u64 = u64::MAX;

/// The server's router, called in-process.
struct App {
    router: axum::Router,
    runtime: tokio::runtime::Runtime,
}

impl App {
    fn new(engine: chompute::gpu::Engine, cache_bytes: usize, max_waiting: usize) -> App {
        let server = chompute::serve::Server::new(engine, cache_bytes, 2, max_waiting);
        App {
            router: chompute::serve::router(server),
            runtime: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
        }
    }

    /// As `chompute serve --backend cpu` makes it.
    fn cpu() -> App {
        App::new(
            chompute::gpu::Engine::Cpu,
            256 << 20,
            chompute::serve::MAX_WAITING,
        )
    }

    fn get(&self, path: &str) -> Reply {
        self.request(path, &[("Host", "127.0.0.1")])
    }

    /// GET `path` with exactly these headers.
    fn request(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = axum::http::Request::builder().uri(path);
        for (n, v) in headers {
            request = request.header(*n, *v);
        }
        let request = request.body(axum::body::Body::empty()).unwrap();
        self.runtime.block_on(async {
            let response = self.router.clone().oneshot(request).await.unwrap();
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
                .collect();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap()
                .to_vec();
            Reply {
                status,
                headers,
                body,
            }
        })
    }
}

/// A decoded tile: one value per pixel (grey level, 0/1 for 1-bit, or palette index).
struct Tile {
    width: usize,
    height: usize,
    depth: png::BitDepth,
    color: png::ColorType,
    palette: Option<Vec<u8>>,
    pixels: Vec<Vec<u8>>,
}

fn decode(bytes: &[u8]) -> Tile {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::IDENTITY);
    let mut reader = dec.read_info().expect("a PNG");
    let info = reader.info().clone();
    let (width, height) = (info.width as usize, info.height as usize);
    let mut pixels = Vec::with_capacity(height);
    while let Some(row) = reader.next_row().expect("decodable rows") {
        let data = row.data();
        pixels.push(
            (0..width)
                .map(|x| match info.bit_depth {
                    png::BitDepth::One => data[x / 8] >> (7 - x % 8) & 1,
                    png::BitDepth::Eight => data[x],
                    b => panic!("unexpected bit depth {b:?}"),
                })
                .collect(),
        );
    }
    Tile {
        width,
        height,
        depth: info.bit_depth,
        color: info.color_type,
        palette: info.palette.map(|p| p.to_vec()),
        pixels,
    }
}

fn top_level(m: u64, n: u64) -> u32 {
    let side = m.max(n);
    if side <= 1 {
        0
    } else {
        64 - (side - 1).leading_zeros()
    }
}

fn tile(server: &App, m: u64, n: u64, level: u32, col: u64, row: u64) -> Tile {
    let r = server.get(&format!("/dzi/{m}x{n}_files/{level}/{col}_{row}.png"));
    assert_eq!(
        r.status,
        200,
        "level {level} tile {col}_{row}: {}",
        r.text()
    );
    assert_eq!(r.header("content-type"), Some("image/png"));
    decode(&r.body)
}

/// How a reference count of one block is made.
#[derive(Clone, Copy)]
enum Slow {
    /// Every cell by the P-test.
    Cells,
    /// Generate the block's rows and popcount them (`count_cpu`).
    Rows,
    /// The digit method on the block's window (`window::p_count`), for blocks too large to
    /// generate.
    Digits,
}

fn slow_count(m: u64, n: u64, r0: u64, c0: u64, h: u64, w: u64, how: Slow) -> u128 {
    match how {
        Slow::Cells => {
            let mut count = 0;
            // Inclusive ends: the last column of the largest bar is 2^64-1.
            for i in r0..=r0 + (h - 1) {
                for j in c0..=c0 + (w - 1) {
                    count += p_cell(m, n, i, j) as u128;
                }
            }
            count
        }
        Slow::Rows => count_cpu(&Window::new(m, n, r0, c0, h, w).unwrap()),
        Slow::Digits => p_count(&Window::new(m, n, r0, c0, h, w).unwrap()),
    }
}

/// Check tile `col_row` of `level` pixel by pixel: the P-test at the top level, 255 minus the
/// linear shade of a slow block count below.
fn check_tile(server: &App, m: u64, n: u64, level: u32, col: u64, row: u64, how: Slow) {
    let top = top_level(m, n);
    let t = tile(server, m, n, level, col, row);
    let k = top - level;
    let side = 1u128 << k;
    let level_w = (n as u128).div_ceil(side) as u64;
    let level_h = (m as u128).div_ceil(side) as u64;
    assert_eq!(t.width as u64, 256.min(level_w - col * 256), "tile width");
    assert_eq!(t.height as u64, 256.min(level_h - row * 256), "tile height");
    assert_eq!(t.color, png::ColorType::Grayscale);
    assert_eq!(
        t.depth,
        if k == 0 {
            png::BitDepth::One
        } else {
            png::BitDepth::Eight
        }
    );
    for (y, line) in t.pixels.iter().enumerate() {
        for (x, &got) in line.iter().enumerate() {
            let (py, px) = (row * 256 + y as u64, col * 256 + x as u64);
            let expect = if k == 0 {
                // 1-bit: 1 is white (N), 0 black (P).
                !p_cell(m, n, py + 1, px + 1) as u8
            } else {
                let (r0, c0) = ((py as u128) << k, (px as u128) << k);
                let h = side.min(m as u128 - r0) as u64;
                let w = side.min(n as u128 - c0) as u64;
                let count = slow_count(m, n, r0 as u64 + 1, c0 as u64 + 1, h, w, how);
                let cells = h as u128 * w as u128;
                let level = match (u64::try_from(count), u64::try_from(cells)) {
                    (Ok(c), Ok(all)) => shade_level(c, all),
                    _ => p_level(Shade::Linear, count, cells),
                };
                255 - level
            };
            assert_eq!(
                got, expect,
                "C({m},{n}) level {level} tile {col}_{row} pixel ({x},{y})"
            );
        }
    }
}

#[test]
fn the_descriptor_is_deep_zoom_xml() {
    let server = App::cpu();
    for (m, n) in [(777, 1235), (30001, 30001), (BIG, BIG), (1, 1)] {
        let r = server.get(&format!("/dzi/{m}x{n}.dzi"));
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/xml"));
        let xml = r.text();
        assert!(
            xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
            "{xml}"
        );
        assert!(xml.contains("xmlns=\"http://schemas.microsoft.com/deepzoom/2008\""));
        assert!(xml.contains("TileSize=\"256\"") && xml.contains("Overlap=\"0\""));
        assert!(xml.contains("Format=\"png\""));
        assert!(
            xml.contains(&format!("<Size Width=\"{n}\" Height=\"{m}\"/>")),
            "{xml}"
        );
    }
}

#[test]
fn every_tile_of_a_rectangle_is_the_p_test_or_its_block_counts() {
    let server = App::cpu();
    let (m, n) = (777, 1235);
    let top = top_level(m, n);
    assert_eq!(top, 11);
    for level in 0..=top {
        let k = top - level;
        let across = n.div_ceil(1 << k).div_ceil(256);
        let down = m.div_ceil(1 << k).div_ceil(256);
        for row in 0..down {
            for col in 0..across {
                check_tile(&server, m, n, level, col, row, Slow::Cells);
            }
        }
    }
}

#[test]
fn tiles_of_c30001_at_the_top_and_coarse_levels() {
    let server = App::cpu();
    let (m, n) = (30001, 30001);
    assert_eq!(top_level(m, n), 15);
    // The top level: corners, the last (cut) column and row, the middle.
    for (col, row) in [(0, 0), (117, 0), (0, 117), (117, 117), (58, 58), (13, 101)] {
        check_tile(&server, m, n, 15, col, row, Slow::Cells);
    }
    for (level, col, row) in [(14, 0, 0), (14, 58, 58), (13, 29, 3), (12, 14, 14)] {
        check_tile(&server, m, n, level, col, row, Slow::Cells);
    }
    for (level, col, row) in [
        (10, 3, 3),
        (9, 1, 0),
        (8, 0, 0),
        (7, 0, 0),
        (4, 0, 0),
        (0, 0, 0),
    ] {
        check_tile(&server, m, n, level, col, row, Slow::Rows);
    }
}

#[test]
fn tiles_of_the_largest_bar_at_every_depth() {
    let server = App::cpu();
    let last = (1u64 << 56) - 1; // the last tile column and row at the top level
                                 // Top level: the corners and the middle (the bar's last row is cut to 255 pixels).
    for (col, row) in [
        (0, 0),
        (last, 0),
        (last, last),
        (1 << 55, 1 << 55),
        (12345, 67890),
    ] {
        check_tile(&server, BIG, BIG, 64, col, row, Slow::Cells);
    }
    // Deep levels: blocks of up to 8×8 cells, every cell tested.
    for (level, col, row) in [(63, 0, 0), (62, (1 << 54) - 1, 3), (61, 999, 1 << 50)] {
        check_tile(&server, BIG, BIG, level, col, row, Slow::Cells);
    }
    // Blocks of 2^8..2^12 cells a side: generated rows.
    check_tile(&server, BIG, BIG, 56, 0, 0, Slow::Rows);
    // Coarse levels: blocks of up to 2^64 cells, the digit method.
    for (level, col, row) in [
        (40, 0, 0),
        (40, (1 << 32) - 1, 5),
        (20, 7, 9),
        (8, 0, 0),
        (3, 0, 0),
        (0, 0, 0),
    ] {
        check_tile(&server, BIG, BIG, level, col, row, Slow::Digits);
    }
}

#[test]
fn served_tiles_equal_render_dzi_files_in_grey_and_in_colour() {
    let server = App::cpu();
    let (m, n) = (777u64, 1235u64);
    let dir = scratch_dir("serve-dzi");
    for colours in [None, Some("#5b2a86,#f4efe6")] {
        let out = dir.join(if colours.is_some() { "colour" } else { "grey" });
        let mut args = vec!["render".to_string(), m.to_string(), n.to_string()];
        args.extend([
            "--dzi".into(),
            out.to_str().unwrap().into(),
            "--backend".into(),
            "cpu".into(),
        ]);
        if let Some(c) = colours {
            args.extend(["--colors".into(), c.into()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = chompute(&args);
        assert!(o.status.success(), "render --dzi: {}", stderr(&o));
        let name = out.file_name().unwrap().to_str().unwrap().to_string();
        let query = colours.map_or(String::new(), |c| {
            format!("?colors={}", c.replace('#', "%23"))
        });
        let files = out.join(format!("{name}_files"));
        let mut compared = 0;
        for level in 0..=top_level(m, n) {
            for entry in std::fs::read_dir(files.join(level.to_string())).unwrap() {
                let path = entry.unwrap().path();
                let file = path.file_name().unwrap().to_str().unwrap().to_string();
                let r = server.get(&format!("/dzi/{m}x{n}_files/{level}/{file}{query}"));
                assert_eq!(r.status, 200, "{file}: {}", r.text());
                let (served, written) = (decode(&r.body), decode(&std::fs::read(&path).unwrap()));
                assert_eq!(
                    (served.width, served.height),
                    (written.width, written.height)
                );
                assert_eq!((served.depth, served.color), (written.depth, written.color));
                assert_eq!(served.palette, written.palette, "level {level} {file}");
                assert_eq!(served.pixels, written.pixels, "level {level} {file}");
                compared += 1;
            }
        }
        assert!(compared >= 20, "compared {compared} tiles");
    }
}

#[test]
fn shades_and_colours_change_the_picture_as_documented() {
    let server = App::cpu();
    let (m, n) = (30001u64, 30001u64);
    for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
        let r = server.get(&format!(
            "/dzi/{m}x{n}_files/9/0_0.png?shade={}",
            shade.name()
        ));
        let t = decode(&r.body);
        for (y, line) in t.pixels.iter().enumerate().step_by(7) {
            for (x, &got) in line.iter().enumerate().step_by(5) {
                let (r0, c0) = (y as u64 * 64 + 1, x as u64 * 64 + 1);
                let (h, w) = (64.min(m - r0 + 1), 64.min(n - c0 + 1));
                let count = slow_count(m, n, r0, c0, h, w, Slow::Rows);
                let expect = 255 - p_level(shade, count, (h * w) as u128);
                assert_eq!(got, expect, "{shade:?} ({x},{y})");
            }
        }
    }
    // Two colours: an indexed PNG; at the top level palette entry 1 is the P colour.
    let r = server.get("/dzi/30001x30001_files/15/0_0.png?colors=%23ff0000,00ff00");
    let t = decode(&r.body);
    assert_eq!(t.color, png::ColorType::Indexed);
    assert_eq!(t.palette.as_deref(), Some(&[0, 255, 0, 255, 0, 0][..]));
    for (y, line) in t.pixels.iter().enumerate() {
        for (x, &got) in line.iter().enumerate() {
            assert_eq!(got, p_cell(m, n, y as u64 + 1, x as u64 + 1) as u8);
        }
    }
}

#[test]
fn the_json_api_gives_exact_piles_and_counts() {
    let server = App::cpu();
    let v = server.get("/api/cell?m=777&n=1235&row=5&col=7").json();
    assert_eq!(v["piles"], serde_json::json!(["4", "6", "772", "1228"]));
    assert_eq!(v["nim_sum"], (4 ^ 6 ^ 772 ^ 1228u64).to_string());
    assert_eq!(v["p"], false);
    // Every cell of a small bar against the P-test.
    for i in 1..=11u64 {
        for j in 1..=11u64 {
            let v = server
                .get(&format!("/api/cell?m=11&n=11&row={i}&col={j}"))
                .json();
            assert_eq!(v["p"], p_cell(11, 11, i, j), "({i},{j})");
        }
    }
    let big = format!("/api/cell?m={BIG}&n={BIG}&row={BIG}&col=1");
    let v = server.get(&big).json();
    assert_eq!(
        v["piles"],
        serde_json::json!([(BIG - 1).to_string(), "0", "0", (BIG - 1).to_string()])
    );
    assert_eq!(v["nim_sum"], "0");
    assert_eq!(v["p"], true);
    // Counts: windows against generated rows, the whole largest square against g(m).
    for (m, n, w) in [
        (777u64, 1235u64, [1u64, 1, 777, 1235]),
        (30001, 30001, [100, 2000, 300, 777]),
    ] {
        let q = format!(
            "/api/count?m={m}&n={n}&window={},{},{},{}",
            w[0], w[1], w[2], w[3]
        );
        let v = server.get(&q).json();
        let expect = count_cpu(&Window::new(m, n, w[0], w[1], w[2], w[3]).unwrap());
        assert_eq!(v["count"], expect.to_string(), "{q}");
    }
    let v = server
        .get(&format!(
            "/api/count?m={BIG}&n={BIG}&window=1,1,{BIG},{BIG}"
        ))
        .json();
    let g = chompute::chocolate::g_recurrence(BIG).unwrap();
    assert_eq!(v["count"], g.to_string());
    assert!(g > 1u128 << 53, "the count is past a double's exact range");
}

#[test]
fn tiles_carry_etags_and_never_change() {
    let server = App::cpu();
    let path = "/dzi/30001x30001_files/12/3_4.png?shade=log";
    let first = server.get(path);
    assert_eq!(first.status, 200);
    assert_eq!(
        first.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(first.header("access-control-allow-origin"), Some("*"));
    let etag = first.header("etag").expect("an ETag").to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    // The second answer comes from the cache: the same bytes and tag.
    let again = server.get(path);
    assert_eq!(
        (again.body.as_slice(), again.header("etag")),
        (first.body.as_slice(), Some(etag.as_str()))
    );
    let cached = server.request(path, &[("Host", "x"), ("If-None-Match", &etag)]);
    assert_eq!(cached.status, 304);
    assert!(cached.body.is_empty());
    assert_eq!(cached.header("etag"), Some(etag.as_str()));
    let listed = server.request(
        path,
        &[
            ("Host", "x"),
            ("If-None-Match", &format!("\"x\", W/{etag}")),
        ],
    );
    assert_eq!(listed.status, 304);
    let other = server.request(
        path,
        &[("Host", "x"), ("If-None-Match", "\"something-else\"")],
    );
    assert_eq!(other.status, 200);
    let linear = server.get("/dzi/30001x30001_files/12/3_4.png");
    assert_ne!(
        linear.header("etag"),
        Some(etag.as_str()),
        "the style is part of the tag"
    );
}

/// The 400s of every route, each with the line it must contain.
const BAD: &[(&str, &str)] = &[
    (
        "/dzi/0x5.dzi",
        "m must be a whole number from 1 to 18446744073709551615",
    ),
    ("/dzi/5x0.dzi", "n must be"),
    ("/dzi/12ax5.dzi", "m must be"),
    ("/dzi/18446744073709551616x5.dzi", "m must be"),
    ("/dzi/5.dzi", "MxN"),
    (
        "/dzi/777x1235_files/12/0_0.png",
        "the level of C(777,1235) must be a whole number from 0 to 11 (got '12')",
    ),
    ("/dzi/777x1235_files/4294967296/0_0.png", "from 0 to 11"),
    ("/dzi/777x1235_files/x/0_0.png", "from 0 to 11"),
    (
        "/dzi/777x1235_files/11/5_0.png",
        "the tile column at level 11 must be a whole number from 0 to 4 (got '5')",
    ),
    (
        "/dzi/777x1235_files/11/0_4.png",
        "the tile row at level 11 must be a whole number from 0 to 3",
    ),
    (
        "/dzi/777x1235_files/9/0_1.png",
        "the tile row at level 9 must be a whole number from 0 to 0",
    ),
    ("/dzi/777x1235_files/11/-1_0.png", "from 0 to 4"),
    ("/dzi/777x1235_files/11/0.png", "COL_ROW"),
    ("/dzi/777x1235_files/11/0_0.png?shade=cubic", "shade"),
    ("/dzi/777x1235_files/11/0_0.png?colors=%23ff0000", "colors"),
    (
        "/dzi/777x1235_files/11/0_0.png?colors=%23ff0000,%23zz0000",
        "colors",
    ),
    (
        "/dzi/777x1235_files/11/0_0.png?shade=log&shade=sqrt",
        "twice",
    ),
    ("/dzi/777x1235_files/11/0_0.png?zoom=2", "zoom"),
    ("/dzi/777x1235.dzi?x=1", "no query parameters"),
    (
        "/api/cell?m=5&n=5&row=6&col=1",
        "row must be a whole number from 1 to 5 (got '6')",
    ),
    ("/api/cell?m=5&n=5&row=0&col=1", "from 1 to 5"),
    (
        "/api/cell?m=5&n=7&row=1&col=8",
        "col must be a whole number from 1 to 7",
    ),
    ("/api/cell?m=5&n=5&row=1", "missing query parameter 'col'"),
    ("/api/cell?m=5&n=5&row=1&col=x", "col must be"),
    // One rule for whitespace: a number is digits only, in every parameter.
    ("/api/cell?m=%205&n=5&row=1&col=1", "m must be"),
    ("/api/cell?m=5&n=5&row=1&col=1%20", "col must be"),
    ("/api/count?m=5&n=5&window=%201,1,1,1", "window wants"),
    ("/api/count?m=5&n=5&window=1,%201,1,1", "window wants"),
    ("/api/count?m=5&n=5&window=1,1,6,5", "window"),
    ("/api/count?m=5&n=5&window=1,1,5", "window wants"),
    ("/api/count?m=5&n=5&window=1,1,0,5", "window wants"),
    ("/api/count?m=5&n=5", "missing query parameter 'window'"),
    ("/api/count?m=5&n=5&window=1,1,1,1&x=%ff", ""),
];

/// An error answer: its status, one short line of text, CORS so that a page on another
/// origin can read it.
fn assert_error(r: &Reply, path: &str, status: u16) {
    assert_eq!(r.status, status, "{path}: {}", r.text());
    let text = r.text();
    assert_eq!(
        text.trim_end().lines().count(),
        1,
        "{path}: one line, got {text:?}"
    );
    assert!(text.len() < 300, "{path}: a short line, got {text:?}");
    assert!(!text.contains("panicked"), "{path}");
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; charset=utf-8"),
        "{path}"
    );
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}");
}

#[test]
fn every_route_refuses_bad_values_with_one_line_naming_the_real_limit() {
    let app = App::cpu();
    let long = "9".repeat(5000);
    let long = format!("/api/count?m={long}&n=5&window=1,1,1,1");
    for &(path, says) in BAD.iter().chain([(long.as_str(), "m must be")].iter()) {
        let r = app.get(path);
        assert_error(&r, path, 400);
        assert!(
            r.text().contains(says),
            "{path}: {:?} lacks {says:?}",
            r.text()
        );
    }
    for path in [
        "/nope",
        "/dzi",
        "/dzi/",
        "/dzi/777x1235",
        "/dzi/../../etc/passwd",
        "/dzi/..%2f..%2fetc%2fpasswd",
        "/dzi/777x1235_files/../../../etc/passwd",
        "/dzi/777x1235_files/11/%2e%2e/0_0.png",
        "/dzi/%205x5.dzi",
        "/dzi/777x1235_files/11//0_0.png",
        "/dzi/777x1235_files/11/0_0.jpg",
        "/dzi/777x1235_files/11/0_0.png/more",
        "/api",
        "/viewer.js/../../etc/passwd",
        "/src/serve/mod.rs",
    ] {
        assert_error(&app.get(path), path, 404);
    }
}

#[test]
fn an_http_1_1_request_without_one_host_is_400_and_http_1_0_needs_none() {
    let app = App::cpu();
    let path = "/api/cell?m=1&n=1&row=1&col=1";
    assert_error(&app.request(path, &[]), "no Host", 400);
    assert!(app.request(path, &[]).text().contains("Host"));
    assert_error(
        &app.request(path, &[("Host", "a"), ("Host", "b")]),
        "two Hosts",
        400,
    );
    assert_eq!(app.get(path).json()["p"], true);
    let request = axum::http::Request::builder()
        .uri(path)
        .version(axum::http::Version::HTTP_10)
        .body(axum::body::Body::empty())
        .unwrap();
    let response = app
        .runtime
        .block_on(app.router.clone().oneshot(request))
        .unwrap();
    assert_eq!(response.status(), 200, "HTTP/1.0 has no Host rule");
}

#[test]
fn other_methods_are_405_with_allow_and_one_line() {
    let app = App::cpu();
    for (method, path) in [
        ("POST", "/api/cell?m=1&n=1&row=1&col=1"),
        ("DELETE", "/"),
        ("PUT", "/dzi/5x5.dzi"),
    ] {
        let request = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("Host", "x")
            .body(axum::body::Body::empty())
            .unwrap();
        let response = app
            .runtime
            .block_on(app.router.clone().oneshot(request))
            .unwrap();
        assert_eq!(response.status(), 405, "{method} {path}");
        assert_eq!(response.headers()["allow"], "GET, HEAD");
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
    }
}

#[test]
fn a_full_tile_queue_is_503_with_retry_after_readable_from_any_origin() {
    // No place to wait for the tile pool: every tile not yet cached is refused.
    let app = App::new(chompute::gpu::Engine::Cpu, 1 << 20, 0);
    let path = "/dzi/777x1235_files/11/0_0.png";
    let r = app.request(
        path,
        &[("Host", "x"), ("Origin", "http://elsewhere.example")],
    );
    assert_error(&r, path, 503);
    assert_eq!(r.header("retry-after"), Some("1"));
    let exposed = r.header("access-control-expose-headers").unwrap_or("");
    assert!(
        exposed.to_ascii_lowercase().contains("retry-after"),
        "a page on another origin can read Retry-After: {exposed:?}"
    );
    // What needs no tile pool is still answered.
    assert_eq!(app.get("/dzi/777x1235.dzi").status, 200);
    assert_eq!(app.get("/api/cell?m=5&n=5&row=1&col=1").status, 200);
}

#[test]
fn tiles_describe_themselves_and_their_etag_follows_their_bytes() {
    // A tile describes itself; nothing of the process (its command line) reaches it.
    let small = App::new(chompute::gpu::Engine::Cpu, 10 << 20, 64);
    let large = App::new(chompute::gpu::Engine::Cpu, 256 << 20, 64);
    let mut tags = std::collections::HashMap::new();
    for path in [
        "/dzi/777x1234_files/11/0_0.png",
        "/dzi/777x1234_files/11/4_3.png",
        "/dzi/777x1234_files/3/0_0.png",
        "/dzi/777x1234_files/11/0_0.png?shade=log",
        "/dzi/777x1234_files/11/0_0.png?colors=%23102030,%23f0e0d0",
        "/dzi/777x1235_files/11/0_0.png",
    ] {
        let (a, b) = (small.get(path), large.get(path));
        assert_eq!((a.status, b.status), (200, 200), "{path}");
        let etag = a.header("etag").unwrap().to_string();
        assert_eq!(b.header("etag"), Some(etag.as_str()), "{path}: one tag");
        assert_eq!(a.body, b.body, "{path}: one tag, one body");
        assert!(
            tags.insert(etag, a.body.clone()).is_none(),
            "{path}: a tag of its own"
        );
        let texts = png_texts(&a.body);
        let description = texts
            .iter()
            .find(|(k, _)| k == "Description")
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{path}: a Description, got {texts:?}"));
        assert!(
            !description.contains("--secret-flag"),
            "{path}: {description}"
        );
        let (bar, rest) = path["/dzi/".len()..].split_once("_files/").unwrap();
        let (m, n) = bar.split_once('x').unwrap();
        let (level, tile) = rest.split_once('/').unwrap();
        let tile = tile.split_once(".png").unwrap().0;
        assert!(
            description.starts_with(&format!(
                "C({m},{n}), Deep Zoom level {level} of 11, tile {tile},"
            )),
            "{path}: {description}"
        );
        let shade = if path.contains("shade=log") {
            "log"
        } else {
            "linear"
        };
        assert!(
            description.contains(&format!("shade {shade}")),
            "{path}: {description}"
        );
    }
}

/// The `tEXt` chunks of a PNG.
fn png_texts(bytes: &[u8]) -> Vec<(String, String)> {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().expect("a PNG");
    reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .map(|t| (t.keyword.clone(), t.text.clone()))
        .collect()
}

#[test]
fn the_viewer_is_served_from_the_binary() {
    let server = App::cpu();
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    assert!(html.contains("data-tiles-loaded=\"0\""));
    assert!(html.contains("<script src=\"/viewer.js\"></script>"));
    // Nothing is loaded from anywhere else: it works offline.
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external URL"
    );
    let script = server.get("/viewer.js");
    assert_eq!(script.status, 200);
    let js = script.text();
    assert!(
        js.contains("BigInt") || js.contains("0n"),
        "BigInt coordinates"
    );
    assert!(js.contains("/dzi/") && js.contains("/api/cell") && js.contains("/api/count"));
    // It opens on a bar whose structure shows (tests/browser.sh checks it in a browser).
    assert!(js.contains("m: 30001n,") && js.contains("view.shade = \"sqrt\""));
    assert!(
        !js.contains("http://") && !js.contains("https://"),
        "no external URL"
    );
}

#[test]
fn a_bounded_concurrent_load_is_answered_without_error() {
    // A small cache, so that tiles are evicted and made again during the load.
    let server = Server::start(&["--backend", "cpu", "--cache-mb", "1"]);
    let addr = server.addr;
    let (threads, per_thread) = (24, 150);
    let deadline = Instant::now() + Duration::from_secs(240);
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            std::thread::spawn(move || {
                let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ t as u64;
                let mut next = || {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state
                };
                let mut done = 0;
                for _ in 0..per_thread {
                    if Instant::now() > deadline {
                        break;
                    }
                    let pick = next() % 10;
                    let (path, want) = match pick {
                        0..=2 => {
                            let level = 30 + (next() % 35) as u32;
                            let tiles = 1u64 << level.saturating_sub(8);
                            let (c, r) = (next() % tiles, next() % tiles);
                            (format!("/dzi/{BIG}x{BIG}_files/{level}/{c}_{r}.png"), 200)
                        }
                        3..=5 => {
                            let level = next() % 16;
                            let tiles = 30001u64.div_ceil(1 << (15 - level)).div_ceil(256);
                            let (c, r) = (next() % tiles, next() % tiles);
                            let shade = ["linear", "sqrt", "log"][(next() % 3) as usize];
                            (
                                format!("/dzi/30001x30001_files/{level}/{c}_{r}.png?shade={shade}"),
                                200,
                            )
                        }
                        6 => (
                            format!(
                                "/api/cell?m={BIG}&n=30001&row={}&col={}",
                                next() | 1,
                                next() % 30001 + 1
                            ),
                            200,
                        ),
                        7 => (
                            format!(
                                "/api/count?m={BIG}&n={BIG}&window=1,{},{},7",
                                next() % 1000 + 1,
                                (next() >> 1) | 1
                            ),
                            200,
                        ),
                        8 => ("/dzi/777x1235_files/99/0_0.png".to_string(), 400),
                        _ => ("/dzi/777x1235.dzi".to_string(), 200),
                    };
                    let r = get(addr, &path, &[]);
                    assert_eq!(r.status, want, "{path}: {}", r.text());
                    if want == 200 && path.contains(".png") {
                        let t = decode(&r.body);
                        assert!(t.width >= 1 && t.height >= 1);
                    }
                    done += 1;
                }
                done
            })
        })
        .collect();
    let done: usize = workers
        .into_iter()
        .map(|w| w.join().expect("no client failed"))
        .sum();
    assert!(
        done >= 1000,
        "only {done} requests finished before the deadline"
    );
    let r = server.get("/api/cell?m=3&n=3&row=2&col=2");
    assert_eq!(r.json()["p"], true, "the server is alive after the load");
}

#[cfg(unix)]
fn signal_and_wait(mut server: Server, signal: &str) -> std::process::ExitStatus {
    let pid = server.child.id().to_string();
    let sent = Command::new("kill").args([signal, &pid]).status().unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "chompute serve did not stop on {signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(unix)]
#[test]
fn sigterm_and_ctrl_c_stop_the_server_with_status_0() {
    for signal in ["-TERM", "-INT"] {
        let server = Server::start(&["--backend", "cpu"]);
        let addr = server.addr;
        // A request that has been answered, then the signal.
        assert_eq!(server.get("/dzi/777x1235_files/11/0_0.png").status, 200);
        let status = signal_and_wait(server, signal);
        assert_eq!(status.code(), Some(0), "exit status after {signal}");
        assert!(
            TcpStream::connect(addr).is_err(),
            "nothing listens after {signal}"
        );
    }
}

#[test]
fn a_port_in_use_and_bad_options_are_one_line_errors() {
    let server = Server::start(&["--backend", "cpu"]);
    let port = server.addr.port().to_string();
    let o = chompute(&["serve", "--port", &port, "--backend", "cpu"]);
    common::assert_usage_error(&o, "cannot listen on");
    let o = chompute(&["serve", "--bind", "not-an-address"]);
    common::assert_usage_error(&o, "not-an-address");
    let o = chompute(&["serve", "--port", "65536"]);
    common::assert_usage_error(&o, "65536");
    let o = chompute(&["serve", "--cache-mb", "99999999999999999"]);
    common::assert_usage_error(&o, "cache");
}

#[test]
fn the_gpu_makes_the_same_top_level_tiles() {
    let Some(ctx) = gpu_or_skip("the_gpu_makes_the_same_top_level_tiles") else {
        return;
    };
    let cpu = App::cpu();
    let gpu = App::new(chompute::gpu::Engine::Gpu(ctx), 1 << 20, 64);
    for path in [
        "/dzi/30001x30001_files/15/117_3.png",
        "/dzi/777x1235_files/11/4_3.png?colors=%23102030,%23f0e0d0",
        &format!(
            "/dzi/{BIG}x{BIG}_files/64/{}_{}.png",
            (1u64 << 56) - 1,
            1u64 << 40
        ),
    ] {
        let (a, b) = (cpu.get(path), gpu.get(path));
        assert_eq!((a.status, b.status), (200, 200), "{path}");
        assert_eq!(decode(&a.body).pixels, decode(&b.body).pixels, "{path}");
        // The bytes, and so the tag, do not depend on the device.
        assert_eq!(a.body, b.body, "{path}");
        assert_eq!(a.header("etag"), b.header("etag"), "{path}");
    }
}
