//! The cells table file and the checkpoint of `chomp cells --max N -o FILE`, the same file as
//! `FILE.partial` written in place: three header slots (a snapshot's steps and the CRC-32 of
//! every 4 KiB chunk), then the body (docs/formats.md, "Cells tables"). The forward engine only
//! adds N-marks, so a run stopped anywhere leaves every chunk equal to one of the two newest
//! slots' CRCs: it resumes from the newer slot when every chunk matches it, from the older
//! otherwise; a chunk that matches neither is damage.
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs; tests/faults/tables.rs.

use super::cells::{CellsEngine, CellsTable, PartitionCounts};
use crate::chomp::engine::lifecycle::{run_to_file, Cadence, Job, RunEvent};
use crate::chomp::store::{
    chunk_seed, damaged, field, header_crc_holds, number, open_checkpoint_file, partial_path,
    read_header, CheckedBody, Recount, Sealed, CELLS_TABLE,
};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Bytes of the body covered by one CRC-32 (a page: a stopped write leaves each whole).
const CHUNK: u64 = 4096;
/// Bytes of a slot's text.
const SLOT_HEADER: u64 = 16384;
/// How many slots the file has.
const SLOTS: u64 = 3;
/// Words of a chunk.
const CHUNK_WORDS: usize = (CHUNK / 8) as usize;

/// Where things lie in a file of `words` words of tables of up to `max` cells.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    max: u32,
    words: u64,
    chunks: u64,
    slot_bytes: u64,
    /// The version its first line names.
    version: u32,
    /// What every chunk's CRC starts from: the CRC of the lines that fix the file's shape
    /// (magic, `max`, `words`, `chunk-bytes`), so that a body answers only under its own
    /// header (0 in version-1 files).
    seed: u32,
}

impl Geometry {
    fn new(max: u32, words: u64) -> Geometry {
        let chunks = (words * 8).div_ceil(CHUNK);
        let magic = CELLS_TABLE.magic();
        let shape = format!("{magic}\nmax {max}\nwords {words}\nchunk-bytes {CHUNK}\n");
        Geometry {
            max,
            words,
            chunks,
            slot_bytes: slot_bytes_for(chunks),
            version: CELLS_TABLE.version,
            seed: chunk_seed(shape.as_bytes()),
        }
    }

    fn of(table: &CellsTable) -> Geometry {
        Geometry::new(table.max(), table.words().len() as u64)
    }

    /// The CRC of one chunk of the body.
    fn crc(&self, chunk: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new_with_initial(self.seed);
        h.update(chunk);
        h.finalize()
    }

    fn body_at(&self) -> u64 {
        SLOTS * self.slot_bytes
    }

    fn file_bytes(&self) -> u64 {
        self.body_at() + self.chunks * CHUNK
    }
}

/// Bytes of a slot of a file of `chunks` chunks of body: the text, then the chunks' CRCs to a
/// whole chunk.
fn slot_bytes_for(chunks: u64) -> u64 {
    SLOT_HEADER + (chunks * 4).next_multiple_of(CHUNK)
}

/// One slot: what the body held when it was written.
#[derive(Debug, Clone, Default)]
struct Slot {
    seq: u64,
    steps: u64,
    /// The P-positions of 1, …, `steps` cells.
    p: Vec<u64>,
    crcs: Vec<u32>,
}

/// Chunk `i` of `words` as bytes (zeros past the last word).
fn chunk_bytes(words: &[AtomicU64], i: usize, out: &mut [u8]) {
    out.fill(0);
    let words = words.get(i * CHUNK_WORDS..).unwrap_or_default();
    for (o, w) in out.chunks_exact_mut(8).zip(words) {
        o.copy_from_slice(&w.load(Relaxed).to_le_bytes());
    }
}

