"""The whole-row definition of K-OFSD (kofsd_oracle.matrix_*), used on sub-matrices too
big for the loops, against the loops (the authors' rule) and against the mean over every
order of the rows (the average rule)."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kofsd_oracle


@st.composite
def small_sets(draw):
    n = draw(st.integers(4, 6))
    s = draw(st.integers(1, 3))
    X = np.array(
        draw(st.lists(st.integers(-2, 3), min_size=n * s, max_size=n * s)), dtype=float
    ).reshape(n, s)
    for j in range(s):  # no constant column
        if X[:, j].min() == X[:, j].max():
            X[0, j] += 1.0
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[1] = 0, 1
    k = draw(st.integers(1, n - 2))
    return X, y, k


def _sq(X, weights):
    sq = np.zeros((len(X), len(X)))
    for j, w in enumerate(weights):
        d = X[:, j][:, None] - X[:, j][None, :]
        sq = sq + (w * d) * d
    return sq


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets())
def test_the_authors_rule_on_whole_rows_is_the_loops(case):
    X, y, k = case
    weights = [kofsd_oracle.matrix_weight(X[:, j], "index") for j in range(X.shape[1])]
    assert weights == [
        kofsd_oracle._variance_weight(list(X[:, j]), "seuclidean") for j in range(X.shape[1])
    ]
    expected = kofsd_oracle.dependency([list(X[:, j]) for j in range(X.shape[1])], list(y), k)
    assert kofsd_oracle.matrix_dependency(_sq(X, weights), y, k, "index") == pytest.approx(
        expected, abs=1e-15
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets())
def test_the_average_rule_on_whole_rows_is_the_mean_over_every_order(case):
    X, y, k = case
    weights = [kofsd_oracle.matrix_weight(X[:, j], "average") for j in range(X.shape[1])]
    sq = _sq(X, weights)
    deps = []
    for perm in itertools.permutations(range(len(y))):
        perm = np.array(perm)
        deps.append(kofsd_oracle.matrix_dependency(sq[perm][:, perm], y[perm], k, "index"))
    assert kofsd_oracle.matrix_dependency(sq, y, k, "average") == pytest.approx(
        float(np.mean(deps)), abs=1e-12
    )


def test_the_average_rules_weight_does_not_depend_on_the_row_order():
    rng = np.random.default_rng(3)
    column = np.round(rng.lognormal(size=301), 2) * (rng.random(301) < 0.3)
    weight = kofsd_oracle.matrix_weight(column, "average")
    assert all(
        kofsd_oracle.matrix_weight(rng.permutation(column), "average") == weight for _ in range(20)
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_the_whole_row_run_is_the_loop_run(seed):
    rng = np.random.default_rng(seed)
    n, p = 14, 6
    X = rng.integers(0, 3, size=(n, p)).astype(float)
    X[:, rng.integers(p)] += 0.5 * (np.arange(n) % 2)
    X = X[:, X.std(axis=0) > 0]
    y = (np.arange(n) < 5).astype(int)
    events, selected = kofsd_oracle.matrix_run(X, y, k=3, ties="index")
    expected_events, expected_selected = kofsd_oracle.run(X.tolist(), list(y), range(X.shape[1]), 3)
    assert selected == expected_selected
    assert [e[2] for e in events] == [e[2] for e in expected_events]
    assert [e[1] for e in events] == pytest.approx([e[1] for e in expected_events], abs=1e-15)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_sets(), st.sampled_from(["index", "average"]))
def test_a_feature_added_row_by_row_is_its_terms_added_to_the_sets(case, ties):
    X, y, k = case
    weights = [kofsd_oracle.matrix_weight(X[:, j], ties) for j in range(X.shape[1])]
    base = _sq(X[:, :-1], weights[:-1]) if X.shape[1] > 1 else None
    expected = kofsd_oracle.matrix_dependency(_sq(X, weights), y, k, ties)
    assert kofsd_oracle.matrix_dependency_with(base, X[:, -1], weights[-1], y, k, ties) == expected
