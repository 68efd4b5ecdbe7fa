"""Games with a pass: G_P by mex over its definition, CB(F) by the moves of Def 7 and the pass
of Def 10, Nim with a pass by recursion over wins and losses."""

import functools
import itertools

import numpy as np
import pytest

import chompute
from conftest import mex


def gp_by_definition(n):
    """Def 12: G_P(0,0) = 0, else mex({G_P(x',y): x' < x} ∪ {G_P(x,y'): y' < y} ∪ {x^y})."""
    g = [[0] * n for _ in range(n)]
    for x in range(n):
        for y in range(n):
            if (x, y) != (0, 0):
                g[x][y] = mex([g[u][y] for u in range(x)] + [g[x][v] for v in range(y)] + [x ^ y])
    return np.array(g)


def test_gp_equals_the_definition():
    for n in [1, 2, 13, 37, 100]:
        table = chompute.gp_table(n)
        assert table.shape == (n, n)
        np.testing.assert_array_equal(table, gp_by_definition(n))


def test_gp_is_the_papers_table_2_and_lemma_6():
    table = chompute.gp_table(300)
    assert table.dtype == np.uint16  # 2*300-1 does not fit a byte
    assert chompute.gp_table(13).dtype == np.uint8
    assert table[:2, :13].tolist() == [
        [0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11],
        [2, 1, 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    ]
    # Lemma 6: G_P = 0 iff (x,y) = (0,0), (2n,2n-1) or (2n-1,2n).
    zeros = {(int(x), int(y)) for x, y in zip(*np.nonzero(table == 0))}
    lemma = {(0, 0)} | {(2 * k, 2 * k - 1) for k in range(1, 150)} | {(2 * k - 1, 2 * k) for k in range(1, 150)}
    assert zeros == lemma


def test_gp_bad_input():
    with pytest.raises(ValueError, match="between 1 and 32768"):
        chompute.gp_table(0)
    with pytest.raises(ValueError, match=r"^n must be between 1 and 32768 \(got 32769\)$"):
        chompute.gp_table(32769)
    with pytest.raises(ValueError, match="n must be"):
        chompute.gp_table(-5)


def cb_by_definition(f, x_max, z_max, with_pass):
    """Def 7's moves from (x,y,z): (u, min(F(u,z),y), z) for u < x; (x, v, z) for v < y;
    (x, min(y,F(x,w)), w) for w < z. Def 10's pass: from (x,y,z,1) to (x,y,z,0), never from
    the terminal (0,0,0)."""

    def options(x, y, z):
        yield from ((u, min(f(u, z), y), z) for u in range(x))
        yield from ((x, v, z) for v in range(y))
        yield from ((x, min(y, f(x, w)), w) for w in range(z))

    @functools.lru_cache(maxsize=None)
    def g(x, y, z, p):
        values = [g(*q, p) for q in options(x, y, z)]
        if p == 1 and (x, y, z) != (0, 0, 0):
            values.append(g(x, y, z, 0))
        return mex(values)

    out = {}
    for x in range(x_max + 1):
        for z in range(z_max + 1):
            for y in range(f(x, z) + 1):
                if with_pass:
                    out[(x, y, z, 0)] = g(x, y, z, 0)
                    out[(x, y, z, 1)] = g(x, y, z, 1)
                else:
                    out[(x, y, z)] = g(x, y, z, 0)
    return out


CB_CASES = [
    ("floor(z/2)", lambda x, z: z // 2),
    ("floor((x+z)/3)", lambda x, z: (x + z) // 3),
    ("min(x, z) + 1", lambda x, z: min(x, z) + 1),
    ("pow2(log2(max(z,1)))-1", lambda x, z: 2 ** (max(z, 1).bit_length() - 1) - 1),
]


@pytest.mark.parametrize("expr,f", CB_CASES)
def test_cb_equals_the_moves(expr, f):
    assert chompute.cb_grundy(expr, 7, 9) == cb_by_definition(f, 7, 9, False)


@pytest.mark.parametrize("expr,f", [CB_CASES[0], CB_CASES[3], ("floor(z/4)", lambda x, z: z // 4)])
def test_cb_with_a_pass_equals_the_moves(expr, f):
    got = chompute.cb_grundy(expr, 6, 11, pass_=True)
    assert got == cb_by_definition(f, 6, 11, True)
    # Theorem 4 in passing: G(x,y,z,1) = G_P(x, y^z).
    gp = chompute.gp_table(32)
    assert all(g == gp[x, y ^ z] for (x, y, z, p), g in got.items() if p == 1)


def test_cb_bad_input():
    with pytest.raises(ValueError, match="column 3"):
        chompute.cb_grundy("z+", 3, 3)
    with pytest.raises(ValueError, match="division by zero"):
        chompute.cb_grundy("x / (z - 2)", 3, 3)
    with pytest.raises(ValueError, match="pass_"):
        chompute.cb_grundy("floor((x+z)/3)", 3, 3, pass_=True)
    with pytest.raises(ValueError, match="too large|more than 2\\^25"):
        chompute.cb_grundy("z", 10000, 10000)
    with pytest.raises(ValueError, match="x_max must be at least 0"):
        chompute.cb_grundy("z", -1, 3)


@functools.lru_cache(maxsize=None)
def nim_pass_is_p(heaps, pass_left):
    """(heaps, p) is P iff every move leads to an N-position: the reductions of one heap
    (keeping p) and, while p = 1 and the position is not terminal, the pass to (heaps, 0)."""
    moves = [heaps[:i] + (v,) + heaps[i + 1 :] for i, a in enumerate(heaps) for v in range(a)]
    following = [(q, pass_left) for q in moves]
    if pass_left and any(heaps):
        following.append((heaps, False))
    return not any(nim_pass_is_p(*q) for q in following)


@pytest.mark.parametrize("k,top", [(2, 21), (3, 10), (4, 6)])
def test_nimpass_equals_the_recursion(k, top):
    got = chompute.nimpass_p_positions(k, top, backend="cpu")
    expect = [h for h in itertools.product(range(top + 1), repeat=k) if nim_pass_is_p(h, True)]
    assert got.shape == (len(expect), k) and got.dtype == np.uint16
    assert [tuple(r) for r in got.tolist()] == expect


def test_nimpass_two_heaps_are_the_zeros_of_gp():
    got = {tuple(r) for r in chompute.nimpass_p_positions(2, 99).tolist()}
    gp = chompute.gp_table(100)
    assert got == {(int(x), int(y)) for x, y in zip(*np.nonzero(gp == 0))}


def test_nimpass_gpu_equals_cpu(gpu):
    np.testing.assert_array_equal(
        chompute.nimpass_p_positions(4, 37, backend="gpu"), chompute.nimpass_p_positions(4, 37, backend="cpu")
    )


def test_nimpass_bad_input():
    with pytest.raises(ValueError, match="heaps must be 2, 3 or 4"):
        chompute.nimpass_p_positions(5, 3)
    with pytest.raises(ValueError, match="heaps must be 2, 3 or 4"):
        chompute.nimpass_p_positions(1, 3)
    with pytest.raises(ValueError, match="four heaps only"):
        chompute.nimpass_p_positions(3, 3, backend="gpu")
    with pytest.raises(ValueError, match="MiB"):
        chompute.nimpass_p_positions(4, 60000)
    with pytest.raises(ValueError, match="max must be at least 0"):
        chompute.nimpass_p_positions(2, -1)
    # Past the u16 values' bound, in the keyword's name (the command line says --max).
    with pytest.raises(ValueError, match=r"^max must be at most 65533 \(got 65534\)$"):
        chompute.nimpass_p_positions(2, 65534)
    with pytest.raises(ValueError, match=r"^max must be at most 65533 \(got 18446744073709551615\)$"):
        chompute.nimpass_p_positions(2, 2**64 - 1)


def test_the_gpu_refusal_is_the_command_lines_in_python_words():
    # `chompute --backend gpu nimpass --heaps 3` says "use --backend cpu or auto for 3 heaps".
    with pytest.raises(ValueError, match="^the GPU computes four heaps only; use backend cpu or auto for 3 heaps$"):
        chompute.nimpass_p_positions(3, 5, backend="gpu")


def test_cb_refusals_are_the_command_lines_in_python_words():
    # `chompute cb --f z --pass` says "--pass: h(1) = 1 is not below 1; ..." and a bad
    # expression "--f: ...".
    with pytest.raises(ValueError, match=r"^pass_: h\(1\) = 1 is not below 1; Def 9 needs h\(z\) < z"):
        chompute.cb_grundy("z", 3, 3, pass_=True)
    with pytest.raises(ValueError, match=r"^f: end of expression at column 10"):
        chompute.cb_grundy("floor(z/2", 3, 3)
