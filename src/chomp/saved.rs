//! Every saved table, whatever its kind, opened by its first line: the one place that tells
//! the kinds apart, for `chomp query`, `chomp bites --table` and Python's `open_table`.
//!
//! Tests: tests/faults/tables.rs (every kind, and files of the previous format).

use crate::chomp::multiplayer::ord_file::OrdFile;
use crate::chomp::store::{self, Kind, CELLS_TABLE, GRUNDY_TABLE, KINDS, ORD_TABLE, P_TABLE};
use crate::chomp::two_player::cells_file::CellsFile;
use crate::chomp::two_player::file::TableFile;
use crate::chomp::two_player::grundy_file::GrundyFile;
use crate::error::{Error, Result};
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
    /// Open `path` as the kind of table its first line names; any other file is refused
    /// with the first lines of every kind.
    pub fn open(path: &Path) -> Result<SavedTable> {
        match store::kind_of(path)?.map(|(k, _)| k) {
            Some(k) if k == GRUNDY_TABLE => GrundyFile::open(path).map(SavedTable::Grundy),
            Some(k) if k == ORD_TABLE => OrdFile::open(path).map(SavedTable::Ords),
            Some(k) if k == CELLS_TABLE => CellsFile::open(path).map(SavedTable::Cells),
            // Every version of the one-bit table goes to its reader, which names the old ones.
            _ if store::first_bytes(path, 64)?.starts_with(b"chompute chomp p-table ") => {
                TableFile::open(path).map(SavedTable::Bits)
            }
            _ => Err(Error::invalid(format!(
                "{}: not a chompute table (its first line is none of {})",
                path.display(),
                KINDS
                    .iter()
                    .map(|k| format!("'{}'", k.magic()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// The kind of table.
    pub fn kind(&self) -> Kind {
        match self {
            SavedTable::Bits(_) => P_TABLE,
            SavedTable::Grundy(_) => GRUNDY_TABLE,
            SavedTable::Ords(_) => ORD_TABLE,
            SavedTable::Cells(_) => CELLS_TABLE,
        }
    }

    /// Check every chunk against its CRC and recount what the kind's header states.
    pub fn verify(&self) -> Result<()> {
        match self {
            SavedTable::Bits(f) => f.verify(),
            SavedTable::Grundy(f) => f.verify(),
            SavedTable::Ords(f) => f.verify(),
            SavedTable::Cells(f) => f.verify(),
        }
    }
}
