"""Type stubs of chompute, the Python module of the chompute engine."""

import numbers
from decimal import Decimal
from os import PathLike
from typing import Any, Callable, Literal, Optional, Protocol, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Window = Tuple[int, int, int, int]
"""(row, col, height, width), 1-based: rows row..row+height-1, columns col..col+width-1."""

_Backend = Literal["auto", "cpu", "gpu"]
_Position = Union[str, Sequence[int]]
"""A Chomp position: non-increasing row lengths, "4,3,1" or (4, 3, 1); () or "0" is empty."""
_Box = Union[str, Tuple[int, int]]
"""A box of Chomp positions: "3x4" or (rows, columns)."""

class _Bar(Protocol):
    total: Any
    def update(self, n: int) -> Any: ...

_Progress = Union[Callable[[int, Optional[int], str], Any], _Bar]
"""progress(done, total, phase), or a bar with update(n) and total such as tqdm's."""

class CheckFailed(Exception):
    """A verification ran and found a disagreement; the message names the first one."""

def count(
    m: int,
    n: Optional[int] = None,
    *,
    window: Optional[_Window] = None,
    method: Literal["auto", "recurrence", "histogram", "digits", "cpu", "gpu", "all"] = "auto",
) -> int:
    """The exact number of P-positions of C(m, n), or of its part inside `window`."""

def p_grid(
    m: int,
    n: Optional[int] = None,
    *,
    window: Optional[_Window] = None,
    backend: _Backend = "auto",
) -> npt.NDArray[np.bool_]:
    """The P-grid of C(m, n) (or of `window`) as a bool array, True at P-positions."""

def automaton(steps: int, *, backend: _Backend = "auto") -> npt.NDArray[np.bool_]:
    """Generation `steps` of the second-order automaton, shape (steps+1, steps+1)."""

def gp_table(n: int, *, progress: Optional[_Progress] = None) -> npt.NDArray[np.unsignedinteger]:
    """G_P(x, y) of two-heap Nim with a pass for 0 <= x, y < n (uint8, uint16 or uint32)."""

def cb_grundy(
    f: str,
    x_max: int,
    z_max: int,
    *,
    pass_: bool = False,
    progress: Optional[_Progress] = None,
) -> Union[dict[Tuple[int, int, int], int], dict[Tuple[int, int, int, int], int]]:
    """Grundy numbers of CB(F, x, y, z): {(x, y, z): g}, or {(x, y, z, p): g} with a pass."""

def nimpass_p_positions(
    heaps: int, max: int, *, backend: _Backend = "auto", progress: Optional[_Progress] = None
) -> npt.NDArray[np.uint16]:
    """P-positions with the pass available of Nim on 2..4 heaps of sizes 0..=max, shape (k, heaps)."""

class ChompOrdinals:
    """The ordinal of every position of a box under one rule (see chomp_ordinals)."""

    @property
    def histogram(self) -> list[int]:
        """How many positions have each ordinal 0..n."""
    @property
    def rule(self) -> Tuple[int, ...]:
        """The normalised rule, a permutation of 0..n-1."""
    @property
    def players(self) -> int:
        """Number of players n."""
    @property
    def box(self) -> Tuple[int, int]:
        """The box as (rows, columns)."""
    def ordinal(self, position: _Position) -> int:
        """The ordinal of a position of the box."""
    def sol(self, position: _Position) -> list[Tuple[int, ...]]:
        """Sol_f P: the options Q with ord(Q) + 1 = ord(P), or [()] when ord(P) = 1."""
    def chain(self, position: _Position) -> list[Tuple[int, ...]]:
        """One solution chain from the position down to the empty position."""
    def positions(self, ordinal: int) -> list[Tuple[int, ...]]:
        """Every position of the box with this ordinal, in lexicographic order."""
    def save(self, path: Union[str, PathLike[str]]) -> None:
        """Write the table as `chompute chomp ord --rule F --box RxC -o` does (byte for byte), for open_table."""
    def __len__(self) -> int: ...

def chomp_ordinals(
    rule: Union[str, Sequence[Union[numbers.Real, Decimal, str]]],
    box: _Box,
    *,
    progress: Optional[_Progress] = None,
) -> ChompOrdinals:
    """Multiplayer Chomp under `rule`: the ordinal of every position inside `box`."""

