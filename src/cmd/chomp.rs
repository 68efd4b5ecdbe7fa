//! `chompute chomp ord|classes|image`: multiplayer Chomp (docs/mathematics.md §5).
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/games/chomp/multiplayer.rs, tests/pictures/cli_outputs.rs.

use super::out::{print_report, Report, Stdout};
use super::{describe_pictures, verdict};
use crate::cli::Format;
use crate::cli::{ChompArgs, ChompClassesArgs, ChompCommand, ChompImageArgs, ChompOrdArgs};
use anyhow::anyhow;
use chompute::chomp::multiplayer::check::{class_claims, ordinal_claims, PositionReport};
use chompute::chomp::multiplayer::classes::{check_players, classes_ranker};
use chompute::chomp::multiplayer::ord_file;
use chompute::chomp::multiplayer::ordinal::{OrdEngine, OrdPlan, RectangleOrdinal};
use chompute::chomp::{
    all_normalised_rules, rule_classes, ChompBox, Diagram, OrdTable, OrdinalPlane, Ranker, Rule,
};
use chompute::claim::Claim;
use chompute::render::figures::{check_ordinal_scale, write_ordinal_plane_png};
use serde::Serialize;
use std::io::Write;
use std::time::Instant;

/// `chomp solve` has a GPU kernel; the other subcommands run on the CPU.
pub fn run(backend: chompute::gpu::BackendChoice, args: &ChompArgs) -> anyhow::Result<()> {
    match &args.command {
        ChompCommand::Solve(a) => return super::chomp_solve::solve(backend, a),
        _ => super::cpu_only(backend, "chomp"),
    }
    match &args.command {
        ChompCommand::Ord(a) => ord(a),
        ChompCommand::Classes(a) => classes(a),
        ChompCommand::Image(a) => image(a),
        ChompCommand::Solve(_) => unreachable!("solved above"),
        ChompCommand::Query(a) => super::chomp_solve::query(a),
        ChompCommand::Bites(a) => super::chomp_solve::bites(a),
        ChompCommand::Grundy(a) => super::chomp_solve::grundy(a),
        ChompCommand::Cells(a) => super::chomp_solve::cells(a),
    }
}

#[derive(Serialize)]
struct OrdReport<'a> {
    rule_given: String,
    rule: String,
    players: usize,
    #[serde(rename = "box")]
    shape: String,
    positions: u64,
    engine: &'static str,
    seconds: f64,
    histogram: &'a [u64],
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<PositionReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    list: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<Vec<Claim>>,
    /// `--rectangles`: the ordinal and Sol of every rectangle of the box.
    #[serde(skip_serializing_if = "Option::is_none")]
    rectangles: Option<Vec<RectangleOrdinal>>,
    /// `-o FILE`: where the table was saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// With `-o`: layers read back from the checkpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    resumed_layers: Option<u64>,
    /// `--list` went straight to stdout: the text and CSV add only the claims.
    #[serde(skip)]
    listed: bool,
}

impl Report for OrdReport<'_> {
    /// The rule, the box, the histogram and the position's ordinal, Sol set and solution
    /// chain (unless `--list` printed the positions), then the claims.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        if !self.listed {
            writeln!(
                out,
                "rule {} (normalised from {}), {} players",
                self.rule, self.rule_given, self.players
            )?;
            writeln!(
                out,
                "box {}: {} positions, {} engine, {:.3} s",
                self.shape, self.positions, self.engine, self.seconds
            )?;
            writeln!(out, "{:>8} {:>16}", "ordinal", "positions")?;
            for (k, c) in self.histogram.iter().enumerate() {
                writeln!(out, "{k:>8} {c:>16}")?;
            }
            if let Some(p) = &self.position {
                writeln!(out, "position ({}): ordinal {}", p.position, p.ordinal)?;
                let sol: Vec<String> = p.sol.iter().map(|q| format!("({q})")).collect();
                writeln!(out, "Sol = {{{}}}", sol.join(", "))?;
                let chain: Vec<String> = p.chain.iter().map(|q| format!("({q})")).collect();
                writeln!(out, "solution chain: {}", chain.join(" -> "))?;
            }
            for r in self.rectangles.iter().flatten() {
                let sol: Vec<String> = r.sol.iter().map(|q| format!("({q})")).collect();
                writeln!(
                    out,
                    "rectangle {}x{}: ordinal {}, Sol = {{{}}}",
                    r.rows,
                    r.cols,
                    r.ordinal,
                    sol.join(", ")
                )?;
            }
            if let Some(f) = &self.file {
                writeln!(out, "table saved to {f}")?;
            }
        }
        match &self.checks {
            Some(c) => chompute::claim::write_text(out, c),
            None => Ok(()),
        }
    }

    /// The histogram (unless `--list` printed the positions); with `--check`, the claims.
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        if let Some(c) = &self.checks {
            return chompute::claim::write_csv(out, c);
        }
        if let Some(rects) = &self.rectangles {
            writeln!(out, "rows,cols,ordinal,sol")?;
            for r in rects {
                let sol = r.sol.join(" ");
                let sol = super::csv_field(&sol);
                writeln!(out, "{},{},{},{sol}", r.rows, r.cols, r.ordinal)?;
            }
            return Ok(());
        }
        if !self.listed {
            writeln!(out, "ordinal,positions")?;
            for (k, c) in self.histogram.iter().enumerate() {
                writeln!(out, "{k},{c}")?;
            }
        }
        Ok(())
    }
}

