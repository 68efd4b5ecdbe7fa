//! Ordinals of every position of a box by Fact 2.10 (docs/mathematics.md §5): the byte engines
//! (one byte a position by rank, in rank order or by volume layers, whose positions never move
//! to each other), twins of the packed engine (`super::packed`); [`OrdPlan`], which picks the
//! engine; [`OrdTable`], which answers the same questions of every engine's table.
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/cancel.rs,
//! tests/games/chomp/multiplayer.rs.

use super::packed::PackedOrds;
use super::rule::{ordinal_at, Choice, Rule};
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::engine::driver::{drive, Run};
use crate::chomp::engine::schedule::{Progress, VolumeLayers};
use crate::chomp::index::pairs::{pairs_index, square_for_pairs};
use crate::chomp::index::{BitLayout, HookIndex, Ranker};
use crate::error::Input;
use serde::Serialize;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// Every ordinal of the box in one sweep in rank order.
/// Stops with [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
pub fn ordinals_in_rank_order(ranker: &Ranker, choice: &Choice) -> crate::Result<Vec<u8>> {
    let total = ranker.len() as usize;
    let mut ords = vec![0u8; total];
    let mut rows = vec![0u32; ranker.shape.rows];
    let phase = crate::progress::phase("positions", Some(total as u64));
    crate::cancel::check()?;
    for r in 1..total {
        ranker.advance(&mut rows);
        let o = ordinal_at(ranker, &rows, r as u64, |q| ords[q as usize], choice);
        ords[r] = o;
        if r & 0xffff == 0 {
            phase.set(r as u64);
            crate::cancel::check()?;
        }
    }
    phase.set(total as u64);
    Ok(ords)
}

/// Every ordinal of the box, one volume layer at a time ([`VolumeLayers`] on the one driver),
/// each layer in parallel.
/// Stops with [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
pub fn ordinals_by_volume(ranker: &Ranker, choice: &Choice) -> crate::Result<Vec<u8>> {
    let total = ranker.len();
    let table: Vec<AtomicU8> = (0..total).map(|_| AtomicU8::new(0)).collect();
    // Layer v reads only layers < v, finished before this one started (rayon joins).
    drive(
        Run::new(&VolumeLayers { ranker }, total, 0),
        || vec![0u32; ranker.shape.rows],
        |rows, r, len, _| {
            for r in r..r + len {
                ranker.unrank_into(r, rows);
                let o = ordinal_at(ranker, rows, r, |q| table[q as usize].load(Relaxed), choice);
                table[r as usize].store(o, Relaxed);
            }
        },
        |_, _, _| Ok(()),
    )?;
    Ok(table.into_iter().map(AtomicU8::into_inner).collect())
}

/// The engine that computes the ordinals of a box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OrdEngine {
    /// The three-row engine for boxes of 3 rows, else the packed one.
    Auto,
    /// The table at ⌈log2(n+1)⌉ bits an entry (2 for 3 players), in parallel: a square box
    /// keeps one entry for each pair of transposed positions (about two thirds of the
    /// positions), any other box every position by colex rank.
    Packed,
    /// The packed table of every position by colex rank, by the prefix layers in parallel: any
    /// box, a quarter of the bytes of the general engine's table for 3 players.
    PackedColex,
    /// Fact 2.10 over every move of every position, any box (one sweep in rank order, or
    /// volume layers when there are 8 or more threads).
    General,
    /// The general engine by volume layers, each layer in parallel.
    Layers,
    /// O(1) work per position; boxes of exactly 3 rows.
    ThreeRow,
}

impl OrdEngine {
    /// Its name, as `chomp ord --engine` takes it.
    pub fn name(self) -> &'static str {
        match self {
            OrdEngine::Auto => "auto",
            OrdEngine::Packed => "packed",
            OrdEngine::PackedColex => "packed-colex",
            OrdEngine::General => "general",
            OrdEngine::Layers => "layers",
            OrdEngine::ThreeRow => "three-row",
        }
    }
}

