//! `chompute octahedron N`: cross-sections of S_N as PNG, the correspondence check with the
//! P-grids, and S_N as a mesh.

use super::ca::PALETTE;
use super::{describe_pictures, print_json};
use crate::chocolate::octahedron::{check_correspondence, octahedra, CorrespondenceCheck, Section};
use crate::cli::OctahedronArgs;
use crate::error::CheckFailed;
use crate::render::mesh::{check_mesh_path, write_mesh, Mesh};
use crate::render::png::{Compression, PixelFormat, PngSpec};
use crate::render::{check_output, write_image};
use crate::usage;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// Largest level `--check` runs (Σ_{M ≤ 2^N} M² cells: 2.3·10^10 at N = 12).
pub const CHECK_MAX_LEVEL: u32 = 12;
/// Largest level exported as a mesh (8·6^N triangles: 2.2 million at N = 7).
pub const MESH_MAX_LEVEL: u32 = 7;
/// Largest cross-section side in pixels.
pub const SECTION_MAX_SIDE: u64 = 1 << 14;

#[derive(Serialize)]
struct SectionReport {
    m: String,
    file: String,
    side: u64,
    px: u64,
    pixels_inside: u64,
}

#[derive(Serialize)]
struct CheckReport {
    m_from: u64,
    m_to: u64,
    cells: u64,
    mismatches: u64,
    seconds: f64,
}

#[derive(Serialize)]
struct MeshReport {
    file: String,
    octahedra: u64,
    vertices: usize,
    triangles: usize,
}

#[derive(Serialize)]
struct Report {
    n: u32,
    section: Option<SectionReport>,
    check: Option<CheckReport>,
    mesh: Option<MeshReport>,
}

/// S_n as a mesh: each of its 6^n octahedra closed on its own (they meet only along edges and
/// at vertices, so no face is shared), coordinates exact in f32 (multiples of 2^-n).
pub fn sierpinski_mesh(n: u32) -> Mesh {
    let scale = (1u64 << n) as f32;
    let mut mesh = Mesh::default();
    for (c, r) in octahedra(n) {
        let base = mesh.vertices.len() as u32;
        // Vertices: +x, -x, +y, -y, +z, -z.
        for axis in 0..3 {
            for sign in [1, -1] {
                let mut v = c;
                v[axis] += sign * r;
                mesh.vertices.push(v.map(|x| x as f32 / scale));
            }
        }
        for sx in [0u32, 1] {
            for sy in [0u32, 1] {
                for sz in [0u32, 1] {
                    let (a, b, cc) = (base + sx, base + 2 + sy, base + 4 + sz);
                    // Octant signs (+,+,+) gives (x,y,z) counter-clockwise from outside; each
                    // minus sign mirrors once.
                    if (sx + sy + sz) % 2 == 0 {
                        mesh.triangles.push([a, b, cc]);
                    } else {
                        mesh.triangles.push([a, cc, b]);
                    }
                }
            }
        }
    }
    mesh
}

/// [`check_correspondence`] for M = 1..=top, in pieces of about equal work (Σ M² cells), with
/// a progress bar over the cells when stderr is a terminal.
fn check_with_progress(n: u32, top: u64) -> anyhow::Result<CorrespondenceCheck> {
    let cells = |m: u64| m as u128 * (m as u128 + 1) * (2 * m as u128 + 1) / 6;
    let total = cells(top);
    let pb = crate::progress::bar(total as u64, "cells");
    const PIECES: u128 = 64;
    let mut all = CorrespondenceCheck::default();
    let mut m = 1;
    while m <= top {
        // The largest piece m..=end with about total/PIECES cells (at least one M).
        let goal = cells(m - 1) + total.div_ceil(PIECES);
        let mut end = m;
        while end < top && cells(end + 1) <= goal {
            end += 1;
        }
        let c = check_correspondence(n, m..=end)?;
        all.cells += c.cells;
        all.mismatches += c.mismatches;
        if all.first_mismatch.is_none() {
            all.first_mismatch = c.first_mismatch;
        }
        pb.set_position(cells(end) as u64);
        m = end + 1;
    }
    pb.finish_and_clear();
    Ok(all)
}

