//! The server's listener: at most [`MAX_CONNECTIONS`] open connections (more wait in the
//! kernel's queue until one closes), and a connection that sends and receives nothing for
//! [`IDLE`] is closed, so clients that connect and stall cannot use up the server.

use axum::serve::Listener;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// Connections open at once.
pub const MAX_CONNECTIONS: usize = 4096;

/// How long a connection may do nothing (no byte in or out) before it is closed.
pub const IDLE: Duration = Duration::from_secs(60);

/// A TCP listener that hands out [`Guarded`] connections.
pub struct GuardedListener {
    listener: TcpListener,
    open: Arc<Semaphore>,
}

impl GuardedListener {
    /// Wrap a bound listener with the connection cap and idle timeout.
    pub fn new(listener: TcpListener) -> GuardedListener {
        GuardedListener {
            listener,
            open: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
        }
    }
}

impl Listener for GuardedListener {
    type Io = Guarded;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Guarded, SocketAddr) {
        // The semaphore is never closed, so a permit always comes.
        let permit = loop {
            if let Ok(p) = self.open.clone().acquire_owned().await {
                break p;
            }
        };
        loop {
            match self.listener.accept().await {
                Ok((stream, addr)) => {
                    let _ = stream.set_nodelay(true);
                    let guarded = Guarded {
                        stream,
                        idle: Box::pin(tokio::time::sleep(IDLE)),
                        _permit: permit,
                    };
                    return (guarded, addr);
                }
                // Out of file descriptors or a connection reset before it was accepted:
                // wait a moment and go on (as axum's own listener does).
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// A connection holding its place among the open ones, with an idle deadline that every
/// byte read or written moves on.
pub struct Guarded {
    stream: TcpStream,
    idle: Pin<Box<Sleep>>,
    _permit: OwnedSemaphorePermit,
}

impl Guarded {
    /// After progress: the deadline moves on. While waiting: an error once it has passed.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(r) => {
                self.idle.as_mut().reset(Instant::now() + IDLE);
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

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
