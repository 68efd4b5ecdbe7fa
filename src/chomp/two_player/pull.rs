//! The pull scan of a square's table in the hook index (`index::hook`, any smallest child
//! side, so the layout of `chomp solve`'s own table): the CPU twin of the GPU's hook kernel
//! (`shaders/chomp_hook.wgsl`), the same steps (the forward solver's, walked by the one
//! driver), the same walk of a range, the same options in the same order, the same bits.
//!
//! # Why a pull scan
//! The forward solver (`super::forward`) marks the parents of every P-position, a fill that
//! splits by the hooks it reaches and recurses into child squares: a long, branching,
//! recursive walk, and marks that land anywhere in the table (an atomic OR on a word some
//! other range also writes). The pull scan asks of each position only whether one of its
//! options is P, and stops at the first: every option is one index computed on its own (no
//! recursion, at most one transpose a level), and the only write is the position's own bit.
//! On the GPU that is a loop with a fixed bound per option, and it needs no memory besides the
//! table. Measured on the CPU twin ([`PullStats`], `chomp solve --backend gpu` prints the
//! kernel's own count with `CHOMPUTE_GPU_STATS=1`): see BENCHMARKS.md.
//!
//! # A position's options
//! A stored position has a chain of `depth` diagonal hooks (k, k) (the child squares it lies
//! in) and, inside them, an innermost block: the empty diagram, or a colex block of hook
//! (a, b) and interior μ at colex rank x. Its bites are read in two groups:
//! - bites in μ (rows and columns past the innermost corner): the same chain and block, colex
//!   rank x minus the weights the bite removes, O(1) each (column by column, as
//!   `Ranker::for_each_option_until`);
//! - every other bite (a cell of a hook of the chain or of the innermost hook), but the
//!   poison's (it leaves the empty diagram, never P): its position's index computed afresh
//!   ([`PullScan::index_of`]): at each level the hook (a, b), the transpose when a < b, then a
//!   colex rank or one level down.
//!
//! A range of a step lies in one colex block of the innermost square (a prefix block of the
//! colex layers), so its positions follow each other as colex successors of μ.
//!
//! Tests: this file's unit tests (the bits of the forward solver on every square to 9×9 and
//! several smallest child sides; the index against `HookIndex::index`).

use super::table::PTable;
use crate::chomp::diagram::advance_rows;
use crate::chomp::engine::driver::{drive, Run};
use crate::chomp::index::hook::{transpose, Kind, Rows, MAX_SIDE};
use crate::chomp::index::{BitLayout, HookIndex};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What a pull scan read: positions decided and options read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PullStats {
    /// Positions decided (the empty diagram left out).
    pub positions: u64,
    /// Options whose bit was read.
    pub options: u64,
}

/// Where a stored index lies: the sides of its chain of diagonal hooks, outermost first, and
/// its innermost block (hook (a, b), a = 0 for the empty diagram; interior `mu` of `b - 1`
/// rows at colex rank `x`; the block's first index in the square).
#[derive(Debug, Clone, Copy)]
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

/// The pull scan of one hook index.
pub struct PullScan<'a> {
    index: &'a HookIndex,
}

impl<'a> PullScan<'a> {
    /// The scan of `index`'s table.
    pub fn new(index: &'a HookIndex) -> PullScan<'a> {
        PullScan { index }
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
                    let mut next = [0u32; MAX_SIDE + 1];
                    for i in 0..mc {
                        next[i] = cur[i + 1] - 1;
                    }
                    cur = next;
                    m = mc;
                }
                Kind::Empty => unreachable!("a ≥ 1"),
            }
        }
    }

    /// Where index `q` lies.
    pub fn locate(&self, q: u64) -> Located {
        let ix = self.index;
        let mut loc = Located {
            depth: 0,
            sides: [0; MAX_SIDE + 1],
            a: 0,
            b: 0,
            x: 0,
            block: 0,
            mu: [0; MAX_SIDE + 1],
        };
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
        let mut cur = [0u32; MAX_SIDE + 1];
        if loc.a > 0 {
            cur[0] = loc.a;
            for (c, m) in cur[1..loc.b as usize].iter_mut().zip(&loc.mu) {
                *c = m + 1;
            }
        }
        for level in (0..loc.depth).rev() {
            let k = loc.sides[level] as usize;
            let mut up = [0u32; MAX_SIDE + 1];
            up[0] = k as u32;
            for i in 1..k {
                up[i] = cur[i - 1] + 1;
            }
            cur = up;
        }
        cur
    }

    /// Whether the located position is P, reading option bits with `is_p` until the first P
    /// one; `read` counts the options read.
    pub fn decide(&self, loc: &Located, is_p: impl Fn(u64) -> bool, read: &mut u64) -> bool {
        let ix = self.index;
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
        // Every other bite but the poison's: a cell of a hook of the chain or of the innermost
        // one (row or column at most `depth`).
        let rows = self.compose(loc);
        let d = loc.depth as u32;
        for i in 0..ix.n {
            let len = rows[i];
            if len == 0 {
                break;
            }
            for j in 0..len {
                if (i as u32 > d && j > d) || (i == 0 && j == 0) {
                    continue;
                }
                let mut opt = rows;
                for v in opt[i..ix.n].iter_mut() {
                    *v = (*v).min(j);
                }
                *read += 1;
                if is_p(self.index_of(&opt)) {
                    return false;
                }
            }
        }
        true
    }

    /// Decide the indexes `base..base + len` of one range of a step (inside one colex block,
    /// or the empty diagram), in order, setting the P bits in `words`; returns the options
    /// read.
    pub fn range(&self, base: u64, len: u64, words: &[AtomicU64]) -> u64 {
        let mut loc = self.locate(base);
        let mut read = 0u64;
        let is_p = |q: u64| (words[(q >> 6) as usize].load(Relaxed) >> (q & 63)) & 1 == 1;
        for i in 0..len {
            let q = base + i;
            if i > 0 {
                let r = loc.b as usize - 1;
                advance_rows(&mut loc.mu[..r], 0, loc.a - 1);
                loc.x += 1;
            }
            if q != 0 && self.decide(&loc, is_p, &mut read) {
                words[(q >> 6) as usize].fetch_or(1 << (q & 63), Relaxed);
            }
        }
        read
    }
}

