//! The 3-D chocolate bar CB(F,x,y,z) [Def 6, 7] and its version with a pass [Def 9, 10].
//!
//! Positions are (x,y,z) with x ≤ X, z ≤ Z and y ≤ F(x,z); the moves of `move_F` are
//! (u, min(F(u,z),y), z) for u < x, (x, v, z) for v < y and (x, min(y,F(x,w)), w) for w < z.
//! Every move lowers x, or keeps x and z and lowers y, or keeps x and lowers z, so visiting
//! x, then z, then y in increasing order computes each position once from finished options.
//! With a pass, G(x,y,z,1) is the mex of the options' G(·,1) and of G(x,y,z,0) (the pass),
//! except at the terminal (0,0,0), where no pass is allowed.
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/cancel.rs, tests/games/pass.rs.

use super::expr::Expr;
use super::gp::GpTable;
use super::mex::{mex_of, Mex};
use crate::claim::{Claim, ClaimKind};
use crate::Error;
use std::collections::HashMap;

/// Most positions computed (x2 with a pass); 4 bytes each.
pub const MAX_POSITIONS: u64 = 1 << 25;
/// Most option visits (Σ over positions of x + y + z).
pub const MAX_OPTION_VISITS: u64 = 1 << 34;

/// F(x,z) tabulated for 0 ≤ x ≤ X, 0 ≤ z ≤ Z.
#[derive(Debug, Clone)]
pub struct FTable {
    /// Largest x of the box.
    pub x_max: u64,
    /// Largest z of the box.
    pub z_max: u64,
    values: Vec<u64>,
}

impl FTable {
    /// Tabulate an expression; an evaluation error names the point.
    pub fn from_expr(e: &Expr, x_max: u64, z_max: u64) -> crate::Result<FTable> {
        Self::check_box(x_max, z_max)?;
        let mut values = Vec::with_capacity(((x_max + 1) * (z_max + 1)) as usize);
        for x in 0..=x_max {
            for z in 0..=z_max {
                values.push(
                    e.eval(x, z)
                        .map_err(|err| Error::invalid(format!("F cannot be evaluated: {err}")))?,
                );
            }
        }
        Ok(FTable {
            x_max,
            z_max,
            values,
        })
    }

    /// Tabulate a Rust function (tests and benchmarks).
    pub fn from_fn(x_max: u64, z_max: u64, f: impl Fn(u64, u64) -> u64) -> crate::Result<FTable> {
        Self::check_box(x_max, z_max)?;
        let values = (0..=x_max)
            .flat_map(|x| (0..=z_max).map(move |z| (x, z)))
            .map(|(x, z)| f(x, z))
            .collect();
        Ok(FTable {
            x_max,
            z_max,
            values,
        })
    }

    fn check_box(x_max: u64, z_max: u64) -> crate::Result<()> {
        // (2^64)² does not fit in u128: a product that overflows is too large too.
        let cells = (x_max as u128 + 1).checked_mul(z_max as u128 + 1);
        if cells.is_none_or(|c| c > MAX_POSITIONS as u128) {
            return Err(Error::too_large(
                format!("the box x <= {x_max}, z <= {z_max}"),
                "more than 2^25 columns (x,z); choose smaller X and Z",
            ));
        }
        Ok(())
    }

    /// F(x,z), for x ≤ x_max and z ≤ z_max.
    #[inline]
    pub fn get(&self, x: u64, z: u64) -> u64 {
        self.values[(x * (self.z_max + 1) + z) as usize]
    }

    /// The largest value of F on the box.
    pub fn max_value(&self) -> u64 {
        self.values.iter().copied().max().unwrap_or(0)
    }

    /// The range as text, for reports.
    pub fn range(&self) -> String {
        format!(
            "0 <= x <= {}, 0 <= z <= {}, 0 <= y <= F(x,z)",
            self.x_max, self.z_max
        )
    }

    /// Does F read x anywhere on the box (is it not of the form h(z))?
    pub fn depends_on_x(&self) -> bool {
        (0..=self.x_max).any(|x| (0..=self.z_max).any(|z| self.get(x, z) != self.get(0, z)))
    }
}

/// Grundy numbers of every position of CB(F) on a box, with the pass layer if asked.
#[derive(Debug, Clone)]
pub struct Bar {
    /// The tabulated F the bar was computed for.
    pub f: FTable,
    /// Index of (x,0,z) in `grundy`; y is added to it.
    offsets: Vec<usize>,
    grundy: Vec<u32>,
    grundy_pass: Option<Vec<u32>>,
}

impl Bar {
    /// Compute G(x,y,z) (and G(x,y,z,1) when `pass`) for every position on F's box.
    pub fn compute(f: FTable, pass: bool) -> crate::Result<Bar> {
        let (xm, zm) = (f.x_max, f.z_max);
        let mut offsets = Vec::with_capacity(((xm + 1) * (zm + 1) + 1) as usize);
        let mut total: u64 = 0;
        let mut visits: u128 = 0;
        for x in 0..=xm {
            for z in 0..=zm {
                offsets.push(total as usize);
                let len = f.get(x, z).saturating_add(1);
                total = total.saturating_add(len);
                visits += len as u128 * (x + z) as u128 + (len as u128 * len as u128) / 2;
                if total > MAX_POSITIONS || visits > MAX_OPTION_VISITS as u128 {
                    return Err(Error::too_large(
                        format!("CB(F) on 0 <= x <= {xm}, 0 <= z <= {zm}"),
                        "more than 2^25 positions or 2^34 option visits; choose a smaller box",
                    ));
                }
            }
        }
        offsets.push(total as usize);
        let mut bar = Bar {
            f,
            offsets,
            grundy: vec![0; total as usize],
            grundy_pass: None,
        };
        let plain = bar.layer(None);
        crate::cancel::check()?;
        bar.grundy = plain;
        if pass {
            let with_pass = bar.layer(Some(&bar.grundy));
            crate::cancel::check()?;
            bar.grundy_pass = Some(with_pass);
        }
        Ok(bar)
    }

