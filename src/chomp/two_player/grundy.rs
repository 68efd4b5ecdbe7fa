//! Grundy values (nim-values) of two-player Chomp (docs/mathematics.md §5b): G(P) = mex of G
//! over P's options, the bite to the empty diagram excluded, so G((1)) = 0 and G(P) = 0
//! exactly when P is a P-position.
//!
//! [`GrundyTable`] keeps the value of every position of a box by colex rank (or, on a square,
//! one of each transposed pair) and computes it in the one driver on the colex schedule
//! ([`Layers`]). A value takes one byte or two ([`ValueBytes`]), chosen by [`GrundyPlan`]
//! before any work. One byte is exact up to 256 cells (a mex is at most the options, at most
//! cells - 1); past that the run checks it, and a value that does not fit stops the run. The
//! largest value of each hook, tallied as it computes, answers [`GrundyTable::largest_in`].
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs (an independent mex, the
//! table solver's P-positions); tests/games/chomp/grundy_file.rs (resumed runs, their tallies).

use super::table::rectangle;
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::engine::driver::{drive, par_ranges, Run};
use crate::chomp::engine::schedule::{for_each_in_range, Layers, Progress, Schedule};
use crate::chomp::index::pairs::{pairs_index, square_for_pairs, HookOptions, Stored};
use crate::chomp::index::{BitLayout, Ranker};
use crate::error::{Error, Result};
use crate::memory::Room;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// Most positions a Grundy table may have: 2^36 (64 GiB at one byte a position).
pub const MAX_GRUNDY_POSITIONS: u64 = 1 << 36;

/// Bytes a Grundy value takes in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueBytes {
    /// Values 0..=255.
    One,
    /// Values 0..=65535.
    Two,
}

impl ValueBytes {
    /// The number of bytes.
    pub fn bytes(self) -> u64 {
        match self {
            ValueBytes::One => 1,
            ValueBytes::Two => 2,
        }
    }

    /// The largest value this width holds.
    pub fn max_value(self) -> usize {
        (1 << (8 * self.bytes())) - 1
    }
}

/// What a Grundy table of a box will take, decided before any work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrundyPlan {
    /// The box.
    pub shape: ChompBox,
    /// Positions of the box, the empty diagram included.
    pub positions: u64,
    /// Bytes a value takes (the run checks every value against it).
    pub width: ValueBytes,
    /// Whether the table keeps one value for each pair of transposed positions (a square box:
    /// the hook index of `crate::chomp::index::pairs`), not one for every position.
    pub pairs: bool,
    /// Values the table keeps: the positions, or the stored ones of the pairs.
    pub entries: u64,
}

impl GrundyPlan {
    /// The plan for `shape`: the width asked for, or by default one byte; a square box keeps
    /// one value for each transposed pair unless asked to keep every position `by_rank` (by
    /// colex rank). Refuses, with the memory it would need, what does not fit in `room`.
    pub fn new(
        shape: ChompBox,
        width: Option<ValueBytes>,
        by_rank: bool,
        room: Room,
    ) -> Result<GrundyPlan> {
        let too_large = |why: &str| Error::too_large(format!("the {shape} box"), why);
        // Checked first: a box of many cells is refused before its ranking is built.
        if shape.rows as u64 * shape.cols as u64 > u16::MAX as u64 {
            let why = "Grundy values are kept in at most 16 bits: at most 65535 cells";
            return Err(too_large(why));
        }
        let positions = shape.positions().filter(|&t| t <= MAX_GRUNDY_POSITIONS);
        let why = "more than 2^36 positions; choose a smaller box";
        let positions = positions.ok_or_else(|| too_large(why))?;
        let pairs = !by_rank && square_for_pairs(shape);
        let width = width.unwrap_or(ValueBytes::One);
        let entries = match pairs {
            true => pairs_index(shape.rows)?.len(),
            false => positions,
        };
        let plan = GrundyPlan {
            shape,
            positions,
            width,
            pairs,
            entries,
        };
        room.ensure(
            plan.bytes(),
            &format!("the Grundy table of the {shape} box"),
            "choose a smaller box",
        )?;
        Ok(plan)
    }

    /// Bytes of the table.
    pub fn bytes(&self) -> u64 {
        self.entries * self.width.bytes()
    }
}

#[derive(Debug)]
enum Values {
    One(Vec<AtomicU8>),
    Two(Vec<AtomicU16>),
}

