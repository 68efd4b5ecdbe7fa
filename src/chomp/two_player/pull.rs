//! The pull scan of a square's table in the hook index (`index::hook`, any smallest child
//! side, so the layout of `chomp solve`'s own table): the CPU twin of the GPU's hook kernel
//! (`shaders/chomp_hook.wgsl`), the same steps (the forward solver's, walked by the one
//! driver), the same levels, the same options in the same order, the same bits.
//!
//! The forward solver (`super::forward`) marks the parents of every P-position: a recursive
//! walk whose marks land anywhere in the table (atomic ORs). The pull scan asks of each
//! position only whether one of its options is P, stopping at the first: every option is one
//! index computed on its own, and the only write is the position's own bit, so the kernel
//! needs no memory besides the table. What it reads ([`PullStats`]): BENCHMARKS.md.
//!
//! # A position's options
//! A stored position has a chain of `depth` diagonal hooks (k, k) (the child squares it lies
//! in) and an innermost block: the empty diagram, or a colex block of hook (a, b) and interior
//! μ at colex rank x. A bite in μ stays in the block, at colex rank x minus the weights it
//! removes (O(1) each); every other bite but the poison's takes a cell of a hook, and its
//! index is computed afresh ([`PullScan::index_of`]).
//!
//! The order of the options is most of the scan's work: an N-position stops at its first P
//! one. Most N-positions win by a bite to one or two rows or columns, or to an L (the hook
//! cells with i + j ≤ 2), so those go first, then the interior, then the other hook cells:
//! 12.01 options read a position on 12×12 where the interior first read 35.93, and fewer
//! hook bites too (`examples/chomp_option_order.rs` weighs the orders; BENCHMARKS.md).
//!
//! # Levels: the parallelism of a step
//! A range of a step is a prefix block of one colex block of the innermost square: the first
//! r/2 rows of μ fixed, the last f = r - r/2 (the *free* rows) every filling under the
//! prefix's last row (`cap` cells, or the block's c when there is no prefix). A bite in the
//! prefix or in a hook leaves the range, so an option in the same range has fewer cells in the
//! free rows: the positions of a range with equally many cells there (a *level*) are
//! independent once the lower levels and the earlier steps are done. [`PullScan::split`]
//! numbers each level's positions over a step's ranges, [`PullScan::place`] finds one (a
//! binary search of the level's range starts, the free rows unranked by [`LevelCounts`]); the
//! kernel runs a level in one dispatch, [`solve_pull`] in parallel on the CPU. [`split_stats`]
//! counts a schedule's split (`examples/chomp_split.rs`).
//!
//! Tests: this file's unit tests (against the forward solver to 10×10, each level decided
//! from the table frozen before it; the level counts; the index against `HookIndex::index`).

use super::table::PTable;
use crate::chomp::bits;
use crate::chomp::engine::driver::{drive_steps, Run};
use crate::chomp::index::hook::{transpose, Kind, Rows};
use crate::chomp::index::{BitLayout, HookIndex};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// What a pull scan read: positions decided and options read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PullStats {
    /// Positions decided (the empty diagram left out).
    pub positions: u64,
    /// Options whose bit was read.
    pub options: u64,
}

/// Where a stored index lies: its chain of diagonal hooks and its innermost block.
#[derive(Debug, Clone, Copy, Default)]
pub struct Located {
    /// Diagonal hooks around the innermost block.
    pub depth: usize,
    /// Their sides k (hook (k, k)), outermost first.
    pub sides: Rows,
    /// The innermost hook's first row (0: the empty diagram).
    pub a: u32,
    /// Its rows.
    pub b: u32,
    /// The interior's colex rank in its block.
    pub x: u64,
    /// The block's first index in the whole square.
    pub block: u64,
    /// The interior.
    pub mu: Rows,
}

/// A range's free rows and their cap, from its first position: the last r - r/2 rows of the
/// interior of its colex block (r rows), under the prefix's last row (or the block's c).
fn range_shape(loc: &Located) -> (usize, usize) {
    let r = loc.b.saturating_sub(1) as usize;
    let p = r / 2;
    let cap = match (r - p, p) {
        (0, _) => 0,
        (_, 0) => loc.a as usize - 1,
        _ => loc.mu[p - 1] as usize,
    };
    (r - p, cap)
}

