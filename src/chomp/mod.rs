//! Chomp (docs/mathematics.md §5): positions are Young diagrams in an R×C box, the poisoned
//! cell is (1,1).
//!
//! - [`diagram`]: diagrams, the box, moves without allocation.
//! - [`index`]: how tables number positions: the colex rank ([`Ranker`]), the hook index of
//!   squares, and [`index::BitLayout`], the choice between them.
//! - [`bits`]: atomic bit operations on a table's words, and windows of a table.
//! - [`store`]: the one checked container of every table file: the sealed header, chunk CRCs
//!   bound to it, the checkpoint log, the target and the lock. It knows no kind of table.
//! - [`two_player`]: P-positions by the one forward solver, its table file, boxes larger than
//!   memory, Grundy values, P-positions by cells, each file kind on the store.
//! - [`multiplayer`]: n-player rules, ordinals, rule classes, the paper's claims, the ordinal
//!   table file on the store.
//! - [`saved`]: a saved table of any kind, opened by its first line.
//!
//! Imports go downward only: `diagram` ← `bits` ← `index` ← `store` ← `two_player` ←
//! `multiplayer` ← `saved`; a new table kind is a file beside the game it stores, on the
//! store, and one arm of [`saved::SavedTable`] (tests/project/imports.rs checks the order, and
//! that no two files import each other).
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
