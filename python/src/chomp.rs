//! Multiplayer Chomp: ordinals under an n-player rule, and the isomorphism classes of rules.
//!
//! Tests: python/tests/test_chomp.py, python/tests/test_chomp_solve.py.

use crate::args::u64_arg;
use crate::errors::{bad_argument, invalid, OrRaise};
use crate::run::in_background_reporting;
use chompute::chomp::multiplayer::classes::{check_players, classes_ranker, MAX_CLASS_PLAYERS};
use chompute::chomp::multiplayer::ord_file::save_ords;
use chompute::chomp::multiplayer::ordinal::{OrdEngine, OrdPlan};
use chompute::chomp::{all_normalised_rules, rule_classes, ChompBox, Diagram, OrdTable, Rule};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple};
use std::path::PathBuf;

/// A rule: "10,20,30", or a sequence (a NumPy array too) of numbers: integers of any kind
/// (Python, NumPy, anything `numbers.Integral`), floats (read as the shortest decimal that is
/// the float), `Decimal`, `Fraction` with a finite decimal expansion, any other
/// `numbers.Real`, or decimal strings. Each becomes its exact decimal text, and the library
/// parses the rule from that (as `--rule` is parsed).
fn rule_arg(obj: &Bound<'_, PyAny>) -> PyResult<Rule> {
    let text = if let Ok(s) = obj.cast::<PyString>() {
        s.to_string()
    } else {
        let parts: Vec<String> = obj
            .try_iter()
            .map_err(|_| invalid("a rule is a string such as '10,20,30' or a sequence of numbers"))?
            .map(|item| rule_entry(&item?))
            .collect::<PyResult<_>>()?;
        parts.join(",")
    };
    Rule::parse(&text).map_err(invalid)
}

