//! The Sierpiński octahedron S_N of docs/mathematics.md §2, in exact integer arithmetic.
//!
//! S_0 is |x|+|y|+|z| ≤ 1. The operation T replaces an octahedron of centre c and radius r by
//! the six of radius r/2 centred at c ± (r/2)e_k, so S_N is a union of 6^N octahedra, and
//! H_{N,M} = S_N ∩ {z = 1 - M/2^N}. Every coordinate here is scaled by a power of two (times
//! the denominators in play) so points and radii are integers: floats would misclassify the
//! many points that lie exactly on faces.
//!
//! Correspondence (docs/mathematics.md §2): cell (i,j) of C(m,m), m ≤ 2^N, is P iff its centre
//! point, with w = m/2^N, h = 2/2^N, u = -w + (i-1/2)h, v = -w + (j-1/2)h, x = (u+v)/2,
//! y = (u-v)/2, z = 1 - w, lies in S_N.
//!
//! Tests: this file's unit tests; tests/engine/octahedron.rs.

use super::grid::{p_rows_cpu, Window};
use crate::claim::Claim;
use crate::{Error, Result};
use rayon::prelude::*;

/// Deepest level handled (coordinates are i128 scaled by 2^(N+1) times small factors).
pub const MAX_LEVEL: u32 = 60;

/// Whether the point p lies in S_n, where coordinates are scaled so that S_0 has radius
/// `radius` (which 2^n must divide). Closed octahedra; a point on a boundary shared by several
/// children is looked up in each.
pub fn in_sierpinski(n: u32, radius: i128, p: [i128; 3]) -> bool {
    debug_assert!(radius % (1i128 << n) == 0);
    fn inside(c: [i128; 3], r: i128, p: [i128; 3]) -> bool {
        (p[0] - c[0]).abs() + (p[1] - c[1]).abs() + (p[2] - c[2]).abs() <= r
    }
    fn descend(levels: u32, c: [i128; 3], r: i128, p: [i128; 3]) -> bool {
        if levels == 0 {
            return true;
        }
        let h = r / 2;
        for axis in 0..3 {
            for sign in [1i128, -1] {
                let mut child = c;
                child[axis] += sign * h;
                if inside(child, h, p) && descend(levels - 1, child, h, p) {
                    return true;
                }
            }
        }
        false
    }
    inside([0, 0, 0], radius, p) && descend(n, [0, 0, 0], radius, p)
}

/// Whether the centre point of cell (i,j) (1-based) of C(m,m) lies in S_n (1 ≤ m ≤ 2^n).
/// Scaled by 2^(n+1): x = 2i+2j-2-2m, y = 2i-2j, z = 2^(n+1)-2m, radius 2^(n+1).
pub fn cell_in_sierpinski(n: u32, m: u64, i: u64, j: u64) -> bool {
    let (m, i, j) = (m as i128, i as i128, j as i128);
    let radius = 1i128 << (n + 1);
    in_sierpinski(
        n,
        radius,
        [2 * i + 2 * j - 2 - 2 * m, 2 * i - 2 * j, radius - 2 * m],
    )
}

