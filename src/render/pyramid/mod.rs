//! Pictures in pieces: Deep Zoom pyramids ([`dzi`]), tile shards that cluster jobs render
//! and `assemble` joins ([`tiles`]), and the server's deep-zoom tiles of any bar ([`zoom`]).
//!
//! Tests: tests/pictures/tiles.rs, and the unit tests of dzi.rs, tiles.rs and zoom.rs.

pub mod dzi;
pub mod tiles;
pub mod zoom;
