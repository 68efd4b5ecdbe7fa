"""Two-player Chomp tables against slow references written here."""

import functools
import subprocess
from pathlib import Path

import numpy as np
import pytest

import chompute


def options(rows):
    """Every option of a position except the poison, by the definition of a bite."""
    out = []
    for x in range(len(rows)):
        for c in range(rows[x]):
            if x == 0 and c == 0:
                continue
            q = tuple(a if i < x else min(a, c) for i, a in enumerate(rows))
            out.append(tuple(a for a in q if a > 0))
    return out


def bites_by_cell(rows):
    """Every bite except the poison as {option: the cell (row, column) it takes, 1-based}."""
    out = {}
    for x in range(len(rows)):
        for c in range(rows[x]):
            if x == 0 and c == 0:
                continue
            q = tuple(a if i < x else min(a, c) for i, a in enumerate(rows))
            out[tuple(a for a in q if a > 0)] = (x + 1, c + 1)
    return out


@functools.lru_cache(maxsize=None)
def slow_is_p(rows):
    return all(not slow_is_p(q) for q in options(rows))


@functools.lru_cache(maxsize=None)
def slow_grundy(rows):
    seen = {slow_grundy(q) for q in options(rows)}
    return next(g for g in range(len(seen) + 1) if g not in seen)


def diagrams(rows, cols):
    """Every non-empty diagram of the box, lexicographic order."""
    def go(j, cap):
        if j == rows:
            yield ()
            return
        for a in range(cap + 1):
            for rest in go(j + 1, a):
                yield (a,) + rest
    for d in go(0, cols):
        d = tuple(a for a in d if a > 0)
        if d:
            yield d


def test_solve_matches_a_slow_reference_on_a_box_that_is_not_square():
    t = chompute.chomp_solve(5, 7)
    assert t.box == (5, 7)
    p = [d for d in diagrams(5, 7) if slow_is_p(d)]
    assert t.p_positions == len(p)
    assert t.positions == sum(1 for _ in diagrams(5, 7))
    for d in diagrams(5, 7):
        assert t.is_p(d) == slow_is_p(d), d
        want = sorted({q for q in options(d) if slow_is_p(q)})
        assert t.winning_bites(d) == want, d
        assert t.winning_cells(d) == [bites_by_cell(d)[q] for q in want], d


def test_the_table_is_a_read_only_view_of_the_bits():
    t = chompute.chomp_solve("12x11")
    assert t.layout == "colex-lattice-path"
    bits = np.unpackbits(t.table, bitorder="little")
    assert int(bits.sum()) == t.p_positions
    assert t.table.dtype == np.uint8 and not t.table.flags.writeable
    # The same memory every time: no copy.
    assert t.table.__array_interface__["data"][0] == t.table.__array_interface__["data"][0]
    # Rank 1 is the position (1) in the colex rank: the last row has length 1.
    assert bits[0] == 0 and bits[1] == 1 and t.index((1,)) == 1
    assert t.is_p("2,1") and not t.is_p((3, 3, 3))
    assert t.winning_bites((3, 3, 3)) == [(3, 1, 1)]


def transpose(d):
    return tuple(sum(1 for a in d if a > i) for i in range(d[0] if d else 0))


def test_a_square_keeps_one_bit_for_each_transposed_pair():
    t = chompute.chomp_solve("12x12")
    assert t.p_positions == 26838 and t.layout.startswith("transpose-hook ")
    assert t.table.size * 8 < (t.positions + 1) // 2 + 8 * 2**12
    bits = np.unpackbits(t.table, bitorder="little")
    square = chompute.chomp_solve(7, 7)
    s_bits = np.unpackbits(square.table, bitorder="little")
    for d in diagrams(7, 7):
        assert square.index(d) == square.index(transpose(d)), d
        assert bool(s_bits[square.index(d)]) == slow_is_p(d), d
    assert t.is_p("2,1") and not t.is_p((3, 3, 3)) and bits[t.index((2, 1))] == 1
    assert t.winning_bites((3, 3, 3)) == [(3, 1, 1)]