impl Values {
    #[inline]
    fn get(&self, r: u64) -> u16 {
        match self {
            Values::One(v) => v[r as usize].load(Relaxed) as u16,
            Values::Two(v) => v[r as usize].load(Relaxed),
        }
    }

    #[inline]
    fn set(&self, r: u64, g: u16) {
        match self {
            Values::One(v) => v[r as usize].store(g as u8, Relaxed),
            Values::Two(v) => v[r as usize].store(g, Relaxed),
        }
    }
}

/// The Grundy value of every position of a box, indexed by colex rank, or on a square by the
/// hook index of one position of each transposed pair ([`GrundyPlan::pairs`]); index 0, the
/// empty diagram, holds 0 and is not a position.
#[derive(Debug)]
pub struct GrundyTable {
    plan: GrundyPlan,
    values: Values,
    /// How the values are numbered: colex ranks, or one of each transposed pair; it holds the
    /// box's ranking ([`GrundyTable::ranker`]).
    layout: BitLayout,
    /// Largest value of the positions with hook (a, b), at a + b·(C+1).
    hook_max: Vec<u16>,
    /// Positions of each value 0, 1, …, the largest.
    histogram: Vec<u64>,
}

impl GrundyTable {
    /// Compute the table of `shape` with the default plan, in the system's memory.
    pub fn compute(shape: ChompBox) -> Result<GrundyTable> {
        GrundyTable::compute_with(GrundyPlan::new(shape, None, false, Room::SYSTEM)?)
    }

    /// Compute by the prefix layers of [`super::solve`]: every position after all its options.
    pub fn compute_with(plan: GrundyPlan) -> Result<GrundyTable> {
        let mut table = GrundyTable::empty(plan)?;
        table.compute_from(0, |_, _, _| Ok(()))?;
        Ok(table)
    }

    /// A table of `plan` with every value 0, for [`GrundyTable::compute_from`].
    pub(super) fn empty(plan: GrundyPlan) -> Result<GrundyTable> {
        let shape = plan.shape;
        let ranker = Ranker::with_limit(shape, MAX_GRUNDY_POSITIONS, "more than 2^36 positions")?;
        let hook = plan.pairs.then(|| pairs_index(shape.rows)).transpose()?;
        let len = plan.entries;
        let values = match plan.width {
            ValueBytes::One => Values::One((0..len).map(|_| AtomicU8::new(0)).collect()),
            ValueBytes::Two => Values::Two((0..len).map(|_| AtomicU16::new(0)).collect()),
        };
        Ok(GrundyTable {
            layout: BitLayout::of(ranker, hook.map(Arc::new).as_ref()),
            plan,
            values,
            hook_max: Vec::new(),
            histogram: vec![0],
        })
    }

