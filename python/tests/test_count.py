"""count: every method against cell-by-cell counts and against Thm 3.4's decomposition."""

import random

import numpy as np
import pytest

import chompute
from conftest import U64_MAX, g_corners_and_centre, p_count_brute, p_test_grid


def test_squares_equal_cell_counts():
    for m in list(range(1, 40)) + [63, 65, 100, 255, 257, 300]:
        expect = int(p_test_grid(m, m).sum())
        assert chompute.count(m) == expect, m
        assert chompute.count(m, method="all") == expect, m
        for method in ("recurrence", "histogram", "digits", "cpu"):
            assert chompute.count(m, method=method) == expect, (m, method)


def test_rectangles_equal_cell_counts():
    for m, n in [(777, 1235), (1001, 1235), (4095, 33), (30, 17), (1, 9), (31, 33)]:
        expect = int(p_test_grid(m, n).sum())
        assert chompute.count(m, n) == expect, (m, n)
        assert chompute.count(m, n, method="all") == expect, (m, n)
    # The paper's parity remark: no P-cell unless m = n (mod 2).
    assert chompute.count(1001, 1234) == 0


def test_first_values_are_the_papers():
    # g(1..12) as printed in the paper (docs/mathematics.md §1).
    printed = [1, 4, 5, 16, 9, 20, 21, 64, 25, 36, 29, 80]
    assert [chompute.count(m) for m in range(1, 13)] == printed
    assert [p_count_brute(m, m) for m in range(1, 13)] == printed


def test_large_squares_exact_by_thm_3_4():
    for m in [U64_MAX, 2**63, 2**63 + 1, 10**19 + 7, 10**12 + 39, 2**40 - 3, 30001]:
        expect = g_corners_and_centre(m)
        assert chompute.count(m) == expect, m
        assert chompute.count(m, method="digits") == expect, m
    assert chompute.count(U64_MAX) == 113427455640312821154458202477256070485
    assert isinstance(chompute.count(U64_MAX), int)


def test_windows_equal_cell_counts():
    rng = random.Random(20250601)
    for _ in range(150):
        m, n = rng.randint(1, 300), rng.randint(1, 300)
        row, col = rng.randint(1, m), rng.randint(1, n)
        height, width = rng.randint(1, m - row + 1), rng.randint(1, n - col + 1)
        window = (row, col, height, width)
        expect = int(p_test_grid(m, n, *window).sum())
        assert chompute.count(m, n, window=window) == expect, (m, n, window)
        assert chompute.count(m, n, window=window, method="all") == expect, (m, n, window)


def test_windows_deep_inside_huge_bars():
    cases = [
        (U64_MAX, U64_MAX, (U64_MAX - 40, U64_MAX - 99, 41, 100)),
        (10**12 + 39, 10**12 + 39, (4 * 10**11, 4 * 10**11 - 10, 9, 100)),
        (U64_MAX, U64_MAX - 2, (2**63 - 5, 2**62 + 3, 30, 70)),
        (U64_MAX, 5, (1, 1, 33, 5)),
    ]
    for m, n, window in cases:
        expect = p_count_brute(m, n, *window)
        assert chompute.count(m, n, window=window) == expect
        assert chompute.count(m, n, window=window, method="cpu") == expect


def test_whole_bar_as_a_window():
    assert chompute.count(777, 1235, window=(1, 1, 777, 1235)) == chompute.count(777, 1235) == 605


def test_gpu_counts_equal_cpu_counts(gpu):
    for m, n in [(777, 1235), (4095, 4095), (30001, 3001)]:
        assert chompute.count(m, n, method="gpu") == chompute.count(m, n, method="cpu")
    window = (12000, 12000, 777, 1235)
    assert chompute.count(30001, window=window, method="gpu") == p_count_brute(30001, 30001, *window)


def test_numpy_integers_are_accepted():
    assert chompute.count(np.uint64(U64_MAX)) == chompute.count(U64_MAX)
    assert chompute.count(np.int32(11), window=(np.int64(1), 1, 11, 11)) == 29


def test_bad_input():
    with pytest.raises(ValueError, match="the bar must be at least 1×1"):
        chompute.count(0)
    with pytest.raises(ValueError, match=r"m must be at least 1 \(got -3\)"):
        chompute.count(-3)
    with pytest.raises(ValueError, match="n must be at least 1"):
        chompute.count(5, -1)
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        chompute.count(2**64)
    with pytest.raises(OverflowError):
        chompute.count(5, 2**200)
    with pytest.raises(TypeError):
        chompute.count("11")
    with pytest.raises(TypeError):
        chompute.count(11.0)
    with pytest.raises(ValueError, match=r"the window must be inside C\(5,5\)"):
        chompute.count(5, window=(5, 1, 2, 1))
    with pytest.raises(ValueError, match="at least 1×1"):
        chompute.count(5, window=(1, 1, 0, 1))
    with pytest.raises(ValueError, match="four integers"):
        chompute.count(5, window=(1, 1, 2))
    with pytest.raises(ValueError, match="four integers"):
        chompute.count(5, window="1,1,2,2")
    with pytest.raises(ValueError, match="square"):
        chompute.count(5, 7, method="recurrence")
    with pytest.raises(ValueError, match="whole bars"):
        chompute.count(5, window=(1, 1, 2, 2), method="histogram")
    with pytest.raises(ValueError, match="method must be"):
        chompute.count(5, method="fast")
    with pytest.raises(ValueError, match="is too large: the histogram method takes"):
        chompute.count(2**40, 2**40 - 2, method="histogram")
    with pytest.raises(ValueError, match="more than method=cpu generates"):
        chompute.count(2**21, method="cpu")