/// Largest first row the three-row engine accepts (C(A+3,3) positions).
pub const THREE_ROW_MAX_COLS: u32 = 10_000;

/// How the ordinals of a box will be computed, decided before any work: the engine chosen
/// (never [`OrdEngine::Auto`]) and the box, checked against what the engine takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrdPlan {
    /// The box.
    pub shape: ChompBox,
    /// The engine.
    pub engine: OrdEngine,
}

impl OrdPlan {
    /// The plan for `shape` with the engine asked for: `Auto` takes the three-row engine for
    /// a box of 3 rows, else the packed one. Refuses the three-row engine for another box or
    /// more than [`THREE_ROW_MAX_COLS`] columns.
    pub fn new(shape: ChompBox, engine: OrdEngine) -> crate::Result<OrdPlan> {
        let engine = match engine {
            OrdEngine::Auto if shape.rows == 3 => OrdEngine::ThreeRow,
            OrdEngine::Auto => OrdEngine::Packed,
            OrdEngine::ThreeRow if shape.rows != 3 => {
                return Err(crate::Error::invalid(format!(
                    "the three-row engine needs a box with 3 rows (got {shape})"
                )))
            }
            e => e,
        };
        if engine == OrdEngine::ThreeRow && shape.cols > THREE_ROW_MAX_COLS {
            return Err(crate::Error::invalid(format!(
                "the three-row engine takes at most {THREE_ROW_MAX_COLS} columns (got {shape})"
            )));
        }
        Ok(OrdPlan { shape, engine })
    }

    /// The plan of a run that may keep its table in a file (`saved`) and may check the
    /// claims on it (`checked`). A saved table is the packed engine's: `Auto` then takes the
    /// packed engine on every box, and the byte engines are refused, naming the output and
    /// the engine. The checks read every option of every position by rank, so an unsaved
    /// square box is checked on the packed table by colex rank rather than by pairs.
    pub fn for_run(
        shape: ChompBox,
        engine: OrdEngine,
        saved: bool,
        checked: bool,
    ) -> crate::Result<OrdPlan> {
        let engine = match (saved, engine) {
            (false, e) => e,
            (true, OrdEngine::Auto | OrdEngine::Packed) => OrdEngine::Packed,
            (true, OrdEngine::PackedColex) => OrdEngine::PackedColex,
            (true, e) => {
                return Err(crate::Error::conflict(
                    &[Input::Output, Input::Engine],
                    format!(
                        "{{0}} keeps the packed engine's table: choose {{1}} packed or \
                         packed-colex, or leave {{1}} out (got {})",
                        e.name()
                    ),
                ))
            }
        };
        let plan = OrdPlan::new(shape, engine)?;
        if checked && !saved && plan.keeps_pairs() {
            return OrdPlan::new(shape, OrdEngine::PackedColex);
        }
        Ok(plan)
    }

    /// How many positions of the box have each ordinal 0..=n under `rule`. The three-row
    /// engine streams first row by first row and keeps no table, so it takes every box it
    /// accepts (3×10000 as well); the others compute the table. Stops with
    /// [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
    pub fn histogram(&self, rule: &Rule) -> crate::Result<Vec<u64>> {
        if self.engine != OrdEngine::ThreeRow {
            return Ok(self.table(rule)?.histogram());
        }
        Ok(self
            .stream_three_rows(rule, None, None, |_| Ok::<(), crate::Error>(()))?
            .0)
    }

