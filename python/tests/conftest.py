"""Slow, obviously correct references for the tests, written from the definitions of
docs/mathematics.md."""

import functools
import os

import numpy as np
import pytest

import chompute

U64_MAX = 2**64 - 1


def p_test_grid(m, n, row=1, col=1, height=None, width=None):
    """The P-grid of a window of C(m,n) by the four-pile XOR of Thm 2.3, cell by cell in
    exact uint64 arithmetic: (i-1) ^ (j-1) ^ (m-i) ^ (n-j) == 0."""
    height = m - row + 1 if height is None else height
    width = n - col + 1 if width is None else width
    one = np.uint64(1)
    i = np.arange(height, dtype=np.uint64) + np.uint64(row)
    j = np.arange(width, dtype=np.uint64) + np.uint64(col)
    a, b = (i - one)[:, None], (np.uint64(m) - i)[:, None]
    c, d = (j - one)[None, :], (np.uint64(n) - j)[None, :]
    return (a ^ b ^ c ^ d) == 0


def p_count_brute(m, n, row=1, col=1, height=None, width=None):
    """The P-count of a window by testing every cell with Python ints."""
    height = m - row + 1 if height is None else height
    width = n - col + 1 if width is None else width
    return sum(
        1
        for i in range(row, row + height)
        for j in range(col, col + width)
        if (i - 1) ^ (j - 1) ^ (m - i) ^ (n - j) == 0
    )


@functools.lru_cache(maxsize=None)
def g_corners_and_centre(m):
    """g(m) by Thm 3.4: m = s + t + s with 2^k the top bit of m, s = m - 2^k, t = 2^k - s,
    P(m) is P(s) in four corners and P(t) in the centre, so g(m) = 4 g(s) + g(t); g(2^k) =
    4^k (Thm 3.3: every cell of C(2^k, 2^k) is P)."""
    top = 1 << (m.bit_length() - 1)
    if m == top:
        return top * top
    s = m - top
    return 4 * g_corners_and_centre(s) + g_corners_and_centre(top - s)


def mex(values):
    """The least natural number not in `values`."""
    values = set(values)
    k = 0
    while k in values:
        k += 1
    return k


def gpu_available():
    """Whether chompute finds a GPU adapter (lavapipe counts). With CHOMPUTE_REQUIRE_GPU=1
    a missing adapter fails the GPU tests instead of skipping them."""
    try:
        chompute.p_grid(3, backend="gpu")
        return True
    except Exception as e:  # no adapter: the message says why
        gpu_available.why = str(e)
        return False


@pytest.fixture(scope="session")
def gpu():
    if not gpu_available():
        why = getattr(gpu_available, "why", "")
        if os.environ.get("CHOMPUTE_REQUIRE_GPU") == "1":
            pytest.fail(f"CHOMPUTE_REQUIRE_GPU=1 but there is no GPU: {why}")
        pytest.skip(f"no GPU adapter: {why}")
    return "gpu"


def memory_available():
    """Bytes the system says are available (Linux's MemAvailable), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