pub fn run(args: &OctahedronArgs) -> anyhow::Result<()> {
    let n = args.n;
    match (&args.m, &args.output) {
        (Some(_), None) => return Err(usage!("--m M needs --output FILE.png (-o)")),
        (None, Some(_)) => return Err(usage!("--output needs the section height --m M")),
        _ => {}
    }
    if args.m.is_none() && !args.check && args.mesh.is_none() {
        return Err(usage!(
            "nothing to do: give --m M -o FILE.png, --check, or --mesh FILE"
        ));
    }
    if args.check && n > CHECK_MAX_LEVEL {
        return Err(usage!("--check runs up to N = {CHECK_MAX_LEVEL} (got {n})"));
    }
    if let Some(path) = &args.mesh {
        if n > MESH_MAX_LEVEL {
            return Err(usage!(
                "--mesh exports S_N up to N = {MESH_MAX_LEVEL} (got {n}: 8·6^{n} triangles)"
            ));
        }
        check_mesh_path(path, true)?;
    }
    let section = match (&args.m, &args.output) {
        (Some(m), Some(path)) => {
            let s = Section::new(n, *m, args.scale)?;
            if s.side() > SECTION_MAX_SIDE {
                return Err(usage!("the section would be {} pixels a side (at most {SECTION_MAX_SIDE}); use a smaller --scale", s.side()));
            }
            check_output(path, s.side(), s.side())?;
            Some(s)
        }
        _ => None,
    };

    let mut report = Report {
        n,
        section: None,
        check: None,
        mesh: None,
    };
    if let (Some(s), Some(path)) = (section, &args.output) {
        let side = s.side();
        let spec = PngSpec {
            width: side as u32,
            height: side as u32,
            format: PixelFormat::Indexed {
                bits: 1,
                palette: PALETTE.to_vec(),
            },
            compression: Compression::Balanced,
        };
        describe_pictures(&format!(
            "the cross-section H_{{{n},{}}} of the Sierpiński octahedron S_{n}, {} pixels per cell",
            s.m, s.px
        ));
        let mut inside = 0u64;
        write_image(path, &spec, |y, row| {
            let bits: Vec<bool> = (0..side)
                .into_par_iter()
                .map(|b| s.pixel(y as u64, b))
                .collect();
            row.fill(0);
            for (b, &on) in bits.iter().enumerate() {
                if on {
                    row[b / 8] |= 0x80 >> (b % 8);
                    inside += 1;
                }
            }
            Ok(())
        })?;
        report.section = Some(SectionReport {
            m: s.m.to_string(),
            file: path.display().to_string(),
            side,
            px: s.px,
            pixels_inside: inside,
        });
    }
    if args.check {
        let start = Instant::now();
        let top = 1u64 << n;
        let c = check_with_progress(n, top)?;
        report.check = Some(CheckReport {
            m_from: 1,
            m_to: top,
            cells: c.cells as u64,
            mismatches: c.mismatches as u64,
            seconds: start.elapsed().as_secs_f64(),
        });
        if let Some((m, i, j)) = c.first_mismatch {
            if !args.json {
                println!("S_{n}: {} of {} cells disagree", c.mismatches, c.cells);
            }
            return Err(CheckFailed(format!(
                "S_{n}: cell ({i},{j}) of C({m},{m}) disagrees: P-test and octahedron differ ({} mismatches)",
                c.mismatches
            ))
            .into());
        }
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
    if args.json {
        return print_json(&report);
    }
    if let Some(s) = &report.section {
        println!(
            "H_{{{n},{}}}: {} ({}×{} pixels, {} per cell, {} inside S_{n})",
            s.m, s.file, s.side, s.side, s.px, s.pixels_inside
        );
    }
    if let Some(c) = &report.check {
        println!(
            "S_{n}: the P-cells of C(M,M) are the cells whose centres lie in S_{n}, for M = 1..{}: {} cells checked, {} mismatches ({:.3} s)",
            c.m_to, c.cells, c.mismatches, c.seconds
        );
    }
    if let Some(m) = &report.mesh {
        println!(
            "S_{n}: {} ({} octahedra, {} triangles)",
            m.file, m.octahedra, m.triangles
        );
    }
    Ok(())
}