/// One entry of a rule as exact decimal text.
fn rule_entry(item: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = item.py();
    let not_a_number = || {
        invalid(format!(
            "rule entry {} is not a number (give integers, floats, Decimals or decimal strings)",
            item.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    if let Ok(s) = item.cast::<PyString>() {
        let text = s.to_string();
        if text.contains(',') {
            return Err(invalid(format!("rule entry '{text}' is not a number")));
        }
        return Ok(text);
    }
    if item.is_instance_of::<PyBool>() {
        return Err(not_a_number());
    }
    // Integers of every kind (int, NumPy integers, numbers.Integral): exact as they are.
    if let Ok(int) = item.call_method0("__index__") {
        return Ok(int.str()?.to_string());
    }
    let numbers = py.import("numbers")?;
    let decimal = py.import("decimal")?.getattr("Decimal")?;
    let fraction = py.import("fractions")?.getattr("Fraction")?;
    if item.is_instance(&decimal)? {
        if !item.call_method0("is_finite")?.is_truthy()? {
            return Err(not_a_number());
        }
        return Ok(item.str()?.to_string());
    }
    if item.is_instance(&fraction)? {
        return fraction_text(item).ok_or_else(|| {
            invalid(format!(
                "rule entry {} has no finite decimal expansion; give it as a decimal (only the order of the entries matters)",
                item.str().map(|r| r.to_string()).unwrap_or_default()
            ))
        });
    }
    if item.is_instance(&numbers.getattr("Real")?)? || item.hasattr("__float__")? {
        let x: f64 = item.call_method0("__float__")?.extract()?;
        if !x.is_finite() {
            return Err(not_a_number());
        }
        // The shortest decimal that reads back as the float.
        return Ok(format!("{x:?}"));
    }
    Err(not_a_number())
}

/// A `Fraction` as exact decimal text, when its denominator has no prime factor but 2 and 5.
fn fraction_text(f: &Bound<'_, PyAny>) -> Option<String> {
    let num: Bound<'_, PyAny> = f.getattr("numerator").ok()?;
    let den: u128 = f.getattr("denominator").ok()?.extract().ok()?;
    let (mut rest, mut twos, mut fives) = (den, 0u32, 0u32);
    while rest % 2 == 0 {
        rest /= 2;
        twos += 1;
    }
    while rest % 5 == 0 {
        rest /= 5;
        fives += 1;
    }
    if rest != 1 {
        return None;
    }
    // num/den = num·2^(k-twos)·5^(k-fives) / 10^k with k = max(twos, fives).
    let k = twos.max(fives);
    let scale = 2u128
        .checked_pow(k - twos)?
        .checked_mul(5u128.checked_pow(k - fives)?)?;
    let scaled = num.mul(scale).ok()?.str().ok()?.to_string();
    Some(format!("{scaled}e-{k}"))
}

/// A box: "3x10" or (rows, columns).
pub fn box_arg(obj: &Bound<'_, PyAny>) -> PyResult<ChompBox> {
    if let Ok(s) = obj.cast::<PyString>() {
        return ChompBox::parse(&s.to_string()).map_err(invalid);
    }
    let (r, c): (Bound<'_, PyAny>, Bound<'_, PyAny>) = obj
        .extract()
        .map_err(|_| invalid("a box is a string such as '3x10' or a pair (rows, columns)"))?;
    box_of(
        u64_arg(&r, "box rows", "at least 1")?,
        u64_arg(&c, "box columns", "at least 1")?,
    )
}

/// The box of `rows` × `cols`, checked by the box parser, as the CLI reads `--box RxC`: the
/// same limits and the same words.
pub fn box_of(rows: u64, cols: u64) -> PyResult<ChompBox> {
    ChompBox::parse(&format!("{rows}x{cols}")).map_err(invalid)
}

/// A position: "4,3,1" or a sequence of non-increasing row lengths (() or "0" is empty).
pub fn position_arg(obj: &Bound<'_, PyAny>) -> PyResult<Diagram> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Diagram::parse(&s.to_string()).map_err(invalid);
    }
    let not_a_position =
        || invalid("a position is a string such as '4,3,1' or a sequence of row lengths");
    let items: Vec<Bound<'_, PyAny>> = obj.extract().map_err(|_| not_a_position())?;
    let rows = items
        .iter()
        .map(|item| {
            // Integers only (NumPy's too), as Diagram::parse reads its text.
            if item.is_instance_of::<PyBool>() {
                return Err(not_a_position());
            }
            let int = item
                .call_method0("__index__")
                .map_err(|_| not_a_position())?;
            int.extract::<u32>().map_err(|_| {
                if int.lt(0).unwrap_or(false) {
                    invalid(format!("row length {int} is negative"))
                } else {
                    invalid(format!("row length '{int}' is too large"))
                }
            })
        })
        .collect::<PyResult<Vec<u32>>>()?;
    let shown = rows
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    Diagram::new(rows).ok_or_else(|| {
        invalid(format!(
            "'{shown}' is not a position: row lengths must not increase"
        ))
    })
}

fn diagram_tuple<'py>(py: Python<'py>, rows: &[u32]) -> PyResult<Bound<'py, PyTuple>> {
    let trimmed: Vec<u32> = rows.iter().copied().take_while(|&a| a > 0).collect();
    PyTuple::new(py, trimmed)
}

/// The cells (row, column), 1-based from the poisoned corner, that the bites from `p` to
/// `options` take, each a tuple.
pub fn cell_list<'py>(
    py: Python<'py>,
    p: &Diagram,
    options: &[Diagram],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for q in options {
        list.append(chompute::chomp::two_player::table::bitten_cell(p, q))?;
    }
    Ok(list)
}

/// Every rectangle's winning bites as `chomp bites --json` gives them, each a dict {"rows",
/// "cols", "bites", "bite_cells"}, the bites and cells as tuples.
pub fn rectangle_dicts<'py>(
    py: Python<'py>,
    rects: &[chompute::chomp::two_player::RectangleBites],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in rects {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("rows", r.rows)?;
        d.set_item("cols", r.cols)?;
        let bites = PyList::empty(py);
        for b in &r.bites {
            bites.append(diagram_tuple(py, b)?)?;
        }
        d.set_item("bites", bites)?;
        d.set_item("bite_cells", PyList::new(py, r.bite_cells.iter().copied())?)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A list of positions, each a tuple of row lengths.
pub fn diagram_list<'py>(py: Python<'py>, diagrams: &[Diagram]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for q in diagrams {
        list.append(diagram_tuple(py, q.rows())?)?;
    }
    Ok(list)
}

/// The ordinal of every position in a box under one rule (`chomp_ordinals`).
#[pyclass(module = "chompute", name = "ChompOrdinals", frozen)]
pub struct ChompOrdinals {
    table: OrdTable,
    rule: Rule,
}

