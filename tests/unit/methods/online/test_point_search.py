"""The distinct points of a set (fsengine.methods.online._point_search, ._search_kernels) against
their definitions in numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import fsengine.methods.online._point_search as _point_search
from fsengine.methods.online._point_search import point_members
from fsengine.methods.online._roughset.kofsd import points as _points
from fsengine.methods.online._roughset.kofsd.points import PointSetTerms
from fsengine.methods.online._roughset.kofsd.reference import feature_weights
from fsengine.methods.online._roughset.kofsd.set_terms import ColumnSetTerms
from fsengine.methods.online._tie_average import AveragedSet, NeighbourRule, refine
from synthetic import RARE_TYPE, single_cell_counts


def _refine_by_definition(codes, values):
    """Samples sorted by (point, value); a new point wherever either changes."""
    order = np.lexsort((values, codes))
    sorted_codes, sorted_values = codes[order], values[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (sorted_codes[1:] != sorted_codes[:-1]) | (sorted_values[1:] != sorted_values[:-1])
    new_codes = np.empty(len(order), dtype=np.int64)
    new_codes[order] = np.cumsum(starts) - 1
    first = order[starts]
    return new_codes, codes[first], values[first]


@st.composite
def points_and_values(draw):
    n = draw(st.integers(1, 60))
    n_points = draw(st.integers(1, 8))
    codes = draw(arrays(np.int64, n, elements=st.integers(0, n_points - 1)))
    codes[draw(st.integers(0, n - 1))] = n_points - 1  # the highest point is used
    levels = st.sampled_from([0.0, -0.0, 0.0, 1.5, -2.0, 3.25, 1e-300, -1e300, 7.0])
    values = draw(arrays(np.float64, n, elements=levels))
    return codes, values


@settings(max_examples=300, deadline=None)
@given(points_and_values())
def test_refine_numbers_points_as_the_sorted_definition(case):
    codes, values = case
    new_codes, base_of, point_values = refine(codes, values)
    want_codes, want_base, want_values = _refine_by_definition(codes, values)
    assert new_codes.tolist() == want_codes.tolist()
    assert base_of.tolist() == want_base.tolist()
    assert point_values.tolist() == want_values.tolist()  # -0.0 == 0.0


@settings(max_examples=200, deadline=None)
@given(points_and_values())
def test_members_are_each_point_s_samples_in_row_order(case):
    codes, _ = case
    n_points = int(codes.max()) + 1
    start, members = point_members(codes, n_points)
    for a in range(n_points):
        assert members[start[a] : start[a + 1]].tolist() == np.flatnonzero(codes == a).tolist()


def _offset_case(perm):
    """3,000 samples on two features at 1.7e9 plus small integers (a third, f, near 0):
    sample 20's nearest points are four at exactly equal distance (offsets +-1, +-1), and a
    cluster of 60 points fills its list on S, so its list comes from the k-d tree, whose
    coordinates round at 1.7e9 far more than the distances' last place."""
    rng = np.random.default_rng(1)
    n, offset = 3000, 1.7e9
    X = np.empty((n, 3))
    y = np.zeros(n, dtype=np.int64)
    filler = np.arange(80, n)
    X[filler, 0] = offset + rng.uniform(-300, 300, len(filler)).round(3)
    X[filler, 1] = offset + rng.uniform(-300, 300, len(filler)).round(3)
    X[filler, 2] = rng.uniform(100, 1000, len(filler))
    y[filler] = rng.random(len(filler)) < 0.3
    X[20] = (offset, offset, 0.0)
    for q, row in enumerate(range(21, 81)):
        X[row] = (offset + 0.001 * (q % 8 + 1), offset + 0.001 * (q // 8 + 1), 50.0 + q)
    for (dx, dy), row in zip([(1, 1), (1, -1), (-1, 1), (-1, -1)], [10 + p for p in perm]):
        X[row] = (offset + dx, offset + dy, 0.0)
    y[10] = 1
    X[:10] = X[filler[:10]]
    X[14:20] = X[filler[10:16]] + [0, 0, 1]
    return X, y


@pytest.mark.parametrize("perm", [(0, 1, 2, 3), (3, 2, 1, 0), (1, 3, 0, 2)])
@pytest.mark.parametrize("variant", ["reference", "paper"])
def test_features_on_a_large_offset_keep_every_tied_point(perm, variant):
    """The tree's rounding is deducted from its distances (the reviewer's case: before, a
    point tied at the cut was left out and sample 20's card differed, under both rules)."""
    X, y = _offset_case(perm)
    w = feature_weights(X)
    by_points, by_samples = PointSetTerms(len(y)), ColumnSetTerms(len(y))
    for terms in (by_points, by_samples):
        terms.replace(X[:, 0], w[0])
        terms.add(X[:, 1], w[1])
    got = [
        terms.dependencies_with(X[:, 2:], w[2:], y, 1, variant, "imbalanced")
        for terms in (by_points, by_samples)
    ]
    assert got[0][1].tolist() == got[1][1].tolist()  # every sample's card
    assert got[0][0].tolist() == got[1][0].tolist()
    rule = NeighbourRule.kofsd(1, variant, "imbalanced")
    results = []
    for brute_max in (10**9, _point_search.BRUTE_MAX_POINTS):
        saved, _point_search.BRUTE_MAX_POINTS = _point_search.BRUTE_MAX_POINTS, brute_max
        try:
            points = AveragedSet(y, rule)
            points.add(X[:, 0], w[0])
            points.add(X[:, 1], w[1])
            results.append(points.dependency_with(X[:, 2], w[2]))
        finally:
            _point_search.BRUTE_MAX_POINTS = saved
    assert results[0] == results[1]


@pytest.mark.parametrize("variant", ["reference", "paper"])
@pytest.mark.parametrize("constant_in", ["candidate", "set"])
def test_a_constant_feature_gives_the_sample_wise_cards(variant, constant_in):
    """A constant feature (infinite weight: every distance NaN) on S + f, with many more
    points than the search compares whole: every sample's card and the dependency are the
    sample-wise engine's, on either side of the test (its candidates are then each point
    and the points of the K + 1 lowest rows)."""
    rng = np.random.default_rng(3)
    n = 900
    X = rng.poisson(3.0, size=(n, 4)).astype(float)
    X[:, 2 if constant_in == "candidate" else 1] = 0.0
    y = (rng.random(n) < 0.1).astype(np.int64)
    w = feature_weights(X)
    assert np.isinf(w[2 if constant_in == "candidate" else 1])
    by_points, by_samples = PointSetTerms(n), ColumnSetTerms(n)
    for terms in (by_points, by_samples):
        terms.replace(X[:, 0], w[0])
        terms.add(X[:, 1], w[1])
    assert len(np.unique(X[:, :2], axis=0)) > 9  # more points than the K + 2 sought first
    got = [
        terms.dependencies_with(X[:, 2:], w[2:], y, 3, variant, "imbalanced")
        for terms in (by_points, by_samples)
    ]
    assert got[0][1].tolist() == got[1][1].tolist()
    assert got[0][0].tolist() == got[1][0].tolist()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5))