/// A positive rational p/q in lowest terms: the section height M, read exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    /// Numerator.
    pub num: u64,
    /// Denominator (≥ 1).
    pub den: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Ratio {
    /// num/den in lowest terms.
    pub fn new(num: u64, den: u64) -> Ratio {
        let g = gcd(num, den).max(1);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// Parse "5", "5.5" or "11/2" exactly (no floats): a positive rational.
pub fn parse_ratio(s: &str) -> Result<Ratio> {
    let bad = || {
        Error::invalid(format!(
            "'{s}' is not a positive number (write 5, 5.5 or 11/2)"
        ))
    };
    let huge = || {
        Error::invalid(format!(
            "'{s}' cannot be read exactly: a numerator or denominator past 2^64-1, or more \
             than 18 decimal places"
        ))
    };
    let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    // Digits only from here, so a failed parse is an overflow.
    let int = |t: &str| t.parse::<u64>().map_err(|_| huge());
    let r = if let Some((a, b)) = s.split_once('/') {
        if !digits(a) || !digits(b) {
            return Err(bad());
        }
        let (a, b) = (int(a)?, int(b)?);
        if b == 0 {
            return Err(bad());
        }
        Ratio::new(a, b)
    } else if let Some((a, b)) = s.split_once('.') {
        if !(digits(a) || a.is_empty()) || !digits(b) {
            return Err(bad());
        }
        if b.len() > 18 {
            return Err(huge());
        }
        let den = 10u64.pow(b.len() as u32);
        let whole = if a.is_empty() { 0 } else { int(a)? };
        let num = whole
            .checked_mul(den)
            .and_then(|x| x.checked_add(b.parse::<u64>().ok()?))
            .ok_or_else(huge)?;
        Ratio::new(num, den)
    } else {
        if !digits(s) {
            return Err(bad());
        }
        Ratio::new(int(s)?, 1)
    };
    if r.num == 0 {
        return Err(Error::bad_argument("the section height", s, "positive"));
    }
    Ok(r)
}

/// Largest cross-section side in pixels: [`Section::pixels`] holds the picture at once (32 MiB).
pub const MAX_SECTION_SIDE: u64 = 1 << 14;

/// The cross-section H_{n,M} sampled at `px`×`px` points per cell of the rotated frame, where
/// integer M with px = 1 gives exactly the cells of C(M,M). Pixel (a,b) (0-based) has
/// u = -w + (a+1/2)h/px, v likewise with b. The image is `side()` pixels square.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The level N of S_N.
    pub n: u32,
    /// The height M of the section H_{N,M} (z = 1 - M/2^N).
    pub m: Ratio,
    /// Pixels per cell side.
    pub px: u64,
}

impl Section {
    /// Validate: 0 < M ≤ 2^n and M·px a whole number of pixels.
    pub fn new(n: u32, m: Ratio, px: u64) -> Result<Section> {
        if n > MAX_LEVEL {
            return Err(Error::bad_argument(
                "the level",
                n,
                format!("at most {MAX_LEVEL}"),
            ));
        }
        if px == 0 {
            return Err(Error::bad_input(
                crate::Input::SectionScale,
                px,
                "at least 1",
            ));
        }
        if (m.num as u128) > (m.den as u128) << n {
            return Err(Error::bad_input(
                crate::Input::SectionHeight,
                m,
                format!(
                    "at most 2^{n} = {} (below that lies nothing of S_{n})",
                    1u128 << n
                ),
            ));
        }
        let pixels = m.num as u128 * px as u128;
        if !pixels.is_multiple_of(m.den as u128) {
            return Err(Error::bad_input(
                crate::Input::SectionScale,
                px,
                format!(
                    "a multiple of {} so that M = {m} is a whole number of pixels",
                    m.den / gcd(m.den, px)
                ),
            ));
        }
        // The side M·px in u128, so that no scale wraps it into a small picture.
        if pixels / m.den as u128 > MAX_SECTION_SIDE as u128 {
            let fits = format!("so that the section is at most {MAX_SECTION_SIDE} pixels a side");
            return Err(
                match MAX_SECTION_SIDE as u128 * m.den as u128 / m.num as u128 {
                    0 => Error::bad_input(
                        crate::Input::SectionHeight,
                        m,
                        format!("at most {MAX_SECTION_SIDE}, {fits}"),
                    ),
                    most => Error::bad_input(
                        crate::Input::SectionScale,
                        px,
                        format!("at most {most} for M = {m}, {fits}"),
                    ),
                },
            );
        }
        Ok(Section { n, m, px })
    }

    /// Pixels per side: M·px.
    pub fn side(&self) -> u64 {
        (self.m.num as u128 * self.px as u128 / self.m.den as u128) as u64
    }

    /// The frame both pixel methods use, scaled so that every coordinate is an integer: with
    /// t = px/q (whole, since M·px is) pixel (a,b) sits at x = a+b+1 - p·t, y = a-b on the plane
    /// z = 2^n·px - p·t, and S_0 has radius 2^n·px (< 2^124, so i128 is exact). Returns
    /// (radius, z, p·t).
    fn frame(&self) -> (i128, i128, i128) {
        let t = (self.px / self.m.den) as i128;
        let pt = self.m.num as i128 * t;
        let r = (self.px as i128) << self.n;
        (r, r - pt, pt)
    }

    /// Whether pixel (a,b) lies in H_{n,M}, tested alone (the slow twin of
    /// [`Section::pixels`]).
    pub fn pixel(&self, a: u64, b: u64) -> bool {
        let (r, z, pt) = self.frame();
        let (a, b) = (a as i128, b as i128);
        in_sierpinski(self.n, r, [a + b + 1 - pt, a - b, z])
    }

    /// Every pixel of the section: `side()` rows of ⌈side/8⌉ bytes, pixel b of a row in bit
    /// 7 - b%8 of byte b/8 (a 1-bit PNG row). Walks down only the octahedra that meet the
    /// plane, as [`section_cells`] does, and marks the pixels inside each smallest one, so the
    /// work follows the section, not 60 levels for every pixel.
    pub fn pixels(&self) -> Vec<u8> {
        let side = self.side();
        let stride = side.div_ceil(8) as usize;
        let mut out = vec![0u8; stride * side as usize];
        let (r, z, pt) = self.frame();
        let mut walk = PixelWalk {
            z,
            pt,
            side: side as i128,
            stride,
            out: &mut out,
        };
        walk_plane(z, [0, 0], 0, r, self.n, &mut |xy, cz, r| {
            walk.mark(xy, cz, r)
        });
        out
    }
}

/// The rows [`Section::pixels`] marks, in the frame of [`Section::frame`].
struct PixelWalk<'a> {
    z: i128,
    pt: i128,
    side: i128,
    stride: usize,
    out: &'a mut [u8],
}

