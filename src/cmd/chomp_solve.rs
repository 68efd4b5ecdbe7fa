//! `chompute chomp solve|query|bites|grundy|cells`: two-player Chomp tables
//! (docs/mathematics.md §5b).
//!
//! Tests: the command as users run it in tests/faults/cli.rs, tests/games/blocks.rs,
//! tests/games/chomp/two_player.rs, tests/games/chomp/grundy_file.rs, tests/games/tables.rs.

use super::csv_field;
use super::out::{print_report, Report, Stdout};
use crate::cli::Format;
use crate::cli::{ChompBitesArgs, ChompCellsArgs, ChompGrundyArgs, ChompQueryArgs, ChompSolveArgs};
use anyhow::anyhow;
use chompute::chomp::engine::lifecycle::RunEvent;
use chompute::chomp::engine::schedule::Schedule;
use chompute::chomp::multiplayer::ord_file::OrdFile;
use chompute::chomp::saved::SavedTable;
use chompute::chomp::two_player::cells::{CellsEngine, CellsRow, CellsTable};
use chompute::chomp::two_player::cells_file::CellsFile;
use chompute::chomp::two_player::file::TableFile;
use chompute::chomp::two_player::grundy::GrundyTable;
use chompute::chomp::two_player::grundy::{
    GrundyPlan, GrundySequence, RectangleGrundy, ValueBytes,
};
use chompute::chomp::two_player::grundy_file::{self, GrundyFile};
use chompute::chomp::two_player::plan::{PlanSummary, Route, SolvePlan, Solved};
use chompute::chomp::two_player::RectangleBites;
use chompute::chomp::two_player::{block_plan, blocks};
use chompute::chomp::{ChompBox, Diagram};
use chompute::gpu::BackendChoice;
use chompute::memory::human_bytes;
use chompute::memory::Room;
use serde::Serialize;
use std::io::Write;
use std::time::Instant;

#[derive(Serialize)]
struct SolveReport {
    backend: &'static str,
    #[serde(rename = "box")]
    shape: String,
    positions: u64,
    p_positions: u64,
    bytes: u64,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    resumed_layers: u64,
    layers: u64,
    /// Windows of a table solved in blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<u64>,
    /// Whether the table keeps one bit per transposed pair (the text says so).
    #[serde(skip)]
    pairs: bool,
    /// `--bites`: the winning bites of every rectangle, read on the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    rectangles: Option<Vec<RectangleBites>>,
}

impl Report for SolveReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(
            out,
            "box {}: {} positions, {} P-positions",
            self.shape, self.positions, self.p_positions
        )?;
        let per = if self.pairs {
            "pair of transposed positions"
        } else {
            "position"
        };
        let (bytes, seconds) = (human_bytes(self.bytes), self.seconds);
        writeln!(out, "{bytes} at one bit per {per}, {seconds:.3} s")?;
        if let Some(f) = &self.file {
            writeln!(out, "table saved to {f}")?;
        }
        if let Some(rectangles) = &self.rectangles {
            let bites = BitesReport {
                shape: self.shape.clone(),
                rectangles: rectangles.clone(),
            };
            bites.text(out)?;
        }
        Ok(())
    }
}

