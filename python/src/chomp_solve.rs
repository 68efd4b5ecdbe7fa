//! Two-player Chomp tables: P or N for every position of a box (`chomp_solve`), Grundy values
//! (`chomp_grundy`), P-positions by number of cells (`chomp_cells`); both tables save to the
//! CLI's files (`table_file` reads them). The library computes;
//! this file converts arguments and results.
//!
//! Tests: python/tests/test_chomp_solve.py.

use crate::args::u64_arg;
use crate::chomp::{box_arg, box_of, cell_list, diagram_list, position_arg};
use crate::errors::{bad_argument, invalid, OrRaise};
use crate::report::to_python;
use crate::run::{in_background, in_background_reporting};
use chompute::chomp::index::BitLayout;
use chompute::chomp::two_player::cells::CellsTable;
use chompute::chomp::two_player::cells_file;
use chompute::chomp::two_player::file::save_table;
use chompute::chomp::two_player::grundy::GrundySequence;
use chompute::chomp::two_player::grundy::GrundyTable;
use chompute::chomp::two_player::grundy_file::save_grundy;
use chompute::chomp::two_player::plan::SolvePlan;
use chompute::chomp::two_player::{BitSource, PTable};
use chompute::chomp::{ChompBox, Diagram};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use std::path::PathBuf;

/// The box from `chomp_solve(rows, cols)`, `chomp_solve(n)` (the n×n square: `cols`
/// defaults to `rows`), `chomp_solve("RxC")` or `chomp_solve((rows, cols))`.
fn shape_of(rows: &Bound<'_, PyAny>, cols: Option<&Bound<'_, PyAny>>) -> PyResult<ChompBox> {
    if cols.is_none()
        && (rows.is_instance_of::<PyString>()
            || rows.is_instance_of::<PyTuple>()
            || rows.is_instance_of::<PyList>())
    {
        return box_arg(rows);
    }
    let side = |obj: &Bound<'_, PyAny>, what: &str| -> PyResult<u64> {
        match u64_arg(obj, what, "at least 1")? {
            0 => Err(bad_argument(what, 0, "at least 1")),
            v => Ok(v),
        }
    };
    let r = side(rows, "rows")?;
    let c = match cols {
        Some(c) => side(c, "cols")?,
        None => r,
    };
    box_of(r, c)
}

/// The two-player table of a box of Chomp (`chomp_solve`): P or N for every position, one bit
/// each, held by a read-only NumPy array.
#[pyclass(module = "chompute", name = "ChompTable", frozen)]
pub struct ChompTable {
    index: BitLayout,
    p_positions: u64,
    bits: Py<PyArray1<u8>>,
}

impl ChompTable {
    fn rank_of(&self, p: &Diagram) -> PyResult<u64> {
        if p.is_empty() {
            return Err(invalid("the empty diagram is not a position"));
        }
        self.index.bit(p).ok_or_else(|| {
            invalid(format!(
                "position {p} does not fit in the {} box",
                self.index.shape()
            ))
        })
    }

    /// A position of the box and its winning bites, read from the NumPy array by the
    /// library's query ([`BitSource::winning_bites`]).
    fn bites_of(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<(Diagram, Vec<Diagram>)> {
        let (p, bites) = self.ask(py, position, |source, p| source.winning_bites(p))?;
        Ok((p, bites.unwrap_or_default()))
    }

    /// A position of the box and what `question` answers for it from the table's bits;
    /// ValueError for a position the box does not hold.
    fn ask<T>(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        question: impl FnOnce(&ArrayBits, &Diagram) -> chompute::Result<T>,
    ) -> PyResult<(Diagram, T)> {
        let p = position_arg(position)?;
        self.rank_of(&p)?;
        let bits = self.bits.bind(py).readonly();
        let source = ArrayBits {
            layout: &self.index,
            bytes: bits.as_slice()?,
        };
        let answer = question(&source, &p).or_raise()?;
        Ok((p, answer))
    }
}

/// The bits of a [`ChompTable`]'s NumPy array, as a source the library's queries read.
struct ArrayBits<'a> {
    layout: &'a BitLayout,
    bytes: &'a [u8],
}