def test_lists_made_on_demand_are_each_point_s_nearest_with_their_terms(seed, parts):
    """S's lists made a few points at a time, in any order (as tests ask for them): each
    point's LIST_LENGTH nearest points on S (every distance: up to the k-d tree's rounding
    at the end of the list), their summed terms in the set's order, increasing, and a reach
    no unlisted point is below."""
    rng = np.random.default_rng(seed)
    Q, s = 150, 3
    coords = np.round(rng.normal(size=(Q, s)), 1)  # ties between distances
    weights = rng.uniform(0.5, 2.0, s)
    lists = _point_search.SetLists(coords, weights)
    for part in np.array_split(rng.permutation(Q), parts):
        lists.ready(np.concatenate([part, part[:3]]))  # a point asked twice
    sq = np.zeros((Q, Q))
    for f in range(s):
        d = coords[:, f][:, None] - coords[:, f][None, :]
        sq = sq + (weights[f] * d) * d
    L = _point_search.LIST_LENGTH
    for a in range(Q):
        assert lists.sq[a].tolist() == sq[a, lists.listed[a]].tolist()
        assert np.all(np.diff(lists.sq[a]) >= 0)
        unlisted = np.setdiff1d(np.arange(Q), lists.listed[a])
        assert np.sqrt(sq[a, unlisted]).min() >= lists.far[a]
        # The tree's rounding may swap near-equal distances at the end, no more.
        assert lists.far[a] >= np.sqrt(np.sort(sq[a])[L - 1]) * (1 - 1e-9) - 1e-9


