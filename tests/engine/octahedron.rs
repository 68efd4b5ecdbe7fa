//! `chompute octahedron`: the correspondence check at N = 5, cross-sections, meshes, bad input.

use crate::common;
use crate::meshes;

use chompute::chocolate::octahedron::{Ratio, Section};
use chompute::chocolate::p_cell;
use common::*;
use meshes::*;

#[test]
fn check_at_level_five() {
    let v = json_of(&chompute(&["octahedron", "5", "--check", "--json"]));
    let cells: u64 = (1..=32u64).map(|m| m * m).sum();
    let claim = &v["checks"][0];
    assert_eq!(claim["name"], "octahedron");
    assert_eq!(claim["checked"], cells.to_string());
    assert_eq!(claim["pass"], true);
    assert!(claim["counterexample"].is_null());
    assert_eq!(claim["range"], "m = 1..32 in S_5");
    let o = chompute(&["octahedron", "5", "--check"]);
    assert!(o.status.success());
    assert!(stdout(&o)
        .lines()
        .any(|l| l.starts_with("octahedron") && l.contains(" pass ")));
    let o = chompute(&["octahedron", "5", "--check", "--csv"]);
    assert!(o.status.success());
    assert!(stdout(&o)
        .lines()
        .nth(1)
        .unwrap()
        .starts_with(&format!("octahedron,theorem,pass,{cells},")));
}

#[test]
fn sections_at_five_and_five_and_a_half() {
    let dir = scratch_dir("oct_sections");
    // Integer M with one pixel per cell is exactly C(M,M).
    let p5 = dir.join("h5.png");
    json_of(&chompute(&[
        "octahedron",
        "3",
        "--m",
        "5",
        "-o",
        p5.to_str().unwrap(),
        "--scale",
        "1",
        "--json",
    ]));
    let bits = common::read_bits_png(&p5);
    assert_eq!((bits.len(), bits[0].len()), (5, 5));
    for i in 0..5u64 {
        for j in 0..5u64 {
            assert_eq!(
                bits[i as usize][j as usize],
                p_cell(5, 5, i + 1, j + 1),
                "({i},{j})"
            );
        }
    }
    // Halfway between two layers, read exactly from "5.5" and from "11/2".
    for m in ["5.5", "11/2"] {
        let path = dir.join("h55.png");
        let v = json_of(&chompute(&[
            "octahedron",
            "3",
            "--m",
            m,
            "-o",
            path.to_str().unwrap(),
            "--scale",
            "4",
            "--json",
        ]));
        assert_eq!(v["section"]["m"], "11/2");
        assert_eq!(v["section"]["side"], 22);
        let bits = common::read_bits_png(&path);
        let s = Section::new(3, Ratio::new(11, 2), 4).unwrap();
        let mut inside = 0;
        for (a, row) in bits.iter().enumerate() {
            for (b, &on) in row.iter().enumerate() {
                assert_eq!(on, s.pixel(a as u64, b as u64));
                inside += on as u64;
            }
        }
        assert_eq!(v["section"]["pixels_inside"], inside);
        // The section is symmetric like P(m) (Prop 3.1) and differs from both neighbouring layers.
        assert!((0..22)
            .all(|a| (0..22).all(|b| bits[a][b] == bits[b][a] && bits[a][b] == bits[21 - a][b])));
        assert!(inside > 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn meshes_are_closed() {
    let dir = scratch_dir("oct_meshes");
    let stl = dir.join("s3.stl");
    let v = json_of(&chompute(&[
        "octahedron",
        "3",
        "--mesh",
        stl.to_str().unwrap(),
        "--json",
    ]));
    let tris = read_stl(&stl);
    assert_eq!(tris.len(), 8 * 216);
    assert_eq!(v["mesh"]["triangles"], 8 * 216);
    assert_stl_closed(&tris);
    // Volume of S_3 = 6^3 octahedra of radius 1/8, each (4/3)r³.
    let faces: Vec<Vec<u32>> = (0..tris.len() as u32)
        .map(|t| vec![3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    let verts: Vec<[f32; 3]> = tris.iter().flatten().copied().collect();
    let vol = signed_volume(&verts, &faces);
    let want = 216.0 * 4.0 / 3.0 / 512.0;
    assert!((vol - want).abs() < 1e-9, "volume {vol} want {want}");

    let ply = dir.join("s2.ply");
    json_of(&chompute(&[
        "octahedron",
        "2",
        "--stl",
        ply.to_str().unwrap(),
        "--json",
    ]));
    let m = read_ply(&ply);
    assert_eq!(m.faces.len(), 8 * 36);
    assert_eq!(m.vertices.len(), 6 * 36);
    assert_closed(&m.faces);
    assert!((signed_volume(&m.vertices, &m.faces) - 36.0 * 4.0 / 3.0 / 64.0).abs() < 1e-9);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn octahedron_bad_input() {
    assert_usage_error(&chompute(&["octahedron", "3"]), "nothing to do");
    assert_usage_error(
        &chompute(&["octahedron", "3", "--m", "9", "-o", "x.png"]),
        "at most 2^3",
    );
    assert_usage_error(
        &chompute(&["octahedron", "3", "--m", "5.5", "-o", "x.png", "--px", "3"]),
        "whole number of pixels",
    );
    assert_usage_error(
        &chompute(&["octahedron", "3", "--m", "abc", "-o", "x.png"]),
        "not a positive number",
    );
    assert_usage_error(
        &chompute(&["octahedron", "3", "--m", "0", "-o", "x.png"]),
        "positive",
    );
    assert_usage_error(&chompute(&["octahedron", "3", "--m", "5"]), "--output");
    assert_usage_error(&chompute(&["octahedron", "3", "-o", "x.png"]), "--m M");
    assert_usage_error(
        &chompute(&["octahedron", "61", "--check"]),
        "larger than 60",
    );
    assert_usage_error(
        &chompute(&["octahedron", "3", "--stl", "x.obj"]),
        ".ply or .stl",
    );
    assert_usage_error(
        &chompute(&["octahedron", "13", "--check"]),
        "--check runs up to",
    );
    assert_usage_error(
        &chompute(&["octahedron", "9", "--stl", "x.stl"]),
        "up to N = 7",
    );
    // The side M·scale is reckoned without wrapping: 3 × 6148914691236517206 is 2^64 + 2,
    // which in 64 bits was a picture 2 pixels wide.
    let dir = scratch_dir("octahedron_bad");
    let png = dir.join("x.png");
    let png = png.to_str().unwrap();
    for (scale, most) in [("6148914691236517206", 5461), ("5462", 5461)] {
        assert_usage_error(
            &chompute(&["octahedron", "3", "--m", "3", "--scale", scale, "-o", png]),
            &format!("--scale must be at most {most} for M = 3, so that the section is at most 16384 pixels a side (got {scale})"),
        );
    }
    // Past 16384 no scale is small enough: the height is named.
    assert_usage_error(
        &chompute(&[
            "octahedron",
            "20",
            "--m",
            "16385",
            "--scale",
            "1",
            "-o",
            png,
        ]),
        "--m must be at most 16384",
    );
    assert!(!std::path::Path::new(png).exists());
    let o = chompute(&["octahedron", "3", "--m", "3", "--scale", "5461", "-o", png]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let (w, h) = image::image_dimensions(png).unwrap();
    assert_eq!((w, h), (16383, 16383));
    std::fs::remove_dir_all(&dir).unwrap();
}