impl PixelWalk<'_> {
    /// Mark the pixels inside the section of a smallest octahedron: |x-cx| + |y-cy| ≤ rho is
    /// the square |u-cu| ≤ rho, |v-cv| ≤ rho in u = x+y = 2a+1-pt, v = x-y = 2b+1-pt.
    fn mark(&mut self, [x, y]: [i128; 2], cz: i128, r: i128) {
        let rho = r - (self.z - cz).abs();
        let (a0, a1) = self.range(x + y - rho, x + y + rho);
        let (b0, b1) = self.range(x - y - rho, x - y + rho);
        if a0 > a1 || b0 > b1 {
            return;
        }
        for a in a0..=a1 {
            let row = &mut self.out[a as usize * self.stride..][..self.stride];
            for b in b0..=b1 {
                row[b as usize / 8] |= 0x80 >> (b % 8);
            }
        }
    }

    /// The pixels k in 0..side with 2k+1-pt in [lo, hi].
    fn range(&self, lo: i128, hi: i128) -> (i128, i128) {
        let first = (lo + self.pt).div_euclid(2).max(0);
        let last = (hi + self.pt - 1).div_euclid(2).min(self.side - 1);
        (first, last)
    }
}

/// Result of [`check_correspondence`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorrespondenceCheck {
    /// Cells compared.
    pub cells: u128,
    /// Cells where the P-test and S_N disagree.
    pub mismatches: u128,
    /// The first disagreement: (m, i, j).
    pub first_mismatch: Option<(u64, u64, u64)>,
}