def test_grundy_matches_an_independent_mex():
    g = chompute.chomp_grundy(4, 6)
    for d in diagrams(4, 6):
        assert g.value(d) == slow_grundy(d), d
    assert g.histogram[0] == chompute.chomp_solve(4, 6).p_positions
    assert g.max_grundy == len(g.histogram) - 1
    rect = {(r["rows"], r["cols"]): r["grundy"] for r in g.rectangles()}
    assert rect[(1, 1)] == 0 and rect[(2, 3)] == slow_grundy((3, 3))
    assert g.sequence("square") == [rect[(n, n)] for n in range(1, 5)]
    assert g.sequence("three-rows") == [rect[(3, n)] for n in range(1, 7)]
    assert g.sequence("largest")[-1] == max(slow_grundy(d) for d in diagrams(4, 4))
    assert g.max_grundy == max(slow_grundy(d) for d in diagrams(4, 6))
    with pytest.raises(ValueError, match="square, two-rows, three-rows, largest"):
        g.sequence("squares")


def test_cells_counts_partitions_and_p_positions():
    rows = chompute.chomp_cells(12)
    assert [r["diagrams"] for r in rows] == [1, 2, 3, 5, 7, 11, 15, 22, 30, 42, 56, 77]
    for r in rows:
        n = r["n"]
        parts = [d for d in diagrams(n, n) if sum(d) == n]
        assert r["p_positions"] == sum(1 for d in parts if slow_is_p(d)), n


def test_bad_boxes_and_positions_raise_value_error():
    with pytest.raises(ValueError, match="2\\^42"):
        chompute.chomp_solve(40, 40)
    with pytest.raises(ValueError, match="2\\^38"):
        chompute.chomp_solve(30, 40)
    with pytest.raises(ValueError, match="2\\^42"):
        chompute.chomp_solve(23, 23)
    t = chompute.chomp_solve(3, 3)
    with pytest.raises(ValueError, match="does not fit"):
        t.is_p((4,))
    with pytest.raises(ValueError, match="empty"):
        t.is_p(())
    with pytest.raises(ValueError, match=r"^max_n must be from 1 to 400 \(got 0\)$"):
        chompute.chomp_cells(0)
    with pytest.raises(ValueError, match=r"^max_n must be from 1 to 400 \(got 401\)$"):
        chompute.chomp_cells(401)


def test_one_side_is_the_square_and_every_spelling_of_a_box_agrees():
    twelve = chompute.chomp_solve(12)
    assert twelve.box == (12, 12)
    assert twelve.p_positions == chompute.chomp_solve(12, 12).p_positions == 26838
    for spelling in ["5x7", (5, 7)]:
        assert chompute.chomp_solve(spelling).p_positions == chompute.chomp_solve(5, 7).p_positions
    g = chompute.chomp_grundy(5)
    assert g.histogram == chompute.chomp_grundy(5, 5).histogram
    assert chompute.chomp_grundy(np.int64(4)).histogram == chompute.chomp_grundy("4x4").histogram


def test_bad_sides_raise_the_promised_errors():
    with pytest.raises(ValueError, match="at least 1"):
        chompute.chomp_solve(0)
    with pytest.raises(ValueError, match="at least 1"):
        chompute.chomp_grundy(3, 0)
    with pytest.raises(TypeError, match="bool"):
        chompute.chomp_solve(True, True)
    with pytest.raises(TypeError, match="bool"):
        chompute.chomp_solve((True, 2))
    with pytest.raises(OverflowError):
        chompute.chomp_solve(2**64)
    with pytest.raises(OverflowError):
        chompute.chomp_solve(3, 2**64)
    with pytest.raises(TypeError):
        chompute.chomp_solve(2.5)


def diagrams_of(n, cap=None):
    """Every Young diagram of n cells, rows at most cap long, as a tuple of rows."""
    cap = n if cap is None else cap
    if n == 0:
        yield ()
        return
    for a in range(min(n, cap), 0, -1):
        for rest in diagrams_of(n - a, a):
            yield (a,) + rest


def test_progress_hears_the_positions_decided():
    heard = []
    t = chompute.chomp_solve(9, 9, progress=lambda done, total, phase: heard.append((done, total, phase)))
    assert heard and all(phase == "positions" for _, _, phase in heard)
    # Every bit of the table is decided by the end, the empty diagram's included; a square
    # keeps one for each pair of transposed positions.
    assert heard[-1][0] == heard[-1][1]
    assert (t.positions + 1) // 2 <= heard[-1][1] <= t.positions + 1
    assert [d for d, _, _ in heard] == sorted(d for d, _, _ in heard)
    # Counting cells reports diagrams decided (layers grow like the partition numbers).
    cells = []
    chompute.chomp_cells(10, progress=lambda done, total, phase: cells.append((done, total)))
    diagrams = sum(1 for n in range(1, 11) for d in diagrams_of(n))
    assert cells[-1] == (diagrams, diagrams) == (138, 138)


