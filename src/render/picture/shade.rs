//! How a block of cells becomes one grey level: its exact P-fraction x = count/cells through
//! a curve, rounded to 0..=255, in integer arithmetic (counts up to 2^128, no floats).
//!
//! The P-level ℓ(x) is 0 for a block without P-cells and 255 for a block of P-cells only; a
//! grey picture draws 255 - ℓ (P black on white, as `render --fit`), an indexed picture uses ℓ
//! as the palette index of the blend from the N colour to the P colour.
//!
//! - `linear` (the default, `render --fit`'s shading): ℓ = round(255·x).
//! - `sqrt`: ℓ = round(255·√x), which lifts sparse blocks.
//! - `log`: 64 octaves of density, about four levels an octave: ℓ = round(255·(1 + L(x)/64)),
//!   at least 1 for a block with any P-cell (x below 2^-63.6 would round to 0) and 0 for none;
//!   x = 1 is 255, x = 1/2 is 251, x = 2^-32 is 128. L is log₂ interpolated linearly between
//!   powers of two (L(2^e·(1+f)) = e + f for 0 ≤ f < 1, within 0.09 of log₂), which keeps
//!   every threshold rational and so the rounding exact. Bars whose P-cells are sparse (most
//!   bars that are not 2^k-1 or near it) show their structure only on this scale.
//!
//! Every rounding is halves up. Each curve is increasing, so ℓ(x) is the number of levels
//! l ∈ 1..=255 whose rounding threshold it reaches, and each threshold is a comparison of two
//! integer products, made exactly in 256 bits.
//!
//! Tests: this file's unit tests; tests/pictures/window.rs, tests/serve.rs.

use crate::{Error, Result};

/// A shading curve: how the P-fraction of a block becomes a level.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Shade {
    /// ℓ = round(255·x), as `render --fit`.
    #[default]
    Linear,
    /// ℓ = round(255·√x).
    Sqrt,
    /// ℓ = round(255·(1 + L(x)/64)) for x > 0, at least 1; L the piecewise-linear log₂.
    Log,
}

impl Shade {
    /// Whether this is the default curve (a tile manifest leaves it out).
    pub fn is_linear(&self) -> bool {
        *self == Shade::Linear
    }

    /// The curve's definition, with x = count/cells and ℓ the P-level: the words `render
    /// --help` and docs/guide/pictures.md use.
    pub const fn formula(self) -> &'static str {
        match self {
            Shade::Linear => "ℓ = round(255x)",
            Shade::Sqrt => "ℓ = round(255√x)",
            Shade::Log => "ℓ = round(255(1 + log₂x/64))",
        }
    }

    /// The curve's name on command lines and in URLs.
    pub fn name(self) -> &'static str {
        match self {
            Shade::Linear => "linear",
            Shade::Sqrt => "sqrt",
            Shade::Log => "log",
        }
    }

    /// Whether a block of `cells` cells holding `count` P-cells reaches level `l` (1..=255).
    fn reaches(self, l: u64, count: u128, cells: u128) -> bool {
        let odd = 2 * l - 1;
        match self {
            // 255x ≥ l - 1/2 ⇔ 510·count ≥ (2l-1)·cells.
            Shade::Linear => Wide::product(count, 510) >= Wide::product(cells, odd),
            // 255√x ≥ l - 1/2 ⇔ 4·255²·count ≥ (2l-1)²·cells.
            Shade::Sqrt => Wide::product(count, 4 * 255 * 255) >= Wide::product(cells, odd * odd),
            Shade::Log if l == 1 => count > 0,
            // 255(1 + L(x)/64) ≥ l - 1/2 ⇔ L(x) ≥ τ := 64(2l-511)/510. With e = ⌊τ⌋ (-64 ≤ e
            // ≤ -1) and r = 510(τ - e): x ≥ 2^e·(1 + r/510) ⇔ 510·count·2^-e ≥ (510+r)·cells.
            Shade::Log => {
                let tau = 64 * (2 * l as i64 - 511);
                let e = tau.div_euclid(510);
                let r = (tau - 510 * e) as u64;
                Wide::product(count, 510).shl((-e) as u32) >= Wide::product(cells, 510 + r)
            }
        }
    }
}

impl std::str::FromStr for Shade {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shade> {
        match s {
            "linear" => Ok(Shade::Linear),
            "sqrt" => Ok(Shade::Sqrt),
            "log" => Ok(Shade::Log),
            _ => Err(Error::bad_input(
                crate::Input::Shade,
                s,
                "linear, sqrt or log",
            )),
        }
    }
}

/// A 256-bit unsigned integer (64-bit limbs, least significant first), for exact products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wide([u64; 4]);

impl Wide {
    /// x·y for x < 2^128, y < 2^64.
    fn product(x: u128, y: u64) -> Wide {
        let (lo, hi) = (x as u64 as u128, x >> 64);
        let (p0, p1) = (lo * y as u128, hi * y as u128);
        let mid = (p0 >> 64) + (p1 as u64 as u128);
        let top = (p1 >> 64) + (mid >> 64);
        Wide([p0 as u64, mid as u64, top as u64, (top >> 64) as u64])
    }

