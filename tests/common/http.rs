//! HTTP against the built binary: `chompute serve` on a free loopback port, raw requests,
//! and connections from chosen loopback source addresses.

use super::quiet_mesa;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `chompute serve --port 0`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        quiet_mesa();
        // CHOMPUTE_BIN runs these tests against another build (as the fault suite does).
        let bin = std::env::var_os("CHOMPUTE_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_chompute").into());
        let mut child = Command::new(bin)
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start chompute serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                panic!("chompute serve printed no URL within 60 s");
            }
        };
        let url = line.trim();
        let addr = url
            .strip_prefix("http://")
            .and_then(|s| s.strip_suffix('/'))
            .unwrap_or_else(|| panic!("the first line is the URL, got {line:?}"));
        Server {
            child,
            addr: addr.parse().expect("host:port"),
        }
    }

    pub fn get(&self, path: &str) -> Reply {
        get(self.addr, path, &[])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        assert_eq!(self.status, 200, "{}", self.text());
        assert_eq!(self.header("content-type"), Some("application/json"));
        serde_json::from_slice(&self.body).expect("JSON")
    }
}

/// Send raw bytes, read the whole answer (the connection is closed after one request).
pub fn exchange(addr: SocketAddr, raw: &[u8]) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    stream.write_all(raw)?;
    let mut all = Vec::new();
    stream.read_to_end(&mut all)?;
    parse_reply(&all)
}

/// A whole HTTP/1.1 answer: status, headers and the (de-chunked) body.
pub fn parse_reply(all: &[u8]) -> std::io::Result<Reply> {
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of headers"))?;
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = all[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let eol = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap().trim(), 16)
                .unwrap();
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
            rest = &rest[eol + 4 + size..];
        }
        body = out;
    }
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// Send bytes that are not a whole request, then end the connection's sending half; whatever
/// comes back (an error status, a reset) is ignored.
pub fn poke(addr: SocketAddr, raw: &[u8]) {
    if let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(10)) {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let _ = stream.write_all(raw);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let _ = stream.read_to_end(&mut Vec::new());
    }
}

pub fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut raw = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        raw.push_str(&format!("{n}: {v}\r\n"));
    }
    raw.push_str("\r\n");
    exchange(addr, raw.as_bytes()).unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

/// Connections from `source` (any address of 127.0.0.0/8) to `addr`, held open.
pub fn connect_from(source: &str, addr: SocketAddr, count: usize) -> Vec<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut held = Vec::with_capacity(count);
        for _ in 0..count {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
            let stream = tokio::time::timeout(Duration::from_secs(10), socket.connect(addr))
                .await
                .unwrap_or_else(|_| panic!("connection {} from {source} waited 10 s", held.len()))
                .unwrap();
            let stream = stream.into_std().unwrap();
            stream.set_nonblocking(false).unwrap();
            held.push(stream);
        }
        held
    })
}

/// GET `path` from `source`, with a read timeout: None when no answer came.
pub fn get_from(source: &str, addr: SocketAddr, path: &str) -> Option<Reply> {
    let mut held = connect_from(source, addr, 1);
    let mut stream = held.pop().unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .ok()?;
    let raw = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    stream.write_all(raw.as_bytes()).ok()?;
    let mut all = Vec::new();
    stream.read_to_end(&mut all).ok()?;
    parse_reply(&all).ok()
}

/// Raise this process's soft limit on open files to its hard limit (children inherit it), for
/// tests that hold thousands of connections; the limit after.
#[cfg(unix)]
pub fn raise_open_files() -> libc::rlim_t {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the one struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        let raised = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
            lim = raised;
        }
    }
    lim.rlim_cur
}
