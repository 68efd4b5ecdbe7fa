//! The slow, obviously correct solvers of two-player Chomp, kept as twins of the fast ones.
//!
//! - [`solve_by_rank_order`] is the reference: one sweep in rank order on one thread, every
//!   option of every position read through [`Ranker::for_each_option`]. The forward solver
//!   (`super::solve`) is tested against it, and both against a solver that knows nothing of
//!   ranks (tests/games/chomp/two_player.rs).
//! - [`solve_by_volume_layers`] is the CPU twin of the GPU layer kernel (`chomp_layer.wgsl`):
//!   the same schedule ([`VolumeLayers`], on the one driver), each position unranked, its
//!   options scanned by [`first_p_option`], the bit set when none is P.
//!
//! Tests: this file's unit tests (the option scan); `super::solve`'s (both solvers against
//! each other); tests/engine/foundation.rs.

use super::table::PTable;
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::driver::{drive, Run};
use crate::chomp::engine::schedule::VolumeLayers;
use crate::chomp::index::{BitLayout, Ranker};
use crate::error::Result;

/// Most rows [`first_p_option`] keeps on the stack; boxes with more rows take a buffer on the
/// heap.
const FAST_ROWS: usize = 32;

/// The first move (0-based row x, new length t) of `rows` whose option `is_p` says is P: t
/// ascending, the rows top down (the options (x, t) for one t form a chain, each an option of
/// the next, so at most one of them is P; the top rows come first because the winning bites
/// of Chomp mostly leave few rows). The bites (x, 0) for x < `known_t0` are not tried (the
/// bite (0, 0) to the empty diagram never is P, so `known_t0` is at least 1). The option's rank comes without resumming the bitten rows:
/// with `wa[r]` the weight of row r at its length and `last` the deepest row longer than t,
/// the bite (x, t) leaves rank `Σ_{r<x} wa[r] + Σ_{x≤r≤last} w(r, t) + Σ_{r>last} wa[r]`; one
/// sum per t gives x = 0, and each next x adds `wa[x] - w(x, t)`.
#[inline]
pub fn first_p_option(
    ranker: &Ranker,
    rows: &[u32],
    rank: u64,
    known_t0: usize,
    is_p: impl Fn(u64) -> bool,
) -> Option<(usize, u32)> {
    let w = ranker.weights();
    let stride = ranker.stride();
    let mut last = rows.iter().rposition(|&a| a > 0)?;
    let mut on_stack = [0u64; FAST_ROWS];
    let mut on_heap = Vec::new();
    let wa: &mut [u64] = if last < FAST_ROWS {
        &mut on_stack
    } else {
        on_heap.resize(last + 1, 0);
        &mut on_heap
    };
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

/// Solve a box volume layer by volume layer ([`VolumeLayers`], the schedule of the GPU kernel
/// `chomp_layer.wgsl`), each position unranked and decided from its options' bits by
/// [`first_p_option`] as the kernel does.
pub fn solve_by_volume_layers(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(BitLayout::colex_for(shape)?)?;
    let ranker = table.ranker();
    let schedule = VolumeLayers { ranker };
    let run = Run::new(&schedule, ranker.len(), 0);
    drive(
        run,
        || vec![0u32; shape.rows],
        |rows, r, len, _| {
            for r in r..r + len {
                ranker.unrank_into(r, rows);
                if r != 0 && first_p_option(ranker, rows, r, 1, |q| table.is_p_bit(q)).is_none() {
                    table.set_p_bit(r);
                }
            }
        },
        |_, _, _| Ok(()),
    )?;
    Ok(table)
}

/// The reference solver: one sweep in rank order on one thread, every option of every
/// position. The same table as the forward solver's colex table.
pub fn solve_by_rank_order(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(BitLayout::colex_for(shape)?)?;
    let ranker: &Ranker = table.ranker();
    let mut rows = vec![0u32; shape.rows];
    for r in 1..ranker.len() {
        ranker.advance(&mut rows);
        if r & 0xffff == 0 {
            crate::cancel::check()?;
        }
        let mut any_p = false;
        ranker.for_each_option(&rows, r, |q| any_p |= table.is_p_bit(q));
        if !any_p {
            table.set_p_bit(r);
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::Diagram;

    fn bx(r: usize, c: u32) -> ChompBox {
        ChompBox { rows: r, cols: c }
    }

    #[test]
    fn the_option_scan_finds_a_p_option_exactly_when_there_is_one() {
        // Against a solved table (the real predicate) and an arbitrary one that says P for
        // about a third of the ranks, every position of several boxes, three known_t0: the
        // move found is a bite (checked on the diagram) to a rank the predicate calls P, and
        // none is found only when no option the scan may try is P.
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
            let t = solve_by_rank_order(bx(r, c)).unwrap();
            let rk = t.ranker();
            let mut rows = vec![0u32; r];
            for rank in 1..rk.len() {
                rk.advance(&mut rows);
                let d = Diagram::new(rows.clone()).unwrap();
                for k0 in 1..=3 {
                    let solved = |q: u64| t.is_p_bit(q);
                    let some = |q: u64| q.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 0;
                    for (name, pred) in
                        [("solved", &solved as &dyn Fn(u64) -> bool), ("some", &some)]
                    {
                        let found = first_p_option(rk, &rows, rank, k0, pred);
                        let mut any = false;
                        for (x, &a) in rows.iter().enumerate().take(d.height()) {
                            for t0 in 0..a {
                                if t0 == 0 && x < k0 {
                                    continue;
                                }
                                any |= pred(rk.rank(&d.bite(x, t0)).unwrap());
                            }
                        }
                        assert_eq!(found.is_some(), any, "{name} {r}x{c} {rows:?} k0 {k0}");
                        if let Some((x, t0)) = found {
                            assert!(pred(rk.rank(&d.bite(x, t0)).unwrap()), "{name} {rows:?}");
                        }
                    }
                }
            }
        }
    }
}
