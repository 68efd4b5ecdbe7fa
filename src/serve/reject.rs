//! Why a request gets an error instead of an answer, and the one table that maps the
//! library's error kinds to HTTP statuses ([`status_of`]).
//!
//! Every error is one line of text (`text/plain`), carries `Access-Control-Allow-Origin` like
//! every other answer (the CORS layer of [`super::router`]), and a 503 says `Retry-After`.
//!
//! Tests: this file's unit tests.

use crate::Error;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// Why a request gets no answer but an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reject {
    /// 404: no such path.
    NotFound,
    /// 400, with one line naming the problem.
    Bad(String),
    /// 503: too many requests are waiting for the tile pool, or the server is stopping.
    Busy,
    /// A library error, answered with the status [`status_of`] gives its kind.
    Library {
        /// The status of the error's kind.
        status: StatusCode,
        /// The error's line.
        line: String,
    },
    /// 500: a tile could not be made (a bug, a failed task), with the reason.
    Internal(String),
}

/// The HTTP status of each kind of library error: what the client sent is wrong (400), the
/// work it asks for is too large (413), the server cannot do it now (503) or failed (500).
/// GPU failures are the server's, never the client's.
pub fn status_of(e: &Error) -> StatusCode {
    match e {
        Error::BadArgument { .. }
        | Error::BadInput { .. }
        | Error::Conflict { .. }
        | Error::Invalid(_) => StatusCode::BAD_REQUEST,
        Error::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        Error::NoAdapter(_) | Error::Interrupted => StatusCode::SERVICE_UNAVAILABLE,
        Error::Gpu(_) | Error::Io { .. } | Error::CheckFailed(_) => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
    }
}

impl From<Error> for Reject {
    fn from(e: Error) -> Reject {
        Reject::Library {
            status: status_of(&e),
            line: e.to_string(),
        }
    }
}

impl Reject {
    /// The status and the line of this rejection.
    pub fn status_and_line(&self) -> (StatusCode, String) {
        match self {
            Reject::NotFound => (StatusCode::NOT_FOUND, "not found".to_string()),
            Reject::Bad(line) => (StatusCode::BAD_REQUEST, line.clone()),
            Reject::Busy => (
                StatusCode::SERVICE_UNAVAILABLE,
                "busy: too many tiles waiting; try again".to_string(),
            ),
            Reject::Library { status, line } => (*status, line.clone()),
            Reject::Internal(line) => (StatusCode::INTERNAL_SERVER_ERROR, line.clone()),
        }
    }
}

impl IntoResponse for Reject {
    fn into_response(self) -> Response {
        let (status, line) = self.status_and_line();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_has_its_status() {
        let io = Error::io("x", std::io::Error::other("disk"));
        let table = [
            (Error::bad_argument("m", 0, "at least 1"), 400),
            (Error::invalid("bad"), 400),
            (Error::too_large("the tile", "it needs 9 GiB"), 413),
            (Error::NoAdapter("none".into()), 503),
            (Error::Interrupted, 503),
            (Error::Gpu("device lost".into()), 500),
            (io, 500),
            (Error::CheckFailed("x".into()), 500),
        ];
        for (e, status) in table {
            assert_eq!(status_of(&e).as_u16(), status, "{e}");
            let r = Reject::from(e).into_response();
            assert_eq!(r.status().as_u16(), status);
        }
    }
}