/// The pull scan of one hook index.
pub struct PullScan<'a> {
    index: &'a HookIndex,
    counts: LevelCounts,
}

impl<'a> PullScan<'a> {
    /// The scan of `index`'s table.
    pub fn new(index: &'a HookIndex) -> PullScan<'a> {
        PullScan {
            index,
            counts: LevelCounts::for_side(index.n),
        }
    }

    /// The index of any position of the square (its own or its transpose's), by the descent
    /// the kernel makes: at each level the hook, transposed when it has more rows than
    /// columns, then the colex rank of its interior or the next level.
    pub fn index_of(&self, rows: &Rows) -> u64 {
        let ix = self.index;
        let mut cur = *rows;
        let mut m = ix.n;
        let mut idx = 0u64;
        loop {
            let mut a = cur[0] as usize;
            if a == 0 {
                return idx;
            }
            let mut b = cur[..m].iter().take_while(|&&x| x > 0).count();
            if a < b {
                cur = transpose(&cur, m);
                (a, b) = (b, a);
            }
            let sq = &ix.squares[m];
            let blk = sq.blocks[sq.at[a * (m + 1) + b]];
            idx += blk.off;
            match blk.kind {
                Kind::Colex { r, .. } => {
                    return idx + (0..r).map(|j| ix.weight(r, j, cur[j + 1] - 1)).sum::<u64>();
                }
                Kind::Child { m: mc } => {
                    cur = std::array::from_fn(|i| if i < mc { cur[i + 1] - 1 } else { 0 });
                    m = mc;
                }
                Kind::Empty => unreachable!("a ≥ 1"),
            }
        }
    }

    /// Where index `q` lies.
    pub fn locate(&self, q: u64) -> Located {
        let ix = self.index;
        let mut loc = Located::default();
        let mut m = ix.n;
        let mut x = q;
        loop {
            let sq = &ix.squares[m];
            let blk = sq.blocks[sq.blocks.partition_point(|b| b.off <= x) - 1];
            loc.block += blk.off;
            x -= blk.off;
            match blk.kind {
                Kind::Empty => return loc,
                Kind::Colex { r, c } => {
                    ix.colex_unrank(r, c, x, &mut loc.mu);
                    (loc.a, loc.b, loc.x) = (c + 1, r as u32 + 1, x);
                    return loc;
                }
                Kind::Child { m: mc } => {
                    loc.sides[loc.depth] = mc as u32 + 1;
                    loc.depth += 1;
                    m = mc;
                }
            }
        }
    }

    /// The rows of a located position (all n, zeros after the last).
    pub fn compose(&self, loc: &Located) -> Rows {
        // Row i of a hook (a, b) (or (k, k)) around rows `cur`: a for i = 0, else row i - 1 + 1.
        let hook = |a: u32, b: u32, cur: Rows| -> Rows {
            std::array::from_fn(|i| match i {
                0 => a,
                i if i < b as usize => cur[i - 1] + 1,
                _ => 0,
            })
        };
        let inner = hook(loc.a, loc.b, loc.mu);
        let sides = loc.sides[..loc.depth].iter().rev();
        sides.fold(inner, |cur, &k| hook(k, k, cur))
    }

    /// Whether the located position is P, reading option bits with `is_p` until the first P
    /// one; `read` counts the options read.
    pub fn decide(&self, loc: &Located, is_p: impl Fn(u64) -> bool, read: &mut u64) -> bool {
        let ix = self.index;
        let rows = self.compose(loc);
        let d = loc.depth as u32;
        // A bite that takes a cell of a hook of the chain or of the innermost one: a fresh
        // index.
        let hook_bite = |i: usize, j: u32, read: &mut u64| {
            let mut opt = rows;
            opt[i..ix.n].iter_mut().for_each(|v| *v = (*v).min(j));
            *read += 1;
            is_p(self.index_of(&opt))
        };
        // First the hook cells of the first two anti-diagonals (i + j ≤ 2): the bites to one
        // or two rows or columns, or to an L, the winning ones of most N-positions.
        for (i, j) in [(0, 1), (1, 0), (0, 2), (1, 1), (2, 0)] {
            if j < rows[i] && (i as u32 <= d || j <= d) && hook_bite(i, j, read) {
                return false;
            }
        }
        // Bites in the interior: the same block, a smaller colex rank.
        let r = loc.b.saturating_sub(1) as usize;
        let mu = &loc.mu;
        if r > 0 && mu[0] > 0 {
            let here = loc.block + loc.x;
            let mut last = r - 1;
            for t in 0..mu[0] {
                while mu[last] <= t {
                    last -= 1;
                }
                let mut delta = 0u64;
                for row in (0..=last).rev() {
                    delta += ix.weight(r, row, mu[row]) - ix.weight(r, row, t);
                    *read += 1;
                    if is_p(here - delta) {
                        return false;
                    }
                }
            }
        }
        // Every other bite but the poison's: the other hook cells (row or column at most
        // `depth`), row by row.
        for (i, &len) in rows[..ix.n]
            .iter()
            .enumerate()
            .take_while(|&(_, &len)| len > 0)
        {
            for j in 0..len {
                let skip = (i as u32 > d && j > d) || i as u32 + j <= 2;
                if !skip && hook_bite(i, j, read) {
                    return false;
                }
            }
        }
        true
    }

    /// The level split of a step's ranges ([`StepSplit`]). Fails on a range that is not a
    /// whole prefix block, or a level of 2^32 positions or more.
    pub fn split(&self, ranges: &[(u64, u64)]) -> Result<StepSplit> {
        let counts = &self.counts;
        let mut shapes = ranges
            .par_iter()
            .with_min_len(256)
            .map(|&(base, len)| {
                let loc = self.locate(base);
                let (f, cap) = range_shape(&loc);
                let r = loc.b.saturating_sub(1) as usize;
                let whole = loc.mu[r / 2..r].iter().all(|&x| x == 0)
                    && (f + 1) * counts.caps * counts.vs <= counts.n.len()
                    && cap < counts.caps
                    && (0..=f * cap).map(|v| counts.count(f, cap, v)).sum::<u64>() == len;
                if !whole {
                    return Err(Error::invalid(format!(
                        "the range of {len} positions at index {base} is not a prefix block"
                    )));
                }
                Ok((base, f as u32, cap as u32))
            })
            .collect::<Result<Vec<_>>>()?;
        shapes.sort_by_key(|&(_, f, cap)| std::cmp::Reverse(f * cap));
        let levels = shapes
            .first()
            .map_or(0, |&(_, f, cap)| (f * cap) as usize + 1);
        let mut split = StepSplit {
            at: vec![0],
            ..StepSplit::default()
        };
        for v in 0..levels {
            let mut size = 0u64;
            for &(_, f, cap) in shapes
                .iter()
                .take_while(|&&(_, f, c)| (f * c) as usize >= v)
            {
                split.starts.push(size as u32);
                size += counts.count(f as usize, cap as usize, v);
                if size > u32::MAX as u64 {
                    return Err(Error::invalid(format!(
                        "a level of 2^32 positions or more at index {}",
                        shapes[0].0
                    )));
                }
            }
            split.at.push(split.starts.len());
            split.sizes.push(size);
        }
        split.ranges = shapes;
        Ok(split)
    }

    /// Locate position `i` of level `v` of `split`: its range's first position located, the
    /// free rows unranked, the colex rank moved by their weights.
    pub fn place(&self, split: &StepSplit, v: usize, i: u64) -> Located {
        let (j, t) = split.position(v, i);
        let (base, f, cap) = split.ranges[j];
        let mut loc = self.locate(base);
        let r = loc.b.saturating_sub(1) as usize;
        let p = r / 2;
        self.counts
            .unrank(f as usize, cap as usize, v, t, &mut loc.mu[p..]);
        for j in p..p + f as usize {
            loc.x += self.index.weight(r, j, loc.mu[j]);
        }
        loc
    }
}

/// How many diagrams of at most `f` rows of at most `cap` cells hold `v` cells, for every
/// f ≤ `f_max`, cap ≤ `cap_max`: the sizes of the levels of a range (its free rows), and the
/// unranking of a level's positions.
#[derive(Debug, Clone)]
pub struct LevelCounts {
    caps: usize,
    vs: usize,
    n: Vec<u64>,
}

impl LevelCounts {
    /// The counts of the ranges of the hook index of the n-square: a colex block of r ≤ n-1
    /// rows of at most n-1 cells has r - r/2 free rows.
    pub fn for_side(n: usize) -> LevelCounts {
        let r = n.saturating_sub(1);
        LevelCounts::new(r - r / 2, r)
    }

