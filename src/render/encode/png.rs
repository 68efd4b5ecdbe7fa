//! Streaming PNG writer shared by every picture chompute makes.
//!
//! Rows are produced by a callback and streamed band by band ([`crate::render::encode`]), so memory
//! stays a few bands whatever the image size. Every PNG carries a `Software` text chunk and,
//! when its spec has one ([`PngSpec::description`]), a `Description`, so a picture found later
//! says what made it.
//!
//! Tests: tests/pictures/render.rs (pictures decoded and compared with the P-test),
//! tests/faults/targets.rs.

use crate::{Error, Result};
use std::io::Write;
use std::path::Path;

/// How hard the encoder works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Compression {
    /// Deflate level 1: the fastest, files about 3.5× larger.
    Fast,
    /// Deflate level 5: the default.
    #[default]
    Balanced,
    /// Deflate level 9: the smallest files.
    Best,
}

impl Compression {
    /// Every setting with its name, in order of effort.
    pub const ALL: [(&'static str, Compression); 3] = [
        ("fast", Compression::Fast),
        ("balanced", Compression::Balanced),
        ("best", Compression::Best),
    ];

    /// The setting's name: `fast`, `balanced` or `best`.
    pub fn name(self) -> &'static str {
        Compression::ALL
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("balanced", |(name, _)| name)
    }
}

impl std::str::FromStr for Compression {
    type Err = Error;

    fn from_str(s: &str) -> Result<Compression> {
        Compression::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, c)| c)
            .ok_or_else(|| Error::bad_argument("the compression", s, "fast, balanced or best"))
    }
}

impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Compression> for png::Compression {
    fn from(c: Compression) -> png::Compression {
        match c {
            Compression::Fast => png::Compression::Fast,
            Compression::Balanced => png::Compression::Balanced,
            Compression::Best => png::Compression::High,
        }
    }
}

/// Pixel formats chompute writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PixelFormat {
    /// 1-bit grayscale: bit 1 = white. Rows are packed MSB-first.
    Gray1,
    /// 8-bit grayscale.
    Gray8,
    /// Indexed colour with `bits` per pixel (1, 2, 4 or 8) and an RGB palette
    /// (3 bytes per entry, at most 2^bits entries). Rows are packed MSB-first.
    Indexed {
        /// Bits per pixel: 1, 2, 4 or 8.
        bits: u8,
        /// RGB triples, entry k for pixel value k.
        palette: Vec<u8>,
    },
    /// 8-bit RGB.
    Rgb8,
}

impl PixelFormat {
    /// Bytes in one row of `width` pixels.
    pub fn row_bytes(&self, width: u32) -> usize {
        let bits = match self {
            PixelFormat::Gray1 => 1,
            PixelFormat::Gray8 => 8,
            PixelFormat::Indexed { bits, .. } => *bits as usize,
            PixelFormat::Rgb8 => 24,
        };
        (width as usize * bits).div_ceil(8)
    }
}

/// Everything the encoder needs besides the rows.
#[derive(Debug, Clone)]
pub struct PngSpec {
    /// Pixels a row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// How pixels are stored.
    pub format: PixelFormat,
    /// How hard the encoder works.
    pub compression: Compression,
    /// The `Description` text chunk: what made the picture and what it shows (the binary
    /// writes its command line and the picture's parameters), or none.
    pub description: Option<String>,
}

impl PngSpec {
    /// Check the PNG limits (sides 1 ..= 2^31-1).
    pub fn validate(&self) -> Result<()> {
        if self.width == 0
            || self.height == 0
            || self.width > i32::MAX as u32
            || self.height > i32::MAX as u32
        {
            return Err(Error::bad_argument(
                "a PNG's size",
                format!("{}×{}", self.width, self.height),
                "between 1 and 2^31-1 pixels a side",
            ));
        }
        Ok(())
    }

