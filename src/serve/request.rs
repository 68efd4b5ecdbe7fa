//! What a client asked for, parsed and checked before any work is done, as axum extractors
//! ([`FromRequestParts`]): [`TileRequest`], [`DescriptorRequest`], [`CellRequest`] and
//! [`CountRequest`] each turn a request's path and query into typed values or a [`Reject`]:
//! every malformed or out-of-range value is [`Reject::Bad`] with one line naming it and its
//! real limits, every path that is not one of the server's is [`Reject::NotFound`].
//!
//! One rule for numbers everywhere: ASCII digits only, nothing else (no sign, no space).
//!
//! Tests: this file's unit tests.

use super::reject::Reject;
use crate::chocolate::grid::Window;
use crate::render::parse_colour;
use crate::render::picture::shade::Shade;
use crate::render::picture::Colours;
use crate::render::pyramid::zoom::{Pyramid, TileRect, TileStyle};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

/// A request for one tile: `/dzi/{m}x{n}_files/{level}/{col}_{row}.png[?shade=&colors=]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRequest {
    /// The bar's pyramid.
    pub pyramid: Pyramid,
    /// The tile's place in its level.
    pub rect: TileRect,
    /// Shade and colours asked for.
    pub style: TileStyle,
}

/// A request for a Deep Zoom descriptor: `/dzi/{m}x{n}.dzi`, no query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorRequest(pub Pyramid);

/// `/api/cell?m=&n=&row=&col=`: a cell inside its bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellRequest {
    /// Rows of the bar.
    pub m: u64,
    /// Columns of the bar.
    pub n: u64,
    /// The cell's row, 1 ..= m.
    pub row: u64,
    /// The cell's column, 1 ..= n.
    pub col: u64,
}

/// `/api/count?m=&n=&window=ROW,COL,HEIGHT,WIDTH`: a window inside its bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountRequest(pub Window);

/// The query's pairs, percent-decoded (axum's `Query`), or 400 for a malformed query string.
fn query_pairs(parts: &Parts) -> Result<Vec<(String, String)>, Reject> {
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
        .map(|axum::extract::Query(p)| p)
        .map_err(|e| Reject::Bad(format!("malformed query string: {}", e.body_text())))
}

/// The path after `/dzi/`, not percent-decoded: an escaped name is never one of ours.
fn dzi_rest(parts: &Parts) -> Result<&str, Reject> {
    parts
        .uri
        .path()
        .strip_prefix("/dzi/")
        .ok_or(Reject::NotFound)
}

/// A path under `/dzi/` with its query: a descriptor or a tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DziRequest {
    /// `/dzi/{m}x{n}.dzi`
    Descriptor(DescriptorRequest),
    /// `/dzi/{m}x{n}_files/{level}/{col}_{row}.png`
    Tile(TileRequest),
}

