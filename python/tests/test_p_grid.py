"""p_grid: the array against the four-pile XOR, cell by cell."""

import numpy as np
import pytest

import chompute
from conftest import U64_MAX, p_test_grid


SIZES = [(1, 1), (1, 2), (2, 1), (11, 11), (31, 33), (300, 77), (777, 1235), (1001, 1001), (4095, 45), (65, 4097)]


@pytest.mark.parametrize("m,n", SIZES)
def test_whole_bars_equal_the_p_test(m, n):
    grid = chompute.p_grid(m, n, backend="cpu")
    assert grid.dtype == np.bool_ and grid.shape == (m, n)
    assert grid.flags.c_contiguous and grid.flags.writeable and grid.flags.owndata
    np.testing.assert_array_equal(grid, p_test_grid(m, n))


def test_square_default_and_large_bar():
    np.testing.assert_array_equal(chompute.p_grid(11), chompute.p_grid(11, 11))
    m = 30001
    grid = chompute.p_grid(m, window=(1, 1, 1500, m), backend="cpu")
    np.testing.assert_array_equal(grid, p_test_grid(m, m, 1, 1, 1500, m))
    np.testing.assert_array_equal(
        chompute.p_grid(m, window=(28000, 29000, 2002, 1002)), p_test_grid(m, m, 28000, 29000, 2002, 1002)
    )


def test_windows_deep_inside_huge_bars():
    for m, n, window in [
        (U64_MAX, U64_MAX, (U64_MAX - 40, U64_MAX - 99, 41, 100)),
        (10**12 + 39, 10**12 + 39, (4 * 10**11, 4 * 10**11 - 10, 9, 100)),
        (U64_MAX, 5, (1, 1, 33, 5)),
        (2**63 + 1, 2**63 + 1, (2**62, 2**62 - 70, 65, 129)),
    ]:
        np.testing.assert_array_equal(chompute.p_grid(m, n, window=window), p_test_grid(m, n, *window))


def test_every_count_is_the_grids_sum():
    for m, n in [(777, 1235), (513, 511), (1000, 1000)]:
        assert int(chompute.p_grid(m, n).sum()) == chompute.count(m, n)


def test_gpu_equals_cpu(gpu):
    for m, n in [(777, 1235), (4095, 4095), (30001, 33)]:
        np.testing.assert_array_equal(chompute.p_grid(m, n, backend="gpu"), p_test_grid(m, n))
    window = (10**12, 10**12 - 5, 40, 44)
    np.testing.assert_array_equal(
        chompute.p_grid(10**12 + 39, window=window, backend="gpu"), p_test_grid(10**12 + 39, 10**12 + 39, *window)
    )


def test_bad_input():
    with pytest.raises(ValueError, match="at least one row"):
        chompute.p_grid(0)
    with pytest.raises(OverflowError):
        chompute.p_grid(2**64)
    with pytest.raises(ValueError, match="lies outside"):
        chompute.p_grid(5, 5, window=(1, 5, 1, 2))
    with pytest.raises(ValueError, match="backend must be"):
        chompute.p_grid(5, backend="tpu")
    with pytest.raises(ValueError, match="more than an array can hold"):
        chompute.p_grid(2**40)
    with pytest.raises(ValueError, match="of memory but only"):
        chompute.p_grid(2**20)
