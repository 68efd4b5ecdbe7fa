//! Every claim of the chocolate paper (docs/mathematics.md §1, §2, §3), checked by computation for
//! all m ≤ M and, where a claim reaches further, for sampled large m through the recursions.
//!
//! Each claim has a stable `name` and is one function of the registry [`CLAIMS`], so any of
//! them can be checked on its own ([`select`], [`check_claims`]). Grids come from the P-test
//! generator (`p_rows_cpu`); the recursive constructor, the automaton and the octahedron are
//! checked against it, and the counting identities use counts of those grids (and, beyond M,
//! the key-histogram count and the recurrence).
//!
//! Tests: this file's unit tests; tests/engine/cancel.rs.

use super::automaton::{Automaton, AutomatonCheck};
use super::count::{g_histogram, g_prefix_sums, g_recurrence};
use super::grid::{first_difference, p_bit, p_rows_cpu, words_per_row, Window};
use super::octahedron::correspondence_claim;
use super::ptest::p_cell;
use super::recursive::{
    blow_up, corners_and_centre, corners_and_centre_grid, p_cell_recursive, p_grid_recursive,
};
use super::window::p_count;
use crate::claim::{Claim, ClaimKind, Tally, Xorshift};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::cell::OnceCell;
use std::time::Instant;

/// The octahedron claim runs up to this level (the level of the largest M `theorems` takes).
pub const OCTAHEDRON_MAX_LEVEL: u32 = 13;
/// g(m) is tabulated by the recurrence up to at least this, for the sum identities.
pub const SUM_TABLE_MIN: u64 = 1 << 20;
/// The sum identities are checked for every 2^n up to 2^SUM_MAX_BITS: the largest power whose
/// sums (about 6^n) all fit u128.
pub const SUM_MAX_BITS: u32 = 49;
/// Sampled large m per claim that reaches beyond M.
pub const LARGE_SAMPLES: usize = 2000;
/// Largest m whose count the histogram method recomputes for the sampled g identities.
pub const HISTOGRAM_SAMPLE_MAX: u64 = 1 << 20;

/// P(m) from the P-test, with 0-based cell access.
struct Grid {
    m: u64,
    wpr: usize,
    words: Vec<u32>,
}

impl Grid {
    fn p_test(m: u64) -> Grid {
        let w = Window::full(m, m).expect("m ≥ 1");
        let mut words = vec![0u32; w.total_words().expect("fits")];
        p_rows_cpu(&w, &mut words);
        Grid {
            m,
            wpr: words_per_row(m),
            words,
        }
    }

    #[inline]
    fn get(&self, i: u64, j: u64) -> bool {
        p_bit(&self.words, self.m, i, j)
    }

    fn count(&self) -> u128 {
        self.words.iter().map(|w| w.count_ones() as u128).sum()
    }

    /// The first 0-based (i,j) where this grid and `other` (same layout) differ.
    fn first_word_difference(&self, other: &[u32]) -> Option<(u64, u64)> {
        first_difference(self.m, &self.words, other)
    }
}

