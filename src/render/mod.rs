//! Pictures: streaming PNGs (and TIFF, WebP, BMP, JPEG, GIF from memory, by the output path's
//! extension) written to a temporary file and renamed when complete, Deep Zoom pyramids, tile
//! shards, palettes, legends and labels in a small pixel font, meshes and the figures of each
//! game.

pub mod atomic;
pub mod dzi;
pub mod encode;
pub mod figures;
pub mod label;
pub mod mesh;
pub mod output;
pub mod palette;
pub mod picture;
pub mod plan;
pub mod png;
pub mod shade;
pub mod source;
pub mod tiles;
pub mod zoom;

pub use self::atomic::AtomicFile;
pub use self::output::{check_output, stream_image, write_image, PictureFormat};
pub use self::png::{parse_colour, parse_colours, write_png, Compression, PixelFormat, PngSpec};
pub use self::shade::Shade;
