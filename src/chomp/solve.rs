//! Two-player Chomp (docs/mathematics.md §5b): P or N for every position of a box at one bit each
//! (one bit a transposed pair for squares); the Grundy values are in [`super::grundy`].
//!
//! Positions are the non-empty diagrams of the R×C box, indexed by the colex rank of
//! [`Ranker`]. The poison is cell (1,1): the one-cell diagram (1) is a P-position (the player to
//! move must eat the poison) and the empty diagram, rank 0, is not a position. Its bit is 0,
//! which is what "biting the poison loses" needs: a position is P iff none of its options is
//! P, and the bite to (0) then never counts as a winning one.
//!
//! # Schedule: prefix blocks in prefix-volume layers
//! Rank order is lexicographic order of rows, so fixing the first `p` rows (a *prefix*) leaves
//! a contiguous range of ranks: the *block* of every way to fill the last R-p rows under the
//! prefix's last row. A bite in one of the last R-p rows stays in the block; a bite in a prefix
//! row removes at least one prefix cell, so it lands in a block whose prefix has fewer cells.
//! Hence all blocks whose prefixes have v cells are independent once the blocks of prefix
//! volume < v are done. Each layer's blocks run in parallel (rayon), and inside a block the
//! positions run sequentially in rank order, where a bite in the last rows reads bits just
//! written nearby: the table is read where it is hot. With p = ⌊R/2⌋ a 20×20 box has 3·10^7
//! blocks of about 4600 positions in 201 layers.
//!
//! Inside that schedule [`solve_layers`] works forward ([`super::push`]): a P-position marks
//! its parents N, and a position found unmarked is P. [`solve_layers_by_scan`] decides each
//! position by scanning its options' bits ([`PTable::decide`]); it is several times slower
//! and stays as the twin the forward solver is tested against; the GPU layer kernel decides
//! positions by the same scan. [`winning_bites_with`] lists a position's P options through any
//! table's bit reader (in memory, a file, a NumPy array).
//!
//! A square box keeps one bit for each pair of transposed positions ([`TableIndex::for_box`],
//! the hook index of [`super::sym`], which has its own steps in place of the layers here);
//! [`solve_box`] and the table files choose it, [`solve`] keeps the colex table.
//!
//! The slow, obviously correct twin is [`solve_by_rank_order`]: one sweep in rank order with
//! the same per-position rule; the tests compare both, and both with a solver that knows
//! nothing of ranks.
//!
//! Tests: this file's unit tests; tests/engine/foundation.rs, tests/games/chomp/two_player.rs.

use super::diagram::{ChompBox, Diagram, Ranker};
use super::sym::SymIndex;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Most positions of a box whose table keeps a bit for every position (a box that is not
/// square): 2^38 (32 GiB of bits). Squares have [`MAX_SYMMETRIC_POSITIONS`].
pub const MAX_SOLVE_POSITIONS: u64 = 1 << 38;

/// Most positions a square box may have, its table keeping one bit per transposed pair: 2^42
/// (at most 256 GiB of bits), so 22×22 (2.1·10¹²) but not 23×23 (8.2·10¹²).
pub const MAX_SYMMETRIC_POSITIONS: u64 = 1 << 42;

pub use super::grundy::{GrundyTable, MAX_GRUNDY_POSITIONS};

/// Progress of a long table: `done` positions of `total` decided, after `layers_done` of
/// `layers` layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Positions decided so far (the empty diagram included).
    pub done: u64,
    /// Ranks in the box.
    pub total: u64,
    /// Layers finished.
    pub layers_done: u64,
    /// Layers in all.
    pub layers: u64,
}

/// How many leading rows make a block's prefix in an R-row box: ⌊R/2⌋ (0 for one row, so the
/// whole box is one block).
pub fn prefix_rows(rows: usize) -> usize {
    rows / 2
}

/// Number of prefix-volume layers of a box: p·C + 1.
pub fn layer_count(shape: ChompBox) -> u64 {
    prefix_rows(shape.rows) as u64 * shape.cols as u64 + 1
}

/// The blocks of one layer: their first ranks and their prefixes, `p` rows each.
#[derive(Debug, Default, Clone)]
pub struct Layer {
    /// Prefix volume of every block in this layer.
    pub volume: u64,
    /// The first rank of each block.
    pub bases: Vec<u64>,
    /// The prefixes, `p` row lengths per block, flat.
    pub prefixes: Vec<u32>,
}

