"""theorems: the paper's claims as dicts, as `chompute theorems --json` prints them."""

import pytest

import chompute


def test_every_claim_holds_and_is_reported():
    claims = chompute.theorems(70)
    assert len(claims) >= 10
    names = [c["name"] for c in claims]
    assert len(set(names)) == len(names)
    assert {"prop-3.1-symmetry", "thm-3.4-corners-and-centre"} <= set(names)
    for c in claims:
        assert set(c) == {"name", "statement", "range", "checked", "pass", "failure", "seconds"}
        assert c["pass"] is True and c["failure"] is None, c
        assert isinstance(c["checked"], int) and c["checked"] > 0, c
        assert isinstance(c["seconds"], float)


def test_bad_input():
    with pytest.raises(ValueError, match="max_m must be between 1 and 8192"):
        chompute.theorems(0)
    with pytest.raises(ValueError, match="max_m must be between 1 and 8192"):
        chompute.theorems(8193)
    assert issubclass(chompute.CheckFailed, Exception)
    assert chompute.CheckFailed.__module__ == "chompute"