def chomp_ordinal_histogram(
    rule: Union[str, Sequence[Union[numbers.Real, Decimal, str]]],
    box: _Box,
    *,
    progress: Optional[_Progress] = None,
) -> list[int]:
    """How many positions of `box` have each ordinal 0..n under `rule` (3 rows: no table)."""

class ChompTable:
    """P or N for every position of a box of two-player Chomp (see chomp_solve)."""

    @property
    def box(self) -> Tuple[int, int]:
        """The box as (rows, columns)."""
    @property
    def positions(self) -> int:
        """Number of positions: the non-empty diagrams of the box."""
    @property
    def p_positions(self) -> int:
        """Number of P-positions."""
    @property
    def layout(self) -> str:
        """"colex-lattice-path", or "transpose-hook N" for a square (one bit per transposed pair)."""
    @property
    def table(self) -> npt.NDArray[np.uint8]:
        """The packed table, read-only, no copy: bit i (little-endian in each byte) is 1 iff the position of index i is P."""
    def index(self, position: _Position) -> int:
        """The bit of a position in `table` (a square's transposed pair shares one)."""
    def is_p(self, position: _Position) -> bool:
        """Whether a position of the box is P."""
    def winning_bites(self, position: _Position) -> list[Tuple[int, ...]]:
        """The P options of a position, sorted; empty for a P-position."""
    def winning_cells(self, position: _Position) -> list[Tuple[int, int]]:
        """The cell (row, column), 1-based from the poisoned corner, each winning bite takes, in the order of winning_bites."""
    def save(self, path: Union[str, PathLike[str]]) -> None:
        """Write the table as `chompute chomp solve -o` does (byte for byte), for open_table."""

def chomp_solve(
    rows: Union[int, str], cols: Optional[int] = None, *, progress: Optional[_Progress] = None
) -> ChompTable:
    """Two-player Chomp: P or N for every position of the rows x cols box, at one bit each (one per transposed pair for a square)."""

class ChompGrundy:
    """The Grundy value of every position of a box of two-player Chomp (see chomp_grundy)."""

    @property
    def box(self) -> Tuple[int, int]:
        """The box as (rows, columns)."""
    @property
    def histogram(self) -> list[int]:
        """How many positions have each Grundy value 0, 1, ..., the largest."""
    @property
    def max_grundy(self) -> int:
        """The largest Grundy value in the box."""
    def value(self, position: _Position) -> int:
        """The Grundy value of a position of the box."""
    def rectangles(self) -> list[dict[str, int]]:
        """Every rectangle as {"rows", "cols", "grundy"}, rows first."""
    def sequence(self, name: str) -> list[int]:
        """Terms n = 1, 2, ... of "square", "two-rows", "three-rows" or "largest"."""
    def save(self, path: Union[str, PathLike[str]]) -> None:
        """Write the table as `chompute chomp grundy -o` does (byte for byte), for open_table."""

def chomp_grundy(
    rows: Union[int, str], cols: Optional[int] = None, *, progress: Optional[_Progress] = None
) -> ChompGrundy:
    """The Grundy value (mex over all options) of every position of the rows x cols box."""

class ChompTableFile:
    """A saved two-player table (`chomp solve -o`), read a checked chunk at a time (see open_table)."""

    @property
    def box(self) -> Tuple[int, int]:
        """The box as (rows, columns)."""
    @property
    def positions(self) -> int:
        """Number of positions: the non-empty diagrams of the box."""
    @property
    def p_positions(self) -> int:
        """Number of P-positions, as the header says."""
    @property
    def layout(self) -> str:
        """"colex-lattice-path", or "transpose-hook N" for a square."""
    def is_p(self, position: _Position) -> bool:
        """Whether a position of the box is P."""
    def winning_bites(self, position: _Position) -> list[Tuple[int, ...]]:
        """The P options of a position, sorted; empty for a P-position."""
    def winning_cells(self, position: _Position) -> list[Tuple[int, int]]:
        """The cell (row, column), 1-based from the poisoned corner, each winning bite takes, in the order of winning_bites."""
    def rectangle_bites(
        self, rows: Optional[int] = None, cols: Optional[int] = None
    ) -> list[dict[str, Any]]:
        """Every rectangle (of the rows x cols corner) as {"rows", "cols", "bites", "bite_cells"}, rows first; bites and cells are tuples. ValueError for a corner that is empty or reaches outside the box."""
    def verify(self) -> None:
        """Check every chunk's CRC-32 and recount the P-positions; raises on damage."""

