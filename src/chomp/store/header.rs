//! The sealed header every table file starts with: an ASCII line naming its kind and
//! version, `key value` lines, then `header-crc32` of the bytes before that line and an empty
//! line. `Sealed::open` reads one, checks its CRC and its kind, and hands the kind's reader
//! its fields and its body.
//!
//! Tests: src/chomp/store/ and the kinds' unit tests; tests/faults/tables.rs (every kind).

use super::chunks::{chunk_seed, CheckedBody, CHUNK_BYTES};
use super::files::{damaged, open_regular, read_prefix, HEADER_MAX};
use super::KINDS;
use crate::chomp::diagram::ChompBox;
use crate::chomp::index::{BitLayout, COLEX_SCHEME, HOOK_SCHEME};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A kind of table file: the word of its first line (`chompute chomp NAME VERSION`) and the
/// version written now (the one before, whose chunk CRCs do not depend on the header, is read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// The kind's word in the first line (`p-table`, `grundy-table`, …).
    pub name: &'static str,
    /// What a reader calls it ("a one-bit table", "a Grundy table", …).
    pub title: &'static str,
    /// The version written.
    pub version: u32,
}

impl Kind {
    /// The kind `name` (`title` to a reader) written at `version`.
    pub const fn new(name: &'static str, title: &'static str, version: u32) -> Kind {
        Kind {
            name,
            title,
            version,
        }
    }

    /// The first line of a file of this kind as written now.
    pub fn magic(&self) -> String {
        self.magic_of(self.version)
    }

    /// The first line of a file of this kind at `version`.
    pub fn magic_of(&self, version: u32) -> String {
        format!("chompute chomp {} {version}", self.name)
    }
}

/// A sealed header read from a file, its CRC checked, for the kind's reader to take its
/// fields, [`Sealed::expect`] the header it would write and open the [`Sealed::body`].
#[derive(Debug)]
pub(crate) struct Sealed {
    pub(crate) path: PathBuf,
    /// The file, for a kind that reads its body its own way.
    pub(crate) file: File,
    /// The `key value` pairs after the first line.
    pub(crate) pairs: Vec<(String, String)>,
    /// The header's bytes.
    prefix: Vec<u8>,
    /// The version its first line names.
    pub(crate) version: u32,
    /// The kind its first line names.
    pub(crate) kind: Kind,
}

impl Sealed {
    /// Open the regular file `path` as a table of the kind its first line names (any of
    /// [`KINDS`]), its header's CRC checked.
    pub(crate) fn open(path: &Path) -> Result<Sealed> {
        let file = open_regular(path)?;
        let first = read_prefix(&file, path, HEADER_MAX as u64 + 2)?;
        // A kind's version now or the one before.
        let versions = KINDS
            .iter()
            .flat_map(|&k| [(k, k.version), (k, k.version - 1)]);
        let named =
            |&(k, v): &(Kind, u32)| first.starts_with(format!("{}\n", k.magic_of(v)).as_bytes());
        let Some((kind, version)) = versions.into_iter().find(named) else {
            let kinds: Vec<String> = KINDS.iter().map(|k| format!("'{}'", k.magic())).collect();
            return Err(Error::invalid(format!(
                "{}: not a chompute table (its first line is none of {}; a table of an older \
                 version is computed again to write the current one)",
                path.display(),
                kinds.join(", ")
            )));
        };
        let (pairs, start) = read_header(path, &mut &first[..], &kind.magic_of(version))?;
        let prefix = first[..start as usize].to_vec();
        if !header_crc_holds(&prefix) {
            return Err(damaged(path, "the header does not match its header-crc32"));
        }
        Ok(Sealed {
            path: path.to_path_buf(),
            file,
            pairs,
            prefix,
            version,
            kind,
        })
    }

    /// This file as a table of `kind`; one of another kind is refused, naming both.
    pub(crate) fn of(self, kind: Kind) -> Result<Sealed> {
        if self.kind != kind {
            return Err(Error::invalid(format!(
                "{}: {} (`chomp query` answers from it); this needs {}",
                self.path.display(),
                self.kind.title,
                kind.title
            )));
        }
        Ok(self)
    }

    /// The first line as read (the magic to rebuild the header with).
    pub(crate) fn magic(&self) -> String {
        self.kind.magic_of(self.version)
    }

    /// The number `key` holds.
    pub(crate) fn number(&self, key: &str) -> Result<u64> {
        number(&self.path, &self.pairs, key)
    }

    /// The box and numbering the header names.
    pub(crate) fn layout(&self) -> Result<BitLayout> {
        header_index(&self.path, &self.pairs)
    }

