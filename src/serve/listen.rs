//! How the server holds connections, so that slow or hostile clients cannot stall it:
//!
//! - a request's headers must arrive within [`Limits::header_read`] (hyper's header-read
//!   timeout), so a client that trickles a line now and then is closed;
//! - a connection that sends and receives nothing for [`Limits::idle`] is closed;
//! - one client address holds at most [`Limits::per_address`] connections; more are answered
//!   503 and closed at once;
//! - at most [`Limits::max_connections`] are open, and a slot is always kept for a new one:
//!   when all are taken, the oldest connection that is not answering a request (waiting for
//!   its headers, or idle between requests) is closed to make room. Every connection is
//!   accepted at once, none waits in the kernel's backlog;
//! - a client that sends its request and then shuts down its sending side (`shutdown(SHUT_WR)`,
//!   `nc -N`) still gets its answer (HTTP/1 half-close);
//! - a request hyper cannot parse gets its 400 (or 414, 431) with one line saying so.
//!
//! [`serve`] runs the accept loop until a shutdown future completes, then lets the requests in
//! flight finish for a grace period.
//!
//! Tests: this file's unit tests.

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// The bounds on connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one client address.
    pub per_address: usize,
    /// How long a request's headers may take to arrive.
    pub header_read: Duration,
    /// How long a connection may do nothing (no byte in or out) before it is closed.
    pub idle: Duration,
}

impl Default for Limits {
    /// 4096 connections (fewer where the process may open fewer files), 256 from one address,
    /// headers within 10 s, a minute idle.
    fn default() -> Limits {
        Limits {
            max_connections: 4096,
            per_address: 256,
            header_read: Duration::from_secs(10),
            idle: Duration::from_secs(60),
        }
    }
}

/// The answer to a connection past its address's limit, written once before closing it.
fn too_many() -> Vec<u8> {
    let line = "too many connections from this address; try again\n";
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         access-control-allow-origin: *\r\nretry-after: 1\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{line}",
        line.len()
    )
    .into_bytes()
}

/// One open connection, as the registry sees it.
struct Entry {
    addr: IpAddr,
    opened: Instant,
    /// Requests of this connection inside the router now.
    busy: Arc<AtomicUsize>,
    /// Told when the connection must close to make room.
    evict: Arc<Notify>,
}

/// The open connections.
#[derive(Default)]
struct Registry {
    next: u64,
    open: HashMap<u64, Entry>,
    per_address: HashMap<IpAddr, usize>,
}

/// What a new connection gets.
enum Admission {
    /// A place: its id, its busy counter and its eviction notice.
    Open(u64, Arc<AtomicUsize>, Arc<Notify>),
    /// Its address holds too many connections.
    TooMany,
}

impl Registry {
    /// Admit a connection from `addr`, making room by closing the oldest connection that is
    /// not answering a request when all places are taken.
    fn admit(&mut self, addr: IpAddr, limits: &Limits) -> Admission {
        let from_here = self.per_address.get(&addr).copied().unwrap_or(0);
        if from_here >= limits.per_address {
            return Admission::TooMany;
        }
        if self.open.len() >= limits.max_connections {
            let oldest = self
                .open
                .iter()
                .filter(|(_, e)| e.busy.load(Ordering::SeqCst) == 0)
                .min_by_key(|(_, e)| e.opened)
                .map(|(&id, _)| id);
            match oldest {
                Some(id) => self.close(id),
                // Every connection is answering a request: the work is bounded, so the new
                // one is refused rather than waiting.
                None => return Admission::TooMany,
            }
        }
        self.next += 1;
        let (busy, evict) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
        self.open.insert(
            self.next,
            Entry {
                addr,
                opened: Instant::now(),
                busy: busy.clone(),
                evict: evict.clone(),
            },
        );
        *self.per_address.entry(addr).or_insert(0) += 1;
        Admission::Open(self.next, busy, evict)
    }

