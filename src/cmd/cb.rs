//! `chompute cb --f EXPR --bound X,Z`: Grundy numbers of the 3-D chocolate bar CB(F,x,y,z),
//! with `--pass` the game with one pass, with `--check` the paper's theorems on the box, with
//! `--table1` the paper's Table 1.
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/games/pass.rs, tests/pictures/cli_outputs.rs.

use super::out::{print_report, Report, Stdout};
use super::verdict;
use crate::cli::CbArgs;
use anyhow::anyhow;
use chompute::claim::Claim;
use chompute::pass::cb::{
    check_corollary1, check_pass_game, check_theorem2, plan_bar, table1, Bar,
};
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct CbReport<'a> {
    f: &'a str,
    x_max: u64,
    z_max: u64,
    pass: bool,
    positions: u64,
    p_positions: u64,
    max_grundy: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    p_positions_with_pass: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_grundy_with_pass: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<&'a [Claim]>,
    #[serde(skip)]
    bar: &'a Bar,
}

#[derive(Serialize)]
struct Table1Report<'a> {
    f: &'a str,
    z_max: u64,
    table: &'a [Vec<Option<u32>>],
    checks: &'a [Claim],
}

impl Report for Table1Report<'_> {
    /// Table 1: rows y, columns z, then the claim.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let z_max = self.z_max;
        writeln!(
            out,
            "Table 1: G(CB_2(h,y,z)) with h(z) = {}; rows y, columns z",
            self.f
        )?;
        let w = (2 * z_max + 1).to_string().len().max(2);
        write!(out, "{:>3}", "y\\z")?;
        for z in 0..=z_max {
            write!(out, " {z:>w$}")?;
        }
        writeln!(out)?;
        for (y, row) in self.table.iter().enumerate() {
            let mut line = format!("{y:>3}");
            for g in row {
                match g {
                    Some(g) => line.push_str(&format!(" {g:>w$}")),
                    None => line.push_str(&format!(" {:>w$}", "")),
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        chompute::claim::write_text(out, self.checks)
    }
}

impl Report for CbReport<'_> {
    /// The bar's size, its P-positions and largest Grundy numbers, then the claims.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(
            out,
            "CB(F) with F(x,z) = {} on {}: {} positions (x,y,z)",
            self.f,
            self.bar.f.range(),
            self.positions
        )?;
        writeln!(
            out,
            "no pass: {} P-positions, largest Grundy number {}",
            self.p_positions, self.max_grundy
        )?;
        if let (Some(p), Some(m)) = (self.p_positions_with_pass, self.max_grundy_with_pass) {
            writeln!(
                out,
                "pass available (p = 1): {p} P-positions, largest Grundy number {m}"
            )?;
        }
        match self.checks {
            Some(c) => chompute::claim::write_text(out, c),
            None => Ok(()),
        }
    }

    /// Every position and its Grundy number (with the pass: both values of p); with
    /// `--check`, the claims.
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        if let Some(c) = self.checks {
            return chompute::claim::write_csv(out, c);
        }
        let bar = self.bar;
        writeln!(out, "{}", if self.pass { "x,y,z,p,g" } else { "x,y,z,g" })?;
        for (x, y, z) in bar.positions() {
            if self.pass {
                writeln!(out, "{x},{y},{z},0,{}", bar.grundy(x, y, z))?;
                let g = bar.grundy_pass(x, y, z).unwrap_or_default();
                writeln!(out, "{x},{y},{z},1,{g}")?;
            } else {
                writeln!(out, "{x},{y},{z},{}", bar.grundy(x, y, z))?;
            }
        }
        Ok(())
    }
}

pub fn run(args: &CbArgs) -> anyhow::Result<()> {
    let (x_max, z_max) = match (args.bound, args.table1) {
        (Some((_, z)), true) => (0, z),
        (None, true) => (0, 15),
        (Some(b), false) => b,
        (None, false) => {
            return Err(anyhow!(
                "--bound X,Z is required (positions with x <= X, z <= Z)"
            ))
        }
    };
    let (expr, f) = plan_bar(&args.f, x_max, z_max, args.pass)?;
    if args.table1 && expr.uses_x() {
        return Err(anyhow!("--table1 needs F = h(z), but '{}' reads x", args.f));
    }
    let pb = crate::cmd::bars::spinner("computing the Grundy numbers of CB(F)");
    let bar = Bar::compute(f, args.pass)?;
    pb.finish_and_clear();
    if args.table1 {
        let table = table1(&bar);
        let claims = vec![check_corollary1(&table, z_max)];
        let report = Table1Report {
            f: &args.f,
            z_max,
            table: &table,
            checks: &claims,
        };
        print_report(&report, args.format.get())?;
        return verdict(&claims);
    }

    let pb = args
        .check
        .then(|| crate::cmd::bars::spinner("checking the claims on the box"));
    let claims = if !args.check {
        None
    } else if args.pass {
        Some(check_pass_game(&bar)?)
    } else {
        Some(check_theorem2(&bar))
    };
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let summary = bar.summary();
    let report = CbReport {
        f: &args.f,
        x_max,
        z_max,
        pass: args.pass,
        positions: summary.positions,
        p_positions: summary.p_positions,
        max_grundy: summary.max_grundy,
        p_positions_with_pass: summary.p_positions_with_pass,
        max_grundy_with_pass: summary.max_grundy_with_pass,
        checks: claims.as_deref(),
        bar: &bar,
    };
    print_report(&report, args.format.get())?;
    match &claims {
        Some(c) => verdict(c),
        None => Ok(()),
    }
}
