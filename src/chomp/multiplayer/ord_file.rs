//! Ordinal tables on disk: the table file (`chomp ord -o FILE`: the store's sealed header with
//! the normalised rule and the histogram of the ordinals, then the packed table
//! ([`PackedOrds`]) as little-endian u64 words, then the chunk CRCs), the checkpoint of a run in
//! progress (`FILE.partial`: one record a finished step, its entries packed at `ordinal-bits`
//! bits from bit 0 of the first byte), and [`OrdFile`], which answers from the file without
//! loading it, checking each chunk before it answers and every ordinal against `players`. The
//! file is a function of the box and the rule alone. Formats: docs/formats.md, "Ordinal
//! tables".
//!
//! Tests: tests/games/chomp/ord_file.rs.

use super::hook_ords::HookOrds;
use super::ordinal::{sol_from, OrdEngine, OrdPlan, OrdTable, Ords};
use super::packed::PackedOrds;
use super::rule::{Choice, Rule};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::engine::lifecycle::{open_step_log, run_to_file, Job, RunEvent};
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::pairs::hook_weights;
use crate::chomp::index::{BitLayout, Ranker};
use crate::chomp::store::{self, CheckedBody, Checkpoint, Recount, Sealed, ORD_TABLE};
use crate::error::{Error, Result};
use std::io::Read;
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

/// Entries of a few bits each read back from bytes [`pack_to`] (or the table's words) wrote.
struct Unpacker {
    bits: u32,
    acc: u64,
    have: u32,
}

impl Unpacker {
    fn new(bits: u32) -> Unpacker {
        Unpacker {
            bits,
            acc: 0,
            have: 0,
        }
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
    let packed;
    let ords = match table.ords.packed() {
        Some(p) => p,
        None => {
            packed = PackedOrds::from_bytes(&table.ords.to_bytes(), players);
            &packed
        }
    };
    let header = ord_header(
        &ORD_TABLE.magic(),
        &table.layout(),
        rule,
        &table.histogram(),
    );
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

/// Compute the ordinals of the plan's box under `rule` by the packed engine (one entry a
/// transposed pair on a square, [`OrdPlan::keeps_pairs`]), keep finished steps in
/// `FILE.partial` (resuming from it when it exists), save the table to `out` and remove the
/// checkpoint: the engine's one run to a file ([`run_to_file`]). The saved file is the same,
/// byte for byte, however often the run was stopped and resumed. Refused before any work when
/// the memory lacks room for the table or the disk for the table and its checkpoint.
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
        let shape = plan.shape;
        let ranker = Ranker::new(shape)?;
        let players = rule.players() as u8;
        let bytes = plan.room_for_table(players)?;
        let ords = match plan.keeps_pairs() {
            true => Ords::Hook(HookOrds::zeroed(ranker.clone(), players)?),
            false => Ords::Packed(PackedOrds::zeroed(ranker.len(), players)),
        };
        let table = OrdTable {
            ranker,
            players,
            ords,
        };
        Ok(OrdJob {
            layout: table.layout(),
            table,
            rule: rule.clone(),
            bytes,
            partial: store::partial_path(out),
            checkpoint: None,
            start: 0,
        })
    };
    run_to_file(out, job, report)
}

/// An ordinal table's part of the run to a file.
struct OrdJob {
    table: OrdTable,
    layout: BitLayout,
    rule: Rule,
    /// Bytes of the packed entries.
    bytes: u64,
    partial: PathBuf,
    checkpoint: Option<Checkpoint>,
    start: u64,
}

impl OrdJob {
    fn packed(&self) -> &PackedOrds {
        self.table
            .ords
            .packed()
            .expect("an ordinal table run to a file is packed")
    }
}

impl Job for OrdJob {
    type Output = OrdTable;

    fn disk_bytes(&self) -> u64 {
        // The checkpoint holds every ordinal too (a byte's padding a layer), and both are on
        // disk before it goes.
        let body = self.bytes + self.bytes.div_ceil(store::CHUNK_BYTES) * 4;
        body + self.bytes + 29 * self.layout.steps() + 8192
    }

    fn checkpoints(&self, _out: &Path) -> Vec<PathBuf> {
        vec![self.partial.clone()]
    }