impl Layer {
    /// The blocks whose prefix (first `p` rows of the box) has `v` cells, in rank order.
    pub fn of_volume(ranker: &Ranker, p: usize, v: u64) -> Layer {
        let mut layer = Layer {
            volume: v,
            ..Layer::default()
        };
        let mut prefix = vec![0u32; p];
        layer.fill(ranker, &mut prefix, 0, v, ranker.shape.cols, 0);
        layer
    }

    fn fill(&mut self, rk: &Ranker, prefix: &mut [u32], j: usize, rem: u64, cap: u32, acc: u64) {
        let p = prefix.len();
        if j == p {
            if rem == 0 {
                self.bases.push(acc);
                self.prefixes.extend_from_slice(prefix);
            }
            return;
        }
        let left = (p - j) as u64;
        let hi = (cap as u64).min(rem);
        let lo = rem.div_ceil(left);
        for len in lo..=hi {
            prefix[j] = len as u32;
            self.fill(
                rk,
                prefix,
                j + 1,
                rem - len,
                len as u32,
                acc + rk.weight(j, len as u32),
            );
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.bases.len()
    }

    /// Whether the layer has no block (a prefix volume the box cannot hold).
    pub fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// Block `i`: its first rank and its prefix.
    pub fn block(&self, i: usize, p: usize) -> (u64, &[u32]) {
        (self.bases[i], &self.prefixes[i * p..(i + 1) * p])
    }
}

/// Positions in the block of a prefix whose last row is `cap` (C when p = 0), with R-p free
/// rows: C(cap + R - p, R - p).
pub fn block_len(ranker: &Ranker, p: usize, cap: u32) -> u64 {
    let free = (ranker.shape.rows - p) as u64;
    super::diagram::binomial(cap as u64 + free, free).unwrap_or(u64::MAX)
}

/// Visit the block of `prefix` (first rank `base`): `f(rows, rank)` for every position of the
/// block in rank order, `rows` holding all R row lengths.
#[inline]
pub fn for_each_in_block(
    ranker: &Ranker,
    prefix: &[u32],
    base: u64,
    rows: &mut [u32],
    mut f: impl FnMut(&[u32], u64),
) {
    let p = prefix.len();
    rows[..p].copy_from_slice(prefix);
    rows[p..].iter_mut().for_each(|r| *r = 0);
    let mut rank = base;
    loop {
        f(rows, rank);
        if !super::diagram::advance_rows(rows, p, ranker.shape.cols) {
            return;
        }
        rank += 1;
    }
}

/// Most rows [`first_p_option`] keeps on the stack; boxes with more rows take
/// [`first_p_option_reference`].
const FAST_ROWS: usize = 32;

/// The first move (0-based row x, new length t) of `rows` whose option `is_p` says is P, in the
/// order of [`first_p_option_reference`] (t ascending, the rows top down; the bites (x, 0) for
/// x < `known_t0` are not tried). The option's rank comes without resumming the bitten rows:
/// with `wa[r]` the weight of row r at its length and `last` the deepest row longer than t,
/// the bite (x, t) leaves rank Σ_{r<x} wa[r] + Σ_{x≤r≤last} w(r, t) + Σ_{r>last} wa[r]; one
/// sum per t gives x = 0, and each next x adds wa[x] - w(x, t).
#[inline]
pub fn first_p_option(
    ranker: &Ranker,
    rows: &[u32],
    rank: u64,
    known_t0: usize,
    is_p: impl Fn(u64) -> bool,
) -> Option<(usize, u32)> {
    if rows.len() > FAST_ROWS {
        return first_p_option_reference(ranker, rows, rank, known_t0, is_p);
    }
    let w = ranker.weights();
    let stride = ranker.stride();
    let mut last = rows.iter().rposition(|&a| a > 0)?;
    let mut wa = [0u64; FAST_ROWS];
    for (r, &a) in rows.iter().enumerate().take(last + 1) {
        wa[r] = w[r * stride + a as usize];
    }
    debug_assert_eq!(wa[..=last].iter().sum::<u64>(), rank);
    // Σ_{r > last} wa[r], kept as `last` rises.
    let mut below = 0u64;
    for t in 0..rows[0] {
        while rows[last] <= t {
            below += wa[last];
            last -= 1;
        }
        let column = &w[t as usize..];
        let mut q = below + column.iter().step_by(stride).take(last + 1).sum::<u64>();
        for x in 0..=last {
            if x > 0 {
                q += wa[x - 1] - column[(x - 1) * stride];
            }
            if t == 0 && x < known_t0 {
                continue;
            }
            if is_p(q) {
                return Some((x, t));
            }
        }
    }
    None
}

/// The slow twin of [`first_p_option`], the same moves in the same order: each option's rank
/// is the position's rank less the weights its bite removes, summed afresh for every t.
///
/// The first move (0-based row x, new length t) of `rows` whose option `is_p` says is P. For
/// each t the rows are tried top down: the options (x, t) for one t form a chain, each an
/// option of the next, so at most one of them is P and the order only changes how soon it is
/// found; the top rows come first because the winning bites of Chomp mostly leave few rows.
/// The bites (x, 0) for x < `known_t0` are not tried (the caller knows they are not P; the bite
/// (0, 0) to the empty diagram never is, so `known_t0` is at least 1).
#[inline]
pub fn first_p_option_reference(
    ranker: &Ranker,
    rows: &[u32],
    rank: u64,
    known_t0: usize,
    is_p: impl Fn(u64) -> bool,
) -> Option<(usize, u32)> {
    let w = ranker.weights();
    let stride = ranker.stride();
    let first = rows[0];
    let mut last = rows.iter().rposition(|&a| a > 0).unwrap_or(0);
    for t in 0..first {
        while rows[last] <= t {
            last -= 1;
        }
        // delta(x) = Σ_{r ≥ x} (w(r, a_r) - w(r, t)) over the rows the bite (x, t) cuts.
        let mut delta = 0u64;
        for (x, &a) in rows.iter().enumerate().take(last + 1) {
            delta += w[x * stride + a as usize] - w[x * stride + t as usize];
        }
        for x in 0..=last {
            if x > 0 {
                let a = rows[x - 1] as usize;
                delta -= w[(x - 1) * stride + a] - w[(x - 1) * stride + t as usize];
            }
            if t == 0 && x < known_t0 {
                continue;
            }
            if is_p(rank - delta) {
                return Some((x, t));
            }
        }
    }
    None
}

/// `n` zero words for a table, backed by transparent huge pages where the kernel offers them
/// on request (`madvise` mode): a table of gigabytes read at random through 4 KiB pages spends
/// much of its time in page walks.
pub(super) fn zeroed_words(n: usize) -> Vec<AtomicU64> {
    let mut words: Vec<AtomicU64> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = words.as_ptr() as usize;
        let end = start + n * 8;
        let (lo, hi) = (start.next_multiple_of(HUGE), end & !(HUGE - 1));
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the allocation just made and not yet touched; the
            // advice changes only how its pages are backed, never their contents.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    words.resize_with(n, || AtomicU64::new(0));
    words
}

/// How a one-bit table numbers its bits: every position by its colex rank ([`Ranker`]), or,
/// for a square box, one of each pair of transposed positions by the hook index of
/// [`super::sym`] (half the bits).
#[derive(Debug, Clone)]
pub struct TableIndex {
    /// The box's colex ranking (the box, and the bits of a colex table).
    pub ranker: Ranker,
    /// The hook index, for a table that keeps one of each transposed pair.
    pub sym: Option<Arc<SymIndex>>,
}

/// The scheme name of the colex rank in saved tables.
pub const COLEX_SCHEME: &str = "colex-lattice-path";
/// The scheme name of the hook index in saved tables, followed by its smallest child side.
pub const HOOK_SCHEME: &str = "transpose-hook";

impl TableIndex {
    /// Every position by its colex rank.
    pub fn colex(ranker: Ranker) -> TableIndex {
        TableIndex { ranker, sym: None }
    }

