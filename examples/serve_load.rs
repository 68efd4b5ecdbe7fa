//! A load tool for `chompute serve`: tile latency (p50, p99) and throughput under concurrent
//! clients, and the time to load a whole screen of tiles from a cold cache.
//!
//! ```text
//! chompute serve --port 8080 &
//! cargo run --release --example serve_load -- tiles http://127.0.0.1:8080/ 30001x30001 15 --threads 8 --requests 2000
//! cargo run --release --example serve_load -- view  http://127.0.0.1:8080/ 18446744073709551615x18446744073709551615 40 --runs 5
//! ```
//!
//! `tiles` asks for random tiles of one level (distinct, so a cache of their size sees
//! mostly misses) from `--threads` clients at once, one connection a request, and prints the
//! latency percentiles and the throughput. `view` asks for every tile of a 1920×1080 screen
//! (`--screen WxH`) at a random place of one level, six at a time as a browser does, and
//! prints how long the screen took; each run is a new place, so its tiles are not cached.
//! Only loopback addresses are accepted.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

fn usage() -> ! {
    eprintln!(
        "usage: serve_load tiles|view URL MxN LEVEL [--threads T] [--requests R] [--runs K] [--screen WxH]"
    );
    std::process::exit(2);
}

/// A small generator (xorshift64*), seeded per client.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

/// GET `path`, read the whole answer, return the status.
fn get(addr: SocketAddr, path: &str) -> std::io::Result<u16> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )?;
    let mut all = Vec::new();
    s.read_to_end(&mut all)?;
    let head = String::from_utf8_lossy(&all[..all.len().min(16)]).into_owned();
    head.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status line"))
}

/// Tiles across and down of `level` of C(m,n).
fn tiles(m: u64, n: u64, level: u32) -> (u64, u64) {
    let top = if m.max(n) <= 1 {
        0
    } else {
        64 - (m.max(n) - 1).leading_zeros()
    };
    assert!(level <= top, "level {level} is above the top level {top}");
    let side = |len: u64| (len as u128).div_ceil(1u128 << (top - level)) as u64;
    (side(n).div_ceil(256), side(m).div_ceil(256))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        usage();
    }
    let (mode, url, bar) = (args[0].as_str(), args[1].as_str(), args[2].as_str());
    let level: u32 = args[3].parse().unwrap_or_else(|_| usage());
    let flag = |name: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == name)
            .map(|i| {
                args.get(i + 1)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            })
            .unwrap_or(default)
    };
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|_| usage());
    assert!(
        addr.ip().is_loopback(),
        "serve_load only talks to loopback addresses"
    );
    let (m, n) = bar
        .split_once('x')
        .and_then(|(m, n)| Some((m.parse::<u64>().ok()?, n.parse::<u64>().ok()?)))
        .unwrap_or_else(|| usage());
    let (across, down) = tiles(m, n, level);
    let tile = move |c: u64, r: u64| format!("/dzi/{m}x{n}_files/{level}/{c}_{r}.png");
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    match mode {
        "tiles" => {
            let threads = flag("--threads", 8);
            let requests = flag("--requests", 2000);
            let start = Instant::now();
            let clients: Vec<_> = (0..threads)
                .map(|t| {
                    std::thread::spawn(move || {
                        let mut rng = Rng(seed ^ (t + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                        let mut times = Vec::new();
                        for _ in 0..requests / threads {
                            let path = tile(rng.below(across), rng.below(down));
                            let t0 = Instant::now();
                            let status = get(addr, &path).expect("an answer");
                            assert_eq!(status, 200, "{path}");
                            times.push(t0.elapsed());
                        }
                        times
                    })
                })
                .collect();
            let mut times: Vec<Duration> = clients
                .into_iter()
                .flat_map(|c| c.join().unwrap())
                .collect();
            let wall = start.elapsed();
            times.sort();
            println!(
                "tiles C({m},{n}) level {level}: {} requests from {threads} clients in {:.2} s: {:.0} tiles/s, p50 {:.2} ms, p99 {:.2} ms",
                times.len(),
                wall.as_secs_f64(),
                times.len() as f64 / wall.as_secs_f64(),
                percentile(&times, 0.50).as_secs_f64() * 1e3,
                percentile(&times, 0.99).as_secs_f64() * 1e3,
            );
        }
        "view" => {
            let runs = flag("--runs", 5);
            let screen = args
                .iter()
                .position(|a| a == "--screen")
                .and_then(|i| args.get(i + 1))
                .map_or("1920x1080", String::as_str);
            let (w, h) = screen
                .split_once('x')
                .and_then(|(w, h)| Some((w.parse::<u64>().ok()?, h.parse::<u64>().ok()?)))
                .unwrap_or_else(|| usage());
            let mut rng = Rng(seed);
            let mut results = Vec::new();
            for _ in 0..runs {
                // A screen at a random pixel offset of the level: its tiles, clipped to it.
                let (x0, y0) = (
                    rng.below((across * 256).saturating_sub(w).max(1)),
                    rng.below((down * 256).saturating_sub(h).max(1)),
                );
                let mut paths = Vec::new();
                for r in y0 / 256..=((y0 + h - 1) / 256).min(down - 1) {
                    for c in x0 / 256..=((x0 + w - 1) / 256).min(across - 1) {
                        paths.push(tile(c, r));
                    }
                }
                let count = paths.len();
                let queue = std::sync::Arc::new(std::sync::Mutex::new(paths));
                let start = Instant::now();
                let browsers: Vec<_> = (0..6)
                    .map(|_| {
                        let queue = queue.clone();
                        std::thread::spawn(move || loop {
                            let Some(path) = queue.lock().unwrap().pop() else {
                                break;
                            };
                            assert_eq!(get(addr, &path).expect("an answer"), 200, "{path}");
                        })
                    })
                    .collect();
                for b in browsers {
                    b.join().unwrap();
                }
                let took = start.elapsed();
                println!(
                    "view C({m},{n}) level {level} {w}x{h}: {count} tiles in {:.3} s",
                    took.as_secs_f64()
                );
                results.push(took);
            }
            results.sort();
            println!(
                "view C({m},{n}) level {level} {w}x{h}: best {:.3} s, median {:.3} s of {runs} cold screens",
                results[0].as_secs_f64(),
                results[results.len() / 2].as_secs_f64()
            );
        }
        _ => usage(),
    }
}
