//! Chomp: the multiplayer ordinals and the two-player tables, one file each.

mod multiplayer;
mod two_player;
