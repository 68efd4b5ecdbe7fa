//! The palettes of chompute's pictures, as RGB triples (PNG `PLTE` order).
//!
//! Tests: this file's unit tests.

/// Background and P-cell colours of automaton frames and octahedron sections: cream, then
/// dark chocolate.
pub const CHOCOLATE: [u8; 6] = [0xf7, 0xf1, 0xe3, 0x3b, 0x1f, 0x0e];

/// C(M,M) as Nim with a pass, by [`PassCell`](crate::pass::nimpass::PassCell): white (neither),
/// blue (a plain Nim P-cell), red (a P-cell of Nim with the pass available), purple (both).
pub const PASS_GRID: [u8; 12] = [255, 255, 255, 40, 90, 220, 220, 40, 40, 150, 60, 180];

/// Colours of ordinals 0, 1, 2, … in Chomp pictures (past these, [`ordinal_palette`] spreads
/// the rest by a hash).
pub const ORDINAL_COLOURS: [[u8; 3]; 12] = [
    [64, 64, 64],
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [188, 189, 34],
    [23, 190, 207],
    [174, 199, 232],
    [255, 187, 120],
];

/// The palette of a Chomp ordinal picture for `players`: entry 0 the background (white), 1 the
/// ink (black), 2 + k ordinal k for k = 0..=players.
pub fn ordinal_palette(players: u8) -> Vec<u8> {
    let mut p = vec![255, 255, 255, 0, 0, 0];
    for k in 0..=players as usize {
        let c = if let Some(&fixed) = ORDINAL_COLOURS.get(k) {
            fixed
        } else {
            // Past the fixed colours: spread the rest by a multiplicative hash.
            let h = (k as u32).wrapping_mul(2_654_435_761);
            [
                (h >> 24) as u8 | 64,
                (h >> 16) as u8 | 32,
                (h >> 8) as u8 | 96,
            ]
        };
        p.extend_from_slice(&c);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinal_palettes_have_an_entry_per_ordinal() {
        for players in [2u8, 3, 11, 12, 40] {
            let p = ordinal_palette(players);
            assert_eq!(p.len(), 3 * (2 + players as usize + 1));
            assert_eq!(&p[6..9], &ORDINAL_COLOURS[0]);
        }
    }
}
