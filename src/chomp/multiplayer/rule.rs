//! Multiplayer rules f = (α_1 … α_n) (docs/mathematics.md §5): the player who takes the last bite
//! scores α_1, the one before α_2, and so on. Only the order of the α's matters [Thm 3.3], so a
//! rule is normalised to the permutation of 0..n-1 with the same order [Fact 3.4]; the numbers
//! given are compared exactly as decimals.
//!
//! Tests: this file's unit tests.

use crate::chomp::index::Ranker;
use std::cmp::Ordering;
use std::fmt;

/// Most players a rule may have: ordinals 0..=n are bits of a u64 mask.
pub const MAX_PLAYERS: usize = 63;

/// An exact decimal: sign × 0.d_1 d_2 … × 10^exp with d_1 ≠ 0 and no trailing zero digit.
/// Zero has no digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exp: i64,
}

impl Decimal {
    /// Parse `[+-]digits[.digits][e[+-]digits]`; at least one digit in the mantissa, at most
    /// 9 in the exponent.
    pub fn parse(s: &str) -> Option<Decimal> {
        let t = s.trim();
        let (negative, body) = match t.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (mantissa, exponent) = body.split_once(['e', 'E']).unwrap_or((body, "0"));
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !all_digits {
            return None;
        }
        if exponent.trim_start_matches(['+', '-']).len() > 9 {
            return None;
        }
        // value = 0.(int frac) × 10^(len(int) + exponent)
        let mut exp = exponent.parse::<i64>().ok()? + int.len() as i64;
        let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        let lead = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..lead);
        exp -= lead as i64;
        while digits.last() == Some(&0) {
            digits.pop();
        }
        let zero = digits.is_empty();
        Some(Decimal {
            negative: negative && !zero,
            digits,
            exp: if zero { 0 } else { exp },
        })
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        // Zero (no digits) is the smallest magnitude; two others compare by the exponent, then
        // by the digits (no trailing zeros, so a proper prefix is the smaller number).
        fn magnitude(d: &Decimal) -> (bool, i64, &[u8]) {
            (!d.digits.is_empty(), d.exp, &d.digits)
        }
        let by_magnitude = magnitude(self).cmp(&magnitude(other));
        let by_magnitude = if self.negative {
            by_magnitude.reverse()
        } else {
            by_magnitude
        };
        other.negative.cmp(&self.negative).then(by_magnitude)
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A rule for n players, kept both as the numbers given and as its normalised permutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The numbers as given (for display).
    pub given: Vec<String>,
    /// The numbers as exact decimals: what [`Choice`] compares.
    pub values: Vec<Decimal>,
    /// β_1 … β_n: the normalised rule, a permutation of 0..n-1 with the order of the α's.
    pub perm: Vec<u8>,
}

impl Rule {
    /// Parse `α_1,α_2,…` (n ≥ 2 distinct decimals) and normalise it.
    pub fn parse(s: &str) -> Result<Rule, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let values = (parts.iter())
            .map(|p| Decimal::parse(p).ok_or_else(|| format!("rule entry '{p}' is not a number")))
            .collect::<Result<Vec<Decimal>, String>>()?;
        let n = values.len();
        if n < 2 {
            return Err(format!("a rule needs at least 2 players (got {n})"));
        }
        if n > MAX_PLAYERS {
            return Err(format!("at most {MAX_PLAYERS} players (got {n})"));
        }
        for i in 0..n {
            if let Some(j) = (i + 1..n).find(|&j| values[i] == values[j]) {
                let (a, b) = (parts[i], parts[j]);
                return Err(format!(
                    "rule entries {} and {} ('{a}' and '{b}') are equal; a rule needs distinct numbers",
                    i + 1,
                    j + 1
                ));
            }
        }
        // Fact 3.4: β_i = #{ j : α_j < α_i }.
        let perm = values
            .iter()
            .map(|v| values.iter().filter(|w| *w < v).count() as u8)
            .collect();
        Ok(Rule {
            given: parts.iter().map(|p| p.to_string()).collect(),
            values,
            perm,
        })
    }

    /// A rule that is already a permutation of 0..n-1.
    pub fn from_perm(perm: Vec<u8>) -> Rule {
        debug_assert!((0..perm.len()).all(|i| perm.contains(&(i as u8))));
        let given: Vec<String> = perm.iter().map(|v| v.to_string()).collect();
        let values = given.iter().map(|g| Decimal::parse(g).expect("an integer"));
        Rule {
            values: values.collect(),
            given,
            perm,
        }
    }

    /// n.
    pub fn players(&self) -> usize {
        self.perm.len()
    }

    /// The normalised form, `0,2,1`.
    pub fn normalised(&self) -> String {
        let perm: Vec<String> = self.perm.iter().map(u8::to_string).collect();
        perm.join(",")
    }

    /// The numbers as given, `5,-1.5,3`.
    pub fn as_given(&self) -> String {
        self.given.join(",")
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.normalised())
    }
}

