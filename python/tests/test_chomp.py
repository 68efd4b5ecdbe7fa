"""Multiplayer Chomp: ordinals, Sol and classes against Fact 2.10 applied by recursion."""

import functools
import itertools
from fractions import Fraction
import numpy

import pytest

import chompute


def box_positions(rows, cols):
    """Every position (non-increasing row lengths, trailing zeros dropped) of the box."""
    out = []
    for lengths in itertools.product(range(cols + 1), repeat=rows):
        if all(a >= b for a, b in zip(lengths, lengths[1:])):
            out.append(tuple(a for a in lengths if a > 0))
    return sorted(set(out))


def options(p):
    """Biting cell (row x, column t+1) cuts rows x, x+1, ... to length at most t
    (docs/mathematics.md §5)."""
    out = []
    for x, a in enumerate(p):
        for t in range(a):
            q = tuple(min(r, t) if i >= x else r for i, r in enumerate(p))
            out.append(tuple(r for r in q if r > 0))
    return out


def ordinals_by_fact_2_10(alphas):
    """ord(0) = 0; K(P) = {ord(Q)+1 : Q an option, ord(Q) != n}; ord(P) = the k in K(P)
    with the largest α_k (α_1 to the last biter)."""
    n = len(alphas)

    @functools.lru_cache(maxsize=None)
    def ordinal(p):
        if not p:
            return 0
        k_set = {ordinal(q) + 1 for q in options(p) if ordinal(q) != n}
        return max(k_set, key=lambda k: alphas[k - 1])

    return ordinal


RULES = [("0,1", (0, 1)), ("10,20,30", (10, 20, 30)), ("5,-1.5,3", (5, Fraction(-3, 2), 3)), ("2,0,3,1", (2, 0, 3, 1))]


@pytest.mark.parametrize("rule,alphas", RULES)
@pytest.mark.parametrize("rows,cols", [(3, 4), (4, 5), (2, 9)])
def test_ordinals_equal_fact_2_10(rule, alphas, rows, cols):
    table = chompute.chomp_ordinals(rule, f"{rows}x{cols}")
    ordinal = ordinals_by_fact_2_10(alphas)
    positions = box_positions(rows, cols)
    assert len(table) == len(positions)
    assert table.box == (rows, cols) and table.players == len(alphas)
    assert table.rule == tuple(sorted(alphas).index(a) for a in alphas)
    histogram = [0] * (len(alphas) + 1)
    for p in positions:
        o = ordinal(p)
        histogram[o] += 1
        assert table.ordinal(p) == o, p
        want_sol = [()] if o == 1 else sorted({q for q in options(p) if ordinal(q) + 1 == o})
        assert table.sol(p) == want_sol, p
        chain = table.chain(p)
        assert chain[0] == p and chain[-1] == () and len(chain) == o + 1
    assert table.histogram == histogram
    assert chompute.chomp_ordinal_histogram(rule, (rows, cols)) == histogram
    for k in range(len(alphas) + 1):
        assert table.positions(k) == [p for p in positions if ordinal(p) == k]


def test_two_players_is_ordinary_chomp():
    table = chompute.chomp_ordinals([0, 1], (3, 10))
    # ord 1 = the P-positions of ordinary Chomp, lost for the player to move.
    @functools.lru_cache(maxsize=None)
    def chomp_loses(p):
        # Whoever eats the last piece of chocolate loses: (1) is lost for the mover; P loses
        # iff every bite that leaves something leads to a winning position for the other.
        if p == (1,):
            return True
        return all(not chomp_loses(q) for q in options(p) if q != ())

    assert table.positions(1) == [p for p in box_positions(3, 10) if p and chomp_loses(p)]
    assert table.positions(1)[:4] == [(1,), (2, 1), (2, 2, 1), (3, 1, 1)]


def test_the_readmes_worked_example():
    table = chompute.chomp_ordinals("10,20,30", "3x4")
    assert (table.histogram, table.ordinal("4,3,1"), table.sol([4, 3, 1])) == ([1, 2, 5, 27], 3, [(4, 1, 1)])
    assert table.chain((4, 3, 1)) == [(4, 3, 1), (4, 1, 1), (3, 1, 1), ()]


@pytest.mark.parametrize("players,rows,cols", [(3, 4, 4), (4, 3, 3), (3, 2, 7)])
def test_classes_group_rules_with_equal_ordinals(players, rows, cols):
    positions = box_positions(rows, cols)
    by_table = {}
    for perm in itertools.permutations(range(players)):
        ordinal = ordinals_by_fact_2_10(perm)
        by_table.setdefault(tuple(ordinal(p) for p in positions), []).append(perm)
    expect = sorted(sorted(members) for members in by_table.values())
    got = chompute.chomp_classes(players, (rows, cols))
    assert got == expect