    /// One of each transposed pair of a square box, child squares from side `min_child`.
    pub fn symmetric(ranker: Ranker, min_child: usize) -> Result<TableIndex> {
        let shape = ranker.shape;
        if shape.rows != shape.cols as usize {
            return Err(Error::invalid(format!(
                "the {shape} box is not square: only a square keeps one of each transposed pair"
            )));
        }
        let sym = SymIndex::with_min_child(shape.rows, min_child)?;
        Ok(TableIndex {
            ranker,
            sym: Some(Arc::new(sym)),
        })
    }

    /// The table a run of `shape` keeps: a square box (up to side
    /// [`super::sym::MAX_SIDE`]) one of each transposed pair, any other box every position.
    pub fn for_box(shape: ChompBox) -> Result<TableIndex> {
        if shape.rows == shape.cols as usize {
            // One limit for every square: past 22×22 a square has more than 2^42 positions,
            // long before the hook index's largest side.
            let ranker = TableIndex::symmetric_ranker(shape)?;
            debug_assert!(shape.rows <= super::sym::MAX_SIDE);
            TableIndex::symmetric(ranker, super::sym::min_child_for(shape.rows))
        } else {
            Ok(TableIndex::colex(PTable::ranker_for(shape)?))
        }
    }

    /// The ranker of a square box whose table keeps one bit per transposed pair, or
    /// [`Error::TooLarge`] past [`MAX_SYMMETRIC_POSITIONS`].
    pub fn symmetric_ranker(shape: ChompBox) -> Result<Ranker> {
        Ranker::with_limit(
            shape,
            MAX_SYMMETRIC_POSITIONS,
            "more than 2^42 positions, the most a square's table holds (22x22 is the largest)",
        )
    }