    /// The three-row engine streamed first row by first row ([`OrdEngine::ThreeRow`] only):
    /// `each(rows)` for every position of ordinal `list`, in rank order; returns the histogram
    /// of the box and, when asked, the table of the positions with first row at most
    /// `keep_cols` (ranks do not depend on the box's width, so it answers for those
    /// positions). Stops at the first error of `each`, or with [`crate::Error::Interrupted`]
    /// when its [`crate::cancel`] token is cancelled.
    pub fn stream_three_rows<E: From<crate::Error>>(
        &self,
        rule: &Rule,
        keep_cols: Option<u32>,
        list: Option<u8>,
        mut each: impl FnMut(&[u32]) -> Result<(), E>,
    ) -> Result<(Vec<u64>, Option<OrdTable>), E> {
        if self.engine != OrdEngine::ThreeRow {
            return Err(crate::Error::invalid(format!(
                "the {} engine keeps a table; only the three-row engine streams",
                self.engine.name()
            ))
            .into());
        }
        let cols = self.shape.cols;
        let keep = keep_cols.map(|c| c.min(cols));
        let kept_ranker = (keep.map(|c| Ranker::new(ChompBox { rows: 3, cols: c }))).transpose()?;
        let mut kept = Vec::with_capacity(kept_ranker.as_ref().map_or(0, |r| r.len() as usize));
        let mut histogram = vec![0u64; rule.players() + 1];
        let phase = crate::progress::phase("first rows", Some(cols as u64 + 1));
        let mut stopped: Result<(), E> = Ok(());
        super::three_row::ordinals_three_rows_while(cols, &Choice::new(rule), |a, slice| {
            histogram
                .iter_mut()
                .zip(self::histogram(slice, rule.players() as u8))
                .for_each(|(h, c)| *h += c);
            if keep.is_some_and(|c| a <= c) {
                kept.extend_from_slice(slice);
            }
            if let Some(k) = list {
                // The positions (a, b, c), c ≤ b ≤ a, in the slice's (rank) order.
                let positions = (0..=a).flat_map(|b| (0..=b).map(move |c| [a, b, c]));
                stopped = (positions.zip(slice).filter(|&(_, &o)| o == k))
                    .try_for_each(|(rows, _)| each(&rows));
            }
            phase.set(a as u64 + 1);
            if stopped.is_ok() {
                stopped = crate::cancel::check().map_err(E::from);
            }
            stopped.is_ok()
        });
        stopped?;
        let table = kept_ranker.map(|ranker| OrdTable {
            layout: BitLayout::Colex(ranker),
            players: rule.players() as u8,
            ords: Ords::Bytes(kept),
        });
        Ok((histogram, table))
    }

    /// Whether the table keeps one entry for each transposed pair: the packed engine on a
    /// square box.
    pub fn keeps_pairs(&self) -> bool {
        self.engine == OrdEngine::Packed && square_for_pairs(self.shape)
    }

    /// Refused when the memory lacks room for the `bytes` of the box's table.
    fn room_for_table(&self, bytes: u64) -> crate::Result<()> {
        let what = format!("the ordinal table of the {} box", self.shape);
        crate::memory::ensure_available(bytes, &what, "choose a smaller box")
    }

    /// The whole box's table under `rule`, by the plan's engine (packed, or one byte a
    /// position), refused before any work when it does not fit in memory.
    pub fn table(&self, rule: &Rule) -> crate::Result<OrdTable> {
        let (ranker, choice) = (Ranker::new(self.shape)?, Choice::new(rule));
        let players = rule.players() as u8;
        if matches!(self.engine, OrdEngine::Packed | OrdEngine::PackedColex) {
            let table = self.zeroed_table(ranker, players)?;
            table.compute_packed(&choice, 0, |_, _| Ok(()))?;
            return Ok(table);
        }
        self.room_for_table(ranker.len())?;
        if self.engine == OrdEngine::ThreeRow {
            let all = Some(self.shape.cols);
            let streamed = self.stream_three_rows(rule, all, None, |_| Ok::<_, crate::Error>(()));
            return Ok(streamed?.1.expect("the columns kept"));
        }
        // The rank-order sweep reads options close together in memory: on one or two cores it
        // beats the volume layers 2.5× on 13×13 (BENCHMARKS.md).
        let layers = self.engine == OrdEngine::Layers || rayon::current_num_threads() >= 8;
        let ords = match layers && ranker.len() >= 1 << 16 {
            true => ordinals_by_volume(&ranker, &choice)?,
            false => ordinals_in_rank_order(&ranker, &choice)?,
        };
        Ok(OrdTable {
            layout: BitLayout::Colex(ranker),
            players,
            ords: Ords::Bytes(ords),
        })
    }

