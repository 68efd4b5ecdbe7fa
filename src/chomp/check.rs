//! The paper's claims, verified over every position of a box.
//!
//! The ordinals come from Fact 2.10; the checks judge them against the game itself. For each
//! position P the *game* solution set is computed from scores, not from ordinals: moving to Q
//! hands the turn over, so player 1 of P scores α_{ord(Q)+1}, wrapping to α_1 when ord(Q) = n
//! (the seed's first theorem), and eating everything scores α_1. Sol P is the set of moves with
//! the highest score, or {(0)} when (0) is among them (player's preference).

use super::classes::RuleClass;
use super::diagram::{Diagram, Ranker};
use super::ordinal::{ordinals_in_rank_order, OrdTable};
use super::rule::{Choice, Rule};
use crate::claim::{Claim, ClaimKind, Tally};
use serde::Serialize;
use std::time::Instant;

/// Theorems 2.7 and 2.8, the four parts of Fact 2.9 and the Res form of Fact 2.10 on `table`.
pub fn ordinal_claims(table: &OrdTable, rule: &Rule) -> Vec<Claim> {
    let start = Instant::now();
    let ranker = &table.ranker;
    let ords = &table.ords;
    let n = rule.players() as u8;
    let total = ranker.len() as usize;
    let alpha = |k: u8| &rule.values[k as usize - 1];
    let mut rows = vec![0u32; ranker.shape.rows];
    // Longest solution chain from each position (Thm 2.8), and whether a position is a
    // solution of some position of the box (Fact 2.9 (i)).
    let mut longest = vec![0u8; total];
    let mut is_solution = vec![false; total];
    let mut options: Vec<(u64, u8)> = Vec::new();
    let mut sol: Vec<u64> = Vec::new();
    let (mut t27, mut t28, mut f9_1, mut f9_2, mut f9_3, mut f9_4, mut res, mut value): (
        Tally,
        Tally,
        Tally,
        Tally,
        Tally,
        Tally,
        Tally,
        Tally,
    ) = Default::default();
    let mut moves_checked = 0u64;
    let at = |r: u64| ranker.unrank(r).to_string();
    for r in 1..total {
        ranker.advance(&mut rows);
        let o = ords[r];
        options.clear();
        ranker.for_each_option(&rows, r as u64, |q| options.push((q, ords[q as usize])));
        moves_checked += options.len() as u64;
        let score = |oq: u8| if oq == n || oq == 0 { 1 } else { oq + 1 };
        let best = options
            .iter()
            .map(|&(_, oq)| score(oq))
            .max_by(|&k, &l| alpha(k).cmp(alpha(l)))
            .expect("P ≠ (0)");
        sol.clear();
        if options
            .iter()
            .any(|&(q, oq)| q == 0 && alpha(score(oq)) == alpha(best))
        {
            sol.push(0);
        } else {
            sol.extend(
                options
                    .iter()
                    .filter(|&&(_, oq)| alpha(score(oq)) == alpha(best))
                    .map(|&(q, _)| q),
            );
        }
        // The ordinal is the game's value: player 1 scores α_{ord P}.
        tally(&mut value, alpha(o) == alpha(best), || at(r as u64));
        for &q in &sol {
            let oq = ords[q as usize];
            is_solution[q as usize] = true;
            // Thm 2.7: a solution move lands on ord ≤ n-1 and lowers the ordinal by one.
            tally(&mut t27, oq < n && o == oq + 1, || {
                format!("{} → {}", at(r as u64), at(q))
            });
            // Fact 2.9 (ii), read from Q = P's side: every P with Q → P... here every solution
            // move into q comes from a position of ordinal ord(q)+1.
            tally(&mut f9_2, o == oq + 1, || {
                format!("{} → {}", at(r as u64), at(q))
            });
        }
        let chain = 1 + sol.iter().map(|&q| longest[q as usize]).max().unwrap_or(0) as u32;
        longest[r] = chain.min(255) as u8;
        // Thm 2.8: solution chains have length ≤ n.
        tally(&mut t28, chain <= n as u32, || at(r as u64));
        // Fact 2.9 (iii): ord P = 1 ⇔ Sol P = {(0)}.
        let only_empty = sol.len() == 1 && sol[0] == 0;
        tally(&mut f9_3, (o == 1) == only_empty, || at(r as u64));
        // Fact 2.9 (iv): ord P = i > 1 ⇔ every solution has ordinal i-1 (≥ 1).
        let sol_ords: Vec<u8> = sol.iter().map(|&q| ords[q as usize]).collect();
        let common = sol_ords.iter().all(|&x| x == sol_ords[0]) && sol_ords[0] >= 1;
        tally(
            &mut f9_4,
            (o > 1) == common && (!common || o == sol_ords[0] + 1),
            || at(r as u64),
        );
        // Fact 2.10, Res form: α_{ord P} = max { α_i : Res^i P ≠ ∅, 1 ≤ i ≤ n } (the seed's
        // text stops at i = n-1, which would make ordinal n impossible; Res^n P holds the
        // options of ordinal n-1, which Fact 2.10 counts) and
        // Res^{ord P} P = Sol P.
        let mut nonempty = 0u64;
        for &(_, oq) in &options {
            if oq < n {
                nonempty |= 1 << (oq + 1);
            }
        }
        let res_best = (1..=n)
            .filter(|&i| nonempty >> i & 1 == 1)
            .max_by(|&k, &l| alpha(k).cmp(alpha(l)));
        let mut res_o: Vec<u64> = options
            .iter()
            .filter(|&&(_, oq)| oq + 1 == o)
            .map(|&(q, _)| q)
            .collect();
        res_o.sort_unstable();
        res_o.dedup();
        let mut sol_sorted = sol.clone();
        sol_sorted.sort_unstable();
        tally(&mut res, res_best == Some(o) && res_o == sol_sorted, || {
            at(r as u64)
        });
    }
    // Fact 2.9 (i): ord P = n ⇒ P is nobody's solution (inside the box).
    let mut lower_witnessed = 0u64;
    let mut lower = 0u64;
    for r in 0..total {
        if ords[r] == n {
            tally(&mut f9_1, !is_solution[r], || at(r as u64));
        } else {
            lower += 1;
            lower_witnessed += is_solution[r] as u64;
        }
    }
    let longest_seen = longest.iter().copied().max().unwrap_or(0);
    let range = format!("box {}, rule ({})", ranker.shape, rule.normalised());
    let theorem = |t: Tally, name: &str, statement: &str| {
        t.claim(ClaimKind::Theorem, name, statement, &range)
            .took(start)
    };
    vec![
        theorem(value, "Fact 2.10 (value)", &format!("positions: α_{{ord P}} is the best score player 1 can get ({moves_checked} moves)")),
        theorem(t27, "Theorem 2.7", "solution moves: each lands on ord ≤ n-1 and lowers the ordinal by exactly one"),
        theorem(t28, "Theorem 2.8", &format!("positions: the longest solution chain has length ≤ n = {n} (longest found: {longest_seen})")),
        theorem(
            f9_1,
            "Fact 2.9 (i)",
            &format!(
                "positions of ordinal n: none is a solution of a position of the box ({lower_witnessed} of the {lower} others are)"
            ),
        ),
        theorem(f9_2, "Fact 2.9 (ii)", "solution moves Q → P: ord Q = ord P + 1"),
        theorem(f9_3, "Fact 2.9 (iii)", "positions: ord P = 1 ⇔ Sol P = {(0)}"),
        theorem(f9_4, "Fact 2.9 (iv)", "positions: ord P = i > 1 ⇔ every Q in Sol P has ord i-1"),
        theorem(res, "Fact 2.10 (Res form)", "positions: α_{ord P} = max{α_i : Res^i P ≠ ∅} and Res^{ord P} P = Sol P"),
    ]
}

