//! Rule isomorphism classes [Thm 3.1]: f ~ g iff ord_f = ord_g on every position of a box.
//! Rules are kept in groups whose tables agree so far: a group reads its options' ordinals once
//! and each rule only makes the Fact 2.10 choice; a group splits where its rules first
//! disagree, so the work is (classes) × (moves) + (rules) × (positions).
//!
//! Tests: this file's unit tests.

use super::rule::{Choice, Rule};
use crate::chomp::index::Ranker;
use std::collections::BTreeMap;

/// One class: its rules (normalised, sorted) and their common ordinal table (by rank).
#[derive(Debug, Clone)]
pub struct RuleClass {
    /// The normalised rules of the class.
    pub members: Vec<Rule>,
    /// The ordinals they share, in rank order of the box.
    pub table: Vec<u8>,
}

/// Most players `classes` handles (8! = 40320 rules).
pub const MAX_CLASS_PLAYERS: usize = 8;

/// Most positions a box for `classes` may have (its tables are a byte a position a class).
pub const MAX_CLASS_POSITIONS: u64 = 1 << 24;

/// Refused unless 2 ≤ `players` ≤ [`MAX_CLASS_PLAYERS`].
pub fn check_players(players: u64) -> crate::Result<()> {
    if !(2..=MAX_CLASS_PLAYERS as u64).contains(&players) {
        return Err(crate::Error::bad_input(
            crate::Input::Players,
            players,
            format!("between 2 and {MAX_CLASS_PLAYERS}"),
        ));
    }
    Ok(())
}

/// The ranker of a box for `classes`, refused when the box has more than
/// [`MAX_CLASS_POSITIONS`] positions.
pub fn classes_ranker(shape: crate::chomp::diagram::ChompBox) -> crate::Result<Ranker> {
    let ranker = Ranker::new(shape)?;
    if ranker.len() > MAX_CLASS_POSITIONS {
        return Err(crate::Error::too_large(
            format!("the {shape} box"),
            "it has more than 2^24 positions; choose a smaller box for classes",
        ));
    }
    Ok(ranker)
}

/// Every permutation of 0..n in lexicographic order (each prefix extended by the values it
/// lacks, in increasing order).
pub fn all_normalised_rules(n: usize) -> Vec<Rule> {
    let mut perms: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..n {
        perms = (perms.into_iter())
            .flat_map(|p| {
                let lacking = (0..n as u8).filter(|v| !p.contains(v)).collect::<Vec<u8>>();
                lacking.into_iter().map(move |v| [&p[..], &[v]].concat())
            })
            .collect();
    }
    perms.into_iter().map(Rule::from_perm).collect()
}

/// Group `rules` (all with the same number of players) into classes by their ordinal tables on
/// the box of `ranker`. Classes are sorted by their first member; members keep `rules`' order.
/// Stops with [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled,
/// within about 2^20 option reads (a few milliseconds) however many groups there are.
pub fn rule_classes(ranker: &Ranker, rules: &[Rule]) -> crate::Result<Vec<RuleClass>> {
    struct Group {
        members: Vec<usize>,
        table: Vec<u8>,
    }
    let total = ranker.len() as usize;
    let choices: Vec<Choice> = rules.iter().map(Choice::new).collect();
    let mut groups = vec![Group {
        members: (0..rules.len()).collect(),
        table: vec![0u8; total],
    }];
    let mut rows = vec![0u32; ranker.shape.rows];
    let mut options: Vec<u64> = Vec::new();
    let mut picks: Vec<u8> = Vec::new();
    let phase = crate::progress::phase("positions", Some(total as u64));
    crate::cancel::check()?;
    // Option reads since the last look at the token (thousands of groups make a position slow).
    let mut work = 0usize;
    for r in 1..total {
        if work >= 1 << 20 {
            work = 0;
            phase.set(r as u64);
            crate::cancel::check()?;
        }
        ranker.advance(&mut rows);
        options.clear();
        ranker.for_each_option(&rows, r as u64, |q| options.push(q));
        let existing = groups.len();
        work += existing * (options.len() + 1);
        for g in 0..existing {
            let mask = options
                .iter()
                .fold(0u64, |m, &q| m | 1u64 << groups[g].table[q as usize]);
            picks.clear();
            picks.extend(groups[g].members.iter().map(|&i| choices[i].choose(mask)));
            let first = picks[0];
            groups[g].table[r] = first;
            if picks.iter().all(|&o| o == first) {
                continue;
            }
            // The group's rules part ways at this position: one new group per other ordinal.
            let mut parts: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
            for (&i, &o) in groups[g].members.iter().zip(&picks) {
                parts.entry(o).or_default().push(i);
            }
            for (o, part) in parts {
                if o == first {
                    groups[g].members = part;
                } else {
                    let mut table = groups[g].table.clone();
                    table[r] = o;
                    groups.push(Group {
                        members: part,
                        table,
                    });
                }
            }
        }
    }
    let mut classes: Vec<RuleClass> = groups
        .into_iter()
        .map(|g| {
            let mut m = g.members;
            m.sort_unstable();
            RuleClass {
                members: m.iter().map(|&i| rules[i].clone()).collect(),
                table: g.table,
            }
        })
        .collect();
    classes.sort_by(|a, b| a.members[0].perm.cmp(&b.members[0].perm));
    Ok(classes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::multiplayer::ordinal::ordinals_in_rank_order;

    #[test]
    fn classes_match_tables_computed_one_rule_at_a_time() {
        let ranker = Ranker::new(ChompBox { rows: 4, cols: 4 }).unwrap();
        for n in [2, 3, 4] {
            let rules = all_normalised_rules(n);
            let classes = rule_classes(&ranker, &rules).unwrap();
            let mut seen = 0;
            for (ci, class) in classes.iter().enumerate() {
                for rule in &class.members {
                    let t = ordinals_in_rank_order(&ranker, &Choice::new(rule)).unwrap();
                    assert_eq!(t, class.table, "{rule} in its class");
                    for (cj, other) in classes.iter().enumerate() {
                        assert_eq!(cj == ci, t == other.table, "classes have distinct tables");
                    }
                    seen += 1;
                }
            }
            assert_eq!(seen, rules.len());
        }
    }
}