    /// The packed table of the box with every entry 0 (one entry for each transposed pair
    /// when the plan [keeps pairs](OrdPlan::keeps_pairs)), refused when the memory lacks room.
    pub(crate) fn zeroed_table(&self, ranker: Ranker, players: u8) -> crate::Result<OrdTable> {
        let hook = match self.keeps_pairs() {
            true => Some(Arc::new(pairs_index(self.shape.rows)?)),
            false => None,
        };
        let entries = hook.as_ref().map_or(ranker.len(), |h| h.len());
        self.room_for_table(PackedOrds::bytes_for(entries, players))?;
        Ok(OrdTable {
            layout: BitLayout::of(ranker, hook.as_ref()),
            players,
            ords: Ords::Packed(PackedOrds::zeroed(entries, players)),
        })
    }
}

/// The entries of a table: by colex rank, or by hook index when the table keeps one entry for
/// each transposed pair ([`OrdTable::hook`]).
#[derive(Debug)]
pub enum Ords {
    /// One byte an entry.
    Bytes(Vec<u8>),
    /// ⌈log2(n+1)⌉ bits an entry.
    Packed(PackedOrds),
}

impl Ords {
    /// The ordinal of entry `x`.
    #[inline]
    pub fn entry(&self, x: u64) -> u8 {
        match self {
            Ords::Bytes(v) => v[x as usize],
            Ords::Packed(p) => p.get(x),
        }
    }
}

/// The ordinals of one box under one rule.
#[derive(Debug)]
pub struct OrdTable {
    /// How the entries are numbered: by colex rank, or by the hook index ([`pairs_index`]) when
    /// the table keeps one for each transposed pair of a square. It holds the box's ranking.
    layout: BitLayout,
    /// Players of the rule: ordinals run 0..=players.
    pub players: u8,
    /// The ordinal of every entry.
    pub ords: Ords,
}

impl OrdTable {
    /// Compute with the general engine ([`OrdEngine::General`]), refused before any work when
    /// the table does not fit in memory.
    pub fn compute(shape: ChompBox, rule: &Rule) -> crate::Result<OrdTable> {
        OrdPlan::new(shape, OrdEngine::General)?.table(rule)
    }

    /// How the table numbers its entries: colex ranks, or one entry a transposed pair.
    pub fn layout(&self) -> &BitLayout {
        &self.layout
    }

    /// The box's ranking.
    pub fn ranker(&self) -> &Ranker {
        self.layout.ranker()
    }

    /// The index of the entries when the table keeps one for each transposed pair of a square
    /// ([`pairs_index`]); `None` when they are by colex rank.
    pub fn hook(&self) -> Option<&HookIndex> {
        self.layout.hook_index().map(|h| &**h)
    }

    /// The ordinal of rank `r`.
    #[inline]
    pub fn ordinal_rank(&self, r: u64) -> u8 {
        match &self.layout {
            BitLayout::Colex(_) => self.ords.entry(r),
            BitLayout::Hook { ranker, hook } => self.ords.entry(hook.index_of_rank(ranker, r)),
        }
    }

    /// The ordinal of `p`, or `None` when it is outside the box.
    pub fn ordinal(&self, p: &Diagram) -> Option<u8> {
        self.layout.bit(p).map(|x| self.ords.entry(x))
    }

    /// Every ordinal as one byte, in rank order.
    pub fn to_bytes(&self) -> Vec<u8> {
        match (&self.ords, &self.layout) {
            (Ords::Bytes(v), BitLayout::Colex(_)) => v.clone(),
            _ => (0..self.ranker().len())
                .map(|r| self.ordinal_rank(r))
                .collect(),
        }
    }