/// Transpose a 32×32 bit block in place (row k = `a[k]`, column 0 = bit 31).
fn transpose32(a: &mut [u32; 32]) {
    let mut j = 16;
    let mut mask: u32 = 0x0000_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 32 {
            let t = (a[k] ^ (a[k + j] >> j)) & mask;
            a[k] ^= t;
            a[k + j] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

/// Row `row` (m bits, padded) reversed: bit j of the result is bit m-1-j of the row.
fn reversed_row(row: &[u32], m: u64) -> Vec<u32> {
    let full: Vec<u32> = row.iter().rev().map(|w| w.reverse_bits()).collect();
    let r = (32 * row.len() as u64 - m) as u32;
    if r == 0 {
        return full;
    }
    (0..full.len())
        .map(|k| full[k] << r | full.get(k + 1).map_or(0, |&w| w >> (32 - r)))
        .collect()
}

/// Prop 3.1 word by word: rows against mirrored rows, each row against its reversal, and 32×32
/// blocks against their transposed partners. The first broken symmetry, in words.
fn symmetry_failure(g: &Grid) -> Option<String> {
    let (m, wpr) = (g.m, g.wpr);
    let row = |i: u64| &g.words[i as usize * wpr..(i as usize + 1) * wpr];
    if let Some(i) = (0..m / 2).find(|&i| row(i) != row(m - 1 - i)) {
        return Some(format!("row {} differs from row {}", i + 1, m - i));
    }
    if let Some(i) = (0..m)
        .into_par_iter()
        .find_first(|&i| reversed_row(row(i), m) != row(i))
    {
        return Some(format!("row {} is not its own mirror image", i + 1));
    }
    let block = |bi: usize, bj: usize| -> [u32; 32] {
        std::array::from_fn(|k| {
            let i = bi * 32 + k;
            if (i as u64) < m {
                g.words[i * wpr + bj]
            } else {
                0
            }
        })
    };
    (0..wpr)
        .into_par_iter()
        .flat_map_iter(|bi| (bi..wpr).map(move |bj| (bi, bj)))
        .find_first(|&(bi, bj)| {
            let mut t = block(bi, bj);
            transpose32(&mut t);
            t != block(bj, bi)
        })
        .map(|(bi, bj)| {
            format!(
                "the 32×32 block at rows {}.., columns {}.. is not the transpose of its partner",
                bi * 32 + 1,
                bj * 32 + 1
            )
        })
}

/// A claim checked by `body`, timed.
fn claim(
    name: &'static str,
    statement: &'static str,
    range: String,
    body: impl FnOnce(&mut Tally),
) -> Claim {
    let start = Instant::now();
    let mut t = Tally::new();
    // Once cancelled the remaining claims are not checked ([`check_claims`] returns the error).
    if !stopped() {
        body(&mut t);
    }
    t.claim(ClaimKind::Theorem, name, statement, range)
        .took(start)
}

/// Whether this thread's [`crate::cancel`] token is cancelled: a claim's loop then returns
/// early, and [`check_claims`] returns the error instead of the claims.
fn stopped() -> bool {
    crate::cancel::check().is_err()
}

/// Check `cases` in turn: `check` gives what a case checked (cells, values; 0 for a case that
/// does not apply) or why it fails. The first failure is the claim's and ends the loop, as
/// does a cancelled run; whether every case passed.
fn each<I>(
    t: &mut Tally,
    cases: impl IntoIterator<Item = I>,
    mut check: impl FnMut(I) -> Result<u128, String>,
) -> bool {
    for case in cases {
        if stopped() {
            return false;
        }
        match check(case) {
            Ok(n) => t.checked += n,
            Err(why) => {
                t.fail(why);
                return false;
            }
        }
    }
    true
}

/// 1-based cell for messages.
fn cell(i: u64, j: u64) -> String {
    format!("({},{})", i + 1, j + 1)
}

/// One claim of the paper as a unit of the registry [`CLAIMS`]: its stable name and the
/// function that checks it for every m ≤ M.
#[derive(Debug)]
pub struct TheoremClaim {
    /// The stable name: the `name` of the [`Claim`] it makes.
    pub name: &'static str,
    check: fn(&Inputs) -> Claim,
}

/// Every claim `theorems` checks, in the order they are checked and printed. Each runs on its
/// own too ([`select`], [`check_claims`]); the tables several of them read are made for the
/// first claim that reads them.
pub static CLAIMS: [TheoremClaim; 15] = [
    TheoremClaim {
        name: "prop-3.1-symmetry",
        check: prop_3_1_symmetry,
    },
    TheoremClaim {
        name: "prop-3.2-diagonals",
        check: prop_3_2_diagonals,
    },
    TheoremClaim {
        name: "thm-3.3-doubling",
        check: thm_3_3_doubling,
    },
    TheoremClaim {
        name: "thm-3.4-corners-and-centre",
        check: thm_3_4_corners_and_centre,
    },
    TheoremClaim {
        name: "recursive-constructor",
        check: recursive_constructor,
    },
    TheoremClaim {
        name: "g-doubling",
        check: g_doubling,
    },
    TheoremClaim {
        name: "g-odd",
        check: g_odd,
    },
    TheoremClaim {
        name: "g-corners-and-centre",
        check: g_corners_and_centre,
    },
    TheoremClaim {
        name: "sum-odd",
        check: sum_odd,
    },
    TheoremClaim {
        name: "sum-power",
        check: sum_power,
    },
    TheoremClaim {
        name: "sum-mersenne",
        check: sum_mersenne,
    },
    TheoremClaim {
        name: "window-counts",
        check: window_counts,
    },
    TheoremClaim {
        name: "g-recurrence-values",
        check: g_recurrence_values,
    },
    TheoremClaim {
        name: "automaton",
        check: automaton,
    },
    TheoremClaim {
        name: "octahedron",
        check: octahedron,
    },
];

/// The claims called `names`, in the order of [`CLAIMS`] and each once; every claim when
/// `names` is empty. A name that is not a claim's is [`Error::BadInput`] listing them all.
pub fn select<S: AsRef<str>>(names: &[S]) -> Result<Vec<&'static TheoremClaim>> {
    let known = |name: &str| CLAIMS.iter().any(|c| c.name == name);
    if let Some(unknown) = names.iter().map(AsRef::as_ref).find(|n| !known(n)) {
        let all: Vec<&str> = CLAIMS.iter().map(|c| c.name).collect();
        return Err(Error::bad_input(
            crate::error::Input::Claim,
            format!("'{unknown}'"),
            format!("one of {}", all.join(", ")),
        ));
    }
    Ok(CLAIMS
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n.as_ref() == c.name))
        .collect())
}