    /// The index a saved table of `shape` names: its scheme line.
    pub fn from_scheme(shape: ChompBox, scheme: &str) -> Result<TableIndex> {
        if scheme == COLEX_SCHEME {
            return Ok(TableIndex::colex(PTable::ranker_for(shape)?));
        }
        let min_child = scheme
            .strip_prefix(HOOK_SCHEME)
            .and_then(|m| m.strip_prefix(' '))
            .and_then(|m| m.parse::<usize>().ok())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "rank scheme '{scheme}' is neither '{COLEX_SCHEME}' nor '{HOOK_SCHEME} N'"
                ))
            })?;
        TableIndex::symmetric(TableIndex::symmetric_ranker(shape)?, min_child)
    }

    /// The scheme line of saved tables.
    pub fn scheme(&self) -> String {
        match &self.sym {
            None => COLEX_SCHEME.to_string(),
            Some(s) => format!("{HOOK_SCHEME} {}", s.min_child()),
        }
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.ranker.shape
    }

    /// Number of bits (the empty diagram's included).
    pub fn len(&self) -> u64 {
        bits_of(&self.ranker, self.sym.as_deref())
    }

    /// Never: the empty diagram has a bit.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Bytes of the bits.
    pub fn bytes(&self) -> u64 {
        PTable::bytes_for(self.len())
    }

    /// Positions of the box (the empty diagram included), C(R+C, R).
    pub fn positions(&self) -> u64 {
        self.ranker.len()
    }

    /// The bit of `p`, or `None` when it does not fit in the box.
    pub fn rank(&self, p: &Diagram) -> Option<u64> {
        bit_of(&self.ranker, self.sym.as_deref(), p)
    }

    /// Layers (checkpoint records) of a run.
    pub fn layers(&self) -> u64 {
        match &self.sym {
            None => layer_count(self.shape()),
            Some(s) => s.steps(),
        }
    }
}

/// Bits in a table of the box of `ranker`, by the hook index `sym` when there is one.
fn bits_of(ranker: &Ranker, sym: Option<&SymIndex>) -> u64 {
    sym.map_or(ranker.len(), |s| s.len())
}

/// The bit of `p` in such a table, or `None` when it does not fit in the box.
fn bit_of(ranker: &Ranker, sym: Option<&SymIndex>, p: &Diagram) -> Option<u64> {
    match sym {
        None => ranker.rank(p),
        Some(s) => s.index(p.rows()),
    }
}

/// A table of one bit per position of a box (per [`TableIndex`]): the bit is set iff the
/// position is P.
#[derive(Debug)]
pub struct PTable {
    /// The box's ranking.
    pub ranker: Ranker,
    /// The hook index when the table keeps one of each transposed pair.
    pub sym: Option<Arc<SymIndex>>,
    words: Vec<AtomicU64>,
}

impl PTable {
    /// Bytes of the table of a box with `positions` ranks.
    pub fn bytes_for(positions: u64) -> u64 {
        positions.div_ceil(64) * 8
    }

    /// The ranker of a box a one-bit table can hold, or [`Error::TooLarge`].
    pub fn ranker_for(shape: ChompBox) -> Result<Ranker> {
        Ranker::with_limit(
            shape,
            MAX_SOLVE_POSITIONS,
            "more than 2^38 positions, the most the table of a box that is not square holds",
        )
    }

    /// An all-N table (no bit set) for `ranker`'s box; refuses with [`Error::TooLarge`] when
    /// the machine lacks the memory.
    pub fn empty(ranker: Ranker) -> Result<PTable> {
        PTable::empty_indexed(TableIndex::colex(ranker))
    }