/// Where `--list` lines go: straight to stdout, or collected for JSON.
enum ListSink {
    None,
    Print {
        out: super::out::Stdout,
        csv_rows: Option<usize>,
    },
    Collect(Vec<String>),
}

impl ListSink {
    fn push(&mut self, rows: &[u32]) -> anyhow::Result<()> {
        match self {
            ListSink::None => {}
            ListSink::Print {
                out,
                csv_rows: None,
            } => writeln!(out, "{}", diagram_text(rows))?,
            ListSink::Print {
                out,
                csv_rows: Some(r),
            } => {
                let cells: Vec<String> = (0..*r)
                    .map(|j| rows.get(j).copied().unwrap_or(0).to_string())
                    .collect();
                writeln!(out, "{}", cells.join(","))?
            }
            ListSink::Collect(v) => v.push(diagram_text(rows)),
        }
        Ok(())
    }
}

fn diagram_text(rows: &[u32]) -> String {
    Diagram::new(rows.to_vec())
        .expect("rows from a ranker")
        .to_string()
}

fn ord(args: &ChompOrdArgs) -> anyhow::Result<()> {
    let rule = &args.rule;
    let plan = ord_plan(args)?;
    let (shape, engine) = (plan.shape, plan.engine);
    let total = shape
        .positions()
        .ok_or_else(|| anyhow!("the {shape} box has more than 2^64 positions"))?;
    let mut list = list_sink(args, shape)?;
    let start = Instant::now();
    // The table the position report and the checks read: the whole box for --check, the
    // position's own columns for --position (ranks do not depend on the box's width).
    let mut resumed = 0;
    let (histogram, table) = match engine {
        OrdEngine::ThreeRow => ordinals_by_first_rows(args, plan, &mut list)?,
        _ => ordinals_of_box(args, plan, &mut list, &mut resumed)?,
    };
    let seconds = start.elapsed().as_secs_f64();
    let position = match (&args.position, &table) {
        (Some(p), Some(t)) => {
            Some(PositionReport::new(t, p).expect("the table covers the position"))
        }
        _ => None,
    };
    let checks = match (&table, args.check) {
        (Some(t), true) => Some(ordinal_claims(t, rule)),
        _ => None,
    };

    let list_collected = match list {
        ListSink::Collect(v) => Some(v),
        ListSink::Print { mut out, .. } => {
            out.flush()?;
            None
        }
        ListSink::None => None,
    };
    let report = OrdReport {
        rule_given: rule.as_given(),
        rule: rule.normalised(),
        players: rule.players(),
        shape: shape.to_string(),
        positions: total,
        engine: engine.name(),
        seconds,
        histogram: &histogram,
        position,
        list: list_collected,
        checks,
        rectangles: match (&table, args.rectangles) {
            (Some(t), true) => Some(t.rectangles()),
            _ => None,
        },
        file: args.output.as_ref().map(|p| p.display().to_string()),
        resumed_layers: args.output.as_ref().map(|_| resumed),
        listed: args.list.is_some(),
    };
    print_report(&report, args.format.get())?;
    match &report.checks {
        Some(c) => verdict(c),
        None => Ok(()),
    }
}

/// The plan of `chomp ord`: its box (`--box`, else the position's own) and the engine that computes
/// it, refused before any work when they do not fit the arguments.
fn ord_plan(args: &ChompOrdArgs) -> anyhow::Result<OrdPlan> {
    let n = args.rule.players() as u8;
    let shape = match (args.shape, &args.position) {
        (Some(s), _) => s,
        (None, Some(p)) => ChompBox::of(p),
        (None, None) => {
            return Err(anyhow!(
                "give the box of positions with --box ROWSxCOLUMNS (or a --position)"
            ))
        }
    };
    if let Some(p) = &args.position {
        if !shape.contains(p) {
            return Err(anyhow!("position {p} does not fit in the {shape} box"));
        }
    }
    if let Some(k) = args.list {
        if k > n {
            return Err(anyhow!(
                "--list {k}: ordinals under a {n}-player rule are 0 to {n}"
            ));
        }
    }
    Ok(OrdPlan::for_run(
        shape,
        args.engine,
        args.output.is_some(),
        args.check,
    )?)
}