    /// How many positions have each ordinal 0..=n (a pair kept once counts twice).
    pub fn histogram(&self) -> Vec<u64> {
        match &self.ords {
            Ords::Bytes(v) => histogram(v, self.players),
            Ords::Packed(p) => p.histogram(self.players, self.hook()),
        }
    }

    /// The entries of a packed engine's table.
    pub(crate) fn packed(&self) -> &PackedOrds {
        let Ords::Packed(packed) = &self.ords else {
            unreachable!("a table of one byte a position is the byte engines'")
        };
        packed
    }

    /// Compute a packed engine's entries from step `start` on ([`PackedOrds::compute_from`] in
    /// the table's layout), calling `on_step(step, progress)` after each step.
    pub(crate) fn compute_packed(
        &self,
        choice: &Choice,
        start: u64,
        on_step: impl FnMut(u64, Progress) -> crate::Result<()>,
    ) -> crate::Result<()> {
        let (ranker, hook) = (self.ranker(), self.hook());
        self.packed()
            .compute_from(ranker, hook, choice, start, on_step)
    }

    /// Sol_f P (docs/mathematics.md §5): the options Q with ord(Q)+1 = ord(P), except {(0)} when
    /// ord(P) = 1 (player's preference). Sorted. Empty for the empty position.
    pub fn sol(&self, p: &Diagram) -> Vec<Diagram> {
        let Some(o) = self.ordinal(p) else {
            return Vec::new();
        };
        sol_from(p, o, |q| {
            Ok::<_, std::convert::Infallible>(self.ordinal(q).unwrap_or(u8::MAX))
        })
        .unwrap_or_else(|e| match e {})
    }

    /// One solution chain from P down to (0): each step the first (smallest) solution.
    pub fn chain(&self, p: &Diagram) -> Vec<Diagram> {
        std::iter::successors(Some(p.clone()), |q| self.sol(q).into_iter().next()).collect()
    }

    /// The ordinal and Sol of every rectangle r×c of the box, rows first.
    pub fn rectangles(&self) -> Vec<RectangleOrdinal> {
        let shape = self.ranker().shape;
        let mut out = Vec::with_capacity(shape.rows * shape.cols as usize);
        for rows in 1..=shape.rows {
            for cols in 1..=shape.cols {
                let p = Diagram::new(vec![cols; rows]).expect("a rectangle is a diagram");
                out.push(RectangleOrdinal {
                    rows,
                    cols,
                    ordinal: self.ordinal(&p).expect("a rectangle of the box"),
                    sol: self.sol(&p).iter().map(|q| q.to_string()).collect(),
                });
            }
        }
        out
    }

    /// Every position of ordinal `k`, in rank order (which is lexicographic order of rows).
    pub fn positions_of(&self, k: u8, mut f: impl FnMut(&[u32])) {
        let (ranker, hook) = (self.ranker(), self.hook());
        let mut rows = vec![0u32; ranker.shape.rows];
        for r in 0..ranker.len() {
            let x = match hook {
                Some(hook) => hook.index(&rows).expect("a position of the box"),
                None => r,
            };
            if self.ords.entry(x) == k {
                f(&rows);
            }
            ranker.advance(&mut rows);
        }
    }
}

/// Sol_f P of `p`, whose ordinal is `o`, from the ordinals of its options (`ordinal_of`,
/// which may fail: a table read from a file): the options Q with ord(Q)+1 = o, except {(0)}
/// when o = 1 (player's preference). Sorted, each once; empty for o = 0.
pub fn sol_from<E>(
    p: &Diagram,
    o: u8,
    mut ordinal_of: impl FnMut(&Diagram) -> Result<u8, E>,
) -> Result<Vec<Diagram>, E> {
    if o <= 1 {
        return Ok((o == 1).then(Diagram::empty).into_iter().collect());
    }
    let mut options = p.options();
    options.sort();
    options.dedup();
    let mut out = Vec::new();
    for q in options {
        if ordinal_of(&q)?.checked_add(1) == Some(o) {
            out.push(q);
        }
    }
    Ok(out)
}

