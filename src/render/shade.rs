//! How a block of cells becomes one grey level: its exact P-fraction x = count/cells through
//! a curve, rounded to 0..=255, in integer arithmetic (counts up to 2^128, no floats).
//!
//! The P-level ℓ(x) is 0 for a block without P-cells and 255 for a block of P-cells only; a
//! grey picture draws 255 - ℓ (P black on white, as `render --fit`), an indexed picture uses ℓ
//! as the palette index of the blend from the N colour to the P colour.
//!
//! - `linear` (the default, `render --fit`'s shading): ℓ = round(255·x).
//! - `sqrt`: ℓ = round(255·√x), which lifts sparse blocks.
//! - `log`: ℓ = round(255·L(1 + 255·x) / 8), where L is log₂ interpolated linearly between
//!   powers of two (L(2^e·(1+f)) = e + f for 0 ≤ f < 1, within 0.09 of log₂): 0 at x = 0,
//!   255 at x = 1, and a single P-cell in 8128 already shows. The interpolation keeps it
//!   exact: every threshold is rational.
//!
//! Every rounding is halves up. Each curve is increasing, so ℓ(x) is the number of levels
//! l ∈ 1..=255 whose rounding threshold x ≥ t_l it reaches, and each threshold is
//! `count·A ≥ cells·B[l]` for integers A and B[l] (below); the products are compared exactly
//! in 192 bits.

use crate::{Error, Result};

/// A shading curve: how the P-fraction of a block becomes a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Shade {
    /// ℓ = round(255·x), as `render --fit`.
    #[default]
    Linear,
    /// ℓ = round(255·√x).
    Sqrt,
    /// ℓ = round(255·L(1 + 255·x)/8), L the piecewise-linear log₂.
    Log,
}

impl Shade {
    /// The curve's name on command lines and in URLs.
    pub fn name(self) -> &'static str {
        match self {
            Shade::Linear => "linear",
            Shade::Sqrt => "sqrt",
            Shade::Log => "log",
        }
    }

    /// The integer A of the thresholds `count·A ≥ cells·B[l]`.
    fn scale(self) -> u64 {
        match self {
            Shade::Linear => 510,
            Shade::Sqrt => 4 * 255 * 255,
            Shade::Log => 255 * 255,
        }
    }

    /// The thresholds B[l-1] for l = 1..=255, increasing.
    fn thresholds(self) -> &'static [u64; 255] {
        match self {
            Shade::Linear => &LINEAR,
            Shade::Sqrt => &SQRT,
            Shade::Log => &LOG,
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
            _ => Err(Error::bad_argument("the shade", s, "linear, sqrt or log")),
        }
    }
}

/// ℓ ≥ l ⇔ 255x ≥ l - 1/2 ⇔ 510·count ≥ (2l-1)·cells.
const LINEAR: [u64; 255] = {
    let mut t = [0u64; 255];
    let mut l = 1;
    while l <= 255 {
        t[l - 1] = 2 * l as u64 - 1;
        l += 1;
    }
    t
};

/// ℓ ≥ l ⇔ 255√x ≥ l - 1/2 ⇔ 4·255²·count ≥ (2l-1)²·cells.
const SQRT: [u64; 255] = {
    let mut t = [0u64; 255];
    let mut l = 1;
    while l <= 255 {
        let odd = 2 * l as u64 - 1;
        t[l - 1] = odd * odd;
        l += 1;
    }
    t
};

/// ℓ ≥ l ⇔ L(y) ≥ τ := 4(2l-1)/255 with y = 1 + 255x. Write τ = e + f (e its integer part):
/// L(y) ≥ τ ⇔ y ≥ 2^e·(1+f) ⇔ 255²·count ≥ (2^e·(255 + 4(2l-1) - 255e) - 255)·cells.
const LOG: [u64; 255] = {
    let mut t = [0u64; 255];
    let mut l = 1;
    while l <= 255 {
        let tau = 4 * (2 * l as u64 - 1);
        let e = tau / 255;
        t[l - 1] = (1u64 << e) * (255 + tau - 255 * e) - 255;
        l += 1;
    }
    t
};

/// `x·y` for x < 2^128, y < 2^64, as (high 64 bits, low 128 bits) of the 192-bit product.
fn mul_wide(x: u128, y: u64) -> (u64, u128) {
    let (lo, hi) = (x as u64 as u128, x >> 64);
    let (p0, p1) = (lo * y as u128, hi * y as u128);
    let mid = (p0 >> 64) + (p1 as u64 as u128);
    let high = (p1 >> 64) + (mid >> 64);
    (high as u64, (mid << 64) | (p0 as u64 as u128))
}

/// The P-level 0..=255 of a block of `cells` cells holding `count` P-cells
/// (0 < cells, count ≤ cells): the number of thresholds of `shade` that `count/cells` reaches.
/// A grey pixel is `255 - p_level(..)`.
pub fn p_level(shade: Shade, count: u128, cells: u128) -> u8 {
    debug_assert!(cells > 0 && count <= cells);
    let lhs = mul_wide(count, shade.scale());
    shade
        .thresholds()
        .partition_point(|&b| mul_wide(cells, b) <= lhs) as u8
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
            Shade::Log => {
                let y = 1.0 + 255.0 * x;
                let e = y.log2().floor().min(7.0);
                255.0 * (e + y / e.exp2() - 1.0) / 8.0
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
            assert!(shade.thresholds().windows(2).all(|w| w[0] < w[1]));
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
        // A single P-cell among 2^126 cells is below every threshold; a third of them is not.
        assert_eq!(p_level(Shade::Log, 1, 1 << 126), 0);
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
            let (hi, lo) = mul_wide(x, y);
            // Check against schoolbook multiplication in 32-bit limbs.
            let mut limbs = [0u128; 6];
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
            for i in 0..5 {
                limbs[i + 1] += limbs[i] >> 32;
                limbs[i] &= 0xffff_ffff;
            }
            let lo_expect = (0..4).fold(0u128, |acc, i| acc | limbs[i] << (32 * i));
            let hi_expect = (limbs[4] | limbs[5] << 32) as u64;
            assert_eq!((hi, lo), (hi_expect, lo_expect), "{x} * {y}");
        }
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