/// Check every claim for all m ≤ max_m: [`check_claims`] of all of [`CLAIMS`].
pub fn check_all(max_m: u64, on_claim: impl FnMut(&Claim)) -> Result<Vec<Claim>> {
    let all: Vec<&TheoremClaim> = CLAIMS.iter().collect();
    check_claims(max_m, &all, on_claim)
}

/// Check `claims` for all m ≤ max_m, in the order given. `on_claim` sees each result as it is
/// made. Stops between claims with [`crate::Error::Interrupted`] when its [`crate::cancel`]
/// token is cancelled.
pub fn check_claims(
    max_m: u64,
    claims: &[&TheoremClaim],
    mut on_claim: impl FnMut(&Claim),
) -> Result<Vec<Claim>> {
    let inputs = Inputs::new(max_m);
    let mut out = Vec::with_capacity(claims.len());
    let phase = crate::progress::phase("claims", Some(claims.len() as u64));
    for c in claims {
        let made = (c.check)(&inputs);
        debug_assert_eq!(
            made.name, c.name,
            "a claim makes the claim it is registered as"
        );
        on_claim(&made);
        out.push(made);
        phase.inc(1);
    }
    crate::cancel::check()?;
    Ok(out)
}

/// What the claims read: M, and the tables that several claims share. Each table is made the
/// first time a claim asks for it, before that claim's clock starts, so a claim's seconds are
/// its own work and a claim checked alone makes only the tables it reads.
#[derive(Debug)]
struct Inputs {
    big: u64,
    counts: OnceCell<Vec<u128>>,
    sums: OnceCell<SumTable>,
}

impl Inputs {
    fn new(max_m: u64) -> Inputs {
        Inputs {
            big: max_m,
            counts: OnceCell::new(),
            sums: OnceCell::new(),
        }
    }

    /// Counts of the P-test grids, g(0..=M) with g(0) = 0: the ground truth of the counting
    /// claims. The worker threads look at this thread's cancellation token (the counts are
    /// then unused).
    fn counts(&self) -> &[u128] {
        self.counts.get_or_init(|| {
            let stop = crate::cancel::current();
            std::iter::once(0)
                .chain(
                    (1..=self.big)
                        .into_par_iter()
                        .map(|m| match &stop {
                            Some(t) if t.is_cancelled() => 0,
                            _ => Grid::p_test(m).count(),
                        })
                        .collect::<Vec<_>>(),
                )
                .collect()
        })
    }

    /// The table of g and its running sums that the sum identities read.
    fn sums(&self) -> &SumTable {
        self.sums
            .get_or_init(|| SumTable::new(self.counts(), self.big))
    }
}

/// g(1..=len) for the sum identities, and its running sums S(N) = Σ_{m≤N} g(m).
#[derive(Debug)]
struct SumTable {
    len: u64,
    g: Vec<u128>,
    prefix: Vec<u128>,
    /// log2 of the largest power of two in the table.
    top_bits: u32,
}

impl SumTable {
    /// Grid counts up to M, the recurrence beyond (the counting claims check the recurrence
    /// against the counts), to at least [`SUM_TABLE_MIN`].
    fn new(counts: &[u128], big: u64) -> SumTable {
        let len = big.max(SUM_TABLE_MIN);
        let mut g = vec![0u128; len as usize + 1];
        for m in 1..=len as usize {
            g[m] = if m as u64 <= big {
                counts[m]
            } else if m % 2 == 0 {
                4 * g[m / 2]
            } else {
                g[m / 2] + g[m / 2 + 1]
            };
        }
        let prefix: Vec<u128> = g
            .iter()
            .scan(0u128, |acc, &x| {
                *acc += x;
                Some(*acc)
            })
            .collect();
        SumTable {
            len,
            g,
            prefix,
            top_bits: 63 - len.leading_zeros(),
        }
    }

    /// (S(n-1), S(n)): from the table, and beyond it by doubling (g_prefix_sums), which
    /// `sum-power` checks against the table's running sums.
    fn sum_to(&self, n: u64) -> Result<(u128, u128)> {
        if n <= self.len {
            Ok((self.prefix[n as usize - 1], self.prefix[n as usize]))
        } else {
            g_prefix_sums(n)
        }
    }

