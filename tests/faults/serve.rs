//! The server as a hostile or careless client meets it (issue 20's server items), through the
//! built binary on loopback: malformed HTTP, half-closed clients, slow clients (a header-read
//! timeout, a cap per address, a slot kept for a new request), tiles whose bytes and ETag do
//! not depend on the server's options, CORS and `Host` on the wire, an impossible cache, and
//! SIGHUP. Traffic goes only to 127.0.0.0/8, bounded in count and time.

use super::common::http::{connect_from, exchange, get_from, poke, raise_open_files, Server};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

#[test]
fn malformed_http_gets_one_line_and_the_server_goes_on() {
    let server = Server::start(&["--backend", "cpu"]);
    // Malformed HTTP: hyper's 400 (or 431 for a huge header), with one line saying so.
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(1 << 20)
    );
    let garbage: [&[u8]; 4] = [
        b"GARBAGE\r\n\r\n",
        b"GET /api/cell?m=1&n=1&row=1&col=1 HTTP/1.1\r\nHost: x\r\nX\x01: a\r\n\r\n",
        b"GET /x\x01y HTTP/1.1\r\nHost: x\r\n\r\n",
        huge.as_bytes(),
    ];
    for raw in garbage {
        let shown = String::from_utf8_lossy(&raw[..raw.len().min(30)]).into_owned();
        let r = exchange(server.addr, raw).unwrap_or_else(|e| panic!("{shown:?}: {e}"));
        assert!(
            r.status == 400 || r.status == 431,
            "{shown:?}: {}",
            r.status
        );
        assert!(
            r.text().starts_with("malformed request: "),
            "{shown:?}: {:?}",
            r.text()
        );
        assert_eq!(r.text().lines().count(), 1, "{shown:?}");
    }
    poke(server.addr, b"\x00\x01\x02\x03");
    drop(TcpStream::connect(server.addr).unwrap());
    // A request without Host, on the wire.
    let r = exchange(server.addr, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    // Connections that send nothing, and one that stalls mid-request, held open meanwhile.
    let mut idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    idle[0]
        .write_all(b"GET /api/cell?m=1&n=1&row=1&col=1 HTTP/1.1\r\nHo")
        .unwrap();
    let r = server.get("/api/cell?m=1&n=1&row=1&col=1");
    assert_eq!(r.json()["p"], true, "the server still answers");
    drop(idle);
}

#[test]
fn a_client_that_half_closes_after_its_request_gets_the_answer() {
    let server = Server::start(&["--backend", "cpu"]);
    let paths = [
        "/",
        "/viewer.js",
        "/dzi/777x1235.dzi",
        "/dzi/777x1235_files/11/0_0.png",
        "/dzi/30001x30001_files/9/1_0.png?shade=sqrt",
        "/api/cell?m=5&n=5&row=1&col=2",
        "/api/count?m=5&n=5&window=1,1,5,5",
        "/api/cell?m=5&n=5&row=9&col=2",
        "/nope",
    ];
    for round in 0..40 {
        for path in paths {
            // `nc -N`: the whole request, then shutdown(SHUT_WR), then read to the end.
            let mut stream = TcpStream::connect(server.addr).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            let raw = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
            stream.write_all(raw.as_bytes()).unwrap();
            stream.shutdown(std::net::Shutdown::Write).unwrap();
            let mut all = Vec::new();
            let _ = stream.read_to_end(&mut all);
            let head = String::from_utf8_lossy(&all[..all.len().min(12)]).into_owned();
            assert!(
                head.starts_with("HTTP/1.1 "),
                "round {round} {path}: no answer ({} bytes)",
                all.len()
            );
        }
    }
}

#[test]
fn a_fresh_request_is_answered_while_4100_connections_trickle_headers() {
    // This process holds 4400 sockets, the server as many again (it raises its own limit).
    let files = raise_open_files();
    if files < 4600 {
        return super::harness::skipped(
            "a_fresh_request_is_answered_while_4100_connections_trickle_headers",
            &format!("at most {files} open files"),
        );
    }
    let server = Server::start(&["--backend", "cpu"]);
    // 4100 connections (more than the 4096 the server holds) from 41 loopback addresses
    // (100 each, under the cap per address), each sending a request's first line and then a
    // header line now and then, never finishing.
    let mut trickling = Vec::new();
    for a in 0..41 {
        let source = format!("127.0.{}.{}", 10 + a / 200, 1 + a % 200);
        trickling.extend(connect_from(&source, server.addr, 100));
    }
    for s in &mut trickling {
        let _ = s.write_all(b"GET /api/cell?m=1&n=1&row=1&col=1 HTTP/1.1\r\n");
    }
    for line in 0..3 {
        // A fresh client, on an address of its own, is answered at once, every time.
        let r = get_from("127.0.0.1", server.addr, "/api/cell?m=3&n=3&row=2&col=2")
            .unwrap_or_else(|| panic!("round {line}: no answer while 4100 connections trickle"));
        assert_eq!(r.json()["p"], true);
        for s in &mut trickling {
            let _ = s.write_all(format!("X-Line-{line}: a\r\n").as_bytes());
        }
    }
    // One address past its cap: its further connections are refused with 503, others are
    // still answered.
    let mut flood = connect_from("127.0.9.9", server.addr, 300);
    // Accepted in the order they connected: the first 256 are held, the rest refused.
    for (i, s) in flood.iter_mut().enumerate().skip(256) {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head)
            .unwrap_or_else(|e| panic!("connection {i} past the cap: no answer: {e}"));
        assert_eq!(&head, b"HTTP/1.1 503", "connection {i} past the cap");
    }
    for (i, s) in flood.iter_mut().enumerate().take(256) {
        s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut head = [0u8; 12];
        assert!(
            s.read_exact(&mut head).is_err(),
            "connection {i} under the cap is held"
        );
    }
    let r = get_from("127.0.0.1", server.addr, "/api/cell?m=3&n=3&row=2&col=2");
    assert_eq!(r.expect("an answer").json()["p"], true);
    drop(flood);
    drop(trickling);
}

