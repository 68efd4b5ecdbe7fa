//! `chompute chomp ord|classes|image`: multiplayer Chomp (SPEC §5).

use super::{describe_pictures, print_json};
use crate::chomp::check::{class_claims, ordinal_claims, Claim, PositionReport};
use crate::chomp::classes::MAX_CLASS_PLAYERS;
use crate::chomp::ordinal::add_to_histogram;
use crate::chomp::{
    all_normalised_rules, ordinals_three_rows, rule_classes, Choice, ChompBox, Diagram, OrdTable,
    Ranker, Rule,
};
use crate::cli::{
    ChompArgs, ChompClassesArgs, ChompCommand, ChompEngine, ChompImageArgs, ChompOrdArgs,
};
use crate::error::CheckFailed;
use crate::render::label::{Axes, AXIS_BAND};
use crate::render::png::{Compression, PixelFormat, PngSpec};
use crate::render::{check_output, write_image};
use crate::usage;
use serde::Serialize;
use std::io::Write;
use std::time::Instant;

pub fn run(args: &ChompArgs) -> anyhow::Result<()> {
    match &args.command {
        ChompCommand::Ord(a) => ord(a),
        ChompCommand::Classes(a) => classes(a),
        ChompCommand::Image(a) => image(a),
    }
}

/// Largest first row the three-row engine and the pictures accept (C(A+3,3) positions).
pub const THREE_ROW_MAX_COLS: u32 = 10_000;

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
}

