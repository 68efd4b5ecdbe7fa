//! The fault suite: the built binary run the way a careless or a hostile user would run it.
//!
//! - `interrupts`: SIGTERM and SIGINT at random moments for every command that writes files;
//! - `targets`: directories, FIFOs, devices, standard output, symbolic links, unwritable
//!   places, a full disk (a 2 MiB tmpfs, where the test may mount one), concurrent runs;
//! - `pipes`: a closed stdout on every command;
//! - `backend`: `--backend` against CHOMPUTE_BACKEND, and no adapter at all;
//! - `status`: the exit statuses;
//! - `numbers`: a property test over every numeric argument;
//! - `serve`: the tile server under malformed, half-closed, slow and flooding clients;
//! - `cli`: names that are not UTF-8, modes kept on overwrite, help into a full disk,
//!   refused combinations, and help text against the code.
//!
//! Set CHOMPUTE_BIN to run it against another build, CHOMPUTE_FAULTS_SEED to repeat the
//! moments of a failed interrupt run.
#![cfg(unix)]

#[path = "../common/mod.rs"]
mod common;

mod backend;
mod cli;
mod harness;
mod interrupts;
mod numbers;
mod pipes;
mod serve;
mod status;
mod tables;
mod targets;