/// `chomp solve --backend gpu`: a square by the hook kernel (its layout on the device said
/// first, on stderr), any other box by the volume-layer kernel. `CHOMPUTE_GPU_TABLE_WORDS`
/// sets the words of each table buffer (tests), `CHOMPUTE_GPU_STATS=1` counts the options
/// the kernel reads, `CHOMPUTE_GPU_TABLE_READS=plain` has the kernel read the table by plain
/// loads through a second binding of each buffer (`atomic`, the default: atomic loads).
fn solve_gpu(args: &ChompSolveArgs, plan: &SolvePlan, start: Instant) -> anyhow::Result<()> {
    use chompute::chomp::two_player::device::{solve_on, DeviceOptions, TableReads};
    let buffer_words = match std::env::var("CHOMPUTE_GPU_TABLE_WORDS") {
        Ok(v) if !v.is_empty() => Some(
            v.parse::<u64>()
                .map_err(|_| anyhow!("CHOMPUTE_GPU_TABLE_WORDS='{v}' is not a number of words"))?,
        ),
        _ => None,
    };
    let options = DeviceOptions {
        buffer_words,
        stats: std::env::var("CHOMPUTE_GPU_STATS").is_ok_and(|v| v == "1"),
        bites: args.bites,
    };
    let ctx = chompute::gpu::GpuContext::shared().map_err(super::on_gpu)?;
    let reads = match std::env::var("CHOMPUTE_GPU_TABLE_READS") {
        Ok(v) if !v.is_empty() => {
            TableReads::parse(&v).map_err(|e| anyhow!("CHOMPUTE_GPU_TABLE_READS: {e}"))?
        }
        _ => TableReads::Atomic,
    };
    let device = chompute::gpu::chomp_hook::ChompGpuDevice::new(ctx).with_reads(reads);
    let run = solve_on(&device, plan, options, |p| {
        crate::errln!("chompute: {}", p.line())
    })
    .map_err(super::on_gpu)?;
    if let Some(s) = run.stats {
        crate::errln!(
            "chompute: the kernel read {} options for {} positions ({:.2} a position)",
            s.options,
            s.positions,
            s.options as f64 / s.positions.max(1) as f64
        );
    }
    let seconds = start.elapsed().as_secs_f64();
    report_solved(args, &run.solved, "gpu", seconds, 0, run.bites)
}

/// `chomp solve --box RxC [-o FILE]`: the prefix layers on the CPU (resumable with -o), or the
/// volume-layer kernel on the GPU with `--backend gpu`.
pub fn solve(backend: BackendChoice, args: &ChompSolveArgs) -> anyhow::Result<()> {
    let shape = args.shape;
    // `gpu` forces the GPU; `auto` takes it where the rates saved for this machine (or the
    // default table) give Chomp to the GPU, and only for a box that is not square: `bench`
    // measures the layer kernel, and the hook kernel of a square is slower than the CPU's
    // forward solver wherever it was measured (BENCHMARKS.md).
    let gpu = match backend {
        BackendChoice::Auto => {
            shape.rows as u64 != shape.cols as u64
                && matches!(
                    chompute::gpu::Engine::for_job(backend, chompute::gpu::Job::Chomp),
                    Ok(chompute::gpu::Engine::Gpu(_))
                )
        }
        other => other == BackendChoice::Gpu,
    };
    if args.plan && !gpu {
        return print_plan(args);
    }
    let plan = SolvePlan::new(shape, gpu, args.output.as_deref(), args.memory, args.part)?;
    let start = Instant::now();
    if plan.route == Route::Gpu {
        return solve_gpu(args, &plan, start);
    }
    if args.bites {
        return Err(anyhow!(
            "--bites reads the winning bites on the device: add --backend gpu, or run \
             chomp bites --table on the saved table"
        ));
    }
    let index = &plan.layout;
    crate::cmd::bars::summary(&format!(
        "box {shape}: {} positions, {} at one bit {}",
        // The empty diagram has a bit but is no position (the report below counts the same).
        index.positions() - 1,
        human_bytes(index.bytes()),
        if index.hook_index().is_some() {
            "per pair of transposed positions"
        } else {
            "each"
        }
    ));
    let mut resumed = 0;
    let solved = plan.run(|event| match event {
        RunEvent::Piece {
            piece: window,
            pieces: windows,
            lo,
            hi,
            resumed_steps,
            dropped_bytes,
        } => {
            if dropped_bytes > 0 {
                crate::errln!(
                    "chompute: piece {}: resuming after {resumed_steps} steps{}",
                    window + 1,
                    dropped(dropped_bytes)
                );
            }
            crate::cmd::bars::summary(&format!(
                "block {} of {windows}: indexes {lo}..{hi}{}",
                window + 1,
                if resumed_steps > 0 {
                    format!(", resuming after {resumed_steps} steps")
                } else {
                    String::new()
                }
            ));
        }
        RunEvent::Assembling => {
            crate::cmd::bars::summary("every block solved: writing the table in place of them");
        }
        event => {
            // Said before the first layer's bar is drawn.
            if let Some(done) = said_resumed(&event) {
                resumed = done;
            }
        }
    })?;
    if let (Some(part), Some(run)) = (args.part, solved.blocks) {
        if !run.saved {
            return report_part(args, part, &run, start.elapsed().as_secs_f64());
        }
    }
    report_solved(
        args,
        &solved,
        "cpu",
        start.elapsed().as_secs_f64(),
        resumed,
        None,
    )
}

