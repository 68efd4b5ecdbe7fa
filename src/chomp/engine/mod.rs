//! What every table kind runs on: the steps ([`schedule`]), the one step loop ([`driver`]) and
//! the one lifecycle of a run to a file ([`lifecycle`]). The engine imports `index` and `store`
//! and never a game folder (`two_player`, `multiplayer`, `saved`); it knows no kind of table
//! (tests/project/imports.rs checks both).
//!
//! Tests: the solvers' tests; tests/faults/tables.rs; tests/engine/cancel.rs.

pub mod driver;
pub mod lifecycle;
pub mod schedule;
