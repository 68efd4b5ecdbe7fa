//! Grundy tables on disk (docs/formats.md, "Grundy tables"): the table file (`chomp grundy
//! -o FILE`: the store's sealed header, every entry's value in index order, `value-bytes`
//! bytes little-endian, the chunk CRCs), a function of the box and the value width alone; the
//! checkpoint `FILE.partial` (a record a finished step); and [`GrundyFile`], which answers
//! from checked chunks without loading the file.
//!
//! Tests: tests/games/chomp/grundy_file.rs.

use super::grundy::{moves_by, GrundyPlan, GrundyTable, ValueBytes, MAX_GRUNDY_POSITIONS};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::engine::lifecycle::{open_step_log, run_to_file, Job, RunEvent};
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, CheckedBody, Checkpoint, Recount, Sealed, GRUNDY_TABLE};
use crate::error::{Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

const PARTIAL_MAGIC: &str = "chompute chomp grundy-table partial 1";

/// Values copied at a time when a table or a record is written.
const VALUES_AT_ONCE: u64 = 1 << 16;

/// The header of a Grundy table file.
fn grundy_header(magic: &str, layout: &BitLayout, width: ValueBytes, max_value: u64) -> String {
    store::sealed_header(
        magic,
        layout.shape(),
        &layout.scheme(),
        &[
            ("positions", layout.positions().to_string()),
            ("value-bytes", width.bytes().to_string()),
            ("max-value", max_value.to_string()),
            ("chunk-bytes", store::CHUNK_BYTES.to_string()),
        ],
    )
}

/// The values of entries `base..base + len` of `table`, in slices, to `sink`.
fn values_to(
    table: &GrundyTable,
    (base, len): (u64, u64),
    buf: &mut Vec<u8>,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    for at in (base..base + len).step_by(VALUES_AT_ONCE as usize) {
        buf.clear();
        table.values_le(at, VALUES_AT_ONCE.min(base + len - at), buf);
        sink(buf)?;
    }
    Ok(())
}

/// Write a finished Grundy table to `path` (a temporary file renamed when complete).
pub fn save_grundy(table: &GrundyTable, path: &Path) -> Result<()> {
    let (width, max) = (table.plan().width, table.max_grundy() as u64);
    let header = grundy_header(&GRUNDY_TABLE.magic(), table.layout(), width, max);
    store::save_sealed(path, &header, |sink| {
        values_to(table, (0, table.plan().entries), &mut Vec::new(), sink)
    })
}

/// Compute the Grundy table of `plan`, keep finished steps in `FILE.partial` (resuming from it
/// when it exists), save the table to `out` and remove the checkpoint: the engine's one run to
/// a file ([`run_to_file`]). A value past one byte stops a one-byte run with
/// [`Error::TooLarge`] and removes its checkpoint, whose values a two-byte run cannot take.
pub fn compute_to_file(
    plan: GrundyPlan,
    out: &Path,
    report: impl FnMut(RunEvent),
) -> Result<GrundyTable> {
    let job = || {
        let table = GrundyTable::empty(plan)?;
        Ok(GrundyJob {
            table,
            checkpoint: None,
            start: 0,
        })
    };
    run_to_file(out, job, report)
}

/// A Grundy table's part of the run to a file.
struct GrundyJob {
    table: GrundyTable,
    checkpoint: Option<Checkpoint>,
    start: u64,
}

impl Job for GrundyJob {
    type Output = GrundyTable;

    fn disk_bytes(&self) -> u64 {
        // The checkpoint holds every value too, and both are on disk before it goes.
        let bytes = self.table.plan().bytes();
        let steps = self.table.layout().steps();
        2 * bytes + bytes.div_ceil(store::CHUNK_BYTES) * 4 + 28 * steps + 8192
    }

    fn checkpoints(&self, out: &Path) -> Vec<PathBuf> {
        vec![store::partial_path(out)]
    }

    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>> {
        let partial = store::partial_path(out);
        let (checkpoint, start) = open_checkpoint(&partial, &self.table, self.table.layout())?;
        let steps = (start, self.table.layout().steps());
        let said = RunEvent::resumed(&partial, checkpoint.dropped_bytes, steps, None);
        (self.checkpoint, self.start) = (Some(checkpoint), start);
        Ok(said)
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let checkpoint = self.checkpoint.as_mut().expect("resumed before it runs");
        let (mut ranges, mut buf) = (Vec::new(), Vec::new());
        self.table.compute_from(self.start, |t, step, progress| {
            t.layout().ranges(step, &mut ranges);
            let n = ranges.iter().map(|&(_, l)| l).sum();
            checkpoint.append_stream(step, n, |sink| {
                ranges
                    .iter()
                    .try_for_each(|&range| values_to(t, range, &mut buf, sink))
            })?;
            report(RunEvent::Step(progress));
            Ok(())
        })
    }

    fn discard_after(&mut self, e: &Error) -> Result<bool> {
        // A value past one byte: a two-byte run cannot take this checkpoint's values.
        let gone = matches!(e, Error::TooLarge { .. });
        if gone {
            Checkpoint::remove_held(&mut self.checkpoint)?;
        }
        Ok(gone)
    }

    fn publish(mut self, out: &Path) -> Result<GrundyTable> {
        save_grundy(&self.table, out)?;
        Checkpoint::remove_held(&mut self.checkpoint)?;
        Ok(self.table)
    }
}

/// Open the checkpoint of `table`'s run at `path`: a new one, or one of the same box and value
/// width whose steps are read back into `table`. Returns it and the first step still to do.
fn open_checkpoint(
    path: &Path,
    table: &GrundyTable,
    layout: &BitLayout,
) -> Result<(Checkpoint, u64)> {
    let w = table.plan().width.bytes();
    let extra = [("value-bytes", w.to_string())];
    let read = |reader: &mut dyn Read, step, ranges: &[(u64, u64)]| {
        let n: u64 = ranges.iter().map(|&(_, l)| l).sum();
        // Values go into the table as they are read, range by range (`i`, `done` of it): a
        // damaged record's step is computed again, over them.
        let (mut i, mut done) = (0, 0);
        let mut place = |mut bytes: &[u8]| {
            while !bytes.is_empty() {
                let (base, len) = ranges[i];
                let k = (((len - done) * w) as usize).min(bytes.len());
                table.set_values_le(base + done, &bytes[..k]);
                (done, bytes) = (done + k as u64 / w, &bytes[k..]);
                if done == len {
                    (i, done) = (i + 1, 0);
                }
            }
            true
        };
        let got = store::read_raw_record(reader, w, |v, m| v == step && m == n, &mut place);
        Ok(got.map(|(_, bytes)| bytes))
    };
    let magic = (PARTIAL_MAGIC, "computed");
    open_step_log(path, magic, layout, &extra, read)
}

/// A saved Grundy table opened for reading single values without loading it. Every value read
/// comes from a chunk whose CRC-32 was checked (once per chunk, remembered).
#[derive(Debug)]
pub struct GrundyFile {
    body: CheckedBody,
    layout: BitLayout,
    width: ValueBytes,
    max_value: u16,
}

impl GrundyFile {
    /// Open a table written by [`save_grundy`]: checks the header (its CRC, the box, the
    /// numbering, the value width) and the file's length, and reads the trailer of chunk CRCs.
    pub fn open(path: &Path) -> Result<GrundyFile> {
        GrundyFile::read(Sealed::open(path)?.of(GRUNDY_TABLE)?)
    }

    /// The table whose sealed header was read (the file's first bytes, read once).
    pub(crate) fn read(sealed: Sealed) -> Result<GrundyFile> {
        let path = sealed.path.clone();
        let layout = sealed.value_layout("a Grundy table")?;
        let shape = layout.shape();
        if layout.positions() > MAX_GRUNDY_POSITIONS {
            let why = format!("the {shape} box has more than 2^36 positions");
            return Err(Error::invalid(format!("{}: {why}", path.display())));
        }
        let n = sealed.number("value-bytes")?;
        let widths = [ValueBytes::One, ValueBytes::Two];
        let width = widths.into_iter().find(|w| w.bytes() == n);
        let why = || store::damaged(&path, format!("value-bytes {n} is not 1 or 2"));
        let width = width.ok_or_else(why)?;
        let max_value = sealed.number("max-value")?;
        if max_value > width.max_value() as u64 {
            let bytes = width.bytes();
            let why = format!("max-value {max_value} does not fit in {bytes} bytes");
            return Err(store::damaged(&path, why));
        }
        let header = grundy_header(&sealed.magic(), &layout, width, max_value);
        sealed.expect(&header, "the header does not match its header-crc32")?;
        let what = format!("a Grundy table of the {shape} box");
        let body = sealed.body(layout.len() * width.bytes(), &what)?;
        Ok(GrundyFile {
            body,
            layout,
            width,
            max_value: max_value as u16,
        })
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.layout.shape()
    }

    /// The largest value, as the header says.
    pub fn max_value(&self) -> u16 {
        self.max_value
    }

    /// The Grundy value of `p`, from a checked chunk; an error when it is empty or outside the
    /// box.
    pub fn value(&self, p: &Diagram) -> Result<u16> {
        if p.is_empty() {
            return Err(Error::invalid("the empty diagram is not a position"));
        }
        let (r, w) = (self.layout.bit_of(p)?, self.width.bytes());
        let mut b = [0u8; 2];
        self.body.read_at(r * w, &mut b[..w as usize])?;
        let (g, max) = (u16::from_le_bytes(b), self.max_value);
        if g > max {
            let why = format!("entry {r} holds {g}, past max-value {max}");
            return Err(self.body.damaged(why));
        }
        Ok(g)
    }

    /// `moves_by` of `p`, read from the file: a file that breaks the mex is damaged.
    pub fn moves(&self, p: &Diagram) -> Result<Vec<Diagram>> {
        moves_by(
            p,
            self.value(p)?,
            |q| self.value(q),
            |why| self.body.damaged(why),
        )
    }

    /// Check every chunk against its CRC-32, the empty diagram's 0 and the largest value
    /// against the header's `max-value` (the store's one verify).
    pub fn verify(&self) -> Result<()> {
        self.body.verify(Largest {
            width: self.width,
            first: None,
            largest: 0,
            stated: self.max_value,
        })
    }
}

/// What a Grundy table's verify recounts: its first value (the empty diagram's, 0) and its
/// largest.
struct Largest {
    width: ValueBytes,
    first: Option<u16>,
    largest: u16,
    stated: u16,
}

impl Recount for Largest {
    fn feed(&mut self, chunk: &[u8]) {
        for b in chunk.chunks_exact(self.width.bytes() as usize) {
            let g = b.iter().rev().fold(0, |g, &x| g << 8 | x as u16);
            self.first.get_or_insert(g);
            self.largest = self.largest.max(g);
        }
    }

    fn disagreement(self) -> Option<String> {
        if self.first != Some(0) {
            return Some("the empty diagram's value is not 0".into());
        }
        let (largest, stated) = (self.largest, self.stated);
        let why = format!("the largest value is {largest}, the header says {stated}");
        (largest != stated).then_some(why)
    }
}