    /// An all-N table numbered by `index`; refuses with [`Error::TooLarge`] when the machine
    /// lacks the memory.
    pub fn empty_indexed(index: TableIndex) -> Result<PTable> {
        crate::memory::ensure_available(
            index.bytes(),
            &format!("the one-bit table of the {} box", index.shape()),
            "choose a smaller box",
        )?;
        Ok(PTable {
            words: zeroed_words(index.len().div_ceil(64) as usize),
            ranker: index.ranker,
            sym: index.sym,
        })
    }

    /// A table from its words (as saved), or [`Error::Invalid`] if their number is wrong.
    pub fn from_words(ranker: Ranker, words: Vec<u64>) -> Result<PTable> {
        PTable::from_indexed_words(TableIndex::colex(ranker), words)
    }

    /// [`PTable::from_words`] numbered by `index`.
    pub fn from_indexed_words(index: TableIndex, words: Vec<u64>) -> Result<PTable> {
        if words.len() as u64 != index.len().div_ceil(64) {
            return Err(Error::invalid(format!(
                "a table of the {} box has {} words, not {}",
                index.shape(),
                index.len().div_ceil(64),
                words.len()
            )));
        }
        Ok(PTable {
            ranker: index.ranker,
            sym: index.sym,
            words: words.into_iter().map(AtomicU64::new).collect(),
        })
    }

    /// How the bits are numbered.
    pub fn index(&self) -> TableIndex {
        TableIndex {
            ranker: self.ranker.clone(),
            sym: self.sym.clone(),
        }
    }

    /// Number of bits.
    pub fn len(&self) -> u64 {
        bits_of(&self.ranker, self.sym.as_deref())
    }

    /// Never: the empty diagram has a bit.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The bit of `p`, or `None` when it does not fit in the box.
    pub fn rank_of(&self, p: &Diagram) -> Option<u64> {
        bit_of(&self.ranker, self.sym.as_deref(), p)
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.ranker.shape
    }

    /// The words themselves, for the forward solver, which keeps N-marks in them while it
    /// runs.
    pub(super) fn raw_words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Whether rank `r` is a P-position.
    #[inline]
    pub fn is_p_rank(&self, r: u64) -> bool {
        (self.words[(r >> 6) as usize].load(Relaxed) >> (r & 63)) & 1 == 1
    }

    /// Mark rank `r` as a P-position.
    #[inline]
    pub fn set_p_rank(&self, r: u64) {
        self.words[(r >> 6) as usize].fetch_or(1 << (r & 63), Relaxed);
    }

    /// Whether `p` is a P-position; `None` when it is empty or outside the box.
    pub fn is_p(&self, p: &Diagram) -> Option<bool> {
        if p.is_empty() {
            return None;
        }
        self.rank_of(p).map(|r| self.is_p_rank(r))
    }

    /// The winning bites of `p`: its options that are P, each given as the position it leaves,
    /// sorted. Empty for a P-position. `None` when `p` is empty or outside the box.
    pub fn winning_bites(&self, p: &Diagram) -> Option<Vec<Diagram>> {
        self.is_p(p)?;
        winning_bites_with(|q| self.rank_of(q), p, |r| Ok(self.is_p_rank(r))).ok()
    }

    /// The winning bites of every rectangle r×c with r ≤ `shape.rows`, c ≤ `shape.cols` (a box
    /// inside this table's), rows first.
    pub fn rectangle_bites(&self, shape: ChompBox) -> Vec<RectangleBites> {
        let shape = ChompBox {
            rows: shape.rows.min(self.shape().rows),
            cols: shape.cols.min(self.shape().cols),
        };
        rectangle_bites_with(|q| self.rank_of(q), shape, |r| Ok(self.is_p_rank(r)))
            .expect("reading bits from memory cannot fail")
    }

    /// Number of P-positions of the box (a pair stored once counts twice).
    pub fn p_count(&self) -> u64 {
        if let Some(s) = &self.sym {
            return super::sym::box_p_count(s, &self.words);
        }
        self.words
            .iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum()
    }

    /// The words, bit r of word r/64 for rank r (a copy).
    pub fn words(&self) -> Vec<u64> {
        self.words.iter().map(|w| w.load(Relaxed)).collect()
    }

    /// Visit the words in order without copying the table.
    pub fn for_each_word(&self, mut f: impl FnMut(u64)) {
        self.words.iter().for_each(|w| f(w.load(Relaxed)));
    }

