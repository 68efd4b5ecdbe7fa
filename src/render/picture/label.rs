//! Text in pictures: a 3×5 pixel font (5×5 for the arrows), labels drawn at a whole-number
//! scale, and legends of colour swatches with their names.
//!
//! Everything is a pixel query — "is pixel (x, y) ink?", "which palette index is pixel (x, y)
//! of the legend?" — so a picture's row callback can draw text as it streams, with no canvas.
//!
//! Tests: this file's unit tests; tests/games/chomp/multiplayer.rs.

/// A glyph: its width in pixels (3, or 5 for the arrows) and five rows, bit `width-1` the
/// leftmost pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glyph {
    /// Pixels across: 3, or 5 for the arrows.
    pub width: u8,
    /// The five rows, top first; bit `width - 1` is the leftmost pixel.
    pub rows: [u8; 5],
}

const fn g3(rows: [u8; 5]) -> Option<Glyph> {
    Some(Glyph { width: 3, rows })
}

/// The 3×5 font: digits, letters (lower case drawn in the lower rows), space and
/// `. , : - + = ( ) / ' _`, and the arrows `→` and `↓` (5 wide). Anything else has no glyph
/// and is drawn as a space.
pub fn glyph(c: char) -> Option<Glyph> {
    match c {
        '0' => g3([7, 5, 5, 5, 7]),
        '1' => g3([2, 6, 2, 2, 7]),
        '2' => g3([7, 1, 7, 4, 7]),
        '3' => g3([7, 1, 7, 1, 7]),
        '4' => g3([5, 5, 7, 1, 1]),
        '5' => g3([7, 4, 7, 1, 7]),
        '6' => g3([7, 4, 7, 5, 7]),
        '7' => g3([7, 1, 1, 1, 1]),
        '8' => g3([7, 5, 7, 5, 7]),
        '9' => g3([7, 5, 7, 1, 7]),
        'A' => g3([2, 5, 7, 5, 5]),
        'B' => g3([6, 5, 6, 5, 6]),
        'C' => g3([3, 4, 4, 4, 3]),
        'D' => g3([6, 5, 5, 5, 6]),
        'E' => g3([7, 4, 6, 4, 7]),
        'F' => g3([7, 4, 6, 4, 4]),
        'G' => g3([3, 4, 5, 5, 3]),
        'H' => g3([5, 5, 7, 5, 5]),
        'I' => g3([7, 2, 2, 2, 7]),
        'J' => g3([1, 1, 1, 5, 2]),
        'K' => g3([5, 5, 6, 5, 5]),
        'L' => g3([4, 4, 4, 4, 7]),
        'M' => g3([5, 7, 7, 5, 5]),
        'N' => g3([6, 5, 5, 5, 5]),
        'O' => g3([2, 5, 5, 5, 2]),
        'P' => g3([6, 5, 6, 4, 4]),
        'Q' => g3([2, 5, 5, 6, 3]),
        'R' => g3([6, 5, 6, 5, 5]),
        'S' => g3([3, 4, 2, 1, 6]),
        'T' => g3([7, 2, 2, 2, 2]),
        'U' => g3([5, 5, 5, 5, 7]),
        'V' => g3([5, 5, 5, 5, 2]),
        'W' => g3([5, 5, 7, 7, 5]),
        'X' => g3([5, 5, 2, 5, 5]),
        'Y' => g3([5, 5, 2, 2, 2]),
        'Z' => g3([7, 1, 2, 4, 7]),
        'a' => g3([0, 6, 1, 7, 7]),
        'b' => g3([4, 4, 6, 5, 6]),
        'c' => g3([0, 0, 3, 4, 3]),
        'd' => g3([1, 1, 3, 5, 3]),
        'e' => g3([0, 2, 7, 4, 3]),
        'f' => g3([1, 2, 7, 2, 2]),
        'g' => g3([0, 3, 5, 3, 6]),
        'h' => g3([4, 4, 6, 5, 5]),
        'i' => g3([2, 0, 2, 2, 2]),
        'j' => g3([1, 0, 1, 5, 2]),
        'k' => g3([4, 5, 6, 6, 5]),
        'l' => g3([6, 2, 2, 2, 7]),
        'm' => g3([0, 0, 7, 7, 5]),
        'n' => g3([0, 0, 6, 5, 5]),
        'o' => g3([0, 0, 2, 5, 2]),
        'p' => g3([0, 6, 5, 6, 4]),
        'q' => g3([0, 3, 5, 3, 1]),
        'r' => g3([0, 0, 3, 4, 4]),
        's' => g3([0, 3, 6, 1, 6]),
        't' => g3([2, 7, 2, 2, 1]),
        'u' => g3([0, 0, 5, 5, 7]),
        'v' => g3([0, 0, 5, 5, 2]),
        'w' => g3([0, 0, 5, 7, 7]),
        'x' => g3([0, 0, 5, 2, 5]),
        'y' => g3([0, 5, 5, 2, 4]),
        'z' => g3([0, 0, 7, 2, 7]),
        '.' => g3([0, 0, 0, 0, 2]),
        ',' => g3([0, 0, 0, 2, 4]),
        ':' => g3([0, 2, 0, 2, 0]),
        '-' => g3([0, 0, 7, 0, 0]),
        '+' => g3([0, 2, 7, 2, 0]),
        '=' => g3([0, 7, 0, 7, 0]),
        '(' => g3([1, 2, 2, 2, 1]),
        ')' => g3([4, 2, 2, 2, 4]),
        '/' => g3([1, 1, 2, 4, 4]),
        '\'' => g3([2, 2, 0, 0, 0]),
        '_' => g3([0, 0, 0, 0, 7]),
        ' ' => g3([0; 5]),
        '→' => Some(Glyph {
            width: 5,
            rows: [0b00100, 0b00010, 0b11111, 0b00010, 0b00100],
        }),
        '↓' => Some(Glyph {
            width: 5,
            rows: [0b00100, 0b00100, 0b10101, 0b01110, 0b00100],
        }),
        _ => None,
    }
}