/// The ordinal and Sol (the optimal first bites, as the positions they leave) of one
/// rectangle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RectangleOrdinal {
    /// Rows of the rectangle.
    pub rows: usize,
    /// Columns of the rectangle.
    pub cols: u32,
    /// Its ordinal.
    pub ordinal: u8,
    /// Sol of it: the positions its optimal first bites leave, row lengths "a,b,c", sorted
    /// ("0" for the bite that eats everything).
    pub sol: Vec<String>,
}

/// How many entries of `ords` equal each ordinal 0..=n (others, such as
/// [`super::plane::OrdinalPlane::OUTSIDE`], are not counted).
pub fn histogram(ords: &[u8], players: u8) -> Vec<u64> {
    let mut counts = [0u64; 256];
    for &o in ords {
        counts[o as usize] += 1;
    }
    counts[..=players as usize].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_run_plan_answers_for_a_saved_table_and_for_the_checks() {
        let square = ChompBox { rows: 5, cols: 5 };
        let three = ChompBox { rows: 3, cols: 7 };
        let oblong = ChompBox { rows: 4, cols: 6 };
        let (auto, packed, colex) = (OrdEngine::Auto, OrdEngine::Packed, OrdEngine::PackedColex);
        // (box, engine asked, saved, checked) and the engine the plan takes: nothing saved or
        // checked, the engine asked for, auto the three-row engine on 3 rows and else the
        // packed one; a saved table is the packed engine's, on 3 rows as well; unsaved checks
        // of a square read the table by colex rank, not by pairs.
        for (shape, asked, saved, checked, want) in [
            (three, auto, false, false, OrdEngine::ThreeRow),
            (square, auto, false, false, packed),
            (oblong, auto, false, false, packed),
            (square, OrdEngine::General, false, false, OrdEngine::General),
            (three, auto, true, false, packed),
            (square, auto, true, true, packed),
            (square, colex, true, false, colex),
            (square, auto, false, true, colex),
            (square, packed, false, true, colex),
            (three, auto, false, true, OrdEngine::ThreeRow),
            (oblong, auto, false, true, packed),
        ] {
            let plan = OrdPlan::for_run(shape, asked, saved, checked).unwrap();
            assert_eq!(plan.engine, want, "{shape} {asked:?} {saved} {checked}");
        }
        assert!(OrdPlan::new(square, auto).unwrap().keeps_pairs());
        for e in [OrdEngine::General, OrdEngine::Layers, OrdEngine::ThreeRow] {
            let err = OrdPlan::for_run(three, e, true, false).unwrap_err();
            assert_eq!(err.input(), Some(Input::Output), "{err}");
            let want = "the output file keeps the packed engine's table: choose the engine \
                        packed or packed-colex, or leave the engine out";
            assert_eq!(err.to_string(), format!("{want} (got {})", e.name()));
        }
        // Another box's refusal of the three-row engine: tests/games,
        // bad_input_is_one_line_and_exit_2.
        let wide = ChompBox {
            rows: 3,
            cols: THREE_ROW_MAX_COLS + 1,
        };
        let e = OrdPlan::new(wide, auto).unwrap_err();
        assert!(e.to_string().contains("at most 10000 columns"), "{e}");
    }

    #[test]
    fn the_three_row_stream_keeps_the_histogram_and_the_columns_of_the_table() {
        // Its list, ordinal by ordinal, against the general engine's: tests/games,
        // ord_engines_agree_through_the_cli.
        let rule = Rule::parse("0,2,1").unwrap();
        let shape = ChompBox { rows: 3, cols: 11 };
        let whole = OrdTable::compute(shape, &rule).unwrap();
        let plan = OrdPlan::new(shape, OrdEngine::ThreeRow).unwrap();
        let ok = |_: &[u32]| Ok::<(), crate::Error>(());
        let (histogram, kept) = plan.stream_three_rows(&rule, Some(6), None, ok).unwrap();
        assert_eq!(histogram, whole.histogram());
        let kept = kept.unwrap();
        assert_eq!(kept.ranker().shape, ChompBox { rows: 3, cols: 6 });
        for r in 0..kept.ranker().len() {
            assert_eq!(kept.ordinal_rank(r), whole.ordinal_rank(r), "rank {r}");
        }
        // No columns asked, no table; the stream stops at the first error of `each`.
        let mut calls = 0;
        let stopped = plan.stream_three_rows(&rule, None, Some(1), |_| {
            calls += 1;
            Err(crate::Error::invalid("stop"))
        });
        assert!(stopped.unwrap_err().to_string().contains("stop"));
        assert_eq!(calls, 1);
        let (_, no_table) = plan.stream_three_rows(&rule, None, None, ok).unwrap();
        assert!(no_table.is_none());
        assert_eq!(plan.histogram(&rule).unwrap(), whole.histogram());
        let table = plan.table(&rule).unwrap();
        assert_eq!(table.to_bytes(), whole.to_bytes());
        let packed = OrdPlan::new(shape, OrdEngine::Packed).unwrap();
        assert!(packed.stream_three_rows(&rule, None, None, ok).is_err());
    }

    /// Fact 2.10 straight from the definition, on diagrams, with scores (no masks, no ranks).
    fn ordinal_slow(p: &Diagram, rule: &Rule, memo: &mut HashMap<Diagram, u8>) -> u8 {
        if p.is_empty() {
            return 0;
        }
        if let Some(&v) = memo.get(p) {
            return v;
        }
        let n = rule.players() as u8;
        let mut best: Option<u8> = None;
        for q in p.options() {
            let oq = ordinal_slow(&q, rule, memo);
            if oq != n {
                let k = oq + 1;
                if best.is_none_or(|b| rule.values[k as usize - 1] > rule.values[b as usize - 1]) {
                    best = Some(k);
                }
            }
        }
        let o = best.expect("(0) is always an option");
        memo.insert(p.clone(), o);
        o
    }

    /// Both byte engines against the definition (two players against ordinary Chomp, ordinal 1
    /// the mover's loss: tests/games, two_player_list_is_the_three_row_p_positions).
    #[test]
    fn engines_agree_with_the_definition() {
        let rules = ["0,1", "1,0", "0,2,1", "2,0,1", "1,2,0", "3,0,2,1"];
        for rule in rules.into_iter().chain(["-1,7.5,2,0.25,3"]) {
            let rule = Rule::parse(rule).unwrap();
            for shape in [ChompBox { rows: 4, cols: 5 }, ChompBox { rows: 6, cols: 3 }] {
                let ranker = Ranker::new(shape).unwrap();
                let choice = Choice::new(&rule);
                let a = ordinals_in_rank_order(&ranker, &choice).unwrap();
                let b = ordinals_by_volume(&ranker, &choice).unwrap();
                assert_eq!(a, b, "rank order vs volume layers, {rule} on {shape}");
                let mut memo = HashMap::new();
                for r in 0..ranker.len() {
                    let p = ranker.unrank(r);
                    assert_eq!(
                        a[r as usize],
                        ordinal_slow(&p, &rule, &mut memo),
                        "{rule} at {p}"
                    );
                }
            }
        }
    }

    #[test]
    fn sol_and_chain_follow_the_ordinals() {
        let rule = Rule::parse("0,2,1").unwrap();
        let t = OrdTable::compute(ChompBox { rows: 4, cols: 4 }, &rule).unwrap();
        for r in 1..t.ranker().len() {
            let p = t.ranker().unrank(r);
            let o = t.ordinal_rank(r);
            let chain = t.chain(&p);
            let moves = chain.len() as u8 - 1;
            assert_eq!(moves, o, "a solution chain from {p} has ord(P) moves");
            assert!(chain.last().unwrap().is_empty());
            assert!(!t.sol(&p).is_empty());
        }
    }
}