    /// Decide the position `rows` of rank `rank` from its options' bits; returns whether it is
    /// P (and marks it so).
    #[inline]
    pub fn decide(&self, rows: &[u32], rank: u64, known_t0: usize) -> bool {
        if rank == 0 {
            return false;
        }
        let p = first_p_option(&self.ranker, rows, rank, known_t0, |q| self.is_p_rank(q)).is_none();
        if p {
            self.set_p_rank(rank);
        }
        p
    }

    /// The bites (x, 0) with 0 < x < p leave the first x rows of the prefix, the same option for
    /// every position of the block. `None` when one of them is P: every position of the block
    /// is then N. Otherwise the number of leading rows whose (x, 0) bite is known not to be P
    /// (for [`first_p_option`]).
    #[inline]
    pub fn prefix_cut_is_n(&self, prefix: &[u32]) -> Option<usize> {
        let mut q = 0u64;
        for (x, &a) in prefix.iter().enumerate() {
            if a == 0 {
                // The prefix ends here: the bite (x, 0) would take nothing.
                return Some(x.max(1));
            }
            if x > 0 && self.is_p_rank(q) {
                return None;
            }
            q += self.ranker.weight(x, a);
        }
        Some(prefix.len().max(1))
    }

    /// Decide every position of one layer's blocks in parallel; returns the P ranks found,
    /// sorted. Stops with [`Error::Interrupted`] when the caller's cancel token is cancelled.
    pub fn solve_layer(&self, layer: &Layer) -> Result<Vec<u64>> {
        let p = prefix_rows(self.ranker.shape.rows);
        par_blocks(layer, self.ranker.shape.rows, |i, rows, acc| {
            let (base, prefix) = layer.block(i, p);
            let Some(known_t0) = self.prefix_cut_is_n(prefix) else {
                return;
            };
            for_each_in_block(&self.ranker, prefix, base, rows, |rows, rank| {
                if self.decide(rows, rank, known_t0) {
                    acc.push(rank);
                }
            });
        })
    }
}

impl PTable {
    /// Decide the positions of one volume layer, given by their ranks: the CPU twin of
    /// `chomp_layer.wgsl` (one invocation per rank: unrank, scan the options as
    /// [`first_p_option`] does, set the bit when none is P). Positions of one volume never move
    /// to each other, so the ranks are decided in parallel.
    pub fn solve_volume_layer(&self, ranks: &[u64]) {
        let rows_n = self.ranker.shape.rows;
        ranks.par_chunks(4096).for_each_init(
            || vec![0u32; rows_n],
            |rows, chunk| {
                for &r in chunk {
                    self.ranker.unrank_into(r, rows);
                    self.decide(rows, r, 1);
                }
            },
        );
    }
}

/// Run `block(i, rows, found)` for every block i of `layer` in parallel, each thread with a
/// buffer of `rows_n` row lengths and a list of the P ranks it found; stops with
/// [`Error::Interrupted`] once the caller's cancel token is cancelled. The ranks, sorted.
pub(super) fn par_blocks(
    layer: &Layer,
    rows_n: usize,
    block: impl Fn(usize, &mut [u32], &mut Vec<u64>) + Sync,
) -> Result<Vec<u64>> {
    let token = crate::cancel::current();
    let mut found: Vec<u64> = (0..layer.len())
        .into_par_iter()
        .with_min_len(16)
        .try_fold(
            || (Vec::new(), vec![0u32; rows_n]),
            |(mut acc, mut rows), i| {
                if token.as_ref().is_some_and(|t| t.is_cancelled()) {
                    return Err(Error::Interrupted);
                }
                block(i, &mut rows, &mut acc);
                Ok((acc, rows))
            },
        )
        .map(|r| r.map(|(acc, _)| acc))
        .try_reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            Ok(a)
        })?;
    found.sort_unstable();
    Ok(found)
}

/// Solve a box volume layer by volume layer with [`PTable::solve_volume_layer`], the schedule
/// of the GPU kernel.
pub fn solve_by_volume_layers(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(PTable::ranker_for(shape)?)?;
    let mut layer = Vec::new();
    for v in 1..=shape.rows as u64 * shape.cols as u64 {
        crate::cancel::check()?;
        layer.clear();
        super::ordinal::positions_of_volume(&table.ranker, v, &mut layer);
        table.solve_volume_layer(&layer);
    }
    Ok(table)
}

/// Number of positions in the blocks of a layer.
pub fn layer_positions(ranker: &Ranker, layer: &Layer) -> u64 {
    let p = prefix_rows(ranker.shape.rows);
    (0..layer.len())
        .map(|i| {
            let cap = if p == 0 {
                ranker.shape.cols
            } else {
                layer.block(i, p).1[p - 1]
            };
            block_len(ranker, p, cap)
        })
        .sum()
}

