//! `chompute gp N`: two-heap Nim with a pass, the table G_P(x,y) [Def 12].
//!
//! Tests: the command as users run it in tests/faults/, tests/games/.

use super::out::{print_report, Report, Stdout};
use super::verdict;
use crate::cli::GpArgs;
use chompute::claim::Claim;
use chompute::pass::gp::{check, GpTable};
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
    #[serde(skip)]
    table: &'a GpTable,
    #[serde(skip)]
    seconds: (f64, f64),
}

impl Report for GpReport<'_> {
    /// The table, or with `--check` a summary line and the claims.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let (table, n) = (self.table, self.table.side());
        if let Some(claims) = self.checks {
            let (computed, checked) = self.seconds;
            writeln!(
                out,
                "G_P for 0 <= x,y < {n}: {} values stored as u{} ({} bytes), largest {}; computed in {computed:.2} s, checked in {checked:.2} s",
                n * n,
                self.value_bits,
                self.table_bytes,
                self.max_value
            )?;
            return chompute::claim::write_text(out, claims);
        }
        let w = self.max_value.max(n as u32 - 1).to_string().len();
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
        Ok(())
    }

    /// The table with a header `x,0,1,…,N-1`, each row starting with its x; with `--check`,
    /// the claims.
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        if let Some(claims) = self.checks {
            return chompute::claim::write_csv(out, claims);
        }
        let (table, n) = (self.table, self.table.side());
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
        Ok(())
    }
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

pub fn run(args: &GpArgs) -> anyhow::Result<()> {
    let start = std::time::Instant::now();
    let table = GpTable::compute(args.n)?;
    let computed = start.elapsed().as_secs_f64();
    let claims = args.check.then(|| check(&table));
    let checked = start.elapsed().as_secs_f64() - computed;
    let report = GpReport {
        n: args.n,
        value_bits: table.value_bits(),
        table_bytes: table.table_bytes(),
        max_value: table.max_value(),
        rows: (!args.check).then_some(Rows(&table)),
        checks: claims.as_deref(),
        table: &table,
        seconds: (computed, checked),
    };
    print_report(&report, args.format.get())?;
    match &claims {
        Some(c) => verdict(c),
        None => Ok(()),
    }
}
