//! The three-row engine: ordinals of every position (a, b, c), C ≥ a ≥ b ≥ c ≥ 0, with O(1)
//! work per position whatever C is.
//!
//! The options of (a, b, c) fall into six families, each a prefix of one line of positions, so
//! each is one small bit mask of the ordinals seen on that line so far (bit o = some option has
//! ordinal o):
//!
//! | bite                       | options              | mask kept                       |
//! |----------------------------|----------------------|---------------------------------|
//! | row 3 to k < c             | (a, b, k)            | `s3`, running along c           |
//! | row 2 to c ≤ k < b         | (a, k, c)            | `m2[c]`, for the current a      |
//! | row 2 to k < c (two rows)  | (a, k, k)            | `d2[c]`, prefix of a's diagonal |
//! | row 1 to b ≤ k < a         | (k, b, c)            | `m1[b][c]`, across a            |
//! | row 1 to c ≤ k < b (two)   | (k, k, c)            | `q[b][c]`, prefix over k        |
//! | row 1 to k < c (three)     | (k, k, k)            | `t[c]`, prefix of the diagonal  |
//!
//! The OR of the six masks is the set of option ordinals and Fact 2.10 picks the ordinal from it
//! ([`Choice`]). Positions are produced in the order a, b, c ascending, which is exactly rank
//! order of [`crate::chomp::index::Ranker`] for three rows, so the output can fill a ranked table or be
//! streamed: memory is O(C²) masks, not one byte per position.
//!
//! Tests: this file's unit tests.

use super::rule::Choice;
use std::ops::{BitOr, BitOrAssign, Shl};

/// C(b+1, 2): where row b of a triangle indexed (b, c), c ≤ b, starts.
#[inline]
fn tri(b: usize) -> usize {
    b * (b + 1) / 2
}

/// Ordinals of every three-row position with first row at most `cols`. For each a = 0..=cols,
/// `sink(a, slice)` receives the ordinals of (a, b, c) for b = 0..=a, c = 0..=b in that order
/// (C(a+2, 2) of them); the slices concatenated are the ranked table of the 3×cols box.
pub fn ordinals_three_rows(cols: u32, choice: &Choice, mut sink: impl FnMut(u32, &[u8])) {
    ordinals_three_rows_while(cols, choice, |a, slice| {
        sink(a, slice);
        true
    })
}

/// [`ordinals_three_rows`], stopped after the first row whose `sink` returns false.
pub fn ordinals_three_rows_while(cols: u32, choice: &Choice, sink: impl FnMut(u32, &[u8]) -> bool) {
    match choice.players() {
        0..=7 => run::<u8>(cols, choice, sink),
        8..=15 => run::<u16>(cols, choice, sink),
        16..=31 => run::<u32>(cols, choice, sink),
        _ => run::<u64>(cols, choice, sink),
    }
}

/// The engine with masks of `M`, the narrowest type that holds the ordinals 0..=n (a byte's
/// masks choose by the 256-entry table).
fn run<M>(cols: u32, choice: &Choice, mut sink: impl FnMut(u32, &[u8]) -> bool)
where
    M: Copy
        + Default
        + BitOr<Output = M>
        + BitOrAssign
        + Shl<u8, Output = M>
        + From<u8>
        + Into<u64>,
{
    let bit = |o: u8| M::from(1) << o;
    let lut: [u8; 256] = std::array::from_fn(|m| choice.choose_slow(m as u64));
    let choose = |mask: M| match size_of::<M>() {
        1 => lut[mask.into() as usize],
        _ => choice.choose(mask.into()),
    };
    let c_max = cols as usize;
    let zero = M::default();
    let mut m1 = vec![zero; tri(c_max + 1)];
    let mut q = vec![zero; tri(c_max + 1)];
    let mut t = vec![zero; c_max + 2];
    let mut m2 = vec![zero; c_max + 1];
    let mut d2 = vec![zero; c_max + 2];
    let mut slice: Vec<u8> = vec![0; tri(c_max + 1)];
    for a in 0..=c_max {
        m2[..=a].fill(zero);
        d2[0] = zero;
        for b in 0..=a {
            let base = tri(b);
            let mut s3 = zero;
            let m1_row = &mut m1[base..=base + b];
            let q_row = &q[base..=base + b];
            let out = &mut slice[base..=base + b];
            let (m2_row, d2_row, t_row) = (&mut m2[..=b], &d2[..=b], &t[..=b]);
            for c in 0..=b {
                let mask = s3 | m2_row[c] | d2_row[c] | m1_row[c] | q_row[c] | t_row[c];
                let o = choose(mask);
                let seen = bit(o);
                out[c] = o;
                s3 |= seen;
                m2_row[c] |= seen;
                m1_row[c] |= seen;
            }
            // (a, b, b) closes the diagonal prefix of this a.
            d2[b + 1] = d2[b] | bit(slice[base + b]);
        }
        let slice = &slice[..tri(a + 1)];
        let diag = &slice[tri(a)..];
        if a < c_max {
            // q[a+1][c] = q[a][c] ∪ {ord(a, a, c)}; q[a+1][a+1] is the empty prefix.
            let (lo, hi) = q.split_at_mut(tri(a + 1));
            for c in 0..=a {
                hi[c] = lo[tri(a) + c] | bit(diag[c]);
            }
        }
        t[a + 1] = t[a] | bit(diag[a]);
        if !sink(a as u32, slice) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::index::Ranker;
    use crate::chomp::multiplayer::ordinal::ordinals_in_rank_order;
    use crate::chomp::multiplayer::rule::Rule;

    #[test]
    fn matches_the_general_engine() {
        // tests/games checks rules of up to 5 players on every box to 3x60; here a mask wider
        // than a byte as well (9 players).
        for rule in ["0,1", "1,3,0,2", "0,1,2,3,4,5,6,7,8"] {
            let rule = Rule::parse(rule).unwrap();
            let choice = Choice::new(&rule);
            let cols = 17;
            let ranker = Ranker::new(ChompBox { rows: 3, cols }).unwrap();
            let general = ordinals_in_rank_order(&ranker, &choice).unwrap();
            let mut fast = Vec::new();
            ordinals_three_rows(cols, &choice, |_, s| fast.extend_from_slice(s));
            assert_eq!(fast, general, "{rule}");
        }
    }
}