/// The slot's bytes: the sealed text, zero-padded to [`SLOT_HEADER`], then the CRCs.
fn slot_bytes(geo: &Geometry, slot: &Slot) -> Vec<u8> {
    let crc_bytes: Vec<u8> = slot.crcs.iter().flat_map(|c| c.to_le_bytes()).collect();
    let p: Vec<String> = slot.p.iter().map(u64::to_string).collect();
    let p = Some(p.join(",")).filter(|p| !p.is_empty());
    let p = p.unwrap_or("-".into());
    let magic = CELLS_TABLE.magic_of(geo.version);
    let crcs_crc = crc32fast::hash(&crc_bytes);
    let (max, words, seq, steps) = (geo.max, geo.words, slot.seq, slot.steps);
    let mut text = format!(
        "{magic}\nmax {max}\nwords {words}\nchunk-bytes {CHUNK}\nseq {seq}\nsteps {steps}\n\
         p-positions {p}\ncrcs-crc32 {crcs_crc:08x}\n"
    );
    let crc = crc32fast::hash(text.as_bytes());
    text.push_str(&format!("header-crc32 {crc:08x}\n\n"));
    assert!(text.len() as u64 <= SLOT_HEADER, "a slot's text fits");
    let mut out = text.into_bytes();
    out.resize(SLOT_HEADER as usize, 0);
    out.extend_from_slice(&crc_bytes);
    out.resize(geo.slot_bytes as usize, 0);
    out
}

/// Read slot `k`: `None` when it was never written or is torn (its CRCs do not hold).
fn read_slot(file: &File, path: &Path, geo: &Geometry, k: u64) -> Result<Option<Slot>> {
    let mut bytes = vec![0u8; geo.slot_bytes as usize];
    file.read_exact_at(&mut bytes, k * geo.slot_bytes)
        .map_err(|e| Error::io(path, e))?;
    let Some(text) = slot_text(&bytes) else {
        return Ok(None);
    };
    let magic = CELLS_TABLE.magic_of(geo.version);
    let (pairs, _) = read_header(path, &mut text.as_bytes(), &magic)?;
    let num = |key: &str| number(path, &pairs, key);
    if (num("max")?, num("words")?, num("chunk-bytes")?) != (geo.max as u64, geo.words, CHUNK) {
        return Err(damaged(path, "its size is not that of its header"));
    }
    let steps = num("steps")?;
    let p: Vec<u64> = match field(path, &pairs, "p-positions")? {
        "-" => Ok(Vec::new()),
        list => list.split(',').map(str::parse).collect(),
    }
    .map_err(|_| damaged(path, "'p-positions' is not a list of numbers"))?;
    if steps > geo.max as u64 || p.len() as u64 != steps {
        return Err(damaged(path, "its steps do not match its counts"));
    }
    let crc_bytes = &bytes[SLOT_HEADER as usize..][..geo.chunks as usize * 4];
    let stated = u32::from_str_radix(field(path, &pairs, "crcs-crc32")?, 16)
        .map_err(|_| damaged(path, "'crcs-crc32' is not hexadecimal"))?;
    if crc32fast::hash(crc_bytes) != stated {
        return Ok(None);
    }
    let crcs = crc_bytes
        .chunks_exact(4)
        .map(|c| c.try_into().expect("4 bytes"));
    Ok(Some(Slot {
        seq: num("seq")?,
        steps,
        p,
        crcs: crcs.map(u32::from_le_bytes).collect(),
    }))
}

/// The sealed text a slot's bytes start with, when it is whole (its header-crc32 holds).
fn slot_text(bytes: &[u8]) -> Option<&str> {
    let end = bytes[..SLOT_HEADER as usize]
        .windows(2)
        .position(|w| w == b"\n\n")?;
    let header = &bytes[..end + 2];
    header_crc_holds(header).then(|| std::str::from_utf8(header).ok())?
}

/// The number of cells that any whole slot of `file` states, the slots found where a file of
/// its length has them (c chunks take 3·slot + c·[`CHUNK`] bytes, growing with c).
fn stated_max(file: &File) -> Option<u64> {
    let len = file.metadata().ok()?.len();
    let bytes_of = |c: u64| SLOTS * slot_bytes_for(c) + c * CHUNK;
    let c = (0..=len / CHUNK).find(|&c| bytes_of(c) >= len)?;
    (bytes_of(c) == len).then_some(())?;
    let mut bytes = vec![0u8; SLOT_HEADER as usize];
    (0..SLOTS).find_map(|k| {
        file.read_exact_at(&mut bytes, k * slot_bytes_for(c)).ok()?;
        slot_text(&bytes)?
            .lines()
            .find_map(|l| l.strip_prefix("max ")?.parse().ok())
    })
}