/// Fact 2.10 as a lookup: from the set of ordinals of a position's options (a bit mask over
/// 0..=n), the position's ordinal.
#[derive(Debug, Clone)]
pub struct Choice {
    n: u8,
    /// Ordinals 1..=n sorted by β descending: the first one in K(P) is ord(P).
    by_preference: Vec<u8>,
    /// Table over every mask of n+1 bits when n ≤ 11.
    table: Vec<u8>,
    /// The bit of the option ordinal that gives the best possible score: once an option with
    /// that ordinal is seen, nothing can beat it.
    pub stop: u64,
}

impl Choice {
    /// Built from the rule's numbers as given (not its normalised form: Theorem 3.3 is
    /// checked by building two choices from different numbers).
    pub fn new(rule: &Rule) -> Choice {
        let n = rule.players() as u8;
        let mut by_preference: Vec<u8> = (1..=n).collect();
        by_preference
            .sort_by(|&k, &l| rule.values[l as usize - 1].cmp(&rule.values[k as usize - 1]));
        let stop = 1u64 << (by_preference[0] - 1);
        let mut c = Choice {
            n,
            by_preference,
            table: Vec::new(),
            stop,
        };
        if n <= 11 {
            c.table = (0..1u64 << (n + 1)).map(|m| c.choose_slow(m)).collect();
        }
        c
    }

    /// K(P) = { o+1 : o in mask, o ≠ n }; ord(P) = the k ∈ K(P) with the largest β_k; 0 when K
    /// is empty.
    pub(crate) fn choose_slow(&self, mask: u64) -> u8 {
        self.by_preference
            .iter()
            .copied()
            .find(|&k| mask >> (k - 1) & 1 == 1)
            .unwrap_or(0)
    }

    /// The ordinal chosen when the options' ordinals are the set bits of `mask` (Fact 2.10).
    #[inline]
    pub fn choose(&self, mask: u64) -> u8 {
        if self.table.is_empty() {
            self.choose_slow(mask)
        } else {
            self.table[mask as usize]
        }
    }

    /// n.
    pub fn players(&self) -> u8 {
        self.n
    }
}

/// The ordinal of the position `rows` (rank `rank`) from the ordinals of its options. Stops
/// scanning options as soon as one gives the best score the rule allows.
#[inline]
pub fn ordinal_at(
    ranker: &Ranker,
    rows: &[u32],
    rank: u64,
    ord_of: impl Fn(u64) -> u8,
    choice: &Choice,
) -> u8 {
    let mut mask = 0u64;
    let stop = choice.stop;
    ranker.for_each_option_until(rows, rank, |q| {
        mask |= 1u64 << ord_of(q);
        mask & stop == 0
    });
    choice.choose(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_compare_exactly() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        assert!(d("-1.5") < d("3"));
        assert!(d("0.1") < d("0.10000000000000000000001"));
        assert_eq!(d("1e2"), d("100.000"));
        assert_eq!(d("-0"), d("0"));
        assert!(d("-2") < d("-1.99999999999999999999"));
        assert!(d(".5") > d("0.49"));
        assert!(d("1e-30") > d("0"));
        assert_eq!(d("+1E+3"), d("1000"));
        assert_eq!(d("1e000000001"), d("10"));
        let bad = [
            "", "-", "abc", "1.2.3", "nan", "inf", "1e", "--1", "0x10", "e5", "1e+-5",
        ];
        for bad in bad
            .into_iter()
            .chain(["1e--5", "1e 5", "1e0000000001", "1e5e1", "."])
        {
            assert!(Decimal::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn rules_normalise_to_permutations() {
        // Refusals and "5,-1.5,3" as "2,0,1": tests/games, bad_input_is_one_line_and_exit_2
        // and ord_reports_position_sol_and_chain.
        assert_eq!(Rule::parse("0,2,1").unwrap().normalised(), "0,2,1");
        assert_eq!(Rule::parse("10, 20").unwrap().normalised(), "0,1");
        assert!(
            Rule::parse("0.3,0.30000000000000001").is_ok(),
            "exact, not f64"
        );
    }

    #[test]
    fn choice_is_argmax_over_k() {
        let rule = Rule::from_perm(vec![0, 2, 1]);
        let c = Choice::new(&rule);
        // Options with ordinals {0, 1}: K = {1, 2}, β_2 = 2 is best.
        assert_eq!(c.choose(0b011), 2);
        // Options with ordinal 3 = n are not counted: K = {1}.
        assert_eq!(c.choose(0b1001), 1);
        assert_eq!(c.choose(0b0101), 3);
        assert_eq!(c.choose(0), 0);
    }
}
