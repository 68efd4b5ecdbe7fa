//! `chompute serve`: a live deep zoom into any chocolate bar C(m,n), m, n up to 2^64-1, over
//! HTTP (axum on tokio).
//!
//! - `GET /`: the viewer (`viewer.html`, `viewer.js`, written for chompute, no external
//!   script).
//! - `GET /dzi/{m}x{n}.dzi` and `GET /dzi/{m}x{n}_files/{level}/{col}_{row}.png[?shade=&colors=]`:
//!   the Deep Zoom image of [`crate::render::zoom`], so OpenSeadragon and other viewers work
//!   unchanged.
//! - `GET /api/cell?m=&n=&row=&col=` and `GET /api/count?m=&n=&window=ROW,COL,HEIGHT,WIDTH`:
//!   a cell's piles and the exact P-count of a window, integers as JSON strings.
//!
//! Tiles are made on the blocking pool, at most one per core at a time (a semaphore), never
//! on the threads that answer connections, and at most [`MAX_WAITING`] requests wait for it
//! (more get 503). Every request's work is bounded: a tile is at most 256 × 256 pixels and
//! costs O(1) a pixel at every level, a count is four runs of the 64-bit digit programme.
//! Encoded tiles stay in an LRU cache bounded in bytes; each carries a strong ETag and
//! `Cache-Control: public, max-age=31536000, immutable` (and `Access-Control-Allow-Origin: *`,
//! so viewers on other origins can read it), and `If-None-Match` gets 304 without any work. Requests are checked before any work ([`request`]): 400 with one line for a bad
//! value, 404 for a path that is not the server's. At most 4096 connections are open at once
//! and one idle for a minute is closed ([`listen`]).

pub mod cache;
pub mod listen;
pub mod request;

use self::cache::{TileCache, TileKey};
use self::request::{DziPath, Query, Reject};
use crate::chocolate::ptest::{p_cell, piles};
use crate::chocolate::window::p_count;
use crate::gpu::Engine;
use crate::render::source::CellSource;
use crate::render::zoom::{Pyramid, TileRect, TileStyle};
use crate::render::Compression;
use crate::{Error, Result};
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query as QueryPairs, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How long requests in flight may take to finish after Ctrl-C or SIGTERM.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// The most requests that may wait for the tile pool; more are answered 503 at once.
pub const MAX_WAITING: usize = 1024;

const VIEWER_HTML: &str = include_str!("viewer.html");
const VIEWER_JS: &str = include_str!("viewer.js");
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// How to run the server.
pub struct Config {
    /// Where to listen (port 0: any free port).
    pub addr: SocketAddr,
    /// Bytes of encoded tiles to keep.
    pub cache_bytes: usize,
    /// Where top-level tiles' cell rows are made; built once for the server's life.
    pub engine: Engine,
    /// Tiles made at once (the blocking pool's permits); 0: one per core.
    pub workers: usize,
}

/// Everything the handlers share.
struct Server {
    cells: CellSource,
    cache: TileCache,
    pool: Arc<Semaphore>,
    waiting: AtomicUsize,
}

type Shared = Arc<Server>;

/// Run the server until Ctrl-C or SIGTERM: bind, call `ready` with the address bound (so the
/// caller can print the URL), answer requests, and on the signal stop accepting, let the
/// requests in flight finish, and return.
pub fn run(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let workers = if config.workers == 0 {
        cores
    } else {
        config.workers
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.max(2))
        .max_blocking_threads(workers + 2)
        .thread_name("chompute-serve")
        .enable_all()
        .build()
        .map_err(|e| Error::invalid(format!("cannot start the server's threads: {e}")))?;
    let server = Arc::new(Server {
        cells: CellSource::new(config.engine, false),
        cache: TileCache::new(config.cache_bytes),
        pool: Arc::new(Semaphore::new(workers)),
        waiting: AtomicUsize::new(0),
    });
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| Error::invalid(format!("cannot listen on {}: {e}", config.addr)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::invalid(format!("cannot read the address bound: {e}")))?;
        ready(addr);
        let (stop, stopping) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        });
        let mut signalled = stopping.clone();
        let serving = axum::serve(listen::GuardedListener::new(listener), router(server))
            .with_graceful_shutdown(async move {
                let _ = signalled.wait_for(|&s| s).await;
            });
        // After the signal, requests in flight get SHUTDOWN_GRACE to finish (a tile takes
        // milliseconds); a client stalled in the middle of a request does not hold the exit.
        let mut signalled = stopping;
        let grace = async move {
            let _ = signalled.wait_for(|&s| s).await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        };
        tokio::select! {
            done = std::future::IntoFuture::into_future(serving) => {
                done.map_err(|e| Error::invalid(format!("the server stopped: {e}")))
            }
            _ = grace => Ok(()),
        }
    })
}

