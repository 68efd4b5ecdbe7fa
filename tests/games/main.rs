//! Chomp (multiplayer ordinals and two-player tables) and the chocolate games with a pass.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod blocks;
mod chomp;
mod pass;
mod tables;