impl BitSource for ArrayBits<'_> {
    fn layout(&self) -> &BitLayout {
        self.layout
    }

    fn is_p_bit(&self, b: u64) -> chompute::Result<bool> {
        Ok((self.bytes[(b >> 3) as usize] >> (b & 7)) & 1 == 1)
    }
}

#[pymethods]
impl ChompTable {
    /// The box as (rows, columns).
    #[getter]
    fn r#box(&self) -> (usize, u32) {
        (self.index.shape().rows, self.index.shape().cols)
    }

    /// Number of positions: the non-empty diagrams of the box.
    #[getter]
    fn positions(&self) -> u64 {
        self.index.positions() - 1
    }

    /// How the bits are numbered: "colex-lattice-path" (every position by its colex rank), or
    /// "transpose-hook N" for a square box (one bit for each pair of transposed positions).
    #[getter]
    fn layout(&self) -> String {
        self.index.scheme()
    }

    /// The bit of a position in `table` (for a square box, the bit it shares with its
    /// transpose).
    fn index(&self, position: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.rank_of(&position_arg(position)?)
    }

    /// Number of P-positions.
    #[getter]
    fn p_positions(&self) -> u64 {
        self.p_positions
    }

    /// The packed table, read-only and without a copy: bit i (little-endian within each
    /// byte, `numpy.unpackbits(t, bitorder="little")`) is 1 iff the position of index i is P;
    /// `index(position)` gives it. A box that is not square numbers every position by its
    /// colex rank (rank order is lexicographic order of rows; rank 0 is the empty diagram); a
    /// square keeps one bit for each pair of transposed positions (`layout`).
    #[getter]
    fn table<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.bits.bind(py).clone()
    }

    /// Whether a position ("4,3,1" or (4, 3, 1)) is P.
    fn is_p(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<bool> {
        let (_, answer) = self.ask(py, position, |source, p| source.is_p(p))?;
        Ok(answer == Some(true))
    }

    /// The winning bites of a position: its P options, each as a tuple of row lengths, sorted.
    /// Empty for a P-position.
    fn winning_bites<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (_, bites) = self.bites_of(py, position)?;
        diagram_list(py, &bites)
    }

    /// The cells the winning bites of a position take, in the order of `winning_bites`: each a
    /// tuple (row, column), 1-based from the poisoned corner.
    fn winning_cells<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (p, bites) = self.bites_of(py, position)?;
        cell_list(py, &p, &bites)
    }

    /// Write the table to `path` as `chompute chomp solve -o` does (a temporary file renamed
    /// when complete; byte for byte the CLI's file), for `open_table` and `chompute chomp
    /// query`.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bits = self.bits.bind(py).readonly();
        let words: Vec<u64> = bits
            .as_slice()?
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        drop(bits);
        let table = PTable::from_words(self.index.clone(), words).or_raise()?;
        in_background(py, move || save_table(&table, &path))?.or_raise()
    }

    fn __repr__(&self) -> String {
        format!(
            "<chompute.ChompTable box {}: {} positions, {} P-positions>",
            self.index.shape(),
            self.index.positions() - 1,
            self.p_positions
        )
    }
}

