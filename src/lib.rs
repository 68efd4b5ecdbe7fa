//! chompute: a compute engine for the mathematics of chocolate games.
//!
//! - [`chocolate`]: the chocolate game C(m,n), whose P-positions are four-pile Nim.
//! - [`chomp`]: multiplayer Chomp: ordinals under n-player rules, rule classes.
//! - [`gpu`]: the wgpu context and the kernels whose CPU twins live in the mathematics modules.
//! - [`pass`]: games with a pass: G_P, the 3-D bars CB(F), Nim with a pass.
//! - [`render`]: streaming PNG output written atomically.
//! - [`serve`]: the HTTP tile server of `chompute serve` and its viewer.
//!
//! Mathematics never imports wgpu; GPU modules run kernels whose CPU twins live beside the
//! mathematics they implement.

pub mod bench;
pub mod chocolate;
pub mod chomp;
pub mod cli;
pub mod cmd;
pub mod error;
pub use error::{Error, Result};
pub mod gpu;
pub mod memory;
pub mod pass;
pub mod progress;
pub mod render;
pub mod serve;