/// Solve a whole box by prefix layers in parallel, reporting after every layer: the forward
/// schedule of [`super::push`] (each P-position marks its parents), which does its work at
/// the P-positions. Layers before `start_layer` must already be in `table` and the rest of it
/// clear; `on_layer(v, p_ranks, progress)` is called after each layer with the P ranks it
/// found, and may fail to stop the run (a checkpoint that cannot be written). After an error
/// the table's bits are unspecified.
pub fn solve_layers(
    table: &PTable,
    start_layer: u64,
    on_layer: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    match &table.sym {
        Some(s) => super::sym::solve_forward(s, &table.words, start_layer, on_layer),
        None => super::push::solve_layers_forward(table, start_layer, on_layer),
    }
}

/// Solve a box in the table [`TableIndex::for_box`] chooses (one of each transposed pair for
/// a square), no checkpoints.
pub fn solve_box(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty_indexed(TableIndex::for_box(shape)?)?;
    solve_layers(&table, 0, |_, _, _| Ok(()))?;
    Ok(table)
}

/// [`solve_layers`] by the option scan: every position reads its options' bits
/// ([`PTable::solve_layer`]) until one is P. The same table and the same records, several
/// times slower; kept as the twin the forward schedule is tested against. Layers before
/// `start_layer` must already be in `table` (a resumed run); `on_layer(v, p_ranks, progress)`
/// is called after each layer with the P ranks it found, and may fail to stop the run (a
/// checkpoint that cannot be written).
pub fn solve_layers_by_scan(
    table: &PTable,
    start_layer: u64,
    on_layer: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    drive_layers(
        &table.ranker,
        start_layer,
        |layer| table.solve_layer(layer),
        on_layer,
    )
}

/// The loop both solvers share: the layers from `start_layer` on in order, each decided by
/// `decide` (which returns its P ranks), the progress phase kept, and `on_layer` told after
/// each.
pub(super) fn drive_layers(
    ranker: &Ranker,
    start_layer: u64,
    mut decide: impl FnMut(&Layer) -> Result<Vec<u64>>,
    mut on_layer: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let p = prefix_rows(ranker.shape.rows);
    let layers = layer_count(ranker.shape);
    let mut done: u64 = (0..start_layer)
        .map(|v| layer_positions(ranker, &Layer::of_volume(ranker, p, v)))
        .sum();
    let phase = crate::progress::phase("positions", Some(ranker.len()));
    phase.set(done);
    for v in start_layer..layers {
        crate::cancel::check()?;
        let layer = Layer::of_volume(ranker, p, v);
        let found = decide(&layer)?;
        done += layer_positions(ranker, &layer);
        phase.set(done);
        on_layer(
            v,
            &found,
            Progress {
                done,
                total: ranker.len(),
                layers_done: v + 1,
                layers,
            },
        )?;
    }
    Ok(())
}

/// Solve a box with the fast schedule ([`solve_layers`]), no checkpoints.
pub fn solve(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(PTable::ranker_for(shape)?)?;
    solve_layers(&table, 0, |_, _, _| Ok(()))?;
    Ok(table)
}

/// The slow twin of [`solve`]: one sweep in rank order on one thread, every option of every
/// position. Same table.
pub fn solve_by_rank_order(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(PTable::ranker_for(shape)?)?;
    let mut rows = vec![0u32; shape.rows];
    for r in 1..table.ranker.len() {
        table.ranker.advance(&mut rows);
        if r & 0xffff == 0 {
            crate::cancel::check()?;
        }
        let mut any_p = false;
        table
            .ranker
            .for_each_option(&rows, r, |q| any_p |= table.is_p_rank(q));
        if !any_p {
            table.set_p_rank(r);
        }
    }
    Ok(table)
}

