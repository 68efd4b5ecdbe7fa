//! Cancellation tokens (`chompute::cancel`) reach every long library loop: a cancelled token
//! stops each computation with `Error::Interrupted`, one cancelled from another thread stops
//! work already under way, and a token never cancelled changes no result.

use chompute::cancel::Cancel;
use chompute::chocolate::theorems::check_all;
use chompute::chomp::multiplayer::ordinal::{
    ordinals_by_volume, ordinals_in_rank_order, OrdEngine, OrdPlan,
};
use chompute::chomp::{
    all_normalised_rules, rule_classes, Choice, ChompBox, OrdTable, Ranker, Rule,
};
use chompute::pass::cb::{Bar, FTable};
use chompute::pass::gp::GpTable;
use chompute::pass::nimpass::NimPass;
use chompute::Error;
use std::time::Duration;

fn interrupted<T>(r: chompute::Result<T>) -> bool {
    matches!(r, Err(Error::Interrupted))
}

type Run = Box<dyn Fn() -> chompute::Result<String>>;

/// One of the two sweeps over every position of a Chomp box, as a named run.
fn sweep(
    name: &'static str,
    f: fn(&Ranker, &Choice) -> chompute::Result<Vec<u8>>,
    rule: &Rule,
    shape: ChompBox,
) -> (&'static str, Run) {
    let rule = rule.clone();
    let run: Run = Box::new(move || {
        Ok(format!(
            "{:?}",
            f(&Ranker::new(shape)?, &Choice::new(&rule))?
        ))
    });
    (name, run)
}

/// Every long computation, small enough to finish quickly when not stopped: a name and a run
/// that reduces its result to something comparable.
fn computations() -> Vec<(&'static str, Run)> {
    let rule = Rule::parse("0,1,2").unwrap();
    let shape = ChompBox { rows: 5, cols: 6 };
    vec![
        (
            "GpTable::compute",
            Box::new(|| Ok(format!("{}", GpTable::compute(300)?.get(7, 11)))),
        ),
        (
            "Bar::compute",
            Box::new(|| {
                let f = FTable::from_fn(20, 20, |x, z| (x + z) / 3)?;
                let bar = Bar::compute(f, true)?;
                Ok(format!("{:?}", bar.grundy_pass(5, 2, 9)))
            }),
        ),
        (
            "NimPass::compute",
            Box::new(|| Ok(NimPass::compute(4, 20)?.count().to_string())),
        ),
        sweep(
            "ordinals_in_rank_order",
            ordinals_in_rank_order,
            &rule,
            shape,
        ),
        sweep("ordinals_by_volume", ordinals_by_volume, &rule, shape),
        (
            "OrdPlan::table, packed",
            Box::new({
                let rule = rule.clone();
                move || {
                    Ok(format!(
                        "{:?}",
                        OrdPlan::new(shape, OrdEngine::Packed)?
                            .table(&rule)?
                            .histogram()
                    ))
                }
            }),
        ),
        (
            "OrdTable::compute",
            Box::new(move || {
                Ok(format!(
                    "{:?}",
                    OrdTable::compute(shape, &rule)?.histogram()
                ))
            }),
        ),
        (
            "rule_classes",
            Box::new(move || {
                let ranker = Ranker::new(shape)?;
                Ok(rule_classes(&ranker, &all_normalised_rules(3))?
                    .len()
                    .to_string())
            }),
        ),
        (
            "theorems::check_all",
            Box::new(|| {
                let claims = check_all(40, |_| {})?;
                Ok(claims
                    .iter()
                    .map(|c| format!("{} {} {}", c.name, c.checked, c.pass))
                    .collect())
            }),
        ),
    ]
}

#[test]
fn a_cancelled_token_stops_every_long_computation() {
    for (name, run) in computations() {
        let stop = Cancel::new();
        stop.cancel();
        assert!(
            interrupted(stop.scope(&run)),
            "{name} ran under a cancelled token"
        );
    }
}

#[test]
fn a_token_never_cancelled_changes_no_result() {
    for (name, run) in computations() {
        let plain = run().unwrap();
        let scoped = Cancel::new().scope(&run).unwrap();
        assert_eq!(plain, scoped, "{name}");
    }
}

#[test]
fn cancelling_from_another_thread_stops_work_under_way() {
    // Each would run for many seconds (G_P on 20000²: about 25 s of one core; 15×15 Chomp:
    // 1.6·10⁸ positions; every claim to m = 8192: minutes); the token is cancelled 100 ms in.
    type Stops = Box<dyn Fn() -> bool>;
    let runs: Vec<(&str, Stops)> = vec![
        (
            "GpTable::compute(20000)",
            Box::new(|| interrupted(GpTable::compute(20000))),
        ),
        (
            "OrdTable::compute 15x15",
            Box::new(|| {
                let rule = Rule::parse("0,1,2").unwrap();
                interrupted(OrdTable::compute(ChompBox { rows: 15, cols: 15 }, &rule))
            }),
        ),
        (
            "OrdPlan::table, packed, 15x15",
            Box::new(|| {
                let rule = Rule::parse("0,1,2").unwrap();
                let plan = OrdPlan::new(ChompBox { rows: 15, cols: 15 }, OrdEngine::Packed);
                interrupted(plan.unwrap().table(&rule))
            }),
        ),
        (
            "check_all(8192)",
            Box::new(|| interrupted(check_all(8192, |_| {}))),
        ),
    ];
    for (name, run) in runs {
        let stop = Cancel::new();
        let remote = stop.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            remote.cancel();
        });
        assert!(stop.scope(&run), "{name} was not stopped by its token");
        canceller.join().unwrap();
    }
}
