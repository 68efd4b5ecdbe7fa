//! Saved Chomp tables, read without loading them: `open_table(path)` answers from a file of
//! any kind that `chompute chomp solve -o`, `chomp grundy -o`, `chomp ord -o` or `chomp cells
//! -o` (or `ChompTable.save`, `ChompGrundy.save`) wrote, reading only the chunks a question touches, each checked against its CRC-32. The
//! library opens, checks and answers; this file converts.
//!
//! Tests: python/tests/test_chomp_solve.py.

use crate::args::u64_arg;
use crate::chomp::{box_of, cell_list, diagram_list, position_arg, rectangle_dicts};
use crate::errors::{bad_argument, OrRaise};
use crate::run::in_background;
use chompute::chomp::multiplayer::ord_file::OrdFile;
use chompute::chomp::saved::SavedTable;
use chompute::chomp::two_player::cells_file::CellsFile;
use chompute::chomp::two_player::file::TableFile;
use chompute::chomp::two_player::grundy_file::GrundyFile;
use chompute::chomp::Diagram;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;
use std::sync::Arc;

/// A saved two-player table (`chomp solve -o FILE`): P or N for every position of its box,
/// read from the file a chunk at a time.
#[pyclass(module = "chompute", name = "ChompTableFile", frozen)]
pub struct ChompTableFile {
    file: Arc<TableFile>,
}

#[pymethods]
impl ChompTableFile {
    /// The box as (rows, columns).
    #[getter]
    fn r#box(&self) -> (usize, u32) {
        let s = self.file.shape();
        (s.rows, s.cols)
    }

    /// Number of positions: the non-empty diagrams of the box.
    #[getter]
    fn positions(&self) -> u64 {
        self.file.index.positions() - 1
    }

    /// Number of P-positions, as the header says (`verify()` recounts them).
    #[getter]
    fn p_positions(&self) -> u64 {
        self.file.p_positions
    }

    /// How the bits are numbered (as `ChompTable.layout`).
    #[getter]
    fn layout(&self) -> String {
        self.file.index.scheme()
    }

    /// Whether a position ("4,3,1" or (4, 3, 1)) is P.
    fn is_p(&self, position: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.file.is_p(&position_arg(position)?).or_raise()
    }

    /// The winning bites of a position: its P options, each as a tuple of row lengths, sorted.
    /// Empty for a P-position.
    fn winning_bites<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bites = self
            .file
            .winning_bites(&position_arg(position)?)
            .or_raise()?;
        diagram_list(py, &bites)
    }

    /// The cells the winning bites of a position take, in the order of `winning_bites`: each a
    /// tuple (row, column), 1-based from the poisoned corner.
    fn winning_cells<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let p = position_arg(position)?;
        let bites = self.file.winning_bites(&p).or_raise()?;
        cell_list(py, &p, &bites)
    }

    /// The winning bites of every rectangle of the box (or of the rows × cols corner of it),
    /// rows first, each a dict {"rows", "cols", "bites", "bite_cells"} with the positions left
    /// and the cells bitten as tuples: `chomp bites --table FILE --json`. ValueError for a corner
    /// that is empty or reaches outside the box.
    #[pyo3(signature = (rows = None, cols = None))]
    fn rectangle_bites<'py>(
        &self,
        py: Python<'py>,
        rows: Option<&Bound<'py, PyAny>>,
        cols: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let own = self.file.shape();
        // Checked as the CLI's `chomp bites --box ROWSxCOLS` is: an empty corner is refused.
        let side = |arg: Option<&Bound<'py, PyAny>>, what: &str, whole: u64| match arg {
            Some(v) => u64_arg(v, what, "at least 1"),
            None => Ok(whole),
        };
        let rows = side(rows, "rows", own.rows as u64)?;
        let cols = side(cols, "cols", u64::from(own.cols))?;
        let corner = box_of(rows, cols)?;
        let file = self.file.clone();
        let bites = in_background(py, move || file.rectangle_bites(corner))?.or_raise()?;
        Ok(rectangle_dicts(py, &bites)?.into_any())
    }

    /// Read the whole file: every chunk against its CRC-32, and the P-positions recounted
    /// against the header. Raises ValueError or chompute.CheckFailed naming what is damaged.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let file = self.file.clone();
        in_background(py, move || file.verify())?.or_raise()
    }

    fn __repr__(&self) -> String {
        format!(
            "<chompute.ChompTableFile box {}: {} P-positions>",
            self.file.shape(),
            self.file.p_positions
        )
    }
}

