//! Where a picture goes: the output path's extension chooses the format.
//!
//! `.png` is streamed band by band ([`crate::render::encode`]), so it works at any size in a few bands
//! of memory. The other formats are written by the `image` crate from the whole picture held
//! in memory: TIFF (`.tif`, `.tiff`), WebP (`.webp`, lossless), BMP (`.bmp`), JPEG (`.jpg`,
//! `.jpeg`) and GIF (`.gif`). For them the picture is first encoded as a fast PNG in memory
//! (the same rows, the same code as a streamed PNG), decoded into pixels and encoded again, so
//! every picture chompute makes can be written in every format without a second drawing path.
//! A picture larger than [`IN_MEMORY_MAX_PIXELS`], or than the format allows, is refused
//! before anything is drawn, with one line that names PNG. Any other extension is refused.
//!
//! Every file is written to a temporary name and renamed when complete ([`AtomicFile`]).
//!
//! Tests: this file's unit tests.

use crate::output::AtomicFile;
use crate::render::encode::png::{Compression, PixelFormat, PngSpec};
use crate::render::encode::{stream_png, BandSink};
use crate::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Most pixels a picture may have in a format other than PNG (it is held in memory, up to
/// three bytes a pixel): 2^27, 134 megapixels, about 400 MB as RGB.
pub const IN_MEMORY_MAX_PIXELS: u64 = 1 << 27;

/// A picture file format, chosen by the output path's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PictureFormat {
    /// Streamed at any size.
    Png,
    /// Written from memory by the `image` crate.
    InMemory(image::ImageFormat),
}

/// The extensions chompute writes, and their formats.
pub const EXTENSIONS: [(&str, PictureFormat); 8] = [
    ("png", PictureFormat::Png),
    ("tif", PictureFormat::InMemory(image::ImageFormat::Tiff)),
    ("tiff", PictureFormat::InMemory(image::ImageFormat::Tiff)),
    ("webp", PictureFormat::InMemory(image::ImageFormat::WebP)),
    ("bmp", PictureFormat::InMemory(image::ImageFormat::Bmp)),
    ("jpg", PictureFormat::InMemory(image::ImageFormat::Jpeg)),
    ("jpeg", PictureFormat::InMemory(image::ImageFormat::Jpeg)),
    ("gif", PictureFormat::InMemory(image::ImageFormat::Gif)),
];

/// Whether `path` is standard output (`-`, `/dev/stdout`) or an existing FIFO or character device, which
/// take a PNG whatever their name.
fn streams_without_extension(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    path.as_os_str() == "-"
        || path == Path::new("/dev/stdout")
        || std::fs::metadata(path).is_ok_and(|m| {
            let t = m.file_type();
            t.is_fifo() || t.is_char_device()
        })
}

impl PictureFormat {
    /// The format `path`'s extension names (case does not matter), or an error listing the
    /// extensions there are.
    pub fn of_path(path: &Path) -> Result<PictureFormat> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let known = || {
            EXTENSIONS
                .iter()
                .map(|(e, _)| format!(".{e}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ext {
            Some(e) => EXTENSIONS
                .iter()
                .find(|(x, _)| *x == e)
                .map(|&(_, f)| f)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "'{}': chompute does not write .{e} pictures; use one of {}",
                        path.display(),
                        known()
                    ))
                }),
            // Standard output, a FIFO or a device named without an extension: PNG, the
            // format that streams (`render 30001 -o - | viewer`).
            None if streams_without_extension(path) => Ok(PictureFormat::Png),
            None => Err(Error::invalid(format!(
                "'{}' has no extension to choose the picture format; use one of {}",
                path.display(),
                known()
            ))),
        }
    }

    /// The format's name: "PNG", "TIFF", ...
    pub fn name(self) -> &'static str {
        match self {
            PictureFormat::Png => "PNG",
            PictureFormat::InMemory(image::ImageFormat::Tiff) => "TIFF",
            PictureFormat::InMemory(image::ImageFormat::WebP) => "WebP",
            PictureFormat::InMemory(image::ImageFormat::Bmp) => "BMP",
            PictureFormat::InMemory(image::ImageFormat::Jpeg) => "JPEG",
            PictureFormat::InMemory(image::ImageFormat::Gif) => "GIF",
            PictureFormat::InMemory(_) => "image",
        }
    }

    /// Most pixels a side in this format (PNG: 2^31-1; WebP 16383; JPEG and GIF 65535).
    pub fn max_side(self) -> u64 {
        match self {
            PictureFormat::InMemory(image::ImageFormat::WebP) => 16383,
            PictureFormat::InMemory(image::ImageFormat::Jpeg | image::ImageFormat::Gif) => 65535,
            _ => i32::MAX as u64,
        }
    }

    /// Whether a `width × height` picture can be written in this format; the error names PNG,
    /// which streams at any size.
    pub fn check_size(self, width: u64, height: u64) -> Result<()> {
        if self == PictureFormat::Png {
            return Ok(());
        }
        let name = self.name();
        let pixels = width as u128 * height as u128;
        if pixels > IN_MEMORY_MAX_PIXELS as u128 {
            return Err(Error::too_large(
                format!("a {width}×{height} picture in {name}"),
                format!("{name} is made in memory, for at most 2^27 pixels; write .png, which streams at any size"),
            ));
        }
        let max = self.max_side();
        if width > max || height > max {
            return Err(Error::too_large(
                format!("a {width}×{height} picture in {name}"),
                format!("{name} holds at most {max} pixels a side; write .png"),
            ));
        }
        Ok(())
    }
}