/// A line of text in a font (a glyph for each character, `None` drawn as a space), drawn at
/// `scale` pixels per font pixel with one font pixel between glyphs.
#[derive(Debug, Clone)]
pub struct Label {
    glyphs: Vec<Glyph>,
    scale: u32,
}

impl Label {
    /// `text` in the 3×5 [`glyph`] font.
    pub fn new(text: &str, scale: u32) -> Label {
        Label::with_font(text, scale, glyph)
    }

    /// `text` in any font of five-row glyphs.
    pub fn with_font(text: &str, scale: u32, font: impl Fn(char) -> Option<Glyph>) -> Label {
        let space = Glyph {
            width: 3,
            rows: [0; 5],
        };
        Label {
            glyphs: text.chars().map(|c| font(c).unwrap_or(space)).collect(),
            scale: scale.max(1),
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        let font_px: u32 = self.glyphs.iter().map(|g| g.width as u32 + 1).sum();
        font_px.saturating_sub(1) * self.scale
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        5 * self.scale
    }

    /// Whether pixel (x, y), relative to the label's top-left corner, is ink.
    pub fn ink(&self, x: u32, y: u32) -> bool {
        let (fx, fy) = (x / self.scale, y / self.scale);
        if fy >= 5 {
            return false;
        }
        let mut left = 0;
        for g in &self.glyphs {
            let w = g.width as u32;
            if fx < left + w {
                let col = fx - left;
                return g.rows[fy as usize] >> (w - 1 - col) & 1 == 1;
            }
            left += w + 1;
            if fx < left {
                return false;
            }
        }
        false
    }
}

/// A legend: one entry per colour, a swatch (palette index `swatch`, 14×14 pixels with a border
/// of `ink`) and its name, laid out in lines as wide as the picture allows.
#[derive(Debug, Clone)]
pub struct Legend {
    entries: Vec<(u8, Label)>,
    ink: u8,
    background: u8,
    entry_width: u32,
    per_line: usize,
}

/// Gap above the legend, in pixels.
pub const LEGEND_MARGIN: u32 = 8;
/// Height of one line of legend entries.
pub const LEGEND_LINE: u32 = 20;
const SWATCH: u32 = 14;
const TEXT_X: u32 = 20;
const TEXT_Y: u32 = 4;
const TEXT_SCALE: u32 = 2;

impl Legend {
    /// A legend of `(palette index, name)` entries in lines of at most `width` pixels (at least
    /// one entry a line), text and borders in palette index `ink` on `background`.
    pub fn new(entries: &[(u8, &str)], ink: u8, background: u8, width: u32) -> Legend {
        let entries: Vec<(u8, Label)> = entries
            .iter()
            .map(|&(c, t)| (c, Label::new(t, TEXT_SCALE)))
            .collect();
        let widest = entries.iter().map(|(_, l)| l.width()).max().unwrap_or(0);
        let entry_width = TEXT_X + widest + 12;
        let per_line = ((width / entry_width) as usize).clamp(1, entries.len().max(1));
        Legend {
            entries,
            ink,
            background,
            entry_width,
            per_line,
        }
    }

