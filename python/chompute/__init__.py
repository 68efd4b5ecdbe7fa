"""chompute: the mathematics of chocolate games, on the chompute engine.

Exact counts of the P-positions of the chocolate bar C(m,n) as Python ints (``count``),
P-grids and automaton generations as NumPy bool arrays (``p_grid``, ``automaton``),
pictures (``render``) and the paper's claims (``theorems``); games with a pass
(``gp_table``, ``cb_grundy``, ``nimpass_p_positions``); multiplayer Chomp
(``chomp_ordinals``, ``chomp_ordinal_histogram``, ``chomp_classes``); two-player Chomp tables (``chomp_solve``,
``chomp_grundy``, ``chomp_cells``) and saved tables read without loading them
(``open_table``).

Bad input raises ValueError (OverflowError for integers beyond 2**64-1); a verification
that finds a disagreement raises ``chompute.CheckFailed``. Long computations release the
GIL and stop with KeyboardInterrupt on Ctrl-C.

>>> import chompute
>>> chompute.count(2**64 - 1)
113427455640312821154458202477256070485
"""

import os as _os
import tempfile as _tempfile

# Mesa's Vulkan drivers warn on every start when XDG_RUNTIME_DIR is unset (root shells, cron,
# CI); as the chompute command does, give them a private 0700 directory when there is none.
if "XDG_RUNTIME_DIR" not in _os.environ and hasattr(_os, "getuid"):
    _runtime = _os.path.join(_tempfile.gettempdir(), f"chompute-runtime-{_os.getuid()}")
    try:
        _os.makedirs(_runtime, mode=0o700, exist_ok=True)
        if _os.stat(_runtime).st_uid == _os.getuid():
            _os.chmod(_runtime, 0o700)
            _os.environ["XDG_RUNTIME_DIR"] = _runtime
    except OSError:
        pass

from ._native import (
    CheckFailed,
    ChompGrundy,
    ChompGrundyFile,
    ChompOrdFile,
    ChompCellsFile,
    ChompOrdinals,
    ChompTable,
    ChompTableFile,
    __version__,
    automaton,
    cb_grundy,
    chomp_cells,
    chomp_classes,
    chomp_grundy,
    chomp_ordinal_histogram,
    chomp_ordinals,
    chomp_solve,
    count,
    gp_table,
    nimpass_p_positions,
    open_table,
    p_grid,
    render,
    theorems,
)

__all__ = [
    "CheckFailed",
    "ChompGrundy",
    "ChompGrundyFile",
    "ChompOrdFile",
    "ChompCellsFile",
    "ChompOrdinals",
    "ChompTable",
    "ChompTableFile",
    "__version__",
    "automaton",
    "cb_grundy",
    "chomp_cells",
    "chomp_classes",
    "chomp_grundy",
    "chomp_ordinal_histogram",
    "chomp_ordinals",
    "chomp_solve",
    "count",
    "gp_table",
    "nimpass_p_positions",
    "open_table",
    "p_grid",
    "render",
    "theorems",
]