/// Where `--list K` sends the positions of ordinal K (nowhere with `--check --csv`, which
/// prints the claims only), with the CSV header written.
fn list_sink(args: &ChompOrdArgs, shape: ChompBox) -> anyhow::Result<ListSink> {
    let claims_csv = args.check && args.format.get() == Format::Csv;
    let mut list = match (args.list, args.format.get() == Format::Json) {
        (None, _) => ListSink::None,
        (Some(_), false) if claims_csv => ListSink::None,
        (Some(_), true) => ListSink::Collect(Vec::new()),
        (Some(_), false) => ListSink::Print {
            out: super::out::stdout(),
            csv_rows: (args.format.get() == Format::Csv).then_some(shape.rows),
        },
    };
    if let (
        ListSink::Print {
            out,
            csv_rows: Some(r),
        },
        true,
    ) = (&mut list, args.format.get() == Format::Csv)
    {
        let head: Vec<String> = (1..=*r).map(|j| format!("a{j}")).collect();
        writeln!(out, "{}", head.join(","))?;
    }
    Ok(list)
}

/// The three-row engine: ordinals first row by first row, into the histogram and the list,
/// kept as a table for `--check` or `--rectangles` (the whole box) or `--position` (its
/// columns).
fn ordinals_by_first_rows(
    args: &ChompOrdArgs,
    plan: OrdPlan,
    list: &mut ListSink,
) -> anyhow::Result<(Vec<u64>, Option<OrdTable>)> {
    let keep_cols = if args.check || args.rectangles {
        Some(plan.shape.cols)
    } else {
        args.position.as_ref().map(|p| p.width().max(1))
    };
    plan.stream_three_rows(&args.rule, keep_cols, args.list, |rows| list.push(rows))
}

/// The packed, general and layered engines: the whole box's table (saved to `-o FILE`,
/// resumed from its checkpoint, with the layers read back in `resumed`), its histogram, and
/// the list.
fn ordinals_of_box(
    args: &ChompOrdArgs,
    plan: OrdPlan,
    list: &mut ListSink,
    resumed: &mut u64,
) -> anyhow::Result<(Vec<u64>, Option<OrdTable>)> {
    let t = match &args.output {
        None => plan.table(&args.rule)?,
        Some(path) => ord_file::compute_to_file(plan, &args.rule, path, |event| {
            if let Some(done) = super::chomp_solve::said_resumed(&event) {
                *resumed = done;
            }
        })?,
    };
    if let Some(k) = args.list {
        let mut failure = None;
        t.positions_of(k, |rows| {
            if failure.is_none() {
                failure = list.push(rows).err();
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
    }
    Ok((t.histogram(), Some(t)))
}

#[derive(Serialize)]
struct ClassJson {
    members: Vec<String>,
    histogram: Vec<u64>,
}

impl ClassJson {
    /// The histogram as numbers separated by spaces.
    fn histogram_text(&self) -> String {
        let hist: Vec<String> = self.histogram.iter().map(u64::to_string).collect();
        hist.join(" ")
    }
}

#[derive(Serialize)]
struct ClassesReport {
    players: usize,
    #[serde(rename = "box")]
    shape: String,
    positions: u64,
    rules: usize,
    class_count: usize,
    seconds: f64,
    classes: Vec<ClassJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<Vec<Claim>>,
}

#[derive(Serialize)]
struct ClassCount {
    players: usize,
    classes: usize,
    rules: usize,
    seconds: f64,
}

#[derive(Serialize)]
struct ClassCountsReport {
    #[serde(rename = "box")]
    shape: String,
    positions: u64,
    counts: Vec<ClassCount>,
}

fn classes(args: &ChompClassesArgs) -> anyhow::Result<()> {
    let (first, last) = args.players;
    for n in [first, last] {
        check_players(n as u64)?;
    }
    let ranker = classes_ranker(args.shape)?;
    if first != last || args.format.get() == Format::Bfile {
        return class_counts(args, &ranker);
    }
    let n = first;
    let start = Instant::now();
    let rules = all_normalised_rules(n);
    let classes = rule_classes(&ranker, &rules)?;
    let seconds = start.elapsed().as_secs_f64();
    let checks = match args.check {
        true => Some(class_claims(&ranker, &classes)?),
        false => None,
    };
    let report = ClassesReport {
        players: n,
        shape: args.shape.to_string(),
        positions: ranker.len(),
        rules: rules.len(),
        class_count: classes.len(),
        seconds,
        classes: classes
            .iter()
            .map(|c| ClassJson {
                members: c.members.iter().map(Rule::normalised).collect(),
                histogram: chompute::chomp::multiplayer::ordinal::histogram(&c.table, n as u8),
            })
            .collect(),
        checks: checks.clone(),
    };
    print_report(&report, args.format.get())?;
    match &checks {
        Some(claims) => verdict(claims),
        None => Ok(()),
    }
}

impl Report for ClassesReport {
    /// A line for the box, one per class, then (with `--check`) the claims.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(
            out,
            "{} players, box {} ({} positions): {} rules in {} classes ({:.3} s)",
            self.players, self.shape, self.positions, self.rules, self.class_count, self.seconds
        )?;
        for (i, c) in self.classes.iter().enumerate() {
            let n = c.members.len();
            let members: Vec<String> = c.members.iter().map(|m| format!("({m})")).collect();
            writeln!(
                out,
                "class {:>3}: {n} rule{}, ordinal histogram [{}]: {}",
                i + 1,
                if n == 1 { "" } else { "s" },
                c.histogram_text(),
                members.join(" ")
            )?;
        }
        match &self.checks {
            Some(claims) => chompute::claim::write_text(out, claims),
            None => Ok(()),
        }
    }

    /// One row per class (its number, size, members and ordinal histogram); with `--check`,
    /// the claims instead.
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        if let Some(claims) = &self.checks {
            return chompute::claim::write_csv(out, claims);
        }
        let ords: Vec<String> = (0..=self.players).map(|k| format!("ord{k}")).collect();
        writeln!(out, "class,rules,members,{}", ords.join(","))?;
        for (i, c) in self.classes.iter().enumerate() {
            let members: Vec<String> = c.members.iter().map(|m| format!("({m})")).collect();
            let hist: Vec<String> = c.histogram.iter().map(u64::to_string).collect();
            let members = members.join(" ");
            let field = super::csv_field(&members);
            writeln!(
                out,
                "{},{},{field},{}",
                i + 1,
                c.members.len(),
                hist.join(",")
            )?;
        }
        Ok(())
    }
}

