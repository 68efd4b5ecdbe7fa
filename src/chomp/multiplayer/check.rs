//! The paper's claims, verified over every position of a box: the ordinals of Fact 2.10 judged
//! against the game itself, Sol P computed from the scores (`Game::score`), not from the
//! ordinals: the moves with the highest score, or {(0)} when (0) is among them (player's
//! preference). [`ORDINAL_CLAIMS`] is the registry; one pass over the box ([`check_ordinals`])
//! computes what the claims read of a position once and hands it to each claim checked.
//!
//! Tests: this file's unit tests.

use super::classes::RuleClass;
use super::ordinal::{ordinals_in_rank_order, OrdTable};
use super::rule::{Choice, Decimal, Rule};
use crate::chomp::diagram::Diagram;
use crate::chomp::index::Ranker;
use crate::claim::{Claim, ClaimKind, Tally};
use serde::Serialize;
use std::time::Instant;

/// The box and the rule the claims judge.
struct Game<'a> {
    table: &'a OrdTable,
    rule: &'a Rule,
    /// Players: ordinals run 0..=n.
    n: u8,
}

impl Game<'_> {
    /// α_k.
    fn alpha(&self, k: u8) -> &Decimal {
        &self.rule.values[k as usize - 1]
    }

    fn at(&self, r: u64) -> String {
        self.table.ranker().unrank(r).to_string()
    }

    /// The score index player 1 of P gets by moving to Q of ordinal `oq`: Q's player 1 is P's
    /// player 2, so α_{ord Q + 1}, wrapping to α_1 when ord Q = n; eating everything (ord 0)
    /// scores α_1.
    fn score(&self, oq: u8) -> u8 {
        if oq == self.n || oq == 0 {
            1
        } else {
            oq + 1
        }
    }
}

/// One position P of the box as the claims see it, in rank order.
pub struct PositionSeen<'a> {
    game: &'a Game<'a>,
    r: u64,
    ord: u8,
    /// P's options Q with ord Q.
    options: &'a [(u64, u8)],
    /// The best score index among the options.
    best: u8,
    /// Sol P from the scores: {(0)} when (0) scores best, else every move that does.
    sol: &'a [u64],
    /// The longest solution chain from P.
    chain: u32,
}

/// What the pass saw of the whole box, for the claims that judge the box and the statements.
pub struct PassSeen<'a> {
    game: &'a Game<'a>,
    /// Whether each position is a solution of some position of the box.
    is_solution: &'a [bool],
    moves: u64,
    /// The longest solution chain found.
    longest: u8,
}

/// One claim of the paper on the ordinals of a box: its stable name, its check of one
/// position, and what it checks once the pass is done, which returns its statement.
pub struct OrdinalClaim {
    /// The stable name.
    pub name: &'static str,
    position: fn(&PositionSeen, &mut Tally),
    finish: fn(&PassSeen, &mut Tally) -> String,
}

/// Theorems 2.7 and 2.8, the four parts of Fact 2.9 and the Res form of Fact 2.10, in the
/// order `chomp ord --check` prints them.
pub static ORDINAL_CLAIMS: [OrdinalClaim; 8] = [
    OrdinalClaim {
        name: "Fact 2.10 (value)",
        position: value_is_the_best_score,
        finish: |pass, _| {
            format!(
                "positions: α_{{ord P}} is the best score player 1 can get ({} moves)",
                pass.moves
            )
        },
    },
    OrdinalClaim {
        name: "Theorem 2.7",
        position: |p, t| solution_moves_lower_the_ordinal(p, t, true),
        finish: |_, _| {
            "solution moves: each lands on ord ≤ n-1 and lowers the ordinal by exactly one".into()
        },
    },
    OrdinalClaim {
        name: "Theorem 2.8",
        position: solution_chains_are_short,
        finish: |pass, _| {
            format!(
                "positions: the longest solution chain has length ≤ n = {} (longest found: {})",
                pass.game.n, pass.longest
            )
        },
    },
    OrdinalClaim {
        name: "Fact 2.9 (i)",
        position: |_, _| {},
        finish: top_ordinal_is_nobodys_solution,
    },
    OrdinalClaim {
        name: "Fact 2.9 (ii)",
        position: |p, t| solution_moves_lower_the_ordinal(p, t, false),
        finish: |_, _| "solution moves Q → P: ord Q = ord P + 1".into(),
    },
    OrdinalClaim {
        name: "Fact 2.9 (iii)",
        position: ordinal_one_is_eating_everything,
        finish: |_, _| "positions: ord P = 1 ⇔ Sol P = {(0)}".into(),
    },
    OrdinalClaim {
        name: "Fact 2.9 (iv)",
        position: solutions_share_the_ordinal_below,
        finish: |_, _| "positions: ord P = i > 1 ⇔ every Q in Sol P has ord i-1".into(),
    },
    OrdinalClaim {
        name: "Fact 2.10 (Res form)",
        position: res_form,
        finish: |_, _| {
            "positions: α_{ord P} = max{α_i : Res^i P ≠ ∅} and Res^{ord P} P = Sol P".into()
        },
    },
];