    /// Decide the steps of the colex schedule from `start` on (the values of the steps before
    /// it are in the table already: read back from a checkpoint), calling `on_step(table,
    /// step, progress)` after each; then the largest value of each hook and the histogram hold
    /// every position's.
    pub(super) fn compute_from(
        &mut self,
        start: u64,
        mut on_step: impl FnMut(&GrundyTable, u64, Progress) -> Result<()>,
    ) -> Result<()> {
        let this: &GrundyTable = self;
        let (plan, ranker, values) = (this.plan, this.ranker(), &this.values);
        let shape = plan.shape;
        let stride = shape.cols as usize + 1;
        let hooks = stride * (shape.rows + 1);
        let limit = plan.width.max_value();
        let tallies = Tallies {
            hook_max: (0..hooks).map(|_| AtomicU16::new(0)).collect(),
            histogram: (0..=limit).map(|_| AtomicU64::new(0)).collect(),
        };
        let too_big = AtomicBool::new(false);
        let words = (shape.rows * shape.cols as usize) / 64 + 1;
        let scratch = || Scratch {
            rows: vec![0; shape.rows],
            seen: vec![0; words],
            hooks: vec![0; hooks],
            tally: vec![0; limit + 1],
        };
        // The value of a position from the marks its options left in `seen`, kept at `index`.
        let decide = |index: u64, seen: &[u64]| {
            let g = mex(seen);
            if g > limit {
                too_big.store(true, Relaxed);
            }
            let g = g.min(limit) as u16;
            values.set(index, g);
            g
        };
        let on_step = |step, progress| {
            if too_big.load(Relaxed) {
                let two = crate::memory::human_bytes(plan.entries * 2);
                return Err(Error::too_large(
                    format!("the Grundy table of the {shape} box"),
                    format!(
                        "a value exceeds {limit}, the most one byte holds; \
                         two bytes a position need {two} of memory"
                    ),
                ));
            }
            on_step(this, step, progress)
        };
        match this.layout.hook_index() {
            None => {
                let layers = Layers { ranker };
                let run = Run::new(&layers, ranker.len(), start);
                let range = |s: &mut Scratch, base: u64, len: u64, compute: bool| {
                    tallies.range(ranker, s, base, len, |rows, rank, seen| {
                        if !compute {
                            return values.get(rank);
                        }
                        seen.fill(0);
                        ranker.for_each_option(rows, rank, |q| mark(seen, values, q));
                        decide(rank, seen)
                    })
                };
                drive_tallied(run, &scratch, range, on_step)?;
            }
            Some(hook) => {
                let options = HookOptions::new(hook)?;
                let run = Run::new(&**hook, hook.len(), start);
                let range = |s: &mut Scratch, base: u64, len: u64, compute: bool| {
                    tallies.pairs_range(&options, stride, s, base, len, |p, seen| {
                        if !compute {
                            return values.get(p.index);
                        }
                        seen.fill(0);
                        options.of_until(p, |q| {
                            mark(seen, values, q);
                            true
                        });
                        decide(p.index, seen)
                    })
                };
                drive_tallied(run, &scratch, range, on_step)?;
            }
        }
        let (hook_max, histogram) = (tallies.hook_max, tallies.histogram);
        self.hook_max = hook_max.into_iter().map(AtomicU16::into_inner).collect();
        self.histogram = histogram.into_iter().map(AtomicU64::into_inner).collect();
        let largest = self.histogram.iter().rposition(|&c| c > 0);
        self.histogram.truncate(largest.map_or(1, |g| g + 1));
        Ok(())
    }

    /// The values of indexes `base..base + len` (colex ranks, or hook indexes when the table
    /// keeps one of each transposed pair) as a table file keeps them (`value-bytes` bytes
    /// each, little-endian), appended to `out`.
    pub fn values_le(&self, base: u64, len: u64, out: &mut Vec<u8>) {
        let (b, e) = (base as usize, (base + len) as usize);
        match &self.values {
            Values::One(v) => out.extend(v[b..e].iter().map(|g| g.load(Relaxed))),
            Values::Two(v) => {
                out.extend(v[b..e].iter().flat_map(|g| g.load(Relaxed).to_le_bytes()))
            }
        }
    }

    /// Set the values of ranks from `base` on from `bytes` as [`GrundyTable::values_le`] gives
    /// them (a whole number of values).
    pub(super) fn set_values_le(&self, base: u64, bytes: &[u8]) {
        let b = base as usize;
        match &self.values {
            Values::One(v) => v[b..b + bytes.len()]
                .iter()
                .zip(bytes)
                .for_each(|(g, &x)| g.store(x, Relaxed)),
            Values::Two(v) => v[b..b + bytes.len() / 2]
                .iter()
                .zip(bytes.chunks_exact(2))
                .for_each(|(g, x)| g.store(u16::from_le_bytes([x[0], x[1]]), Relaxed)),
        }
    }

    /// The box's ranking.
    pub fn ranker(&self) -> &Ranker {
        self.layout.ranker()
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.layout.shape()
    }

    /// The plan the table was computed with.
    pub fn plan(&self) -> GrundyPlan {
        self.plan
    }

    /// The Grundy value of colex rank `r`.
    pub fn value_rank(&self, r: u64) -> u16 {
        match &self.layout {
            BitLayout::Colex(_) => self.values.get(r),
            BitLayout::Hook { ranker, hook } => self.values.get(hook.index_of_rank(ranker, r)),
        }
    }

    /// How the table numbers its values: colex ranks, or one position of each transposed pair.
    pub fn layout(&self) -> &BitLayout {
        &self.layout
    }

    /// The Grundy value of `p`; `None` when it is empty or outside the box.
    pub fn value(&self, p: &Diagram) -> Option<u16> {
        if p.is_empty() || !self.shape().contains(p) {
            return None;
        }
        self.layout.bit(p).map(|x| self.values.get(x))
    }

    /// `moves_by` of `p`; `None` when `p` is empty or outside the box.
    pub fn moves(&self, p: &Diagram) -> Option<Vec<Diagram>> {
        let value = |q: &Diagram| Ok(self.value(q).expect("an option lies in its position's box"));
        let moves = moves_by(p, self.value(p)?, value, Error::invalid);
        Some(moves.expect("the mex leaves a move to every smaller value"))
    }

