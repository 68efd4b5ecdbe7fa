//! `chompute cb --f EXPR --bound X,Z`: Grundy numbers of the 3-D chocolate bar CB(F,x,y,z),
//! with `--pass` the game with one pass, with `--check` the paper's theorems on the box, with
//! `--table1` the paper's Table 1.

use super::gp::{print_claims, theorem_failures};
use super::print_json;
use crate::cli::CbArgs;
use crate::pass::cb::{
    check_pass, check_theorem2, gp_side_for, pass_game_refusal, table1, Bar, FTable,
};
use crate::pass::expr::parse;
use crate::pass::gp::GpTable;
use crate::pass::Claim;
use crate::usage;
use serde::Serialize;
use std::io::Write;

/// Largest G_P table `--pass --check` builds (512 MiB of u16).
const MAX_CHECK_GP_SIDE: u64 = 16384;

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
}

#[derive(Serialize)]
struct Table1Report<'a> {
    f: &'a str,
    z_max: u64,
    table: &'a [Vec<Option<u32>>],
    checks: &'a [Claim],
}

pub fn run(args: &CbArgs) -> anyhow::Result<()> {
    let expr = parse(&args.f).map_err(|e| usage!("--f: {e}"))?;
    let (x_max, z_max) = match (args.bound, args.table1) {
        (Some((_, z)), true) => (0, z),
        (None, true) => (0, 15),
        (Some(b), false) => b,
        (None, false) => {
            return Err(usage!(
                "--bound X,Z is required (positions with x <= X, z <= Z)"
            ))
        }
    };
    if args.table1 && expr.uses_x() {
        return Err(usage!("--table1 needs F = h(z), but '{}' reads x", args.f));
    }
    let f = FTable::from_expr(&expr, x_max, z_max)?;
    if args.pass {
        if let Some(why) = pass_game_refusal(&f, expr.uses_x()) {
            return Err(usage!("--pass: {why}"));
        }
    }
    let pb = crate::progress::spinner("computing the Grundy numbers of CB(F)");
    let bar = Bar::compute(f, args.pass)?;
    pb.finish_and_clear();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());

    if args.table1 {
        let table = table1(&bar);
        let bad = table.iter().enumerate().find_map(|(y, row)| {
            row.iter().enumerate().find_map(|(z, g)| match g {
                Some(g) if *g as usize != y ^ z => {
                    Some(format!("G(CB_2(h,{y},{z})) = {g} but {y}^{z} = {}", y ^ z))
                }
                _ => None,
            })
        });
        let range = format!("0 <= z <= {z_max}, 0 <= y <= h(z)");
        let claims = vec![Claim::theorem(
            "Corollary 1",
            "G(CB_2(h,y,z)) = y^z",
            &range,
            bad,
        )];
        if args.json {
            print_json(&Table1Report {
                f: &args.f,
                z_max,
                table: &table,
                checks: &claims,
            })?;
        } else {
            writeln!(
                out,
                "Table 1: G(CB_2(h,y,z)) with h(z) = {}; rows y, columns z",
                args.f
            )?;
            let w = (2 * z_max + 1).to_string().len().max(2);
            write!(out, "{:>3}", "y\\z")?;
            for z in 0..=z_max {
                write!(out, " {z:>w$}")?;
            }
            writeln!(out)?;
            for (y, row) in table.iter().enumerate() {
                let mut line = format!("{y:>3}");
                for g in row {
                    match g {
                        Some(g) => line.push_str(&format!(" {g:>w$}")),
                        None => line.push_str(&format!(" {:>w$}", "")),
                    }
                }
                writeln!(out, "{}", line.trim_end())?;
            }
            print_claims(&mut out, &claims)?;
        }
        out.flush()?;
        return theorem_failures(&claims);
    }

    if args.csv {
        writeln!(out, "{}", if args.pass { "x,y,z,p,g" } else { "x,y,z,g" })?;
        for (x, y, z) in bar.positions() {
            if args.pass {
                writeln!(out, "{x},{y},{z},0,{}", bar.grundy(x, y, z))?;
                writeln!(
                    out,
                    "{x},{y},{z},1,{}",
                    bar.grundy_pass(x, y, z).unwrap_or_default()
                )?;
            } else {
                writeln!(out, "{x},{y},{z},{}", bar.grundy(x, y, z))?;
            }
        }
        out.flush()?;
    }

    let pb = args
        .check
        .then(|| crate::progress::spinner("checking the claims on the box"));
    let claims = args.check.then(|| {
        if args.pass {
            let side = gp_side_for(&bar);
            if side > MAX_CHECK_GP_SIDE {
                return Err(usage!(
                    "checking Theorem 4 here needs G_P up to {side}, more than {MAX_CHECK_GP_SIDE}; choose a smaller --bound"
                ));
            }
            let gp = GpTable::compute(side)?;
            anyhow::Ok(check_pass(&bar, &gp))
        } else {
            anyhow::Ok(check_theorem2(&bar))
        }
    });
    let claims = claims.transpose()?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }

    let positions = bar.len() as u64;
    let p_positions = bar
        .positions()
        .filter(|&(x, y, z)| bar.grundy(x, y, z) == 0)
        .count() as u64;
    let max_grundy = bar
        .positions()
        .map(|(x, y, z)| bar.grundy(x, y, z))
        .max()
        .unwrap_or(0);
    let pass_values = || {
        bar.positions()
            .filter_map(|(x, y, z)| bar.grundy_pass(x, y, z))
    };
    let (p_pass, max_pass) = if bar.has_pass() {
        (
            Some(pass_values().filter(|&g| g == 0).count() as u64),
            pass_values().max(),
        )
    } else {
        (None, None)
    };
    if args.json {
        print_json(&CbReport {
            f: &args.f,
            x_max,
            z_max,
            pass: args.pass,
            positions,
            p_positions,
            max_grundy,
            p_positions_with_pass: p_pass,
            max_grundy_with_pass: max_pass,
            checks: claims.as_deref(),
        })?;
    } else if !args.csv {
        writeln!(
            out,
            "CB(F) with F(x,z) = {} on {}: {positions} positions (x,y,z)",
            args.f,
            bar.f.range()
        )?;
        writeln!(
            out,
            "no pass: {p_positions} P-positions, largest Grundy number {max_grundy}"
        )?;
        if let (Some(p), Some(m)) = (p_pass, max_pass) {
            writeln!(
                out,
                "pass available (p = 1): {p} P-positions, largest Grundy number {m}"
            )?;
        }
        if let Some(c) = &claims {
            print_claims(&mut out, c)?;
        }
    } else if let Some(c) = &claims {
        // CSV on stdout; the check report goes to stderr so the CSV stays clean.
        print_claims(&mut std::io::stderr(), c)?;
    }
    out.flush()?;
    match &claims {
        Some(c) => theorem_failures(c),
        None => Ok(()),
    }
}
