//! Triangle meshes written as binary PLY or binary STL (atomically), and the exposed surface of
//! a stack of voxel layers.
//!
//! The voxel surface keeps only the faces between a filled and an empty voxel, so its size
//! follows the surface, not the volume. It is a closed 2-manifold mesh: every edge belongs to
//! exactly two triangles, used once in each direction. Two places need care to get there:
//! - a lattice vertex where several sheets of the surface meet gets one vertex per group of
//!   face-connected filled voxels around it (within its 2×2×2 block);
//! - an edge where two filled voxels touch only along that edge (the diagonals of P(m) do
//!   this) is split at its midpoint, one midpoint per voxel, so each voxel's two faces there
//!   form their own edge pair.
//!
//! Tests: this file's unit tests.

use crate::output::AtomicFile;
use crate::{Error, Result};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Vertices and outward-oriented (counter-clockwise seen from outside) triangles.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    /// Vertex coordinates.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles as indices into `vertices`.
    pub triangles: Vec<[u32; 3]>,
}

/// S_n as a mesh: each of its 6^n octahedra closed on its own (they meet only along edges and
/// at vertices, so no face is shared), coordinates exact in f32 (multiples of 2^-n).
pub fn sierpinski_mesh(n: u32) -> Mesh {
    let scale = (1u64 << n) as f32;
    let mut mesh = Mesh::default();
    for (c, r) in crate::chocolate::octahedron::octahedra(n) {
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

/// Write `mesh` as binary little-endian PLY (vertex x,y,z floats; faces as uchar-counted int
/// lists).
pub fn write_ply(path: &Path, mesh: &Mesh) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    ply_body(&mut f, mesh).map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// The PLY header and data.
fn ply_body(f: &mut impl Write, mesh: &Mesh) -> std::io::Result<()> {
    write!(
        f,
        "ply\nformat binary_little_endian 1.0\ncomment chompute\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        mesh.vertices.len(),
        mesh.triangles.len()
    )?;
    for v in &mesh.vertices {
        for c in v {
            f.write_all(&c.to_le_bytes())?;
        }
    }
    for t in &mesh.triangles {
        f.write_all(&[3u8])?;
        for &i in t {
            f.write_all(&(i as i32).to_le_bytes())?;
        }
    }
    Ok(())
}

/// Write `mesh` as binary STL (80-byte header, triangle count, then normal, three vertices and
/// a zero attribute per triangle).
pub fn write_stl(path: &Path, mesh: &Mesh) -> Result<()> {
    let count = u32::try_from(mesh.triangles.len()).map_err(|_| {
        Error::too_large(
            format!("a mesh of {} triangles", mesh.triangles.len()),
            "STL counts at most 2^32-1 triangles",
        )
    })?;
    let mut f = AtomicFile::create(path)?;
    stl_body(&mut f, mesh, count).map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// The STL header and triangles.
fn stl_body(f: &mut impl Write, mesh: &Mesh, count: u32) -> std::io::Result<()> {
    let mut header = [b' '; 80];
    header[..8].copy_from_slice(b"chompute");
    f.write_all(&header)?;
    f.write_all(&count.to_le_bytes())?;
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let mut nrm = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]).sqrt();
        if len > 0.0 {
            nrm = nrm.map(|x| x / len);
        }
        for p in [nrm, a, b, c] {
            for x in p {
                f.write_all(&x.to_le_bytes())?;
            }
        }
        f.write_all(&[0, 0])?;
    }
    Ok(())
}

/// Write by extension: `.ply` or `.stl`.
pub fn write_mesh(path: &Path, mesh: &Mesh) -> Result<()> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .as_deref()
    {
        Some("ply") => write_ply(path, mesh),
        Some("stl") => write_stl(path, mesh),
        _ => Err(Error::invalid(format!(
            "'{}': a mesh file must end in .ply or .stl",
            path.display()
        ))),
    }
}

/// Check a mesh file name before doing the work.
pub fn check_mesh_path(path: &Path, allow_stl: bool) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("ply") => {}
        Some("stl") if allow_stl => {}
        _ if allow_stl => {
            return Err(Error::invalid(format!(
                "'{}': a mesh file must end in .ply or .stl",
                path.display()
            )))
        }
        _ => {
            return Err(Error::invalid(format!(
                "'{}': the stack is written as PLY; name it FILE.ply",
                path.display()
            )))
        }
    }
    // Refuse a directory (and other targets that cannot be written) before the work.
    crate::output::check_target(path)
}