/// The cells of C(m,m) whose centre points lie in S_n, as a packed grid (the P-grid layout),
/// by walking down only the octahedra that meet the plane z = 1 - m/2^n and marking the cell
/// centres inside each smallest one. Output-sensitive: the work follows the octahedra the plane
/// cuts, not the m² cells (the pointwise [`cell_in_sierpinski`] is the slow reference).
pub fn section_cells(n: u32, m: u64) -> Vec<u32> {
    assert!(n <= MAX_LEVEL && m >= 1 && (m as u128) <= 1u128 << n);
    let wpr = super::grid::words_per_row(m);
    let mut out = vec![0u32; wpr * m as usize];
    // Scaled by 2^(n+1) (< 2^62, so i64 is exact): plane z, cell centres u = x+y = 4i-2-2m,
    // v = x-y = 4j-2-2m.
    let (mi, z) = (m as i64, (1i64 << (n + 1)) - 2 * m as i64);
    let mut walk = SectionWalk {
        z,
        mi,
        wpr,
        out: &mut out,
    };
    walk_plane(z, [0, 0], 0, 1i64 << (n + 1), n, &mut |xy, cz, r| {
        walk.mark(xy, cz, r)
    });
    out
}

/// Coordinates of a walk down S_N: i64 for the cells of C(m,m), i128 for scaled pixels.
trait Coord: Copy + Ord + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> {
    fn half(self) -> Self;
    fn abs(self) -> Self;
}

impl Coord for i64 {
    fn half(self) -> i64 {
        self / 2
    }
    fn abs(self) -> i64 {
        i64::abs(self)
    }
}

impl Coord for i128 {
    fn half(self) -> i128 {
        self / 2
    }
    fn abs(self) -> i128 {
        i128::abs(self)
    }
}

/// Walk down from the octahedron of centre (x, y, cz) and radius r, which meets the plane z,
/// `levels` levels, calling `leaf(xy, cz, r)` for every smallest octahedron that meets the
/// plane. Recursion replaces an explicit stack (the depth is N ≤ [`MAX_LEVEL`]); the four
/// children beside an octahedron share its centre's z, so one test decides all four, and the
/// last level calls `leaf` without a call of its own.
fn walk_plane<C: Coord>(
    z: C,
    xy: [C; 2],
    cz: C,
    r: C,
    levels: u32,
    leaf: &mut impl FnMut([C; 2], C, C),
) {
    if levels == 0 {
        leaf(xy, cz, r);
        return;
    }
    let h = r.half();
    let dz = z - cz;
    let [x, y] = xy;
    let (side, up, down) = (dz.abs() <= h, (dz - h).abs() <= h, (dz + h).abs() <= h);
    if levels == 1 {
        if side {
            leaf([x + h, y], cz, h);
            leaf([x - h, y], cz, h);
            leaf([x, y + h], cz, h);
            leaf([x, y - h], cz, h);
        }
        if up {
            leaf(xy, cz + h, h);
        }
        if down {
            leaf(xy, cz - h, h);
        }
        return;
    }
    if side {
        walk_plane(z, [x + h, y], cz, h, levels - 1, leaf);
        walk_plane(z, [x - h, y], cz, h, levels - 1, leaf);
        walk_plane(z, [x, y + h], cz, h, levels - 1, leaf);
        walk_plane(z, [x, y - h], cz, h, levels - 1, leaf);
    }
    if up {
        walk_plane(z, xy, cz + h, h, levels - 1, leaf);
    }
    if down {
        walk_plane(z, xy, cz - h, h, levels - 1, leaf);
    }
}

/// The packed grid [`section_cells`] marks: the plane z (scaled by 2^(n+1)), m, the grid.
struct SectionWalk<'a> {
    z: i64,
    mi: i64,
    wpr: usize,
    out: &'a mut [u32],
}

impl SectionWalk<'_> {
    /// Mark the cell centres inside the section of a smallest octahedron: |x-cx| + |y-cy| ≤
    /// rho, the square |u-cu| ≤ rho, |v-cv| ≤ rho in u = x+y, v = x-y.
    #[inline(always)]
    fn mark(&mut self, [x, y]: [i64; 2], cz: i64, r: i64) {
        let rho = r - (self.z - cz).abs();
        let (cu, cv) = (x + y, x - y);
        let (i0, i1) = self.range(cu - rho, cu + rho);
        let (j0, j1) = self.range(cv - rho, cv + rho);
        for i in i0..=i1 {
            for j in j0..=j1 {
                let (r0, c0) = ((i - 1) as usize, (j - 1) as usize);
                self.out[r0 * self.wpr + c0 / 32] |= 1 << (31 - c0 % 32);
            }
        }
    }

    /// Indices k in 1..=m with 4k-2-2m in [lo, hi]. `x >> 2` is x.div_euclid(4) (an
    /// arithmetic shift floors), one instruction.
    #[inline(always)]
    fn range(&self, lo: i64, hi: i64) -> (i64, i64) {
        let mi = self.mi;
        let first = ((lo + 2 + 2 * mi + 3) >> 2).max(1);
        let last = ((hi + 2 + 2 * mi) >> 2).min(mi);
        (first, last)
    }
}