    /// The counts for at most `f_max` rows of at most `cap_max` cells.
    pub fn new(f_max: usize, cap_max: usize) -> LevelCounts {
        let (caps, vs) = (cap_max + 1, f_max * cap_max + 1);
        let mut n = vec![0u64; (f_max + 1) * caps * vs];
        for cap in 0..caps {
            n[cap * vs] = 1;
        }
        // By the first row ℓ ≤ cap: the f - 1 rows under it hold at most ℓ cells each.
        for f in 1..=f_max {
            for cap in 0..caps {
                for v in 0..vs {
                    n[(f * caps + cap) * vs + v] = (0..=cap.min(v)).fold(0u64, |s, l| {
                        s.saturating_add(n[((f - 1) * caps + l) * vs + v - l])
                    });
                }
            }
        }
        LevelCounts { caps, vs, n }
    }

    /// Diagrams of at most `f` rows of at most `cap` cells holding `v` cells.
    pub fn count(&self, f: usize, cap: usize, v: usize) -> u64 {
        if v >= self.vs {
            return 0;
        }
        self.n[(f * self.caps + cap) * self.vs + v]
    }

    /// The `t`-th diagram (rows into `out[..f]`) of at most `f` rows of at most `cap` cells
    /// holding `v` cells, first rows descending: the kernel's order.
    pub fn unrank(&self, f: usize, cap: usize, v: usize, mut t: u64, out: &mut [u32]) {
        let (mut cap, mut rem) = (cap, v);
        for (i, row) in out.iter_mut().enumerate().take(f) {
            let mut l = cap.min(rem);
            loop {
                let c = self.count(f - i - 1, l, rem - l);
                if t < c {
                    break;
                }
                t -= c;
                l -= 1;
            }
            *row = l as u32;
            rem -= l;
            cap = l;
        }
    }