/// Where `--list` lines go: straight to stdout, or collected for JSON.
enum ListSink {
    None,
    Print {
        out: std::io::BufWriter<std::io::StdoutLock<'static>>,
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

fn engine_name(e: ChompEngine) -> &'static str {
    match e {
        ChompEngine::Auto => "auto",
        ChompEngine::General => "general",
        ChompEngine::ThreeRow => "three-row",
        ChompEngine::Layers => "layers",
    }
}

fn ord(args: &ChompOrdArgs) -> anyhow::Result<()> {
    let rule = &args.rule;
    let n = rule.players() as u8;
    let shape = match (args.shape, &args.position) {
        (Some(s), _) => s,
        (None, Some(p)) => ChompBox::of(p),
        (None, None) => {
            return Err(usage!(
                "give the box of positions with --box ROWSxCOLUMNS (or a --position)"
            ))
        }
    };
    if let Some(p) = &args.position {
        if !shape.contains(p) {
            return Err(usage!("position {p} does not fit in the {shape} box"));
        }
    }
    if let Some(k) = args.list {
        if k > n {
            return Err(usage!(
                "--list {k}: ordinals under a {n}-player rule are 0 to {n}"
            ));
        }
    }
    let engine = match args.engine {
        ChompEngine::Auto if shape.rows == 3 => ChompEngine::ThreeRow,
        ChompEngine::Auto => ChompEngine::General,
        ChompEngine::ThreeRow if shape.rows != 3 => {
            return Err(usage!(
                "the three-row engine needs a box with 3 rows (got {shape})"
            ))
        }
        e => e,
    };
    if engine == ChompEngine::ThreeRow && shape.cols > THREE_ROW_MAX_COLS {
        return Err(usage!(
            "the three-row engine takes at most {THREE_ROW_MAX_COLS} columns (got {shape})"
        ));
    }
    let total = shape
        .positions()
        .ok_or_else(|| usage!("the {shape} box has more than 2^64 positions"))?;

    let mut list = match (args.list, args.json) {
        (None, _) => ListSink::None,
        (Some(_), true) => ListSink::Collect(Vec::new()),
        (Some(_), false) => ListSink::Print {
            out: std::io::BufWriter::new(std::io::stdout().lock()),
            csv_rows: args.csv.then_some(shape.rows),
        },
    };
    if let (
        ListSink::Print {
            out,
            csv_rows: Some(r),
        },
        true,
    ) = (&mut list, args.csv)
    {
        let head: Vec<String> = (1..=*r).map(|j| format!("a{j}")).collect();
        writeln!(out, "{}", head.join(","))?;
    }

    let start = Instant::now();
    let mut histogram = vec![0u64; n as usize + 1];
    // The table the position report and the checks read: the whole box for --check, the
    // position's own columns for --position (ranks do not depend on the box's width).
    let table: Option<OrdTable>;
    match engine {
        ChompEngine::ThreeRow => {
            let keep_cols = if args.check {
                Some(shape.cols)
            } else {
                args.position.as_ref().map(|p| p.width().max(1))
            };
            let choice = Choice::new(rule);
            let mut kept: Vec<u8> = Vec::new();
            let mut rows = [0u32; 3];
            let mut failure: Option<anyhow::Error> = None;
            let pb = crate::progress::bar(shape.cols as u64 + 1, "first rows");
            ordinals_three_rows(shape.cols, &choice, |a, slice| {
                add_to_histogram(&mut histogram, slice);
                if keep_cols.is_some_and(|c| a <= c) {
                    kept.extend_from_slice(slice);
                }
                if let (Some(k), None) = (args.list, &failure) {
                    let mut i = 0;
                    for b in 0..=a {
                        for c in 0..=b {
                            if slice[i] == k {
                                rows = [a, b, c];
                                if let Err(e) = list.push(&rows) {
                                    failure = Some(e);
                                }
                            }
                            i += 1;
                        }
                    }
                }
                pb.inc(1);
            });
            pb.finish_and_clear();
            if let Some(e) = failure {
                return Err(e);
            }
            table = match keep_cols {
                Some(c) => Some(OrdTable {
                    ranker: Ranker::new(ChompBox { rows: 3, cols: c })?,
                    players: n,
                    ords: kept,
                }),
                None => None,
            };
        }
        _ => {
            let t = match engine {
                ChompEngine::Layers => OrdTable::compute_with(shape, rule, true)?,
                _ => OrdTable::compute(shape, rule)?,
            };
            histogram = t.histogram();
            if let Some(k) = args.list {
                let mut failure = None;
                t.positions_with(k, |rows| {
                    if failure.is_none() {
                        failure = list.push(rows).err();
                    }
                });
                if let Some(e) = failure {
                    return Err(e);
                }
            }
            table = Some(t);
        }
    }
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
    if args.json {
        print_json(&OrdReport {
            rule_given: rule.as_given(),
            rule: rule.normalised(),
            players: rule.players(),
            shape: shape.to_string(),
            positions: total,
            engine: engine_name(engine),
            seconds,
            histogram: &histogram,
            position,
            list: list_collected,
            checks: checks.clone(),
        })?;
    } else if args.list.is_none() {
        let mut out = std::io::stdout().lock();
        if args.csv {
            writeln!(out, "ordinal,positions")?;
            for (k, c) in histogram.iter().enumerate() {
                writeln!(out, "{k},{c}")?;
            }
        } else {
            writeln!(
                out,
                "rule {} (normalised from {}), {} players",
                rule.normalised(),
                rule.as_given(),
                n
            )?;
            writeln!(
                out,
                "box {shape}: {total} positions, {} engine, {seconds:.3} s",
                engine_name(engine)
            )?;
            writeln!(out, "{:>8} {:>16}", "ordinal", "positions")?;
            for (k, c) in histogram.iter().enumerate() {
                writeln!(out, "{k:>8} {c:>16}")?;
            }
            if let Some(p) = &position {
                writeln!(out, "position ({}): ordinal {}", p.position, p.ordinal)?;
                let sol: Vec<String> = p.sol.iter().map(|q| format!("({q})")).collect();
                writeln!(out, "Sol = {{{}}}", sol.join(", "))?;
                let chain: Vec<String> = p.chain.iter().map(|q| format!("({q})")).collect();
                writeln!(out, "solution chain: {}", chain.join(" -> "))?;
            }
        }
    }
    if let Some(claims) = &checks {
        report_claims(claims, args.json)?;
    }
    Ok(())
}

/// Print the claims (unless JSON carried them) and fail with exit 1 if any does not hold.
fn report_claims(claims: &[Claim], json: bool) -> anyhow::Result<()> {
    if !json {
        let mut out = std::io::stdout().lock();
        for c in claims {
            writeln!(
                out,
                "{:<5} {}: {}",
                if c.holds { "ok" } else { "FAIL" },
                c.claim,
                c.checked
            )?;
        }
    }
    let failed: Vec<&str> = claims
        .iter()
        .filter(|c| !c.holds)
        .map(|c| c.claim.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(CheckFailed(format!("claims that do not hold: {}", failed.join(", "))).into());
    }
    Ok(())
}

#[derive(Serialize)]
struct ClassJson {
    members: Vec<String>,
    histogram: Vec<u64>,
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
        if !(2..=MAX_CLASS_PLAYERS).contains(&n) {
            return Err(usage!(
                "--players must be 2 to {MAX_CLASS_PLAYERS} (got {n})"
            ));
        }
    }
    let ranker = Ranker::new(args.shape)?;
    if ranker.len() > 1 << 24 {
        return Err(usage!(
            "the {} box has more than 2^24 positions; choose a smaller box for classes",
            args.shape
        ));
    }
    if first != last || args.bfile {
        return class_counts(args, &ranker);
    }
    let n = first;
    let start = Instant::now();
    let rules = all_normalised_rules(n);
    let classes = rule_classes(&ranker, &rules);
    let seconds = start.elapsed().as_secs_f64();
    let checks = args.check.then(|| class_claims(&ranker, &classes));
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
                histogram: crate::chomp::ordinal::histogram(&c.table, n as u8),
            })
            .collect(),
        checks: checks.clone(),
    };
    if args.json {
        print_json(&report)?;
    } else if args.csv {
        // One row per class: its number, size, members and ordinal histogram.
        let mut out = std::io::stdout().lock();
        let ords: Vec<String> = (0..=n).map(|k| format!("ord{k}")).collect();
        writeln!(out, "class,rules,members,{}", ords.join(","))?;
        for (i, c) in report.classes.iter().enumerate() {
            let members: Vec<String> = c.members.iter().map(|m| format!("({m})")).collect();
            let hist: Vec<String> = c.histogram.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "{},{},{},{}",
                i + 1,
                c.members.len(),
                super::csv_field(&members.join(" ")),
                hist.join(",")
            )?;
        }
    } else {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{n} players, box {} ({} positions): {} rules in {} classes ({seconds:.3} s)",
            args.shape,
            ranker.len(),
            rules.len(),
            classes.len()
        )?;
        for (i, c) in report.classes.iter().enumerate() {
            let hist: Vec<String> = c.histogram.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "class {:>3}: {} rule{}, ordinal histogram [{}]: {}",
                i + 1,
                c.members.len(),
                if c.members.len() == 1 { "" } else { "s" },
                hist.join(" "),
                c.members
                    .iter()
                    .map(|m| format!("({m})"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )?;
        }
    }
    if let Some(claims) = &checks {
        report_claims(claims, args.json)?;
    }
    Ok(())
}

