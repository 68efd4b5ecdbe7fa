"""chompute: the mathematics of chocolate games, on the chompute engine.

Exact counts of the P-positions of the chocolate bar C(m,n) as Python ints (``count``),
P-grids and automaton generations as NumPy bool arrays (``p_grid``, ``automaton``),
pictures (``render``) and the paper's claims (``theorems``); games with a pass
(``gp_table``, ``cb_grundy``, ``nimpass_p_positions``); multiplayer Chomp
(``chomp_ordinals``, ``chomp_classes``).

Bad input raises ValueError (OverflowError for integers beyond 2**64-1); a verification
that finds a disagreement raises ``chompute.CheckFailed``. Long computations release the
GIL and stop with KeyboardInterrupt on Ctrl-C.

>>> import chompute
>>> chompute.count(2**64 - 1)
113427455640312821154458202477256070485
"""

from ._native import (
    CheckFailed,
    ChompOrdinals,
    __version__,
    automaton,
    cb_grundy,
    chomp_classes,
    chomp_ordinals,
    count,
    gp_table,
    nimpass_p_positions,
    p_grid,
    render,
    theorems,
)

__all__ = [
    "CheckFailed",
    "ChompOrdinals",
    "__version__",
    "automaton",
    "cb_grundy",
    "chomp_classes",
    "chomp_ordinals",
    "count",
    "gp_table",
    "nimpass_p_positions",
    "p_grid",
    "render",
    "theorems",
]