    /// Width of the widest line.
    pub fn width(&self) -> u32 {
        self.per_line as u32 * self.entry_width
    }

    /// Height, the margin above included.
    pub fn height(&self) -> u32 {
        LEGEND_MARGIN + self.entries.len().div_ceil(self.per_line) as u32 * LEGEND_LINE
    }

    /// Palette index of pixel (x, y) of the legend band (y = 0 is the top of the margin).
    pub fn pixel(&self, x: u32, y: u32) -> u8 {
        let Some(y) = y.checked_sub(LEGEND_MARGIN) else {
            return self.background;
        };
        let (line, yy) = ((y / LEGEND_LINE) as usize, y % LEGEND_LINE);
        let (col, xx) = ((x / self.entry_width) as usize, x % self.entry_width);
        if col >= self.per_line {
            return self.background;
        }
        let Some((swatch, label)) = self.entries.get(line * self.per_line + col) else {
            return self.background;
        };
        if (2..2 + SWATCH).contains(&xx) && (2..2 + SWATCH).contains(&yy) {
            let border = xx == 2 || xx == 1 + SWATCH || yy == 2 || yy == 1 + SWATCH;
            return if border { self.ink } else { *swatch };
        }
        if xx >= TEXT_X && yy >= TEXT_Y && label.ink(xx - TEXT_X, yy - TEXT_Y) {
            return self.ink;
        }
        self.background
    }
}

/// Axis labels around a grid picture: a band above it with the label of the axis across
/// (`c →`) and a band left of it with the label of the axis down, its letters stacked one
/// under another over `↓`, so that a word (`rows`) fits the narrow band. The grid starts at
/// pixel ([`AXIS_BAND`], [`AXIS_BAND`]).
#[derive(Debug, Clone)]
pub struct Axes {
    across: Label,
    /// The down label's letters, then the arrow, top to bottom.
    down: Vec<Label>,
    grid_width: u32,
    grid_height: u32,
}

/// Width of the band left of the grid and height of the band above it.
pub const AXIS_BAND: u32 = 16;

/// Pixels between the stacked letters of the down label.
const STACK_GAP: u32 = 2;

impl Axes {
    /// Labels `across` (columns, left to right) and `down` (rows, top to bottom) for a grid of
    /// `grid_width × grid_height` pixels.
    pub fn new(across: &str, down: &str, grid_width: u32, grid_height: u32) -> Axes {
        let down = down
            .chars()
            .filter(|c| !c.is_whitespace())
            .chain(['↓'])
            .map(|c| Label::new(&c.to_string(), TEXT_SCALE))
            .collect();
        Axes {
            across: Label::new(&format!("{across} →"), TEXT_SCALE),
            down,
            grid_width,
            grid_height,
        }
    }