/// `chomp classes --players A..B`: the number of isomorphism classes for each number of
/// players, as a table, an OEIS b-file (`N classes`), CSV or JSON.
fn class_counts(args: &ChompClassesArgs, ranker: &Ranker) -> anyhow::Result<()> {
    let (first, last) = args.players;
    if args.check {
        return Err(usage!(
            "--check runs for one number of players; give --players N"
        ));
    }
    let pb = crate::progress::bar((last - first + 1) as u64, "player counts");
    let mut counts = Vec::new();
    for n in first..=last {
        pb.set_message(format!(", {n} players"));
        let start = Instant::now();
        let rules = all_normalised_rules(n);
        let classes = rule_classes(ranker, &rules);
        counts.push(ClassCount {
            players: n,
            classes: classes.len(),
            rules: rules.len(),
            seconds: start.elapsed().as_secs_f64(),
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    if args.json {
        return print_json(&ClassCountsReport {
            shape: args.shape.to_string(),
            positions: ranker.len(),
            counts,
        });
    }
    let mut out = std::io::stdout().lock();
    if args.csv {
        writeln!(out, "players,rules,classes")?;
    } else if !args.bfile {
        writeln!(out, "box {} ({} positions)", args.shape, ranker.len())?;
        writeln!(out, "{:>7} {:>6} {:>7}", "players", "rules", "classes")?;
    }
    for c in &counts {
        if args.csv {
            writeln!(out, "{},{},{}", c.players, c.rules, c.classes)?;
        } else if args.bfile {
            writeln!(out, "{} {}", c.players, c.classes)?;
        } else {
            writeln!(out, "{:>7} {:>6} {:>7}", c.players, c.rules, c.classes)?;
        }
    }
    Ok(())
}

/// A 3×5 pixel font for the legend's digits, one row per entry, bit 2 = leftmost.
const DIGITS: [[u8; 5]; 10] = [
    [7, 5, 5, 5, 7],
    [2, 6, 2, 2, 7],
    [7, 1, 7, 4, 7],
    [7, 1, 7, 1, 7],
    [5, 5, 7, 1, 1],
    [7, 4, 7, 1, 7],
    [7, 4, 7, 5, 7],
    [7, 1, 1, 1, 1],
    [7, 5, 7, 5, 7],
    [7, 5, 7, 1, 7],
];

/// Palette: 0 background, 1 ink, 2 + k ordinal k.
fn palette(players: u8) -> Vec<u8> {
    const ORDINAL_COLOURS: [[u8; 3]; 12] = [
        [64, 64, 64],
        [31, 119, 180],
        [255, 127, 14],
        [44, 160, 44],
        [214, 39, 40],
        [148, 103, 189],
        [140, 86, 75],
        [227, 119, 194],
        [188, 189, 34],
        [23, 190, 207],
        [174, 199, 232],
        [255, 187, 120],
    ];
    let mut p = vec![255, 255, 255, 0, 0, 0];
    for k in 0..=players as usize {
        let c = if let Some(&fixed) = ORDINAL_COLOURS.get(k) {
            fixed
        } else {
            // Past the fixed colours: spread the rest by a multiplicative hash.
            let h = (k as u32).wrapping_mul(2_654_435_761);
            [
                (h >> 24) as u8 | 64,
                (h >> 16) as u8 | 32,
                (h >> 8) as u8 | 96,
            ]
        };
        p.extend_from_slice(&c);
    }
    p
}

/// Legend layout: one entry per ordinal, a swatch then the number, in lines.
struct Legend {
    entries: usize,
    per_line: usize,
}

const LEGEND_ENTRY_W: u32 = 48;
const LEGEND_LINE_H: u32 = 20;
const LEGEND_MARGIN: u32 = 8;
const DIGIT_SCALE: u32 = 2;

impl Legend {
    fn height(&self) -> u32 {
        LEGEND_MARGIN + self.entries.div_ceil(self.per_line) as u32 * LEGEND_LINE_H
    }

    /// Palette index of pixel (x, y) of the legend band.
    fn pixel(&self, x: u32, y: u32) -> u8 {
        if y < LEGEND_MARGIN {
            return 0;
        }
        let y = y - LEGEND_MARGIN;
        let (line, yy) = ((y / LEGEND_LINE_H) as usize, y % LEGEND_LINE_H);
        let (col, xx) = ((x / LEGEND_ENTRY_W) as usize, x % LEGEND_ENTRY_W);
        if col >= self.per_line {
            return 0;
        }
        let k = line * self.per_line + col;
        if k >= self.entries {
            return 0;
        }
        // Swatch 14×14 with a 1-pixel ink border.
        if (2..16).contains(&xx) && (2..16).contains(&yy) {
            let border = xx == 2 || xx == 15 || yy == 2 || yy == 15;
            return if border { 1 } else { 2 + k as u8 };
        }
        // Digits from x = 20, y = 4, each 3×5 scaled by 2 with a 2-pixel gap.
        let text = k.to_string();
        if (4..4 + 5 * DIGIT_SCALE).contains(&yy) && xx >= 20 {
            let dx = xx - 20;
            let adv = 4 * DIGIT_SCALE;
            let (i, px) = ((dx / adv) as usize, dx % adv);
            if let Some(d) = text.as_bytes().get(i) {
                if px < 3 * DIGIT_SCALE {
                    let glyph = DIGITS[(d - b'0') as usize];
                    let (gx, gy) = (px / DIGIT_SCALE, (yy - 4) / DIGIT_SCALE);
                    if glyph[gy as usize] >> (2 - gx) & 1 == 1 {
                        return 1;
                    }
                }
            }
        }
        0
    }
}

fn image(args: &ChompImageArgs) -> anyhow::Result<()> {
    let a = args.first_row;
    let n = args.rule.players() as u8;
    if args.rows != 2 && args.rows != 3 {
        return Err(usage!("--rows must be 2 or 3 (got {})", args.rows));
    }
    if a > 4000 {
        return Err(usage!("--first-row at most 4000 for a picture (got {a})"));
    }
    let side = a + 1;
    let scale = args.scale.unwrap_or((600 / side).max(1));
    if scale == 0 || (side as u64) * (scale as u64) > 32_768 {
        return Err(usage!(
            "--scale {scale}: the picture would pass 32768 pixels a side"
        ));
    }
    let choice = Choice::new(&args.rule);
    // plane[y·side + x]: the ordinal of the cell, 255 outside the triangle.
    let mut plane = vec![255u8; side as usize * side as usize];
    if args.rows == 3 {
        // The (b, c) plane of (A, b, c): y = b, x = c ≤ b.
        ordinals_three_rows(a, &choice, |first, slice| {
            if first == a {
                let mut i = 0;
                for b in 0..=a as usize {
                    for c in 0..=b {
                        plane[b * side as usize + c] = slice[i];
                        i += 1;
                    }
                }
            }
        });
    } else {
        // The triangle of (a', b), a' ≤ A: y = a', x = b ≤ a'.
        let t = OrdTable::compute(
            ChompBox {
                rows: 2,
                cols: a.max(1),
            },
            &args.rule,
        )?;
        for x in 0..=a as usize {
            for b in 0..=x {
                plane[x * side as usize + b] = t.ords[x * (x + 1) / 2 + b];
            }
        }
    }
    let grid = side * scale;
    // Axis labels above and left of the grid: rows 3 has b down and c across, rows 2 has a
    // down and b across.
    let axes = if args.rows == 3 {
        Axes::new("c", "b", grid, grid)
    } else {
        Axes::new("b", "a", grid, grid)
    };
    let legend = Legend {
        entries: n as usize + 1,
        per_line: 1,
    };
    let width = (AXIS_BAND + grid)
        .max(LEGEND_ENTRY_W * legend.entries as u32)
        .max(64);
    let legend = Legend {
        per_line: (width / LEGEND_ENTRY_W).max(1) as usize,
        ..legend
    };
    let top = AXIS_BAND + grid;
    let height = top + legend.height();
    check_output(&args.output, width as u64, height as u64)?;
    let spec = PngSpec {
        width,
        height,
        format: PixelFormat::Indexed {
            bits: 8,
            palette: palette(n),
        },
        compression: Compression::Balanced,
    };
    describe_pictures(&format!(
        "ordinals of {} under rule {}, {scale} pixel{} per position, ordinal k in palette entry 2+k",
        if args.rows == 3 {
            format!("the positions ({a},b,c), b down, c across")
        } else {
            format!("the positions (a,b) with a ≤ {a}, a down, b across")
        },
        args.rule.normalised(),
        if scale == 1 { "" } else { "s" }
    ));
    write_image(&args.output, &spec, |y, row| {
        if y < top {
            for (x, px) in row.iter_mut().enumerate() {
                let x = x as u32;
                let in_grid = (AXIS_BAND..top).contains(&x) && y >= AXIS_BAND;
                *px = if in_grid {
                    let (cy, cx) = ((y - AXIS_BAND) / scale, (x - AXIS_BAND) / scale);
                    match plane[cy as usize * side as usize + cx as usize] {
                        255 => 0,
                        o => 2 + o,
                    }
                } else if axes.ink(x, y) {
                    1
                } else {
                    0
                };
            }
        } else {
            for (x, px) in row.iter_mut().enumerate() {
                *px = legend.pixel(x as u32, y - top);
            }
        }
        Ok(())
    })?;
    let mut counts = vec![0u64; n as usize + 1];
    for &o in &plane {
        if o != 255 {
            counts[o as usize] += 1;
        }
    }
    let what = if args.rows == 3 {
        format!("the (b,c) plane of ({a},b,c)")
    } else {
        format!("the two-row positions (a,b), a ≤ {a}")
    };
    println!(
        "wrote {} ({width}x{height}): {what} under rule {}, ordinal counts {:?}",
        args.output.display(),
        args.rule.normalised(),
        counts
    );
    Ok(())
}