    #[inline]
    fn index(&self, x: u64, y: u64, z: u64) -> usize {
        self.offsets[(x * (self.f.z_max + 1) + z) as usize] + y as usize
    }

    /// One layer: without a pass (`pass_to = None`) or with one, whose pass option leads to
    /// the given no-pass layer. Stops early, its values unfinished, when its [`crate::cancel`]
    /// token is cancelled (the caller then returns [`crate::Error::Interrupted`]).
    fn layer(&self, pass_to: Option<&[u32]>) -> Vec<u32> {
        let mut g = vec![0u32; self.grundy.len()];
        let mut mex = Mex::new();
        let name = if pass_to.is_some() {
            "planes (with the pass)"
        } else {
            "planes"
        };
        let phase = crate::progress::phase(name, Some(self.f.x_max + 1));
        for x in 0..=self.f.x_max {
            if crate::cancel::check().is_err() {
                break;
            }
            self.layer_plane(x, &mut g, &mut mex, pass_to);
            phase.inc(1);
        }
        g
    }

    /// The values of the plane x of one layer (every z, every y ≤ F(x,z)), from the planes
    /// before it. Its own function, so that the cancellation check between planes does not
    /// cost its loops registers (with the check in the same loop nest they ran 10–15% slower).
    #[inline(never)]
    fn layer_plane(&self, x: u64, g: &mut [u32], mex: &mut Mex, pass_to: Option<&[u32]>) {
        let f = &self.f;
        for z in 0..=f.z_max {
            let fxz = f.get(x, z);
            for y in 0..=fxz {
                mex.begin();
                for u in 0..x {
                    mex.insert(g[self.index(u, f.get(u, z).min(y), z)]);
                }
                let base = self.index(x, 0, z);
                for v in 0..y {
                    mex.insert(g[base + v as usize]);
                }
                for w in 0..z {
                    mex.insert(g[self.index(x, y.min(f.get(x, w)), w)]);
                }
                let here = base + y as usize;
                if let Some(p0) = pass_to {
                    if (x, y, z) != (0, 0, 0) {
                        mex.insert(p0[here]);
                    }
                }
                g[here] = mex.mex();
            }
        }
    }

    /// G(x,y,z) without a pass (p = 0).
    pub fn grundy(&self, x: u64, y: u64, z: u64) -> u32 {
        self.grundy[self.index(x, y, z)]
    }

    /// G(x,y,z,1), when computed with a pass.
    pub fn grundy_pass(&self, x: u64, y: u64, z: u64) -> Option<u32> {
        self.grundy_pass.as_ref().map(|g| g[self.index(x, y, z)])
    }

    /// Whether the pass game's values were computed.
    pub fn has_pass(&self) -> bool {
        self.grundy_pass.is_some()
    }

    /// Number of positions (x,y,z) (each also has p = 0 and p = 1 with a pass).
    pub fn len(&self) -> usize {
        self.grundy.len()
    }

    /// Never: every box holds (0,0,0).
    pub fn is_empty(&self) -> bool {
        self.grundy.is_empty()
    }

    /// Every position (x,y,z) in the order computed.
    pub fn positions(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let f = &self.f;
        (0..=f.x_max).flat_map(move |x| {
            (0..=f.z_max).flat_map(move |z| (0..=f.get(x, z)).map(move |y| (x, y, z)))
        })
    }
}

/// The reference: move_F [Def 7] and the pass [Def 10] as a memoised recursion with a
/// set-based mex. For tests on small boxes.
pub fn grundy_naive(
    f: &FTable,
    x: u64,
    y: u64,
    z: u64,
    pass: bool,
    memo: &mut HashMap<(u64, u64, u64, bool), u32>,
) -> u32 {
    if let Some(&g) = memo.get(&(x, y, z, pass)) {
        return g;
    }
    let mut options: Vec<(u64, u64, u64, bool)> = Vec::new();
    options.extend((0..x).map(|u| (u, f.get(u, z).min(y), z, pass)));
    options.extend((0..y).map(|v| (x, v, z, pass)));
    options.extend((0..z).map(|w| (x, y.min(f.get(x, w)), w, pass)));
    if pass && (x, y, z) != (0, 0, 0) {
        options.push((x, y, z, false));
    }
    let values: Vec<u32> = options
        .into_iter()
        .map(|(a, b, c, p)| grundy_naive(f, a, b, c, p, memo))
        .collect();
    let g = mex_of(values);
    memo.insert((x, y, z, pass), g);
    g
}

/// Is `h` (a sequence h(0), h(1), …) monotonically increasing [Def 5]? The first violation.
pub fn monotone_violation(h: &[u64], name: &str) -> Option<String> {
    h.windows(2)
        .position(|w| w[0] > w[1])
        .map(|k| format!("{name}({k}) = {} > {name}({}) = {}", h[k], k + 1, h[k + 1]))
}