    /// Forget connection `id` (closed, or told to close), giving back its places.
    fn close(&mut self, id: u64) {
        if let Some(e) = self.open.remove(&id) {
            e.evict.notify_one();
            if let Some(n) = self.per_address.get_mut(&e.addr) {
                *n -= 1;
                if *n == 0 {
                    self.per_address.remove(&e.addr);
                }
            }
        }
    }
}

/// The registry behind its lock; a poisoned lock is still consistent (every change is one
/// call that cannot panic halfway).
fn lock(r: &Mutex<Registry>) -> std::sync::MutexGuard<'_, Registry> {
    r.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most connections the process can hold: `wanted`, or fewer where the limit on open
/// files is lower (after raising the soft limit to the hard one), keeping 64 descriptors for
/// everything else.
pub fn connection_room(wanted: usize) -> usize {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the one struct passed by pointer.
        let got = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
        if got {
            if lim.rlim_cur < lim.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: lim.rlim_max,
                    rlim_max: lim.rlim_max,
                };
                // SAFETY: as above.
                if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                    lim = raised;
                }
            }
            let files = usize::try_from(lim.rlim_cur).unwrap_or(usize::MAX);
            return wanted.min(files.saturating_sub(64)).max(1);
        }
    }
    wanted
}

/// Answer connections of `listener` with `app` until `shutdown` completes; then stop
/// accepting, let the requests in flight finish for up to `grace`, and return.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let registry = Arc::new(Mutex::new(Registry::default()));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read)
        .half_close(true)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors or a connection reset before it was accepted:
                // wait a moment and go on (as axum's own listener does).
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let addr = peer.ip().to_canonical();
        let admitted = lock(&registry).admit(addr, &limits);
        let (id, busy, evict) = match admitted {
            Admission::Open(id, busy, evict) => (id, busy, evict),
            Admission::TooMany => {
                // A new socket's send buffer is empty: the short answer goes out at once or
                // not at all, never blocking the loop.
                let _ = stream.try_write(&too_many());
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Guarded::new(stream, limits.idle));
        let router = app.clone();
        let in_router = busy.clone();
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let router = router.clone();
            let busy = Busy::new(in_router.clone());
            async move {
                let response = router.oneshot(req.map(axum::body::Body::new)).await;
                drop(busy);
                response
            }
        });
        let connection = graceful.watch(http.serve_connection(io, service));
        let registry = registry.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = connection => {}
                () = evict.notified() => {}
            }
            lock(&registry).close(id);
        });
    }
    drop(listener);
    // After the signal, requests in flight get `grace` to finish (a tile takes milliseconds);
    // a client stalled in the middle of a request does not hold the exit.
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
}

/// Counts a request inside the router for its connection's time there.
struct Busy(Arc<AtomicUsize>);