/// The routes.
fn router(server: Shared) -> Router {
    Router::new()
        .route("/", get(viewer_page))
        .route("/viewer.js", get(viewer_script))
        .route("/dzi/{*rest}", get(dzi))
        .route("/api/cell", get(api_cell))
        .route("/api/count", get(api_count))
        .fallback(not_found)
        .with_state(server)
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {},
        _ = terminate => {},
    }
}

impl IntoResponse for Reject {
    fn into_response(self) -> Response {
        let (status, line) = match self {
            Reject::NotFound => (StatusCode::NOT_FOUND, "not found".to_string()),
            Reject::Bad(line) => (StatusCode::BAD_REQUEST, line),
            Reject::Busy => (
                StatusCode::SERVICE_UNAVAILABLE,
                "busy: too many tiles waiting; try again".to_string(),
            ),
            Reject::Internal(line) => (StatusCode::INTERNAL_SERVER_ERROR, line),
        };
        let line = line.replace(['\n', '\r'], " ");
        let mut response = (status, format!("{line}\n")).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        if status == StatusCode::SERVICE_UNAVAILABLE {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

async fn not_found() -> Reject {
    Reject::NotFound
}

/// The query's pairs, or 400 for a malformed query string.
fn pairs(
    q: std::result::Result<QueryPairs<Vec<(String, String)>>, QueryRejection>,
) -> std::result::Result<Vec<(String, String)>, Reject> {
    q.map(|QueryPairs(p)| p)
        .map_err(|e| Reject::Bad(format!("malformed query string: {}", e.body_text())))
}

async fn viewer_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        VIEWER_HTML,
    )
        .into_response()
}

async fn viewer_script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        VIEWER_JS,
    )
        .into_response()
}