    /// Whether pixel (x, y) of the picture (grid at ([`AXIS_BAND`], [`AXIS_BAND`])) is the
    /// ink of a label; pixels inside the grid never are.
    pub fn ink(&self, x: u32, y: u32) -> bool {
        if y < AXIS_BAND && x >= AXIS_BAND {
            // Across, centred over the grid (from its left edge when the grid is narrower).
            let w = self.across.width();
            let x0 = AXIS_BAND + self.grid_width.saturating_sub(w) / 2;
            let y0 = AXIS_BAND.saturating_sub(self.across.height()) / 2;
            return x >= x0 && y >= y0 && self.across.ink(x - x0, y - y0);
        }
        if x < AXIS_BAND && y >= AXIS_BAND {
            // Down: the letters stacked over the arrow, centred beside the grid.
            let h: u32 = self.down.iter().map(|l| l.height() + STACK_GAP).sum();
            let mut top = AXIS_BAND + self.grid_height.saturating_sub(h) / 2;
            for label in &self.down {
                if y < top {
                    return false;
                }
                if y < top + label.height() {
                    let x0 = AXIS_BAND.saturating_sub(label.width()) / 2;
                    return x >= x0 && label.ink(x - x0, y - top);
                }
                top += label.height() + STACK_GAP;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The label as text rows, `#` for ink.
    fn picture(l: &Label) -> Vec<String> {
        (0..l.height())
            .map(|y| {
                (0..l.width())
                    .map(|x| if l.ink(x, y) { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn labels_draw_their_glyphs_side_by_side() {
        let l = Label::new("1c", 1);
        assert_eq!((l.width(), l.height()), (7, 5));
        assert_eq!(
            picture(&l),
            [".#.....", "##.....", ".#...##", ".#..#..", "###..##"]
        );
        // Scale 2 doubles every pixel; unknown characters are spaces.
        let l2 = Label::new("1?", 2);
        assert_eq!(l2.width(), 14);
        assert!(l2.ink(2, 0) && l2.ink(3, 1) && !l2.ink(0, 0) && !l2.ink(9, 5));
    }

    #[test]
    fn every_glyph_fits_its_width() {
        for c in (' '..='~').chain(['→', '↓']) {
            if let Some(g) = glyph(c) {
                assert!(g.rows.iter().all(|&r| r >> g.width == 0), "{c:?}");
            }
        }
        assert!(glyph('0').is_some() && glyph('z').is_some() && glyph('é').is_none());
    }

    #[test]
    fn legend_has_swatches_and_names() {
        let legend = Legend::new(&[(3, "Nim P"), (4, "pass P")], 1, 0, 400);
        assert_eq!(legend.height(), LEGEND_MARGIN + LEGEND_LINE);
        let mut seen = std::collections::BTreeMap::new();
        for y in 0..legend.height() {
            for x in 0..legend.width() {
                *seen.entry(legend.pixel(x, y)).or_insert(0) += 1;
            }
        }
        assert_eq!(seen.keys().copied().collect::<Vec<_>>(), vec![0, 1, 3, 4]);
        // A narrow picture puts one entry a line.
        assert_eq!(
            Legend::new(&[(3, "Nim P"), (4, "pass P")], 1, 0, 10).height(),
            LEGEND_MARGIN + 2 * LEGEND_LINE
        );
    }

    #[test]
    fn axis_labels_stay_outside_the_grid() {
        let axes = Axes::new("c", "b", 60, 60);
        let mut top = 0;
        let mut left = 0;
        for y in 0..AXIS_BAND + 60 {
            for x in 0..AXIS_BAND + 60 {
                if axes.ink(x, y) {
                    assert!(x < AXIS_BAND || y < AXIS_BAND, "ink at ({x},{y})");
                    if y < AXIS_BAND {
                        top += 1;
                    } else {
                        left += 1;
                    }
                }
            }
        }
        assert!(top > 0 && left > 0);
    }

    #[test]
    fn a_word_down_the_side_is_drawn_letter_by_letter() {
        // "rows" is wider than the band on one line; stacked, each letter and the arrow shows.
        let (grid_w, grid_h) = (80, 120);
        let axes = Axes::new("columns", "rows", grid_w, grid_h);
        let band: Vec<String> = (AXIS_BAND..AXIS_BAND + grid_h)
            .map(|y| {
                (0..AXIS_BAND)
                    .map(|x| if axes.ink(x, y) { '#' } else { '.' })
                    .collect()
            })
            .collect();
        // Runs of inked rows, one per letter and one for the arrow.
        let mut runs = 0;
        let mut inked = false;
        for row in &band {
            let any = row.contains('#');
            if any && !inked {
                runs += 1;
            }
            inked = any;
        }
        assert_eq!(runs, "rows".len() + 1, "{band:#?}");
        // Each letter is its glyph, scaled, centred in the band.
        let r = Label::new("r", TEXT_SCALE);
        // The glyph's blank top rows are part of the label: align on its first inked row.
        let lead = (0..r.height())
            .find(|&y| (0..r.width()).any(|x| r.ink(x, y)))
            .unwrap();
        let first = band.iter().position(|row| row.contains('#')).unwrap() - lead as usize;
        let x0 = (AXIS_BAND - r.width()) / 2;
        for y in 0..r.height() {
            for x in 0..r.width() {
                let row = band[first + y as usize].as_bytes();
                assert_eq!(
                    row[(x0 + x) as usize] == b'#',
                    r.ink(x, y),
                    "r at ({x},{y})"
                );
            }
        }
    }
}