impl Report for ClassCountsReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "box {} ({} positions)", self.shape, self.positions)?;
        writeln!(out, "{:>7} {:>6} {:>7}", "players", "rules", "classes")?;
        for c in &self.counts {
            writeln!(out, "{:>7} {:>6} {:>7}", c.players, c.rules, c.classes)?;
        }
        Ok(())
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "players,rules,classes")?;
        for c in &self.counts {
            writeln!(out, "{},{},{}", c.players, c.rules, c.classes)?;
        }
        Ok(())
    }

    /// `N classes` per line.
    fn bfile(&self, out: &mut Stdout) -> std::io::Result<()> {
        for c in &self.counts {
            writeln!(out, "{} {}", c.players, c.classes)?;
        }
        Ok(())
    }
}

/// `chomp classes --players A..B`: the number of isomorphism classes for each number of
/// players, as a table, an OEIS b-file (`N classes`), CSV or JSON.
fn class_counts(args: &ChompClassesArgs, ranker: &Ranker) -> anyhow::Result<()> {
    let (first, last) = args.players;
    if args.check {
        return Err(anyhow::anyhow!(
            "--check runs for one number of players; give --players N"
        ));
    }
    let pb = crate::cmd::bars::bar((last - first + 1) as u64, "player counts");
    let mut counts = Vec::new();
    for n in first..=last {
        pb.set_message(format!(", {n} players"));
        let start = Instant::now();
        let rules = all_normalised_rules(n);
        let classes = rule_classes(ranker, &rules)?;
        counts.push(ClassCount {
            players: n,
            classes: classes.len(),
            rules: rules.len(),
            seconds: start.elapsed().as_secs_f64(),
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    let report = ClassCountsReport {
        shape: args.shape.to_string(),
        positions: ranker.len(),
        counts,
    };
    print_report(&report, args.format.get())
}

fn image(args: &ChompImageArgs) -> anyhow::Result<()> {
    chompute::output::check_target(&args.output)?;
    // The plane is (A+1)² positions; a scale too large for it is refused before they are.
    OrdinalPlane::check(args.rows, args.first_row)?;
    let side = args.first_row + 1;
    let scale = args.scale.unwrap_or((600 / side).max(1));
    check_ordinal_scale(side, scale)?;
    let plane = OrdinalPlane::compute(&args.rule, args.rows, args.first_row)?;
    let description = describe_pictures(&format!(
        "ordinals of {} under rule {}, {scale} pixel{} per position, ordinal k in palette entry 2+k",
        plane.axes_text(),
        args.rule.normalised(),
        if scale == 1 { "" } else { "s" }
    ));
    let (width, height) = write_ordinal_plane_png(&args.output, &plane, scale, Some(&description))?;
    crate::outln!(
        "wrote {} ({width}x{height}): {} under rule {}, ordinal counts {:?}",
        args.output.display(),
        plane.describe(),
        args.rule.normalised(),
        plane.counts()
    );
    Ok(())
}
