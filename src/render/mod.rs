//! Pictures: streaming PNG output, written to a temporary file and renamed when complete.

pub mod atomic;
pub mod dzi;
pub mod encode;
pub mod mesh;
pub mod picture;
pub mod png;
pub mod shade;
pub mod source;
pub mod tiles;

pub use self::atomic::AtomicFile;
pub use self::png::{parse_colour, write_png, Compression, PixelFormat, PngSpec};
pub use self::shade::Shade;
