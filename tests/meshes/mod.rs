//! Mesh file readers and checks shared by the automaton and octahedron tests.
#![allow(dead_code)]

/// A parsed binary little-endian PLY with float x,y,z vertices and int index lists.
pub struct Ply {
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<Vec<u32>>,
}

pub fn read_ply(path: &std::path::Path) -> Ply {
    let data = std::fs::read(path).unwrap();
    let end = data
        .windows(11)
        .position(|w| w == b"end_header\n")
        .expect("PLY header ends")
        + 11;
    let header = std::str::from_utf8(&data[..end]).unwrap();
    let lines: Vec<&str> = header.lines().collect();
    assert_eq!(lines[0], "ply");
    assert_eq!(lines[1], "format binary_little_endian 1.0");
    let count = |what: &str| -> usize {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(&format!("element {what} ")))
            .expect("element line")
            .parse()
            .unwrap()
    };
    let (nv, nf) = (count("vertex"), count("face"));
    assert!(header.contains("property float x\nproperty float y\nproperty float z\n"));
    assert!(header.contains("property list uchar int vertex_indices\n"));
    let mut at = end;
    let f32_at = |k: usize| f32::from_le_bytes(data[k..k + 4].try_into().unwrap());
    let mut vertices = Vec::with_capacity(nv);
    for _ in 0..nv {
        vertices.push([f32_at(at), f32_at(at + 4), f32_at(at + 8)]);
        at += 12;
    }
    let mut faces = Vec::with_capacity(nf);
    for _ in 0..nf {
        let k = data[at] as usize;
        at += 1;
        let idx: Vec<u32> = (0..k)
            .map(|q| {
                i32::from_le_bytes(data[at + 4 * q..at + 4 * q + 4].try_into().unwrap()) as u32
            })
            .collect();
        assert!(
            idx.iter().all(|&i| (i as usize) < nv),
            "face index in range"
        );
        at += 4 * k;
        faces.push(idx);
    }
    assert_eq!(at, data.len(), "file ends after the declared faces");
    Ply { vertices, faces }
}

/// Every undirected edge in exactly two faces, used once in each direction.
pub fn assert_closed(faces: &[Vec<u32>]) {
    let mut directed = std::collections::HashMap::new();
    for f in faces {
        for k in 0..f.len() {
            *directed.entry((f[k], f[(k + 1) % f.len()])).or_insert(0u32) += 1;
        }
    }
    for (&(a, b), &c) in &directed {
        assert_eq!(c, 1, "directed edge {a}->{b} used {c} times");
        assert_eq!(
            directed.get(&(b, a)),
            Some(&1),
            "edge {a}-{b} has no partner face"
        );
    }
}

pub fn signed_volume(v: &[[f32; 3]], faces: &[Vec<u32>]) -> f64 {
    faces
        .iter()
        .map(|f| {
            let p = |k: usize| v[f[k] as usize].map(|x| x as f64);
            (1..f.len() - 1)
                .map(|k| {
                    let (a, b, c) = (p(0), p(k), p(k + 1));
                    a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                        + a[2] * (b[0] * c[1] - b[1] * c[0])
                })
                .sum::<f64>()
                / 6.0
        })
        .sum()
}

/// A parsed binary STL: header checked, one triangle of three vertices per record.
pub fn read_stl(path: &std::path::Path) -> Vec<[[f32; 3]; 3]> {
    let data = std::fs::read(path).unwrap();
    assert!(data.len() >= 84);
    assert!(
        !data.starts_with(b"solid"),
        "binary STL must not start like ASCII STL"
    );
    let n = u32::from_le_bytes(data[80..84].try_into().unwrap()) as usize;
    assert_eq!(
        data.len(),
        84 + 50 * n,
        "file size matches the triangle count"
    );
    let f = |k: usize| f32::from_le_bytes(data[k..k + 4].try_into().unwrap());
    (0..n)
        .map(|t| {
            let at = 84 + 50 * t + 12;
            std::array::from_fn(|v| std::array::from_fn(|c| f(at + 12 * v + 4 * c)))
        })
        .collect()
}

/// STL has no shared vertices: closed means every directed edge, by exact coordinates, occurs
/// as often as its reverse.
pub fn assert_stl_closed(tris: &[[[f32; 3]; 3]]) {
    let key = |p: [f32; 3]| p.map(|x| x.to_bits());
    let mut directed = std::collections::HashMap::new();
    for t in tris {
        for k in 0..3 {
            *directed
                .entry((key(t[k]), key(t[(k + 1) % 3])))
                .or_insert(0i64) += 1;
        }
    }
    for (&(a, b), &c) in &directed {
        assert_eq!(
            directed.get(&(b, a)).copied().unwrap_or(0),
            c,
            "edge used {c} times one way"
        );
    }
}