/// Peak bytes of memory the stack's mesh takes per voxel, at most: `ca --mesh` measured 650 to
/// 930 (peak resident size over voxels, from 127 to 511 steps: the vertex map, the points and
/// the triangles, then the mesh made of them), so this leaves room to spare.
pub const STACK_BYTES_PER_VOXEL: u64 = 1024;

/// Check, before any step, that the stack of generations 0..=`steps` fits in `room`: its
/// voxels, exactly Σ g(m) for m ≤ steps+1, times [`STACK_BYTES_PER_VOXEL`]. Returns the voxels.
pub fn check_stack_memory(steps: u64, room: crate::memory::Room) -> Result<u128> {
    let generations = steps.saturating_add(1);
    let (_, voxels) = crate::chocolate::count::g_prefix_sums(generations)?;
    let bytes = voxels
        .saturating_mul(STACK_BYTES_PER_VOXEL as u128)
        .min(u64::MAX as u128) as u64;
    room.ensure(
        bytes,
        &format!("the mesh of {generations} generations ({voxels} voxels)"),
        "stack fewer steps (each doubling takes about six times as much)",
    )?;
    Ok(voxels)
}

/// The generations of an automaton run stacked into a voxel surface, as a
/// [`Watcher`](crate::chocolate::automaton::Watcher): layer z is generation z, added once
/// generation z+1 is known; [`StackWriter::into_mesh`] closes it with the last.
#[derive(Default)]
pub struct StackWriter {
    surface: VoxelSurface,
    /// Layers z-1 and z, kept until z+1 arrives.
    layers: (Option<BitLayer>, Option<BitLayer>),
    last: u64,
}

impl StackWriter {
    /// An empty stack.
    pub fn new() -> StackWriter {
        StackWriter::default()
    }

    /// The closed mesh of the stack: the half octahedron of docs/mathematics.md §2 (z mirrored,
    /// which reverses the orientation), and its voxels.
    pub fn into_mesh(mut self) -> (Mesh, u128) {
        let steps = self.last;
        if let Some(z) = self.layers.1.take() {
            self.surface
                .add_layer(steps, self.layers.0.as_ref(), &z, None);
        }
        let voxels = self.surface.voxels();
        let mesh = self.surface.into_mesh(
            |p| crate::chocolate::octahedron::stack_point(p, steps),
            true,
        );
        (mesh, voxels)
    }
}

impl crate::chocolate::automaton::Watcher for StackWriter {
    fn next_after(&self, n: u64) -> Option<u64> {
        Some(n + 1)
    }

    fn see(
        &mut self,
        n: u64,
        runner: &dyn crate::chocolate::backend::AutomatonBackend,
    ) -> Result<()> {
        let layer = BitLayer {
            side: n + 1,
            words: runner.current_u32()?,
        };
        if let Some(z) = self.layers.1.take() {
            self.surface
                .add_layer(n - 1, self.layers.0.as_ref(), &z, Some(&layer));
            self.layers.0 = Some(z);
        }
        self.layers.1 = Some(layer);
        self.last = n;
        Ok(())
    }
}

/// One layer of voxels: a packed square grid in the P-grid layout (rows of u32 words, bit 31
/// the leftmost cell).
#[derive(Debug, Clone)]
pub struct BitLayer {
    /// Cells a side.
    pub side: u64,
    /// Packed rows, the P-grid layout.
    pub words: Vec<u32>,
}

impl BitLayer {
    /// Whether voxel (x, y) is filled (false outside the layer).
    pub fn get(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x as u64 >= self.side || y as u64 >= self.side {
            return false;
        }
        let wpr = self.side.div_ceil(32) as usize;
        self.words[x as usize * wpr + (y / 32) as usize] >> (31 - y % 32) & 1 == 1
    }
}

/// Where each vertex key of the surface went: lattice points (doubled coordinates so that
/// midpoints and face centres are integers) with a sheet label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum VertexKey {
    /// A lattice point and the lowest octant index of the voxel group it belongs to.
    Corner([i64; 3], u8),
    /// The midpoint of a touching-only edge (start point, axis), for one voxel.
    Mid([i64; 3], u8, [i64; 3]),
}

/// The exposed surface of a stack of layers, built one layer at a time. Layer z fills the unit
/// cubes [x,x+1]×[y,y+1]×[z,z+1] of its cells (x = row, y = column).
#[derive(Default)]
pub struct VoxelSurface {
    keys: HashMap<VertexKey, u32>,
    /// Doubled integer coordinates.
    points: Vec<[i64; 3]>,
    triangles: Vec<[u32; 3]>,
    voxels: u128,
}