/// The winning bites of `p` (a non-empty position of `ranker`'s box) read through `is_p_rank`:
/// its options that are P, each as the position it leaves, sorted. Any table (in memory, in a
/// file, in a NumPy array) answers through this one function.
pub fn winning_bites_with(
    rank: impl Fn(&Diagram) -> Option<u64>,
    p: &Diagram,
    mut is_p_rank: impl FnMut(u64) -> Result<bool>,
) -> Result<Vec<Diagram>> {
    let mut out = Vec::new();
    for q in p.options() {
        if q.is_empty() {
            continue;
        }
        let r = rank(&q).expect("an option fits where its position does");
        if is_p_rank(r)? {
            out.push(q);
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The winning bites of every rectangle r×c with r ≤ `shape.rows` and c ≤ `shape.cols`, rows
/// first, from any source of the bits of `ranker`'s box (a table in memory or a saved file);
/// `shape` must lie inside that box.
pub fn rectangle_bites_with(
    rank: impl Fn(&Diagram) -> Option<u64>,
    shape: ChompBox,
    mut is_p_rank: impl FnMut(u64) -> Result<bool>,
) -> Result<Vec<RectangleBites>> {
    let mut out = Vec::new();
    for r in 1..=shape.rows {
        for c in 1..=shape.cols {
            let bites = winning_bites_with(&rank, &rectangle(r, c), &mut is_p_rank)?;
            out.push(RectangleBites {
                rows: r,
                cols: c,
                bites: bites.iter().map(|d| d.rows().to_vec()).collect(),
            });
        }
    }
    Ok(out)
}

/// The winning bites of one rectangle, each as the row lengths of the P-position it leaves.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RectangleBites {
    /// Rows of the rectangle.
    pub rows: usize,
    /// Columns of the rectangle.
    pub cols: u32,
    /// The P-positions its winning bites leave, sorted.
    pub bites: Vec<Vec<u32>>,
}

/// The rectangle of `rows` rows of `cols` cells.
pub fn rectangle(rows: usize, cols: u32) -> Diagram {
    Diagram::new(vec![cols; rows]).expect("a rectangle's rows do not increase")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The R×C box.
    pub(crate) fn bx(r: usize, c: u32) -> ChompBox {
        ChompBox { rows: r, cols: c }
    }

    #[test]
    fn layers_cover_every_rank_once() {
        for (r, c) in [(1, 5), (2, 3), (3, 4), (4, 4), (5, 3), (6, 2)] {
            let rk = Ranker::new(bx(r, c)).unwrap();
            let p = prefix_rows(r);
            let mut seen = vec![0u8; rk.len() as usize];
            let mut rows = vec![0u32; r];
            for v in 0..layer_count(bx(r, c)) {
                let layer = Layer::of_volume(&rk, p, v);
                let mut n = 0;
                for i in 0..layer.len() {
                    let (base, prefix) = layer.block(i, p);
                    for_each_in_block(&rk, prefix, base, &mut rows, |rows, rank| {
                        assert_eq!(rk.rank_rows(rows), rank);
                        seen[rank as usize] += 1;
                        n += 1;
                    });
                }
                assert_eq!(n, layer_positions(&rk, &layer), "{r}x{c} layer {v}");
            }
            assert!(seen.iter().all(|&s| s == 1), "{r}x{c}");
        }
    }

    #[test]
    fn fast_schedule_equals_rank_order() {
        for (r, c) in [(1, 1), (1, 6), (2, 5), (3, 7), (5, 5), (6, 4), (7, 7)] {
            let a = solve(bx(r, c)).unwrap();
            let b = solve_by_rank_order(bx(r, c)).unwrap();
            assert_eq!(a.words(), b.words(), "{r}x{c}");
            assert_eq!(a.words(), solve_by_volume_layers(bx(r, c)).unwrap().words());
        }
    }

    #[test]
    fn the_fast_option_scan_finds_the_moves_of_its_twin() {
        // Against a solved table (the real predicate) and an arbitrary one that says P for
        // about a third of the ranks, every position of several boxes, three known_t0.
        for (r, c) in [
            (1, 5),
            (2, 6),
            (4, 4),
            (5, 7),
            (8, 3),
            (9, 9),
            (32, 3),
            (40, 2),
        ] {
            let t = solve(bx(r, c)).unwrap();
            let rk = &t.ranker;
            let mut rows = vec![0u32; r];
            for rank in 1..rk.len() {
                rk.advance(&mut rows);
                for k0 in 1..=3 {
                    let solved = |q: u64| t.is_p_rank(q);
                    assert_eq!(
                        first_p_option(rk, &rows, rank, k0, solved),
                        first_p_option_reference(rk, &rows, rank, k0, solved),
                        "{r}x{c} {rows:?}"
                    );
                    let some = |q: u64| q.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 0;
                    assert_eq!(
                        first_p_option(rk, &rows, rank, k0, some),
                        first_p_option_reference(rk, &rows, rank, k0, some),
                        "{r}x{c} {rows:?}"
                    );
                }
            }
        }
    }
}
