//! `chompute render` and `assemble`: pictures, Deep Zoom pyramids and tiles.
//! What they do is in cmd/render.rs.
//!
//! Tests: this file's unit tests; the command as users run it in tests/, tests/faults/,
//! tests/pictures/, tests/project/.

use super::format::{Offer, Output};
use super::values::{library, parse_count, parse_size};
use chompute::chocolate::grid::WindowRect;
use clap::Args;

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Rows of the bar.
    #[arg(value_parser = parse_size)]
    pub m: u64,
    /// Columns of the bar (default: M).
    #[arg(value_parser = parse_size)]
    pub n: Option<u64>,
    /// The picture to write (to a temporary file, renamed when complete). The extension picks
    /// the format: .png streams at any size; .tiff, .webp, .bmp, .jpg and .gif are made in
    /// memory, for pictures up to 2^27 pixels.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Only this part of the bar: first row and column (1-based), height and width.
    #[arg(long, value_name = "ROW,COL,HEIGHT,WIDTH", value_parser = library::<WindowRect>)]
    pub window: Option<WindowRect>,
    /// Pixels per cell: draw each cell as K×K pixels.
    #[arg(long, value_name = "K", alias = "cell", value_parser = parse_size, conflicts_with = "fit")]
    pub scale: Option<u64>,
    /// Fit the bar into PIXELS on its longer side: each pixel is a block of cells shaded by
    /// its exact fraction of P-cells (8-bit).
    #[arg(long, value_name = "PIXELS", value_parser = parse_size)]
    pub fit: Option<u64>,
    /// How --fit shades a pixel from its block's exact P-count (see `--help`).
    #[arg(long, value_name = "SHADE", value_parser = shade_parser(), long_help = SHADE_HELP)]
    pub shade: Option<chompute::render::Shade>,
    /// Two colours, P-cells then N-cells (e.g. '#5b2a86,#f4efe6'): an indexed PNG.
    /// Default: black P-cells on white.
    #[arg(long, value_name = "P,N", value_parser = colours)]
    pub colors: Option<[[u8; 3]; 2]>,
    /// Deflate effort: `fast` (deflate level 1, about 3.5× larger files, for when the disk
    /// is faster than two cores), `balanced` (level 5, the default: a 32767² gigapixel in
    /// well under a second on two cores, bands deflated in parallel) or `best` (level 9).
    #[arg(long, default_value_t = chompute::render::Compression::Balanced, value_parser = compression_parser())]
    pub compression: chompute::render::Compression,
    /// Compare every generated tile with a second method on a sample of rows (the CPU for
    /// GPU tiles, the cell-by-cell P-test for CPU tiles); a disagreement exits with status 1.
    #[arg(long)]
    pub verify: bool,
    /// Write a Deep Zoom pyramid DIR/NAME.dzi + DIR/NAME_files/ (NAME = DIR's last part).
    #[arg(long, value_name = "DIR")]
    pub dzi: Option<std::path::PathBuf>,
    /// Tile side in pixels for --dzi (default 256) and --tiles (default 4096); a multiple of 8.
    #[arg(long, value_name = "PIXELS", value_parser = parse_count)]
    pub tile_size: Option<u64>,
    /// Write the picture as tiles into DIR (for `chompute assemble`), skipping tiles already
    /// there that match their records; a DIR of another render is refused.
    #[arg(long, value_name = "DIR")]
    pub tiles: Option<std::path::PathBuf>,
    /// Render only shard I of N of the tiles (needs --tiles), counted from 0: the tiles t
    /// with t mod N = I, 0 ≤ I < N. `auto/N` reads I from SLURM_ARRAY_TASK_ID or
    /// JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "I/N", value_parser = library::<chompute::render::pyramid::tiles::Shard>)]
    pub shard: Option<chompute::render::pyramid::tiles::Shard>,
    #[command(flatten)]
    pub format: Output<RenderOutput>,
}

/// `render`'s output flags.
pub struct RenderOutput;
impl Offer for RenderOutput {
    const JSON: &'static str = "Print one JSON object describing what was written on stdout.";
}

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// A tile directory written by `chompute render --tiles DIR`; every tile is checked
    /// against its record first, and a missing or damaged one fails with exit status 2.
    pub dir: std::path::PathBuf,
    /// The picture to write; its extension picks the format, as for `render -o`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Write a Deep Zoom pyramid instead (or as well).
    #[arg(long, value_name = "DIR")]
    pub dzi: Option<std::path::PathBuf>,
    /// Tile side of the Deep Zoom pyramid (default 256).
    #[arg(long, value_name = "PIXELS", value_parser = parse_count)]
    pub tile_size: Option<u64>,
    /// Deflate effort (default balanced).
    #[arg(long, default_value_t = chompute::render::Compression::Balanced, value_parser = compression_parser())]
    pub compression: chompute::render::Compression,
    #[command(flatten)]
    pub format: Output<AssembleOutput>,
}

/// `assemble`'s output flags.
pub struct AssembleOutput;
impl Offer for AssembleOutput {
    const JSON: &'static str = "Print one JSON object describing what was written on stdout.";
}

/// `--colors P,N`, read by the library's parser.
pub fn colours(s: &str) -> Result<[[u8; 3]; 2], String> {
    chompute::render::parse_colours(s).map_err(|e| e.worded(&crate::cli::flag))
}

/// `render --shade`'s long help: the shades' definitions are [`chompute::render::Shade`]'s
/// own formulas (`Shade::formula`), the text docs/guide/pictures.md gives (tested).
pub const SHADE_HELP: &str = "How --fit shades a pixel from its block's exact P-count. With x = \
count/cells, the P-level ℓ (0: no P-cell, 255: all; a grey pixel is 255-ℓ) is `linear` (the \
default) ℓ = round(255x); `sqrt` ℓ = round(255√x); `log` ℓ = round(255(1 + log₂x/64)), 64 octaves \
of density with log₂ interpolated linearly between powers of two, at least 1 for any block with a \
P-cell: for bars too sparse to show linearly. All in exact integer arithmetic, halves up.";

/// `--shade`: one of the library's curves by name, listed in `--help` and offered by shell
/// completion.
fn shade_parser() -> impl clap::builder::TypedValueParser<Value = chompute::render::Shade> {
    use chompute::render::Shade;
    use clap::builder::TypedValueParser as _;
    let names = [Shade::Linear, Shade::Sqrt, Shade::Log].map(Shade::name);
    clap::builder::PossibleValuesParser::new(names)
        .map(|s| s.parse().expect("one of the listed names"))
}

/// `--compression`: one of the library's settings by name, listed in `--help`.
fn compression_parser(
) -> impl clap::builder::TypedValueParser<Value = chompute::render::Compression> {
    use clap::builder::TypedValueParser as _;
    let names = chompute::render::Compression::ALL.map(|(name, _)| name);
    clap::builder::PossibleValuesParser::new(names)
        .map(|s| s.parse().expect("one of the listed names"))
}

#[cfg(test)]
mod tests {
    use super::SHADE_HELP;
    use chompute::render::Shade;

    #[test]
    fn the_shade_help_and_the_guide_state_the_codes_formulas() {
        let guide = include_str!("../../docs/guide/pictures.md");
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            let said = format!("`{}`", shade.name());
            for text in [SHADE_HELP, guide] {
                let at = text.find(&said).expect("the shade is named");
                let formula = shade.formula();
                assert!(text[at..].contains(formula), "{formula} follows {said}");
            }
        }
        assert!(
            !SHADE_HELP.contains("log₂(1+count)"),
            "the old, wrong curve"
        );
    }
}