impl Busy {
    fn new(count: Arc<AtomicUsize>) -> Busy {
        count.fetch_add(1, Ordering::SeqCst);
        Busy(count)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A connection with an idle deadline that every byte read or written moves on, and the
/// one line added to hyper's own answers to requests it cannot parse.
pub struct Guarded {
    stream: TcpStream,
    idle: Pin<Box<Sleep>>,
    limit: Duration,
    /// Bytes written in place of what hyper asked to write, and how far they went; hyper's
    /// write counts as done once they all went.
    replaced: Option<(Vec<u8>, usize, usize)>,
}

impl Guarded {
    fn new(stream: TcpStream, limit: Duration) -> Guarded {
        Guarded {
            stream,
            idle: Box::pin(tokio::time::sleep(limit)),
            limit,
            replaced: None,
        }
    }

    /// After progress: the deadline moves on. While waiting: an error once it has passed.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(r) => {
                let limit = self.limit;
                self.idle.as_mut().reset(Instant::now() + limit);
                Poll::Ready(r)
            }
            Poll::Pending => match self.idle.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the connection was idle too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// hyper's answer to a request it could not parse is a 400, 414 or 431 head with
/// `content-length: 0` (every answer of the router's own has a body); this is it with one
/// line as its body.
fn with_reason(head: &[u8]) -> Option<Vec<u8>> {
    const EMPTY: &str = "\r\ncontent-length: 0\r\n";
    let text = std::str::from_utf8(head).ok()?;
    let status_line = text.strip_prefix("HTTP/1.1 ")?.split("\r\n").next()?;
    if !["400 ", "414 ", "431 "]
        .iter()
        .any(|s| status_line.starts_with(s))
        || !text.ends_with("\r\n\r\n")
        || !text.contains(EMPTY)
    {
        return None;
    }
    let line = format!("malformed request: {status_line}\n");
    let head = text.replacen(
        EMPTY,
        &format!(
            "\r\ncontent-type: text/plain; charset=utf-8\r\naccess-control-allow-origin: *\r\ncontent-length: {}\r\n",
            line.len()
        ),
        1,
    );
    Some(format!("{head}{line}").into_bytes())
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        this.watch(cx, poll)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.replaced.is_none() {
            if let Some(bytes) = with_reason(buf) {
                this.replaced = Some((bytes, 0, buf.len()));
            }
        }
        if let Some((bytes, mut done, asked)) = this.replaced.take() {
            while done < bytes.len() {
                let poll = Pin::new(&mut this.stream).poll_write(cx, &bytes[done..]);
                match this.watch(cx, poll) {
                    Poll::Ready(Ok(n)) if n > 0 => done += n,
                    Poll::Ready(Ok(_)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {
                        this.replaced = Some((bytes, done, asked));
                        return Poll::Pending;
                    }
                }
            }
            return Poll::Ready(Ok(asked));
        }
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.watch(cx, poll)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_flush(cx);
        this.watch(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    // Not vectored: hyper then writes each head in one buffer, which `with_reason` can read.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_empty_4xx_gets_a_line_and_nothing_else_changes() {
        let head = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(with_reason(head).unwrap()).unwrap();
        assert!(
            out.ends_with("\r\n\r\nmalformed request: 400 Bad Request\n"),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "content-length: {}\r\n",
                "malformed request: 400 Bad Request\n".len()
            )),
            "{out}"
        );
        for other in [
            &b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n\r\n",
            b"\x89PNG",
        ] {
            assert_eq!(with_reason(other), None);
        }
    }

    #[test]
    fn a_full_server_closes_its_oldest_idle_connection_and_an_address_has_a_cap() {
        let limits = Limits {
            max_connections: 3,
            per_address: 2,
            ..Limits::default()
        };
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.2".parse().unwrap(), "::1".parse().unwrap());
        let mut r = Registry::default();
        let Admission::Open(first, busy, _) = r.admit(a, &limits) else {
            panic!("admitted")
        };
        busy.fetch_add(1, Ordering::SeqCst); // answering a request: never closed for room
        assert!(matches!(r.admit(a, &limits), Admission::Open(..)));
        assert!(matches!(r.admit(a, &limits), Admission::TooMany));
        let Admission::Open(third, _, third_evicted) = r.admit(b, &limits) else {
            panic!("admitted")
        };
        // Full: the oldest idle one (the second) makes room, the busy first one stays.
        assert!(matches!(r.admit(b, &limits), Admission::Open(..)));
        assert_eq!(r.open.len(), 3);
        assert!(r.open.contains_key(&first) && r.open.contains_key(&third));
        assert_eq!(r.per_address[&a], 1);
        // Then the third, told so.
        assert!(matches!(r.admit(a, &limits), Admission::Open(..)));
        assert!(!r.open.contains_key(&third));
        let told = third_evicted.notified();
        tokio::pin!(told);
        assert!(told.as_mut().enable(), "the evicted connection was told");
        // Everything else answering a request: a new one is refused.
        for e in r.open.values() {
            e.busy.fetch_add(1, Ordering::SeqCst);
        }
        assert!(matches!(r.admit(b, &limits), Admission::TooMany));
        for id in r.open.keys().copied().collect::<Vec<_>>() {
            r.close(id);
        }
        assert!(r.open.is_empty() && r.per_address.is_empty());
    }
}