    /// self · 2^s for s ≤ 64 (the callers' products stay below 2^202).
    fn shl(self, s: u32) -> Wide {
        debug_assert!(s <= 64 && self.0[3] == 0 && self.0[2] >> 10 == 0);
        let mut out = [0u64; 4];
        for (i, &limb) in self.0.iter().enumerate() {
            let v = (limb as u128) << s;
            out[i] |= v as u64;
            if i + 1 < 4 {
                out[i + 1] |= (v >> 64) as u64;
            }
        }
        Wide(out)
    }
}

impl PartialOrd for Wide {
    fn partial_cmp(&self, other: &Wide) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Wide {
    fn cmp(&self, other: &Wide) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

/// The P-level 0..=255 of a block of `cells` cells holding `count` P-cells
/// (0 < cells, count ≤ cells): the number of levels of `shade` that `count/cells` reaches.
/// A grey pixel is `255 - p_level(..)`.
pub fn p_level(shade: Shade, count: u128, cells: u128) -> u8 {
    debug_assert!(cells > 0 && count <= cells);
    if count == 0 {
        return 0;
    }
    if count == cells {
        return 255;
    }
    // A floating-point guess, then exact steps: the answer is the level l that is reached
    // while l + 1 is not (the guess is rarely off by more than one, so about two exact
    // comparisons a pixel instead of a binary search's eight).
    let mut l = shade.guess(count as f64 / cells as f64);
    while l < 255 && shade.reaches(l + 1, count, cells) {
        l += 1;
    }
    while l > 0 && !shade.reaches(l, count, cells) {
        l -= 1;
    }
    l as u8
}

impl Shade {
    /// The level in floating point, rounded and clamped to 0..=255: only a starting point.
    fn guess(self, x: f64) -> u64 {
        let level = match self {
            Shade::Linear => 255.0 * x,
            Shade::Sqrt => 255.0 * x.sqrt(),
            Shade::Log if x <= 0.0 => 0.0,
            Shade::Log => 255.0 * (1.0 + x.log2() / 64.0),
        };
        (level + 0.5).clamp(0.0, 255.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::picture::shade_level;

    #[test]
    fn linear_is_render_fits_shading() {
        for cells in 1..300u64 {
            for count in 0..=cells {
                let l = p_level(Shade::Linear, count as u128, cells as u128);
                assert_eq!(l, shade_level(count, cells), "{count}/{cells}");
            }
        }
        // Large blocks, ties included (2·count·255 = cells·(2l-1) exactly).
        for (count, cells) in [
            (1u64 << 40, 255u64 << 41),
            (u64::MAX / 2, u64::MAX),
            (3, 2040),
        ] {
            let l = p_level(Shade::Linear, count as u128, cells as u128);
            assert_eq!(l, shade_level(count, cells), "{count}/{cells}");
        }
    }

    /// The curves in floating point, for fractions well away from a rounding tie.
    fn float_level(shade: Shade, x: f64) -> f64 {
        match shade {
            Shade::Linear => 255.0 * x,
            Shade::Sqrt => 255.0 * x.sqrt(),
            Shade::Log if x == 0.0 => 0.0,
            Shade::Log => {
                let e = x.log2().floor().min(-1.0);
                let piecewise = e + x / e.exp2() - 1.0;
                (255.0 * (1.0 + piecewise / 64.0)).max(1.0)
            }
        }
    }

    #[test]
    fn every_curve_agrees_with_floating_point_away_from_ties() {
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            for cells in [1u128, 2, 3, 7, 100, 255, 256, 1000, 65536, 1 << 40] {
                let step = (cells / 1000).max(1);
                let mut count = 0;
                while count <= cells {
                    let exact = float_level(shade, count as f64 / cells as f64);
                    let got = p_level(shade, count, cells) as f64;
                    if (exact - exact.floor() - 0.5).abs() > 1e-6 {
                        assert_eq!(got, (exact + 0.5).floor(), "{shade:?} {count}/{cells}");
                    }
                    count += step;
                }
            }
        }
    }

    #[test]
    fn curves_run_from_0_to_255_and_never_fall() {
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            // A level reached means every level below it is reached.
            for (count, cells) in [(1u128, 3u128), (5, 1 << 70), (u128::MAX / 7, u128::MAX)] {
                let reached: Vec<bool> =
                    (1..=255).map(|l| shade.reaches(l, count, cells)).collect();
                assert!(
                    reached.windows(2).all(|w| w[0] >= w[1]),
                    "{shade:?} {count}/{cells}"
                );
            }
            let big = u128::MAX - 5;
            for cells in [1u128, 9, 4096, 1 << 100, big] {
                assert_eq!(p_level(shade, 0, cells), 0);
                assert_eq!(p_level(shade, cells, cells), 255);
            }
            let cells = 10_000u128;
            let levels: Vec<u8> = (0..=cells).map(|c| p_level(shade, c, cells)).collect();
            assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{shade:?}");
            // Halves up: the exact tie x = 1/510 (ℓ = 0.5 for linear) rounds up.
            assert_eq!(p_level(Shade::Linear, 1, 510), 1);
        }
        // A single P-cell among 2^126 cells: nothing in linear, the faintest level in log.
        assert_eq!(p_level(Shade::Linear, 1, 1 << 126), 0);
        assert_eq!(p_level(Shade::Log, 1, 1 << 126), 1);
        // The log scale's landmarks: four levels an octave.
        assert_eq!(p_level(Shade::Log, 1, 2), 251);
        assert_eq!(p_level(Shade::Log, 1, 1 << 32), 128);
        assert_eq!(p_level(Shade::Log, 1, 1 << 48), 64);
        assert_eq!(p_level(Shade::Linear, (1u128 << 126) / 3, 1 << 126), 85);
        // Sparse blocks: sqrt and log lift what linear rounds to nothing.
        assert_eq!(p_level(Shade::Linear, 1, 1000), 0);
        assert!(p_level(Shade::Sqrt, 1, 1000) > 0 && p_level(Shade::Log, 1, 1000) > 0);
    }

    #[test]
    fn wide_products_are_exact() {
        let cases = [
            (u128::MAX, u64::MAX),
            (1u128 << 127, 2),
            (12345, 678),
            (0, u64::MAX),
        ];
        for (x, y) in cases {
            // Schoolbook multiplication in 32-bit limbs.
            let mut limbs = [0u128; 8];
            let xs = [
                x as u32,
                (x >> 32) as u32,
                (x >> 64) as u32,
                (x >> 96) as u32,
            ];
            let ys = [y as u32, (y >> 32) as u32];
            for (i, &a) in xs.iter().enumerate() {
                for (j, &b) in ys.iter().enumerate() {
                    limbs[i + j] += a as u128 * b as u128;
                }
            }
            for i in 0..7 {
                limbs[i + 1] += limbs[i] >> 32;
                limbs[i] &= 0xffff_ffff;
            }
            let expect: Vec<u64> = (0..4)
                .map(|i| (limbs[2 * i] | limbs[2 * i + 1] << 32) as u64)
                .collect();
            assert_eq!(Wide::product(x, y).0.to_vec(), expect, "{x} * {y}");
        }
        let one = Wide::product(1, 1);
        assert_eq!(one.shl(64).0, [0, 1, 0, 0]);
        assert_eq!(Wide::product(u128::MAX, 510).shl(63).0[3], 509 >> 1);
        assert!(Wide::product(1 << 127, 4).shl(1) > Wide::product(u128::MAX, 3));
        assert!(Wide::product(u128::MAX, 3) > Wide::product(u128::MAX, 2));
    }

    #[test]
    fn the_formulas_are_the_code() {
        // Halves up: round(a/b) = (2a + b) / 2b.
        let round = |a: u128, b: u128| ((2 * a + b) / (2 * b)) as u8;
        for (count, cells) in [
            (0u128, 7u128),
            (1, 3),
            (2, 3),
            (7, 7),
            (1, 9),
            (5, 1000),
            (999, 1000),
        ] {
            // linear: round(255 count/cells).
            assert_eq!(
                p_level(Shade::Linear, count, cells),
                round(255 * count, cells)
            );
            // sqrt: ℓ = round(255√x) is the ℓ with (ℓ-½)² ≤ 255²x < (ℓ+½)².
            let l = p_level(Shade::Sqrt, count, cells) as u128;
            let x = 4 * 255 * 255 * count; // (2·255)²·count, against (2ℓ±1)²·cells
            assert!(
                l == 0 || (2 * l - 1) * (2 * l - 1) * cells <= x,
                "sqrt {count}/{cells}"
            );
            assert!(
                x < (2 * l + 1) * (2 * l + 1) * cells,
                "sqrt {count}/{cells}"
            );
        }
        // log: at x = 2^-k, log₂x = -k exactly, so ℓ = round(255(64-k)/64).
        for k in [0u32, 1, 2, 5, 17, 40, 63] {
            let cells = 1u128 << k;
            assert_eq!(
                p_level(Shade::Log, 1, cells),
                round(255 * (64 - k as u128), 64),
                "log at 2^-{k}"
            );
        }
        assert_eq!(
            p_level(Shade::Log, 1, 1 << 100),
            1,
            "at least 1 for a block with a P-cell"
        );
    }

    #[test]
    fn names_parse_back() {
        for shade in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            assert_eq!(shade.name().parse::<Shade>().unwrap(), shade);
        }
        let err = "cubic".parse::<Shade>().unwrap_err().to_string();
        assert_eq!(err, "the shade must be linear, sqrt or log (got cubic)");
    }
}
