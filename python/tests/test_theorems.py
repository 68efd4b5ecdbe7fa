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
        assert set(c) == {
            "name", "statement", "kind", "range", "checked", "pass", "counterexample", "seconds"
        }
        assert c["pass"] is True and c["counterexample"] is None, c
        assert isinstance(c["checked"], int) and c["checked"] > 0, c
        assert isinstance(c["seconds"], float)


def test_bad_input():
    with pytest.raises(ValueError, match="max_m must be between 1 and 8192"):
        chompute.theorems(0)
    with pytest.raises(ValueError, match="max_m must be between 1 and 8192"):
        chompute.theorems(8193)
    assert issubclass(chompute.CheckFailed, Exception)
    assert chompute.CheckFailed.__module__ == "chompute"


def test_named_claims_are_checked_alone_in_the_tables_order():
    every = {c["name"]: c for c in chompute.theorems(45)}
    some = chompute.theorems(45, claims=["sum-odd", "prop-3.2-diagonals", "sum-odd"])
    assert [c["name"] for c in some] == ["prop-3.2-diagonals", "sum-odd"]
    for c in some:
        whole = every[c["name"]]
        for key in ["statement", "range", "checked", "pass", "counterexample"]:
            assert c[key] == whole[key], (key, c["name"])
    # A tuple works as well as a list; no names means every claim.
    assert [c["name"] for c in chompute.theorems(20, claims=("octahedron",))] == ["octahedron"]
    assert [c["name"] for c in chompute.theorems(20, claims=[])] == list(every)


def test_unknown_claim_names_every_claim():
    names = [c["name"] for c in chompute.theorems(10)]
    with pytest.raises(ValueError, match=r"claims must be one of .* \(got 'g-even'\)") as e:
        chompute.theorems(10, claims=["g-odd", "g-even"])
    for n in names:
        assert n in str(e.value)
    with pytest.raises(TypeError, match=r"claims must be a sequence of claim names .* \(got \[3\]\)"):
        chompute.theorems(10, claims=[3])
    # One name alone is not read as a sequence of one-letter names.
    with pytest.raises(TypeError, match="not one string"):
        chompute.theorems(10, claims="g-odd")
