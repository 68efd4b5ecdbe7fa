//! `chompute octahedron`: the Sierpiński octahedron.
//! What they do is in cmd/octahedron.rs.
//!
//! Tests: the command as users run it in python/tests/, tests/engine/, tests/faults/,
//! tests/pictures/.

use super::format::{Offer, Output};
use super::values::{parse_level, parse_ratio, parse_size};
use clap::Args;

#[derive(Debug, Args)]
pub struct OctahedronArgs {
    /// Level N: S_N is a union of 6^N octahedra; its sections at integer M ≤ 2^N are P-grids.
    #[arg(value_parser = parse_level)]
    pub n: u32,
    /// Height of the cross-section H_{N,M} (z = 1 - M/2^N): an integer, a decimal such as 5.5,
    /// or a fraction such as 11/2, read exactly.
    #[arg(long, value_name = "M", value_parser = parse_ratio)]
    pub m: Option<chompute::chocolate::octahedron::Ratio>,
    /// The cross-section picture; its extension picks the format (.png, .tiff, .webp, ...).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Pixels per cell side in the cross-section (M times it must be a whole number).
    #[arg(long, value_name = "K", alias = "px", default_value_t = 16, value_parser = parse_size)]
    pub scale: u64,
    /// Check, for every M ≤ 2^N, that the P-cells of C(M,M) are exactly the cells whose centre
    /// points lie in S_N; exit status 1 on a mismatch.
    #[arg(long)]
    pub check: bool,
    /// Export S_N as a mesh: FILE.stl or FILE.ply (binary) by the extension.
    #[arg(long, value_name = "FILE", alias = "stl")]
    pub mesh: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub format: Output<OctahedronOutput>,
}

/// `octahedron`'s output flags.
pub struct OctahedronOutput;
impl Offer for OctahedronOutput {
    const CSV: Option<&'static str> =
        Some("With --check: print the check's claim as CSV on stdout.");
    const CSV_NEEDS: Option<&'static str> = Some("check");
}
