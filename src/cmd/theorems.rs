//! `chompute theorems --max-m M`: check every claim of the chocolate paper and print a table.

use super::print_json;
use crate::chocolate::theorems::{check_all, ClaimResult};
use crate::cli::TheoremsArgs;
use crate::error::CheckFailed;
use crate::usage;
use serde::Serialize;

/// Largest M accepted (the per-cell claims cost about M³/3 cell checks each).
pub const MAX_M: u64 = 1 << 13;

#[derive(Serialize)]
struct Report<'a> {
    max_m: u64,
    all_pass: bool,
    claims: &'a [ClaimResult],
}

pub fn run(args: &TheoremsArgs) -> anyhow::Result<()> {
    let max_m = args.max_m;
    if max_m > MAX_M {
        return Err(usage!("--max-m is at most {MAX_M} (got {max_m}); the per-cell claims cost about M³/3 checks each"));
    }
    let json = args.json;
    if !json {
        println!(
            "{:<28} {:<62} {:>14} {:>6} {:>9}",
            "claim", "range", "checked", "result", "seconds"
        );
    }
    // On a terminal, a spinner says how many claims are done while the next one runs.
    let pb = crate::progress::spinner("checking the first claim");
    let mut done = 0;
    let results = check_all(max_m, |r| {
        done += 1;
        pb.set_message(format!(
            "{done} claim{} checked (last: {}, {:.2} s); checking the next",
            if done == 1 { "" } else { "s" },
            r.name,
            r.seconds
        ));
        if !json {
            pb.suspend(|| {
                println!(
                    "{:<28} {:<62} {:>14} {:>6} {:>9.3}",
                    r.name,
                    r.range,
                    r.checked,
                    if r.pass { "pass" } else { "FAIL" },
                    r.seconds
                );
                if let Some(f) = &r.failure {
                    println!("    first failure: {f}");
                }
            });
        }
    });
    pb.finish_and_clear();
    let all_pass = results.iter().all(|r| r.pass);
    if json {
        print_json(&Report {
            max_m,
            all_pass,
            claims: &results,
        })?;
    } else {
        let total: f64 = results.iter().map(|r| r.seconds).sum();
        println!(
            "{} of {} claims hold for every m ≤ {max_m} ({total:.2} s)",
            results.iter().filter(|r| r.pass).count(),
            results.len()
        );
    }
    if !all_pass {
        let failed: Vec<&str> = results.iter().filter(|r| !r.pass).map(|r| r.name).collect();
        return Err(CheckFailed(format!("claims failed: {}", failed.join(", "))).into());
    }
    Ok(())
}
