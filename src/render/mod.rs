//! Pictures: streaming PNGs (and TIFF, WebP, BMP, JPEG, GIF from memory, by the output path's
//! extension) written to a temporary file and renamed when complete, Deep Zoom pyramids, tile
//! shards, palettes, legends and labels in a small pixel font, meshes and the figures of each
//! game.
//!
//! Tests: benches/, tests/, tests/faults/, tests/games/chomp/, tests/pictures/.

pub mod encode;
pub mod figures;
pub mod mesh;
pub mod picture;
pub mod plan;
pub mod pyramid;

pub use self::encode::output::{check_output, stream_image, write_image, PictureFormat};
pub use self::encode::png::{
    parse_colour, parse_colours, write_png, Compression, PixelFormat, PngSpec,
};
pub use self::picture::shade::Shade;
pub use crate::output::AtomicFile;