/// The format of `path` and whether a `width × height` picture fits it: call before drawing,
/// so a refused output costs nothing.
pub fn check_output(path: &Path, width: u64, height: u64) -> Result<PictureFormat> {
    let format = PictureFormat::of_path(path)?;
    format.check_size(width, height)?;
    Ok(format)
}

/// Write the picture described by `spec` to `path` in the format its extension names;
/// `produce` fills every row band by band, as for [`stream_png`]. Returns the file's size in
/// bytes.
pub fn stream_image(
    path: &Path,
    spec: &PngSpec,
    produce: impl FnOnce(&mut BandSink) -> Result<()>,
) -> Result<u64> {
    let format = check_output(path, spec.width as u64, spec.height as u64)?;
    let mut file = AtomicFile::create(path)?;
    match format {
        PictureFormat::Png => stream_png(path, &mut file, spec, produce)?,
        PictureFormat::InMemory(f) => {
            let fast = PngSpec {
                compression: Compression::Fast,
                ..spec.clone()
            };
            let mut png = Vec::new();
            stream_png(path, &mut png, &fast, produce)?;
            let bytes = reencode(&png, f).map_err(|e| {
                Error::invalid(format!(
                    "cannot write '{}' as {}: {e}",
                    path.display(),
                    format.name()
                ))
            })?;
            file.write_all(&bytes).map_err(|e| Error::io(path, e))?;
        }
    }
    file.commit()?;
    Ok(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
}

/// Write a picture at `path` (the extension chooses the format) atomically. `fill_row(y, row)`
/// fills row y (0-based, top first) of `spec.format.row_bytes(width)` bytes; it is called once
/// per row, in order, on the calling thread, while earlier rows are compressed in parallel.
/// Returns the file's size in bytes.
pub fn write_image(
    path: &Path,
    spec: &PngSpec,
    mut fill_row: impl FnMut(u32, &mut [u8]) -> Result<()>,
) -> Result<u64> {
    stream_image(path, spec, |sink| {
        let row_bytes = sink.row_bytes();
        while sink.rows_left() > 0 {
            sink.fill_band(|y0, _rows, bytes| {
                for (k, row) in bytes.chunks_exact_mut(row_bytes).enumerate() {
                    fill_row((y0 + k) as u32, row)?;
                }
                Ok(())
            })?;
        }
        Ok(())
    })
}

/// PNG bytes to `format`'s bytes: gray pictures stay gray, palettes become RGB.
fn reencode(png: &[u8], format: image::ImageFormat) -> image::ImageResult<Vec<u8>> {
    let mut picture = image::load_from_memory_with_format(png, image::ImageFormat::Png)?;
    if format == image::ImageFormat::Gif {
        // The GIF encoder takes RGB(A) only; its palette is exact for up to 256 colours.
        picture = image::DynamicImage::ImageRgba8(picture.to_rgba8());
    }
    let mut out = std::io::Cursor::new(Vec::new());
    picture.write_to(&mut out, format)?;
    Ok(out.into_inner())
}

/// How a pixel is stored, in words: "1-bit", "8-bit gray", "2-bit indexed", "RGB".
pub fn depth_name(format: &PixelFormat) -> String {
    match format {
        PixelFormat::Gray1 => "1-bit".into(),
        PixelFormat::Gray8 => "8-bit gray".into(),
        PixelFormat::Indexed { bits, .. } => format!("{bits}-bit indexed"),
        PixelFormat::Rgb8 => "RGB".into(),
    }
}

/// The one line a finished picture leaves on a terminal, e.g.
/// `wrote chocolate.png: C(30001,30001), 900 Mpx 1-bit, 644 KB, 0.31 s`; `what` says what the
/// picture shows.
pub fn summary(path: &Path, what: &str, spec: &PngSpec, bytes: u64, seconds: f64) -> String {
    let format = PictureFormat::of_path(path).unwrap_or(PictureFormat::Png);
    let stored = match format {
        PictureFormat::Png => depth_name(&spec.format),
        other => other.name().to_string(),
    };
    format!(
        "wrote {}: {what}, {} {stored}, {}, {seconds:.2} s",
        path.display(),
        pixels_text(spec.width as u64 * spec.height as u64),
        bytes_text(bytes)
    )
}

/// A pixel count with three significant digits: "121 px", "30.9 kpx", "900 Mpx", "1.07 Gpx".
pub fn pixels_text(pixels: u64) -> String {
    scaled(pixels, &["px", "kpx", "Mpx", "Gpx", "Tpx"])
}

/// A file size in decimal units: "644 KB", "1.2 MB".
pub fn bytes_text(bytes: u64) -> String {
    scaled(bytes, &["B", "KB", "MB", "GB", "TB"])
}

fn scaled(v: u64, units: &[&str]) -> String {
    let mut unit = 0;
    let mut x = v as f64;
    while x >= 999.5 && unit + 1 < units.len() {
        x /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v} {}", units[0])
    } else if x >= 99.95 {
        format!("{x:.0} {}", units[unit])
    } else if x >= 9.995 {
        format!("{x:.1} {}", units[unit])
    } else {
        format!("{x:.2} {}", units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_choose_formats() {
        let f = |p: &str| PictureFormat::of_path(Path::new(p));
        assert_eq!(f("a.png").unwrap(), PictureFormat::Png);
        assert_eq!(f("dir/A.PNG").unwrap(), PictureFormat::Png);
        assert_eq!(f("a.tif").unwrap().name(), "TIFF");
        assert_eq!(f("a.jpeg").unwrap().name(), "JPEG");
        assert_eq!(f("a.webp").unwrap().name(), "WebP");
        let e = f("a.xyz").unwrap_err().to_string();
        assert!(e.contains(".xyz") && e.contains(".png"), "{e}");
        assert!(f("noext").unwrap_err().to_string().contains("no extension"));
    }

    #[test]
    fn large_pictures_are_refused_outside_png() {
        let tiff = PictureFormat::InMemory(image::ImageFormat::Tiff);
        assert!(PictureFormat::Png.check_size(1 << 30, 1 << 30).is_ok());
        assert!(tiff.check_size(1 << 13, 1 << 14).is_ok());
        let e = tiff.check_size(30001, 30001).unwrap_err().to_string();
        assert!(e.contains("png"), "{e}");
        let webp = PictureFormat::InMemory(image::ImageFormat::WebP);
        assert!(webp
            .check_size(16384, 10)
            .unwrap_err()
            .to_string()
            .contains("16383"));
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(pixels_text(121), "121 px");
        assert_eq!(pixels_text(30_976), "31.0 kpx");
        assert_eq!(pixels_text(900_060_001), "900 Mpx");
        assert_eq!(pixels_text(1_073_676_289), "1.07 Gpx");
        assert_eq!(bytes_text(644_123), "644 KB");
        assert_eq!(bytes_text(999), "999 B");
        assert_eq!(bytes_text(1_234_567), "1.23 MB");
    }
}