/// For every m in `ms`, compare the P-cells of C(m,m) (from the P-test generator) with the cells
/// whose centres lie in S_n ([`section_cells`]).
pub fn check_correspondence(
    n: u32,
    ms: impl Iterator<Item = u64> + Send,
) -> Result<CorrespondenceCheck> {
    let ms: Vec<u64> = ms.collect();
    if let Some(&m) = ms.iter().find(|&&m| m == 0 || (m as u128) > 1u128 << n) {
        return Err(Error::bad_argument("m", m, format!("in 1..=2^{n}")));
    }
    let per_m: Vec<CorrespondenceCheck> = ms
        .par_iter()
        .map(|&m| {
            let w = Window::full(m, m).expect("m ≥ 1");
            let wpr = w.words_per_row();
            let mut p = vec![0u32; w.total_words().expect("fits")];
            p_rows_cpu(&w, &mut p);
            let s = section_cells(n, m);
            let mut c = CorrespondenceCheck {
                cells: m as u128 * m as u128,
                ..Default::default()
            };
            for (k, (a, b)) in p.iter().zip(&s).enumerate() {
                let diff = a ^ b;
                if diff != 0 {
                    c.mismatches += diff.count_ones() as u128;
                    let (i, j) = (
                        (k / wpr) as u64 + 1,
                        (k % wpr) as u64 * 32 + diff.leading_zeros() as u64 + 1,
                    );
                    c.first_mismatch.get_or_insert((m, i, j));
                }
            }
            c
        })
        .collect();
    let mut total = CorrespondenceCheck::default();
    for c in per_m {
        total.cells += c.cells;
        total.mismatches += c.mismatches;
        if total.first_mismatch.is_none() {
            total.first_mismatch = c.first_mismatch;
        }
    }
    Ok(total)
}

/// The octahedron claim: for every m ≤ `top` (≤ 2^n), the P-cells of C(m,m) are the cells
/// whose centres lie in S_n ([`check_correspondence`]), as a [`Claim`] named `octahedron`.
pub fn correspondence_claim(n: u32, top: u64) -> Result<Claim> {
    correspondence_claim_with_progress(n, top, |_, _| {})
}

/// [`correspondence_claim`] checked in about 64 pieces of equal work (Σ m² cells), calling
/// `progress(cells done, cells in all)` after each piece (for a progress bar). Stops between
/// pieces with [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
pub fn correspondence_claim_with_progress(
    n: u32,
    top: u64,
    mut progress: impl FnMut(u128, u128),
) -> Result<Claim> {
    const PIECES: u128 = 64;
    let start = std::time::Instant::now();
    // Cells of C(1,1) .. C(m,m): Σ k² = m(m+1)(2m+1)/6.
    let cells = |m: u64| m as u128 * (m as u128 + 1) * (2 * m as u128 + 1) / 6;
    let total = cells(top);
    let mut c = CorrespondenceCheck::default();
    let mut m = 1;
    while m <= top {
        // The largest piece m..=end with about total/PIECES cells (at least one m).
        let goal = cells(m - 1) + total.div_ceil(PIECES);
        let mut end = m;
        while end < top && cells(end + 1) <= goal {
            end += 1;
        }
        crate::cancel::check()?;
        let piece = check_correspondence(n, m..=end)?;
        c.cells += piece.cells;
        c.mismatches += piece.mismatches;
        if c.first_mismatch.is_none() {
            c.first_mismatch = piece.first_mismatch;
        }
        progress(cells(end), total);
        m = end + 1;
    }
    let counterexample = c.first_mismatch.map(|(m, i, j)| {
        format!(
            "m = {m}: cell ({i},{j}) disagrees ({} mismatches)",
            c.mismatches
        )
    });
    Ok(Claim::theorem(
        "octahedron",
        "the P-cells of C(m,m) are the cells whose centre points lie in S_N (docs/mathematics.md §2)",
        format!("m = 1..{top} in S_{n}"),
        c.cells,
        counterexample,
    )
    .took(start))
}

