//! Pictures: streaming PNG output (and TIFF, WebP, BMP, JPEG, GIF from memory, by the output
//! path's extension), written to a temporary file and renamed when complete; legends and
//! labels in a small pixel font.

pub mod atomic;
pub mod dzi;
pub mod encode;
pub mod label;
pub mod mesh;
pub mod output;
pub mod picture;
pub mod png;
pub mod source;
pub mod tiles;

pub use self::atomic::AtomicFile;
pub use self::output::{check_output, stream_image, write_image, PictureFormat};
pub use self::png::{parse_colour, write_png, Compression, PixelFormat, PngSpec};
