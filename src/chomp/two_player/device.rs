//! Two-player tables on a device (a GPU) as traits, implemented in `crate::gpu`
//! (`ChompGpuDevice`): the mathematics here does not know what a GPU is. A square is solved by
//! the pull scan of `super::pull` in the hook index of `chomp solve`'s own table; any other
//! box by the volume-layer kernel. A square's table stays on the device: the host reads back
//! its P-count (a chunk at a time), its words (for a table file) or only chosen bits
//! ([`DeviceTable::bits_at`]: the bites of every rectangle read about n⁴/4 of them).
//!
//! Tests: tests/engine/chomp_hook.rs (lavapipe: the forward solver's bits to 12×12 with the
//! default and the tiniest buffers, the index arithmetic past 2^32, the bites), tests/games
//! through `chomp solve --backend gpu`.

use super::file::save_table;
use super::plan::{SolvePlan, Solved};
use super::pull::PullStats;
use super::table::{BitSource, PTable, RectangleBites};
use crate::chomp::diagram::ChompBox;
use crate::chomp::index::hook::weighted_count;
use crate::chomp::index::BitLayout;
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::collections::HashMap;

/// How a square's table is laid out on a device, said before any work.
#[derive(Debug, Clone)]
pub struct Preflight {
    /// The device's name.
    pub device: String,
    /// The largest storage binding, in bytes.
    pub max_binding: u64,
    /// The largest buffer, in bytes.
    pub max_buffer: u64,
    /// Storage buffers one kernel may bind.
    pub max_bindings: u32,
    /// Table buffers the kernel selects from.
    pub table_bindings: u32,
    /// Bytes of the table.
    pub table_bytes: u64,
    /// u32 words in each table buffer (a power of two; the last may be shorter).
    pub buffer_words: u64,
    /// Table buffers used.
    pub buffers: u64,
    /// How the kernel reads the bits it writes.
    pub reads: TableReads,
}

/// How a device's kernel reads the table's bits while it writes others. Every bit a step reads
/// was settled by an earlier dispatch; only the bits being written are shared with writers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TableReads {
    /// Atomic loads through the bindings the kernel writes by (device scope: a GPU whose first
    /// caches are not coherent serves them past those caches).
    #[default]
    Atomic,
    /// Plain loads through a second binding of each table buffer, which a GPU may serve from
    /// its first caches; each buffer then takes two bindings.
    Plain,
}

impl TableReads {
    /// Its name on the command line (`CHOMPUTE_GPU_TABLE_READS`).
    pub fn name(self) -> &'static str {
        match self {
            TableReads::Atomic => "atomic",
            TableReads::Plain => "plain",
        }
    }

    /// Bindings the kernel takes for each table buffer: one, or two for plain reads.
    pub fn bindings_per_buffer(self) -> u32 {
        match self {
            TableReads::Atomic => 1,
            TableReads::Plain => 2,
        }
    }

    /// The reads named `name` ("atomic" or "plain").
    pub fn parse(name: &str) -> Result<TableReads> {
        match name {
            "atomic" => Ok(TableReads::Atomic),
            "plain" => Ok(TableReads::Plain),
            _ => Err(Error::invalid(format!(
                "table reads '{name}' are neither 'atomic' nor 'plain'"
            ))),
        }
    }
}

impl Preflight {
    /// The one line said before any work.
    pub fn line(&self) -> String {
        format!(
            "device {}: largest binding {} bytes, largest buffer {} bytes, {} storage bindings; \
             table {} bytes in {} of at most {} buffers of {} bytes, {} reads",
            self.device,
            self.max_binding,
            self.max_buffer,
            self.max_bindings,
            self.table_bytes,
            self.buffers,
            self.table_bindings,
            self.buffer_words * 4,
            self.reads.name()
        )
    }
}

/// A square's table held on a device.
pub trait DeviceTable {
    /// The P-positions of the box (a pair stored once counts twice), read a chunk at a time.
    fn p_count(&self) -> Result<u64>;
    /// Every word of the table (bit b of word b / 64), for a table file.
    fn words(&self) -> Result<Vec<u64>>;
    /// The bits at `indexes`, in order.
    fn bits_at(&self, indexes: &[u64]) -> Result<Vec<bool>>;
    /// Options read by the kernel, when counted.
    fn stats(&self) -> Option<PullStats>;
}

/// A device that solves two-player tables: a box that is not square by its volume-layer
/// kernel, a square by the hook kernel.
pub trait ChompDevice: Send + Sync {
    /// The table of a box that is not square, every position by colex rank (read back whole);
    /// refuses a box the kernel does not take.
    fn solve_by_layers(&self, shape: ChompBox) -> Result<PTable>;
    /// How `layout`'s table would lie on the device, with buffers of `buffer_words` u32 words
    /// when given (a test's tiny buffers) else the largest the device binds; refuses a table
    /// the device cannot bind.
    fn preflight(&self, layout: &BitLayout, buffer_words: Option<u64>) -> Result<Preflight>;
    /// Solve `layout`'s table (a square's hook index) as `plan` lays it out, counting the
    /// options read when `stats`; the table stays on the device.
    fn solve_hook(
        &self,
        layout: &BitLayout,
        plan: &Preflight,
        stats: bool,
    ) -> Result<Box<dyn DeviceTable>>;
}