    /// The range of the sum claims.
    fn range(&self) -> String {
        format!(
            "2^n ≤ 2^{SUM_MAX_BITS} (direct sums to {}, then S(2M) = 5S(M)+S(M-1))",
            self.len
        )
    }
}

fn prop_3_1_symmetry(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    claim(
        "prop-3.1-symmetry",
        "P(m) is invariant under (i,j)→(j,i), (i,m+1-j) and (m+1-i,j)",
        format!("m = 1..{big}"),
        |t| {
            each(t, 1..=big, |m| match symmetry_failure(&Grid::p_test(m)) {
                Some(why) => Err(format!("m = {m}: {why}")),
                None => Ok(3 * m as u128 * m as u128),
            });
        },
    )
}

fn prop_3_2_diagonals(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    claim(
        "prop-3.2-diagonals",
        "every cell of both diagonals of C(m,m) is P",
        format!("m = 1..{big}"),
        |t| {
            each(t, 1..=big, |m| {
                let g = Grid::p_test(m);
                match (0..m).find(|&k| !g.get(k, k) || !g.get(k, m - 1 - k)) {
                    Some(k) => Err(format!("m = {m}: diagonal cell at k = {} is not P", k + 1)),
                    None => Ok(2 * m as u128),
                }
            });
        },
    )
}

fn thm_3_3_doubling(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    claim(
        "thm-3.3-doubling",
        "v_{2m}(2i-δ, 2j-ε) = v_m(i,j): P(2m) is P(m) blown up to 2×2 blocks",
        format!("2m ≤ {big}, and {LARGE_SAMPLES} sampled cells with m < 2^62"),
        |t| {
            let grids = each(t, 1..=big / 2, |m| {
                // The P-test's P(m), blown up, against the P-test's P(2m), word by word.
                let (small, large) = (Grid::p_test(m), Grid::p_test(2 * m));
                match large.first_word_difference(&blow_up(&small.words, m)) {
                    Some((i, j)) => Err(format!(
                        "m = {m}: cell {} of C({},{}) differs from its parent",
                        cell(i, j),
                        2 * m,
                        2 * m
                    )),
                    None => Ok(4 * m as u128 * m as u128),
                }
            });
            let mut rng = Xorshift::new(0x5EED_3303);
            if grids {
                each(t, 0..LARGE_SAMPLES, |_| {
                    let m = rng.upto(1 << 62);
                    let (i, j) = (rng.upto(m), rng.upto(m));
                    let (d, e) = (rng.next() & 1, rng.next() >> 1 & 1);
                    if p_cell(2 * m, 2 * m, 2 * i - d, 2 * j - e) != p_cell(m, m, i, j) {
                        return Err(format!(
                            "m = {m}: cell ({i},{j}) differs from its block in C(2m,2m)"
                        ));
                    }
                    Ok(1)
                });
            }
        },
    )
}

fn thm_3_4_corners_and_centre(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    claim(
        "thm-3.4-corners-and-centre",
        "m = s+t+s (2^k = top bit, s = m-2^k, t = 2^k-s): P(s) in the four corners, P(t) in the centre, no other P",
        format!("m = 1..{big} not powers of two, and {LARGE_SAMPLES} sampled cells with m < 2^63"),
        |t| {
            let grids = each(t, 1..=big, |m| {
                let Some((s, tt)) = corners_and_centre(m) else { return Ok(0) };
                // The P-test's P(s) and P(t) placed as the theorem says, against its P(m).
                let (g, gs, gt) = (Grid::p_test(m), Grid::p_test(s), Grid::p_test(tt));
                match g.first_word_difference(&corners_and_centre_grid(&gs.words, s, &gt.words, tt)) {
                    Some((i, j)) => Err(format!("m = {m} (s = {s}, t = {tt}): cell {} disagrees", cell(i, j))),
                    None => Ok(m as u128 * m as u128),
                }
            });
            let mut rng = Xorshift::new(0x5EED_3404);
            if grids {
                each(t, 0..LARGE_SAMPLES, |_| {
                    let m = rng.upto(1 << 63);
                    let Some((s, tt)) = corners_and_centre(m) else { return Ok(0) };
                    let (i, j) = (rng.upto(m), rng.upto(m));
                    let band = |x: u64| if x <= s { Some(x) } else if x > s + tt { Some(x - s - tt) } else { None };
                    let predicted = match (band(i), band(j)) {
                        (Some(a), Some(b)) => p_cell(s, s, a, b),
                        (None, None) => p_cell(tt, tt, i - s, j - s),
                        _ => false,
                    };
                    if p_cell(m, m, i, j) != predicted {
                        return Err(format!("m = {m}: cell ({i},{j}) disagrees"));
                    }
                    Ok(1)
                });
            }
        },
    )
}

