//! How a fitted picture's pixel is shaded from its block's exact P-count: `count` P-cells out
//! of `cells`, 1 ≤ cells < 2^128. Each rule gives a level l in 0..=255 (0: no P-cell, 255:
//! every cell P); a gray pixel is 255 - l (black P-cells on white), an indexed pixel is palette
//! entry l (the blend from the N colour to the P colour).
//!
//! - `linear` (the default): l = round(255·count/cells), halves up, exactly.
//! - `sqrt`: l = round(255·√(count/cells)), halves up, exactly; sparse blocks show darker.
//! - `log`: l = round(255·log₂(1+count) / log₂(1+cells)), halves up, with both logarithms
//!   computed to 32 fractional bits by integer squaring (truncated, so deterministic on every
//!   machine); a block with one P-cell in 2^100 still shows. It is a picture, not a count.
//!
//! `linear` and `sqrt` are exact: a float only guesses the level, which exact integer
//! comparisons of (2l-1)·cells with 510·count (or of (2l-1)²·cells with 260100·count) then
//! correct.

use crate::{Error, Result};

/// A shading rule for fitted pictures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shade {
    /// l = round(255·count/cells).
    #[default]
    Linear,
    /// l = round(255·√(count/cells)).
    Sqrt,
    /// l = round(255·log₂(1+count)/log₂(1+cells)).
    Log,
}

impl Shade {
    /// `linear`, `sqrt` or `log`.
    pub fn parse(s: &str) -> Result<Shade> {
        match s {
            "linear" => Ok(Shade::Linear),
            "sqrt" => Ok(Shade::Sqrt),
            "log" => Ok(Shade::Log),
            _ => Err(Error::bad_argument("the shade", s, "linear, sqrt or log")),
        }
    }

    /// The rule's name on command lines: `linear`, `sqrt` or `log`.
    pub fn name(self) -> &'static str {
        match self {
            Shade::Linear => "linear",
            Shade::Sqrt => "sqrt",
            Shade::Log => "log",
        }
    }

    /// Whether this is the default rule (manifests leave it out).
    pub fn is_linear(&self) -> bool {
        *self == Shade::Linear
    }

    /// The level of a block with `count` P-cells out of `cells` (count ≤ cells, cells ≥ 1).
    pub fn level(self, count: u128, cells: u128) -> u8 {
        debug_assert!(count <= cells && cells > 0);
        if count == 0 {
            return 0;
        }
        match self {
            // The formula itself while 510·count + cells fits a u64 (blocks below 2^55 cells).
            Shade::Linear if cells < 1 << 55 => {
                let (c, s) = (count as u64, cells as u64);
                ((510 * c + s) / (2 * s)) as u8
            }
            // (2l-1)/2 ≤ 255·count/cells ⟺ (2l-1)·cells ≤ 510·count.
            Shade::Linear => nearest(255.0 * ratio(count, cells), |l| {
                mul_le((2 * l - 1) as u64, cells, 510, count)
            }),
            // (2l-1)/2 ≤ 255·√(count/cells) ⟺ (2l-1)²·cells ≤ 4·255²·count.
            Shade::Sqrt => nearest(255.0 * ratio(count, cells).sqrt(), |l| {
                mul_le(((2 * l - 1) * (2 * l - 1)) as u64, cells, 260_100, count)
            }),
            Shade::Log => {
                let (lc, ls) = (log2_fixed(count + 1) as u128, log2_fixed(cells + 1) as u128);
                ((510 * lc + ls) / (2 * ls)).min(255) as u8
            }
        }
    }
}

/// count/cells as a float, only to guess a level that exact comparisons then correct.
fn ratio(count: u128, cells: u128) -> f64 {
    count as f64 / cells as f64
}

/// The largest l in 0..=255 with `reached(l)` (reached(0) is taken as true and `reached` is
/// monotone, true then false), searched from the guess `estimate`.
fn nearest(estimate: f64, reached: impl Fn(u32) -> bool) -> u8 {
    let mut l = (estimate.round() as i64).clamp(0, 255) as u32;
    while l > 0 && !reached(l) {
        l -= 1;
    }
    while l < 255 && reached(l + 1) {
        l += 1;
    }
    l as u8
}

/// a·x ≤ b·y exactly, for a, b < 2^32 and any u128 x, y (the products have up to 160 bits).
pub fn mul_le(a: u64, x: u128, b: u64, y: u128) -> bool {
    wide_mul(a, x) <= wide_mul(b, y)
}

/// k·x as (high part, low 64 bits), k < 2^32: compared lexicographically it orders products.
fn wide_mul(k: u64, x: u128) -> (u128, u64) {
    let low = (x as u64) as u128 * k as u128;
    let high = (x >> 64) * k as u128 + (low >> 64);
    (high, low as u64)
}