    /// The box and numbering of a table of values (`what`): colex ranks, or the hook index
    /// that keeps every interior of a diagonal hook; any other is refused.
    pub(crate) fn value_layout(&self, what: &str) -> Result<BitLayout> {
        let layout = self.layout()?;
        let rows = layout.shape().rows;
        if layout.hook_index().is_some_and(|h| h.min_child() != rows) {
            return Err(Error::invalid(format!(
                "{}: {what} numbered by '{}'; chompute writes '{COLEX_SCHEME}' or \
                 '{HOOK_SCHEME} {rows}'",
                self.path.display(),
                layout.scheme()
            )));
        }
        Ok(layout)
    }

    /// The header must be exactly `header`, the one the kind writes for the fields read
    /// (`why` says what it would not match).
    pub(crate) fn expect(&self, header: &str, why: &str) -> Result<()> {
        if header.as_bytes() != self.prefix {
            return Err(damaged(&self.path, why));
        }
        Ok(())
    }

    /// The body of `bytes` bytes after the header and its trailer of chunk CRCs: the file must
    /// be exactly the header, the body and the trailer (`what` names the table in the error).
    pub(crate) fn body(self, bytes: u64, what: &str) -> Result<CheckedBody> {
        let (path, start) = (&self.path, self.prefix.len() as u64);
        let chunks = bytes.div_ceil(CHUNK_BYTES);
        let want = start + bytes + chunks * 4;
        let len = self.file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len != want {
            return Err(damaged(path, format!("{len} bytes, but {what} has {want}")));
        }
        let mut trailer = vec![0u8; (chunks * 4) as usize];
        (self.file.read_exact_at(&mut trailer, start + bytes)).map_err(|e| Error::io(path, e))?;
        let crcs = trailer
            .chunks_exact(4)
            .map(|c| c.try_into().expect("4 bytes"));
        let crcs = crcs.map(u32::from_le_bytes).collect();
        let seed = match self.version == self.kind.version {
            true => chunk_seed(&self.prefix),
            false => 0,
        };
        let (file, body) = (self.file, (start, bytes));
        Ok(CheckedBody::new(path, file, body, CHUNK_BYTES, crcs, seed))
    }
}

/// A header: the magic line, `box`, `rank`, the `extra` lines, an empty line.
pub(crate) fn header_lines(
    magic: &str,
    shape: ChompBox,
    scheme: &str,
    extra: &[(&str, String)],
) -> String {
    let lines: String = extra.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
    format!("{magic}\nbox {shape}\nrank {scheme}\n{lines}\n")
}

/// A header sealed by its CRC ([`header_lines`] with `header-crc32`, the CRC-32 of the bytes
/// before that line, as its last line): a table file's header.
pub(crate) fn sealed_header(
    magic: &str,
    shape: ChompBox,
    scheme: &str,
    extra: &[(&str, String)],
) -> String {
    let mut h = header_lines(magic, shape, scheme, extra);
    h.pop(); // the empty line comes after the header's CRC
    let crc = crc32fast::hash(h.as_bytes());
    h.push_str(&format!("header-crc32 {crc:08x}\n\n"));
    h
}

/// Read a header: lines up to the empty one. Returns the `key value` pairs after the magic line
/// and the header's length in bytes.
pub(crate) fn read_header(
    path: &Path,
    r: &mut impl Read,
    magic: &str,
) -> Result<(Vec<(String, String)>, u64)> {
    let bad =
        |why: &str| Error::invalid(format!("{}: not a chompute table ({why})", path.display()));
    let (mut bytes, mut byte) = (Vec::new(), [0u8; 1]);
    while !bytes.ends_with(b"\n\n") {
        if bytes.len() > HEADER_MAX {
            return Err(bad("header too long"));
        }
        match r.read(&mut byte) {
            Ok(0) => return Err(bad("no end of header")),
            Ok(_) => bytes.push(byte[0]),
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| bad("header is not text"))?;
    let mut lines = text.lines();
    if lines.next() != Some(magic) {
        return Err(bad(&format!("its first line is not '{magic}'")));
    }
    let pairs = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split_once(' ')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| bad("a header line is not 'key value'"))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((pairs, bytes.len() as u64))
}

/// The number a header's `key` holds.
pub(crate) fn number(path: &Path, pairs: &[(String, String)], key: &str) -> Result<u64> {
    field(path, pairs, key)?
        .parse()
        .map_err(|_| Error::invalid(format!("{}: '{key}' is not a number", path.display())))
}

pub(crate) fn field<'a>(path: &Path, pairs: &'a [(String, String)], key: &str) -> Result<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| Error::invalid(format!("{}: the header has no '{key}'", path.display())))
}

