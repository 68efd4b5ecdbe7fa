//! Two-player Chomp (docs/mathematics.md §5b): the one-bit table of a box, P or N for every
//! position (one bit a transposed pair for squares), and the queries every source of such bits
//! answers.
//!
//! The poison is cell (1,1): the one-cell diagram (1) is a P-position (the player to move must
//! eat the poison) and the empty diagram is not a position. Its bit is 0, which is what
//! "biting the poison loses" needs: a position is P iff none of its options is P, and the bite
//! to (0) then never counts as a winning one.
//!
//! The bits are numbered by a [`BitLayout`]. A table in memory ([`PTable`]), a saved file
//! (`super::file::TableFile`) and Python's NumPy array all answer through [`BitSource`]:
//! [`BitSource::is_p`], [`BitSource::winning_bites`] and [`BitSource::rectangle_bites`] are
//! written once, here.
//!
//! Tests: tests/engine/foundation.rs, tests/games/chomp/two_player.rs.

use crate::chomp::bits;
use crate::chomp::diagram::{ChompBox, Diagram};
use crate::chomp::index::BitLayout;
use crate::error::{Error, Result};
use std::sync::atomic::AtomicU64;

/// Anything that holds the bits of a box in a [`BitLayout`]: a table in memory, a saved file,
/// an array. Reading a bit may fail (a file's damaged chunk); the queries built on it fail
/// with it, never answer wrongly.
pub trait BitSource {
    /// How the bits are numbered.
    fn layout(&self) -> &BitLayout;

    /// Whether bit `b` says P.
    fn is_p_bit(&self, b: u64) -> Result<bool>;

    /// Whether `p` is a P-position; `None` when it is empty or outside the box.
    fn is_p(&self, p: &Diagram) -> Result<Option<bool>> {
        if p.is_empty() {
            return Ok(None);
        }
        self.layout().bit(p).map(|b| self.is_p_bit(b)).transpose()
    }

    /// The winning bites of `p`: its options that are P, each given as the position it leaves,
    /// sorted and without repeats. Empty for a P-position. `None` when `p` is empty or outside
    /// the box.
    fn winning_bites(&self, p: &Diagram) -> Result<Option<Vec<Diagram>>> {
        if self.is_p(p)?.is_none() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for q in p.options() {
            if q.is_empty() {
                continue;
            }
            let b = self
                .layout()
                .bit(&q)
                .expect("an option fits where its position does");
            if self.is_p_bit(b)? {
                out.push(q);
            }
        }
        out.sort();
        out.dedup();
        Ok(Some(out))
    }

    /// The winning bites of every rectangle r×c with r ≤ `shape.rows`, c ≤ `shape.cols` (cut to
    /// the source's box), rows first.
    fn rectangle_bites(&self, shape: ChompBox) -> Result<Vec<RectangleBites>> {
        let own = self.layout().shape();
        let mut out = Vec::new();
        for r in 1..=shape.rows.min(own.rows) {
            for c in 1..=shape.cols.min(own.cols) {
                let whole = rectangle(r, c);
                let bites = self.winning_bites(&whole)?.unwrap_or_default();
                out.push(RectangleBites {
                    rows: r,
                    cols: c,
                    bite_cells: bites.iter().map(|d| bitten_cell(&whole, d)).collect(),
                    bites: bites.iter().map(|d| d.rows().to_vec()).collect(),
                });
            }
        }
        Ok(out)
    }
}

/// A table of one bit per position of a box (per its [`BitLayout`]): the bit is set iff the
/// position is P.
#[derive(Debug)]
pub struct PTable {
    layout: BitLayout,
    words: Vec<AtomicU64>,
}

impl PTable {
    /// An all-N table (no bit set) in `layout`; refuses with [`Error::TooLarge`] when the
    /// machine lacks the memory.
    pub fn empty(layout: BitLayout) -> Result<PTable> {
        crate::memory::ensure_available(
            layout.bytes(),
            &format!("the one-bit table of the {} box", layout.shape()),
            "choose a smaller box",
        )?;
        Ok(PTable {
            words: bits::zeroed_words(layout.len().div_ceil(64) as usize),
            layout,
        })
    }