fn recursive_constructor(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    claim(
        "recursive-constructor",
        "P(m) built from Thm 3.3 and 3.4 alone (no XOR) equals the P-test",
        format!("m = 1..{big}, and {LARGE_SAMPLES} sampled cells with m < 2^64"),
        |t| {
            let grids = each(t, 1..=big, |m| {
                let (g, r) = (Grid::p_test(m), p_grid_recursive(m));
                match g.first_word_difference(&r) {
                    Some((i, j)) => Err(format!("m = {m}: cell {} differs", cell(i, j))),
                    None => Ok(m as u128 * m as u128),
                }
            });
            let mut rng = Xorshift::new(0x5EED_0505);
            if grids {
                each(t, 0..LARGE_SAMPLES, |_| {
                    let m = rng.next().max(1);
                    let (i, j) = (rng.upto(m), rng.upto(m));
                    if p_cell_recursive(m, i, j) != p_cell(m, m, i, j) {
                        return Err(format!("m = {m}: cell ({i},{j}) differs"));
                    }
                    Ok(1)
                });
            }
        },
    )
}

/// 16 m beyond M (up to M+2^20) from `seed`, whose counts the histogram method recomputes.
fn sampled_beyond(big: u64, seed: u64) -> Vec<u64> {
    let mut rng = Xorshift::new(seed);
    (0..16)
        .map(|_| big + rng.upto(HISTOGRAM_SAMPLE_MAX))
        .collect()
}

/// g(m) by the key-histogram method.
fn histogram_count(m: u64) -> u128 {
    g_histogram(m, m).expect("feasible size")
}

fn g_doubling(inputs: &Inputs) -> Claim {
    let (big, counts) = (inputs.big, inputs.counts());
    claim(
        "g-doubling",
        "g(2m) = 4g(m)",
        format!("2m ≤ {big} (grid counts), and 16 sampled m ≤ {big}+2^20 (histogram counts)"),
        |t| {
            let grids = each(t, 1..=big / 2, |m| {
                if counts[2 * m as usize] != 4 * counts[m as usize] {
                    return Err(format!(
                        "g({}) = {} but 4g({m}) = {}",
                        2 * m,
                        counts[2 * m as usize],
                        4 * counts[m as usize]
                    ));
                }
                Ok(1)
            });
            if grids {
                each(t, sampled_beyond(big, 0x6D), |m| {
                    if histogram_count(2 * m) != 4 * histogram_count(m) {
                        return Err(format!("g({}) != 4g({m})", 2 * m));
                    }
                    Ok(1)
                });
            }
        },
    )
}

fn g_odd(inputs: &Inputs) -> Claim {
    let (big, counts) = (inputs.big, inputs.counts());
    claim(
        "g-odd",
        "g(2m+1) = g(m) + g(m+1)",
        format!("2m+1 ≤ {big} (grid counts), and 16 sampled m ≤ {big}+2^20 (histogram counts)"),
        |t| {
            let grids = each(t, 1..=big.saturating_sub(1) / 2, |m| {
                let (a, b, c) = (
                    counts[2 * m as usize + 1],
                    counts[m as usize],
                    counts[m as usize + 1],
                );
                if a != b + c {
                    return Err(format!(
                        "g({}) = {a} but g({m}) + g({}) = {}",
                        2 * m + 1,
                        m + 1,
                        b + c
                    ));
                }
                Ok(1)
            });
            if grids {
                each(t, sampled_beyond(big, 0x0DD), |m| {
                    if histogram_count(2 * m + 1) != histogram_count(m) + histogram_count(m + 1) {
                        return Err(format!("g({}) != g({m}) + g({})", 2 * m + 1, m + 1));
                    }
                    Ok(1)
                });
            }
        },
    )
}

fn g_corners_and_centre(inputs: &Inputs) -> Claim {
    let (big, counts) = (inputs.big, inputs.counts());
    claim(
        "g-corners-and-centre",
        "g(m) = 4g(s) + g(t) for m = s+t+s not a power of two (from Thm 3.4)",
        format!("m = 1..{big} (grid counts), and 16 sampled m ≤ {big}+2^20 (histogram counts)"),
        |t| {
            let grids = each(t, 1..=big, |m| {
                let Some((s, tt)) = corners_and_centre(m) else {
                    return Ok(0);
                };
                if counts[m as usize] != 4 * counts[s as usize] + counts[tt as usize] {
                    return Err(format!("g({m}) != 4g({s}) + g({tt})"));
                }
                Ok(1)
            });
            if grids {
                each(t, sampled_beyond(big, 0xC0C0), |m| {
                    let Some((s, tt)) = corners_and_centre(m) else {
                        return Ok(0);
                    };
                    if histogram_count(m) != 4 * histogram_count(s) + histogram_count(tt) {
                        return Err(format!("g({m}) != 4g({s}) + g({tt})"));
                    }
                    Ok(1)
                });
            }
        },
    )
}