/// `chomp solve --plan`: the pieces a run would follow, as the library's plan says.
fn print_plan(args: &ChompSolveArgs) -> anyhow::Result<()> {
    let pieces = SolvePlan::pieces(args.shape, args.output.as_deref(), args.memory, args.part)?;
    print_report(&pieces, args.format.get())
}

/// The plan: a line for the box and its pieces, then one row per wave.
impl Report for PlanSummary {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(
            out,
            "box {}: {} indexes ({}) in {} pieces of at most {} in memory, {} layout, {} waves, {} steps",
            self.shape,
            self.bits,
            human_bytes(self.bytes),
            self.pieces,
            human_bytes(self.piece_bytes),
            self.layout,
            self.waves.len(),
            self.steps
        )?;
        writeln!(
            out,
            "{:>5} {:>6} {:>6} {:>14} {:>14} {:>11} {:>14}",
            "wave", "groups", "pieces", "bits", "largest group", "pieces done", "bits done"
        )?;
        for w in &self.waves {
            writeln!(
                out,
                "{:>5} {:>6} {:>6} {:>14} {:>14} {:>11} {:>14}",
                w.wave,
                w.groups,
                w.pieces,
                w.bits,
                w.largest_group_bits,
                w.pieces_done,
                w.bits_done
            )?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
struct PartReport {
    #[serde(rename = "box")]
    shape: String,
    part: u64,
    parts: u64,
    /// The wave this part worked on, from 1 (absent when every wave was done).
    #[serde(skip_serializing_if = "Option::is_none")]
    wave: Option<u64>,
    waves: u64,
    waves_done: u64,
    pieces_done_before: u64,
    pieces: u64,
    seconds: f64,
}

/// What `chomp solve --part I/N` did.
fn report_part(
    args: &ChompSolveArgs,
    part: block_plan::Part,
    run: &blocks::BlockRun,
    seconds: f64,
) -> anyhow::Result<()> {
    let report = PartReport {
        shape: args.shape.to_string(),
        part: part.part,
        parts: part.parts,
        wave: run.wave.map(|w| w + 1),
        waves: run.waves,
        waves_done: run.waves_done,
        pieces_done_before: run.windows_resumed,
        pieces: run.windows,
        seconds,
    };
    print_report(&report, args.format.get())
}

impl Report for PartReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let (shape, part, parts) = (&self.shape, self.part, self.parts);
        let (waves, done) = (self.waves, self.waves_done);
        match self.wave {
            Some(w) => writeln!(
                out,
                "box {shape}: part {part}/{parts} of wave {w} of {waves} done; {done} of {waves} waves done, {:.3} s",
                self.seconds
            ),
            None => writeln!(
                out,
                "box {shape}: part {part}/{parts} has no wave left; {done} of {waves} waves done"
            ),
        }
    }
}

/// ", the damaged rest (N bytes) dropped" when a checkpoint's tail was cut off.
/// Say on stderr what a run to a file resumed from ([`RunEvent::Resumed`]) or began again
/// ([`RunEvent::Restarted`]), for every kind; the steps it found done, or `None` for any
/// other event.
pub(super) fn said_resumed(event: &RunEvent) -> Option<u64> {
    match event {
        RunEvent::Resumed {
            path,
            steps_done,
            steps,
            dropped_bytes,
            snapshot,
        } => {
            let from = match snapshot {
                Some(s) if s < steps_done => format!(", from a snapshot of the marks after {s}"),
                _ => String::new(),
            };
            crate::errln!(
                "chompute: resuming from {}: {steps_done} of {steps} steps done{from}{}",
                path.display(),
                dropped(*dropped_bytes)
            );
            Some(*steps_done)
        }
        RunEvent::Restarted { path, why } => {
            crate::errln!(
                "chompute: starting afresh: the checkpoint {} could not be resumed ({why})",
                path.display()
            );
            None
        }
        _ => None,
    }
}