/// What a device run is asked for besides the table.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeviceOptions {
    /// Table buffers of this many u32 words (a power of two), for tests; else the largest.
    pub buffer_words: Option<u64>,
    /// Count the options the kernel reads.
    pub stats: bool,
    /// The winning bites of every rectangle of the box, read on the device.
    pub bites: bool,
}

/// What a device run gives.
#[derive(Debug)]
pub struct DeviceSolve {
    /// The table's layout on the device (a square), said before the work.
    pub preflight: Option<Preflight>,
    /// The P-count and layout.
    pub solved: Solved,
    /// The winning bites of every rectangle, when asked for.
    pub bites: Option<Vec<RectangleBites>>,
    /// The options the kernel read, when counted.
    pub stats: Option<PullStats>,
}

/// Run `plan` (a GPU route) on `device`: a square by the hook kernel, the table kept on the
/// device (saved to the plan's file, which the plan checked the host can hold), any other box
/// by the volume-layer kernel. `said(preflight)` hears the square's layout on the device
/// before any work.
pub fn solve_on(
    device: &dyn ChompDevice,
    plan: &SolvePlan,
    options: DeviceOptions,
    said: impl FnOnce(&Preflight),
) -> Result<DeviceSolve> {
    let layout = &plan.layout;
    if layout.hook_index().is_none() {
        let solve = || device.solve_by_layers(plan.shape);
        let table = match &plan.output {
            None => solve()?,
            Some(o) => super::run::solve_unresumable(o, layout, |out| {
                let table = solve()?;
                save_table(&table, out).map(|()| table)
            })?,
        };
        return Ok(DeviceSolve {
            preflight: None,
            solved: Solved::whole(layout, table.p_count()),
            bites: options.bites.then(|| table.rectangle_bites(plan.shape)),
            stats: None,
        });
    }
    let preflight = device.preflight(layout, options.buffer_words)?;
    said(&preflight);
    let solve = || device.solve_hook(layout, &preflight, options.stats);
    let (table, p_positions) = match &plan.output {
        // Written through the engine's one lifecycle: the target, the lock, the disk, the file.
        Some(o) => super::run::solve_unresumable(o, layout, |out| {
            let table = solve()?;
            let host = PTable::from_words(layout.clone(), table.words()?)?;
            save_table(&host, out)?;
            Ok((table, host.p_count()))
        })?,
        None => solve().and_then(|t| t.p_count().map(|p| (t, p)))?,
    };
    let bites = options
        .bites
        .then(|| device_bites(&*table, layout, plan.shape));
    Ok(DeviceSolve {
        preflight: Some(preflight),
        solved: Solved::whole(layout, p_positions),
        bites: bites.transpose()?,
        stats: table.stats(),
    })
}

/// [`weighted_count`] of u32 words read back from a device (bit b of word b / 32), bit 0
/// standing for index `first`.
pub fn weighted_count_u32(leaves: &[(u64, u64, u64)], first: u64, words: &[u32]) -> u64 {
    let half = |j: usize| words.get(j).map_or(0, |&w| w as u64);
    weighted_count(leaves, first, 32 * words.len() as u64, |i| {
        half(2 * i) | half(2 * i + 1) << 32
    })
}

/// A [`BitSource`] over the bits read from a device: before they are read (`bits` none) it
/// answers N and notes every bit asked for, since the bites of the rectangles read the same
/// bits whatever they hold.
struct Gather<'a> {
    layout: &'a BitLayout,
    asked: RefCell<Vec<u64>>,
    bits: Option<HashMap<u64, bool>>,
}

impl BitSource for Gather<'_> {
    fn layout(&self) -> &BitLayout {
        self.layout
    }

    fn is_p_bit(&self, b: u64) -> Result<bool> {
        let Some(bits) = &self.bits else {
            self.asked.borrow_mut().push(b);
            return Ok(false);
        };
        let read = bits.get(&b).copied();
        read.ok_or_else(|| Error::invalid(format!("bit {b} was not read from the device")))
    }
}

/// The winning bites of every rectangle of `shape` from a table on a device: the bits they
/// need are listed first, read in one gather, then the bites are found as
/// [`BitSource::rectangle_bites`] finds them in a file.
pub fn device_bites(
    table: &dyn DeviceTable,
    layout: &BitLayout,
    shape: ChompBox,
) -> Result<Vec<RectangleBites>> {
    let mut gather = Gather {
        layout,
        asked: RefCell::new(Vec::new()),
        bits: None,
    };
    gather.rectangle_bites(shape)?;
    let mut asked = gather.asked.take();
    asked.sort_unstable();
    asked.dedup();
    let bits = table.bits_at(&asked)?;
    gather.bits = Some(asked.into_iter().zip(bits).collect());
    gather.rectangle_bites(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_u32_words_masks_both_ends_and_weighs() {
        let words = [u32::MAX, 0b1011, u32::MAX];
        let one = |lo, hi| weighted_count_u32(&[(lo, hi, 1)], 0, &words);
        assert_eq!(one(0, 96), 32 + 3 + 32);
        assert_eq!(one(3, 5), 2);
        assert_eq!(one(31, 34), 1 + 2);
        assert_eq!(one(33, 64), 2);
        assert_eq!(one(40, 40), 0);
        let leaves = [(0, 40, 2), (40, 90, 1)];
        assert_eq!(weighted_count_u32(&leaves, 0, &words), 2 * 35 + 26);
        assert_eq!(weighted_count_u32(&leaves, 32, &words[1..]), 2 * 3 + 26);
    }
}