def test_class_counts_of_the_readme():
    assert [len(chompute.chomp_classes(n, "6x6")) for n in (3, 4, 5)] == [4, 7, 13]


def test_bad_input():
    with pytest.raises(ValueError, match="are equal"):
        chompute.chomp_ordinals("1,1", "3x3")
    with pytest.raises(ValueError, match="at least 2 players"):
        chompute.chomp_ordinals("1", "3x3")
    with pytest.raises(ValueError, match="not a number"):
        chompute.chomp_ordinals("1,x", "3x3")
    with pytest.raises(ValueError, match="not a box"):
        chompute.chomp_ordinals("0,1", "3by4")
    with pytest.raises(ValueError, match="box rows must be at least 1"):
        chompute.chomp_ordinals("0,1", (-1, 4))
    table = chompute.chomp_ordinals("0,1,2", "3x4")
    with pytest.raises(ValueError, match="does not fit"):
        table.ordinal((5, 1))
    with pytest.raises(ValueError, match="must not increase"):
        table.ordinal((1, 2))
    with pytest.raises(ValueError, match="must not increase"):
        table.sol("1,2")
    with pytest.raises(ValueError, match="ordinal must be between 0 and 3"):
        table.positions(4)
    # A row length that is not an integer from 0 to 2^32-1 is named, as the CLI names it.
    with pytest.raises(ValueError, match=r"^row length -1 is negative"):
        table.ordinal((2, -1))
    with pytest.raises(ValueError, match=r"^row length '1180591620717411303424' is too large"):
        table.ordinal([2**70])
    for other in (None, 5, [1.5], [True]):
        with pytest.raises(ValueError, match="a position is a string such as"):
            table.ordinal(other)
    assert table.ordinal([numpy.int64(2), numpy.uint8(1)]) == table.ordinal("2,1")
    with pytest.raises(ValueError, match="players must be between 2 and 8"):
        chompute.chomp_classes(9, "3x3")
    with pytest.raises(ValueError, match="2\\^24 positions"):
        chompute.chomp_classes(3, "13x14")


def test_rules_of_every_kind_of_number():
    from decimal import Decimal

    import numpy as np

    def perm(rule):
        return chompute.chomp_ordinals(rule, "3x4").rule

    assert perm(["10", "20", "30"]) == perm("10,20,30") == perm((10, 20, 30)) == (0, 1, 2)
    assert chompute.chomp_ordinals(["10", "20", "30"], "3x4").histogram == [1, 2, 5, 27]
    assert perm(np.array([0, 2, 1])) == perm([np.int64(0), np.int32(2), np.uint8(1)]) == (0, 2, 1)
    assert perm(np.array([0.5, -1.5, 3.0])) == perm([np.float64(0.5), -1.5, 3]) == (1, 0, 2)
    assert perm([Decimal("1.5"), Decimal("-2"), Decimal("3E+1")]) == perm("1.5,-2,30") == (1, 0, 2)
    assert perm([Fraction(1, 4), Fraction(-3, 8), 1]) == perm("0.25,-0.375,1") == (1, 0, 2)
    # Decimals are compared exactly, not as floats.
    assert perm([Decimal("0.1000000000000000000001"), Decimal("0.1")]) == (1, 0)
    with pytest.raises(ValueError, match="are equal"):
        chompute.chomp_ordinals([Decimal("0.10"), "0.1"], "3x3")


def test_numbers_that_are_not_rule_entries_are_named_cleanly():
    from decimal import Decimal

    with pytest.raises(ValueError, match=r"^rule entry 1/3 has no finite decimal expansion"):
        chompute.chomp_ordinals([Fraction(1, 3), 1], "3x3")
    with pytest.raises(ValueError, match=r"^rule entry Decimal\('NaN'\) is not a number"):
        chompute.chomp_ordinals([Decimal("NaN"), 1], "3x3")
    with pytest.raises(ValueError, match=r"^rule entry inf is not a number"):
        chompute.chomp_ordinals([float("inf"), 1], "3x3")
    with pytest.raises(ValueError, match=r"^rule entry None is not a number"):
        chompute.chomp_ordinals([None, 1], "3x3")
    with pytest.raises(ValueError, match=r"^rule entry True is not a number"):
        chompute.chomp_ordinals([True, 0], "3x3")
    with pytest.raises(ValueError, match=r"^rule entry 'x' is not a number"):
        chompute.chomp_ordinals(["x", "1"], "3x3")
