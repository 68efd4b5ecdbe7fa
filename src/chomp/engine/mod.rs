//! What every table kind runs on: the steps, the one step loop, and the one lifecycle of a run
//! to a file.
//!
//! - [`schedule`]: steps of independent ranges ([`schedule::Schedule`]), the colex layers, the
//!   volume layers.
//! - [`driver`]: the one step loop (progress, cancel, the parallel fold) that every solver of
//!   src/chomp decides its positions in.
//! - [`lifecycle`]: the one run from "FILE named" to "FILE published" ([`lifecycle::run_to_file`]),
//!   its events ([`lifecycle::RunEvent`]) and the snapshot cadence (a quarter of the run so far
//!   apart, [`lifecycle::Cadence`]); a kind says only its [`lifecycle::Job`].
//!
//! Invariants: the engine imports `index` and `store` and never a game folder (`two_player`,
//! `multiplayer`, `saved`); it knows no kind of table (tests/project/imports.rs checks both).
//!
//! Tests: the solvers' tests, which all run through the driver; tests/faults/tables.rs (every
//! kind and run mode killed and resumed); tests/engine/cancel.rs.

pub mod driver;
pub mod lifecycle;
pub mod schedule;
