//! Multiplayer Chomp (docs/mathematics.md §5): an n-player rule orders the scores of the last
//! biters, and every position has an ordinal by Fact 2.10.
//!
//! - [`rule`]: rules, exact normalisation [Fact 3.4], the Fact 2.10 choice.
//! - [`ordinal`]: the general engine (rank order or parallel volume layers), Sol and chains,
//!   and the engine plan ([`ordinal::OrdPlan`]).
//! - [`packed`]: the packed table (⌈log2(n+1)⌉ bits a position) on the colex prefix layers.
//! - [`hook_ords`]: the packed table of a square in the hook index, one entry a transposed pair.
//! - [`ord_file`]: the packed table on disk (`chomp ord -o`), resumable, read by `chomp query`.
//! - [`three_row`]: O(1) work per position for three rows.
//! - [`classes`]: rule isomorphism classes [Thm 3.1] sharing the move structure.
//! - [`check`]: the paper's claims verified over a box.
//! - [`plane`]: the ordinals of two- or three-row positions on a plane, for pictures.
//!
//! Tests: the unit tests of these files; tests/engine/, tests/games/chomp/multiplayer.rs.

pub mod check;
pub mod classes;
pub mod hook_ords;
pub mod ord_file;
pub mod ordinal;
pub mod packed;
pub mod plane;
pub mod rule;
pub mod three_row;