/// The ordinal is the game's value: player 1 scores α_{ord P}.
fn value_is_the_best_score(p: &PositionSeen, t: &mut Tally) {
    let g = p.game;
    t.record(g.alpha(p.ord) == g.alpha(p.best), || g.at(p.r));
}

/// Fact 2.9 (ii): a solution move P → Q has ord P = ord Q + 1; Thm 2.7 (`below_n`): and
/// ord Q ≤ n-1.
fn solution_moves_lower_the_ordinal(p: &PositionSeen, t: &mut Tally, below_n: bool) {
    for &q in p.sol {
        let oq = p.game.table.ordinal_rank(q);
        t.record((!below_n || oq < p.game.n) && p.ord == oq + 1, || {
            format!("{} → {}", p.game.at(p.r), p.game.at(q))
        });
    }
}

/// Thm 2.8: solution chains have length ≤ n.
fn solution_chains_are_short(p: &PositionSeen, t: &mut Tally) {
    t.record(p.chain <= p.game.n as u32, || p.game.at(p.r));
}

/// Fact 2.9 (i): ord P = n ⇒ P is nobody's solution (inside the box). The statement says how
/// many of the other positions are somebody's.
fn top_ordinal_is_nobodys_solution(pass: &PassSeen, t: &mut Tally) -> String {
    let g = pass.game;
    let (mut lower, mut lower_witnessed) = (0u64, 0u64);
    for r in 0..g.table.ranker().len() as usize {
        if g.table.ordinal_rank(r as u64) == g.n {
            t.record(!pass.is_solution[r], || g.at(r as u64));
        } else {
            lower += 1;
            lower_witnessed += pass.is_solution[r] as u64;
        }
    }
    format!(
        "positions of ordinal n: none is a solution of a position of the box ({lower_witnessed} of the {lower} others are)"
    )
}

/// Fact 2.9 (iii): ord P = 1 ⇔ Sol P = {(0)}.
fn ordinal_one_is_eating_everything(p: &PositionSeen, t: &mut Tally) {
    let only_empty = p.sol == [0];
    t.record((p.ord == 1) == only_empty, || p.game.at(p.r));
}

/// Fact 2.9 (iv): ord P = i > 1 ⇔ every solution has ordinal i-1 (≥ 1).
fn solutions_share_the_ordinal_below(p: &PositionSeen, t: &mut Tally) {
    let ord = |q| p.game.table.ordinal_rank(q);
    let first = ord(p.sol[0]);
    let common = p.sol.iter().all(|&q| ord(q) == first) && first >= 1;
    t.record(
        (p.ord > 1) == common && (!common || p.ord == first + 1),
        || p.game.at(p.r),
    );
}

/// Fact 2.10, Res form: α_{ord P} = max { α_i : Res^i P ≠ ∅, 1 ≤ i ≤ n } (the paper's text stops
/// at i = n-1, which would make ordinal n impossible; Res^n P holds the options of ordinal
/// n-1, which Fact 2.10 counts) and Res^{ord P} P = Sol P.
fn res_form(p: &PositionSeen, t: &mut Tally) {
    let g = p.game;
    let mut nonempty = 0u64;
    for &(_, oq) in p.options {
        if oq < g.n {
            nonempty |= 1 << (oq + 1);
        }
    }
    let res_best = (1..=g.n)
        .filter(|&i| nonempty >> i & 1 == 1)
        .max_by(|&k, &l| g.alpha(k).cmp(g.alpha(l)));
    let mut res_o: Vec<u64> = p
        .options
        .iter()
        .filter(|&&(_, oq)| oq + 1 == p.ord)
        .map(|&(q, _)| q)
        .collect();
    res_o.sort_unstable();
    res_o.dedup();
    let mut sol_sorted = p.sol.to_vec();
    sol_sorted.sort_unstable();
    t.record(res_best == Some(p.ord) && res_o == sol_sorted, || g.at(p.r));
}

/// Every claim of [`ORDINAL_CLAIMS`] on `table`.
pub fn ordinal_claims(table: &OrdTable, rule: &Rule) -> Vec<Claim> {
    let all: Vec<&OrdinalClaim> = ORDINAL_CLAIMS.iter().collect();
    check_ordinals(table, rule, &all)
}