impl ChompOrdinals {
    fn ordinal_of(&self, p: &Diagram) -> PyResult<u8> {
        self.table.ordinal(p).ok_or_else(|| {
            invalid(format!(
                "position {p} does not fit in the {} box",
                self.table.ranker().shape
            ))
        })
    }

    /// The positions `from` gives for a position of the box (its Sol set, its chain), as a
    /// list of tuples; ValueError for a position outside the box.
    fn positions_from<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        from: fn(&OrdTable, &Diagram) -> Vec<Diagram>,
    ) -> PyResult<Bound<'py, PyList>> {
        let p = position_arg(position)?;
        self.ordinal_of(&p)?;
        diagram_list(py, &from(&self.table, &p))
    }
}

#[pymethods]
impl ChompOrdinals {
    /// How many positions of the box have each ordinal 0..n (a list of n+1 ints).
    #[getter]
    fn histogram(&self) -> Vec<u64> {
        self.table.histogram()
    }

    /// The normalised rule: a permutation of 0..n-1 with the order of the numbers given.
    #[getter]
    fn rule<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.rule.perm)
    }

    /// Number of players n.
    #[getter]
    fn players(&self) -> usize {
        self.rule.players()
    }

    /// The box as (rows, columns).
    #[getter]
    fn r#box(&self) -> (usize, u32) {
        let s = self.table.ranker().shape;
        (s.rows, s.cols)
    }

    /// The ordinal i of a position ("4,3,1" or (4, 3, 1)): the player to move scores α_i
    /// (Fact 2.10). The empty position (0) has ordinal 0.
    fn ordinal(&self, position: &Bound<'_, PyAny>) -> PyResult<u8> {
        self.ordinal_of(&position_arg(position)?)
    }

    /// Sol_f P: the options Q of P with ord(Q) + 1 = ord(P), or [()] (the empty position)
    /// when ord(P) = 1; sorted tuples of row lengths. Empty for the empty position.
    fn sol<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.positions_from(py, position, OrdTable::sol)
    }

    /// One solution chain from the position down to the empty one: each step the first
    /// (smallest) solution. It has ord(P) moves (Theorems 2.7, 2.8).
    fn chain<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.positions_from(py, position, OrdTable::chain)
    }

    /// Every position of the box with this ordinal, as tuples of row lengths in lexicographic
    /// order. With two players, ordinal 1 lists the P-positions of ordinary Chomp.
    fn positions<'py>(
        &self,
        py: Python<'py>,
        ordinal: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let n = self.table.players;
        let k = u64_arg(ordinal, "ordinal", &format!("between 0 and {n}"))?;
        if k > n as u64 {
            return Err(bad_argument("ordinal", k, &format!("between 0 and {n}")));
        }
        let mut found: Vec<Vec<u32>> = Vec::new();
        self.table
            .positions_of(k as u8, |rows| found.push(rows.to_vec()));
        let list = PyList::empty(py);
        for rows in &found {
            list.append(diagram_tuple(py, rows)?)?;
        }
        Ok(list)
    }

    /// Write the table to `path` as `chompute chomp ord --rule F --box RxC -o` does (a
    /// temporary file renamed when complete; byte for byte the CLI's file), for `open_table`
    /// and `chompute chomp query`.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| save_ords(&self.table, &self.rule, &path))
            .or_raise()
    }

    fn __len__(&self) -> usize {
        self.table.ranker().len() as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "<chompute.ChompOrdinals rule ({}) box {}: {} positions, histogram {:?}>",
            self.rule.normalised(),
            self.table.ranker().shape,
            self.table.ranker().len() as usize,
            self.table.histogram()
        )
    }
}