impl<S: Send + Sync> FromRequestParts<S> for DziRequest {
    type Rejection = Reject;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Reject> {
        let path = parse_dzi_path(dzi_rest(parts)?)?;
        let pairs = query_pairs(parts)?;
        Ok(match path {
            DziPath::Descriptor(pyramid) => {
                Query::new(&pairs, &[])?;
                DziRequest::Descriptor(DescriptorRequest(pyramid))
            }
            DziPath::Tile(pyramid, rect) => DziRequest::Tile(TileRequest {
                pyramid,
                rect,
                style: parse_style(&Query::new(&pairs, &["shade", "colors"])?)?,
            }),
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for CellRequest {
    type Rejection = Reject;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Reject> {
        let pairs = query_pairs(parts)?;
        let (m, n, row, col) = parse_cell(&Query::new(&pairs, &["m", "n", "row", "col"])?)?;
        Ok(CellRequest { m, n, row, col })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for CountRequest {
    type Rejection = Reject;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Reject> {
        let pairs = query_pairs(parts)?;
        Ok(CountRequest(parse_count(&Query::new(
            &pairs,
            &["m", "n", "window"],
        )?)?))
    }
}

/// What a path under `/dzi/` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DziPath {
    /// `/dzi/{m}x{n}.dzi`
    Descriptor(Pyramid),
    /// `/dzi/{m}x{n}_files/{level}/{col}_{row}.png`
    Tile(Pyramid, TileRect),
}

/// A segment that could step out of the tree or hide one: `.`/`..`, empty, escaped or with a
/// backslash. Names the server makes never need any of these, so such a path is not found.
fn suspicious(segment: &str) -> bool {
    segment.is_empty() || segment == "." || segment == ".." || segment.contains(['%', '\\', '\0'])
}

/// A whole number in `min ..= max`, ASCII digits only.
pub fn parse_number(what: &str, s: &str, min: u64, max: u64) -> Result<u64, Reject> {
    let bad = || {
        Reject::Bad(format!(
            "{what} must be a whole number from {min} to {max} (got '{}')",
            shorten(s)
        ))
    };
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match s.parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(bad()),
    }
}

/// At most 40 characters of what a client sent, for an error line.
fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// `{m}x{n}` → the pyramid of C(m,n).
fn parse_bar(s: &str) -> Result<Pyramid, Reject> {
    let Some((m, n)) = s.split_once('x') else {
        return Err(Reject::Bad(format!(
            "the bar must be written MxN, e.g. 777x1235 (got '{}')",
            shorten(s)
        )));
    };
    let m = parse_number("m", m, 1, u64::MAX)?;
    let n = parse_number("n", n, 1, u64::MAX)?;
    Ok(Pyramid::new(m, n)?)
}

/// The path after `/dzi/` (not percent-decoded).
pub fn parse_dzi_path(rest: &str) -> Result<DziPath, Reject> {
    let segments: Vec<&str> = rest.split('/').collect();
    if segments.iter().any(|s| suspicious(s)) {
        return Err(Reject::NotFound);
    }
    match segments.as_slice() {
        [file] => {
            let bar = file.strip_suffix(".dzi").ok_or(Reject::NotFound)?;
            Ok(DziPath::Descriptor(parse_bar(bar)?))
        }
        [files, level, tile] => {
            let bar = files.strip_suffix("_files").ok_or(Reject::NotFound)?;
            let tile = tile.strip_suffix(".png").ok_or(Reject::NotFound)?;
            let pyramid = parse_bar(bar)?;
            let top = pyramid.top();
            let what = format!("the level of C({},{})", pyramid.m(), pyramid.n());
            // At most 64, so it fits a u32.
            let level = parse_number(&what, level, 0, top as u64)? as u32;
            let Some((col, row)) = tile.split_once('_') else {
                return Err(Reject::Bad(format!(
                    "a tile is named COL_ROW.png (got '{}.png')",
                    shorten(tile)
                )));
            };
            let (across, down) = pyramid.tiles(level)?;
            let at = format!("at level {level}");
            let col = parse_number(&format!("the tile column {at}"), col, 0, across - 1)?;
            let row = parse_number(&format!("the tile row {at}"), row, 0, down - 1)?;
            Ok(DziPath::Tile(pyramid, pyramid.tile(level, col, row)?))
        }
        _ => Err(Reject::NotFound),
    }
}

/// Query parameters, each name at most once and only those in `allowed`.
pub struct Query<'a> {
    pairs: &'a [(String, String)],
}

impl<'a> Query<'a> {
    /// The query's pairs, refusing any name not in `allowed`.
    pub fn new(pairs: &'a [(String, String)], allowed: &[&str]) -> Result<Query<'a>, Reject> {
        for (i, (name, _)) in pairs.iter().enumerate() {
            if !allowed.contains(&name.as_str()) {
                return Err(Reject::Bad(if allowed.is_empty() {
                    format!(
                        "this path takes no query parameters (got '{}')",
                        shorten(name)
                    )
                } else {
                    format!(
                        "unknown query parameter '{}' (this path takes {})",
                        shorten(name),
                        allowed.join(", ")
                    )
                }));
            }
            if pairs[..i].iter().any(|(n, _)| n == name) {
                return Err(Reject::Bad(format!("query parameter '{name}' given twice")));
            }
        }
        Ok(Query { pairs })
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `name`, or a 400 naming it.
    pub fn require(&self, name: &str) -> Result<&'a str, Reject> {
        self.get(name)
            .ok_or_else(|| Reject::Bad(format!("missing query parameter '{name}'")))
    }
}

/// `?shade=` and `?colors=P,N` of a tile.
pub fn parse_style(q: &Query) -> Result<TileStyle, Reject> {
    let shade = match q.get("shade") {
        Some(s) => s.parse::<Shade>().map_err(|_| {
            Reject::Bad(format!(
                "shade must be linear, sqrt or log (got '{}')",
                shorten(s)
            ))
        })?,
        None => Shade::Linear,
    };
    let colours: Colours = match q.get("colors") {
        None => None,
        Some(s) => {
            let Some((p, n)) = s.split_once(',') else {
                return Err(Reject::Bad(format!(
                    "colors wants two colours P,N such as %235b2a86,%23f4efe6 (got '{}')",
                    shorten(s)
                )));
            };
            let colour = |c: &str| parse_colour(c).map_err(|e| Reject::Bad(format!("colors: {e}")));
            Some([colour(p)?, colour(n)?])
        }
    };
    Ok(TileStyle { shade, colours })
}

/// `/api/cell?m=&n=&row=&col=` → (m, n, row, col), the cell inside the bar.
pub fn parse_cell(q: &Query) -> Result<(u64, u64, u64, u64), Reject> {
    let m = parse_number("m", q.require("m")?, 1, u64::MAX)?;
    let n = parse_number("n", q.require("n")?, 1, u64::MAX)?;
    let row = parse_number("row", q.require("row")?, 1, m)?;
    let col = parse_number("col", q.require("col")?, 1, n)?;
    Ok((m, n, row, col))
}

/// `/api/count?m=&n=&window=ROW,COL,HEIGHT,WIDTH` → the window.
pub fn parse_count(q: &Query) -> Result<Window, Reject> {
    let m = parse_number("m", q.require("m")?, 1, u64::MAX)?;
    let n = parse_number("n", q.require("n")?, 1, u64::MAX)?;
    let text = q.require("window")?;
    let parts: Vec<&str> = text.split(',').collect();
    let bad = || {
        Reject::Bad(format!(
            "window wants ROW,COL,HEIGHT,WIDTH, four whole numbers from 1 (got '{}')",
            shorten(text)
        ))
    };
    let [r, c, h, w] = parts.as_slice() else {
        return Err(bad());
    };
    let num = |s: &str| parse_number("window", s, 1, u64::MAX).map_err(|_| bad());
    let (r, c, h, w) = (num(r)?, num(c)?, num(h)?, num(w)?);
    Window::new(m, n, r, c, h, w).map_err(|e| Reject::Bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &[(&str, &str)]) -> Vec<(String, String)> {
        q.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn dzi_paths() {
        let DziPath::Descriptor(p) = parse_dzi_path("777x1235.dzi").unwrap() else {
            panic!("a descriptor")
        };
        assert_eq!((p.m(), p.n(), p.top()), (777, 1235, 11));
        let DziPath::Tile(_, t) = parse_dzi_path("777x1235_files/11/4_3.png").unwrap() else {
            panic!("a tile")
        };
        assert_eq!(
            (t.level, t.col, t.row, t.width, t.height),
            (11, 4, 3, 211, 9)
        );
        let big = "18446744073709551615x18446744073709551615_files/64/72057594037927935_0.png";
        assert!(parse_dzi_path(big).is_ok());
        for not_found in [
            "777x1235",
            "777x1235.xml",
            "../etc/passwd",
            "..%2f..%2fetc%2fpasswd",
            "777x1235_files/../../x.png",
            "777x1235_files//4_3.png",
            "777x1235_files/11/4_3.jpg",
            "777x1235_files/11/4_3.png/x",
            "a\\b.dzi",
        ] {
            assert_eq!(
                parse_dzi_path(not_found),
                Err(Reject::NotFound),
                "{not_found}"
            );
        }
        for bad in [
            "0x5.dzi",
            "5x0.dzi",
            "5.dzi",
            "-5x5.dzi",
            "18446744073709551616x1.dzi",
            "777x1235_files/12/0_0.png",
            "777x1235_files/99999999999/0_0.png",
            "777x1235_files/11/5_0.png",
            "777x1235_files/11/0_4.png",
            "777x1235_files/11/03.png",
            "777x1235_files/11/x_0.png",
        ] {
            assert!(matches!(parse_dzi_path(bad), Err(Reject::Bad(_))), "{bad}");
        }
    }

    #[test]
    fn queries() {
        let p = pairs(&[("shade", "log"), ("colors", "#5b2a86,f4efe6")]);
        let style = parse_style(&Query::new(&p, &["shade", "colors"]).unwrap()).unwrap();
        assert_eq!(style.shade, Shade::Log);
        assert_eq!(
            style.colours,
            Some([[0x5b, 0x2a, 0x86], [0xf4, 0xef, 0xe6]])
        );
        for bad in [
            vec![("shade", "cubic")],
            vec![("colors", "#fff")],
            vec![("colors", "#000000")],
            vec![("colors", "#000000,#gggggg")],
        ] {
            let p = pairs(&bad);
            let q = Query::new(&p, &["shade", "colors"]).unwrap();
            assert!(matches!(parse_style(&q), Err(Reject::Bad(_))), "{bad:?}");
        }
        let p = pairs(&[("shades", "log")]);
        assert!(Query::new(&p, &["shade", "colors"]).is_err());
        let p = pairs(&[("shade", "log"), ("shade", "sqrt")]);
        assert!(Query::new(&p, &["shade"]).is_err());
        let p = pairs(&[("m", "5"), ("n", "7"), ("row", "5"), ("col", "8")]);
        let q = Query::new(&p, &["m", "n", "row", "col"]).unwrap();
        assert!(matches!(parse_cell(&q), Err(Reject::Bad(_))));
        let p = pairs(&[("m", "5"), ("n", "7"), ("window", "1,1,5,7")]);
        let q = Query::new(&p, &["m", "n", "window"]).unwrap();
        assert_eq!(parse_count(&q).unwrap(), Window::full(5, 7).unwrap());
        for w in ["1,1,6,7", "0,1,1,1", "1,1,1", "1,1,1,1,1", "a,1,1,1", ""] {
            let p = pairs(&[("m", "5"), ("n", "7"), ("window", w)]);
            let q = Query::new(&p, &["m", "n", "window"]).unwrap();
            assert!(matches!(parse_count(&q), Err(Reject::Bad(_))), "{w}");
        }
    }
}
