//! How a table numbers the positions of a box: the bit layouts.
//!
//! - [`colex`]: the colex rank of every position of an R×C box ([`Ranker`]), dense and
//!   monotone (every option comes first); the multiplayer and Grundy tables use it too.
//! - [`hook`]: the hook index of an n×n square ([`HookIndex`]), one index for each pair of
//!   transposed positions (a position and its transpose have the same outcome).
//! - [`pairs`]: the options of a position in the hook index that keeps every diagonal hook
//!   whole, for the tables by transposed pairs that pull their options' values.
//!
//! [`BitLayout`] is the one choice between them that a one-bit table, its file and every reader
//! of it share: "the bit of a position" is [`BitLayout::bit`] everywhere.
//!
//! Tests: the unit tests of these files.

pub mod colex;
pub mod hook;
pub mod pairs;

pub use colex::Ranker;
pub use hook::HookIndex;

use super::diagram::{ChompBox, Diagram};
use crate::error::{Error, Result};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Most positions of a box whose table keeps a bit for every position (a box that is not
/// square): 2^38 (32 GiB of bits). Squares have [`MAX_HOOK_POSITIONS`].
pub const MAX_COLEX_POSITIONS: u64 = 1 << 38;

/// Most positions a square box may have, its table keeping one bit per transposed pair: 2^42
/// (at most 256 GiB of bits), so 22×22 (2.1·10¹²) but not 23×23 (8.2·10¹²).
pub const MAX_HOOK_POSITIONS: u64 = 1 << 42;

/// The scheme name of the colex rank in saved tables.
pub const COLEX_SCHEME: &str = "colex-lattice-path";
/// The scheme name of the hook index in saved tables, followed by its smallest child side.
pub const HOOK_SCHEME: &str = "transpose-hook";

/// How a one-bit table numbers its bits.
#[derive(Debug, Clone)]
pub enum BitLayout {
    /// Every position by its colex rank.
    Colex(Ranker),
    /// One of each pair of transposed positions of a square box by the hook index (about half
    /// the bits); the ranker is the square's colex rank, for its shape and position count.
    Hook {
        /// The square's colex ranking.
        ranker: Ranker,
        /// The hook index of the bits.
        hook: Arc<HookIndex>,
    },
}

impl BitLayout {
    /// The colex layout of `shape`, or [`Error::TooLarge`] past [`MAX_COLEX_POSITIONS`].
    pub fn colex_for(shape: ChompBox) -> Result<BitLayout> {
        Ok(BitLayout::Colex(Ranker::with_limit(
            shape,
            MAX_COLEX_POSITIONS,
            "more than 2^38 positions, the most the table of a box that is not square holds",
        )?))
    }

    /// The layout of a table of `ranker`'s box kept in `hook` when it has one (one of each
    /// transposed pair), else by colex rank.
    pub fn of(ranker: Ranker, hook: Option<&Arc<HookIndex>>) -> BitLayout {
        match hook {
            Some(hook) => BitLayout::Hook {
                ranker,
                hook: hook.clone(),
            },
            None => BitLayout::Colex(ranker),
        }
    }

    /// One of each transposed pair of the square `shape`, child squares from side `min_child`,
    /// or [`Error::TooLarge`] past [`MAX_HOOK_POSITIONS`] (22×22, long before the hook index's
    /// largest side).
    pub fn hook_for(shape: ChompBox, min_child: usize) -> Result<BitLayout> {
        let ranker = Ranker::with_limit(
            shape,
            MAX_HOOK_POSITIONS,
            "more than 2^42 positions, the most a square's table holds (22x22 is the largest)",
        )?;
        if shape.rows != shape.cols as usize {
            return Err(Error::invalid(format!(
                "the {shape} box is not square: only a square keeps one of each transposed pair"
            )));
        }
        let hook = Arc::new(HookIndex::with_min_child(shape.rows, min_child)?);
        Ok(BitLayout::Hook { ranker, hook })
    }

    /// The layout a run of `shape` keeps: a square box one of each transposed pair, any other
    /// box every position.
    pub fn for_box(shape: ChompBox) -> Result<BitLayout> {
        if shape.rows == shape.cols as usize {
            BitLayout::hook_for(shape, hook::min_child_for(shape.rows))
        } else {
            BitLayout::colex_for(shape)
        }
    }

    /// The layout a saved table of `shape` names: its scheme line.
    pub fn from_scheme(shape: ChompBox, scheme: &str) -> Result<BitLayout> {
        if scheme == COLEX_SCHEME {
            return BitLayout::colex_for(shape);
        }
        let min_child = scheme
            .strip_prefix(HOOK_SCHEME)
            .and_then(|m| m.strip_prefix(' '))
            .and_then(|m| m.parse::<usize>().ok())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "rank scheme '{scheme}' is neither '{COLEX_SCHEME}' nor '{HOOK_SCHEME} N'"
                ))
            })?;
        BitLayout::hook_for(shape, min_child)
    }

    /// The scheme line of saved tables.
    pub fn scheme(&self) -> String {
        match self {
            BitLayout::Colex(_) => COLEX_SCHEME.to_string(),
            BitLayout::Hook { hook, .. } => format!("{HOOK_SCHEME} {}", hook.min_child()),
        }
    }

    /// The box's colex ranking.
    pub fn ranker(&self) -> &Ranker {
        match self {
            BitLayout::Colex(ranker) | BitLayout::Hook { ranker, .. } => ranker,
        }
    }

    /// The hook index, when the table keeps one of each transposed pair.
    pub fn hook_index(&self) -> Option<&Arc<HookIndex>> {
        match self {
            BitLayout::Colex(_) => None,
            BitLayout::Hook { hook, .. } => Some(hook),
        }
    }

    /// The box.
    pub fn shape(&self) -> ChompBox {
        self.ranker().shape
    }

    /// Number of bits (the empty diagram's included).
    pub fn len(&self) -> u64 {
        match self {
            BitLayout::Colex(ranker) => ranker.len(),
            BitLayout::Hook { hook, .. } => hook.len(),
        }
    }

    /// Never: the empty diagram has a bit.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Bytes of the bits.
    pub fn bytes(&self) -> u64 {
        self.len().div_ceil(64) * 8
    }

    /// Positions of the box (the empty diagram included), C(R+C, R).
    pub fn positions(&self) -> u64 {
        self.ranker().len()
    }

    /// The P-positions of the box from P-bits in `words`, bit 0 standing for index `base` (a
    /// whole table, or one window of it whose outer bits are clear): a pair stored once
    /// counts twice.
    pub fn p_count(&self, words: &[AtomicU64], base: u64) -> u64 {
        match self {
            BitLayout::Colex(_) => crate::chomp::bits::count(words),
            BitLayout::Hook { hook, .. } => hook.p_count(words, base),
        }
    }

    /// The bit of `p`, or `None` when it does not fit in the box.
    pub fn bit(&self, p: &Diagram) -> Option<u64> {
        match self {
            BitLayout::Colex(ranker) => ranker.rank(p),
            BitLayout::Hook { hook, .. } => hook.index(p.rows()),
        }
    }

    /// The bit of `p`; an error when it does not fit in the box.
    pub fn bit_of(&self, p: &Diagram) -> Result<u64> {
        self.bit(p).ok_or_else(|| {
            Error::invalid(format!(
                "position {p} does not fit in the {} box",
                self.shape()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_past_the_colex_limit_get_a_hook_index() {
        // 21×21 and 22×22 have more than 2^38 positions; their hook tables are sized, not
        // allocated, here. 23×23's refusal: tests/games, two_player.rs (`--box 23x23`).
        for (n, bytes) in [(21usize, 33.6e9), (22, 132.0e9)] {
            let layout = BitLayout::for_box(ChompBox::square(n)).unwrap();
            assert!(layout.hook_index().is_some(), "{n}");
            let b = layout.bytes() as f64;
            assert!(b > bytes * 0.99 && b < bytes * 1.03, "{n}: {b}");
        }
    }

    #[test]
    fn a_scheme_line_names_its_layout_and_nothing_else() {
        let shape = ChompBox { rows: 6, cols: 6 };
        for layout in [
            BitLayout::colex_for(shape).unwrap(),
            BitLayout::for_box(shape).unwrap(),
        ] {
            let back = BitLayout::from_scheme(shape, &layout.scheme()).unwrap();
            assert_eq!(back.scheme(), layout.scheme());
            assert_eq!(back.len(), layout.len());
        }
        assert!(BitLayout::from_scheme(shape, "transpose-hook x").is_err());
        assert!(BitLayout::from_scheme(shape, "colex").is_err());
    }
}