/// The newest slots of a file, newest first (at most two); a file of another length than
/// `geo`'s or with no whole slot is damaged.
fn newest_slots(file: &File, path: &Path, geo: &Geometry) -> Result<Vec<Slot>> {
    if file.metadata().map_err(|e| Error::io(path, e))?.len() != geo.file_bytes() {
        return Err(damaged(path, "its length is not that of its header"));
    }
    let mut slots = Vec::new();
    for k in 0..SLOTS {
        if let Some(s) = read_slot(file, path, geo, k)? {
            if s.seq % SLOTS != k {
                return Err(damaged(path, "a slot is out of place"));
            }
            slots.push(s);
        }
    }
    slots.sort_by_key(|s| std::cmp::Reverse(s.seq));
    slots.truncate(2);
    if slots.is_empty() {
        return Err(damaged(path, "no header slot is whole"));
    }
    Ok(slots)
}

/// A run's file being written in place ([`compute_to_file`]).
struct Writer {
    file: File,
    path: PathBuf,
    geo: Geometry,
    /// The newest slot written: the body holds exactly its chunks.
    newest: Slot,
}

impl Writer {
    /// The checkpoint at `path` of a run of `table`'s size, under an exclusive lock: a new one,
    /// or a stopped run's, its body read into `table`'s zero words. Returns the writer, the
    /// steps done and, when a file there could not be resumed (torn, old or damaged), why.
    fn open(path: &Path, table: &CellsTable) -> Result<(Writer, u64, Option<String>)> {
        let file = open_checkpoint_file(path, "computed")?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let (geo, path) = (Geometry::of(table), path.to_path_buf());
        let zeros = geo.crc(&[0u8; CHUNK as usize]);
        let newest = Slot {
            crcs: vec![zeros; geo.chunks as usize],
            ..Slot::default()
        };
        let mut w = Writer {
            file,
            path,
            geo,
            newest,
        };
        let mut restarted = None;
        if len > 0 {
            // Another run's checkpoint is kept and refused; one that cannot be read is begun
            // again.
            let max = table.max() as u64;
            if let Some(other) = stated_max(&w.file).filter(|&m| m != max) {
                return Err(Error::invalid(format!(
                    "{} holds the diagrams of up to {other} cells, not {max}; remove it or \
                     ask for {other}",
                    w.path.display()
                )));
            }
            match w.resume(table) {
                Ok(steps) => return Ok((w, steps, None)),
                Err(Error::Invalid(why)) => restarted = Some(why),
                Err(e) => return Err(e),
            }
            table.words().iter().for_each(|w| w.store(0, Relaxed));
        }
        // Begun: one slot of no steps, the body zeros.
        let io = |e| Error::io(&w.path, e);
        w.file.set_len(0).map_err(io)?;
        w.file.set_len(w.geo.file_bytes()).map_err(io)?;
        w.write_slot(w.newest.clone())?;
        Ok((w, 0, restarted))
    }

    /// Read a stopped run's body into `table`'s zero words, each chunk checked against both
    /// newest slots: the steps done.
    fn resume(&mut self, table: &CellsTable) -> Result<u64> {
        let (geo, path, file) = (self.geo, &self.path, &self.file);
        let io = |e| Error::io(path, e);
        let slots = newest_slots(file, path, &geo)?;
        let words = table.words();
        const PIECE: usize = 4096; // chunks read at a time
        let mut buf = vec![0u8; PIECE * CHUNK as usize];
        let mut actual = Vec::with_capacity(geo.chunks as usize);
        for first in (0..geo.chunks as usize).step_by(PIECE) {
            let n = PIECE.min(geo.chunks as usize - first);
            let bytes = &mut buf[..n * CHUNK as usize];
            file.read_exact_at(bytes, geo.body_at() + first as u64 * CHUNK)
                .map_err(io)?;
            actual.par_extend(bytes.par_chunks(CHUNK as usize).map(|c| geo.crc(c)));
            let lo = (first * CHUNK_WORDS).min(words.len());
            for (w, b) in words[lo..].iter().zip(bytes.chunks_exact(8)) {
                w.store(u64::from_le_bytes(b.try_into().expect("8 bytes")), Relaxed);
            }
        }
        let neither = |(i, c): (usize, &u32)| {
            *c != slots[0].crcs[i] && slots.get(1).is_none_or(|s| s.crcs[i] != *c)
        };
        if let Some((i, _)) = actual.iter().enumerate().find(|&x| neither(x)) {
            let why = format!("chunk {i} of its body matches neither of its newest headers");
            return Err(damaged(path, why));
        }
        let older = actual != slots[0].crcs;
        let from = &slots[older as usize];
        let steps = from.steps;
        self.newest = slots[0].clone();
        if older {
            // The body is a mix of the two newest slots: a new slot says what it holds, so
            // that the next snapshot again leaves a mix of two slots.
            self.write_slot(Slot {
                seq: slots[0].seq + 1,
                steps,
                p: from.p.clone(),
                crcs: actual,
            })?;
        }
        Ok(steps)
    }