/// Condition (a) of Def 8 on a finite sequence: whenever ⌊z/2^i⌋ = ⌊z'/2^i⌋ (i ≥ 1) then
/// ⌊h(z)/2^(i-1)⌋ = ⌊h(z')/2^(i-1)⌋. Checked for every i that matters on the range: once
/// 2^i exceeds the last index and 2^(i-1) exceeds max h, both sides are constant. Returns the
/// first violation, described with `name` (e.g. "F(3,z)" or "h").
pub fn ns_condition_violation(h: &[u64], name: &str, var: &str) -> Option<String> {
    let n = h.len() as u64;
    let max_h = h.iter().copied().max().unwrap_or(0);
    for i in 1..=64u32 {
        let block = 1u128 << i;
        for start in (0..n as u128).step_by(block.min(n as u128 + 1) as usize) {
            let z0 = start as usize;
            let key = h[z0] >> (i - 1);
            let end = (start + block).min(n as u128) as usize;
            if let Some(z1) = (z0..end).find(|&z1| h[z1] >> (i - 1) != key) {
                return Some(format!(
                    "{var}={z0} and {var}'={z1} share ⌊{var}/2^{i}⌋ = {} but ⌊{name}/2^{}⌋ is {} and {}",
                    z0 >> i,
                    i - 1,
                    key,
                    h[z1] >> (i - 1)
                ));
            }
        }
        if block > n as u128 && (1u128 << (i - 1)) > max_h as u128 {
            break;
        }
    }
    None
}

/// Is F monotone in both arguments on its box? The first violation.
pub fn f_monotone_violation(f: &FTable) -> Option<String> {
    for x in 0..=f.x_max {
        let row: Vec<u64> = (0..=f.z_max).map(|z| f.get(x, z)).collect();
        if let Some(v) = monotone_violation(&row, &format!("F({x},·)")) {
            return Some(v);
        }
    }
    for z in 0..=f.z_max {
        let col: Vec<u64> = (0..=f.x_max).map(|x| f.get(x, z)).collect();
        if let Some(v) = monotone_violation(&col, &format!("F(·,{z})")) {
            return Some(v);
        }
    }
    None
}

/// The NS property of F [Def 8(ii)] on its box: condition (a) for every section
/// F(n,·) and F(·,m). The normalisation h(0) = 0 of Def 8(i) is not asked of the sections:
/// for F(x,z) = h(z) the section F(·,m) is the constant h(m), and Corollary 1 and Theorem 3
/// treat that F as NS; Def 9 asks h(0) = 0 of the pass game's h separately.
pub fn f_ns_violation(f: &FTable) -> Option<String> {
    for x in 0..=f.x_max {
        let row: Vec<u64> = (0..=f.z_max).map(|z| f.get(x, z)).collect();
        if let Some(v) = ns_condition_violation(&row, &format!("F({x},z)"), "z") {
            return Some(format!("section F({x},·): {v}"));
        }
    }
    for z in 0..=f.z_max {
        let col: Vec<u64> = (0..=f.x_max).map(|x| f.get(x, z)).collect();
        if let Some(v) = ns_condition_violation(&col, &format!("F(x,{z})"), "x") {
            return Some(format!("section F(·,{z}): {v}"));
        }
    }
    None
}

/// Theorem 2 on the box: monotone? NS? G = x^y^z everywhere? and do NS and the formula
/// agree (the theorem's two sides)? The theorem claim is only made for monotone F.
pub fn check_theorem2(bar: &Bar) -> Vec<Claim> {
    let start = std::time::Instant::now();
    let f = &bar.f;
    let range = f.range();
    let columns = (f.x_max as u128 + 1) * (f.z_max as u128 + 1);
    let positions = bar.len() as u128;
    let monotone = f_monotone_violation(f);
    let ns = f_ns_violation(f);
    let formula = bar
        .positions()
        .find(|&(x, y, z)| bar.grundy(x, y, z) as u64 != x ^ y ^ z)
        .map(|(x, y, z)| {
            format!(
                "G({x},{y},{z}) = {} but {x}^{y}^{z} = {}",
                bar.grundy(x, y, z),
                x ^ y ^ z
            )
        });
    let mut claims = vec![
        Claim::theorem(
            "Monotone",
            "F is monotonically increasing in x and in z [Def 5]",
            &range,
            columns,
            monotone.clone(),
        )
        .of_kind(ClaimKind::Property),
        Claim::theorem(
            "NS property",
            "every section F(n,·), F(·,m) satisfies condition (a) of Def 8",
            &range,
            columns,
            ns.clone(),
        )
        .of_kind(ClaimKind::Property),
        Claim::theorem(
            "Nim-sum formula",
            "G(CB(F,x,y,z)) = x^y^z",
            &range,
            positions,
            formula.clone(),
        )
        .of_kind(ClaimKind::Property),
    ];
    if monotone.is_none() {
        let agree = ns.is_none() == formula.is_none();
        let why = (!agree).then(|| {
            format!(
                "NS {} but the nim-sum formula {}",
                if ns.is_none() { "holds" } else { "fails" },
                if formula.is_none() { "holds" } else { "fails" }
            )
        });
        claims.push(Claim::theorem(
            "Theorem 2",
            "F has the NS property iff G(CB(F,x,y,z)) = x^y^z",
            &range,
            positions,
            why,
        ));
    }
    claims.into_iter().map(|c| c.took(start)).collect()
}