/// The stack of automaton generations as the half octahedron (docs/mathematics.md §2): a point `p`
/// of the voxel surface of generations 0..=`steps` (doubled lattice coordinates: voxel corners are
/// even, edge midpoints odd; layer z is generation z) placed in the rotated frame. Layer z is
/// centred under the apex and stands z/2 below it, a layer half as thick as a cell is wide.
pub fn stack_point(p: [i64; 3], steps: u64) -> [f32; 3] {
    let top = (steps + 1) as f32;
    let [x2, y2, z2] = p.map(|v| v as f32);
    [
        x2 / 2.0 - z2 / 4.0 - 0.25,
        y2 / 2.0 - z2 / 4.0 - 0.25,
        (top - z2 / 2.0) / 2.0,
    ]
}

/// The 6^n octahedra of S_n: (centre, radius) in units where S_0 has radius 2^n (so the
/// smallest have radius 1 and every coordinate is an integer).
pub fn octahedra(n: u32) -> Vec<([i64; 3], i64)> {
    let mut out = vec![([0i64; 3], 1i64 << n)];
    for _ in 0..n {
        let mut next = Vec::with_capacity(out.len() * 6);
        for (c, r) in out {
            let h = r / 2;
            for axis in 0..3 {
                for sign in [1, -1] {
                    let mut child = c;
                    child[axis] += sign * h;
                    next.push((child, h));
                }
            }
        }
        out = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correspondence_for_small_levels() {
        for n in 0..=5 {
            let c = check_correspondence(n, 1..=(1u64 << n)).unwrap();
            assert_eq!(
                c.mismatches, 0,
                "S_{n}: first mismatch {:?}",
                c.first_mismatch
            );
            let want: u128 = (1..=(1u128 << n)).map(|m| m * m).sum();
            assert_eq!(c.cells, want);
        }
    }

    #[test]
    fn section_walk_equals_pointwise_membership() {
        for n in 0..=6u32 {
            for m in 1..=(1u64 << n) {
                let walk = section_cells(n, m);
                let wpr = crate::chocolate::grid::words_per_row(m);
                for i in 1..=m {
                    for j in 1..=m {
                        let c = j - 1;
                        let bit = walk[(i - 1) as usize * wpr + (c / 32) as usize] >> (31 - c % 32)
                            & 1
                            == 1;
                        assert_eq!(
                            bit,
                            cell_in_sierpinski(n, m, i, j),
                            "S_{n}, C({m},{m}) cell ({i},{j})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn off_by_one_slice_is_caught() {
        // The cells of C(6,6) against the points of the slice one level lower (m = 7) of S_4:
        // the check must see a difference, so it is not vacuous.
        let mut bad = 0;
        for i in 1..=6 {
            for j in 1..=6 {
                bad += (crate::chocolate::ptest::p_cell(6, 6, i, j)
                    != cell_in_sierpinski(4, 7, i, j)) as u32;
            }
        }
        assert!(bad > 0);
    }

    #[test]
    fn ratios_parse_exactly() {
        assert_eq!(parse_ratio("5").unwrap(), Ratio::new(5, 1));
        assert_eq!(parse_ratio("5.5").unwrap(), Ratio::new(11, 2));
        assert_eq!(parse_ratio("11/2").unwrap(), Ratio::new(11, 2));
        assert_eq!(parse_ratio(".25").unwrap(), Ratio::new(1, 4));
        assert_eq!(parse_ratio("2.50").unwrap(), Ratio::new(5, 2));
        for bad in [
            "", "x", "0", "0.0", "1/0", "-1", "1e3", "5.", "1/2/3", "5.5.5",
        ] {
            let e = parse_ratio(bad).unwrap_err().to_string();
            assert!(!e.contains("exactly"), "{bad:?}: {e}");
        }
        // Positive, but past what u64s hold: said so, not called "not a positive number".
        for huge in [
            "18446744073709551616",
            "1/18446744073709551616",
            "99999999999999999999999999999/3",
            "0.0000000000000000001",
            "18446744073709551615.5",
        ] {
            let e = parse_ratio(huge).unwrap_err().to_string();
            assert!(e.contains("cannot be read exactly"), "{huge:?}: {e}");
        }
        assert_eq!(
            parse_ratio("18446744073709551615").unwrap(),
            Ratio::new(u64::MAX, 1)
        );
        assert_eq!(
            parse_ratio("0.000000000000000001").unwrap(),
            Ratio::new(1, 1_000_000_000_000_000_000)
        );
    }

    #[test]
    fn the_section_walk_marks_the_pixels_tested_one_by_one() {
        // Integer and rational heights, several scales, the full height 2^n, and level 60.
        let mut seen = [0u32; 2];
        for (n, num, den, px) in [
            (0, 1, 1, 3),
            (1, 1, 1, 1),
            (1, 2, 1, 4),
            (2, 3, 1, 2),
            (3, 5, 1, 1),
            (3, 11, 2, 4),
            (3, 7, 3, 6),
            (4, 13, 1, 3),
            (5, 32, 1, 1),
            (5, 29, 4, 8),
            (6, 45, 7, 7),
            (60, 53, 1, 1),
            (60, 5, 3, 3),
        ] {
            let s = Section::new(n, Ratio::new(num, den), px).unwrap();
            let side = s.side();
            let bits = s.pixels();
            let stride = side.div_ceil(8) as usize;
            let mut inside = 0;
            for a in 0..side {
                for b in 0..side {
                    let got = bits[a as usize * stride + b as usize / 8] & (0x80 >> (b % 8)) != 0;
                    assert_eq!(got, s.pixel(a, b), "H_{n},{num}/{den} px {px}: ({a},{b})");
                    inside += got as u32;
                }
            }
            seen[0] += (side * side) as u32 - inside;
            seen[1] += inside;
        }
        assert!(
            seen[0] > 1000 && seen[1] > 1000,
            "both kinds of pixel: {seen:?}"
        );
    }

    #[test]
    fn a_huge_scale_stays_exact() {
        // px·q·2^(n+1) passes i128 in the unreduced frame; the reduced one holds 2^n·px.
        let s = Section::new(60, Ratio::new(1, 1 << 40), 1 << 40).unwrap();
        assert_eq!(s.side(), 1);
        assert_eq!(s.pixels(), vec![0x80]);
        assert!(s.pixel(0, 0));
    }

    #[test]
    fn integer_section_is_the_p_grid() {
        let s = Section::new(3, Ratio::new(5, 1), 1).unwrap();
        assert_eq!(s.side(), 5);
        for a in 0..5 {
            for b in 0..5 {
                assert_eq!(
                    s.pixel(a, b),
                    crate::chocolate::ptest::p_cell(5, 5, a + 1, b + 1)
                );
            }
        }
        assert!(Section::new(3, Ratio::new(9, 1), 1).is_err());
        assert!(Section::new(3, Ratio::new(11, 2), 1).is_err());
        assert_eq!(Section::new(3, Ratio::new(11, 2), 4).unwrap().side(), 22);
    }

    #[test]
    fn octahedra_count_and_volume() {
        for n in 0..=4 {
            let o = octahedra(n);
            assert_eq!(o.len(), 6usize.pow(n));
            assert!(o.iter().all(|&(_, r)| r == 1));
        }
    }
}