@pytest.mark.parametrize("shape", [(5, 7), (6, 6)])
def test_a_saved_table_answers_from_the_file_as_the_slow_reference(tmp_path, shape):
    path = tmp_path / "t.tbl"
    t = chompute.chomp_solve(*shape)
    t.save(path)
    f = chompute.open_table(path)
    assert isinstance(f, chompute.ChompTableFile)
    assert (f.box, f.positions, f.p_positions, f.layout) == (
        t.box, t.positions, t.p_positions, t.layout)
    f.verify()
    for d in diagrams(*shape):
        assert f.is_p(",".join(map(str, d))) == slow_is_p(d), d
        assert f.winning_bites(d) == sorted({q for q in options(d) if slow_is_p(q)}), d
    rect = f.rectangle_bites()
    assert len(rect) == shape[0] * shape[1]
    two_by_three = next(r for r in rect if (r["rows"], r["cols"]) == (2, 3))
    assert two_by_three["bites"] == f.winning_bites((3, 3))
    assert two_by_three["bite_cells"] == f.winning_cells((3, 3)) == [(2, 3)]
    for r in rect:
        whole = (r["cols"],) * r["rows"]
        assert r["bite_cells"] == [bites_by_cell(whole)[q] for q in r["bites"]], r
    assert len(f.rectangle_bites(2, 2)) == 4
    assert f.rectangle_bites(cols=2) == [r for r in rect if r["cols"] <= 2]
    # The corner as the CLI's `chomp bites --box` takes it: at least one row and column.
    with pytest.raises(ValueError, match="'0x2': a box needs at least one row and one column"):
        f.rectangle_bites(0, 2)
    with pytest.raises(ValueError, match=r"rows must be at least 1 \(got -1\)"):
        f.rectangle_bites(-1)
    with pytest.raises(ValueError, match="does not contain"):
        f.rectangle_bites(shape[0] + 1, 1)
    with pytest.raises(ValueError, match="does not fit"):
        f.is_p((shape[1] + 1,))


def test_a_saved_grundy_table_answers_its_values_and_moves(tmp_path):
    path = tmp_path / "g.tbl"
    chompute.chomp_grundy(4, 6).save(path)
    f = chompute.open_table(path)
    assert isinstance(f, chompute.ChompGrundyFile)
    f.verify()
    assert f.box == (4, 6)
    assert f.max_grundy == max(slow_grundy(d) for d in diagrams(4, 6))
    for d in diagrams(4, 6):
        g = f.value(d)
        assert g == slow_grundy(d), d
        moves = f.moves(d)
        assert len(moves) == g
        assert [slow_grundy(q) for q in moves] == list(range(g)), d
        assert all(q in options(d) for q in moves), d


def test_a_damaged_or_foreign_table_file_raises_and_never_answers(tmp_path):
    path = tmp_path / "t.tbl"
    chompute.chomp_solve(6, 6).save(path)
    data = bytearray(path.read_bytes())
    body = data.index(b"\n\n") + 2
    data[body + 3] ^= 0xFF  # a flipped byte of bits
    path.write_bytes(bytes(data))
    f = chompute.open_table(path)
    with pytest.raises(ValueError, match="damaged"):
        f.verify()
    with pytest.raises(ValueError, match="damaged"):
        for d in diagrams(6, 6):
            f.is_p(d)
    other = tmp_path / "h.tbl"
    chompute.chomp_solve(6, 9).save(other)
    edited = other.read_bytes().replace(b"box 6x9", b"box 9x6", 1)
    other.write_bytes(edited)
    with pytest.raises(ValueError):
        chompute.open_table(other)
    foreign = tmp_path / "x.tbl"
    foreign.write_bytes(b"not a table\n\n")
    with pytest.raises(ValueError, match="not a chompute table"):
        chompute.open_table(foreign)
    with pytest.raises(OSError):
        chompute.open_table(tmp_path / "missing.tbl")


LEGACY = Path(__file__).resolve().parents[2] / "tests" / "data" / "legacy-2f83573"