/// Why F is not a pass game's h(z) [Def 9] on the box, if it is not.
pub fn pass_game_refusal(f: &FTable, e_uses_x: bool) -> Option<String> {
    if e_uses_x || f.depends_on_x() {
        return Some("F reads x; the game with a pass needs F(x,z) = h(z) (Def 9)".into());
    }
    let h: Vec<u64> = (0..=f.z_max).map(|z| f.get(0, z)).collect();
    if h[0] != 0 {
        return Some(format!("h(0) = {}, but Def 9 needs h(0) = 0", h[0]));
    }
    if let Some(z) = (1..h.len()).find(|&z| h[z] >= z as u64) {
        return Some(format!(
            "h({z}) = {} is not below {z}; Def 9 needs h(z) < z for z > 0",
            h[z]
        ));
    }
    if let Some(v) = monotone_violation(&h, "h") {
        return Some(format!("h is not monotone: {v}"));
    }
    if let Some(v) = ns_condition_violation(&h, "h(z)", "z") {
        return Some(format!("h does not have the NS property (Def 8): {v}"));
    }
    None
}

/// CB(F) on the box x ≤ `x_max`, z ≤ `z_max`, checked before any work: F parsed from `f`,
/// tabulated on the box and, for the game with a pass, refused unless it is a pass game's
/// h(z) [Def 9]. The faces call this, then [`Bar::compute`]; the errors name their input
/// ([`crate::Input::Expression`], [`crate::Input::Pass`]).
pub fn plan_bar(f: &str, x_max: u64, z_max: u64, pass: bool) -> crate::Result<(Expr, FTable)> {
    let expr = super::expr::parse(f)
        .map_err(|e| Error::conflict(&[crate::Input::Expression], format!("{{0}}: {e}")))?;
    let table = FTable::from_expr(&expr, x_max, z_max)?;
    if pass {
        if let Some(why) = pass_game_refusal(&table, expr.uses_x()) {
            return Err(Error::conflict(
                &[crate::Input::Pass],
                format!("{{0}}: {why}"),
            ));
        }
    }
    Ok((expr, table))
}

/// Corollary 2's set A (P-positions of the pass game), membership of (x,y,z,p) with y ≤ h(z).
pub fn in_set_a(x: u64, y: u64, z: u64, p: u8) -> bool {
    let a1 = p == 1 && x % 2 == 1 && (x + 1) ^ y ^ z == 0;
    let a2 = p == 1 && x >= 2 && x.is_multiple_of(2) && (x - 1) ^ y ^ z == 0;
    let a3 = p == 0 && x ^ y ^ z == 0;
    a1 || a2 || a3 || (x, y, z, p) == (0, 0, 0, 1)
}

/// Corollary 3's set B = B0 ∪ B1 ∪ B2 − B3 (claimed Grundy number 1).
pub fn in_set_b(x: u64, y: u64, z: u64, p: u8) -> bool {
    let b0 = p == 0 && x ^ y ^ z == 1;
    let b1 = p == 1 && [(0, 0, 2), (0, 1, 3), (2, 0, 0)].contains(&(x, y, z));
    let b2 = p == 1 && x ^ y ^ z == 0 && x + y + z > 0;
    let b3 = p == 1 && [(0, 0, 0), (2, 0, 2), (2, 1, 3)].contains(&(x, y, z));
    (b0 || b1 || b2) && !b3
}

/// Corollary 4's C_1 (positions (x,y,z,1) with Grundy number 2), copied from the paper.
pub const C1: [(u64, u64, u64); 30] = [
    (0, 0, 1),
    (1, 0, 0),
    (2, 0, 2),
    (2, 1, 3),
    (3, 0, 5),
    (3, 1, 4),
    (3, 2, 7),
    (3, 3, 6),
    (4, 0, 7),
    (4, 1, 6),
    (4, 2, 5),
    (4, 3, 4),
    (5, 0, 3),
    (5, 1, 2),
    (6, 0, 8),
    (6, 1, 9),
    (6, 2, 10),
    (6, 3, 11),
    (6, 4, 12),
    (6, 5, 13),
    (6, 6, 14),
    (6, 7, 15),
    (7, 0, 4),
    (7, 1, 5),
    (7, 2, 6),
    (7, 3, 7),
    (8, 0, 6),
    (8, 1, 7),
    (8, 2, 4),
    (8, 3, 5),
];

/// Corollary 4's C_2 (exceptions to the closed form (b)), copied from the paper.
pub const C2: [(u64, u64, u64); 29] = [
    (1, 0, 4),
    (1, 1, 5),
    (1, 2, 6),
    (1, 3, 7),
    (2, 0, 3),
    (2, 1, 2),
    (3, 0, 2),
    (3, 1, 3),
    (4, 0, 1),
    (5, 0, 8),
    (5, 1, 9),
    (5, 2, 10),
    (5, 3, 11),
    (5, 4, 12),
    (5, 5, 13),
    (5, 6, 14),
    (5, 7, 15),
    (6, 0, 7),
    (6, 1, 6),
    (6, 2, 5),
    (6, 3, 4),
    (7, 0, 6),
    (7, 1, 7),
    (7, 2, 4),
    (7, 3, 5),
    (8, 0, 5),
    (8, 1, 4),
    (8, 2, 7),
    (8, 3, 6),
];

