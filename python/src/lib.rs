//! The Python module `chompute`: thin wrappers over the chompute library.
//!
//! Each function checks its Python arguments once (`args`), calls the library, and turns the
//! result into exact Python ints, NumPy arrays written in place, lists and dicts; every
//! library error becomes a Python exception in one place (`errors`), and every library report
//! struct a dict in one place (`report`). Long work runs with the
//! GIL released and stops on Ctrl-C between pieces (`run`).
//!
//! Tests: python/tests/.

mod args;
mod chocolate;
mod chomp;
mod chomp_solve;
mod errors;
mod pass;
mod report;
mod run;
mod table_file;

use pyo3::prelude::*;

/// chompute: the mathematics of chocolate games, on the chompute engine.
///
/// Exact counts of P-positions of C(m,n) as Python ints (count), P-grids and automaton
/// generations as NumPy bool arrays (p_grid, automaton), pictures (render), the paper's
/// claims (theorems); games with a pass (gp_table, cb_grundy, nimpass_p_positions);
/// multiplayer Chomp (chomp_ordinals, chomp_ordinal_histogram, chomp_classes); two-player Chomp tables (chomp_solve,
/// chomp_grundy, chomp_cells) and saved tables read without loading them (open_table). Bad input raises ValueError (or
/// OverflowError for integers beyond 2**64-1); a failed check raises chompute.CheckFailed.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // rayon's threads by a name of their own: unnamed, they would take the name of whichever
    // thread first needed them (a worker, `chompute`), and look like workers that never end.
    // An error means the host program built the global pool already; it is kept as it is.
    let _ = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("chompute-pool-{i}"))
        .build_global();
    m.add("CheckFailed", m.py().get_type::<errors::CheckFailed>())?;
    m.add_function(wrap_pyfunction!(chocolate::count, m)?)?;
    m.add_function(wrap_pyfunction!(chocolate::p_grid, m)?)?;
    m.add_function(wrap_pyfunction!(chocolate::automaton, m)?)?;
    m.add_function(wrap_pyfunction!(chocolate::theorems, m)?)?;
    m.add_function(wrap_pyfunction!(chocolate::render, m)?)?;
    m.add_function(wrap_pyfunction!(chocolate::render_corrupted, m)?)?;
    m.add_function(wrap_pyfunction!(pass::gp_table, m)?)?;
    m.add_function(wrap_pyfunction!(pass::cb_grundy, m)?)?;
    m.add_function(wrap_pyfunction!(pass::nimpass_p_positions, m)?)?;
    m.add_class::<chomp::ChompOrdinals>()?;
    m.add_function(wrap_pyfunction!(chomp::chomp_ordinals, m)?)?;
    m.add_function(wrap_pyfunction!(chomp::chomp_ordinal_histogram, m)?)?;
    m.add_function(wrap_pyfunction!(chomp::chomp_classes, m)?)?;
    m.add_class::<chomp_solve::ChompTable>()?;
    m.add_class::<chomp_solve::ChompGrundy>()?;
    m.add_function(wrap_pyfunction!(chomp_solve::chomp_solve, m)?)?;
    m.add_function(wrap_pyfunction!(chomp_solve::chomp_grundy, m)?)?;
    m.add_function(wrap_pyfunction!(chomp_solve::chomp_cells, m)?)?;
    m.add_class::<table_file::ChompTableFile>()?;
    m.add_class::<table_file::ChompGrundyFile>()?;
    m.add_class::<table_file::ChompOrdFile>()?;
    m.add_class::<table_file::ChompCellsFile>()?;
    m.add_function(wrap_pyfunction!(table_file::open_table, m)?)?;
    Ok(())
}