    /// A table from its words (as saved), or [`Error::Invalid`] if their number is wrong.
    pub fn from_words(layout: BitLayout, words: Vec<u64>) -> Result<PTable> {
        let want = layout.len().div_ceil(64);
        if words.len() as u64 != want {
            return Err(Error::invalid(format!(
                "a table of the {} box has {want} words, not {}",
                layout.shape(),
                words.len()
            )));
        }
        Ok(PTable {
            layout,
            words: words.into_iter().map(AtomicU64::new).collect(),
        })
    }

    /// How the bits are numbered.
    pub fn layout(&self) -> &BitLayout {
        &self.layout
    }

    /// The box's colex ranking.
    pub fn ranker(&self) -> &crate::chomp::index::Ranker {
        self.layout.ranker()
    }

    /// Number of bits.
    pub fn len(&self) -> u64 {
        self.layout.len()
    }

    /// Never: the empty diagram has a bit.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The words themselves, for the solvers, which keep N-marks in them while they run.
    pub fn raw_words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Whether bit `b` is a P-position.
    #[inline]
    pub fn is_p_bit(&self, b: u64) -> bool {
        bits::get(&self.words, b)
    }

    /// Mark bit `b` as a P-position.
    #[inline]
    pub fn set_p_bit(&self, b: u64) {
        bits::mark(&self.words, b);
    }

    /// Whether `p` is a P-position; `None` when it is empty or outside the box.
    pub fn is_p(&self, p: &Diagram) -> Option<bool> {
        BitSource::is_p(self, p).expect("reading bits from memory cannot fail")
    }

    /// The winning bites of `p` ([`BitSource::winning_bites`]).
    pub fn winning_bites(&self, p: &Diagram) -> Option<Vec<Diagram>> {
        BitSource::winning_bites(self, p).expect("reading bits from memory cannot fail")
    }

    /// The winning bites of every rectangle inside `shape` ([`BitSource::rectangle_bites`]).
    pub fn rectangle_bites(&self, shape: ChompBox) -> Vec<RectangleBites> {
        BitSource::rectangle_bites(self, shape).expect("reading bits from memory cannot fail")
    }

    /// Number of P-positions of the box (a pair stored once counts twice).
    pub fn p_count(&self) -> u64 {
        self.layout.p_count(&self.words, 0)
    }

    /// The words, bit b of word b/64 for bit b (a copy).
    pub fn words(&self) -> Vec<u64> {
        self.words
            .iter()
            .map(|w| w.load(std::sync::atomic::Ordering::Relaxed))
            .collect()
    }

    /// Visit the words in order without copying the table.
    pub fn for_each_word(&self, mut f: impl FnMut(u64)) {
        self.words
            .iter()
            .for_each(|w| f(w.load(std::sync::atomic::Ordering::Relaxed)));
    }
}

impl BitSource for PTable {
    fn layout(&self) -> &BitLayout {
        &self.layout
    }

    fn is_p_bit(&self, b: u64) -> Result<bool> {
        Ok(bits::get(&self.words, b))
    }
}

/// The winning bites of one rectangle, each as the row lengths of the P-position it leaves
/// and as the cell it bites.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RectangleBites {
    /// Rows of the rectangle.
    pub rows: usize,
    /// Columns of the rectangle.
    pub cols: u32,
    /// The P-positions its winning bites leave, sorted.
    pub bites: Vec<Vec<u32>>,
    /// The cell each bite takes, (row, column) from the poisoned corner (1,1), in the order
    /// of `bites`.
    pub bite_cells: Vec<(usize, u32)>,
}

/// The cell (row, column), 1-based, that a bite from `p` to its option `q` takes.
pub fn bitten_cell(p: &Diagram, q: &Diagram) -> (usize, u32) {
    p.bitten_cell(q)
        .expect("a winning bite leaves an option of its position")
}

/// The rectangle of `rows` rows of `cols` cells.
pub fn rectangle(rows: usize, cols: u32) -> Diagram {
    Diagram::new(vec![cols; rows]).expect("a rectangle's rows do not increase")
}