/// Layers z-1, z, z+1 around the one being meshed.
struct Neighbourhood<'a> {
    z: i64,
    layers: [Option<&'a BitLayer>; 3],
}

impl Neighbourhood<'_> {
    fn filled(&self, p: [i64; 3]) -> bool {
        let dz = p[2] - self.z + 1;
        if !(0..3).contains(&dz) {
            return false;
        }
        self.layers[dz as usize].is_some_and(|l| l.get(p[0], p[1]))
    }
}

fn add(a: [i64; 3], b: [i64; 3]) -> [i64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn unit(axis: usize, s: i64) -> [i64; 3] {
    let mut e = [0; 3];
    e[axis] = s;
    e
}

impl VoxelSurface {
    /// An empty surface.
    pub fn new() -> VoxelSurface {
        VoxelSurface::default()
    }

    /// Filled voxels seen so far.
    pub fn voxels(&self) -> u128 {
        self.voxels
    }

    fn vertex(&mut self, key: VertexKey, point2: [i64; 3]) -> u32 {
        let next = self.points.len() as u32;
        *self.keys.entry(key).or_insert_with(|| {
            self.points.push(point2);
            next
        })
    }

    /// Label of the group of face-connected filled voxels around lattice point `p` that holds
    /// voxel `v` (one of the eight voxels with a corner at p): the lowest octant index in it.
    fn corner_label(nb: &Neighbourhood, p: [i64; 3], v: [i64; 3]) -> u8 {
        let octant = |o: usize| {
            add(
                p,
                [
                    (o & 1) as i64 - 1,
                    (o >> 1 & 1) as i64 - 1,
                    (o >> 2 & 1) as i64 - 1,
                ],
            )
        };
        let filled: [bool; 8] = std::array::from_fn(|o| nb.filled(octant(o)));
        let start = (0..8)
            .find(|&o| octant(o) == v)
            .expect("voxel touches the point");
        let mut seen = 1u8 << start;
        let mut stack = vec![start];
        while let Some(o) = stack.pop() {
            for bit in [1, 2, 4] {
                let q = o ^ bit;
                if filled[q] && seen & (1 << q) == 0 {
                    seen |= 1 << q;
                    stack.push(q);
                }
            }
        }
        seen.trailing_zeros() as u8
    }

    /// Mesh layer `z` (its exposed faces), given the layers below (z-1) and above (z+1).
    pub fn add_layer(
        &mut self,
        z: u64,
        below: Option<&BitLayer>,
        layer: &BitLayer,
        above: Option<&BitLayer>,
    ) {
        let nb = Neighbourhood {
            z: z as i64,
            layers: [below, Some(layer), above],
        };
        let z = z as i64;
        for x in 0..layer.side as i64 {
            for y in 0..layer.side as i64 {
                if !layer.get(x, y) {
                    continue;
                }
                self.voxels += 1;
                let v = [x, y, z];
                for a in 0..3 {
                    for s in [1i64, -1] {
                        if !nb.filled(add(v, unit(a, s))) {
                            self.face(&nb, v, a, s);
                        }
                    }
                }
            }
        }
    }

    /// The exposed face of voxel v with outward normal s·e_a.
    fn face(&mut self, nb: &Neighbourhood, v: [i64; 3], a: usize, s: i64) {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        // Corners counter-clockwise about +e_a: (0,0), (1,0), (1,1), (0,1) in (b,c).
        let base = add(v, unit(a, (s > 0) as i64));
        let offs = [(0, 0), (1, 0), (1, 1), (0, 1)];
        let mut corners: Vec<[i64; 3]> = offs
            .iter()
            .map(|&(ob, oc)| add(add(base, unit(b, ob)), unit(c, oc)))
            .collect();
        if s < 0 {
            corners.reverse();
        }
        let ids: Vec<u32> = corners
            .iter()
            .map(|&p| {
                let label = Self::corner_label(nb, p, v);
                self.vertex(VertexKey::Corner(p, label), p.map(|x| 2 * x))
            })
            .collect();
        // Sides: an edge where v and a diagonal neighbour touch with both other voxels empty.
        let mut ring = Vec::with_capacity(8);
        let mut split = false;
        for k in 0..4 {
            ring.push(ids[k]);
            let (p, q) = (corners[k], corners[(k + 1) % 4]);
            let axis = (0..3)
                .find(|&d| p[d] != q[d])
                .expect("an edge has a direction");
            let f = 3 - a - axis; // the axis across the edge within the face's plane
            let t = if p[f] > v[f] { 1 } else { -1 };
            let n2 = add(v, unit(f, t));
            let diag = add(n2, unit(a, s));
            if nb.filled(diag) && !nb.filled(n2) {
                split = true;
                let start = if p[axis] < q[axis] { p } else { q };
                let mid2 = add(
                    p.map(|x| 2 * x),
                    unit(axis, if q[axis] > p[axis] { 1 } else { -1 }),
                );
                ring.push(self.vertex(VertexKey::Mid(start, axis as u8, v), mid2));
            }
        }
        if !split {
            self.triangles.push([ids[0], ids[1], ids[2]]);
            self.triangles.push([ids[0], ids[2], ids[3]]);
        } else {
            // A fan about the face centre, which belongs to this face alone.
            let centre2 = add(add(base.map(|x| 2 * x), unit(b, 1)), unit(c, 1));
            let centre = self.points.len() as u32;
            self.points.push(centre2);
            for k in 0..ring.len() {
                self.triangles
                    .push([centre, ring[k], ring[(k + 1) % ring.len()]]);
            }
        }
    }

    /// The finished mesh, with lattice point p (doubled coordinates p2) placed at `place(p2)`.
    /// `flip` reverses every triangle (for a placement that mirrors space).
    pub fn into_mesh(self, place: impl Fn([i64; 3]) -> [f32; 3], flip: bool) -> Mesh {
        Mesh {
            vertices: self.points.iter().map(|&p| place(p)).collect(),
            triangles: self
                .triangles
                .into_iter()
                .map(|[a, b, c]| if flip { [a, c, b] } else { [a, b, c] })
                .collect(),
        }
    }
}

/// Facts about a mesh that make it a closed oriented surface: every undirected edge is used by
/// exactly two triangles, once in each direction. Returns (edges, problems) where problems
/// counts the edges that break this.
pub fn closedness(triangles: &[[u32; 3]]) -> (usize, usize) {
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    for t in triangles {
        for k in 0..3 {
            *directed.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    let mut edges = 0;
    let mut bad = 0;
    for (&(a, b), &count) in &directed {
        if a < b || !directed.contains_key(&(b, a)) {
            edges += 1;
            if count != 1 || directed.get(&(b, a)) != Some(&1) {
                bad += 1;
            }
        }
    }
    (edges, bad)
}

/// Signed volume enclosed by an oriented triangle mesh.
pub fn volume(mesh: &Mesh) -> f64 {
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| mesh.vertices[i as usize].map(|x| x as f64));
            (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(rows: &[&str]) -> BitLayer {
        let side = rows.len() as u64;
        let wpr = side.div_ceil(32) as usize;
        let mut words = vec![0u32; wpr * side as usize];
        for (x, r) in rows.iter().enumerate() {
            for (y, ch) in r.chars().enumerate() {
                if ch == '#' {
                    words[x * wpr + y / 32] |= 1 << (31 - y % 32);
                }
            }
        }
        BitLayer { side, words }
    }

    fn mesh_of(layers: &[BitLayer]) -> Mesh {
        let mut s = VoxelSurface::new();
        for z in 0..layers.len() {
            s.add_layer(
                z as u64,
                z.checked_sub(1).map(|k| &layers[k]),
                &layers[z],
                layers.get(z + 1),
            );
        }
        s.into_mesh(|p| p.map(|x| x as f32 / 2.0), false)
    }

    #[test]
    fn single_cube() {
        let m = mesh_of(&[layer(&["#"])]);
        assert_eq!(m.triangles.len(), 12);
        assert_eq!(m.vertices.len(), 8);
        assert_eq!(closedness(&m.triangles).1, 0);
        assert!((volume(&m) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn diagonal_contacts_stay_manifold() {
        // Edge contacts within a layer, vertex contacts across layers, and a ring.
        let layers = [
            layer(&["#..", ".#.", "..#"]),
            layer(&[".#.", "#.#", ".#."]),
            layer(&["#.#", "...", "#.#"]),
            layer(&["###", "#.#", "###"]),
        ];
        let m = mesh_of(&layers);
        let (edges, bad) = closedness(&m.triangles);
        assert!(edges > 0);
        assert_eq!(bad, 0);
        let voxels = 3 + 4 + 4 + 8;
        assert!(
            (volume(&m) - voxels as f64).abs() < 1e-6,
            "volume {}",
            volume(&m)
        );
    }
}