/// Corollary 4(b)'s conditions (i)–(iv). For x = 0, (i)'s x - 3 is negative: not satisfied.
pub fn cor4b_condition(x: u64, y: u64, z: u64) -> bool {
    match x % 4 {
        0 => x >= 3 && (x - 3) ^ y ^ z == 0,
        1 => (x + 3) ^ y ^ z == 0,
        2 => (x + 1) ^ y ^ z == 0,
        _ => x ^ y ^ z ^ 1 == 0,
    }
}

/// One position (x,y,z) of a bar computed with a pass, as the claims of [`PASS_CLAIMS`] see
/// it: its Grundy numbers without and with the pass, and the values they are compared with.
#[derive(Debug, Clone, Copy)]
pub struct PassPosition {
    x: u64,
    y: u64,
    z: u64,
    /// G(x,y,z,0).
    g0: u32,
    /// G(x,y,z,1).
    g1: u32,
    /// x^y^z.
    nim_sum: u64,
    /// G_P(x, y^z).
    gp: u32,
    /// Whether (x,y,z) is in Corollary 4's C_1.
    in_c1: bool,
}

impl PassPosition {
    /// G(x,y,z,p) for p = 0 and 1.
    fn both_p(&self) -> [(u8, u32); 2] {
        [(0, self.g0), (1, self.g1)]
    }
}

/// One claim of Theorems 3, 4 and Corollaries 2–4 on a bar with a pass: its stable name, its
/// statement, the cases it checks at each position (two for the claims about both values of
/// p), whether it holds at a position, and what disagrees where it does not (asked only for
/// the first counterexample).
#[derive(Clone, Copy)]
pub struct PassClaim {
    /// The stable name.
    pub name: &'static str,
    statement: &'static str,
    cases_per_position: u128,
    holds: fn(&PassPosition) -> bool,
    disagreement: fn(&PassPosition) -> String,
}

impl std::fmt::Debug for PassClaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassClaim")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Theorem 3, Theorem 4 and Corollaries 2–4, in the order `cb --pass --check` prints them.
pub static PASS_CLAIMS: [PassClaim; 8] = [
    PassClaim {
        name: "Theorem 3",
        statement: "G(x,y,z,0) = x^y^z",
        cases_per_position: 1,
        holds: theorem3,
        disagreement: |p| {
            let PassPosition { x, y, z, g0, .. } = *p;
            format!("G({x},{y},{z},0) = {g0} but {x}^{y}^{z} = {}", p.nim_sum)
        },
    },
    PassClaim {
        name: "Theorem 4",
        statement: "G(x,y,z,1) = G_P(x, y^z)",
        cases_per_position: 1,
        holds: theorem4,
        disagreement: |p| {
            let PassPosition {
                x, y, z, g1, gp, ..
            } = *p;
            format!("G({x},{y},{z},1) = {g1} but G_P({x},{}) = {gp}", y ^ z)
        },
    },
    PassClaim {
        name: "Corollary 2",
        statement: "the P-positions are exactly A = A1 ∪ A2 ∪ A3 ∪ {(0,0,0,1)}",
        cases_per_position: 2,
        holds: |p| corollary2(p).is_none(),
        disagreement: |p| {
            let PassPosition { x, y, z, .. } = *p;
            let (pass, g) = corollary2(p).expect("a disagreement");
            format!(
                "G({x},{y},{z},{pass}) = {g} but ({x},{y},{z},{pass}) is {}in A",
                if g == 0 { "not " } else { "" }
            )
        },
    },
    PassClaim {
        name: "Corollary 3",
        statement: "every position in B = B0 ∪ B1 ∪ B2 − B3 has Grundy number 1",
        cases_per_position: 2,
        holds: |p| corollary3(p).is_none(),
        disagreement: |p| {
            let PassPosition { x, y, z, .. } = *p;
            let (pass, g) = corollary3(p).expect("a disagreement");
            format!("({x},{y},{z},{pass}) is in B but G = {g}")
        },
    },
    PassClaim {
        name: "Corollary 3 (converse)",
        statement: "every position with Grundy number 1 is in B (the proof's 'iff')",
        cases_per_position: 2,
        holds: |p| corollary3_converse(p).is_none(),
        disagreement: |p| {
            let PassPosition { x, y, z, .. } = *p;
            let pass = corollary3_converse(p).expect("a disagreement");
            format!("G({x},{y},{z},{pass}) = 1 but ({x},{y},{z},{pass}) is not in B")
        },
    },
    PassClaim {
        name: "Corollary 4(a)",
        statement: "G(x,y,z,1) = 2 on C_1",
        cases_per_position: 1,
        holds: corollary4a,
        disagreement: |p| {
            let PassPosition { x, y, z, g1, .. } = *p;
            format!("({x},{y},{z},1) is in C_1 but G = {g1}")
        },
    },
    PassClaim {
        name: "Corollary 4(b)",
        statement: "off C_1 ∪ C_2, G(x,y,z,1) = 2 iff one of (i)-(iv) holds",
        cases_per_position: 1,
        holds: corollary4b,
        disagreement: |p| {
            let PassPosition { x, y, z, g1, .. } = *p;
            let verdict = if g1 == 2 { "fail" } else { "hold" };
            format!("G({x},{y},{z},1) = {g1} but conditions (i)-(iv) {verdict}")
        },
    },
    PassClaim {
        name: "Corollary 4(c)",
        statement: "G(x,y,z,0) = 2 iff x^y^z = 2",
        cases_per_position: 1,
        holds: corollary4c,
        disagreement: |p| {
            let PassPosition { x, y, z, g0, .. } = *p;
            format!("G({x},{y},{z},0) = {g0} and {x}^{y}^{z} = {}", p.nim_sum)
        },
    },
];