class ChompGrundyFile:
    """A saved Grundy table (`chomp grundy -o`), read a checked chunk at a time (see open_table)."""

    @property
    def box(self) -> Tuple[int, int]:
        """The box as (rows, columns)."""
    @property
    def max_grundy(self) -> int:
        """The largest Grundy value in the box, as the header says."""
    def value(self, position: _Position) -> int:
        """The Grundy value of a position of the box."""
    def moves(self, position: _Position) -> list[Tuple[int, ...]]:
        """For each value g below the position's, a move to a position of value g (at index g)."""
    def verify(self) -> None:
        """Check every chunk's CRC-32 and the largest value; raises on damage."""

class ChompOrdFile:
    """A saved ordinal table (`chomp ord -o`), read a checked chunk at a time (see open_table)."""

    @property
    def box(self) -> Tuple[int, int]:
        """The box as (rows, columns)."""
    @property
    def rule(self) -> str:
        """The rule, normalised ("0,1,2")."""
    @property
    def histogram(self) -> list[int]:
        """Positions of each ordinal 0..=n, as the header says."""
    def ordinal(self, position: _Position) -> int:
        """The ordinal of a position of the box."""
    def verify(self) -> None:
        """Check every chunk's CRC-32 and recount the histogram; raises on damage."""

class ChompCellsFile:
    """A saved cells table (`chomp cells -o`), read a checked chunk at a time (see open_table)."""

    @property
    def max_cells(self) -> int:
        """N, the most cells of a diagram in the file."""
    def p_positions(self, n: int) -> int:
        """The P-positions among the diagrams of n cells; ValueError unless 1 <= n <= max_cells."""
    def is_p(self, position: _Position) -> bool:
        """Whether a diagram of at most max_cells cells is a P-position."""
    def winning_bites(self, position: _Position) -> list[Tuple[int, ...]]:
        """The P options of a diagram, sorted; empty for a P-position (as `chomp query`)."""
    def winning_cells(self, position: _Position) -> list[Tuple[int, int]]:
        """The cell (row, column), 1-based from the poisoned corner, each winning bite takes, in the order of winning_bites."""
    def verify(self) -> None:
        """Check every chunk's CRC-32 and recount every n; raises on damage."""

def open_table(
    path: Union[str, PathLike[str]],
) -> Union[ChompTableFile, ChompGrundyFile, ChompOrdFile, ChompCellsFile]:
    """Open a saved Chomp table of any kind without loading it; a damaged or foreign file raises ValueError."""

def chomp_cells(
    max_n: int,
    *,
    path: Optional[Union[str, PathLike[str]]] = None,
    progress: Optional[_Progress] = None,
) -> list[dict[str, int]]:
    """For n = 1..max_n: {"n", "diagrams", "p_positions"} of the Young diagrams of n cells; with path, also saved there as `chompute chomp cells --max N -o` saves it (byte for byte)."""

def chomp_classes(
    players: int, box: _Box, *, progress: Optional[_Progress] = None
) -> list[list[Tuple[int, ...]]]:
    """All normalised rules for `players` players grouped into isomorphism classes on `box`."""

def theorems(
    max_m: int,
    *,
    claims: Optional[Sequence[str]] = None,
    progress: Optional[_Progress] = None,
) -> list[dict[str, Union[str, int, bool, float, None]]]:
    """Every claim of the chocolate paper checked for m <= max_m, or the ones named in
    `claims` (in the table's order), one dict per claim, with the keys of `theorems --json`:
    name, statement, kind, range, checked, pass, counterexample, seconds."""

def render(
    path: Union[str, PathLike[str]],
    m: int,
    n: Optional[int] = None,
    *,
    window: Optional[_Window] = None,
    fit: Optional[int] = None,
    scale: Optional[int] = None,
    shade: Optional[Literal["linear", "sqrt", "log"]] = None,
    colors: Optional[Union[str, Tuple[str, str]]] = None,
    compression: Literal["fast", "balanced", "best"] = "balanced",
    verify: bool = False,
    backend: _Backend = "auto",
    progress: Optional[_Progress] = None,
) -> dict[str, object]:
    """Write the P-grid of C(m, n) (or of `window`) as a PNG, as `chompute render` does."""
