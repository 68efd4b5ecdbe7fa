//! Pictures: streaming PNG output, written to a temporary file and renamed when complete.

pub mod atomic;
pub mod mesh;
pub mod png;

pub use self::atomic::AtomicFile;
pub use self::png::{parse_colour, write_png, Compression, PixelFormat, PngSpec};