@pytest.mark.parametrize("transform", ["counts", "log1p"])
@pytest.mark.parametrize("variant", ["reference", "paper"])
def test_a_rejected_test_stops_once_no_sample_below_one_can_gain(transform, variant, monkeypatch):
    """The authors' tie rule on sparse counts, S's cards known (as K-OFSD's tests after an
    addition): a test that may reject early measures first the points holding samples
    whose card on S is below 1, and stops once they are measured and none of those samples
    gains (the sample-wise kernels' rejection). The dependencies and NaNs equal the
    sample-wise engine's, and most rejected tests stop before measuring every point
    (points measured 8 at first, then twice as many a call)."""
    monkeypatch.setattr(_point_search, "FIRST_CHUNK", 8)
    X, obs, _ = single_cell_counts(n_cells=2000, n_genes=100, n_rare=40, seed=4)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(np.int64)
    X = X.toarray().astype(float)
    X = np.log1p(X) if transform == "log1p" else X
    w = feature_weights(X)
    # S: ten genes of the common types expressed in 5-40 % of the cells, the last added.
    share = (X > 0).mean(axis=0)
    *base, last = [j for j in range(30, 60) if 0.05 <= share[j] <= 0.4][:10]
    n = len(y)
    by_points, by_samples = PointSetTerms(n), ColumnSetTerms(n)
    for terms in (by_points, by_samples):
        terms.replace(X[:, base[0]], w[base[0]])
        for j in base[1:]:
            terms.add(X[:, j], w[j])
    dependency, cards = by_samples.dependencies_with(
        X[:, last : last + 1], w[last : last + 1], y, 3, variant, "imbalanced"
    )
    for terms in (by_points, by_samples):
        terms.add(X[:, last], w[last])
        terms.set_cards(cards[:, 0], y)
    reject = float(dependency[0]) * n - 1e-9  # K-OFSD's: below S's sum
    kernels, measured = _points.point_kernels(), []

    class Counted:
        def __getattr__(self, name):
            return getattr(kernels, name)

        def point_set_cards(self, *args):
            measured[-1] += len(args[15])  # the points of this call
            return kernels.point_set_cards(*args)

    monkeypatch.setattr(_points, "point_kernels", Counted)
    rejected, stopped = 0, 0
    for j in [*range(10), *range(60, X.shape[1])]:  # rare-type markers first, which gain
        column, weight = X[:, j : j + 1], w[j : j + 1]
        measured.append(0)
        got = by_points.dependencies_with(column, weight, y, 3, variant, "imbalanced", 0.0, reject)
        expected = by_samples.dependencies_with(column, weight, y, 3, variant, "imbalanced",
                                                0.0, reject)  # fmt: skip
        assert np.array_equal(got[0], expected[0], equal_nan=True)
        if np.isnan(got[0][0]):
            rejected += 1
            stopped += measured[-1] < len(np.unique(X[:, [*base, last, j]], axis=0))
    assert rejected >= 20 and stopped >= 0.8 * rejected