    fn resume(&mut self, _out: &Path) -> Result<Vec<RunEvent>> {
        let (ords, players) = (self.packed(), self.rule.players() as u8);
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
            let got = store::read_raw_record(reader, 1, |v, m| v == step && m == len, &mut place)?;
            // Entries go into the table as they are read: those of a record that turns out
            // damaged are cleared, before their step is computed again.
            if got.is_none() {
                let ranks = ranges.iter().flat_map(|&(b, l)| b..b + l);
                ranks.for_each(|r| ords.put(r, 0));
            }
            Ok(got.map(|(_, bytes)| bytes))
        };
        let magic = (PARTIAL_MAGIC, "computed");
        let (checkpoint, start) = open_step_log(&self.partial, magic, &self.layout, &extra, read)?;
        let steps = (start, self.layout.steps());
        let said = RunEvent::resumed(&self.partial, &checkpoint, steps, None);
        (self.checkpoint, self.start) = (Some(checkpoint), start);
        Ok(said)
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let mut checkpoint = self.checkpoint.take().expect("resumed before it runs");
        let (packed, steps, mut ranges) = (self.packed(), &self.layout, Vec::new());
        let choice = Choice::new(&self.rule);
        let on_step = |step, progress| {
            steps.ranges(step, &mut ranges);
            let n: u64 = ranges.iter().map(|&(_, l)| l).sum();
            let len = (n * packed.bits() as u64).div_ceil(8);
            checkpoint.append_stream(step, len, |sink| pack_to(packed, &ranges, sink))?;
            report(RunEvent::Step(progress));
            Ok(())
        };
        let run = match &self.table.ords {
            Ords::Hook(h) => packed.compute_hook_from(&h.hook, &choice, self.start, on_step),
            _ => packed.compute_from(&self.table.ranker, &choice, self.start, on_step),
        };
        self.checkpoint = Some(checkpoint);
        run
    }

    fn discard(&mut self) -> Result<()> {
        self.checkpoint.take().map_or(Ok(()), Checkpoint::remove)
    }

    fn publish(mut self, out: &Path) -> Result<OrdTable> {
        save_ords(&self.table, &self.rule, out)?;
        self.discard()?;
        Ok(self.table)
    }
}

/// A saved ordinal table opened for reading single ordinals without loading it. Every
/// ordinal read comes from a chunk whose CRC-32 was checked (once per chunk, remembered).
#[derive(Debug)]
pub struct OrdFile {
    body: CheckedBody,
    layout: BitLayout,
    rule: Rule,
    bits: u32,
    histogram: Vec<u64>,
}

impl OrdFile {
    /// Open a table written by [`save_ords`]: checks the header (its CRC, the box, the
    /// numbering, the rule, the width, the histogram) and the file's length, and reads the
    /// trailer of chunk CRCs.
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
    /// (an entry of a transposed pair counts twice; the store's one verify); the bits past the
    /// last entry must be 0.
    pub fn verify(&self) -> Result<()> {
        let len = self.layout.len();
        let weights = match self.layout.hook_index() {
            Some(hook) => hook_weights(hook),
            None => vec![(0, len, 1)],
        };
        self.body.verify(Histogram {
            unpacker: Unpacker::new(self.bits),
            weights,
            len,
            at: (0, 0),
            bad: None,
            counts: vec![0; self.rule.players() + 1],
            stated: &self.histogram,
        })
    }
}

/// What an ordinal table's verify recounts: the histogram of its ordinals, and that no entry
/// (nor the bits past the last) holds a value no ordinal takes.
struct Histogram<'a> {
    unpacker: Unpacker,
    /// (first index, one past the last, weight) of each run of entries of one weight.
    weights: Vec<(u64, u64, u64)>,
    len: u64,
    /// The entry next and its run of weights.
    at: (u64, usize),
    /// The first entry that holds no ordinal.
    bad: Option<u64>,
    counts: Vec<u64>,
    stated: &'a [u64],
}

impl Recount for Histogram<'_> {
    fn feed(&mut self, chunk: &[u8]) {
        let n = self.counts.len() - 1;
        if self.bad.is_some() {
            return;
        }
        let (r, run) = &mut self.at;
        self.unpacker.feed(chunk, |o| {
            while *run < self.weights.len() && self.weights[*run].1 <= *r {
                *run += 1;
            }
            match (*r < self.len, o as usize) {
                (true, o) if o <= n => self.counts[o] += self.weights[*run].2,
                (false, 0) => {}
                _ => self.bad = Some(*r),
            }
            *r += 1;
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
        (self.counts != self.stated).then(|| {
            format!(
                "the ordinals count {:?}, the header says {:?}",
                self.counts, self.stated
            )
        })
    }
}
