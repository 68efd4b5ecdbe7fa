//! Two-player Chomp (docs/mathematics.md §5b): P or N for every position of a box, its Grundy
//! values, and the P-positions by number of cells.
//!
//! From the bottom up (each file imports only those above it in this list, and `index`,
//! `bits`, `store` and `engine` beside this folder):
//! - [`table`]: the one-bit table ([`table::PTable`]) and what every bit source answers
//!   ([`table::BitSource`]);
//! - [`reference`](mod@reference): the slow twins (rank order; the GPU kernel's volume layers);
//! - [`forward`]: the forward solver for any layout ([`forward::Marker`]);
//! - [`colex_parents`], [`hook_parents`]: where parents lie in each layout;
//! - [`solve`]: solving a box in memory;
//! - [`device`]: tables on a device (the GPU) as traits;
//! - [`pull`]: the pull scan of a square (the GPU hook kernel's twin);
//! - [`file`](mod@file): table files and checkpoints;
//! - [`block_plan`]: how a box larger than memory is cut into pieces, in windows or waves;
//! - [`blocks`]: boxes larger than memory solved piece by piece, through the engine's one
//!   lifecycle;
//! - [`grundy`]: Grundy values on the colex schedule;
//! - [`grundy_file`]: Grundy tables on disk, their checkpoint, and the reader of either kind;
//! - [`cells`]: P-positions by number of cells;
//! - [`grundy_cells`]: Grundy values by number of cells, as FindStat's St000681 lists them.
//!
//! Tests: the unit tests of these files; tests/games/chomp/two_player.rs,
//! tests/games/chomp/grundy_file.rs, tests/games/blocks.rs.

mod assembly;
pub mod block_plan;
pub mod blocks;
pub mod cells;
pub mod cells_file;
pub mod colex_parents;
pub mod device;
pub mod file;
pub mod forward;
pub mod grundy;
pub mod grundy_cells;
pub mod grundy_file;
pub mod hook_parents;
pub mod piece;
pub mod plan;
pub mod pull;
pub mod reference;
pub mod run;
pub mod solve;
pub mod table;

pub use table::{BitSource, PTable, RectangleBites};