    /// The largest value among the positions of the `rows`×`cols` box; `None` when it is not
    /// inside this table's box.
    pub fn largest_in(&self, rows: usize, cols: u32) -> Option<u16> {
        let shape = self.shape();
        if rows == 0 || cols == 0 || rows > shape.rows || cols > shape.cols {
            return None;
        }
        let stride = shape.cols as usize + 1;
        let hooks = (1..=rows).flat_map(|b| (1..=cols as usize).map(move |a| a + b * stride));
        hooks.map(|h| self.hook_max[h]).max()
    }

    /// How many positions have each Grundy value 0, 1, …, the largest.
    pub fn histogram(&self) -> &[u64] {
        &self.histogram
    }

    /// The largest Grundy value in the box.
    pub fn max_grundy(&self) -> usize {
        self.histogram.len() - 1
    }

    /// The value of every rectangle r×c of the box, rows first.
    pub fn rectangles(&self) -> Vec<RectangleGrundy> {
        let shape = self.shape();
        let rect = |(rows, cols)| {
            let grundy = self.value(&rectangle(rows, cols));
            let grundy = grundy.expect("a rectangle of the box is a position");
            RectangleGrundy { rows, cols, grundy }
        };
        let all = (1..=shape.rows).flat_map(|r| (1..=shape.cols).map(move |c| (r, c)));
        all.map(rect).collect()
    }

    /// The terms n = 1, 2, … of `sequence` that the box holds ([`GrundySequence::terms`]).
    pub fn sequence(&self, sequence: GrundySequence) -> Result<Vec<u16>> {
        let terms = sequence.terms(self.shape())?;
        Ok((1..=terms)
            .map(|n| match sequence.rows(n) {
                None => self.largest_in(n as usize, n).expect("n×n lies in the box"),
                Some(rows) => self
                    .value(&rectangle(rows, n))
                    .expect("a rectangle of the box is a position"),
            })
            .collect())
    }
}

/// For each value below `g` = G(`p`), one move of `p` to a position of that value (the least
/// such position in the order of row lengths), at index g; empty when `p` is P. `value` gives
/// each option's value. By the mex definition each exists and no option holds `g`: a table
/// that says otherwise is `damaged(why)`.
pub(super) fn moves_by(
    p: &Diagram,
    g: u16,
    mut value: impl FnMut(&Diagram) -> Result<u16>,
    damaged: impl Fn(String) -> Error,
) -> Result<Vec<Diagram>> {
    let mut options = p.options();
    options.retain(|q| !q.is_empty());
    options.sort();
    options.dedup();
    let mut out: Vec<Option<Diagram>> = vec![None; g as usize];
    for q in options {
        let v = value(&q)?;
        if v == g {
            return Err(damaged(format!("{p} and its option {q} both hold {g}")));
        }
        if let Some(slot @ None) = out.get_mut(v as usize) {
            *slot = Some(q);
        }
    }
    let missing = |v| damaged(format!("{p} holds {g} but no option of it holds {v}"));
    let out = out.into_iter().enumerate();
    out.map(|(v, q)| q.ok_or_else(|| missing(v))).collect()
}

/// The Grundy value of one rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RectangleGrundy {
    /// Rows of the rectangle.
    pub rows: usize,
    /// Columns of the rectangle.
    pub cols: u32,
    /// Its Grundy value.
    pub grundy: u16,
}

/// A sequence indexed by a side n that a Grundy table gives (an OEIS b-file's terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum GrundySequence {
    /// G of the n×n squares, n = 1, 2, …
    Square,
    /// G of the 2×n rectangles.
    TwoRows,
    /// G of the 3×n rectangles.
    ThreeRows,
    /// The largest value among all positions of the n×n box.
    Largest,
}

