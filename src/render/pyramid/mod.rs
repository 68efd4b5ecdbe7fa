//! Pictures in pieces: Deep Zoom pyramids ([`dzi`]), tile shards that cluster jobs render
//! and `assemble` joins ([`tiles`]), and the server's deep-zoom tiles of any bar ([`zoom`]).

pub mod dzi;
pub mod tiles;
pub mod zoom;
