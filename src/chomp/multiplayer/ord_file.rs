//! Ordinal tables on disk (docs/formats.md, "Ordinal tables"): the table file (`chomp ord -o
//! FILE`: the store's sealed header with the normalised rule and the histogram, the packed
//! table's little-endian u64 words, the chunk CRCs), a function of the box and the rule alone;
//! the checkpoint `FILE.partial` (one record a finished step, its entries packed at
//! `ordinal-bits` bits from bit 0 of the first byte); and [`OrdFile`], which answers from the
//! file without loading it, each chunk checked before it answers.
//!
//! Tests: tests/games/chomp/ord_file.rs.

use super::ordinal::{sol_from, OrdEngine, OrdPlan, OrdTable, Ords};
use super::packed::PackedOrds;
use super::rule::{Choice, Rule};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::engine::lifecycle::{open_step_log, run_to_file, Job, RunEvent};
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::{BitLayout, Ranker};
use crate::chomp::store::{self, CheckedBody, Checkpoint, Recount, Sealed, ORD_TABLE};
use crate::error::{Error, Result};
use std::io::Read;
use std::iter::repeat_n;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

const PARTIAL_MAGIC: &str = "chompute chomp ord-table partial 1";

/// Words copied at a time when a table is written.
const WORDS_AT_ONCE: usize = 1 << 13;

/// The entries of `ranges` packed at their bits each from bit 0 of the first byte (the last
/// byte padded with zeros), in slices, to `sink`: a checkpoint record's payload.
fn pack_to(
    ords: &PackedOrds,
    ranges: &[(u64, u64)],
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let (bits, mut acc, mut filled) = (ords.bits(), 0u64, 0);
    let mut out = Vec::with_capacity(1 << 16);
    for r in ranges.iter().flat_map(|&(b, l)| b..b + l) {
        acc |= (ords.get(r) as u64) << filled;
        filled += bits;
        while filled >= 8 {
            out.push(acc as u8);
            (acc, filled) = (acc >> 8, filled - 8);
        }
        if out.len() >= 1 << 16 {
            sink(&out)?;
            out.clear();
        }
    }
    if filled > 0 {
        out.push(acc as u8);
    }
    sink(&out)
}

/// Entries read back from bytes [`pack_to`] (or the table's words) wrote.
struct Unpacker {
    bits: u32,
    acc: u64,
    have: u32,
}

impl Unpacker {
    fn new(bits: u32) -> Unpacker {
        let (acc, have) = (0, 0);
        Unpacker { bits, acc, have }
    }

    /// Every whole entry of `bytes` (after what earlier calls left) to `each`, which may stop
    /// the reading by returning false; returns false then.
    fn feed(&mut self, bytes: &[u8], mut each: impl FnMut(u8) -> bool) -> bool {
        let mask = (1u64 << self.bits) - 1;
        for &b in bytes {
            self.acc |= (b as u64) << self.have;
            self.have += 8;
            while self.have >= self.bits {
                if !each((self.acc & mask) as u8) {
                    return false;
                }
                self.acc >>= self.bits;
                self.have -= self.bits;
            }
        }
        true
    }
}

/// The header of an ordinal table file.
fn ord_header(magic: &str, layout: &BitLayout, rule: &Rule, histogram: &[u64]) -> String {
    let (shape, positions) = (layout.shape(), layout.positions());
    let players = rule.players() as u8;
    let hist: Vec<String> = histogram.iter().map(u64::to_string).collect();
    store::sealed_header(
        magic,
        shape,
        &layout.scheme(),
        &[
            ("rule", rule.normalised()),
            ("players", players.to_string()),
            ("positions", positions.to_string()),
            ("ordinal-bits", PackedOrds::bits_for(players).to_string()),
            ("histogram", hist.join(" ")),
            ("chunk-bytes", store::CHUNK_BYTES.to_string()),
        ],
    )
}