/// Theorem 3: without the pass, CB(F) is Nim on three heaps.
fn theorem3(p: &PassPosition) -> bool {
    p.g0 as u64 == p.nim_sum
}

/// Theorem 4: with the pass, it is two-heap Nim with a pass on x and y^z.
fn theorem4(p: &PassPosition) -> bool {
    p.g1 == p.gp
}

/// Corollary 2 (G = 0 exactly on the set A): the first (p, G(x,y,z,p)) where it fails.
fn corollary2(p: &PassPosition) -> Option<(u8, u32)> {
    let PassPosition { x, y, z, .. } = *p;
    p.both_p()
        .into_iter()
        .find(|&(pass, g)| (g == 0) != in_set_a(x, y, z, pass))
}

/// Corollary 3 (G = 1 on the set B): the first (p, G(x,y,z,p)) where it fails.
fn corollary3(p: &PassPosition) -> Option<(u8, u32)> {
    let PassPosition { x, y, z, .. } = *p;
    p.both_p()
        .into_iter()
        .find(|&(pass, g)| in_set_b(x, y, z, pass) && g != 1)
}

/// Corollary 3's converse, the proof's "iff" (G = 1 only on B): the first p where it fails.
fn corollary3_converse(p: &PassPosition) -> Option<u8> {
    let PassPosition { x, y, z, .. } = *p;
    p.both_p()
        .into_iter()
        .find(|&(pass, g)| g == 1 && !in_set_b(x, y, z, pass))
        .map(|(pass, _)| pass)
}

/// Corollary 4(a): G(x,y,z,1) = 2 on C_1.
fn corollary4a(p: &PassPosition) -> bool {
    !p.in_c1 || p.g1 == 2
}

/// Corollary 4(b): off C_1 ∪ C_2, G(x,y,z,1) = 2 exactly where one of (i)–(iv) holds.
fn corollary4b(p: &PassPosition) -> bool {
    let PassPosition { x, y, z, .. } = *p;
    p.in_c1 || C2.contains(&(x, y, z)) || (p.g1 == 2) == cor4b_condition(x, y, z)
}

/// Corollary 4(c): without the pass, G = 2 exactly where x^y^z = 2.
fn corollary4c(p: &PassPosition) -> bool {
    (p.g0 == 2) == (p.nim_sum == 2)
}

/// Theorem 3, Theorem 4 and Corollaries 2–4 over every position of a bar computed with a
/// pass: [`check_pass_claims`] of all of [`PASS_CLAIMS`].
pub fn check_pass(bar: &Bar, gp: &GpTable) -> Vec<Claim> {
    check_pass_claims(bar, gp, &PASS_CLAIMS)
}

/// `claims` over every position of a bar computed with a pass, in one pass over the bar; each
/// keeps its first counterexample, and the claims share the pass's time. `gp` must cover
/// x ≤ X and every y^z on the box.
//
// Inlined into `check_pass`, the loop over the claims runs over the registry itself, a
// constant: the compiler unrolls it and calls each claim's check directly, as one function
// holding every check would.
#[inline(always)]
pub fn check_pass_claims(bar: &Bar, gp: &GpTable, claims: &[PassClaim]) -> Vec<Claim> {
    let start = std::time::Instant::now();
    let range = format!("{}, p in {{0,1}}", bar.f.range());
    let mut first: Vec<Option<String>> = vec![None; claims.len()];
    for (x, y, z) in bar.positions() {
        let seen = PassPosition {
            x,
            y,
            z,
            g0: bar.grundy(x, y, z),
            g1: bar.grundy_pass(x, y, z).expect("bar computed with a pass"),
            nim_sum: x ^ y ^ z,
            gp: gp.get(x as usize, (y ^ z) as usize),
            in_c1: C1.contains(&(x, y, z)),
        };
        for (k, c) in claims.iter().enumerate() {
            if !(c.holds)(&seen) && first[k].is_none() {
                first[k] = Some((c.disagreement)(&seen));
            }
        }
    }
    // Positions (x,y,z); the claims about both values of p check twice as many.
    let positions = bar.len() as u128;
    claims
        .iter()
        .zip(first)
        .map(|(c, counterexample)| {
            Claim::theorem(
                c.name,
                c.statement,
                &range,
                c.cases_per_position * positions,
                counterexample,
            )
            .took(start)
        })
        .collect()
}

/// Largest G_P table [`check_pass_game`] builds (512 MiB of u16).
pub const MAX_CHECK_GP_SIDE: u64 = 16384;