#[test]
fn a_request_whose_headers_trickle_is_closed_by_the_header_timeout() {
    let server = Server::start(&["--backend", "cpu"]);
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    stream
        .write_all(b"GET /api/cell?m=1&n=1&row=1&col=1 HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // A header line every second or two, for up to a minute (the idle limit): the server
    // closes the connection long before (10 s for the headers), and answers nothing.
    let mut closed = false;
    for line in 0..40 {
        if stream
            .write_all(format!("X-Line-{line}: a\r\n").as_bytes())
            .is_err()
        {
            closed = true;
            break;
        }
        let mut bytes = [0u8; 64];
        match stream.read(&mut bytes) {
            // The read timed out: still open, trickle on.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            // An end, a reset, or an answer (408): the server gave up on the headers.
            _ => {
                closed = true;
                break;
            }
        }
    }
    assert!(closed, "a minute of trickled headers was never closed");
}

#[test]
fn two_servers_of_different_options_send_one_tag_and_one_body_naming_no_command_line() {
    let default = Server::start(&["--backend", "cpu"]);
    let small = Server::start(&["--backend", "cpu", "--cache-mb", "10"]);
    for path in [
        "/dzi/777x1234_files/11/0_0.png",
        "/dzi/777x1234_files/7/0_0.png?shade=sqrt",
    ] {
        let (a, b) = (default.get(path), small.get(path));
        assert_eq!((a.status, b.status), (200, 200), "{path}");
        assert_eq!(a.header("etag"), b.header("etag"), "{path}");
        assert_eq!(a.body, b.body, "{path}: the same tag, the same bytes");
        let text = String::from_utf8_lossy(&a.body);
        assert!(
            !text.contains("--port") && !text.contains("serve"),
            "{path}: {text:?}"
        );
        assert!(
            text.contains("Deep Zoom level"),
            "{path}: the tile describes itself"
        );
    }
}

#[test]
fn errors_on_the_wire_carry_cors_and_a_request_without_host_is_400() {
    let server = Server::start(&["--backend", "cpu"]);
    for (path, status) in [
        ("/dzi/777x1235_files/12/0_0.png", 400),
        ("/api/cell?m=5&n=5&row=6&col=1", 400),
        ("/nope", 404),
    ] {
        let r = server.get(path);
        assert_eq!(r.status, status, "{path}");
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}");
    }
    let r = server.get("/dzi/777x1235_files/12/0_0.png");
    assert!(r.text().contains("from 0 to 11"), "{}", r.text());
    let r = exchange(server.addr, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Host"), "{}", r.text());
}

#[test]
fn a_cache_larger_than_memory_is_refused_at_start() {
    let run = super::harness::run_for(
        super::harness::command(&["serve", "--port", "0", "--cache-mb", "10000000"]),
        Duration::from_secs(30),
    );
    run.assert_no_panic();
    assert!(!run.timed_out, "serve --cache-mb 10000000 started");
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert_eq!(run.stderr_lines().len(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("--cache-mb 10000000 is too large"),
        "{}",
        run.stderr
    );
}

#[test]
fn sighup_drains_the_server_as_sigterm_does() {
    let mut server = Server::start(&["--backend", "cpu"]);
    let addr = server.addr;
    assert_eq!(server.get("/dzi/777x1235_files/11/0_0.png").status, 200);
    super::harness::signal(server.child.id(), "HUP");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "serve did not stop on SIGHUP"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), None, "killed by SIGHUP");
    assert_eq!(
        status.code(),
        Some(0),
        "drained and exited as after SIGTERM"
    );
    assert!(
        TcpStream::connect(addr).is_err(),
        "nothing listens after SIGHUP"
    );
}