/// P or N for every position of the rows × cols box of two-player Chomp (the poison is cell
/// (1,1); the one-cell diagram (1) is P), at one bit per position. `chomp_solve(20, 20)` or
/// `chomp_solve("20x20")`. Raises ValueError for a box too large for memory, before any work.
/// `progress`, a callable `progress(done, total, phase)` or a tqdm bar, hears of the positions
/// decided.
#[pyfunction]
#[pyo3(signature = (rows, cols = None, *, progress = None))]
pub fn chomp_solve(
    py: Python<'_>,
    rows: &Bound<'_, PyAny>,
    cols: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<ChompTable> {
    // The library's plan decides, as the CLI's `chomp solve --box` without a file: the whole
    // table in memory on the CPU, refused before any work when it does not fit.
    let plan = SolvePlan::new(shape_of(rows, cols)?, false, None, None, None).or_raise()?;
    let table = in_background_reporting(py, progress, move || plan.table())?.or_raise()?;
    let p_positions = table.p_count();
    let index = table.layout().clone();
    let mut bytes = Vec::with_capacity(index.bytes() as usize);
    table.for_each_word(|w| bytes.extend_from_slice(&w.to_le_bytes()));
    drop(table);
    let array = PyArray1::from_vec(py, bytes);
    array.call_method1("setflags", (false,))?;
    Ok(ChompTable {
        index,
        p_positions,
        bits: array.unbind(),
    })
}

/// The Grundy value of every position of a box of two-player Chomp (`chomp_grundy`): the mex
/// over all options, so the P-positions are exactly those of value 0.
#[pyclass(module = "chompute", name = "ChompGrundy", frozen)]
pub struct ChompGrundy {
    table: GrundyTable,
}

#[pymethods]
impl ChompGrundy {
    /// The box as (rows, columns).
    #[getter]
    fn r#box(&self) -> (usize, u32) {
        let s = self.table.shape();
        (s.rows, s.cols)
    }

    /// How many positions have each Grundy value 0, 1, …, the largest.
    #[getter]
    fn histogram(&self) -> Vec<u64> {
        self.table.histogram().to_vec()
    }

    /// The largest Grundy value in the box.
    #[getter]
    fn max_grundy(&self) -> usize {
        self.table.max_grundy()
    }

    /// The Grundy value of a position ("4,3,1" or (4, 3, 1)).
    fn value(&self, position: &Bound<'_, PyAny>) -> PyResult<u16> {
        let p = position_arg(position)?;
        self.table.value(&p).ok_or_else(|| {
            invalid(format!(
                "position {p} is empty or does not fit in the {} box",
                self.table.shape()
            ))
        })
    }

    /// Every rectangle of the box as a dict {"rows", "cols", "grundy"}, rows first.
    fn rectangles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.table.rectangles())
    }

    /// One sequence of the box, as `chomp grundy --bfile NAME`: its terms n = 1, 2, … as a
    /// list. "square" (the n×n squares), "two-rows", "three-rows" (the 2×n and 3×n
    /// rectangles) or "largest" (the largest value of the n×n box).
    fn sequence(&self, name: &str) -> PyResult<Vec<u16>> {
        let kind = GrundySequence::from_name(name).or_raise()?;
        self.table.sequence(kind).or_raise()
    }

    /// Write the table to `path` as `chompute chomp grundy -o` does (byte for byte the CLI's
    /// file), for `open_table` and `chompute chomp query`.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| save_grundy(&self.table, &path)).or_raise()
    }

    fn __repr__(&self) -> String {
        format!("<chompute.ChompGrundy box {}>", self.table.shape())
    }
}

/// The Grundy value (nim-value, the mex over all options) of every position of the rows × cols
/// box of two-player Chomp.
#[pyfunction]
#[pyo3(signature = (rows, cols = None, *, progress = None))]
pub fn chomp_grundy(
    py: Python<'_>,
    rows: &Bound<'_, PyAny>,
    cols: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<ChompGrundy> {
    let shape = shape_of(rows, cols)?;
    let table =
        in_background_reporting(py, progress, move || GrundyTable::compute(shape))?.or_raise()?;
    Ok(ChompGrundy { table })
}

/// For every n from 1 to max_n: a dict {"n", "diagrams", "p_positions"}, the Young diagrams of
/// n cells (the partitions of n) and how many of them are P-positions of two-player Chomp.
/// With `path`, the table is also saved there as `chompute chomp cells --max N -o` saves it
/// (byte for byte the CLI's file, resumed from `path.partial` when a run was stopped), for
/// `open_table` and `chompute chomp query`.
#[pyfunction]
#[pyo3(signature = (max_n, *, path = None, progress = None))]
pub fn chomp_cells<'py>(
    py: Python<'py>,
    max_n: &Bound<'py, PyAny>,
    path: Option<PathBuf>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let max = u64_arg(max_n, "max_n", "from 1 to 400")?;
    let max = u32::try_from(max)
        .map_err(|_| invalid(format!("max_n must be from 1 to 400 (got {max})")))?;
    let table = in_background_reporting(py, progress, move || match path {
        None => CellsTable::compute(max),
        Some(path) => cells_file::compute_to_file(max, &path, |_| {}),
    })?
    .or_raise()?;
    to_python(py, &table.rows())
}
