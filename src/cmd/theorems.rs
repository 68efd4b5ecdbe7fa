//! `chompute theorems --max-m M [--claim NAME]…`: check every claim of the chocolate paper, or
//! the ones named, and print a table.
//!
//! Tests: the command as users run it in tests/engine/theorems.rs, tests/faults/backend.rs,
//! tests/faults/pipes.rs, tests/pictures/cli_outputs.rs.

use super::out::{print_report, Report, Stdout};
use super::verdict;
use crate::cli::Format;
use crate::cli::TheoremsArgs;
use anyhow::anyhow;
use chompute::chocolate::theorems::{check_claims, select};
use chompute::claim::{write_csv_row, Claim, ClaimTable, CSV_HEADER};
use serde::Serialize;
use std::io::Write;

/// Largest M accepted (the per-cell claims cost about M³/3 cell checks each).
pub const MAX_M: u64 = 1 << 13;

/// Width of the claim column: the longest stable claim name.
const NAME_WIDTH: usize = 26;

/// What the claims came to. Their rows are printed as each claim is made (text and CSV), so
/// the text adds only the tally, and CSV nothing.
#[derive(Serialize)]
struct TheoremsReport<'a> {
    max_m: u64,
    all_pass: bool,
    claims: &'a [Claim],
}

impl Report for TheoremsReport<'_> {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let total: f64 = self.claims.iter().map(|r| r.seconds).sum();
        writeln!(
            out,
            "{} of {} claims hold for every m ≤ {} ({total:.2} s)",
            self.claims.iter().filter(|r| r.pass).count(),
            self.claims.len(),
            self.max_m
        )
    }

    fn csv(&self, _: &mut Stdout) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn run(args: &TheoremsArgs) -> anyhow::Result<()> {
    let max_m = args.max_m;
    if max_m > MAX_M {
        return Err(anyhow!("--max-m is at most {MAX_M} (got {max_m}); the per-cell claims cost about M³/3 checks each"));
    }
    let claims = select(&args.claims)?;
    let (json, csv) = (
        args.format.get() == Format::Json,
        args.format.get() == Format::Csv,
    );
    let table = ClaimTable::new(NAME_WIDTH);
    let mut out = super::out::stdout();
    if csv {
        writeln!(out, "{CSV_HEADER}")?;
    } else if !json {
        table.header(&mut out)?;
    }
    // Each claim is printed as it is made; on a terminal, a spinner says how many claims are
    // done while the next one runs.
    let pb = crate::cmd::bars::spinner("checking the first claim");
    let mut done = 0;
    let mut failure = None;
    let results = check_claims(max_m, &claims, |c| {
        done += 1;
        pb.set_message(format!(
            "{done} claim{} checked (last: {}, {:.2} s); checking the next",
            if done == 1 { "" } else { "s" },
            c.name,
            c.seconds
        ));
        let printed = pb.suspend(|| {
            if csv {
                write_csv_row(&mut out, c)
            } else if json {
                Ok(())
            } else {
                table.row(&mut out, c)
            }
            .and_then(|()| out.flush())
        });
        if let Err(e) = printed {
            failure.get_or_insert(e);
        }
    })?;
    pb.finish_and_clear();
    if let Some(e) = failure {
        return Err(e.into());
    }
    drop(out);
    let report = TheoremsReport {
        max_m,
        all_pass: results.iter().all(|r| r.pass),
        claims: &results,
    };
    print_report(&report, args.format.get())?;
    verdict(&results)
}