/// floor-truncated log₂ v with 32 fractional bits, for v ≥ 1: the integer part from the
/// highest set bit, then one fractional bit per squaring of a 64-bit mantissa in [1, 2).
pub fn log2_fixed(v: u128) -> u64 {
    debug_assert!(v >= 1);
    let e = 127 - v.leading_zeros();
    // v / 2^e in [1, 2) as mantissa / 2^63.
    let mut mantissa = if e >= 63 {
        (v >> (e - 63)) as u64
    } else {
        (v << (63 - e)) as u64
    };
    let mut frac = 0u64;
    for _ in 0..32 {
        let sq = mantissa as u128 * mantissa as u128; // in [2^126, 2^128)
        frac <<= 1;
        if sq >> 127 == 1 {
            frac |= 1;
            mantissa = (sq >> 64) as u64;
        } else {
            mantissa = (sq >> 63) as u64;
        }
    }
    (e as u64) << 32 | frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_is_round_half_up() {
        for cells in 1..200u128 {
            for count in 0..=cells {
                let want = ((510 * count + cells) / (2 * cells)) as u8;
                assert_eq!(Shade::Linear.level(count, cells), want, "{count}/{cells}");
            }
        }
        // Blocks past 2^119 cells, where 510·count no longer fits u128.
        let s = u128::MAX - 5;
        assert_eq!(Shade::Linear.level(s, s), 255);
        assert_eq!(Shade::Linear.level(s / 2, s), 128); // 127.5 rounds up
        assert_eq!(Shade::Linear.level(s / 510, s), 0); // 0.4999…
        assert_eq!(Shade::Linear.level(s / 510 + 1, s), 1); // just past ½
        assert_eq!(Shade::Linear.level(1, s), 0);
    }

    #[test]
    fn sqrt_is_round_half_up_of_the_root() {
        for cells in 1..120u128 {
            for count in 0..=cells {
                // The largest l with (2l-1)² cells ≤ 260100 count, by counting up.
                let want = (1..=255u128)
                    .take_while(|l| (2 * l - 1) * (2 * l - 1) * cells <= 260_100 * count)
                    .count() as u8;
                let want = if count == 0 { 0 } else { want };
                assert_eq!(Shade::Sqrt.level(count, cells), want, "{count}/{cells}");
                let exact = 255.0 * (count as f64 / cells as f64).sqrt();
                assert!((want as f64 - exact).abs() <= 0.5 + 1e-9);
            }
        }
        assert_eq!(Shade::Sqrt.level(1 << 125, 1 << 127), 128); // √¼ · 255 = 127.5
        assert_eq!(Shade::Sqrt.level((1 << 125) - 1, 1 << 127), 127);
        assert_eq!(Shade::Sqrt.level(1, 1 << 100), 0);
        assert_eq!(Shade::Sqrt.level(1 << 90, 1 << 100), 8); // 255/32 = 7.97
    }

    #[test]
    fn log_spans_the_sparse_blocks() {
        assert_eq!(log2_fixed(1), 0);
        assert_eq!(log2_fixed(2), 1 << 32);
        assert_eq!(log2_fixed(1 << 100), 100 << 32);
        assert_eq!(log2_fixed(u128::MAX) >> 32, 127);
        // Within 2^-31 of the true value, and monotone.
        let mut last = 0;
        for v in (1..5000u128).chain([3 << 70, (3 << 70) + 1, u128::MAX]) {
            let l = log2_fixed(v);
            let exact = (v as f64).log2();
            assert!((l as f64 / 2f64.powi(32) - exact).abs() < 1e-8, "log2 {v}");
            assert!(l >= last || v == 3 << 70);
            last = l;
        }
        assert_eq!(Shade::Log.level(0, 1 << 100), 0);
        assert_eq!(Shade::Log.level(1 << 100, 1 << 100), 255);
        assert_eq!(Shade::Log.level(1, 1 << 100), 3); // 255·1/100
        assert_eq!(Shade::Log.level(1 << 50, 1 << 100), 128); // 127.5
        for cells in 1..300u128 {
            let mut prev = 0;
            for count in 0..=cells {
                let l = Shade::Log.level(count, cells);
                assert!(l >= prev, "monotone at {count}/{cells}");
                prev = l;
            }
            assert_eq!(prev, 255);
        }
    }

    #[test]
    fn parses_the_three_names() {
        for s in [Shade::Linear, Shade::Sqrt, Shade::Log] {
            assert_eq!(Shade::parse(s.name()).unwrap(), s);
        }
        assert!(Shade::parse("cubic").is_err());
    }
}