/// Write a finished ordinal table of `rule` to `path` (a temporary file renamed when
/// complete). A table of one byte a position is packed first.
pub fn save_ords(table: &OrdTable, rule: &Rule, path: &Path) -> Result<()> {
    let players = rule.players() as u8;
    if table.players != players {
        return Err(Error::invalid(format!(
            "a table of {} players cannot be saved as one of the {players}-player rule {}",
            table.players,
            rule.normalised()
        )));
    }
    let repacked;
    let ords = match &table.ords {
        Ords::Packed(packed) => packed,
        Ords::Bytes(bytes) => {
            repacked = PackedOrds::from_bytes(bytes, players);
            &repacked
        }
    };
    let header = ord_header(&ORD_TABLE.magic(), table.layout(), rule, &table.histogram());
    store::save_sealed(path, &header, |sink| {
        let mut buf = Vec::with_capacity(WORDS_AT_ONCE * 8);
        for words in ords.words().chunks(WORDS_AT_ONCE) {
            buf.clear();
            buf.extend(words.iter().flat_map(|w| w.load(Relaxed).to_le_bytes()));
            sink(&buf)?;
        }
        Ok(())
    })
}

/// The plan's table under `rule` by the packed engine, run to the file `out` ([`run_to_file`]:
/// resumable from `FILE.partial`, the file the same byte for byte however often the run was
/// stopped), refused before any work when the memory or the disk lacks room.
pub fn compute_to_file(
    plan: OrdPlan,
    rule: &Rule,
    out: &Path,
    report: impl FnMut(RunEvent),
) -> Result<OrdTable> {
    if !matches!(plan.engine, OrdEngine::Packed | OrdEngine::PackedColex) {
        return Err(Error::invalid(format!(
            "a saved ordinal table is the packed engine's, not the {} engine's",
            plan.engine.name()
        )));
    }
    let job = || {
        let table = plan.zeroed_table(Ranker::new(plan.shape)?, rule.players() as u8)?;
        Ok(OrdJob {
            table,
            rule: rule.clone(),
            checkpoint: None,
            start: 0,
        })
    };
    run_to_file(out, job, report)
}

/// An ordinal table's part of the run to a file.
struct OrdJob {
    table: OrdTable,
    rule: Rule,
    checkpoint: Option<Checkpoint>,
    start: u64,
}

impl Job for OrdJob {
    type Output = OrdTable;

    fn disk_bytes(&self) -> u64 {
        // The checkpoint holds every ordinal too, and both are on disk before it goes.
        let bytes = self.table.packed().words().len() as u64 * 8;
        let body = bytes + bytes.div_ceil(store::CHUNK_BYTES) * 4;
        body + bytes + 29 * self.table.layout().steps() + 8192
    }

    fn checkpoints(&self, out: &Path) -> Vec<PathBuf> {
        vec![store::partial_path(out)]
    }

    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>> {
        let (ords, players) = (self.table.packed(), self.rule.players() as u8);
        let bits = ords.bits();
        let extra = [
            ("rule", self.rule.normalised()),
            ("ordinal-bits", bits.to_string()),
        ];
        let read = |reader: &mut dyn Read, step, ranges: &[(u64, u64)]| {
            let n: u64 = ranges.iter().map(|&(_, l)| l).sum();
            let len = (n * bits as u64).div_ceil(8);
            let mut ranks = ranges.iter().flat_map(|&(b, l)| b..b + l);
            let mut unpacker = Unpacker::new(bits);
            let mut place = |bytes: &[u8]| {
                unpacker.feed(bytes, |o| match ranks.next() {
                    Some(r) if o <= players => {
                        ords.put(r, o);
                        true
                    }
                    Some(_) => false,
                    // The padding of the last byte.
                    None => o == 0,
                })
            };
            let got = store::read_raw_record(reader, 1, |v, m| v == step && m == len, &mut place);
            // A damaged record's entries, placed as they were read, are cleared.
            if got.is_none() {
                let ranks = ranges.iter().flat_map(|&(b, l)| b..b + l);
                ranks.for_each(|r| ords.put(r, 0));
            }
            Ok(got.map(|(_, bytes)| bytes))
        };
        let magic = (PARTIAL_MAGIC, "computed");
        let partial = store::partial_path(out);
        let (checkpoint, start) =
            open_step_log(&partial, magic, self.table.layout(), &extra, read)?;
        let steps = (start, self.table.layout().steps());
        let said = RunEvent::resumed(&partial, checkpoint.dropped_bytes, steps, None);
        (self.checkpoint, self.start) = (Some(checkpoint), start);
        Ok(said)
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let mut checkpoint = self.checkpoint.take().expect("resumed before it runs");
        let (packed, steps, mut ranges) = (self.table.packed(), self.table.layout(), Vec::new());
        let choice = Choice::new(&self.rule);
        let on_step = |step, progress| {
            steps.ranges(step, &mut ranges);
            let n: u64 = ranges.iter().map(|&(_, l)| l).sum();
            let len = (n * packed.bits() as u64).div_ceil(8);
            checkpoint.append_stream(step, len, |sink| pack_to(packed, &ranges, sink))?;
            report(RunEvent::Step(progress));
            Ok(())
        };
        let run = self.table.compute_packed(&choice, self.start, on_step);
        self.checkpoint = Some(checkpoint);
        run
    }