/// `claims` on `table`, in one pass over the box in rank order. The claims share the pass's
/// time.
pub fn check_ordinals(table: &OrdTable, rule: &Rule, claims: &[&OrdinalClaim]) -> Vec<Claim> {
    let start = Instant::now();
    let game = Game {
        table,
        rule,
        n: rule.players() as u8,
    };
    let ranker = table.ranker();
    let total = ranker.len() as usize;
    let mut tallies = vec![Tally::new(); claims.len()];
    let mut rows = vec![0u32; ranker.shape.rows];
    let mut longest = vec![0u8; total];
    let mut is_solution = vec![false; total];
    let mut options: Vec<(u64, u8)> = Vec::new();
    let mut sol: Vec<u64> = Vec::new();
    let mut moves = 0u64;
    for r in 1..total {
        ranker.advance(&mut rows);
        options.clear();
        ranker.for_each_option(&rows, r as u64, |q| {
            options.push((q, table.ordinal_rank(q)))
        });
        moves += options.len() as u64;
        let best = (options.iter().map(|&(_, oq)| game.score(oq)))
            .max_by(|&k, &l| game.alpha(k).cmp(game.alpha(l)))
            .expect("P ≠ (0)");
        let scores_best = |oq: u8| game.alpha(game.score(oq)) == game.alpha(best);
        sol.clear();
        if options.iter().any(|&(q, oq)| q == 0 && scores_best(oq)) {
            sol.push(0);
        } else {
            let best_moves = options.iter().filter(|&&(_, oq)| scores_best(oq));
            sol.extend(best_moves.map(|&(q, _)| q));
        }
        for &q in &sol {
            is_solution[q as usize] = true;
        }
        let chain = 1 + sol.iter().map(|&q| longest[q as usize]).max().unwrap_or(0) as u32;
        longest[r] = chain.min(255) as u8;
        let seen = PositionSeen {
            game: &game,
            r: r as u64,
            ord: table.ordinal_rank(r as u64),
            options: &options,
            best,
            sol: &sol,
            chain,
        };
        for (c, t) in claims.iter().zip(&mut tallies) {
            (c.position)(&seen, t);
        }
    }
    let pass = PassSeen {
        game: &game,
        is_solution: &is_solution,
        moves,
        longest: longest.iter().copied().max().unwrap_or(0),
    };
    let range = format!("box {}, rule ({})", ranker.shape, rule.normalised());
    claims
        .iter()
        .zip(tallies)
        .map(|(c, mut t)| {
            let statement = (c.finish)(&pass, &mut t);
            t.claim(ClaimKind::Theorem, c.name, statement, &range)
                .took(start)
        })
        .collect()
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
            // 7b³/4 − 5/2 = (7b³ − 10)·25 hundredths, written exactly.
            let hundredths = |b: u8| (7 * (b as i64).pow(3) - 10) * 25;
            let values: Vec<String> = f
                .perm
                .iter()
                .map(|&b| format!("{}e-2", hundredths(b)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::multiplayer::ordinal::Ords;
    use crate::chomp::ChompBox;

    fn table(rule: &Rule, rows: usize, cols: u32) -> OrdTable {
        OrdTable::compute(ChompBox { rows, cols }, rule).unwrap()
    }

    #[test]
    fn each_ordinal_claim_checked_alone_is_its_row_of_the_whole_check() {
        for (rule, rows, cols) in [("0,2,1", 5, 6), ("3,1,4,0,2", 3, 8)] {
            let rule = Rule::parse(rule).unwrap();
            let t = table(&rule, rows, cols);
            let all = ordinal_claims(&t, &rule);
            assert_eq!(all.len(), ORDINAL_CLAIMS.len());
            let row = |c: &Claim| format!("{}|{}|{}|{}", c.name, c.statement, c.range, c.checked);
            for (entry, whole) in ORDINAL_CLAIMS.iter().zip(&all) {
                let alone = &check_ordinals(&t, &rule, &[entry])[0];
                assert!(whole.pass, "{}: {:?}", whole.name, whole.counterexample);
                assert_eq!(row(alone), row(whole));
                assert_eq!((&alone.name, alone.pass), (&entry.name.to_string(), true));
            }
        }
    }

    #[test]
    fn a_wrong_ordinal_fails_the_claims_that_read_it() {
        let rule = Rule::parse("0,1,2").unwrap();
        let mut t = table(&rule, 4, 4);
        // A position of ordinal 2 given ordinal 3: the value claim sees player 1's score change.
        let mut ords = t.to_bytes();
        let r = ords.iter().position(|&o| o == 2).unwrap();
        ords[r] = 3;
        t.ords = Ords::Bytes(ords);
        let claims = ordinal_claims(&t, &rule);
        let value = &claims[0];
        assert_eq!(value.name, "Fact 2.10 (value)");
        assert!(!value.pass);
        let at = t.ranker().unrank(r as u64).to_string();
        assert!(
            value.counterexample.as_deref().unwrap().starts_with(&at),
            "{:?} names {at}",
            value.counterexample
        );
        assert!(crate::claim::verdict(&claims).is_err());
    }
}