pub(super) fn dropped(bytes: u64) -> String {
    if bytes == 0 {
        String::new()
    } else {
        format!(
            "; a torn or damaged tail of {bytes} bytes was dropped (those layers are solved again)"
        )
    }
}

fn report_solved(
    args: &ChompSolveArgs,
    table: &Solved,
    backend: &'static str,
    seconds: f64,
    resumed: u64,
    rectangles: Option<Vec<RectangleBites>>,
) -> anyhow::Result<()> {
    let shape = args.shape;
    let bytes = table.index.bytes();
    let report = SolveReport {
        backend,
        shape: shape.to_string(),
        positions: table.index.positions() - 1,
        p_positions: table.p_positions,
        bytes,
        seconds,
        file: args.output.as_ref().map(|p| p.display().to_string()),
        resumed_layers: resumed,
        layers: table.index.steps(),
        blocks: table.blocks.map(|b| b.windows),
        pairs: table.index.hook_index().is_some(),
        rectangles,
    };
    print_report(&report, args.format.get())
}

fn rows_of(d: &Diagram) -> Vec<u32> {
    d.rows().to_vec()
}

/// The cell (row, column) each bite from `p` to one of `options` takes.
fn cells_of(p: &Diagram, options: &[Diagram]) -> Vec<(usize, u32)> {
    options
        .iter()
        .map(|q| chompute::chomp::two_player::table::bitten_cell(p, q))
        .collect()
}

/// A bite as the cell it takes and the position it leaves: `(5,7) leaves (11,11,6)`.
fn said_bite(cell: (usize, u32), q: &[u32]) -> String {
    format!("({},{}) leaves ({})", cell.0, cell.1, text_bite(q))
}

/// Bites as `said_bite` says them, separated by "; ".
fn said_bites(cells: &[(usize, u32)], bites: &[Vec<u32>]) -> String {
    let said: Vec<String> = cells
        .iter()
        .zip(bites)
        .map(|(&c, q)| said_bite(c, q))
        .collect();
    said.join("; ")
}

#[derive(Serialize)]
struct QueryReport {
    position: String,
    #[serde(rename = "box")]
    shape: String,
    p: bool,
    /// The positions the winning bites leave.
    bites: Vec<Vec<u32>>,
    /// The cell each winning bite takes, (row, column) from (1,1), in the order of `bites`.
    bite_cells: Vec<(usize, u32)>,
}

impl Report for QueryReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let p = &self.position;
        if self.p {
            return writeln!(out, "{p}: P (every bite loses)");
        }
        writeln!(
            out,
            "{p}: N, {}",
            said_winning(&self.bite_cells, &self.bites)
        )
    }
}

/// "1 winning bite: (3,3) leaves (5,3,2)".
fn said_winning(cells: &[(usize, u32)], bites: &[Vec<u32>]) -> String {
    let n = bites.len();
    let s = if n == 1 { "" } else { "s" };
    format!("{n} winning bite{s}: {}", said_bites(cells, bites))
}

/// `chomp query FILE --position a,b,c`: a one-bit table's P or N and winning bites, or a
/// Grundy table's value and a move to each smaller value, as the file's first line says.
pub fn query(args: &ChompQueryArgs) -> anyhow::Result<()> {
    let file = match SavedTable::open(&args.table)? {
        SavedTable::Bits(file) => file,
        SavedTable::Grundy(file) => return query_grundy(args, &file),
        SavedTable::Ords(file) => return query_ord(args, &file),
        SavedTable::Cells(file) => return query_cells(args, &file),
    };
    if args.verify {
        file.verify()?;
    }
    let p = &args.position;
    let is_p = file.is_p(p)?;
    let bites = file.winning_bites(p)?;
    let report = QueryReport {
        position: p.to_string(),
        shape: file.shape().to_string(),
        p: is_p,
        bites: bites.iter().map(rows_of).collect(),
        bite_cells: cells_of(p, &bites),
    };
    print_report(&report, args.format.get())
}

