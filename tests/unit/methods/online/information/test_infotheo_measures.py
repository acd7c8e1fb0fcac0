"""MIToolbox's information measures (fsengine/methods/online/_information): values by hand, the
Octave equivalent's outputs, and the compiled kernels against the definitions.

``tests/reference/infotheo_octave/measures.csv`` holds h, mi, SU, cmi and H(X|Y) of the
authors' ``mi/`` helpers (unmodified) through fsengine's Octave ``MIToolboxMex.m`` on every
column of the seven fixtures and of a hand-made set; that m-file gave MIToolbox's C
(579c46d) bit for bit on every call of those runs (README there). Every value must be equal
here, to the last bit, from the numpy definitions (``mitoolbox``) and from the kernels.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import LOFS_REFERENCE, REFERENCE, ROOT
from fsengine.errors import FSEngineError
from fsengine.methods.online._information import mitoolbox as mt
from fsengine.methods.online._information._features import (
    Labels,
    Measured,
    Store,
    conditional_mi,
    pair_su,
)

OCT = ROOT / "tests" / "reference" / "infotheo_octave"
LOG2 = math.log2


def load(name):
    if name == "cases":
        X = np.loadtxt(OCT / "measure_cases_X.csv", delimiter=",")
        y = np.loadtxt(OCT / "measure_cases_y.csv")
    else:
        folder = REFERENCE if name in ("ds1", "ds2", "ds3", "ds4", "ds5") else LOFS_REFERENCE
        X = np.loadtxt(folder / f"{name}_X.csv", delimiter=",")
        y = np.loadtxt(folder / f"{name}_y.csv")
    return X, y


def table():
    return pd.read_csv(OCT / "measures.csv", float_precision="round_trip")


def same(a, b) -> bool:
    """Equal to the last bit (NaN equal to NaN)."""
    return a == b or (math.isnan(a) and math.isnan(b))


# ------------------------------------------------------------------ by hand

A = np.array([1, 2, 1, 2, 1.0])  # MIToolbox's demo_mi.m (in the authors' mi/ folder)
B = np.array([2, 1, 2, 1, 1.0])
C = np.array([2, 1, 2, 2, 1.0])


def test_states_are_floors_shifted_to_zero():
    s, k = mt.states([-1.5, -0.2, 0.3, 0.99, 1.0, 2.9])
    assert s.tolist() == [0, 1, 2, 2, 3, 4] and k == 5  # floors -2, -1, 0, 0, 1, 2
    s, k = mt.states([0.0, 5.0, 5.5])
    assert s.tolist() == [0, 5, 5] and k == 6  # the four states between count


def test_entropy_and_mutual_information_by_hand():
    h = -(0.6 * LOG2(0.6) + 0.4 * LOG2(0.4))
    assert mt.entropy(A) == pytest.approx(h, abs=1e-15)
    # joint: (a=1, b=2) 2/5, (2, 1) 2/5, (1, 1) 1/5; p(a=1) = p(b=1) = 3/5
    mi = 0.4 * LOG2(0.4 / (0.6 * 0.4)) * 2 + 0.2 * LOG2(0.2 / (0.6 * 0.6))
    assert mt.mutual_information(A, B) == pytest.approx(mi, abs=1e-15)
    assert mt.symmetric_uncertainty(A, B) == pytest.approx(2 * mi / (2 * h), abs=1e-15)


def test_conditional_information_by_hand():
    # H(A | C): c = 1 on samples 2, 5 (a = 2, 1), c = 2 on samples 1, 3, 4 (a = 1, 1, 2)
    h_a_c = 0.4 * 1.0 + 0.6 * -(2 / 3 * LOG2(2 / 3) + 1 / 3 * LOG2(1 / 3))
    assert mt.conditional_entropy(A, C) == pytest.approx(h_a_c, abs=1e-15)
    # I(A; B | C) = H(A | C) - H(A | B, C); the (b, c) pairs (2,2) (1,1) (2,2) (1,2) (1,1):
    # (2,2) holds a = 1, 1, (1,2) a = 2, and (1,1) a = 2, 1 (1 bit, weight 2/5)
    assert mt.conditional_mutual_information(A, B, C) == pytest.approx(h_a_c - 0.4, abs=1e-15)
    # mergeArrays numbers the pairs by first appearance: (2,2) -> 1, (1,1) -> 2, (1,2) -> 3
    assert mt.joint_variable(B, C).tolist() == [1, 2, 1, 3, 2]


def test_fractions_share_a_state():
    x = np.array([0.1, 0.9, 0.5, 1.2, 1.7])  # states 0 0 0 1 1
    y = np.array([0, 0, 0, 1, 1.0])
    assert (
        mt.mutual_information(x, y)
        == mt.entropy(y)
        == pytest.approx(-LOG2(0.6) * 0.6 - LOG2(0.4) * 0.4)
    )
    assert mt.symmetric_uncertainty(x, y) == 1.0


def test_constant_vectors():
    const = np.full(6, 3.7)
    y = np.array([0, 1, 0, 1, 1, 0.0])
    assert mt.entropy(const) == 0.0
    assert mt.symmetric_uncertainty(const, y) == 0.0  # 0 / H(Y)
    assert math.isnan(mt.symmetric_uncertainty(const, const))  # SU.m: 0 / 0


def test_values_beyond_int32_are_refused():
    block = np.array([[0.0, 1.0], [2.0**31, 3.0]])
    with pytest.raises(FSEngineError, match="'g0'.*within \\+-2\\^31"):
        mt.check_range(block, ["g0", "g1"], "SFS-FI")
    mt.check_range(np.array([[2.0**31 - 0.5], [-(2.0**31)]]), ["g"], "SFS-FI")  # floors fit


# ------------------------------------------------------------------ the Octave equivalent

COLUMNS = ["h_i", "mi_iy", "su_iy", "cmi_i_y_given_j", "cmi_i_j_given_y", "su_ij", "mi_ij",
           "h_i_given_j"]  # fmt: skip


@pytest.mark.parametrize("name", ["cases", "ds1", "ds2", "ds3", "ds4", "ds5", "ds6", "ds7"])
def test_definitions_equal_the_octave_equivalent(name):
    X, y = load(name)
    rows = table()[lambda t: t["set"] == name]
    assert len(rows) == X.shape[1]
    for r in rows.itertuples():
        a, b = X[:, r.i - 1], X[:, r.j - 1]
        got = [
            mt.entropy(a),
            mt.mutual_information(a, y),
            mt.symmetric_uncertainty(a, y),
            mt.conditional_mutual_information(a, y, b),
            mt.conditional_mutual_information(a, b, y),
            mt.symmetric_uncertainty(a, b),
            mt.mutual_information(a, b),
            mt.conditional_entropy(a, b),
        ]
        expected = [getattr(r, c) for c in COLUMNS]
        assert all(same(g, e) for g, e in zip(got, expected)), (name, r.i, got, expected)


def kernel_values(X, y):
    """H, SU(X, Y), I(X; Y | next), SU(X, next) from the kernels (next: cyclically)."""
    labels = Labels(y.astype(int))
    measured = Measured(np.ascontiguousarray(X), labels)
    p = X.shape[1]
    store = Store(len(y))
    for j in range(p):
        store.append(measured.states[:, j], int(measured.n_states[j]))
    cmi, su_pair = [], []
    for i in range(p):
        j = (i + 1) % p
        cmi.append(conditional_mi(store, measured.states[:, j], labels)[i])
        su_pair.append(
            pair_su(
                measured.states[:, i],
                measured.n_states[i],
                measured.entropy[i],
                measured.states[:, j],
                measured.n_states[j],
                measured.entropy[j],
            )
        )
    return measured.entropy, measured.mi, measured.su, np.array(cmi), np.array(su_pair)


@pytest.mark.parametrize("name", ["cases", "ds1", "ds2", "ds3", "ds4", "ds5", "ds6", "ds7"])
def test_kernels_equal_the_octave_equivalent(name):
    X, y = load(name)
    rows = table()[lambda t: t["set"] == name]
    h, mi, su, cmi, su_pair = kernel_values(X, y)
    for got, column in [(h, "h_i"), (mi, "mi_iy"), (su, "su_iy"), (cmi, "cmi_i_y_given_j"),
                        (su_pair, "su_ij")]:  # fmt: skip
        expected = rows[column].to_numpy()
        assert all(same(g, e) for g, e in zip(got.tolist(), expected.tolist())), column


# ------------------------------------------------------------------ kernels = definitions


@st.composite
def columns(draw):
    """Small data with MIToolbox's awkward cases: negative and fractional values, wide
    ranges (sorted paths), the ends of the int range, constants, copies, few samples."""
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["levels", "normal", "wide", "fraction", "extreme"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "levels":
        X = rng.integers(0, draw(st.integers(1, 5)), (n, p)).astype(float)
    elif kind == "normal":
        X = rng.standard_normal((n, p)) * draw(st.sampled_from([0.5, 2.0, 30.0]))
    elif kind == "wide":
        X = rng.integers(-(10**6), 10**6, (n, p)).astype(float)
    elif kind == "fraction":
        X = rng.random((n, p)) * 1.5
    else:  # both ends of MIToolbox's int range: a pair's joint index would not fit 64 bits
        X = rng.choice([-(2.0**31), -(2.0**31) + 1, 0.0, 2.0**31 - 1], (n, p))
    for j in range(p):
        pick = draw(st.sampled_from(["plain", "plain", "constant", "copy"]))
        if pick == "constant":
            X[:, j] = -2.5
        elif pick == "copy" and j:
            X[:, j] = X[:, j - 1]
    y = np.zeros(n, dtype=int)
    y[draw(st.permutations(range(n)))[: draw(st.integers(1, n - 1))]] = 1
    return X, y


@settings(max_examples=200, deadline=None)
@given(data=columns(), use_table=st.booleans())
def test_kernels_equal_the_definitions(data, use_table):
    X, y = data
    labels = Labels(y)
    if not use_table:
        labels.table = np.zeros(0)  # every term computed in place: the same values
    measured = Measured(np.asfortranarray(X), labels)  # any layout
    p = X.shape[1]
    store = Store(len(y), capacity=1)  # grows
    for j in range(p):
        assert same(measured.entropy[j], mt.entropy(X[:, j]))
        assert same(measured.su[j], mt.symmetric_uncertainty(X[:, j], y))
        store.append(measured.states[:, j], int(measured.n_states[j]))
    for z in range(p):
        got = conditional_mi(store, measured.states[:, z], labels)
        for a in range(p):
            assert same(got[a], mt.conditional_mutual_information(X[:, a], y, X[:, z]))
            su = pair_su(
                measured.states[:, z],
                measured.n_states[z],
                measured.entropy[z],
                measured.states[:, a],
                measured.n_states[a],
                measured.entropy[a],
            )
            assert same(su, mt.symmetric_uncertainty(X[:, z], X[:, a]))
    store.keep([j % 2 == 0 for j in range(p)])
    assert store.states.tolist() == measured.states[:, ::2].tolist()