    fn publish(mut self, out: &Path) -> Result<OrdTable> {
        save_ords(&self.table, &self.rule, out)?;
        Checkpoint::remove_held(&mut self.checkpoint)?;
        Ok(self.table)
    }
}

/// A saved ordinal table opened for reading single ordinals without loading it, each from a
/// chunk whose CRC-32 was checked.
#[derive(Debug)]
pub struct OrdFile {
    body: CheckedBody,
    layout: BitLayout,
    rule: Rule,
    bits: u32,
    histogram: Vec<u64>,
}

impl OrdFile {
    /// Open a table written by [`save_ords`]: checks the header and the file's length, and
    /// reads the trailer of chunk CRCs.
    pub fn open(path: &Path) -> Result<OrdFile> {
        OrdFile::read(Sealed::open(path)?.of(ORD_TABLE)?)
    }

    /// The table whose sealed header was read (the file's first bytes, read once).
    pub(crate) fn read(sealed: Sealed) -> Result<OrdFile> {
        let (path, pairs) = (&sealed.path.clone(), &sealed.pairs);
        let bad = |e: String| Error::invalid(format!("{}: {e}", path.display()));
        let layout = sealed.value_layout("an ordinal table")?;
        let rule = Rule::parse(store::field(path, pairs, "rule")?).map_err(bad)?;
        let histogram = store::field(path, pairs, "histogram")?
            .split(' ')
            .map(|c| c.parse::<u64>())
            .collect::<std::result::Result<Vec<u64>, _>>()
            .map_err(|_| store::damaged(path, "'histogram' is not a list of numbers"))?;
        // Every other line follows from these: the header must be exactly the one written.
        let header = ord_header(&sealed.magic(), &layout, &rule, &histogram);
        let sum = histogram.iter().try_fold(0u64, |a, &c| a.checked_add(c));
        let why = "the header does not match its box and rule";
        sealed.expect(&header, why)?;
        if histogram.len() != rule.players() + 1 || sum != Some(layout.positions()) {
            return Err(store::damaged(path, why));
        }
        let bits = PackedOrds::bits_for(rule.players() as u8);
        let what = format!("an ordinal table of the {} box", layout.shape());
        let bytes = PackedOrds::bytes_for(layout.len(), rule.players() as u8);
        let body = sealed.body(bytes, &what)?;
        Ok(OrdFile {
            body,
            layout,
            rule,
            bits,
            histogram,
        })
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.layout.shape()
    }

    /// How the file numbers its entries: colex ranks, or one entry a transposed pair.
    pub fn layout(&self) -> &BitLayout {
        &self.layout
    }

    /// The rule, normalised.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// Positions of each ordinal 0..=n, as the header says.
    pub fn histogram(&self) -> &[u64] {
        &self.histogram
    }

