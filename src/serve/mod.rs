//! `chompute serve`: a live deep zoom into any chocolate bar C(m,n), m, n up to 2^64-1, over
//! HTTP (axum on tokio).
//!
//! - `GET /`: the viewer (`viewer.html`, `viewer.js`, written for chompute, no external
//!   script).
//! - `GET /dzi/{m}x{n}.dzi` and `GET /dzi/{m}x{n}_files/{level}/{col}_{row}.png[?shade=&colors=]`:
//!   the Deep Zoom image of [`crate::render::pyramid::zoom`], so OpenSeadragon and other viewers work
//!   unchanged.
//! - `GET /api/cell?m=&n=&row=&col=` and `GET /api/count?m=&n=&window=ROW,COL,HEIGHT,WIDTH`:
//!   a cell's piles and the exact P-count of a window, integers as JSON strings.
//!
//! The server is in axum's idiom: [`router`] is public and tests call it in-process; the
//! extractors of [`request`] turn a request into typed values or a [`Reject`]; one table
//! ([`reject::status_of`]) maps the library's error kinds to statuses (400 bad input, 413 work
//! too large, 503 busy or no device, 500 a failure of the server's own, GPU failures
//! included). Every answer, errors too, carries `Access-Control-Allow-Origin: *` (tower-http's
//! CORS layer), and an HTTP/1.1 request without `Host` gets 400.
//!
//! Tiles are made on the blocking pool, at most one per core at a time (a semaphore), never
//! on the threads that answer connections, and at most [`MAX_WAITING`] requests wait for it
//! (more get 503). Every request's work is bounded: a tile is at most 256 × 256 pixels and
//! costs O(1) a pixel at every level, a count is four runs of the 64-bit digit programme.
//! Encoded tiles stay in an LRU cache bounded in bytes; each carries a strong ETag derived
//! from everything that decides its bytes and `Cache-Control: public, max-age=31536000,
//! immutable`, and `If-None-Match` gets 304 without any work. Slow and hostile clients are
//! bounded by [`listen`]: a header-read timeout, a cap per client address, and a slot always
//! kept for a new connection.
//!
//! Tests: tests/serve.rs.

pub mod cache;
pub mod listen;
pub mod reject;
pub mod request;

use self::cache::{TileCache, TileKey};
pub use self::listen::Limits;
pub use self::reject::{status_of, Reject};
use self::request::{CellRequest, CountRequest, DziRequest, TileRequest};
use crate::chocolate::ptest::{p_cell, piles};
use crate::chocolate::window::p_count;
use crate::gpu::Engine;
use crate::render::picture::source::CellSource;
use crate::{Error, Result};
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode, Version};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How long requests in flight may take to finish after Ctrl-C, SIGTERM or SIGHUP.
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
    /// The bounds on connections.
    pub limits: Limits,
}

/// Everything the handlers share: where cells come from, the tile cache and the tile pool.
pub struct Server {
    cells: CellSource,
    cache: TileCache,
    pool: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
}

impl Server {
    /// A server drawing cells with `engine`, keeping `cache_bytes` of encoded tiles, making
    /// `workers` tiles at once (at least one) and letting `max_waiting` requests wait for a
    /// worker (more get 503; `chompute serve` takes [`MAX_WAITING`]).
    pub fn new(
        engine: Engine,
        cache_bytes: usize,
        workers: usize,
        max_waiting: usize,
    ) -> Arc<Server> {
        Arc::new(Server {
            cells: CellSource::new(engine, false),
            cache: TileCache::new(cache_bytes),
            pool: Arc::new(Semaphore::new(workers.max(1))),
            waiting: AtomicUsize::new(0),
            max_waiting,
        })
    }
}

type Shared = Arc<Server>;

/// Run the server until Ctrl-C, SIGTERM or SIGHUP: bind, call `ready` with the address bound
/// (so the caller can print the URL), answer requests, and on the signal stop accepting, let
/// the requests in flight finish, and return.
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
    let server = Server::new(config.engine, config.cache_bytes, workers, MAX_WAITING);
    let limits = Limits {
        max_connections: listen::connection_room(config.limits.max_connections),
        ..config.limits
    };
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| Error::invalid(format!("cannot listen on {}: {e}", config.addr)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::invalid(format!("cannot read the address bound: {e}")))?;
        // The signals are caught before the address is told, so none arriving after it
        // ends the process without draining.
        let stop = shutdown_signal()?;
        ready(addr);
        listen::serve(listener, router(server), limits, stop, SHUTDOWN_GRACE).await;
        Ok(())
    })
}