    /// Write `slot` to its place (seq mod 3) and sync: from now on it is the newest.
    fn write_slot(&mut self, slot: Slot) -> Result<()> {
        self.put(slot.seq % SLOTS, &slot_bytes(&self.geo, &slot))?;
        self.newest = slot;
        Ok(())
    }

    /// Write the bytes of slot `k` and sync.
    fn put(&self, k: u64, bytes: &[u8]) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        let at = k * self.geo.slot_bytes;
        self.file.write_all_at(bytes, at).map_err(io)?;
        self.file.sync_data().map_err(io)
    }

    /// Make the finished file the same however the run went: its one slot first, as seq 0,
    /// the other two cleared (zeros). At every moment a slot of the finished body is whole.
    fn seal(mut self) -> Result<()> {
        let zeros = vec![0u8; self.geo.slot_bytes as usize];
        if self.newest.seq.is_multiple_of(SLOTS) {
            // Slot 0 is rewritten below: first a copy in slot 1.
            self.write_slot(Slot {
                seq: self.newest.seq + 1,
                ..self.newest.clone()
            })?;
        }
        let keep = self.newest.seq % SLOTS;
        for k in (0..SLOTS).filter(|&k| k != keep) {
            self.put(k, &zeros)?;
        }
        self.write_slot(Slot {
            seq: 0,
            ..self.newest.clone()
        })?;
        self.put(keep, &zeros)
    }

    /// Save `table`'s words with `steps` done: the next slot, the changed chunks, a sync.
    fn snapshot(&mut self, table: &CellsTable, steps: u64) -> Result<()> {
        let (words, geo) = (table.words(), self.geo);
        let crc = |i| {
            let mut bytes = [0u8; CHUNK as usize];
            chunk_bytes(words, i, &mut bytes);
            geo.crc(&bytes)
        };
        let crcs: Vec<u32> = (0..geo.chunks as usize).into_par_iter().map(crc).collect();
        let changed: Vec<usize> = (0..crcs.len())
            .filter(|&i| crcs[i] != self.newest.crcs[i])
            .collect();
        let p = (1..=steps as u32).map(|n| table.count_p(n)).collect();
        self.write_slot(Slot {
            seq: self.newest.seq + 1,
            steps,
            p,
            crcs,
        })?;
        let io = |e| Error::io(&self.path, e);
        // Runs of changed chunks, written a few MiB at a time.
        const RUN: usize = 1024;
        let mut buf = vec![0u8; RUN * CHUNK as usize];
        for run in changed
            .chunk_by(|a, b| a + 1 == *b)
            .flat_map(|r| r.chunks(RUN))
        {
            let bytes = &mut buf[..run.len() * CHUNK as usize];
            for (&i, out) in run.iter().zip(bytes.chunks_exact_mut(CHUNK as usize)) {
                chunk_bytes(words, i, out);
            }
            let at = self.geo.body_at() + run[0] as u64 * CHUNK;
            self.file.write_all_at(bytes, at).map_err(io)?;
        }
        self.file.sync_data().map_err(io)
    }
}

