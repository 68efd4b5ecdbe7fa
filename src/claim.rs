//! Claims checked by computation, and one report of them in text, JSON and CSV.
//!
//! Every check chompute makes — the chocolate paper's claims (`theorems`), the lemmas of
//! G_P, the theorems on CB(F), the Chomp facts, the octahedron correspondence, the automaton
//! against the P-test — is a list of [`Claim`]s: a stable name, the statement, the range
//! checked, how many cases, whether it passed, the first counterexample and the time taken.
//! [`write_text`], [`write_csv`] and the `Serialize` impl (JSON, with the count as a string
//! since it can pass 2^53) print any list the same way, and [`verdict`] turns a failed
//! theorem into [`Error::CheckFailed`].
//!
//! Tests: this file's unit tests; tests/engine/foundation.rs, tests/engine/theorems.rs,
//! tests/games/pass.rs, tests/pictures/window.rs.

use crate::{Error, Result};
use serde::Serialize;
use std::io::Write;
use std::time::Instant;

/// Whether a claim's failure is a disagreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimKind {
    /// A statement of a paper: failing it is a disagreement (exit status 1 in the binary).
    Theorem,
    /// An observation about the input that a theorem then relates (is F monotone? does the
    /// nim-sum formula hold for this F?): it may fail without anything being wrong.
    Property,
}

impl ClaimKind {
    /// "theorem" or "property".
    pub fn name(self) -> &'static str {
        match self {
            ClaimKind::Theorem => "theorem",
            ClaimKind::Property => "property",
        }
    }
}

/// One claim checked over a finite range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// Stable identifier, e.g. "thm-3.4-corners-and-centre" or "Lemma 6".
    pub name: String,
    /// The claim in words.
    pub statement: String,
    /// Theorem (decides) or property (observes).
    pub kind: ClaimKind,
    /// The range checked, e.g. "0 <= x,y < 13".
    pub range: String,
    /// Cases (cells, positions, values, moves) checked; a JSON string.
    #[serde(serialize_with = "crate::json::count")]
    pub checked: u128,
    /// True when nothing disagreed.
    pub pass: bool,
    /// The first counterexample, if any.
    pub counterexample: Option<String>,
    /// Wall-clock seconds the check took (claims checked in one pass share its time).
    pub seconds: f64,
}

impl Claim {
    /// A theorem claim; it passes when there is no counterexample. Its time is 0 until
    /// [`Claim::took`] sets it.
    pub fn theorem(
        name: impl Into<String>,
        statement: impl Into<String>,
        range: impl Into<String>,
        checked: u128,
        counterexample: Option<String>,
    ) -> Claim {
        Claim {
            name: name.into(),
            statement: statement.into(),
            kind: ClaimKind::Theorem,
            range: range.into(),
            checked,
            pass: counterexample.is_none(),
            counterexample,
            seconds: 0.0,
        }
    }

    /// The same claim of another kind (a [`ClaimKind::Property`]: an observation).
    pub fn of_kind(mut self, kind: ClaimKind) -> Claim {
        self.kind = kind;
        self
    }

    /// The claim with its time set to the seconds since `start`.
    pub fn took(mut self, start: Instant) -> Claim {
        self.seconds = start.elapsed().as_secs_f64();
        self
    }

    /// "pass" or "fail".
    pub fn result(&self) -> &'static str {
        if self.pass {
            "pass"
        } else {
            "fail"
        }
    }

    /// Whether this claim failed and is a theorem (a disagreement).
    pub fn is_disagreement(&self) -> bool {
        !self.pass && self.kind == ClaimKind::Theorem
    }
}

/// Cases checked and the first that failed: what a check accumulates before it is a
/// [`Claim`].
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Cases checked so far.
    pub checked: u128,
    failures: u128,
    first: Option<String>,
}

impl Tally {
    /// Nothing checked yet.
    pub fn new() -> Tally {
        Tally::default()
    }

