//! `chompute theorems`: placeholder while the claims are written.
use crate::cli::TheoremsArgs;
pub fn run(_args: &TheoremsArgs) -> anyhow::Result<()> {
    anyhow::bail!("not yet")
}