    /// The table as the kernel reads it: `count(f, cap, v)` at `(f * caps + cap) * vs + v`,
    /// each at most u32::MAX (a range's counts are below its length, under 2^32); and caps,
    /// vs.
    pub fn words(&self) -> (Vec<u32>, u32, u32) {
        let w = self
            .n
            .iter()
            .map(|&c| c.min(u32::MAX as u64) as u32)
            .collect();
        (w, self.caps as u32, self.vs as u32)
    }
}

/// The level split of one step: its ranges, those with the most levels first, and for each
/// level (cells in the free rows) the ranges that have it (a prefix of `ranges`) with where
/// their positions start in the level's numbering. Position i of level v is position
/// i - start of the last range whose start is at most i, in [`LevelCounts::unrank`]'s order.
#[derive(Debug, Clone, Default)]
pub struct StepSplit {
    /// First index, free rows, cap of each range.
    pub ranges: Vec<(u64, u32, u32)>,
    /// `starts[at[v]..at[v + 1]]`: level v's starts, one for each of its ranges.
    pub starts: Vec<u32>,
    /// Where each level's starts begin (one more entry than levels).
    pub at: Vec<usize>,
    /// Positions of each level.
    pub sizes: Vec<u64>,
}

impl StepSplit {
    /// Levels of the step.
    pub fn levels(&self) -> usize {
        self.sizes.len()
    }

    /// Position `i` of level `v`: its range (index in `ranges`) and its rank in the range's
    /// level.
    pub fn position(&self, v: usize, i: u64) -> (usize, u64) {
        let s = &self.starts[self.at[v]..self.at[v + 1]];
        let j = s.partition_point(|&x| x as u64 <= i) - 1;
        (j, i - s[j] as u64)
    }
}

/// What the level split makes of a square's schedule (counted, no position decided): steps,
/// ranges a step and positions a range, and the levels (one dispatch each) and the positions
/// of a level (the independent units of a dispatch).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SplitStats {
    /// Steps of the schedule.
    pub steps: u64,
    /// Ranges in all.
    pub ranges: u64,
    /// Most ranges of one step.
    pub max_ranges: u64,
    /// Positions in all.
    pub positions: u64,
    /// Most positions of one range.
    pub max_range: u64,
    /// Levels in all: the dispatches of the split.
    pub levels: u64,
    /// Most levels of one step.
    pub max_levels: u64,
    /// Most positions of one level of a step (one dispatch).
    pub max_level: u64,
    /// Levels (of a step) of at least 10,000 positions.
    pub wide_levels: u64,
    /// The positions of those levels.
    pub wide_positions: u64,
    /// The positions one after the other of the range walk: the sum over the steps of the
    /// longest range (a range one invocation, in index order). The split's is `levels` (one
    /// position an invocation).
    pub walk_path: u64,
}