/// Whether `If-None-Match` names `etag` (or is `*`); weak tags compare by their opaque part.
fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// A response that never changes, with its ETag, or 304 when the client has it.
fn immutable(headers: &HeaderMap, etag: &str, content_type: &'static str, body: Bytes) -> Response {
    // Public, read-only data: any page may read it (OpenSeadragon on another origin fetches
    // the descriptor with XMLHttpRequest).
    let cache = [
        (header::ETAG, etag.to_string()),
        (header::CACHE_CONTROL, IMMUTABLE.to_string()),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".to_string()),
    ];
    if not_modified(headers, etag) {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    (cache, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn dzi(
    State(server): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    query: std::result::Result<QueryPairs<Vec<(String, String)>>, QueryRejection>,
) -> std::result::Result<Response, Reject> {
    // The raw path, not percent-decoded: an escaped name is never one of ours.
    let rest = uri.path().strip_prefix("/dzi/").ok_or(Reject::NotFound)?;
    let path = request::parse_dzi_path(rest)?;
    let pairs = pairs(query)?;
    match path {
        DziPath::Descriptor(pyramid) => {
            Query::new(&pairs, &[])?;
            let etag = format!("\"dzi-{}x{}\"", pyramid.m(), pyramid.n());
            let body = Bytes::from(pyramid.descriptor());
            Ok(immutable(&headers, &etag, "application/xml", body))
        }
        DziPath::Tile(pyramid, rect) => {
            let style = request::parse_style(&Query::new(&pairs, &["shade", "colors"])?)?;
            let key = TileKey::new(&pyramid, &rect, &style);
            let etag = key.etag();
            if not_modified(&headers, &etag) {
                return Ok(immutable(&headers, &etag, "image/png", Bytes::new()));
            }
            let png = match server.cache.get(&key) {
                Some(png) => png,
                None => server.make_tile(key, pyramid, rect, style).await?,
            };
            Ok(immutable(&headers, &etag, "image/png", png))
        }
    }
}

/// Holds a place in the queue for the tile pool; leaving (a permit, or a client that went
/// away) gives it back.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Server {
    /// Make a tile on the blocking pool (one permit per tile) and keep it in the cache.
    async fn make_tile(
        self: &Arc<Self>,
        key: TileKey,
        pyramid: Pyramid,
        rect: TileRect,
        style: TileStyle,
    ) -> std::result::Result<Bytes, Reject> {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= MAX_WAITING {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(Reject::Busy);
        }
        let place = Waiting(&self.waiting);
        let permit = self
            .pool
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Reject::Internal("the tile pool is closed".into()))?;
        drop(place);
        let server = self.clone();
        // The tile is made and cached even if the client leaves meanwhile: the work is
        // bounded and the next request for it finds it.
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            // Another request may have made it while this one waited.
            if let Some(png) = server.cache.get(&key) {
                return Ok(png);
            }
            let png = pyramid
                .tile_png(&rect, &style, &server.cells, Compression::Balanced)
                .map(Bytes::from)
                .map_err(|e| Reject::Internal(format!("tile failed: {e}")))?;
            server.cache.put(key, png.clone());
            Ok(png)
        })
        .await
        .map_err(|e| Reject::Internal(format!("tile failed: {e}")))?
    }
}

/// The answer of `/api/cell`; integers as strings, exact past 2^53.
#[derive(serde::Serialize)]
struct CellAnswer {
    piles: [String; 4],
    nim_sum: String,
    p: bool,
}

/// The answer of `/api/count`.
#[derive(serde::Serialize)]
struct CountAnswer {
    count: String,
}

/// A JSON body that never changes for its query.
fn json(
    headers: &HeaderMap,
    value: &impl serde::Serialize,
) -> std::result::Result<Response, Reject> {
    let body = serde_json::to_string(value).map_err(|e| Reject::Internal(e.to_string()))?;
    let etag = format!("\"{:016x}\"", cache::fnv1a(body.as_bytes()));
    Ok(immutable(
        headers,
        &etag,
        "application/json",
        Bytes::from(body),
    ))
}

/// `{"piles":[..4..],"nim_sum":"..","p":true}` for one cell (O(1), answered inline).
async fn api_cell(
    headers: HeaderMap,
    query: std::result::Result<QueryPairs<Vec<(String, String)>>, QueryRejection>,
) -> std::result::Result<Response, Reject> {
    let pairs = pairs(query)?;
    let q = Query::new(&pairs, &["m", "n", "row", "col"])?;
    let (m, n, row, col) = request::parse_cell(&q)?;
    let piles = piles(m, n, row, col);
    let nim_sum = piles.iter().fold(0, |x, &p| x ^ p);
    json(
        &headers,
        &CellAnswer {
            piles: piles.map(|p| p.to_string()),
            nim_sum: nim_sum.to_string(),
            p: p_cell(m, n, row, col),
        },
    )
}

/// `{"count":".."}`: the exact P-count of a window by the digit method (four prefixes of 64
/// bits each, answered inline).
async fn api_count(
    headers: HeaderMap,
    query: std::result::Result<QueryPairs<Vec<(String, String)>>, QueryRejection>,
) -> std::result::Result<Response, Reject> {
    let pairs = pairs(query)?;
    let q = Query::new(&pairs, &["m", "n", "window"])?;
    let window = request::parse_count(&q)?;
    json(
        &headers,
        &CountAnswer {
            count: p_count(&window).to_string(),
        },
    )
}
