//! Chomp: the multiplayer ordinals and the two-player tables, one file each.

mod grundy_file;
mod multiplayer;
mod named_bites;
mod ord_file;
mod two_player;