/// Count the schedule of `hook` and its level split ([`SplitStats`]).
pub fn split_stats(hook: &HookIndex) -> SplitStats {
    let scan = PullScan::new(hook);
    let mut st = SplitStats {
        steps: hook.steps(),
        ..SplitStats::default()
    };
    let mut ranges = Vec::new();
    for step in 0..hook.steps() {
        hook.step_ranges(step, &mut ranges);
        let mut sizes: Vec<u64> = Vec::new();
        let mut longest = 0;
        for &(base, len) in &ranges {
            let (f, cap) = range_shape(&scan.locate(base));
            sizes.resize(sizes.len().max(f * cap + 1), 0);
            for (v, s) in sizes.iter_mut().enumerate().take(f * cap + 1) {
                *s += scan.counts.count(f, cap, v);
            }
            st.positions += len;
            longest = longest.max(len);
        }
        st.max_range = st.max_range.max(longest);
        st.walk_path += longest;
        st.ranges += ranges.len() as u64;
        st.max_ranges = st.max_ranges.max(ranges.len() as u64);
        st.levels += sizes.len() as u64;
        st.max_levels = st.max_levels.max(sizes.len() as u64);
        for &s in &sizes {
            st.max_level = st.max_level.max(s);
            if s >= 10_000 {
                st.wide_levels += 1;
                st.wide_positions += s;
            }
        }
    }
    st
}

/// Solve a square's table in `layout` (its hook index) by the pull scan on the CPU, each
/// step's levels in turn, a level's positions in parallel: the table and what it read.
pub fn solve_pull(layout: &BitLayout) -> Result<(PTable, PullStats)> {
    solve_pull_levels(layout, |_| {})
}