#[derive(Serialize)]
struct CellsQueryReport {
    position: String,
    cells: u64,
    max: u32,
    p: bool,
    /// The positions a winning bite leaves (empty for a P-position).
    bites: Vec<Vec<u32>>,
    /// The cell each winning bite takes, (row, column) from (1,1), in the order of `bites`.
    bite_cells: Vec<(usize, u32)>,
}

impl Report for CellsQueryReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let p = &self.position;
        if self.p {
            return writeln!(out, "{p}: P (every bite loses)");
        }
        writeln!(
            out,
            "{p}: N, {}",
            said_winning(&self.bite_cells, &self.bites)
        )
    }
}

/// `chomp query` of a cells table: P or N, and the bites that leave a P-position.
fn query_cells(args: &ChompQueryArgs, file: &CellsFile) -> anyhow::Result<()> {
    if args.verify {
        file.verify()?;
    }
    let p = &args.position;
    let outside = || {
        chompute::Error::invalid(format!(
            "{p} has {} cells; {} holds the diagrams of 1 to {} cells",
            p.volume(),
            args.table.display(),
            file.max()
        ))
    };
    let bites = file.winning_bites(p)?.ok_or_else(outside)?;
    let report = CellsQueryReport {
        position: p.to_string(),
        cells: p.volume(),
        max: file.max(),
        p: bites.is_empty(),
        bites: bites.iter().map(rows_of).collect(),
        bite_cells: cells_of(p, &bites),
    };
    print_report(&report, args.format.get())
}

#[derive(Serialize)]
struct GrundyQueryReport {
    position: String,
    #[serde(rename = "box")]
    shape: String,
    grundy: u16,
    p: bool,
    /// At index g, a position of value g that a bite leaves.
    moves: Vec<Vec<u32>>,
    /// The cell each of `moves` bites, (row, column) from (1,1).
    bite_cells: Vec<(usize, u32)>,
}

impl Report for GrundyQueryReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let (p, g) = (&self.position, self.grundy);
        if self.p {
            return writeln!(out, "{p}: Grundy value 0, P (every bite loses)");
        }
        let list: Vec<String> = self
            .moves
            .iter()
            .zip(&self.bite_cells)
            .enumerate()
            .map(|(v, (q, &c))| format!("{v}: {}", said_bite(c, q)))
            .collect();
        writeln!(
            out,
            "{p}: Grundy value {g}, a move to each smaller value: {}",
            list.join("; ")
        )
    }
}

/// `chomp query` of a Grundy table.
fn query_grundy(args: &ChompQueryArgs, file: &GrundyFile) -> anyhow::Result<()> {
    if args.verify {
        file.verify()?;
    }
    let p = &args.position;
    let grundy = file.value(p)?;
    let moves = file.moves(p)?;
    let report = grundy_query_report(p, file.shape(), grundy, &moves);
    print_report(&report, args.format.get())
}

fn grundy_query_report(
    p: &Diagram,
    shape: ChompBox,
    grundy: u16,
    moves: &[Diagram],
) -> GrundyQueryReport {
    GrundyQueryReport {
        position: p.to_string(),
        shape: shape.to_string(),
        grundy,
        p: grundy == 0,
        moves: moves.iter().map(rows_of).collect(),
        bite_cells: cells_of(p, moves),
    }
}

#[derive(Serialize)]
struct OrdQueryReport {
    position: String,
    #[serde(rename = "box")]
    shape: String,
    rule: String,
    players: usize,
    ordinal: u8,
    /// Sol: the positions the optimal moves leave.
    sol: Vec<String>,
    /// One solution chain down to the empty diagram.
    chain: Vec<String>,
}