/// Theorems 3, 4 and Corollaries 2–4 on a bar computed with a pass, with the G_P table they
/// need built here; [`Error::TooLarge`] when that table would pass [`MAX_CHECK_GP_SIDE`].
pub fn check_pass_game(bar: &Bar) -> crate::Result<Vec<Claim>> {
    let side = gp_side_for(bar);
    if side > MAX_CHECK_GP_SIDE {
        return Err(Error::too_large(
            "checking Theorem 4 on this box",
            format!(
                "it needs G_P up to {side}, more than {MAX_CHECK_GP_SIDE}; choose a smaller box"
            ),
        ));
    }
    Ok(check_pass(bar, &GpTable::compute(side)?))
}

/// Corollary 1 on Table 1 ([`table1`] of a bar with F = h(z)): G(CB_2(h,y,z)) = y^z at every
/// cell y ≤ h(z), z ≤ Z.
pub fn check_corollary1(table: &[Vec<Option<u32>>], z_max: u64) -> Claim {
    let start = std::time::Instant::now();
    let mut cells = 0u128;
    let mut bad = None;
    for (y, row) in table.iter().enumerate() {
        for (z, g) in row.iter().enumerate() {
            if let Some(g) = g {
                cells += 1;
                if *g as usize != y ^ z && bad.is_none() {
                    bad = Some(format!("G(CB_2(h,{y},{z})) = {g} but {y}^{z} = {}", y ^ z));
                }
            }
        }
    }
    Claim::theorem(
        "Corollary 1",
        "G(CB_2(h,y,z)) = y^z",
        format!("0 <= z <= {z_max}, 0 <= y <= h(z)"),
        cells,
        bad,
    )
    .took(start)
}

/// Counts over a bar's positions (x,y,z): how many are P and the largest Grundy number,
/// without the pass and (for a bar computed with one) with it available.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct BarSummary {
    /// Positions (x,y,z) with y ≤ F(x,z) on the box.
    pub positions: u64,
    /// Positions with G(x,y,z) = 0.
    pub p_positions: u64,
    /// The largest G(x,y,z).
    pub max_grundy: u32,
    /// Positions with G(x,y,z,1) = 0, for a bar with a pass.
    pub p_positions_with_pass: Option<u64>,
    /// The largest G(x,y,z,1), for a bar with a pass.
    pub max_grundy_with_pass: Option<u32>,
}

impl Bar {
    /// P-positions and largest Grundy numbers over the box.
    pub fn summary(&self) -> BarSummary {
        let plain = || self.positions().map(|(x, y, z)| self.grundy(x, y, z));
        let pass = || {
            self.positions()
                .filter_map(|(x, y, z)| self.grundy_pass(x, y, z))
        };
        let has_pass = self.has_pass();
        BarSummary {
            positions: self.len() as u64,
            p_positions: plain().filter(|&g| g == 0).count() as u64,
            max_grundy: plain().max().unwrap_or(0),
            p_positions_with_pass: has_pass.then(|| pass().filter(|&g| g == 0).count() as u64),
            max_grundy_with_pass: if has_pass { pass().max() } else { None },
        }
    }
}

/// The side of G_P table that [`check_pass`] needs for a bar.
pub fn gp_side_for(bar: &Bar) -> u64 {
    let top = bar.f.z_max.max(bar.f.max_value());
    let yz_bound = if top == 0 {
        1
    } else {
        1u64 << (64 - top.leading_zeros())
    };
    (bar.f.x_max + 1).max(yz_bound)
}

