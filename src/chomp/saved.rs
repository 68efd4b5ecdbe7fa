//! Every saved table opened by its first line, the one place that tells the kinds apart
//! (`chomp query`, `chomp bites --table`, Python's `open_table`); and the winning bites of a
//! cells table ([`CellsFile::winning_bites`]).
//!
//! Tests: tests/faults/tables.rs (every kind, old files); this file's unit tests.

use crate::chomp::diagram::Diagram;
use crate::chomp::multiplayer::ord_file::OrdFile;
use crate::chomp::store::{Sealed, CELLS_TABLE, GRUNDY_TABLE, ORD_TABLE};
use crate::chomp::two_player::cells_file::CellsFile;
use crate::chomp::two_player::file::TableFile;
use crate::chomp::two_player::grundy_file::GrundyFile;
use crate::error::Result;
use std::path::Path;

/// A saved table of any kind.
#[derive(Debug)]
pub enum SavedTable {
    /// A one-bit table (`chomp solve -o`).
    Bits(TableFile),
    /// A Grundy table (`chomp grundy -o`).
    Grundy(GrundyFile),
    /// An ordinal table (`chomp ord -o`).
    Ords(OrdFile),
    /// P-positions by cells (`chomp cells -o`).
    Cells(CellsFile),
}

impl SavedTable {
    /// Open `path` as the kind of table its first line names (its first bytes read once);
    /// any other file is refused with the first lines of every kind.
    pub fn open(path: &Path) -> Result<SavedTable> {
        let sealed = Sealed::open(path)?;
        Ok(match sealed.kind {
            k if k == GRUNDY_TABLE => SavedTable::Grundy(GrundyFile::read(sealed)?),
            k if k == ORD_TABLE => SavedTable::Ords(OrdFile::read(sealed)?),
            k if k == CELLS_TABLE => SavedTable::Cells(CellsFile::read(sealed)?),
            _ => SavedTable::Bits(TableFile::read(sealed)?),
        })
    }
}

impl CellsFile {
    /// The winning bites of `p`: its options that are P-positions, sorted (eating the poison,
    /// which leaves no cells, is none). `None` when `p` has no cells or more than the file
    /// holds; a damaged chunk on the way is an error.
    pub fn winning_bites(&self, p: &Diagram) -> Result<Option<Vec<Diagram>>> {
        if self.is_p(p.rows())?.is_none() {
            return Ok(None);
        }
        let mut bites = Vec::new();
        for q in p.options() {
            if self.is_p(q.rows())? == Some(true) {
                bites.push(q);
            }
        }
        bites.sort();
        Ok(Some(bites))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::two_player::cells::{CellsEngine, CellsTable};
    use crate::chomp::two_player::{cells_file, grundy_cells::partitions, solve::solve_box};

    #[test]
    fn a_cells_file_answers_as_the_scan_and_a_solved_box_do() {
        let path = std::env::temp_dir().join(format!("chompute-saved-{}", std::process::id()));
        let max = 12;
        let t = cells_file::compute_to_file(max, &path, |_| {}).unwrap();
        let Ok(SavedTable::Cells(file)) = SavedTable::open(&path) else {
            panic!("a cells table opened as another kind");
        };
        file.verify().unwrap();
        let scan = CellsTable::compute_with(max, CellsEngine::Scan).unwrap();
        let rows = scan.rows();
        assert_eq!(t.rows(), rows);
        assert!(rows.iter().all(|r| file.p_positions(r.n) == r.p_positions));
        // Every diagram of up to 12 cells fits in the 12x12 box, whose table is the slow twin.
        let table = solve_box(ChompBox { rows: 12, cols: 12 }).unwrap();
        let (mut checked, mut winning) = (0, 0);
        for rows in (1..=max + 1).flat_map(partitions) {
            let p = Diagram::new(rows).unwrap();
            let got = file.winning_bites(&p).unwrap();
            if p.volume() > max as u64 {
                assert_eq!((got, file.is_p(p.rows()).unwrap()), (None, None), "{p}");
                continue;
            }
            let mut want = table.winning_bites(&p).unwrap();
            want.sort();
            assert_eq!(file.is_p(p.rows()).unwrap(), Some(want.is_empty()), "{p}");
            assert_eq!(got.as_ref(), Some(&want), "{p}");
            checked += 1;
            winning += usize::from(!want.is_empty());
        }
        // p(1) + … + p(12) diagrams, most of them N.
        assert_eq!(checked, 271);
        assert!(winning > 200, "{winning}");
        let empty = Diagram::new(vec![]).unwrap();
        assert_eq!(file.winning_bites(&empty).unwrap(), None);
        std::fs::remove_file(&path).unwrap();
    }
}
