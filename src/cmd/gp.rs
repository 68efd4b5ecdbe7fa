//! `chompute gp N`: two-heap Nim with a pass, the table G_P(x,y) [Def 12].

use super::print_json;
use crate::cli::GpArgs;
use crate::error::CheckFailed;
use crate::pass::gp::{check, GpTable};
use crate::pass::Claim;
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct GpReport<'a> {
    n: u64,
    value_bits: u32,
    table_bytes: u64,
    max_value: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<Rows<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<&'a [Claim]>,
}

/// The table as a JSON array of rows, serialised row by row without a copy.
struct Rows<'a>(&'a GpTable);

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        struct Row<'a>(&'a GpTable, usize);
        impl Serialize for Row<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.row(self.1))
            }
        }
        let mut seq = s.serialize_seq(Some(self.0.side()))?;
        for x in 0..self.0.side() {
            seq.serialize_element(&Row(self.0, x))?;
        }
        seq.end()
    }
}

/// Print claims one per line, with the first counterexample under a failing one.
pub(super) fn print_claims(out: &mut impl Write, claims: &[Claim]) -> std::io::Result<()> {
    let width = claims
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0);
    for c in claims {
        let verdict = match (c.kind, c.holds) {
            ("theorem", true) => "holds",
            ("theorem", false) => "FAILS",
            (_, true) => "yes",
            (_, false) => "no",
        };
        writeln!(
            out,
            "{:<width$}  {verdict:<5}  {}  [{}]",
            c.name, c.statement, c.range
        )?;
        if let Some(ce) = &c.counterexample {
            writeln!(out, "{:<width$}         first counterexample: {ce}", "")?;
        }
    }
    Ok(())
}

/// Exit status 1 if a theorem claim failed.
pub(super) fn theorem_failures(claims: &[Claim]) -> anyhow::Result<()> {
    let failed: Vec<String> = claims
        .iter()
        .filter(|c| c.kind == "theorem" && !c.holds)
        .map(|c| format!("{} ({})", c.name, c.counterexample.as_deref().unwrap_or("")))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CheckFailed(format!("claims fail on the range: {}", failed.join("; "))).into())
    }
}

pub fn run(args: &GpArgs) -> anyhow::Result<()> {
    let start = std::time::Instant::now();
    let table = GpTable::compute(args.n)?;
    let computed = start.elapsed().as_secs_f64();
    let n = table.side();
    let claims = args.check.then(|| check(&table));
    let checked = start.elapsed().as_secs_f64() - computed;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        let rows = (!args.check).then_some(Rows(&table));
        print_json(&GpReport {
            n: args.n,
            value_bits: table.value_bits(),
            table_bytes: table.table_bytes(),
            max_value: table.max_value(),
            rows,
            checks: claims.as_deref(),
        })?;
    } else if let Some(claims) = &claims {
        writeln!(
            out,
            "G_P for 0 <= x,y < {n}: {} values stored as u{} ({} bytes), largest {}; computed in {computed:.2} s, checked in {checked:.2} s",
            n * n,
            table.value_bits(),
            table.table_bytes(),
            table.max_value()
        )?;
        print_claims(&mut out, claims)?;
    } else if args.csv {
        // Header `x,0,1,…,N-1`; then each row starts with its x.
        let mut line = String::from("x");
        for y in 0..n {
            line.push(',');
            line.push_str(&y.to_string());
        }
        writeln!(out, "{line}")?;
        for x in 0..n {
            line.clear();
            line.push_str(&x.to_string());
            for v in table.row(x) {
                line.push(',');
                line.push_str(&v.to_string());
            }
            writeln!(out, "{line}")?;
        }
    } else {
        let w = table.max_value().max(n as u32 - 1).to_string().len();
        let label = (n - 1).to_string().len().max(3);
        write!(out, "{:>label$}", "x\\y")?;
        for y in 0..n {
            write!(out, " {y:>w$}")?;
        }
        writeln!(out)?;
        for x in 0..n {
            write!(out, "{x:>label$}")?;
            for v in table.row(x) {
                write!(out, " {v:>w$}")?;
            }
            writeln!(out)?;
        }
    }
    out.flush()?;
    match &claims {
        Some(c) => theorem_failures(c),
        None => Ok(()),
    }
}