impl Report for OrdQueryReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let sol: Vec<String> = self.sol.iter().map(|q| format!("({q})")).collect();
        let chain: Vec<String> = self.chain.iter().map(|q| format!("({q})")).collect();
        writeln!(
            out,
            "position ({}): ordinal {} under rule {} ({} players)",
            self.position, self.ordinal, self.rule, self.players
        )?;
        writeln!(out, "Sol = {{{}}}", sol.join(", "))?;
        writeln!(out, "solution chain: {}", chain.join(" -> "))
    }
}

/// `chomp query` of an ordinal table (`chomp ord -o`).
fn query_ord(args: &ChompQueryArgs, file: &OrdFile) -> anyhow::Result<()> {
    if args.verify {
        file.verify()?;
    }
    let p = &args.position;
    let text = |v: Vec<Diagram>| v.iter().map(Diagram::to_string).collect();
    let report = OrdQueryReport {
        position: p.to_string(),
        shape: file.shape().to_string(),
        rule: file.rule().normalised(),
        players: file.rule().players(),
        ordinal: file.ordinal(p)?,
        sol: text(file.sol(p)?),
        chain: text(file.chain(p)?),
    };
    print_report(&report, args.format.get())
}

/// The winning bites `bites` prints: read from a saved table bit by bit, or from a box solved
/// now.
fn rectangle_bites(args: &ChompBitesArgs) -> anyhow::Result<(ChompBox, Vec<RectangleBites>)> {
    match (&args.table, args.shape) {
        (Some(path), shape) => {
            let file = TableFile::open(path)?;
            if args.verify {
                file.verify()?;
            }
            let shape = shape.unwrap_or(file.shape());
            Ok((shape, file.rectangle_bites(shape)?))
        }
        (None, Some(s)) => Ok((
            s,
            chompute::chomp::two_player::solve::solve_box(s)?.rectangle_bites(s),
        )),
        (None, None) => Err(anyhow!(
            "give the box with --box ROWSxCOLUMNS or a --table FILE"
        )),
    }
}

#[derive(Serialize)]
struct BitesReport {
    #[serde(rename = "box")]
    shape: String,
    rectangles: Vec<RectangleBites>,
}

/// `chomp bites --box RxC`.
pub fn bites(args: &ChompBitesArgs) -> anyhow::Result<()> {
    if let Some(o) = &args.output {
        chompute::output::check_target(o)?;
        if let Some(table) = &args.table {
            chompute::output::check_apart(o, table, "the table")?;
        }
        // A box too large to draw is refused before it is solved.
        if let Some(shape) = &args.shape {
            chompute::render::figures::check_bites_picture(shape.rows, shape.cols)?;
        }
    }
    let (shape, rects) = rectangle_bites(args)?;
    if let Some(o) = &args.output {
        let counts: Vec<(usize, u32, usize)> = rects
            .iter()
            .map(|r| (r.rows, r.cols, r.bites.len()))
            .collect();
        let description = super::describe_pictures(&format!(
            "the winning bites of every rectangle up to {shape}: one square per rectangle, \
             rows down and columns across, coloured by its number of winning bites (palette entry 2+k)"
        ));
        chompute::render::figures::write_bites_png(
            o,
            shape.rows,
            shape.cols,
            &counts,
            Some(&description),
        )?;
    }
    if let (Some(o), Format::Text) = (&args.output, args.format.get()) {
        // The picture is the output: say what was written, as `chomp image` does.
        let winning = rects.iter().filter(|r| !r.bites.is_empty()).count();
        crate::outln!(
            "wrote {}: {} rectangles up to {shape}, {winning} with a winning bite",
            o.display(),
            rects.len()
        );
        return Ok(());
    }
    let report = BitesReport {
        shape: shape.to_string(),
        rectangles: rects,
    };
    print_report(&report, args.format.get())
}