/// Table 1: G(CB_2(h,y,z)) = G(CB(F,0,y,z)) for rows y = 0..=max h and columns z = 0..=Z;
/// `None` where y > h(z).
pub fn table1(bar: &Bar) -> Vec<Vec<Option<u32>>> {
    let f = &bar.f;
    let rows = (0..=f.z_max).map(|z| f.get(0, z)).max().unwrap_or(0);
    (0..=rows)
        .map(|y| {
            (0..=f.z_max)
                .map(|z| (y <= f.get(0, z)).then(|| bar.grundy(0, y, z)))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::expr::parse;

    fn table(src: &str, x: u64, z: u64) -> FTable {
        FTable::from_expr(&parse(src).unwrap(), x, z).unwrap()
    }

    const FUNCTIONS: [&str; 7] = [
        "floor(z/2)",
        "z/4",
        "pow2(log2(max(z,1)))-1",
        "floor((x+z)/3)",
        "floor((x+z)/2)",
        "min(x,z)",
        "3",
    ];

    #[test]
    fn fast_grundy_matches_recursive_mex() {
        for src in FUNCTIONS {
            for (xm, zm) in [(5, 9), (7, 6)] {
                let f = table(src, xm, zm);
                let bar = Bar::compute(f.clone(), true).unwrap();
                let mut memo = HashMap::new();
                for (x, y, z) in bar.positions() {
                    assert_eq!(
                        bar.grundy(x, y, z),
                        grundy_naive(&f, x, y, z, false, &mut memo),
                        "{src} at ({x},{y},{z})"
                    );
                    assert_eq!(
                        bar.grundy_pass(x, y, z).unwrap(),
                        grundy_naive(&f, x, y, z, true, &mut memo),
                        "{src} pass at ({x},{y},{z})"
                    );
                }
            }
        }
    }

    #[test]
    fn theorem2_on_the_papers_functions() {
        for (src, ns) in [
            ("floor(z/2)", true),
            ("pow2(log2(max(z,1)))-1", true),
            ("z/6", true),
            ("floor((x+z)/3)", false),
            ("floor((x+z)/2)", false),
        ] {
            let bar = Bar::compute(table(src, 23, 23), false).unwrap();
            let claims = check_theorem2(&bar);
            assert!(claims[0].pass, "{src} monotone");
            assert_eq!(
                claims[1].pass, ns,
                "{src} NS: {:?}",
                claims[1].counterexample
            );
            assert_eq!(
                claims[2].pass, ns,
                "{src} formula: {:?}",
                claims[2].counterexample
            );
            assert!(claims[3].pass, "{src} Theorem 2");
        }
    }

    #[test]
    fn ns_condition_finds_violations() {
        // h(z) = z breaks (a) at i = 1: ⌊0/2⌋ = ⌊1/2⌋ but ⌊0/1⌋ ≠ ⌊1/1⌋.
        assert!(ns_condition_violation(&[0, 1, 2, 3], "h", "z").is_some());
        // ⌊z/2⌋ has it.
        let h: Vec<u64> = (0..40).map(|z| z / 2).collect();
        assert!(ns_condition_violation(&h, "h", "z").is_none());
        // A constant has it (F(x,z) = h(z) seen along x).
        assert!(ns_condition_violation(&[5; 9], "h", "z").is_none());
        // ⌊z/3⌋: z = 2, 3 share ⌊z/2⌋ = 1 but h = 0, 1.
        let h: Vec<u64> = (0..10).map(|z| z / 3).collect();
        assert!(ns_condition_violation(&h, "h", "z")
            .unwrap()
            .contains("z=2 and z'=3"));
    }

    #[test]
    fn pass_corollaries_hold_for_the_papers_h() {
        for src in ["floor(z/2)", "floor(z/4)", "pow2(log2(max(z,1)))-1"] {
            let f = table(src, 21, 33);
            assert_eq!(pass_game_refusal(&f, false), None, "{src}");
            let bar = Bar::compute(f, true).unwrap();
            let gp = GpTable::compute(gp_side_for(&bar)).unwrap();
            for c in check_pass(&bar, &gp) {
                assert!(c.pass, "{src}: {} fails: {:?}", c.name, c.counterexample);
            }
        }
    }

    #[test]
    fn pass_check_catches_a_wrong_set() {
        // Corrupt one value of the pass layer: Theorem 4's check must see it.
        let f = table("floor(z/2)", 9, 12);
        let mut bar = Bar::compute(f, true).unwrap();
        let i = bar.index(8, 3, 6);
        bar.grundy_pass.as_mut().unwrap()[i] = 5;
        let gp = GpTable::compute(gp_side_for(&bar)).unwrap();
        let claims = check_pass(&bar, &gp);
        assert!(!claims[1].pass, "Theorem 4 sees the change");
    }

    #[test]
    fn each_pass_claim_checked_alone_is_its_row_of_the_whole_check() {
        let f = table("floor(z/4)", 13, 27);
        let mut bar = Bar::compute(f, true).unwrap();
        let gp = GpTable::compute(gp_side_for(&bar)).unwrap();
        // One wrong value of G(x,y,z,0): Theorem 3 and Corollary 2 see it, at that position.
        let i = bar.index(5, 2, 9);
        bar.grundy[i] = 0;
        let all = check_pass(&bar, &gp);
        assert_eq!(all.len(), PASS_CLAIMS.len());
        for (entry, whole) in PASS_CLAIMS.iter().zip(&all) {
            let alone = check_pass_claims(&bar, &gp, std::slice::from_ref(entry));
            let c = &alone[0];
            assert_eq!(c.name, entry.name);
            assert_eq!(
                (&c.statement, &c.range, c.checked, c.pass, &c.counterexample),
                (
                    &whole.statement,
                    &whole.range,
                    whole.checked,
                    whole.pass,
                    &whole.counterexample
                ),
                "{}",
                entry.name
            );
        }
        let failed: Vec<&str> = all
            .iter()
            .filter(|c| !c.pass)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(failed, ["Theorem 3", "Corollary 2"]);
        assert_eq!(
            all[0].counterexample.as_deref(),
            Some(format!("G(5,2,9,0) = 0 but 5^2^9 = {}", 5 ^ 2 ^ 9).as_str())
        );
    }

    #[test]
    fn pass_game_refuses_other_f() {
        assert!(pass_game_refusal(&table("floor((x+z)/3)", 4, 4), true)
            .unwrap()
            .contains("reads x"));
        assert!(pass_game_refusal(&table("z", 0, 4), false)
            .unwrap()
            .contains("h(1) = 1"));
        assert!(pass_game_refusal(&table("z/3", 0, 9), false)
            .unwrap()
            .contains("NS"));
        assert!(pass_game_refusal(&table("z/2+1", 0, 9), false)
            .unwrap()
            .contains("h(0)"));
    }

    #[test]
    fn table1_entries_are_y_xor_z() {
        let bar = Bar::compute(table("pow2(log2(max(z,1)))-1", 0, 15), false).unwrap();
        let t = table1(&bar);
        assert_eq!(t.len(), 8);
        for (y, row) in t.iter().enumerate() {
            for (z, cell) in row.iter().enumerate() {
                let allowed = z > 0 && y < (1 << z.ilog2());
                assert_eq!(cell.is_some(), allowed || (y == 0), "({y},{z})");
                if let Some(g) = cell {
                    assert_eq!(*g as usize, y ^ z);
                }
            }
        }
    }
}