/// Multiplayer Chomp under the rule f = (α_1 … α_n) ("10,20,30" or a sequence of n >= 2
/// distinct numbers; α_1 goes to whoever takes the last bite, α_2 to the player before, …):
/// the ordinal of every position inside the box ("3x4" or (rows, columns)), as an object
/// with `.histogram`, `.ordinal(position)`, `.sol(position)`, `.chain(position)` and
/// `.positions(ordinal)`. Positions are non-increasing row lengths, "4,3,1" or (4, 3, 1).
///
/// >>> t = chompute.chomp_ordinals("10,20,30", "3x4")
/// >>> t.histogram, t.ordinal((4, 3, 1)), t.sol((4, 3, 1))
/// ([1, 2, 5, 27], 3, [(4, 1, 1)])
///
/// Raises ValueError for a malformed or tied rule, a bad box, or a box with too many
/// positions. Computed with the GIL released; Ctrl-C raises KeyboardInterrupt. `progress`, a
/// callable `progress(done, total, phase)` or a tqdm bar, hears of the positions done.
#[pyfunction]
#[pyo3(signature = (rule, r#box, *, progress=None))]
pub fn chomp_ordinals(
    py: Python<'_>,
    rule: &Bound<'_, PyAny>,
    r#box: &Bound<'_, PyAny>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<ChompOrdinals> {
    let rule = rule_arg(rule)?;
    let shape = box_arg(r#box)?;
    // The library's plan picks the engine, as the CLI's `--engine auto` does.
    let plan = OrdPlan::new(shape, OrdEngine::Auto).or_raise()?;
    let for_table = rule.clone();
    let table =
        in_background_reporting(py, progress, move || plan.table(&for_table))?.or_raise()?;
    Ok(ChompOrdinals { table, rule })
}

/// How many positions of the box have each ordinal 0..n under the rule, as
/// `chompute chomp ord --rule F --box RxC` counts them: a box of 3 rows is streamed first row
/// by first row and keeps no table, so boxes as large as 3x10000 work (in minutes).
///
/// >>> chompute.chomp_ordinal_histogram("10,20,30", "3x4")
/// [1, 2, 5, 27]
///
/// Raises ValueError as chomp_ordinals does; Ctrl-C raises KeyboardInterrupt. `progress`, a
/// callable `progress(done, total, phase)` or a tqdm bar, hears of the work done.
#[pyfunction]
#[pyo3(signature = (rule, r#box, *, progress=None))]
pub fn chomp_ordinal_histogram(
    py: Python<'_>,
    rule: &Bound<'_, PyAny>,
    r#box: &Bound<'_, PyAny>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let rule = rule_arg(rule)?;
    let plan = OrdPlan::new(box_arg(r#box)?, OrdEngine::Auto).or_raise()?;
    in_background_reporting(py, progress, move || plan.histogram(&rule))?.or_raise()
}

/// All players! normalised rules for 2..8 players grouped into isomorphism classes on the
/// positions of the box ("6x6" or (rows, columns)): rules with the same ordinal on every
/// position (Theorem 3.1). A list of classes, each a list of normalised rules (tuples, a
/// permutation of 0..players-1), classes sorted by their first rule.
///
/// >>> chompute.chomp_classes(3, "6x6")
/// [[(0, 1, 2)], [(0, 2, 1)], [(1, 0, 2), (2, 0, 1), (2, 1, 0)], [(1, 2, 0)]]
///
/// Raises ValueError for players outside 2..8 or a box of more than 2**24 positions.
/// Ctrl-C raises KeyboardInterrupt within milliseconds; `progress`, a callable
/// `progress(done, total, phase)` or a tqdm bar, hears of the positions done.
#[pyfunction]
#[pyo3(signature = (players, r#box, *, progress=None))]
pub fn chomp_classes<'py>(
    py: Python<'py>,
    players: &Bound<'py, PyAny>,
    r#box: &Bound<'py, PyAny>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let allowed = format!("between 2 and {MAX_CLASS_PLAYERS}");
    let n = u64_arg(players, "players", &allowed)?;
    check_players(n).or_raise()?;
    let ranker = classes_ranker(box_arg(r#box)?).or_raise()?;
    let classes = in_background_reporting(py, progress, move || {
        let rules = all_normalised_rules(n as usize);
        Ok::<_, chompute::Error>(
            rule_classes(&ranker, &rules)?
                .into_iter()
                .map(|c| c.members.into_iter().map(|r| r.perm).collect::<Vec<_>>())
                .collect::<Vec<_>>(),
        )
    })?
    .or_raise()?;
    let list = PyList::empty(py);
    for class in classes {
        let members = PyList::empty(py);
        for perm in class {
            members.append(PyTuple::new(py, perm)?)?;
        }
        list.append(members)?;
    }
    Ok(list)
}