    /// One case: `ok`, or a failure described by `what` (called only for the first).
    pub fn record(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            self.fail(what());
        }
    }

    /// A failure, described by `why` (kept if it is the first). The case is not counted as
    /// checked: checks that stop at the first failure count what they got through.
    pub fn fail(&mut self, why: String) {
        self.failures += 1;
        self.first.get_or_insert(why);
    }

    /// Whether anything failed.
    pub fn failed(&self) -> bool {
        self.failures > 0
    }

    /// The claim this tally decides. The counterexample is the first failure, with the number
    /// of failures when there was more than one.
    pub fn claim(
        self,
        kind: ClaimKind,
        name: impl Into<String>,
        statement: impl Into<String>,
        range: impl Into<String>,
    ) -> Claim {
        let counterexample = self.first.map(|f| match self.failures {
            1 => f,
            k => format!("{f} ({k} failures in all)"),
        });
        Claim::theorem(name, statement, range, self.checked, counterexample).of_kind(kind)
    }
}

/// Deterministic pseudo-random u64s (Marsaglia's xorshift64), for the sampled cases of a
/// check: the same seed gives the same cases, so a failure can be reproduced.
#[derive(Debug, Clone)]
pub struct Xorshift(u64);

impl Xorshift {
    /// A generator from a seed (0 is replaced, since xorshift would stay at 0).
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next value.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in 0..n (n ≥ 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A value in 1..=hi (hi ≥ 1).
    pub fn upto(&mut self, hi: u64) -> u64 {
        1 + self.below(hi)
    }
}

/// `Ok` when no theorem failed; else [`Error::CheckFailed`] naming each failed theorem and
/// its first counterexample.
pub fn verdict(claims: &[Claim]) -> Result<()> {
    let failed: Vec<String> = claims
        .iter()
        .filter(|c| c.is_disagreement())
        .map(|c| match &c.counterexample {
            Some(ce) => format!("{} ({ce})", c.name),
            None => c.name.clone(),
        })
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::CheckFailed(format!(
            "claims that fail: {}",
            failed.join("; ")
        )))
    }
}

/// The text table of claims, written row by row (for checks that report each claim as it is
/// made): name, kind, result, cases checked, seconds, then the range and the statement, and
/// under a failed claim its first counterexample.
#[derive(Debug, Clone, Copy)]
pub struct ClaimTable {
    name_width: usize,
}

impl ClaimTable {
    /// A table whose name column is at least `name_width` characters wide.
    pub fn new(name_width: usize) -> ClaimTable {
        ClaimTable {
            name_width: name_width.max("claim".len()),
        }
    }

    /// A table sized to the longest name of `claims`.
    pub fn for_claims(claims: &[Claim]) -> ClaimTable {
        ClaimTable::new(
            claims
                .iter()
                .map(|c| c.name.chars().count())
                .max()
                .unwrap_or(0),
        )
    }

    /// The header line.
    pub fn header(&self, out: &mut impl Write) -> std::io::Result<()> {
        let w = self.name_width;
        writeln!(
            out,
            "{:<w$}  {:<8}  {:<6}  {:>14}  {:>9}  range: statement",
            "claim", "kind", "result", "checked", "seconds"
        )
    }

    /// One claim's line (and its counterexample's).
    pub fn row(&self, out: &mut impl Write, c: &Claim) -> std::io::Result<()> {
        let w = self.name_width;
        writeln!(
            out,
            "{:<w$}  {:<8}  {:<6}  {:>14}  {:>9.3}  {}: {}",
            c.name,
            c.kind.name(),
            c.result(),
            c.checked,
            c.seconds,
            c.range,
            c.statement
        )?;
        if let Some(ce) = &c.counterexample {
            writeln!(out, "{:<w$}  first counterexample: {ce}", "")?;
        }
        Ok(())
    }
}