pub(crate) fn header_index(path: &Path, pairs: &[(String, String)]) -> Result<BitLayout> {
    let b = field(path, pairs, "box")?;
    let shape =
        ChompBox::parse(b).map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
    let scheme = field(path, pairs, "rank")?;
    BitLayout::from_scheme(shape, scheme).map_err(|e| match e {
        Error::Invalid(m) => Error::invalid(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Whether a sealed header (its bytes, up to and with the empty line: [`sealed_header`]) ends
/// with the `header-crc32` of the bytes before that line.
pub(crate) fn header_crc_holds(header: &[u8]) -> bool {
    const KEY: &[u8] = b"header-crc32 ";
    let Some(body) = header.strip_suffix(b"\n\n") else {
        return false;
    };
    let at = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let Some(hex) = body[at..].strip_prefix(KEY) else {
        return false;
    };
    let stated = std::str::from_utf8(hex)
        .ok()
        .filter(|h| h.len() == 8)
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    stated == Some(crc32fast::hash(&body[..at]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    const TABLE_MAGIC: &str = "chompute chomp p-table 3";

    fn path() -> &'static Path {
        Path::new("t.tbl")
    }

    #[test]
    fn a_header_reads_back_as_written_and_a_damaged_one_is_refused_with_its_reason() {
        let index = BitLayout::for_box(ChompBox { rows: 4, cols: 6 }).unwrap();
        let extra = [("p-positions", "17".into())];
        let text = header_lines(TABLE_MAGIC, index.shape(), &index.scheme(), &extra);
        let mut bytes = text.clone().into_bytes();
        bytes.extend_from_slice(b"\x00\x01bits");
        let (pairs, len) = read_header(path(), &mut Cursor::new(&bytes), TABLE_MAGIC).unwrap();
        assert_eq!(len, text.len() as u64, "the header ends at its empty line");
        assert_eq!(field(path(), &pairs, "p-positions").unwrap(), "17");
        assert_eq!(field(path(), &pairs, "box").unwrap(), "4x6");
        let back = header_index(path(), &pairs).unwrap();
        assert_eq!(
            (back.shape(), back.scheme()),
            (index.shape(), index.scheme())
        );
        let e = field(path(), &pairs, "missing").unwrap_err().to_string();
        assert!(e.contains("has no 'missing'"), "{e}");
        let cases: [(&[u8], &str); 5] = [
            (b"chompute chomp p-table 3\nbox 3x3\n", "no end of header"),
            (b"something else\nbox 3x3\n\n", "first line is not"),
            (b"chompute chomp p-table 3\nbox3x3\n\n", "not 'key value'"),
            (b"chompute chomp p-table 3\n\xff\xfe\n\n", "not text"),
            (&[b'x'; 5000], "header too long"),
        ];
        for (bytes, why) in cases {
            let e = read_header(path(), &mut Cursor::new(bytes), TABLE_MAGIC).unwrap_err();
            assert!(e.to_string().contains(why), "{e} (expected {why})");
        }
        // A box the index cannot hold, or an unknown rank scheme.
        for text in ["box 0x3\nrank colex\n", "box 3x3\nrank spiral\n"] {
            let bytes = format!("{TABLE_MAGIC}\n{text}\n");
            let (pairs, _) = read_header(path(), &mut Cursor::new(bytes), TABLE_MAGIC).unwrap();
            assert!(header_index(path(), &pairs).is_err(), "{text}");
        }
    }

    #[test]
    fn a_sealed_header_holds_its_crc_and_an_edited_one_does_not() {
        let shape = ChompBox { rows: 3, cols: 5 };
        let h = sealed_header("magic", shape, "colex-lattice-path", &[("k", "17".into())]);
        assert!(h.ends_with("\n\n") && h.contains("\nheader-crc32 "), "{h}");
        assert!(header_crc_holds(h.as_bytes()));
        let edits = [
            h.replace("k 17", "k 18"),
            h.replace("box 3x5", "box 5x3"),
            h.replace("header-crc32 ", "header-crc32 0"),
            h.trim_end().to_string(),
            h.replace("magic", "Magic"),
        ];
        for e in edits {
            assert_ne!(e, h);
            assert!(!header_crc_holds(e.as_bytes()), "{e}");
        }
        // The last line's digits are the CRC of everything before that line.
        let at = h.rfind("header-crc32 ").unwrap();
        let stated = u32::from_str_radix(&h[at + 13..at + 21], 16).unwrap();
        assert_eq!(stated, crc32fast::hash(&h.as_bytes()[..at]));
    }
}