impl GrundySequence {
    /// Every sequence by the name the CLI's `--bfile` and Python take.
    const NAMES: [(&'static str, GrundySequence); 4] = [
        ("square", GrundySequence::Square),
        ("two-rows", GrundySequence::TwoRows),
        ("three-rows", GrundySequence::ThreeRows),
        ("largest", GrundySequence::Largest),
    ];

    /// The sequence of a name; the error lists the names.
    pub fn from_name(name: &str) -> Result<GrundySequence> {
        let names = GrundySequence::NAMES;
        let found = names.iter().find(|(n, _)| *n == name).map(|&(_, s)| s);
        found.ok_or_else(|| {
            let names = names.map(|(n, _)| n).join(", ");
            let why = format!("no Grundy sequence is called {name:?}; the sequences are {names}");
            Error::invalid(why)
        })
    }

    /// The rows of the n-th term's rectangle; `None` for [`GrundySequence::Largest`].
    fn rows(self, n: u32) -> Option<usize> {
        match self {
            GrundySequence::Square => Some(n as usize),
            GrundySequence::TwoRows => Some(2),
            GrundySequence::ThreeRows => Some(3),
            GrundySequence::Largest => None,
        }
    }

    /// How many terms the `shape` box holds: the smaller side for squares and the largest
    /// value, the columns for 2×n and 3×n. A box with too few rows is refused, before any
    /// work when asked before computing.
    pub fn terms(self, shape: ChompBox) -> Result<u32> {
        let rows = match self {
            GrundySequence::TwoRows | GrundySequence::ThreeRows => self.rows(1).unwrap_or(0),
            _ => return Ok(shape.cols.min(shape.rows as u32)),
        };
        if shape.rows < rows {
            let why = format!("the {shape} box has fewer than {rows} rows");
            return Err(Error::invalid(why));
        }
        Ok(shape.cols)
    }
}

/// The largest value of each hook (a + b·(C+1)) and the positions of each value, shared by
/// the workers, who add their own at the end of each range.
struct Tallies {
    hook_max: Vec<AtomicU16>,
    histogram: Vec<AtomicU64>,
}

impl Tallies {
    /// Visit the positions of one range, each valued by `value(rows, rank, seen)` (computed or
    /// read), and tally them.
    fn range(
        &self,
        ranker: &Ranker,
        s: &mut Scratch,
        base: u64,
        len: u64,
        mut value: impl FnMut(&[u32], u64, &mut [u64]) -> u16,
    ) {
        let stride = ranker.shape.cols as usize + 1;
        let Scratch {
            rows,
            seen,
            hooks,
            tally,
        } = s;
        let mut largest = 0;
        for_each_in_range(ranker, base, len, rows, |rows, rank| {
            if rank == 0 {
                return;
            }
            let g = value(rows, rank, seen);
            tally[g as usize] += 1;
            largest = largest.max(g as usize);
            let b = rows.iter().take_while(|&&a| a > 0).count();
            let h = &mut hooks[rows[0] as usize + b * stride];
            *h = (*h).max(g);
        });
        self.flush(hooks, tally, largest);
    }

    /// [`Tallies::range`] for a table by transposed pairs: a stored position of hook (a, b)
    /// with a > b stands for its transpose too, of hook (b, a).
    fn pairs_range(
        &self,
        options: &HookOptions,
        stride: usize,
        s: &mut Scratch,
        base: u64,
        len: u64,
        mut value: impl FnMut(&Stored, &mut [u64]) -> u16,
    ) {
        let Scratch {
            seen, hooks, tally, ..
        } = s;
        let mut largest = 0;
        options.walk(base, len, |p| {
            let g = value(p, seen);
            let pair = p.a > p.b;
            tally[g as usize] += 1 + pair as u64;
            largest = largest.max(g as usize);
            let h = &mut hooks[p.a + p.b * stride];
            *h = (*h).max(g);
            if pair {
                let h = &mut hooks[p.b + p.a * stride];
                *h = (*h).max(g);
            }
        });
        self.flush(hooks, tally, largest);
    }

