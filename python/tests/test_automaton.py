"""automaton: generation n against the P-test of C(n+1,n+1), and against the rule itself."""

import numpy as np
import pytest

import chompute
from conftest import memory_available, p_test_grid


def automaton_by_the_rule(steps):
    """b[n+1](i,j) = b[n](i,j) ^ b[n](i-1,j) ^ b[n](i,j-1) ^ b[n](i-1,j-1) ^ b[n-1](i-1,j-1),
    b[-1] = 0, b[0] = {(0,0)}, on a NumPy grid padded with a zero row and column."""
    side = steps + 1
    prev = np.zeros((side + 1, side + 1), dtype=np.uint8)
    cur = prev.copy()
    cur[1, 1] = 1
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:, 1:] = cur[1:, 1:] ^ cur[:-1, 1:] ^ cur[1:, :-1] ^ cur[:-1, :-1] ^ prev[:-1, :-1]
        prev, cur = cur, nxt
    return cur[1:, 1:].astype(bool)


@pytest.mark.parametrize("steps", [0, 1, 2, 10, 63, 100, 254, 777])
def test_generation_is_the_p_grid(steps):
    got = chompute.automaton(steps, backend="cpu")
    assert got.shape == (steps + 1, steps + 1) and got.dtype == np.bool_
    np.testing.assert_array_equal(got, p_test_grid(steps + 1, steps + 1))


def test_generation_follows_the_rule():
    np.testing.assert_array_equal(chompute.automaton(150), automaton_by_the_rule(150))


def test_gpu_equals_cpu(gpu):
    for steps in [0, 5, 100, 1000]:
        np.testing.assert_array_equal(chompute.automaton(steps, backend="gpu"), p_test_grid(steps + 1, steps + 1))


def test_bad_input():
    with pytest.raises(ValueError, match=r"^steps must be at most 262143 \(got 262144\)$"):
        chompute.automaton(262144)
    with pytest.raises(ValueError, match="steps must be at least 0"):
        chompute.automaton(-1)
    with pytest.raises(OverflowError):
        chompute.automaton(2**70)


def test_too_large_for_memory_is_refused_before_the_first_step():
    # 160001² bools, their packed words and three CPU grids: about 38 GB.
    side = 160001
    need = side * side + side * -(-side // 32) * 4 + 3 * 8 * side * -(-side // 64)
    room = memory_available()
    if room is None or room >= need:
        pytest.skip(f"{room} bytes available: enough for generation 160000")
    with pytest.raises(ValueError, match="generation 160000 .* of memory but only"):
        chompute.automaton(160000, backend="cpu")