    /// The ordinal of entry `r` (a colex rank, or a hook index: [`OrdFile::layout`]), read
    /// from the file (from a checked chunk).
    pub fn ordinal_rank(&self, r: u64) -> Result<u8> {
        if r >= self.layout.len() {
            return Err(self.body.invalid(format!("entry {r} is outside the table")));
        }
        let off = r * self.bits as u64;
        let bytes = PackedOrds::bytes_for(self.layout.len(), self.rule.players() as u8);
        let at = off / 8;
        let mut b = [0u8; 2];
        let k = (bytes - at).min(2) as usize;
        self.body.read_at(at, &mut b[..k])?;
        let v = (u16::from_le_bytes(b) >> (off % 8)) & ((1 << self.bits) - 1);
        let n = self.rule.players() as u16;
        if v > n || (r == 0) != (v == 0) {
            return Err(self.body.damaged(format!(
                "entry {r} holds ordinal {v}, which {n} players do not give it"
            )));
        }
        Ok(v as u8)
    }

    /// The ordinal of `p`; an error when it is outside the box.
    pub fn ordinal(&self, p: &Diagram) -> Result<u8> {
        self.ordinal_rank(self.layout.bit_of(p)?)
    }

    /// Sol of `p` ([`OrdTable::sol`]), read from the file. By Fact 2.9 a position of ordinal
    /// 2 or more has a solution; a file that says otherwise is damaged and refused.
    pub fn sol(&self, p: &Diagram) -> Result<Vec<Diagram>> {
        let o = self.ordinal(p)?;
        let sol = sol_from(p, o, |q| self.ordinal(q))?;
        if o >= 2 && sol.is_empty() {
            return Err(self.body.damaged(format!(
                "{p} holds ordinal {o} but no option of it holds {}",
                o - 1
            )));
        }
        Ok(sol)
    }

    /// One solution chain from `p` down to (0), each step the first (smallest) solution.
    pub fn chain(&self, p: &Diagram) -> Result<Vec<Diagram>> {
        let mut chain = vec![p.clone()];
        while let Some(q) = self.sol(chain.last().expect("a chain"))?.into_iter().next() {
            chain.push(q);
        }
        Ok(chain)
    }

    /// Check every chunk against its CRC-32 and recount the histogram against the header's
    /// (the store's one verify).
    pub fn verify(&self) -> Result<()> {
        let all = || vec![(0, self.layout.len(), 1)];
        let runs = self
            .layout
            .hook_index()
            .map_or_else(all, |hook| hook.leaf_weights());
        let weights = (runs.into_iter()).flat_map(|(lo, hi, w)| repeat_n(w, (hi - lo) as usize));
        self.body.verify(Histogram {
            unpacker: Unpacker::new(self.bits),
            weights,
            at: 0,
            bad: None,
            counts: vec![0; self.rule.players() + 1],
            stated: &self.histogram,
        })
    }
}

/// What an ordinal table's verify recounts: the histogram of its ordinals, and that no entry
/// (nor the bits past the last) holds a value no ordinal takes.
struct Histogram<'a, W> {
    unpacker: Unpacker,
    /// How many positions each entry stands for (2 for a transposed pair), in order.
    weights: W,
    /// The entry next, and the first that holds no ordinal.
    at: u64,
    bad: Option<u64>,
    counts: Vec<u64>,
    stated: &'a [u64],
}

impl<W: Iterator<Item = u64>> Recount for Histogram<'_, W> {
    fn feed(&mut self, chunk: &[u8]) {
        let n = self.counts.len() - 1;
        if self.bad.is_some() {
            return;
        }
        self.unpacker.feed(chunk, |o| {
            match (self.weights.next(), o as usize) {
                (Some(w), o) if o <= n => self.counts[o] += w,
                (None, 0) => {}
                _ => self.bad = Some(self.at),
            }
            self.at += 1;
            self.bad.is_none()
        });
    }

    fn disagreement(self) -> Option<String> {
        let n = self.counts.len() - 1;
        if let Some(r) = self.bad {
            return Some(format!(
                "entry {r} holds a value no ordinal of {n} players takes"
            ));
        }
        let (counts, stated) = (&self.counts, self.stated);
        (counts != stated)
            .then(|| format!("the ordinals count {counts:?}, the header says {stated:?}"))
    }
}
