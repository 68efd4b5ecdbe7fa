//! A load tool for `chompute serve`: tile latency (p50, p99) and throughput under concurrent
//! clients, and the time to load a whole screen of tiles from a cold cache.
//!
//! ```text
//! chompute serve --port 8080 &
//! cargo run --release --example serve_load -- trickle http://127.0.0.1:8080/ 30001x30001 15 --connections 4000 --seconds 60
//! cargo run --release --example serve_load -- tiles http://127.0.0.1:8080/ 30001x30001 15 --threads 8 --requests 2000
//! cargo run --release --example serve_load -- view  http://127.0.0.1:8080/ 18446744073709551615x18446744073709551615 40 --runs 5
//! ```
//!
//! `tiles` asks for random tiles of one level (distinct, so a cache of their size sees
//! mostly misses) from `--threads` clients at once, one connection a request, and prints the
//! latency percentiles and the throughput. `view` asks for every tile of a 1920×1080 screen
//! (`--screen WxH`) at a random place of one level, six at a time as a browser does, and
//! prints how long the screen took; each run is a new place, so its tiles are not cached.
//! `trickle` holds `--connections` slow clients (from 100 a loopback address, 127.0.1.1 on)
//! that send a request's first line and then a header line every 5 s, never finishing, for
//! `--seconds`; meanwhile a fresh client asks for a random tile of the level every second and
//! the latencies are printed, with how many slow clients the server closed (header timeout).
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
        "trickle" => {
            let connections = flag("--connections", 4000) as usize;
            let seconds = flag("--seconds", 60);
            let mut slow = open_slow_clients(addr, connections);
            let start = Instant::now();
            let mut rng = Rng(seed);
            let (mut times, mut unanswered, mut second) = (Vec::new(), 0, 0u64);
            while start.elapsed() < Duration::from_secs(seconds) {
                if second % 5 == 0 {
                    for s in slow.iter_mut().flatten() {
                        let _ = s.write_all(format!("X-Slow-{second}: a\r\n").as_bytes());
                    }
                }
                let path = tile(rng.below(across), rng.below(down));
                let t0 = Instant::now();
                match get(addr, &path) {
                    Ok(200) => times.push(t0.elapsed()),
                    _ => unanswered += 1,
                }
                second += 1;
                std::thread::sleep(Duration::from_secs(1).saturating_sub(t0.elapsed()));
            }
            let closed = slow.iter_mut().map(still_open).filter(|open| !open).count();
            times.sort();
            println!(
                "trickle C({m},{n}) level {level}: {connections} slow clients for {seconds} s: {} fresh requests answered, {unanswered} not, p50 {:.2} ms, max {:.2} ms; {closed} slow clients closed by the server",
                times.len(),
                times.get(times.len() / 2).map_or(0.0, |d| d.as_secs_f64() * 1e3),
                times.last().map_or(0.0, |d| d.as_secs_f64() * 1e3),
            );
        }
        _ => usage(),
    }
}

/// `count` connections from 100 a loopback address (127.0.1.1, 127.0.1.2, …), each sent a
/// request's first line; `None` for one that could not connect within 10 s.
fn open_slow_clients(addr: SocketAddr, count: usize) -> Vec<Option<TcpStream>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut held = Vec::with_capacity(count);
        for i in 0..count {
            let source = format!("127.1.{}.{}:0", i / 100 / 250, 1 + i / 100 % 250);
            let connect = async {
                let socket = tokio::net::TcpSocket::new_v4()?;
                socket.bind(source.parse().expect("an address"))?;
                socket.connect(addr).await
            };
            let stream = match tokio::time::timeout(Duration::from_secs(10), connect).await {
                Ok(Ok(s)) => s.into_std().ok().inspect(|s| {
                    let _ = s.set_nonblocking(false);
                }),
                _ => None,
            };
            held.push(stream.map(|mut s| {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n");
                s
            }));
        }
        held
    })
}

/// Whether the server still holds a slow client's connection (no end, no reset, no answer).
fn still_open(s: &mut Option<TcpStream>) -> bool {
    let Some(s) = s else { return false };
    let _ = s.set_nonblocking(true);
    let mut byte = [0u8; 1];
    matches!(s.read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}