fn tally(t: &mut Tally, ok: bool, what: impl FnOnce() -> String) {
    t.record(ok, what)
}

/// Theorem 3.3 on a set of classes: for every rule f of every class, a rule g with different
/// numbers but the same order (α ↦ 7α³/4 − 5/2, strictly increasing) is computed from scratch
/// with g's own numbers and must have f's class table. Stops with
/// [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
pub fn class_claims(ranker: &Ranker, classes: &[RuleClass]) -> crate::Result<Vec<Claim>> {
    let start = Instant::now();
    let mut t33 = Tally::new();
    for class in classes {
        for f in &class.members {
            let values: Vec<String> = f
                .perm
                .iter()
                .map(|&b| {
                    // 7b³/4 − 5/2 written exactly as a decimal: quarters.
                    let quarters = 7 * (b as i64).pow(3) - 10;
                    let sign = if quarters < 0 { "-" } else { "" };
                    let q = quarters.unsigned_abs();
                    format!("{sign}{}.{:02}", q / 4, (q % 4) * 25)
                })
                .collect();
            let g = Rule::parse(&values.join(",")).expect("distinct decimals");
            let table = ordinals_in_rank_order(ranker, &Choice::new(&g))?;
            t33.record(table == class.table, || {
                format!("f = {f}, g = ({})", g.as_given())
            });
        }
    }
    let players = classes
        .first()
        .and_then(|c| c.members.first())
        .map_or(0, Rule::players);
    Ok(vec![t33
        .claim(
            ClaimKind::Theorem,
            "Theorem 3.3",
            format!(
                "rules: each recomputed from other numbers of the same order lands in its own class ({} positions each)",
                ranker.len()
            ),
            format!("box {}, every normalised rule for {players} players", ranker.shape),
        )
        .took(start)])
}

/// A position's report: ordinal, Sol set and one solution chain.
#[derive(Debug, Clone, Serialize)]
pub struct PositionReport {
    /// The position's row lengths.
    pub position: String,
    /// Its ordinal.
    pub ordinal: u8,
    /// Its solution set Sol P.
    pub sol: Vec<String>,
    /// One solution chain from it down to (0).
    pub chain: Vec<String>,
}

impl PositionReport {
    /// The report of `p` from `table`, or `None` when the table does not hold it.
    pub fn new(table: &OrdTable, p: &Diagram) -> Option<PositionReport> {
        Some(PositionReport {
            position: p.to_string(),
            ordinal: table.ordinal(p)?,
            sol: table.sol(p).iter().map(|q| q.to_string()).collect(),
            chain: table.chain(p).iter().map(|q| q.to_string()).collect(),
        })
    }
}
