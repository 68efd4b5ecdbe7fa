//! A legend band under a picture: one swatch and one number per entry, drawn with a 3×5 pixel
//! font, in lines of entries.

/// A 3×5 pixel font for the digits, one row per entry, bit 2 = leftmost.
pub const DIGITS: [[u8; 5]; 10] = [
    [7, 5, 5, 5, 7],
    [2, 6, 2, 2, 7],
    [7, 1, 7, 4, 7],
    [7, 1, 7, 1, 7],
    [5, 5, 7, 1, 1],
    [7, 4, 7, 1, 7],
    [7, 4, 7, 5, 7],
    [7, 1, 1, 1, 1],
    [7, 5, 7, 5, 7],
    [7, 5, 7, 1, 7],
];

/// Pixels across one legend entry (a swatch and its number).
pub const ENTRY_WIDTH: u32 = 48;
/// Pixels down one line of entries.
pub const LINE_HEIGHT: u32 = 20;
/// Blank rows above the first line.
pub const MARGIN: u32 = 8;
/// Each font pixel is this many pixels a side.
pub const DIGIT_SCALE: u32 = 2;

/// Legend layout: entries 0, 1, …, `entries - 1`, `per_line` to a line. Pixels are palette
/// indices: 0 background, 1 ink, 2 + k the swatch of entry k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Legend {
    /// Number of entries.
    pub entries: usize,
    /// Entries on one line.
    pub per_line: usize,
}

impl Legend {
    /// A legend of `entries` laid out across `width` pixels.
    pub fn new(entries: usize, width: u32) -> Legend {
        Legend {
            entries,
            per_line: (width / ENTRY_WIDTH).max(1) as usize,
        }
    }

    /// The narrowest width that holds every entry on one line.
    pub fn one_line_width(entries: usize) -> u32 {
        ENTRY_WIDTH * entries as u32
    }

    /// Pixel rows of the legend band.
    pub fn height(&self) -> u32 {
        MARGIN + self.entries.div_ceil(self.per_line) as u32 * LINE_HEIGHT
    }

    /// Palette index of pixel (x, y) of the legend band.
    pub fn pixel(&self, x: u32, y: u32) -> u8 {
        if y < MARGIN {
            return 0;
        }
        let y = y - MARGIN;
        let (line, yy) = ((y / LINE_HEIGHT) as usize, y % LINE_HEIGHT);
        let (col, xx) = ((x / ENTRY_WIDTH) as usize, x % ENTRY_WIDTH);
        if col >= self.per_line {
            return 0;
        }
        let k = line * self.per_line + col;
        if k >= self.entries {
            return 0;
        }
        // Swatch 14×14 with a 1-pixel ink border.
        if (2..16).contains(&xx) && (2..16).contains(&yy) {
            let border = xx == 2 || xx == 15 || yy == 2 || yy == 15;
            return if border { 1 } else { 2 + k as u8 };
        }
        // Digits from x = 20, y = 4, each 3×5 scaled by DIGIT_SCALE with a gap.
        let text = k.to_string();
        if (4..4 + 5 * DIGIT_SCALE).contains(&yy) && xx >= 20 {
            let dx = xx - 20;
            let adv = 4 * DIGIT_SCALE;
            let (i, px) = ((dx / adv) as usize, dx % adv);
            if let Some(d) = text.as_bytes().get(i) {
                if px < 3 * DIGIT_SCALE {
                    let glyph = DIGITS[(d - b'0') as usize];
                    let (gx, gy) = (px / DIGIT_SCALE, (yy - 4) / DIGIT_SCALE);
                    if glyph[gy as usize] >> (2 - gx) & 1 == 1 {
                        return 1;
                    }
                }
            }
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_draw_their_swatch_and_number() {
        let l = Legend::new(12, 3 * ENTRY_WIDTH);
        assert_eq!(l.per_line, 3);
        assert_eq!(l.height(), MARGIN + 4 * LINE_HEIGHT);
        // Entry 4 is line 1, column 1: its swatch centre, its border, and the ink of its '4'.
        let (x0, y0) = (ENTRY_WIDTH, MARGIN + LINE_HEIGHT);
        assert_eq!(l.pixel(x0 + 8, y0 + 8), 2 + 4);
        assert_eq!(l.pixel(x0 + 2, y0 + 8), 1);
        // '4' is [5,5,7,1,1]: its top-left font pixel is ink, its top-middle is not.
        assert_eq!(l.pixel(x0 + 20, y0 + 4), 1);
        assert_eq!(l.pixel(x0 + 20 + DIGIT_SCALE, y0 + 4), 0);
        assert_eq!(l.pixel(x0 + 8, 0), 0);
        // Entry 12 does not exist.
        assert_eq!(
            l.pixel(2 * ENTRY_WIDTH + 8, MARGIN + 4 * LINE_HEIGHT - 12),
            2 + 11
        );
        assert_eq!(
            Legend::new(12, 3 * ENTRY_WIDTH).pixel(8, MARGIN + 4 * LINE_HEIGHT + 8),
            0
        );
    }
}