fn sum_odd(inputs: &Inputs) -> Claim {
    let sums = inputs.sums();
    claim(
        "sum-odd",
        "Σ_{m=1}^{2^(n-1)} g(2m-1) = 6^(n-1)",
        sums.range(),
        |t| {
            for n in 1..=SUM_MAX_BITS {
                let half = 1u64 << (n - 1);
                let sum: u128 = if n <= sums.top_bits {
                    (1..=half).map(|m| sums.g[(2 * m - 1) as usize]).sum()
                } else {
                    // g(2m-1) = g(m-1) + g(m): the odd terms add up to S(half-1) + S(half).
                    match sums.sum_to(half) {
                        Ok((before, at)) => before + at,
                        Err(e) => return t.fail(format!("n = {n}: {e}")),
                    }
                };
                if sum != 6u128.pow(n - 1) {
                    t.fail(format!(
                        "n = {n}: the sum is {sum}, not 6^{} = {}",
                        n - 1,
                        6u128.pow(n - 1)
                    ));
                    return;
                }
                t.checked += 1;
            }
        },
    )
}

fn sum_power(inputs: &Inputs) -> Claim {
    let sums = inputs.sums();
    claim(
        "sum-power",
        "Σ_{m=1}^{2^n} g(m) = (4^n + 6^n)/2",
        sums.range(),
        |t| {
            // The doubling sums equal the direct running sums wherever both exist.
            let mut rng = Xorshift::new(0x5EED);
            let direct = (1..=sums.len.min(1 << 16)).chain((0..4096).map(|_| rng.upto(sums.len)));
            for n in direct {
                let want = (sums.prefix[n as usize - 1], sums.prefix[n as usize]);
                match g_prefix_sums(n) {
                    Ok(got) if got == want => t.checked += 1,
                    Ok(got) => {
                        return t.fail(format!("S({n}) by doubling is {got:?}, not {want:?}"))
                    }
                    Err(e) => return t.fail(format!("S({n}): {e}")),
                }
            }
            for n in 0..=SUM_MAX_BITS {
                let sum = match sums.sum_to(1 << n) {
                    Ok((_, at)) => at,
                    Err(e) => return t.fail(format!("n = {n}: {e}")),
                };
                let want = (4u128.pow(n) + 6u128.pow(n)) / 2;
                if sum != want {
                    t.fail(format!("n = {n}: the sum is {sum}, not {want}"));
                    return;
                }
                t.checked += 1;
            }
        },
    )
}

fn sum_mersenne(inputs: &Inputs) -> Claim {
    let sums = inputs.sums();
    claim(
        "sum-mersenne",
        "Σ_{m=1}^{2^k-1} g(m) = 2^(k-1)(3^k - 2^k)",
        sums.range(),
        |t| {
            for k in 1..=SUM_MAX_BITS {
                let sum = match sums.sum_to(1 << k) {
                    Ok((before, _)) => before,
                    Err(e) => return t.fail(format!("k = {k}: {e}")),
                };
                let want = (1u128 << (k - 1)) * (3u128.pow(k) - (1u128 << k));
                if sum != want {
                    t.fail(format!("k = {k}: the sum is {sum}, not {want}"));
                    return;
                }
                t.checked += 1;
            }
        },
    )
}

fn window_counts(inputs: &Inputs) -> Claim {
    let (big, counts) = (inputs.big, inputs.counts());
    claim(
        "window-counts",
        "the digit method's P-count of a window of C(m,n) equals the count of its generated grid, and of a whole square C(m,m) the recurrence",
        format!("m = 1..{big}: C(m,m) and 7 windows each; {LARGE_SAMPLES} squares, 200 windows < 2^64"),
        |t| {
            // Every m: the whole square against the grid counts, then sampled windows against
            // generated grids.
            let failures: Vec<(u128, Option<String>)> = (1..=big)
                .into_par_iter()
                .map(|m| windows_against_grids(m, big, counts[m as usize]))
                .collect();
            for (checked, failure) in failures {
                t.checked += checked;
                if let Some(f) = failure {
                    return t.fail(f);
                }
            }
            let mut rng = Xorshift::new(0x5EED_0B11);
            if let Err(f) = squares_against_recurrence(&mut rng, t) {
                return t.fail(f);
            }
            if let Err(f) = deep_windows_against_cells(&mut rng, t) {
                t.fail(f);
            }
        },
    )
}

