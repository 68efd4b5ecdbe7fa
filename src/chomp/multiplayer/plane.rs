//! The ordinals of two- or three-row positions laid out on a square plane, for pictures.
//!
//! Tests: tests/games/chomp/multiplayer.rs (`chomp image`'s cells, both planes, against the
//! engines).

use super::ordinal::OrdTable;
use super::rule::{Choice, Rule};
use super::three_row::ordinals_three_rows;
use crate::chomp::diagram::ChompBox;
use crate::{Error, Result};

/// The largest first row an [`OrdinalPlane`] takes.
pub const MAX_PLANE_FIRST_ROW: u32 = 4000;

/// A `side × side` plane of ordinals: with three rows, cell (y, x) is the position (A, y, x)
/// for x ≤ y; with two rows, the position (y, x), x ≤ y ≤ A. Cells off the triangle are
/// [`OrdinalPlane::OUTSIDE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrdinalPlane {
    /// Rows in the positions: 2 or 3.
    pub rows: u32,
    /// A: the first row (three rows) or the largest first row (two rows).
    pub first_row: u32,
    /// A + 1.
    pub side: u32,
    /// Players of the rule: ordinals run 0..=players.
    pub players: u8,
    /// `side × side` ordinals, row-major.
    pub cells: Vec<u8>,
}

impl OrdinalPlane {
    /// The value of a cell that is no position.
    pub const OUTSIDE: u8 = 255;

    /// Refuse `rows` other than 2 or 3 and a first row `a` past [`MAX_PLANE_FIRST_ROW`]: the
    /// checks [`OrdinalPlane::compute`] makes, for a caller to make before anything else.
    pub fn check(rows: u32, a: u32) -> Result<()> {
        if rows != 2 && rows != 3 {
            return Err(Error::bad_input(crate::Input::PlaneRows, rows, "2 or 3"));
        }
        if a > MAX_PLANE_FIRST_ROW {
            return Err(Error::bad_input(
                crate::Input::FirstRow,
                a,
                format!("at most {MAX_PLANE_FIRST_ROW}"),
            ));
        }
        Ok(())
    }

    /// The plane of `rows` ∈ {2, 3} rows with first row `a` (at most
    /// [`MAX_PLANE_FIRST_ROW`]) under `rule`.
    pub fn compute(rule: &Rule, rows: u32, a: u32) -> Result<OrdinalPlane> {
        Self::check(rows, a)?;
        // Both planes are triangles in rank order, y·(y+1)/2 + x: the (b, c) plane of (A, b, c)
        // (y = b, x = c), or the two-row positions (y, x) of first row at most A.
        let triangle = if rows == 3 {
            let mut last = Vec::new();
            ordinals_three_rows(a, &Choice::new(rule), |first, slice| {
                if first == a {
                    last = slice.to_vec();
                }
            });
            last
        } else {
            let shape = ChompBox {
                rows: 2,
                cols: a.max(1),
            };
            OrdTable::compute(shape, rule)?.to_bytes()
        };
        let (side, s) = (a + 1, a as usize + 1);
        let mut cells = vec![Self::OUTSIDE; s * s];
        for y in 0..s {
            cells[y * s..=y * s + y].copy_from_slice(&triangle[y * (y + 1) / 2..][..=y]);
        }
        Ok(OrdinalPlane {
            rows,
            first_row: a,
            side,
            players: rule.players() as u8,
            cells,
        })
    }

    /// The ordinal of cell (y, x), or `None` off the triangle.
    pub fn ordinal(&self, y: u32, x: u32) -> Option<u8> {
        let o = self.cells[y as usize * self.side as usize + x as usize];
        (o != Self::OUTSIDE).then_some(o)
    }

    /// Positions of each ordinal 0..=players on the plane.
    pub fn counts(&self) -> Vec<u64> {
        super::ordinal::histogram(&self.cells, self.players)
    }

    /// What the plane shows, in words.
    pub fn describe(&self) -> String {
        let a = self.first_row;
        match self.rows {
            3 => format!("the (b,c) plane of ({a},b,c)"),
            _ => format!("the two-row positions (a,b), a ≤ {a}"),
        }
    }

    /// The positions and the axes of a picture of the plane, in words: `the positions (A,b,c),
    /// b down, c across`.
    pub fn axes_text(&self) -> String {
        let a = self.first_row;
        match self.rows {
            3 => format!("the positions ({a},b,c), b down, c across"),
            _ => format!("the positions (a,b) with a ≤ {a}, a down, b across"),
        }
    }

    /// The names of a picture's axes, (across, down): (c, b) for three rows, (b, a) for two.
    pub fn axis_names(&self) -> (&'static str, &'static str) {
        match self.rows {
            3 => ("c", "b"),
            _ => ("b", "a"),
        }
    }
}
