//! Pictures, tiles and windows through the built binary, and the command line's outputs.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod cli_foundation;
mod cli_outputs;
mod render;
mod tiles;
mod window;
