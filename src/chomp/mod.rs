//! Multiplayer Chomp (docs/mathematics.md §5): positions are Young diagrams, an n-player rule
//! orders the scores of the last biters, and every position has an ordinal by Fact 2.10.
//!
//! - [`diagram`]: diagrams, the R×C box, dense ranking, moves without allocation.
//! - [`rule`]: rules, exact normalisation [Fact 3.4], the Fact 2.10 choice.
//! - [`ordinal`]: the general engine (rank order or parallel volume layers), Sol and chains.
//! - [`three_row`]: O(1) work per position for three rows.
//! - [`classes`]: rule isomorphism classes [Thm 3.1] sharing the move structure.
//! - [`check`]: the paper's claims verified over a box.
//! - [`plane`]: the ordinals of two- or three-row positions on a plane, for pictures.
//!
//! Tests: benches/, tests/engine/, tests/games/chomp/.

pub mod blocks;
pub mod cells;
pub mod check;
pub mod classes;
pub mod diagram;
pub mod grundy;
mod marks;
pub mod ordinal;
pub mod plane;
pub mod push;
pub mod rule;
pub mod solve;
pub mod store;
pub mod sym;
pub mod three_row;

pub use classes::{all_normalised_rules, rule_classes, RuleClass};
pub use diagram::{ChompBox, Diagram, Ranker};
pub use ordinal::OrdTable;
pub use plane::OrdinalPlane;
pub use rule::{Choice, Rule};
pub use three_row::ordinals_three_rows;