/// Solve a square's table in `layout` (its hook index) by the pull scan, on the CPU: the twin
/// of the GPU's hook kernel. Returns the table and what it read.
pub fn solve_pull(layout: &BitLayout) -> Result<(PTable, PullStats)> {
    let Some(hook) = layout.hook_index() else {
        return Err(Error::invalid(format!(
            "the pull scan solves squares by transposed pairs, not the {} box",
            layout.shape()
        )));
    };
    let table = PTable::empty(layout.clone())?;
    let scan = PullScan::new(hook);
    let options = AtomicU64::new(0);
    drive(
        Run::whole(&**hook, hook.len()),
        || (),
        |_, b, l, _| {
            options.fetch_add(scan.range(b, l, table.raw_words()), Relaxed);
        },
        |_, _, _| Ok(()),
    )?;
    let stats = PullStats {
        positions: hook.len() - 1,
        options: options.into_inner(),
    };
    Ok((table, stats))
}

/// The leaf blocks of a hook index in index order: (first index, one past the last, how many
/// positions of the square each index stands for: 2 in a colex block of a hook (a, b), a > b,
/// at any depth, whose transposes are not stored; 1 elsewhere), adjacent ones of one weight
/// merged. The P-count of a table is the weighted sum of its set bits.
pub fn leaf_weights(hook: &HookIndex) -> Vec<(u64, u64, u64)> {
    fn walk(hook: &HookIndex, m: usize, base: u64, out: &mut Vec<(u64, u64, u64)>) {
        for blk in &hook.squares[m].blocks {
            let lo = base + blk.off;
            match blk.kind {
                Kind::Child { m: mc } => walk(hook, mc, lo, out),
                kind => {
                    let w = match kind {
                        Kind::Colex { r, c } if c as usize > r => 2,
                        _ => 1,
                    };
                    match out.last_mut() {
                        Some(last) if last.1 == lo && last.2 == w => last.1 = lo + blk.len,
                        _ => out.push((lo, lo + blk.len, w)),
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(hook, hook.side(), 0, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::index::hook::tests::all_positions;
    use crate::chomp::index::Ranker;
    use crate::chomp::two_player::solve::solve_layers;

    fn layout(n: usize, min_child: usize) -> BitLayout {
        let ranker = Ranker::new(ChompBox {
            rows: n,
            cols: n as u32,
        })
        .unwrap();
        BitLayout::hook(ranker, min_child).unwrap()
    }

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
    fn the_pull_scan_gives_the_forward_solvers_bits() {
        for n in 1..=9usize {
            for min_child in [0, 3, n.saturating_sub(6), 100usize] {
                let layout = layout(n, min_child);
                let want = PTable::empty(layout.clone()).unwrap();
                solve_layers(&want, 0, |_, _, _| Ok(())).unwrap();
                let (got, stats) = solve_pull(&layout).unwrap();
                assert_eq!(got.words(), want.words(), "{n}/{min_child}");
                assert_eq!(stats.positions, layout.len() - 1);
                assert!(stats.options >= stats.positions - 1, "{n}: {stats:?}");
                let weighted: u64 = leaf_weights(layout.hook_index().unwrap())
                    .iter()
                    .map(|&(lo, hi, w)| w * (lo..hi).filter(|&q| want.is_p_bit(q)).count() as u64)
                    .sum();
                assert_eq!(weighted, want.p_count(), "{n}/{min_child}: weights");
            }
        }
    }
}
