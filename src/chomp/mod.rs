//! Chomp (docs/mathematics.md §5): positions are Young diagrams in an R×C box, the poisoned
//! cell is (1,1).
//!
//! - [`diagram`]: diagrams, the box, moves without allocation.
//! - [`index`]: how tables number positions: the colex rank ([`Ranker`]), the hook index of
//!   squares, and [`index::BitLayout`], the choice between them.
//! - [`bits`]: atomic bit operations on a table's words, and windows of a table.
//! - [`two_player`]: P-positions by the one forward solver, table files, boxes larger than
//!   memory, Grundy values, P-positions by cells.
//! - [`multiplayer`]: n-player rules, ordinals, rule classes, the paper's claims.
//!
//! Imports go downward only: `diagram` ← `index` ← `bits` ← `two_player`, and `multiplayer`
//! uses `diagram` and `index` (tests/project/imports.rs checks that no two files import each
//! other).
//!
//! Tests: benches/, tests/engine/, tests/games/chomp/.

pub mod bits;
pub mod diagram;
pub mod index;
pub mod multiplayer;
pub mod saved;
pub mod store;
pub mod two_player;

pub use diagram::{ChompBox, Diagram};
pub use index::Ranker;
pub use multiplayer::classes::{all_normalised_rules, rule_classes, RuleClass};
pub use multiplayer::ordinal::OrdTable;
pub use multiplayer::plane::OrdinalPlane;
pub use multiplayer::rule::{Choice, Rule};
pub use multiplayer::three_row::ordinals_three_rows;
