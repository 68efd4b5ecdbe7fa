//! `chompute ca`: the second-order cellular automaton.
//! What they do is in cmd/ca.rs.
//!
//! Tests: the command as users run it in tests/engine/, tests/faults/, tests/pictures/.

use super::format::{Offer, Output};
use super::values::{parse_size, parse_steps};
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub struct CaArgs {
    /// Steps to run from b_0 = {(0,0)}; the last generation is P(STEPS+1).
    #[arg(value_parser = parse_steps)]
    pub steps: u64,
    /// Compare every generation with the P-test (whole grids while small, sampled rows beyond,
    /// the last one whole) and, on the GPU, the GPU with the CPU; exit status 1 on a mismatch.
    #[arg(long)]
    pub verify: bool,
    /// Write generations as PNG frames into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub frames: Option<std::path::PathBuf>,
    /// With --frames: write every K-th generation (default 1).
    #[arg(long, value_name = "K", value_parser = parse_size)]
    pub every: Option<u64>,
    /// Export generations 0..=STEPS stacked as a closed voxel surface: FILE.stl or FILE.ply
    /// (binary) by the extension.
    #[arg(long, value_name = "FILE", alias = "stack")]
    pub mesh: Option<std::path::PathBuf>,
    /// GPU kernel: `regs` takes 16 steps per dispatch in registers (needs subgroups), `block`
    /// up to 16 in workgroup memory, `step` one step per dispatch; `auto` picks regs on a real
    /// GPU with subgroups, else step.
    #[arg(long, value_enum, default_value_t = CaKernelChoice::Auto)]
    pub kernel: CaKernelChoice,
    #[command(flatten)]
    pub format: Output<CaOutput>,
}

/// `ca`'s output flags.
pub struct CaOutput;
impl Offer for CaOutput {
    const CSV: Option<&'static str> =
        Some("With --verify: print the verification's claims as CSV on stdout.");
    const CSV_NEEDS: Option<&'static str> = Some("verify");
}

/// The automaton's GPU kernel (`ca --kernel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CaKernelChoice {
    /// The register kernel on a real GPU with subgroups, else the step kernel.
    Auto,
    /// One step per dispatch (`ca_step.wgsl`).
    Step,
    /// Many steps per dispatch (`ca_block.wgsl`), tiles sized to the device.
    Block,
    /// Many steps per dispatch in registers, neighbours by subgroup shuffle (`ca_regs.wgsl`).
    Regs,
}