/// A bite as the row lengths it leaves: `3,1`.
fn text_bite(b: &[u32]) -> String {
    b.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

impl Report for BitesReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        for r in &self.rectangles {
            let what = if r.bites.is_empty() {
                "P".to_string()
            } else {
                said_bites(&r.bite_cells, &r.bites)
            };
            writeln!(out, "{}x{}: {what}", r.rows, r.cols)?;
        }
        Ok(())
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "rows,cols,winning_bites,bites,cells")?;
        for r in &self.rectangles {
            let list: Vec<String> = r.bites.iter().map(|b| text_bite(b)).collect();
            let bites = list.join(" ");
            let cells: Vec<String> = r
                .bite_cells
                .iter()
                .map(|(x, y)| format!("{x},{y}"))
                .collect();
            let cells = cells.join(" ");
            let (bites, cells) = (csv_field(&bites), csv_field(&cells));
            writeln!(
                out,
                "{},{},{},{bites},{cells}",
                r.rows,
                r.cols,
                r.bites.len()
            )?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
struct GrundyReport {
    #[serde(rename = "box")]
    size: ChompBox,
    positions: u64,
    seconds: f64,
    max_grundy: usize,
    histogram: Vec<u64>,
    /// The largest value of the n×n box, n = 1, 2, …
    largest_by_side: Vec<u16>,
    rectangles: Vec<RectangleGrundy>,
    /// `-o FILE`: where the table was saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// With `-o`: layers read back from the checkpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    resumed_layers: Option<u64>,
    /// `--bfile SEQUENCE`: its terms n = 1, 2, …
    #[serde(skip)]
    sequence: Option<Vec<u16>>,
}

impl GrundyReport {
    fn value(&self, r: usize, c: u32) -> u16 {
        self.rectangles[(r - 1) * self.size.cols as usize + (c as usize - 1)].grundy
    }
}

impl Report for GrundyReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(
            out,
            "box {}: {} positions, largest Grundy value {}, {:.3} s",
            self.size, self.positions, self.max_grundy, self.seconds
        )?;
        let ChompBox { rows, cols } = self.size;
        write!(out, "{:>6}", "r\\c")?;
        for c in 1..=cols {
            write!(out, " {c:>4}")?;
        }
        writeln!(out)?;
        for r in 1..=rows {
            write!(out, "{r:>6}")?;
            for c in 1..=cols {
                write!(out, " {:>4}", self.value(r, c))?;
            }
            writeln!(out)?;
        }
        if let Some(f) = &self.file {
            writeln!(out, "table saved to {f}")?;
        }
        Ok(())
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "rows,cols,grundy")?;
        for r in &self.rectangles {
            writeln!(out, "{},{},{}", r.rows, r.cols, r.grundy)?;
        }
        Ok(())
    }

    fn bfile(&self, out: &mut Stdout) -> std::io::Result<()> {
        let Some(terms) = &self.sequence else {
            return Err(std::io::Error::other("no sequence asked for"));
        };
        for (n, g) in terms.iter().enumerate() {
            writeln!(out, "{} {g}", n + 1)?;
        }
        Ok(())
    }
}