/// The routes, in-process: every request passes the `Host` check and gets CORS headers.
pub fn router(server: Shared) -> Router {
    // Public, read-only data: any page may read it, errors and their `Retry-After` included
    // (OpenSeadragon on another origin fetches the descriptor with XMLHttpRequest).
    let cors = tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([axum::http::Method::GET, axum::http::Method::HEAD])
        .expose_headers([header::ETAG, header::RETRY_AFTER]);
    Router::new()
        .route("/", get(viewer_page))
        .route("/viewer.js", get(viewer_script))
        .route("/dzi/{*rest}", get(dzi))
        .route("/api/cell", get(api_cell))
        .route("/api/count", get(api_count))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(server)
        .layer(axum::middleware::from_fn(require_host))
        .layer(cors)
}

/// RFC 9112 §3.2: an HTTP/1.1 request without a `Host` header (or with more than one) is 400.
async fn require_host(request: Request, next: Next) -> Response {
    let hosts = request.headers().get_all(header::HOST).iter().count();
    if request.version() == Version::HTTP_11 && hosts != 1 {
        let why = if hosts == 0 {
            "an HTTP/1.1 request must carry a Host header"
        } else {
            "an HTTP/1.1 request must carry one Host header"
        };
        return Reject::Bad(why.into()).into_response();
    }
    next.run(request).await
}

/// Ctrl-C, SIGTERM or SIGHUP (a closed terminal): each drains the server the same way. The
/// handlers are installed now, so a signal from here on is never the default (death).
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let catch = |kind: SignalKind| {
            signal(kind).map_err(|e| Error::invalid(format!("cannot catch a signal: {e}")))
        };
        let (mut int, mut term, mut hup) = (
            catch(SignalKind::interrupt())?,
            catch(SignalKind::terminate())?,
            catch(SignalKind::hangup())?,
        );
        Ok(async move {
            tokio::select! {
                _ = int.recv() => {},
                _ = term.recv() => {},
                _ = hup.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

async fn not_found() -> Reject {
    Reject::NotFound
}

/// 405 for a method other than GET or HEAD on one of the server's paths, with its line and
/// the `Allow` header.
async fn method_not_allowed() -> Response {
    let mut response = Reject::Library {
        status: StatusCode::METHOD_NOT_ALLOWED,
        line: "this server answers GET and HEAD only".into(),
    }
    .into_response();
    response.headers_mut().insert(
        header::ALLOW,
        axum::http::HeaderValue::from_static("GET, HEAD"),
    );
    response
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
    let cache = [
        (header::ETAG, etag.to_string()),
        (header::CACHE_CONTROL, IMMUTABLE.to_string()),
    ];
    if not_modified(headers, etag) {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    (cache, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn dzi(
    State(server): State<Shared>,
    headers: HeaderMap,
    request: DziRequest,
) -> std::result::Result<Response, Reject> {
    match request {
        DziRequest::Descriptor(request::DescriptorRequest(pyramid)) => {
            let etag = format!("\"dzi-{}x{}\"", pyramid.m(), pyramid.n());
            let body = Bytes::from(pyramid.descriptor());
            Ok(immutable(&headers, &etag, "application/xml", body))
        }
        DziRequest::Tile(tile) => {
            let key = TileKey::new(&tile.pyramid, &tile.rect, &tile.style);
            let etag = key.etag();
            if not_modified(&headers, &etag) {
                return Ok(immutable(&headers, &etag, "image/png", Bytes::new()));
            }
            let png = match server.cache.get(&key) {
                Some(png) => png,
                None => server.make_tile(key, tile).await?,
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
        tile: TileRequest,
    ) -> std::result::Result<Bytes, Reject> {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
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
            let png = tile
                .pyramid
                .tile_png(&tile.rect, &tile.style, &server.cells, TILE_COMPRESSION)
                .map(Bytes::from)?;
            server.cache.put(key, png.clone());
            Ok(png)
        })
        .await
        .map_err(|e| Reject::Internal(format!("tile failed: {e}")))?
    }
}

/// How hard tiles are compressed; part of every tile's ETag, as everything that decides its
/// bytes is.
pub const TILE_COMPRESSION: crate::render::Compression = crate::render::Compression::Balanced;

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
    CellRequest { m, n, row, col }: CellRequest,
) -> std::result::Result<Response, Reject> {
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
    CountRequest(window): CountRequest,
) -> std::result::Result<Response, Reject> {
    json(
        &headers,
        &CountAnswer {
            count: p_count(&window).to_string(),
        },
    )
}
