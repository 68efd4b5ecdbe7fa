//! Multiplayer Chomp (docs/mathematics.md §5): an n-player rule ([`rule`]) orders the scores of
//! the last biters, and every position has an ordinal by Fact 2.10: the byte engines and the
//! plan ([`ordinal`]), the packed tables ([`packed`]) and their file
//! ([`ord_file`]), three rows in O(1) a position ([`three_row`]), rule classes ([`classes`]),
//! the paper's claims ([`check`]), planes for pictures ([`plane`]).
//!
//! Tests: the unit tests of these files; tests/engine/, tests/games/chomp/multiplayer.rs.

pub mod check;
pub mod classes;
pub mod ord_file;
pub mod ordinal;
pub mod packed;
pub mod plane;
pub mod rule;
pub mod three_row;
