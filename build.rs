//! Validate every WGSL kernel in `shaders/` with naga when the crate builds, so a shader error
//! fails `cargo build` (and `cargo check`) with naga's diagnostic, naming the file and line,
//! instead of failing a user's run when the pipeline is created.
//!
//! naga is the version wgpu compiles the kernels with (Cargo.lock holds one naga 30), and every
//! file is a complete module: pipeline-specialised numbers are WGSL `override` constants that
//! the host sets when it builds the pipeline, never text glued onto the source. The validator
//! allows subgroup operations (wgpu's SUBGROUP feature), which `ca_regs.wgsl` needs.

use std::path::{Path, PathBuf};

fn main() {
    let dir = Path::new("shaders");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
            .collect(),
        Err(e) => fail(&format!("cannot read {}: {e}", dir.display())),
    };
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        if let Err(diagnostic) = validate(path) {
            failures.push(diagnostic);
        }
    }
    if !failures.is_empty() {
        fail(&failures.join("\n"));
    }
}

/// Parse and validate one WGSL file; the error is naga's diagnostic, with the file's path and
/// the line and column of the fault.
fn validate(path: &Path) -> Result<(), String> {
    let name = path.display().to_string();
    let source =
        std::fs::read_to_string(path).map_err(|e| format!("error: cannot read {name}: {e}"))?;
    let module = naga::front::wgsl::parse_str(&source)
        .map_err(|e| e.emit_to_string_with_path(&source, &name))?;
    // Subgroup operations are allowed: `ca_regs.wgsl` shuffles (the host runs it only on
    // devices opened with wgpu's SUBGROUP feature); every other capability stays refused.
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default() | naga::valid::Capabilities::SUBGROUP,
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string_with_path(&source, &name))?;
    Ok(())
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    eprintln!("error: shaders/ failed naga validation (see above)");
    std::process::exit(1);
}