/// `window-counts` at one m: the digit method's count of C(m,m) against the grid count `g`,
/// then of six small windows of rectangles C(m,n) and one as large as the bar against their
/// generated grids. The cases checked, and the first failure.
fn windows_against_grids(m: u64, big: u64, g: u128) -> (u128, Option<String>) {
    let mut checked = 1u128;
    let whole = Window::full(m, m).expect("m ≥ 1");
    if p_count(&whole) != g {
        return (
            checked,
            Some(format!(
                "C({m},{m}): digits {} but the grid has {g}",
                p_count(&whole)
            )),
        );
    }
    let mut rng = Xorshift::new(0x5EED_0B10 ^ m.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    for k in 0..7 {
        let n = if k == 0 { m } else { rng.upto(big) };
        let cap = |side: u64| if k == 6 { side } else { side.min(512) };
        let (h, w) = (rng.upto(cap(m)), rng.upto(cap(n)));
        let (r0, c0) = (rng.upto(m - h + 1), rng.upto(n - w + 1));
        let win = Window::new(m, n, r0, c0, h, w).expect("inside the bar");
        let mut words = vec![0u32; win.total_words().expect("small")];
        p_rows_cpu(&win, &mut words);
        let grid: u128 = words.iter().map(|x| x.count_ones() as u128).sum();
        let digits = p_count(&win);
        checked += 1;
        if digits != grid {
            return (checked, Some(format!("rows {r0}..+{h}, columns {c0}..+{w} of C({m},{n}): digits {digits} but the grid has {grid}")));
        }
    }
    (checked, None)
}

/// `window-counts` beyond M: the digit method's count of [`LARGE_SAMPLES`] squares up to
/// 2^64-1 (the extremes first) against the recurrence.
fn squares_against_recurrence(
    rng: &mut Xorshift,
    t: &mut Tally,
) -> std::result::Result<(), String> {
    let mut squares = vec![
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) - 1,
        (1 << 63) + 1,
    ];
    squares.extend((squares.len()..LARGE_SAMPLES).map(|_| rng.next().max(1)));
    for m in squares {
        let (digits, rec) = (
            p_count(&Window::full(m, m).expect("m ≥ 1")),
            g_recurrence(m).expect("m ≥ 1"),
        );
        if digits != rec {
            return Err(format!(
                "C({m},{m}): digits {digits} but the recurrence {rec}"
            ));
        }
        t.checked += 1;
    }
    Ok(())
}

/// `window-counts` deep inside huge bars: the digit method's count of 200 windows against
/// their cells, one by one.
fn deep_windows_against_cells(
    rng: &mut Xorshift,
    t: &mut Tally,
) -> std::result::Result<(), String> {
    for _ in 0..200 {
        let m = u64::MAX - rng.next() % (1 << 40);
        let n = rng.next().max(1);
        let (h, w) = (rng.upto(32.min(m)), rng.upto(32.min(n)));
        let (r0, c0) = (rng.upto(m - h + 1), rng.upto(n - w + 1));
        let win = Window::new(m, n, r0, c0, h, w).expect("inside the bar");
        let cells: u128 = (r0..r0 + h)
            .map(|i| (c0..c0 + w).filter(|&j| p_cell(m, n, i, j)).count() as u128)
            .sum();
        if p_count(&win) != cells {
            return Err(format!("rows {r0}..+{h}, columns {c0}..+{w} of C({m},{n}): digits {} but the cells {cells}", p_count(&win)));
        }
        t.checked += 1;
    }
    Ok(())
}

fn g_recurrence_values(inputs: &Inputs) -> Claim {
    let (big, counts) = (inputs.big, inputs.counts());
    claim(
        "g-recurrence-values",
        "g(1..12) = 1, 4, 5, 16, 9, 20, 21, 64, 25, 36, 29, 80, and the O(log m) recurrence equals the grid counts",
        format!("m = 1..{big}"),
        |t| {
            const FIRST: [u128; 12] = [1, 4, 5, 16, 9, 20, 21, 64, 25, 36, 29, 80];
            each(t, 1..=big, |m| {
                let r = g_recurrence(m).expect("m ≥ 1");
                let listed = FIRST.get(m as usize - 1).copied();
                if r != counts[m as usize] || listed.is_some_and(|l| l != r) {
                    return Err(format!("g({m}): grid count {}, recurrence {r}", counts[m as usize]));
                }
                Ok(1)
            });
        },
    )
}