/// `chomp grundy --box RxC [-o FILE]`: with -o, resumable and saved; `--position P` one
/// position's value and moves; `--findstat N` every partition of at most N cells.
pub fn grundy(args: &ChompGrundyArgs) -> anyhow::Result<()> {
    if let Some(max) = args.findstat {
        return print_findstat(max);
    }
    let shape = match (args.shape, &args.position) {
        (Some(s), _) => s,
        (None, Some(p)) if !p.is_empty() => ChompBox::of(p),
        (None, Some(_)) => return Err(anyhow!("the empty diagram is not a position")),
        (None, None) => {
            return Err(anyhow!(
                "give the box with --box ROWSxCOLUMNS or a --position"
            ))
        }
    };
    if let Some(path) = &args.picture {
        chompute::output::check_target(path)?;
    }
    let width = args.value_bytes.map(|b| match b {
        1 => ValueBytes::One,
        _ => ValueBytes::Two,
    });
    let plan = GrundyPlan::new(shape, width, args.by_rank, Room::SYSTEM)?;
    // A sequence the box cannot hold is refused before any work.
    if let Some(sequence) = args.bfile {
        sequence.terms(shape)?;
    }
    let start = Instant::now();
    let mut resumed = 0;
    let table = match &args.output {
        None => GrundyTable::compute_with(plan)?,
        Some(path) => grundy_file::compute_to_file(plan, path, |event| {
            if let Some(done) = said_resumed(&event) {
                resumed = done;
            }
        })?,
    };
    let seconds = start.elapsed().as_secs_f64();
    if let Some(p) = &args.position {
        let (Some(grundy), Some(moves)) = (table.value(p), table.moves(p)) else {
            return Err(chompute::Error::invalid(format!(
                "{p} is not a position of the {shape} box"
            ))
            .into());
        };
        if let Some(path) = &args.picture {
            let description = super::describe_pictures(&format!(
                "the Chomp position ({p}), every cell coloured by the Grundy value of the \
                 position its bite leaves (palette entry 2+k for value k; 1 the poisoned cell)"
            ));
            chompute::render::figures::write_position_png(
                path,
                p.rows(),
                |row, col| table.value(&p.bite(row - 1, col - 1)).unwrap_or(0),
                Some(&description),
            )?;
        }
        let report = grundy_query_report(p, shape, grundy, &moves);
        return print_report(&report, args.format.get());
    }
    let sequence = match args.bfile {
        Some(kind) => Some(table.sequence(kind)?),
        None => None,
    };
    let report = GrundyReport {
        size: shape,
        positions: table.ranker().len() - 1,
        seconds,
        max_grundy: table.max_grundy(),
        histogram: table.histogram().to_vec(),
        largest_by_side: table.sequence(GrundySequence::Largest)?,
        rectangles: table.rectangles(),
        file: args.output.as_ref().map(|p| p.display().to_string()),
        resumed_layers: args.output.as_ref().map(|_| resumed),
        sequence,
    };
    print_report(&report, args.format())
}

/// `chomp grundy --findstat N`: `[λ] => value` for every partition of n ≤ N, FindStat's
/// format for St000681.
fn print_findstat(max: u32) -> anyhow::Result<()> {
    use chompute::chomp::two_player::grundy_cells::{by_cells, findstat_line};
    let mut out = super::out::stdout();
    for (p, g) in by_cells(max)? {
        writeln!(out, "{}", findstat_line(&p, g))?;
    }
    out.flush()?;
    Ok(())
}

#[derive(Serialize)]
struct CellsReport {
    max: u32,
    seconds: f64,
    cells: Vec<CellsRow>,
}

impl Report for CellsReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "{:>4} {:>14} {:>12}", "n", "diagrams", "P-positions")?;
        for r in &self.cells {
            writeln!(out, "{:>4} {:>14} {:>12}", r.n, r.diagrams, r.p_positions)?;
        }
        Ok(())
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "n,diagrams,p_positions")?;
        for r in &self.cells {
            writeln!(out, "{},{},{}", r.n, r.diagrams, r.p_positions)?;
        }
        Ok(())
    }

    fn bfile(&self, out: &mut Stdout) -> std::io::Result<()> {
        for r in &self.cells {
            writeln!(out, "{} {}", r.n, r.p_positions)?;
        }
        Ok(())
    }
}

/// `chomp cells --max N [-o FILE]`.
pub fn cells(args: &ChompCellsArgs) -> anyhow::Result<()> {
    use chompute::chomp::two_player::cells_file;
    let start = Instant::now();
    let table = match &args.output {
        None => CellsTable::compute_with(args.max, args.engine)?,
        Some(_) if args.engine != CellsEngine::Forward => {
            return Err(chompute::Error::invalid(
                "-o saves the forward engine's table; leave out --engine scan",
            )
            .into())
        }
        Some(out) => cells_file::compute_to_file_with(
            args.max,
            out,
            std::time::Duration::from_secs(args.save_every),
            |e| {
                said_resumed(&e);
            },
        )?,
    };
    let seconds = start.elapsed().as_secs_f64();
    let cells = table.rows();
    let report = CellsReport {
        max: args.max,
        seconds,
        cells,
    };
    print_report(&report, args.format.get())
}