/// Decide every diagram of up to `max` cells by the forward engine, keeping the state in
/// `out.partial` (resuming from it when it exists), then make that file `out`: the engine's
/// one run to a file ([`run_to_file`]: refused first when memory or disk lacks room), its
/// snapshots by the run time ([`Cadence`]), at least a minute apart (one of 140 cells writes
/// about 19 GB).
pub fn compute_to_file(max: u32, out: &Path, report: impl FnMut(RunEvent)) -> Result<CellsTable> {
    compute_to_file_with(max, out, Duration::from_secs(60), report)
}

/// [`compute_to_file`] with snapshots never closer than `floor` (zero: after each n).
pub fn compute_to_file_with(
    max: u32,
    out: &Path,
    floor: Duration,
    report: impl FnMut(RunEvent),
) -> Result<CellsTable> {
    let job = || {
        Ok(CellsJob {
            table: CellsTable::zeroed(max, CellsEngine::Forward)?,
            writer: None,
            start: 0,
            floor,
        })
    };
    run_to_file(out, job, report)
}

/// A cells table's part of the run to a file, whose checkpoint is the file itself.
struct CellsJob {
    table: CellsTable,
    writer: Option<Writer>,
    start: u64,
    floor: Duration,
}

impl Job for CellsJob {
    type Output = CellsTable;

    fn disk_bytes(&self) -> u64 {
        Geometry::of(&self.table).file_bytes()
    }

    fn checkpoints(&self, out: &Path) -> Vec<PathBuf> {
        vec![partial_path(out)]
    }

    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>> {
        let path = partial_path(out);
        let (writer, start, restarted) = Writer::open(&path, &self.table)?;
        let steps = (start, self.table.max() as u64);
        let resumed = RunEvent::resumed(&path, 0, steps, Some(start));
        let restarted = restarted.map(|why| RunEvent::Restarted { path, why });
        (self.writer, self.start) = (Some(writer), start);
        Ok(restarted.into_iter().chain(resumed).collect())
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let writer = self.writer.as_mut().expect("resumed before it runs");
        let (max, words) = (self.table.max(), self.table.words().len() as u64);
        // The first snapshot is assumed to write at 200 MB/s.
        let first = Duration::from_secs_f64(Geometry::of(&self.table).file_bytes() as f64 / 2e8);
        let mut cadence = Cadence::new(self.floor, first);
        self.table.solve_from(self.start, |t, n| {
            // The words of the tables up to n cells measure the work done.
            let done = t.word_offset(n + 1) as u64;
            if n < max && cadence.due(done, words) {
                cadence.take(|| writer.snapshot(t, n as u64))?;
                report(RunEvent::Snapshot { step: n as u64 });
            }
            Ok(())
        })
    }

    fn publish(mut self, out: &Path) -> Result<CellsTable> {
        let mut writer = self.writer.take().expect("resumed before it publishes");
        writer.snapshot(&self.table, self.table.max() as u64)?;
        writer.seal()?;
        crate::output::publish(&partial_path(out), out)?;
        Ok(self.table)
    }
}

/// A finished cells table file, opened to answer single diagrams without loading it: every
/// bit read comes from a chunk checked against the newest slot's CRC.
#[derive(Debug)]
pub struct CellsFile {
    body: CheckedBody,
    /// The P-positions of 0, 1, …, max cells, as the header says (none of 0).
    p: Vec<u64>,
    counts: PartitionCounts,
    /// The first word of the table of each n cells ([`PartitionCounts::word_offsets`]).
    at: Vec<usize>,
}