/// Every generation whole against the P-test's grid.
fn automaton(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    let start = Instant::now();
    let run = |mut a: Automaton| -> Result<Claim> {
        let mut check = AutomatonCheck::new();
        loop {
            crate::cancel::check()?;
            check.against_p_test(&a, true)?;
            if check.failed() || a.generation() + 1 == big {
                break;
            }
            a.step();
        }
        let mut c = check.claims().remove(0);
        c.range = format!("n = 0..{}", big - 1);
        Ok(c.took(start))
    };
    match Automaton::new(big - 1).and_then(run) {
        Ok(c) => c,
        Err(e) => claim(
            "automaton",
            "generation n of the second-order automaton (docs/mathematics.md §3) is P(n+1)",
            format!("n = 0..{}", big - 1),
            |t| t.fail(e.to_string()),
        ),
    }
}

/// The octahedron correspondence up to the level of M (at most [`OCTAHEDRON_MAX_LEVEL`]).
fn octahedron(inputs: &Inputs) -> Claim {
    let big = inputs.big;
    let level = (64 - (big - 1).leading_zeros()).min(OCTAHEDRON_MAX_LEVEL);
    let oct_top = big.min(1 << level);
    correspondence_claim(level, oct_top).unwrap_or_else(|e| {
        claim(
            "octahedron",
            "the P-cells of C(m,m) are the cells whose centre points lie in S_N (docs/mathematics.md §2)",
            format!("m = 1..{oct_top} in S_{level}"),
            |t| t.fail(e.to_string()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_and_reverse_equal_the_bitwise_versions() {
        let mut rng = Xorshift::new(77);
        let mut a: [u32; 32] = std::array::from_fn(|_| rng.next() as u32);
        let orig = a;
        transpose32(&mut a);
        for (i, row) in a.iter().enumerate() {
            for (j, col) in orig.iter().enumerate() {
                assert_eq!(row >> (31 - j) & 1, col >> (31 - i) & 1);
            }
        }
        for m in [1u64, 5, 31, 32, 33, 70, 96] {
            let wpr = words_per_row(m);
            let mut row: Vec<u32> = (0..wpr).map(|_| rng.next() as u32).collect();
            if m % 32 != 0 {
                row[wpr - 1] &= u32::MAX << (32 - m % 32);
            }
            let rev = reversed_row(&row, m);
            let bit = |r: &[u32], j: u64| r[(j / 32) as usize] >> (31 - j % 32) & 1;
            for j in 0..m {
                assert_eq!(bit(&rev, j), bit(&row, m - 1 - j));
            }
        }
    }

    #[test]
    fn each_claim_checked_alone_is_its_row_of_the_whole_table() {
        let max_m = 37;
        let all = check_all(max_m, |_| {}).unwrap();
        assert_eq!(all.len(), CLAIMS.len());
        for (entry, whole) in CLAIMS.iter().zip(&all) {
            let alone = check_claims(max_m, &select(&[entry.name]).unwrap(), |_| {}).unwrap();
            assert_eq!(alone.len(), 1, "{}", entry.name);
            let c = &alone[0];
            assert_eq!(c.name, entry.name, "the claim made is the one registered");
            assert_eq!(
                (&c.statement, &c.range, c.checked, c.pass, &c.counterexample),
                (
                    &whole.statement,
                    &whole.range,
                    whole.checked,
                    whole.pass,
                    &whole.counterexample
                ),
                "{}",
                entry.name
            );
        }
    }

    #[test]
    fn select_keeps_the_tables_order_and_refuses_unknown_names() {
        let names = |v: Vec<&TheoremClaim>| v.iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(
            names(select(&["sum-odd", "prop-3.2-diagonals", "sum-odd"]).unwrap()),
            ["prop-3.2-diagonals", "sum-odd"]
        );
        assert_eq!(select::<&str>(&[]).unwrap().len(), CLAIMS.len());
        let Err(Error::BadInput {
            input,
            value,
            allowed,
        }) = select(&["g-odd", "g-even"])
        else {
            panic!("g-even is not a claim");
        };
        assert_eq!(
            (input, value.as_str()),
            (crate::error::Input::Claim, "'g-even'")
        );
        for c in &CLAIMS {
            assert!(allowed.contains(c.name), "{allowed} names {}", c.name);
        }
        // Stable names are unique.
        let mut all: Vec<&str> = CLAIMS.iter().map(|c| c.name).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), CLAIMS.len());
    }

    #[test]
    fn a_broken_symmetry_is_reported() {
        for m in [7u64, 40, 77] {
            let mut g = Grid::p_test(m);
            assert_eq!(symmetry_failure(&g), None);
            // Flip one off-diagonal cell: every symmetry check must notice something.
            let (i, j) = (1usize, m as usize - 3);
            g.words[i * g.wpr + j / 32] ^= 1 << (31 - j % 32);
            assert!(symmetry_failure(&g).is_some());
        }
    }
}