/// [`solve_pull`], telling `each_level` the options each position of each level read, in the
/// order of the level's positions (a GPU's invocations, one a position): what a model of the
/// kernel's lanes in lockstep weighs (`examples/chomp_simt.rs`).
pub fn solve_pull_levels(
    layout: &BitLayout,
    mut each_level: impl FnMut(&[u32]),
) -> Result<(PTable, PullStats)> {
    let Some(hook) = layout.hook_index() else {
        return Err(Error::invalid(format!(
            "the pull scan solves squares by transposed pairs, not the {} box",
            layout.shape()
        )));
    };
    let table = PTable::empty(layout.clone())?;
    let scan = PullScan::new(hook);
    let (mut options, mut reads) = (0u64, Vec::new());
    drive_steps(
        Run::new(&**hook, hook.len(), 0),
        |_, ranges| {
            let split = scan.split(ranges)?;
            let words = table.raw_words();
            let is_p = |q: u64| bits::get(words, q);
            for (v, &size) in split.sizes.iter().enumerate() {
                let decide = |i: u32| {
                    let (loc, mut read) = (scan.place(&split, v, i as u64), 0);
                    let q = loc.block + loc.x;
                    if q != 0 && scan.decide(&loc, is_p, &mut read) {
                        bits::mark(words, q);
                    }
                    read as u32
                };
                (0..size as u32)
                    .into_par_iter()
                    .with_min_len(64)
                    .map(decide)
                    .collect_into_vec(&mut reads);
                options += reads.iter().map(|&r| r as u64).sum::<u64>();
                each_level(&reads);
            }
            Ok(Vec::new())
        },
        |_, _, _| Ok(()),
    )?;
    let positions = hook.len() - 1;
    Ok((table, PullStats { positions, options }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::index::hook::tests::all_positions;
    use crate::chomp::two_player::solve::solve_layers;

    #[test]
    fn the_descent_gives_the_index_of_every_position() {
        for n in 1..=8usize {
            for min_child in [0, 2, n.saturating_sub(6), 100usize] {
                let hook = HookIndex::with_min_child(n, min_child).unwrap();
                let scan = PullScan::new(&hook);
                for x in all_positions(n) {
                    let q = hook.index(&x[..n]).unwrap();
                    assert_eq!(scan.index_of(&x), q, "{n}/{min_child}: {x:?}");
                }
                for q in 0..hook.len() {
                    let loc = scan.locate(q);
                    assert_eq!(scan.compose(&loc), hook.unrank(q), "{n}/{min_child}: {q}");
                }
            }
        }
    }

    #[test]
    fn a_levels_diagrams_are_its_count_each_once() {
        let counts = LevelCounts::new(5, 6);
        for f in 0..=5usize {
            for cap in 0..=6usize {
                let mut all = 0u64;
                for v in 0..=f * cap {
                    let mut seen = std::collections::HashSet::new();
                    for t in 0..counts.count(f, cap, v) {
                        let mut out = [0u32; 8];
                        counts.unrank(f, cap, v, t, &mut out);
                        let rows = &out[..f];
                        assert!(rows.windows(2).all(|w| w[0] >= w[1]), "{rows:?}");
                        assert!(rows.iter().all(|&x| x as usize <= cap));
                        assert_eq!(rows.iter().sum::<u32>() as usize, v);
                        assert!(seen.insert(rows.to_vec()), "{f}/{cap}/{v}: {rows:?} twice");
                    }
                    all += seen.len() as u64;
                }
                let want = crate::chomp::diagram::binomial((f + cap) as u64, f as u64).unwrap();
                assert_eq!(all, want, "{f}×{cap}");
            }
        }
    }

    /// The level split with each level decided from the table as it stood before the level
    /// (its own bits written elsewhere, merged after it): the split's independence claim, not
    /// an order that happens to work. Checks on the way that the levels of a step number its
    /// ranges' positions once, each in the level of its cells in the free rows.
    fn frozen_levels(layout: &BitLayout) -> Vec<u64> {
        let hook = layout.hook_index().unwrap();
        let scan = PullScan::new(hook);
        let mut bits = vec![0u64; (hook.len() as usize).div_ceil(64)];
        let mut ranges = Vec::new();
        for step in 0..hook.steps() {
            hook.step_ranges(step, &mut ranges);
            let split = scan.split(&ranges).unwrap();
            let mut placed = Vec::new();
            for v in 0..split.levels() {
                let mut found = Vec::new();
                for i in 0..split.sizes[v] {
                    let loc = scan.place(&split, v, i);
                    let q = loc.block + loc.x;
                    assert_eq!(scan.compose(&scan.locate(q)), scan.compose(&loc));
                    let (base, f, _) = split.ranges[split.position(v, i).0];
                    let r = scan.locate(base).b.saturating_sub(1) as usize;
                    assert_eq!(f as usize, r - r / 2);
                    assert_eq!(loc.mu[r / 2..r].iter().sum::<u32>() as usize, v, "{loc:?}");
                    placed.push(q);
                    let is_p = |o: u64| crate::chomp::bits::get_plain(&bits, o);
                    if q != 0 && scan.decide(&loc, is_p, &mut 0) {
                        found.push(q);
                    }
                }
                for q in found {
                    bits[(q >> 6) as usize] |= 1 << (q & 63);
                }
            }
            let mut want: Vec<u64> = ranges.iter().flat_map(|&(b, l)| b..b + l).collect();
            placed.sort_unstable();
            want.sort_unstable();
            assert_eq!(placed, want, "{}: step {step}", hook.side());
        }
        bits
    }

    #[test]
    fn the_pull_scan_gives_the_forward_solvers_bits() {
        for n in 1..=10usize {
            for min_child in [0, 3, n.saturating_sub(6), 100usize] {
                if n == 10 && min_child != 4 {
                    continue;
                }
                let layout = BitLayout::hook_for(ChompBox::square(n), min_child).unwrap();
                let want = solve_layers(layout.clone()).unwrap();
                let (got, stats) = solve_pull(&layout).unwrap();
                assert_eq!(got.words(), want.words(), "{n}/{min_child}");
                assert_eq!(
                    frozen_levels(&layout),
                    want.words(),
                    "{n}/{min_child}: frozen"
                );
                assert_eq!(stats.positions, layout.len() - 1);
                assert!(stats.options >= stats.positions - 1, "{n}: {stats:?}");
            }
        }
    }
}