    /// Add a worker's tallies of its range (values up to `largest`) to the shared ones and
    /// clear them.
    fn flush(&self, hooks: &mut [u16], tally: &mut [u64], largest: usize) {
        for (shared, local) in self.hook_max.iter().zip(hooks.iter_mut()) {
            if *local > 0 {
                shared.fetch_max(*local, Relaxed);
                *local = 0;
            }
        }
        for (shared, local) in self.histogram.iter().zip(&mut tally[..=largest]) {
            if *local > 0 {
                shared.fetch_add(*local, Relaxed);
                *local = 0;
            }
        }
    }
}

/// One worker's buffers: the row lengths, the seen-values bitset, the largest value per hook
/// and the positions of each value, of the block in hand.
struct Scratch {
    rows: Vec<u32>,
    seen: Vec<u64>,
    hooks: Vec<u16>,
    tally: Vec<u64>,
}

/// Mark the value of the option at index `q` in `seen`; the empty diagram (index 0 in both
/// layouts) is no option of a Grundy value.
#[inline]
fn mark(seen: &mut [u64], values: &Values, q: u64) {
    if q != 0 {
        let g = values.get(q) as usize;
        seen[g >> 6] |= 1 << (g & 63);
    }
}

/// The least value not marked in `seen`.
#[inline]
fn mex(seen: &[u64]) -> usize {
    seen.iter()
        .enumerate()
        .find(|(_, w)| **w != u64::MAX)
        .map_or(seen.len() * 64, |(i, w)| {
            i * 64 + w.trailing_ones() as usize
        })
}

/// Tally the finished steps' positions from their values (a resumed run), then drive the rest
/// of `run`, `range(scratch, base, len, compute)` deciding (or, with `compute` false, reading)
/// and tallying one range.
fn drive_tallied<S: Schedule>(
    run: Run<S>,
    scratch: &(impl Fn() -> Scratch + Sync + Send),
    range: impl Fn(&mut Scratch, u64, u64, bool) + Sync,
    mut on_step: impl FnMut(u64, Progress) -> Result<()>,
) -> Result<()> {
    let mut finished = Vec::new();
    run.finished(|b, l| finished.push((b, l)));
    par_ranges(&finished, S::GRAIN, scratch, &|s, b, l, _| {
        range(s, b, l, false)
    })?;
    drive(
        run,
        scratch,
        |s, base, len, _| range(s, base, len, true),
        |step, _, progress| on_step(step, progress),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(rows: usize, cols: u32) -> ChompBox {
        ChompBox { rows, cols }
    }

    #[test]
    fn widths_and_layouts_agree_and_the_hook_maxima_are_the_sub_box_maxima() {
        let room = Room::assume(1 << 30);
        // One byte by rank against two bytes, by transposed pairs on the square.
        for shape in [bx(6, 7), bx(7, 7)] {
            let table = |width, by_rank| {
                let plan = GrundyPlan::new(shape, width, by_rank, room).unwrap();
                GrundyTable::compute_with(plan).unwrap()
            };
            let one = table(None, true);
            let two = table(Some(ValueBytes::Two), false);
            assert_eq!(one.histogram(), two.histogram());
            for r in 1..one.ranker().len() {
                assert_eq!(one.value_rank(r), two.value_rank(r));
            }
            let mut rows = vec![0u32; shape.rows];
            for sr in 1..=shape.rows {
                for sc in 1..=shape.cols {
                    let mut m = 0;
                    for r in 1..one.ranker().len() {
                        one.ranker().unrank_into(r, &mut rows);
                        if rows[0] <= sc && rows.get(sr).is_none_or(|&a| a == 0) {
                            m = m.max(one.value_rank(r));
                        }
                    }
                    let got = (one.largest_in(sr, sc), two.largest_in(sr, sc));
                    assert_eq!(got, (Some(m), Some(m)), "{sr}x{sc}");
                }
            }
            assert_eq!(one.largest_in(shape.rows + 1, 1), None);
        }
    }

    #[test]
    fn the_tallied_histogram_equals_a_recount() {
        let t = GrundyTable::compute(bx(6, 9)).unwrap();
        let mut h = vec![0u64; t.max_grundy() + 1];
        for r in 1..t.ranker().len() {
            h[t.value_rank(r) as usize] += 1;
        }
        assert_eq!(t.histogram(), &h[..]);
        assert!(*h.last().unwrap() > 0);
        // Rows first.
        let rects = t.rectangles();
        assert_eq!((rects.len(), rects[10].rows, rects[10].cols), (54, 2, 2));
        // The sequences against the rectangles and a mex of its own, and their names:
        // python/tests/test_chomp_solve.py; against the 18×18 data: tests/games, two_player.rs.
    }

    #[test]
    fn the_plan_refuses_what_does_not_fit() {
        // One byte a transposed pair: 6.11·10⁹ entries of 18×18; every position: 9.08·10⁹.
        for (shape, by_rank, room, why) in [
            (bx(18, 18), false, 1 << 30, "5.6 GiB"),
            (bx(18, 18), true, 1 << 30, "8.4 GiB"),
            (bx(40, 40), false, 1 << 40, "2^36"),
            (bx(300, 300), false, 1 << 40, "at most 65535 cells"),
        ] {
            let e = GrundyPlan::new(shape, None, by_rank, Room::assume(room)).unwrap_err();
            assert!(e.to_string().contains(why), "{e}");
        }
    }
}