/// Every claim as a text table (see [`ClaimTable`]).
pub fn write_text(out: &mut impl Write, claims: &[Claim]) -> std::io::Result<()> {
    let table = ClaimTable::for_claims(claims);
    table.header(out)?;
    for c in claims {
        table.row(out, c)?;
    }
    Ok(())
}

/// The CSV header of [`write_csv_row`].
pub const CSV_HEADER: &str = "name,kind,result,checked,seconds,range,statement,counterexample";

/// One claim as a CSV row (RFC 4180 quoting).
pub fn write_csv_row(out: &mut impl Write, c: &Claim) -> std::io::Result<()> {
    writeln!(
        out,
        "{},{},{},{},{:.6},{},{},{}",
        csv_field(&c.name),
        c.kind.name(),
        c.result(),
        c.checked,
        c.seconds,
        csv_field(&c.range),
        csv_field(&c.statement),
        csv_field(c.counterexample.as_deref().unwrap_or(""))
    )
}

/// Every claim as CSV, with a header line.
pub fn write_csv(out: &mut impl Write, claims: &[Claim]) -> std::io::Result<()> {
    writeln!(out, "{CSV_HEADER}")?;
    for c in claims {
        write_csv_row(out, c)?;
    }
    Ok(())
}

/// A CSV field: quoted when it holds a comma, a quote or a line break, quotes doubled.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Claim> {
        let mut t = Tally::new();
        for k in 0..10u64 {
            t.record(k % 4 != 3, || format!("k = {k}"));
        }
        vec![
            Claim::theorem("Lemma 6", "G_P = 0 iff …", "0 <= x,y < 13", 169, None),
            t.claim(
                ClaimKind::Theorem,
                "odd, \"quoted\"",
                "k % 4 != 3",
                "k < 10",
            ),
            Claim::theorem(
                "NS property",
                "F is NS",
                "x <= 4",
                25,
                Some("F(1,2)".into()),
            )
            .of_kind(ClaimKind::Property),
        ]
    }

    #[test]
    fn a_tally_counts_cases_and_keeps_the_first_failure() {
        let c = &sample()[1];
        assert_eq!(c.checked, 10);
        assert!(!c.pass);
        assert_eq!(
            c.counterexample.as_deref(),
            Some("k = 3 (2 failures in all)")
        );
    }

    #[test]
    fn only_failed_theorems_decide() {
        let claims = sample();
        match verdict(&claims) {
            Err(Error::CheckFailed(why)) => {
                assert!(why.contains("odd"), "{why}");
                assert!(!why.contains("NS property"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        assert!(verdict(&claims[2..]).is_ok());
        assert!(verdict(&claims[..1]).is_ok());
    }

    #[test]
    fn the_three_forms_agree() {
        let claims = sample();
        let mut text = Vec::new();
        write_text(&mut text, &claims).unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("claim"), "{text}");
        assert!(lines[1].starts_with("Lemma 6") && lines[1].contains("  pass  "));
        assert!(lines[2].contains("  fail  ") && lines[3].contains("first counterexample: k = 3"));
        assert!(lines[4].starts_with("NS property") && lines[4].contains("property"));

        let mut csv = Vec::new();
        write_csv(&mut csv, &claims).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows[0], CSV_HEADER);
        assert!(
            rows[2].starts_with("\"odd, \"\"quoted\"\"\",theorem,fail,10,"),
            "{csv}"
        );

        let json = serde_json::to_value(&claims).unwrap();
        assert_eq!(json[0]["pass"], true);
        assert_eq!(json[1]["pass"], false);
        assert_eq!(json[0]["checked"], "169");
        assert_eq!(json[2]["kind"], "property");
        assert!(json[0]["counterexample"].is_null());
        let big = Claim::theorem("big", "", "", u128::MAX, None);
        assert_eq!(
            serde_json::to_value(&big).unwrap()["checked"],
            u128::MAX.to_string()
        );
    }
}
