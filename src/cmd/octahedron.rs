//! `chompute octahedron N`: cross-sections of S_N as PNG, the correspondence check with the
//! P-grids, and S_N as a mesh.
//!
//! Tests: the command as users run it in python/tests/, tests/engine/, tests/faults/,
//! tests/pictures/.

use super::out::{print_report, Report, Stdout};
use super::{describe_pictures, verdict};
use crate::cli::OctahedronArgs;
use anyhow::anyhow;
use chompute::chocolate::octahedron::{correspondence_claim_with_progress, Section};
use chompute::claim::Claim;
use chompute::render::check_output;
use chompute::render::figures::write_section_png;
use chompute::render::mesh::{check_mesh_path, sierpinski_mesh, write_mesh};
use serde::Serialize;
use std::io::Write;

/// Largest level `--check` runs (Σ_{M ≤ 2^N} M² cells: 2.3·10^10 at N = 12).
pub const CHECK_MAX_LEVEL: u32 = 12;
/// Largest level exported as a mesh (8·6^N triangles: 2.2 million at N = 7).
pub const MESH_MAX_LEVEL: u32 = 7;

#[derive(Serialize)]
struct SectionReport {
    m: String,
    file: String,
    side: u64,
    px: u64,
    pixels_inside: u64,
}

#[derive(Serialize)]
struct MeshReport {
    file: String,
    octahedra: u64,
    vertices: usize,
    triangles: usize,
}

#[derive(Serialize)]
struct OctahedronReport {
    n: u32,
    section: Option<SectionReport>,
    /// With --check: the `octahedron` claim for M = 1..2^N.
    checks: Option<Vec<Claim>>,
    mesh: Option<MeshReport>,
}

pub fn run(args: &OctahedronArgs) -> anyhow::Result<()> {
    let n = args.n;
    match (&args.m, &args.output) {
        (Some(_), None) => return Err(anyhow!("--m M needs --output FILE.png (-o)")),
        (None, Some(_)) => return Err(anyhow!("--output needs the section height --m M")),
        _ => {}
    }
    if let Some(path) = &args.output {
        chompute::output::check_target(path)?;
    }
    if args.m.is_none() && !args.check && args.mesh.is_none() {
        return Err(anyhow!(
            "nothing to do: give --m M -o FILE.png, --check, or --mesh FILE"
        ));
    }
    if args.check && n > CHECK_MAX_LEVEL {
        return Err(anyhow!(
            "--check runs up to N = {CHECK_MAX_LEVEL} (got {n})"
        ));
    }
    if let Some(path) = &args.mesh {
        if n > MESH_MAX_LEVEL {
            return Err(anyhow!(
                "--mesh exports S_N up to N = {MESH_MAX_LEVEL} (got {n}: 8·6^{n} triangles)"
            ));
        }
        check_mesh_path(path, true)?;
    }
    let section = match (&args.m, &args.output) {
        (Some(m), Some(path)) => {
            let s = Section::new(n, *m, args.scale)?;
            check_output(path, s.side(), s.side())?;
            Some(s)
        }
        _ => None,
    };

    let mut report = OctahedronReport {
        n,
        section: None,
        checks: None,
        mesh: None,
    };
    if let (Some(s), Some(path)) = (section, &args.output) {
        let description = describe_pictures(&format!(
            "the cross-section H_{{{n},{}}} of the Sierpiński octahedron S_{n}, {} pixels per cell",
            s.m, s.px
        ));
        let inside = write_section_png(path, &s, Some(&description))?;
        report.section = Some(SectionReport {
            m: s.m.to_string(),
            file: path.display().to_string(),
            side: s.side(),
            px: s.px,
            pixels_inside: inside,
        });
    }
    if args.check {
        // On a terminal, a bar over the cells compared (Σ M² for M = 1..2^N).
        let pb = crate::cmd::bars::bar(0, "cells");
        let claim = correspondence_claim_with_progress(n, 1u64 << n, |done, total| {
            pb.set_length(total as u64);
            pb.set_position(done as u64);
        })?;
        pb.finish_and_clear();
        report.checks = Some(vec![claim]);
    }
    if let Some(path) = &args.mesh {
        let mesh = sierpinski_mesh(n);
        write_mesh(path, &mesh)?;
        report.mesh = Some(MeshReport {
            file: path.display().to_string(),
            octahedra: 6u64.pow(n),
            vertices: mesh.vertices.len(),
            triangles: mesh.triangles.len(),
        });
    }
    print_report(&report, args.format.get())?;
    match &report.checks {
        Some(c) => verdict(c),
        None => Ok(()),
    }
}

impl Report for OctahedronReport {
    /// A line for each thing made: the section, the check's claim, the mesh.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let n = self.n;
        if let Some(s) = &self.section {
            writeln!(
                out,
                "H_{{{n},{}}}: {} ({}×{} pixels, {} per cell, {} inside S_{n})",
                s.m, s.file, s.side, s.side, s.px, s.pixels_inside
            )?;
        }
        if let Some(c) = &self.checks {
            chompute::claim::write_text(out, c)?;
        }
        if let Some(m) = &self.mesh {
            writeln!(
                out,
                "S_{n}: {} ({} octahedra, {} triangles)",
                m.file, m.octahedra, m.triangles
            )?;
        }
        Ok(())
    }

    /// The check's claim (`--csv` needs `--check`).
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        chompute::claim::write_csv(out, self.checks.as_deref().unwrap_or_default())
    }
}