impl CellsFile {
    /// The table whose first slot's sealed header was read (a finished file: `steps` = `max`
    /// in its newest slot): `max` from it, then every slot.
    pub(crate) fn read(sealed: Sealed) -> Result<CellsFile> {
        let path = &sealed.path.clone();
        let max = sealed
            .number("max")
            .ok()
            .filter(|&m| (1..=super::cells::MAX_CELLS as u64).contains(&m))
            .ok_or_else(|| damaged(path, "its header has no 'max'"))? as u32;
        let counts = PartitionCounts::new(max)?;
        let at = counts.word_offsets();
        let mut geo = Geometry::new(max, at[max as usize + 1] as u64);
        if sealed.version != CELLS_TABLE.version {
            // A version-1 file: its chunk CRCs start from 0.
            (geo.version, geo.seed) = (sealed.version, 0);
        }
        let file = sealed.file;
        let slot = newest_slots(&file, path, &geo)?.swap_remove(0);
        // A finished file holds one slot, the first; the spare ones are zeros.
        let mut spare = vec![0u8; geo.slot_bytes as usize];
        for k in 1..SLOTS {
            file.read_exact_at(&mut spare, k * geo.slot_bytes)
                .map_err(|e| Error::io(path, e))?;
            if slot.seq != 0 || spare.iter().any(|&b| b != 0) {
                return Err(damaged(path, format!("its slot {k} is not empty")));
            }
        }
        if slot.steps != max as u64 {
            return Err(Error::invalid(format!(
                "{}: the run that writes it is not finished ({} of {max} cells done)",
                path.display(),
                slot.steps
            )));
        }
        let body = (geo.body_at(), geo.chunks * CHUNK);
        Ok(CellsFile {
            body: CheckedBody::new(path, file, body, CHUNK, slot.crcs, geo.seed),
            p: [0].into_iter().chain(slot.p).collect(),
            counts,
            at,
        })
    }

    /// The largest number of cells.
    pub fn max(&self) -> u32 {
        self.at.len() as u32 - 2
    }

    /// How many diagrams of `n` cells are P (from the header).
    pub fn p_positions(&self, n: u32) -> u64 {
        self.p[n as usize]
    }

    /// Whether the diagram with row lengths `parts` (non-increasing) is P; `None` when it
    /// has no cells or more than the file holds.
    pub fn is_p(&self, parts: &[u32]) -> Result<Option<bool>> {
        let Some((m, rank)) = self.counts.cells_and_rank(parts) else {
            return Ok(None);
        };
        let mut w = [0u8; 8];
        let word = self.at[m as usize] as u64 + rank / 64;
        self.body.read_at(word * 8, &mut w)?;
        Ok(Some((u64::from_le_bytes(w) >> (rank % 64)) & 1 == 0))
    }

    /// Check every chunk against its CRC and recount the P-positions of every n (the store's
    /// one verify).
    pub fn verify(&self) -> Result<()> {
        self.body.verify(ByCells {
            file: self,
            word: 0,
            n: 1,
            n_positions: vec![0; self.max() as usize + 1],
        })
    }
}

/// What a cells table's verify recounts: the P-positions of every n, from its N-marks.
struct ByCells<'a> {
    file: &'a CellsFile,
    word: usize,
    /// The number of cells of the table the next word is in.
    n: usize,
    /// The N-positions of each n.
    n_positions: Vec<u64>,
}