def test_open_table_opens_every_kind_including_files_of_the_previous_format():
    # One-bit and Grundy tables of the previous format still answer as fresh ones do.
    bits = chompute.open_table(LEGACY / "p-table-6x9.tbl")
    assert isinstance(bits, chompute.ChompTableFile)
    bits.verify()
    for d in diagrams(6, 9):
        assert bits.is_p(d) == slow_is_p(d), d
    grundy = chompute.open_table(LEGACY / "grundy-5x6.tbl")
    assert isinstance(grundy, chompute.ChompGrundyFile)
    for d in diagrams(5, 6):
        assert grundy.value(d) == slow_grundy(d), d
    # An ordinal table: every ordinal as the engine in memory gives it.
    ords = chompute.open_table(LEGACY / "ord-4x5.tbl")
    assert isinstance(ords, chompute.ChompOrdFile)
    ords.verify()
    assert (ords.box, ords.rule) == ((4, 5), "0,1,2")
    fresh = chompute.chomp_ordinals("0,1,2", (4, 5))
    for d in diagrams(4, 5):
        assert ords.ordinal(d) == fresh.ordinal(d), d
    assert sum(ords.histogram) == len(list(diagrams(4, 5))) + 1
    # A cells table: P or N of every diagram of up to 14 cells, by the slow rule.
    cells = chompute.open_table(LEGACY / "cells-14.tbl")
    assert isinstance(cells, chompute.ChompCellsFile)
    cells.verify()
    assert cells.max_cells == 14
    for d in diagrams(5, 5):
        if 0 < sum(d) <= 14:
            assert cells.is_p(d) == slow_is_p(d), d
    for row in chompute.chomp_cells(14):
        assert cells.p_positions(row["n"]) == row["p_positions"]
    for bad in (15, 0, -1, 2**64 - 1):
        with pytest.raises(ValueError, match=rf"n must be from 1 to 14 \(got {bad}\)"):
            cells.p_positions(bad)
    with pytest.raises(OverflowError):
        cells.p_positions(2**64)


ROOT = Path(__file__).resolve().parents[2]


def cli(*args):
    """The chompute command line built beside this package (target/release), run to the end."""
    exe = ROOT / "target" / "release" / "chompute"
    if not exe.exists():
        pytest.skip(f"the command line is not built at {exe}: cargo build --release")
    subprocess.run([str(exe), *map(str, args)], check=True, capture_output=True)


@pytest.mark.parametrize(
    "rule, shape", [("0,2,1", (5, 5)), ("10,20,30", (3, 7)), ("3,1,4,2", (4, 6))])
def test_saved_ordinals_are_the_command_lines_file_byte_for_byte(tmp_path, rule, shape):
    # A square (one entry a transposed pair), a box of 3 rows (the three-row engine's bytes,
    # packed when saved) and an oblong box (every position by rank).
    ours, theirs = tmp_path / "py.ord", tmp_path / "cli.ord"
    t = chompute.chomp_ordinals(rule, shape)
    t.save(ours)
    cli("chomp", "ord", "--rule", rule, "--box", f"{shape[0]}x{shape[1]}", "-o", theirs)
    assert ours.read_bytes() == theirs.read_bytes()
    f = chompute.open_table(ours)
    assert isinstance(f, chompute.ChompOrdFile)
    f.verify()
    for d in diagrams(*shape):
        assert f.ordinal(d) == t.ordinal(d), d


def test_a_saved_cells_table_is_the_command_lines_file_and_answers_its_bites(tmp_path):
    ours, theirs = tmp_path / "py.cells", tmp_path / "cli.cells"
    rows = chompute.chomp_cells(12, path=ours)
    assert rows == chompute.chomp_cells(12)
    cli("chomp", "cells", "--max", 12, "-o", theirs)
    assert ours.read_bytes() == theirs.read_bytes()
    f = chompute.open_table(ours)
    assert isinstance(f, chompute.ChompCellsFile)
    f.verify()
    checked = 0
    for d in diagrams(6, 6):
        if not 0 < sum(d) <= 12:
            continue
        want = sorted({q for q in options(d) if slow_is_p(q)})
        assert f.winning_bites(d) == want, d
        assert all(isinstance(b, tuple) for b in f.winning_bites(d))
        assert f.winning_cells(d) == [bites_by_cell(d)[q] for q in want], d
        checked += 1
    assert checked > 100
    with pytest.raises(ValueError, match="more than the file's 12"):
        f.winning_bites((13,))