    /// An encoder writing to `out`, configured and validated; its header is not yet written.
    pub fn png_encoder<W: Write>(&self, out: W) -> Result<png::Encoder<'static, W>> {
        self.png_encoder_described(out, self.description.as_deref())
    }

    /// [`PngSpec::png_encoder`] with `description` as the `Description` text instead of the
    /// spec's own (a served tile describes itself, whatever spec it was drawn with).
    pub fn png_encoder_described<W: Write>(
        &self,
        out: W,
        description: Option<&str>,
    ) -> Result<png::Encoder<'static, W>> {
        self.validate()?;
        let mut enc = png::Encoder::new(out, self.width, self.height);
        match &self.format {
            PixelFormat::Gray1 => {
                enc.set_color(png::ColorType::Grayscale);
                enc.set_depth(png::BitDepth::One);
            }
            PixelFormat::Gray8 => {
                enc.set_color(png::ColorType::Grayscale);
                enc.set_depth(png::BitDepth::Eight);
            }
            PixelFormat::Indexed { bits, palette } => {
                enc.set_color(png::ColorType::Indexed);
                enc.set_depth(match bits {
                    1 => png::BitDepth::One,
                    2 => png::BitDepth::Two,
                    4 => png::BitDepth::Four,
                    _ => png::BitDepth::Eight,
                });
                enc.set_palette(palette.clone());
            }
            PixelFormat::Rgb8 => {
                enc.set_color(png::ColorType::Rgb);
                enc.set_depth(png::BitDepth::Eight);
            }
        }
        enc.set_compression(self.compression.into());
        add_text(&mut enc, "Software", software())?;
        if let Some(d) = description {
            add_text(&mut enc, "Description", d.to_string())?;
        }
        Ok(enc)
    }
}

/// Write a picture at `path` atomically: [`crate::render::encode::output::write_image`], whose path's
/// extension chooses the format (the name is kept for the callers that write PNGs).
pub fn write_png(
    path: &Path,
    spec: &PngSpec,
    fill_row: impl FnMut(u32, &mut [u8]) -> Result<()>,
) -> Result<()> {
    crate::render::encode::output::write_image(path, spec, fill_row).map(|_| ())
}

/// The `Software` text of every PNG: `chompute` and its version (`chompute 0.1.0`).
pub fn software() -> String {
    format!("chompute {}", env!("CARGO_PKG_VERSION"))
}

/// Add a text chunk: `tEXt` when the text is Latin-1 (as PNG asks of `tEXt`), else `iTXt`
/// (UTF-8).
fn add_text<W: Write>(enc: &mut png::Encoder<'_, W>, key: &str, text: String) -> Result<()> {
    let added = if text.chars().all(|c| (c as u32) < 256 && c != '\0') {
        enc.add_text_chunk(key.into(), text)
    } else {
        enc.add_itxt_chunk(key.into(), text)
    };
    added.map_err(|e| Error::invalid(format!("PNG text chunk {key}: {e}")))
}

/// Parse `P,N` (`#5b2a86,#f4efe6`): the P-cells' colour, then the N-cells'.
pub fn parse_colours(s: &str) -> Result<[[u8; 3]; 2]> {
    match s.split_once(',') {
        Some((p, n)) => Ok([parse_colour(p)?, parse_colour(n)?]),
        None => Err(Error::bad_input(
            crate::Input::Colours,
            format!("'{s}'"),
            "two colours P,N such as '#5b2a86,#f4efe6'",
        )),
    }
}

/// Parse `#rrggbb` (or `rrggbb`) into RGB.
pub fn parse_colour(s: &str) -> Result<[u8; 3]> {
    let hex = s.trim().trim_start_matches('#');
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::invalid(format!(
            "'{s}' is not a colour: write it as #rrggbb"
        )));
    }
    let byte = |k: usize| u8::from_str_radix(&hex[k..k + 2], 16).expect("checked hex digits");
    Ok([byte(0), byte(2), byte(4)])
}