/// A saved Grundy table (`chomp grundy -o FILE`): the Grundy value of every position of its
/// box, read from the file a chunk at a time.
#[pyclass(module = "chompute", name = "ChompGrundyFile", frozen)]
pub struct ChompGrundyFile {
    file: Arc<GrundyFile>,
}

#[pymethods]
impl ChompGrundyFile {
    /// The box as (rows, columns).
    #[getter]
    fn r#box(&self) -> (usize, u32) {
        let s = self.file.shape();
        (s.rows, s.cols)
    }

    /// The largest Grundy value in the box, as the header says.
    #[getter]
    fn max_grundy(&self) -> u16 {
        self.file.max_value()
    }

    /// The Grundy value of a position ("4,3,1" or (4, 3, 1)).
    fn value(&self, position: &Bound<'_, PyAny>) -> PyResult<u16> {
        self.file.value(&position_arg(position)?).or_raise()
    }

    /// For every value g below the position's, one move to a position of value g (at index
    /// g, each a tuple of row lengths): `chomp query FILE --position P`. Empty for a
    /// P-position.
    fn moves<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let moves = self.file.moves(&position_arg(position)?).or_raise()?;
        diagram_list(py, &moves)
    }

    /// Read the whole file: every chunk against its CRC-32 and the largest value against the
    /// header. Raises ValueError or chompute.CheckFailed naming what is damaged.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let file = self.file.clone();
        in_background(py, move || file.verify())?.or_raise()
    }

    fn __repr__(&self) -> String {
        format!(
            "<chompute.ChompGrundyFile box {}: largest value {}>",
            self.file.shape(),
            self.file.max_value()
        )
    }
}

/// A saved ordinal table (`chomp ord -o FILE`): the ordinal of every position of its box under
/// its rule, read from the file a chunk at a time.
#[pyclass(module = "chompute", name = "ChompOrdFile", frozen)]
pub struct ChompOrdFile {
    file: Arc<OrdFile>,
}

#[pymethods]
impl ChompOrdFile {
    /// The box as (rows, columns).
    #[getter]
    fn r#box(&self) -> (usize, u32) {
        let s = self.file.shape();
        (s.rows, s.cols)
    }

    /// The rule, normalised ("0,1,2").
    #[getter]
    fn rule(&self) -> String {
        self.file.rule().normalised()
    }

    /// Positions of each ordinal 0..=n, as the header says.
    #[getter]
    fn histogram(&self) -> Vec<u64> {
        self.file.histogram().to_vec()
    }

    /// The ordinal of a position ("4,3,1" or (4, 3, 1)).
    fn ordinal(&self, position: &Bound<'_, PyAny>) -> PyResult<u8> {
        self.file.ordinal(&position_arg(position)?).or_raise()
    }

    /// Read the whole file: every chunk against its CRC-32 and the histogram recounted.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let file = self.file.clone();
        in_background(py, move || file.verify())?.or_raise()
    }

    fn __repr__(&self) -> String {
        format!(
            "<chompute.ChompOrdFile box {}: rule {}>",
            self.file.shape(),
            self.file.rule().normalised()
        )
    }
}

/// A saved cells table (`chomp cells --max N -o FILE`): P or N for every Young diagram of up
/// to N cells, read from the file a chunk at a time.
#[pyclass(module = "chompute", name = "ChompCellsFile", frozen)]
pub struct ChompCellsFile {
    file: Arc<CellsFile>,
}