impl Recount for ByCells<'_> {
    fn feed(&mut self, chunk: &[u8]) {
        let at = &self.file.at;
        for b in chunk.chunks_exact(8) {
            if self.word >= at[at.len() - 1] {
                break;
            }
            while self.word >= at[self.n + 1] {
                self.n += 1;
            }
            let w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
            self.n_positions[self.n] += w.count_ones() as u64;
            self.word += 1;
        }
    }

    fn disagreement(self) -> Option<String> {
        let f = self.file;
        (1..=f.max()).find_map(|n| {
            let stated = f.p[n as usize];
            let p = f.counts.partitions(n) - self.n_positions[n as usize];
            let why = format!("{p} P-positions of {n} cells in its bits, {stated} in its header");
            (p != stated).then_some(why)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("chompute-cells-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A run to `out` with a snapshot after every n, stopped after `stop` cells (0: never):
    /// its outcome, the steps it resumed from and whether it began a checkpoint again.
    fn run(max: u32, out: &Path, stop: u64) -> (Result<CellsTable>, Option<u64>, bool) {
        let (mut resumed, mut restarted, token) = (None, false, crate::cancel::Cancel::new());
        let report = |e| match e {
            RunEvent::Resumed { steps_done, .. } => resumed = Some(steps_done),
            RunEvent::Restarted { .. } => restarted = true,
            RunEvent::Snapshot { step } if step == stop => token.cancel(),
            _ => {}
        };
        let t = token.scope(|| compute_to_file_with(max, out, Duration::ZERO, report));
        (t, resumed, restarted)
    }

    /// A run to `out` stopped after `stop` cells.
    fn stopped(max: u32, out: &Path, stop: u64) {
        let (r, ..) = run(max, out, stop);
        assert!(matches!(r, Err(Error::Interrupted)), "{r:?}");
    }

    /// A whole run to `out`: the steps it resumed from.
    fn finish(max: u32, out: &Path) -> Option<u64> {
        let (t, resumed, _) = run(max, out, 0);
        t.unwrap();
        resumed
    }

    #[test]
    fn a_stopped_or_mixed_run_resumes_to_the_identical_file_and_damage_is_refused() {
        let d = dir("mixed");
        let whole = d.join("whole.bin");
        assert_eq!(finish(30, &whole), None);
        assert!(!partial_path(&whole).exists());
        // Stopped after n = stop, whose snapshot was taken first.
        for stop in [1, 12, 29] {
            let out = d.join(format!("s{stop}.bin"));
            stopped(30, &out, stop);
            assert_eq!(finish(30, &out), Some(stop), "{stop}");
            assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
        }
        let out = d.join("m.bin");
        let partial = partial_path(&out);
        stopped(30, &out, 19);
        let older = std::fs::read(&partial).unwrap();
        // Resumed, then stopped again after 20: the body of 20, but every other chunk that
        // changed as it was at 19 (a run killed while it wrote the snapshot of 20).
        stopped(30, &out, 20);
        let mut newer = std::fs::read(&partial).unwrap();
        assert_eq!(newer.len(), older.len());
        let geo = Geometry::of(&CellsTable::zeroed(30, CellsEngine::Forward).unwrap());
        let mut mixed = 0;
        for i in 0..geo.chunks as usize {
            let at = (geo.body_at() as usize) + i * CHUNK as usize;
            let range = at..at + CHUNK as usize;
            if newer[range.clone()] != older[range.clone()] && i % 2 == 0 {
                newer[range.clone()].copy_from_slice(&older[range]);
                mixed += 1;
            }
        }
        assert!(mixed > 0);
        std::fs::write(&partial, &newer).unwrap();
        // A flipped bit in the body matches neither slot; a file of zeros (killed in its first
        // moments) or of garbage has no whole slot: each is no checkpoint, begun again.
        let mut damaged = newer.clone();
        damaged[geo.body_at() as usize + 100] ^= 4;
        let zeros = vec![0u8; newer.len() / 3];
        let garbage: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
        for bad in [damaged, zeros, garbage] {
            std::fs::write(&partial, &bad).unwrap();
            let (t, _, restarted) = run(30, &out, 0);
            assert!(t.is_ok() && restarted);
            assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
        }
        // The mix resumes from the older state and ends in the same file.
        std::fs::write(&partial, &newer).unwrap();
        assert_eq!(finish(30, &out), Some(19));
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
        // A flipped bit in a finished file: its chunk is refused, and so is the file's check.
        let mut bytes = std::fs::read(&out).unwrap();
        bytes[geo.body_at() as usize + 8] ^= 1;
        std::fs::write(&out, &bytes).unwrap();
        let f = CellsFile::read(Sealed::open(&out).unwrap()).unwrap();
        assert!(f.verify().is_err());
        assert!(
            f.is_p(&[1]).is_err(),
            "the diagram of one cell is in the damaged chunk"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_checkpoint_of_another_size_is_refused() {
        let d = dir("other");
        let out = d.join("o.bin");
        stopped(20, &out, 5);
        let refused = |max, want: &str| {
            let e = run(max, &out, 0).0.unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        };
        // Of another length too (40): refused, never begun again over the other run's work;
        // then with its first slot torn, a later one whole: still told by the whole slot.
        let partial = partial_path(&out);
        for torn in [false, true] {
            if torn {
                let mut bytes = std::fs::read(&partial).unwrap();
                bytes[..SLOT_HEADER as usize].fill(0);
                std::fs::write(&partial, &bytes).unwrap();
            }
            refused(21, "up to 20 cells, not 21");
            refused(40, "up to 20 cells, not 40");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