impl ChompCellsFile {
    /// A diagram and what the file answers for it; ValueError for a diagram the file does not
    /// hold (`None` from the library).
    fn ask<T>(
        &self,
        position: &Bound<'_, PyAny>,
        question: impl FnOnce(&CellsFile, &Diagram) -> chompute::Result<Option<T>>,
    ) -> PyResult<(Diagram, T)> {
        let p = position_arg(position)?;
        match question(&self.file, &p).or_raise()? {
            Some(answer) => Ok((p, answer)),
            None => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{p} has no cells or more than the file's {}",
                self.file.max()
            ))),
        }
    }
}

#[pymethods]
impl ChompCellsFile {
    /// N, the most cells of a diagram in the file.
    #[getter]
    fn max_cells(&self) -> u32 {
        self.file.max()
    }

    /// The P-positions among the diagrams of `n` cells (1 ≤ n ≤ max_cells).
    fn p_positions(&self, n: &Bound<'_, PyAny>) -> PyResult<u64> {
        let max = self.file.max();
        let allowed = format!("from 1 to {max}");
        let n = u64_arg(n, "n", &allowed)?;
        match u32::try_from(n) {
            Ok(n) if (1..=max).contains(&n) => Ok(self.file.p_positions(n)),
            _ => Err(bad_argument("n", n, &allowed)),
        }
    }

    /// Whether a diagram ("4,3,1" or (4, 3, 1)) is a P-position.
    fn is_p(&self, position: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.ask(position, |file, p| file.is_p(p.rows()))?.1)
    }

    /// The winning bites of a diagram: its P options, each as a tuple of row lengths, sorted
    /// (as `chompute chomp query FILE --position` lists them). Empty for a P-position.
    fn winning_bites<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (_, bites) = self.ask(position, CellsFile::winning_bites)?;
        diagram_list(py, &bites)
    }

    /// The cells the winning bites of a diagram take, in the order of `winning_bites`: each a
    /// tuple (row, column), 1-based from the poisoned corner.
    fn winning_cells<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (p, bites) = self.ask(position, CellsFile::winning_bites)?;
        cell_list(py, &p, &bites)
    }

    /// Read the whole file: every chunk against its CRC-32 and every count recounted.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let file = self.file.clone();
        in_background(py, move || file.verify())?.or_raise()
    }

    fn __repr__(&self) -> String {
        format!("<chompute.ChompCellsFile up to {} cells>", self.file.max())
    }
}

/// Open a saved Chomp table of any kind without loading it: a `ChompTableFile` for a one-bit
/// table (`chomp solve -o`, `ChompTable.save`), a `ChompGrundyFile` for a Grundy table (`chomp
/// grundy -o`, `ChompGrundy.save`), a `ChompOrdFile` for an ordinal table (`chomp ord -o`), a
/// `ChompCellsFile` for a cells table (`chomp cells -o`). The header and the file's length are
/// checked here, each chunk before it is first read; a damaged or foreign file raises
/// ValueError.
#[pyfunction]
pub fn open_table(py: Python<'_>, path: PathBuf) -> PyResult<Py<PyAny>> {
    Ok(match SavedTable::open(&path).or_raise()? {
        SavedTable::Bits(file) => Py::new(
            py,
            ChompTableFile {
                file: Arc::new(file),
            },
        )?
        .into_any(),
        SavedTable::Grundy(file) => Py::new(
            py,
            ChompGrundyFile {
                file: Arc::new(file),
            },
        )?
        .into_any(),
        SavedTable::Ords(file) => Py::new(
            py,
            ChompOrdFile {
                file: Arc::new(file),
            },
        )?
        .into_any(),
        SavedTable::Cells(file) => Py::new(
            py,
            ChompCellsFile {
                file: Arc::new(file),
            },
        )?
        .into_any(),
    })
}
