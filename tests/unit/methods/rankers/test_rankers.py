"""Filter rankers (fsengine.methods.rankers): every score against numbers worked out by hand and
against slow definition-level implementations written here with plain Python (lists,
loops, statistics, math.log), the kNN mutual information against scikit-learn's own
per-column function, the decomposition's k-means pseudo-labels, the scikit-learn
selector and the run_selection entry point.

Tests named ``test_bug_...`` demonstrate defects of the library; they fail until the
library is fixed.
"""

import itertools
import math
import statistics
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans
from sklearn.feature_selection._mutual_info import _compute_mi_cd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from fsengine import Dataset, FSEngineError, run_selection
from fsengine._compute.discretise import discretise
from fsengine.methods.rankers import (
    RANKERS,
    d_fisher_score,
    default_clusters,
    fisher_score,
    hellinger_score,
    mi_score,
    pcc_score,
    pseudo_labels,
    rank_features,
    relieff_score,
    s2n_score,
    score_features,
)
from fsengine.methods.rankers._decomposition import compute_pseudo_labels
from fsengine.sklearn import RankerSelector

TOL = 1e-12
SQRT2, SQRT3 = math.sqrt(2), math.sqrt(3)


# ------------------------------------------------------------------ slow reference helpers


def by_class(values, labels):
    """{label: [values of that class]}, labels sorted."""
    out = {}
    for v, c in zip(values, labels):
        out.setdefault(c, []).append(float(v))
    return dict(sorted(out.items()))


def ratio(num, den):
    """0/0 = 0, x/0 = inf: the rankers' documented convention."""
    if num == 0:
        return 0.0
    return math.inf if den == 0 else num / den


def slow_fisher(values, labels):
    """Yin et al. eq. 5 for two classes, eqs. 7-9 for more; S^2 = sum of squared deviations."""
    groups = by_class(values, labels)
    means = {c: sum(g) / len(g) for c, g in groups.items()}
    within = sum(sum((v - means[c]) ** 2 for v in g) for c, g in groups.items())
    if len(groups) == 2:
        m0, m1 = means.values()
        return ratio((m1 - m0) ** 2, within)
    overall = sum(float(v) for v in values) / len(values)
    between = sum(len(g) * (means[c] - overall) ** 2 for c, g in groups.items())
    return ratio(between, within)


def slow_s2n_binary(values, is_pos):
    pos = [float(v) for v, b in zip(values, is_pos) if b]
    neg = [float(v) for v, b in zip(values, is_pos) if not b]
    diff = abs(statistics.fmean(pos) - statistics.fmean(neg))
    return ratio(diff, statistics.stdev(pos) + statistics.stdev(neg))  # (n - 1) sds


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return 0.0 if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


def one_vs_rest_max(binary, values, labels):
    """Multi-class form of S2N and PCC: maximum over classes c of the score of [y == c]."""
    return max(binary(values, [int(c == k) for c in labels]) for k in sorted(set(labels)))


def slow_pcc_binary(values, is_pos):
    return abs(pearson([float(v) for v in values], [float(b) for b in is_pos]))


def slow_hellinger(values, labels, bins=10):
    """Equal-width bins from their edges low + j (high - low) / bins: a value on an edge goes
    to the upper bin, the maximum to the last bin; positive class = the larger label."""
    low, high = min(values), max(values)
    edges = [low + j * (high - low) / bins for j in range(bins)]
    codes = [max(j for j, e in enumerate(edges) if v >= e) for v in values]
    pos_label = max(labels)
    pos = [b for b, c in zip(codes, labels) if c == pos_label]
    neg = [b for b, c in zip(codes, labels) if c != pos_label]
    total = sum(
        (math.sqrt(pos.count(j) / len(pos)) - math.sqrt(neg.count(j) / len(neg))) ** 2
        for j in range(bins)
    )
    return math.sqrt(total)


def slow_quantile(values, q):
    """numpy's default ("linear") quantile, written out: lerp at virtual index (n - 1) q."""
    s = sorted(values)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    t = h - lo
    a, b = s[lo], s[min(lo + 1, len(s) - 1)]
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t  # numpy's _lerp


def slow_codes(values, bins):
    """Equal-frequency bin code = number of cuts strictly below the value."""
    cuts = [slow_quantile(values, k / bins) for k in range(1, bins)]
    return [sum(v > c for c in cuts) for v in values]


def plug_in_mi(codes, labels):
    """sum p(v, c) log(p(v, c) / (p(v) p(c))) from counts in dicts, in nats."""
    n = len(codes)
    joint, by_code, by_label = {}, {}, {}
    for v, c in zip(codes, labels):
        joint[v, c] = joint.get((v, c), 0) + 1
        by_code[v] = by_code.get(v, 0) + 1
        by_label[c] = by_label.get(c, 0) + 1
    return sum(
        nvc / n * math.log(nvc * n / (by_code[v] * by_label[c])) for (v, c), nvc in joint.items()
    )


def relieff_terms(X, y):
    """What ReliefF's docstring computes before choosing neighbours, in plain Python: the
    min-max scaled values' |differences| diff(i, j, a), the Manhattan distances dist(i, j),
    the labels and the class priors."""
    rows = [[float(v) for v in r] for r in X]
    labels = [int(c) for c in y]
    n, p = len(rows), len(rows[0])
    low = [min(r[a] for r in rows) for a in range(p)]
    high = [max(r[a] for r in rows) for a in range(p)]
    scaled = [
        [(r[a] - low[a]) / (high[a] - low[a]) if high[a] > low[a] else 0.0 for a in range(p)]
        for r in rows
    ]
    diff = [
        [[abs(scaled[i][a] - scaled[j][a]) for a in range(p)] for j in range(n)] for i in range(n)
    ]
    dist = [[sum(diff[i][j]) for j in range(n)] for i in range(n)]
    prior = {c: labels.count(c) / n for c in set(labels)}
    return diff, dist, labels, prior


def relieff_by_order(X, y, k, rank, terms=None):
    """ReliefF from its docstring with the authors' tie rule, one sample R at a time: k
    nearest hits and k nearest misses per other class, candidates at equal distance taken
    by ascending ``rank`` (each sample's position in some order of the rows),
    W[A] = 1/n sum_R (-mean_H diff + sum_C P(C) / (1 - P(class R)) mean_M diff)."""
    diff, dist, labels, prior = terms or relieff_terms(X, y)
    n, p = len(labels), len(diff[0][0])
    weights = [0.0] * p
    for r in range(n):
        own = labels[r]
        for c in sorted(prior):
            others = [j for j in range(n) if labels[j] == c and j != r]
            nearest = sorted(others, key=lambda j: (dist[r][j], rank[j]))[:k]
            if not nearest:
                continue
            factor = -1.0 if c == own else prior[c] / (1 - prior[own])
            for a in range(p):
                weights[a] += factor * sum(diff[r][j][a] for j in nearest) / len(nearest)
    return [w / n for w in weights]


def relieff_over_every_order(X, y, k):
    """The mean of :func:`relieff_by_order` over every order of the rows (n! of them): the
    expectation over every order of the tied samples, by brute force."""
    terms = relieff_terms(X, y)
    runs = [
        relieff_by_order(X, y, k, rank, terms) for rank in itertools.permutations(range(len(y)))
    ]
    return [math.fsum(w[a] for w in runs) / len(runs) for a in range(len(runs[0]))]


def slow_relieff(X, y, k):
    """ReliefF from its docstring with ties averaged, one sample R at a time: of the
    candidates of a class sorted by distance, those nearer than the k-th distance whole,
    the t at it each with weight (k - number nearer) / t."""
    rows = [[float(v) for v in r] for r in X]
    labels = [int(c) for c in y]
    n, p = len(rows), len(rows[0])
    low = [min(r[a] for r in rows) for a in range(p)]
    high = [max(r[a] for r in rows) for a in range(p)]
    scaled = [
        [(r[a] - low[a]) / (high[a] - low[a]) if high[a] > low[a] else 0.0 for a in range(p)]
        for r in rows
    ]

    def diff(i, j, a):
        return abs(scaled[i][a] - scaled[j][a])

    def dist(i, j):
        return sum(diff(i, j, a) for a in range(p))

    prior = {c: labels.count(c) / n for c in set(labels)}
    weights = [0.0] * p
    for r in range(n):
        own = labels[r]
        for c in sorted(prior):
            others = [j for j in range(n) if labels[j] == c and j != r]
            found = min(k, len(others))
            if not found:
                continue
            kth = sorted(dist(r, j) for j in others)[found - 1]
            nearer = [j for j in others if dist(r, j) < kth]
            tied = [j for j in others if dist(r, j) == kth]
            share = (found - len(nearer)) / len(tied)
            factor = -1.0 if c == own else prior[c] / (1 - prior[own])
            for a in range(p):
                mean = (
                    sum(diff(r, j, a) for j in nearer) + share * sum(diff(r, j, a) for j in tied)
                ) / found
                weights[a] += factor * mean
    return [w / n for w in weights]


def per_column(slow, X, y, *args):
    return np.array([slow(list(X[:, j]), list(y), *args) for j in range(X.shape[1])])


def slow_ranking(scores):
    """Feature indices by descending score, ties to the lower index."""
    return sorted(range(len(scores)), key=lambda j: (-scores[j], j))


def labels_of(sizes):
    """Class labels 0, 1, ... with the given class sizes, shuffled deterministically."""
    y = np.concatenate([np.full(s, c) for c, s in enumerate(sizes)])
    return np.random.default_rng(sum(sizes)).permutation(y)


def random_matrix(n, p=6, seed=0):
    """Tie-free continuous columns of very different scales and offsets."""
    rng = np.random.default_rng(seed)
    cols = [
        rng.normal(size=n),
        rng.exponential(size=n) * 1e5,
        -3 + 1e-4 * rng.normal(size=n),
        1e4 + np.cumsum(rng.uniform(1e-6, 1e-5, n))[rng.permutation(n)],
        rng.uniform(-1, 1, n) ** 3,
        rng.standard_t(2, size=n),
    ]
    return np.column_stack(cols[:p])


OFFSET_COLUMN = 3  # random_matrix's column 1e4 + gaps of 1e-6..1e-5: ill-conditioned


def assert_scores_close(got, expected, rtol=1e-9):
    """rtol per column, 1e-6 for the offset column: its class means differ by ~1e-5 on
    values of 1e4, so a plain sum loses ~1e-12 / 1e-5 of relative accuracy there."""
    tolerance = np.full(len(expected), rtol)
    tolerance[OFFSET_COLUMN] = max(rtol, 1e-6)
    got, expected = np.asarray(got, float), np.asarray(expected, float)
    assert got.shape == expected.shape
    bad = np.abs(got - expected) > tolerance * np.abs(expected) + 1e-12
    assert not bad.any(), f"columns {np.flatnonzero(bad)}: {got[bad]} != {expected[bad]}"


def no_warnings(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args, **kwargs)


# A tiny two-class matrix (rows: class 0, class 0, class 0, class 1, class 1).
TINY_X = np.array(
    [[1.0, 0.0, 2.0], [2.0, 0.0, 4.0], [3.0, 3.0, 6.0], [5.0, 1.0, 1.0], [7.0, 1.0, 5.0]]
)
TINY_Y = np.array([0, 0, 0, 1, 1])
# A tiny three-class matrix (feature 0: a = {1, 3}, b = {4, 6, 8}, c = {10}).
THREE_X = np.array([[1.0], [3.0], [4.0], [6.0], [8.0], [10.0]])
THREE_Y = np.array([0, 0, 1, 1, 1, 2])


# ------------------------------------------------------------------ Fisher


def test_fisher_two_classes_by_hand():
    # f0: class 0 {1,2,3}: mean 2, S^2 = 1+0+1 = 2; class 1 {5,7}: mean 6, S^2 = 2 -> 16/4.
    # f1: class 0 {0,0,3}: mean 1; class 1 {1,1}: mean 1 -> 0 / 6 = 0.
    # f2: class 0 {2,4,6}: mean 4, S^2 = 8; class 1 {1,5}: mean 3, S^2 = 8 -> 1/16.
    np.testing.assert_allclose(fisher_score(TINY_X, TINY_Y), [4.0, 0.0, 1 / 16], rtol=TOL)


def test_fisher_s_squared_is_a_sum_not_a_variance():
    # Doubling every class (same means, spreads) doubles S^2, so the score halves;
    # a variance-based score would not change.
    doubled = fisher_score(np.vstack([TINY_X, TINY_X]), np.r_[TINY_Y, TINY_Y])
    np.testing.assert_allclose(doubled, [2.0, 0.0, 1 / 32], rtol=TOL)


def test_fisher_three_classes_by_hand():
    # Overall mean 32/6 = 16/3. S_B = 2 (2 - 16/3)^2 + 3 (6 - 16/3)^2 + 1 (10 - 16/3)^2
    # = (200 + 12 + 196) / 9 = 408/9; S_W = 2 + 8 + 0 = 10; F = 408/90 = 68/15.
    assert fisher_score(THREE_X, THREE_Y)[0] == pytest.approx(68 / 15, rel=TOL)


def test_fisher_class_sizes_weight_the_between_scatter():
    # Same class means (0, 1, 2) and no within-class spread except in class 0; only the
    # sizes differ, and with them S_B: sizes (2,1,1): mean 3/4, S_B = 2(9/16)+1/16+25/16
    # = 44/16; S_W = 2 (class 0 is {-1, 1}) -> 11/8.
    X = np.array([[-1.0], [1.0], [1.0], [2.0]])
    assert fisher_score(X, np.array([0, 0, 1, 2]))[0] == pytest.approx(11 / 8, rel=TOL)


@pytest.mark.parametrize("sizes", [(3, 9), (2, 5, 9), (4, 4, 6, 11)])
def test_fisher_against_slow_definition(sizes):
    y = labels_of(sizes)
    X = random_matrix(len(y))
    assert_scores_close(fisher_score(X, y), per_column(slow_fisher, X, y))


def test_fisher_constant_feature_is_zero_and_zero_spread_is_inf():
    X = np.array([[5.0, 1.0], [5.0, 1.0], [5.0, 1.0], [5.0, 2.0], [5.0, 2.0]])
    assert list(no_warnings(fisher_score, X, TINY_Y)) == [0.0, math.inf]
    X3 = np.array([[1.0], [1.0], [2.0], [2.0], [4.0], [4.0]])
    assert no_warnings(fisher_score, X3, np.array([0, 0, 1, 1, 2, 2]))[0] == math.inf


def test_zero_within_class_spread_of_inexact_values_is_inf():
    """Documented: no within-class spread and different means -> inf. Regression: with 0.1
    and 0.7 (not exact in binary) the class means came out 1 ulp off, the "within" scatter
    was ~1e-33 instead of 0 and the score a huge finite number (~1e31)."""
    X = np.r_[np.full(7, 0.1), np.full(3, 0.7)][:, None]
    y = np.r_[np.zeros(7, int), np.ones(3, int)]
    assert fisher_score(X, y)[0] == math.inf


# ------------------------------------------------------------------ S2N


def test_s2n_two_classes_by_hand():
    # f0: class 1 {5,7}: mean 6, sd sqrt(2); class 0 {1,2,3}: mean 2, sd 1 -> 4 / (1 + sqrt2).
    # f1: means 1 and 1 -> 0.
    # f2: class 1 {1,5}: sd sqrt(8); class 0 {2,4,6}: sd 2 -> 1 / (2 + sqrt8).
    expected = [4 / (1 + SQRT2), 0.0, 1 / (2 + 2 * SQRT2)]
    np.testing.assert_allclose(s2n_score(TINY_X, TINY_Y), expected, rtol=TOL)


def test_s2n_three_classes_is_max_over_one_vs_rest_by_hand():
    # a = {1,3}, b = {4,6,8}, c = {9,11}.
    #   a vs rest {4,6,8,9,11}: 5 / (sqrt2 + sqrt(8.5))
    #   b vs rest {1,3,9,11}:   0 / ... = 0
    #   c vs rest {1,3,4,6,8}:  (10 - 4.4) / (sqrt2 + sqrt(7.3))
    X = np.array([[1.0], [3.0], [4.0], [6.0], [8.0], [9.0], [11.0]])
    y = np.array([0, 0, 1, 1, 1, 2, 2])
    a = 5 / (SQRT2 + math.sqrt(34 / 4))  # rest: squared deviations 9+1+1+4+16
    c = 5.6 / (SQRT2 + math.sqrt(29.2 / 4))  # rest: 11.56+1.96+0.16+2.56+12.96
    assert s2n_score(X, y)[0] == pytest.approx(max(a, c), rel=TOL)


@pytest.mark.parametrize("sizes", [(3, 9), (2, 5, 9), (4, 4, 6, 11)])
def test_s2n_against_slow_definition(sizes):
    y = labels_of(sizes)
    X = random_matrix(len(y))
    if len(sizes) == 2:
        expected = [slow_s2n_binary(list(X[:, j]), list(y == 1)) for j in range(X.shape[1])]
    else:
        expected = per_column(lambda v, c: one_vs_rest_max(slow_s2n_binary, v, c), X, y)
    assert_scores_close(s2n_score(X, y), expected)


# ------------------------------------------------------------------ PCC


def test_pcc_two_classes_by_hand():
    # y = (0,0,0,1,1): mean 0.4, deviations (-.4,-.4,-.4,.6,.6), sum dy^2 = 1.2.
    # f0 = (1,2,3,5,7): mean 3.6; sum dx dy = 4.8, sum dx^2 = 23.2 -> r = 4.8 / sqrt(27.84).
    # f1 = (0,0,3,1,1): mean 1; sum dx dy = .4 + .4 - .8 = 0 -> 0.
    # f2 = (2,4,6,1,5): mean 3.6; sum dx dy = -1.2, sum dx^2 = 17.2 -> |r| = 1.2 / sqrt(20.64).
    expected = [4.8 / math.sqrt(27.84), 0.0, 1.2 / math.sqrt(20.64)]
    np.testing.assert_allclose(pcc_score(TINY_X, TINY_Y), expected, rtol=TOL, atol=TOL)


def test_pcc_constant_feature_is_zero():
    X = np.column_stack([np.full(5, 0.1), np.full(5, 3.0)])
    assert no_warnings(pcc_score, X, TINY_Y).tolist() == [0.0, 0.0]
    assert no_warnings(pcc_score, np.full((6, 1), 0.7), THREE_Y).tolist() == [0.0]


def test_pcc_is_absolute_and_multi_class_is_max():
    assert pcc_score(-TINY_X, TINY_Y)[0] == pytest.approx(4.8 / math.sqrt(27.84), rel=TOL)
    # THREE_X with classes a, b, c; |corr(x, [y == c])| for each class, the max wins.
    x = [1, 3, 4, 6, 8, 10]
    expected = max(abs(pearson(x, [int(c == k) for c in THREE_Y])) for k in (0, 1, 2))
    assert pcc_score(THREE_X, THREE_Y)[0] == pytest.approx(expected, rel=TOL)


@pytest.mark.parametrize("sizes", [(3, 9), (2, 5, 9), (4, 4, 6, 11)])
def test_pcc_against_slow_definition(sizes):
    y = labels_of(sizes)
    X = random_matrix(len(y))
    expected = per_column(lambda v, c: one_vs_rest_max(slow_pcc_binary, v, c), X, y)
    assert_scores_close(pcc_score(X, y), expected)


# ------------------------------------------------------------------ mutual information

MI_CASES = [  # (class sizes, n_neighbors)
    ((4, 40), 3),
    ((7, 30), 3),
    ((4, 40), 5),
    ((7, 30), 5),
    ((11, 12), 5),
    ((3, 5, 40), 3),
    ((6, 9, 25), 5),
    ((4, 7, 8, 30), 3),
    ((4, 7, 12, 30), 5),
    ((1, 5, 20), 3),  # a single sample is left out
]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("sizes, k", MI_CASES)
def test_mi_knn_equals_scikit_learn_per_column(sizes, k, compiled, compiled_kernels):
    compiled_kernels(compiled)
    y = labels_of(sizes)
    X = random_matrix(len(y), seed=len(sizes) * 10 + k)
    # the cases exercise both of scikit-learn's regimes: brute force (class <= 2k + 1)
    # and a KD-tree (class > 2k + 1)
    assert min(s for s in sizes if s > 1) <= 2 * k + 1 < max(sizes)
    expected = [_compute_mi_cd(X[:, j].copy(), y, k) for j in range(X.shape[1])]
    np.testing.assert_allclose(mi_score(X, y, n_neighbors=k), expected, rtol=0, atol=1e-9)


def test_mi_knn_informative_feature_scores_higher():
    y = labels_of((10, 40))
    rng = np.random.default_rng(3)
    X = np.column_stack([y + 0.1 * rng.normal(size=len(y)), rng.normal(size=len(y))])
    mi = mi_score(X, y)
    assert mi[0] > 0.3 > mi[1] >= 0


def test_discretise_quantile_codes_by_hand():
    # sorted (1,1,2,3,4,5,6,9); cuts at virtual indices 1.75, 3.5, 5.25 -> 1.75, 3.5, 5.25
    column = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    assert discretise(column[:, None], 4, "quantile")[:, 0].tolist() == [1, 0, 2, 0, 2, 3, 1, 3]
    assert slow_codes(column.tolist(), 4) == [1, 0, 2, 0, 2, 3, 1, 3]
    # a value equal to a cut goes to the lower bin: (1,2,3,4,5), cut at the median 3
    assert discretise(np.arange(1.0, 6.0)[:, None], 2)[:, 0].tolist() == [0, 0, 0, 1, 1]


def test_mi_binned_by_hand():
    # Two bins split (1,2 | 3,4) exactly as the classes: MI = H(class) = log 2.
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    assert mi_score(X, [0, 0, 1, 1], estimator="binned", bins=2)[0] == pytest.approx(math.log(2))
    # Classes (0,1 | 0,1) independent of the bins: 0.
    assert mi_score(X, [0, 1, 0, 1], estimator="binned", bins=2)[0] == pytest.approx(0, abs=TOL)


@pytest.mark.parametrize("sizes", [(5, 30), (3, 8, 20), (4, 7, 8, 30)])
@pytest.mark.parametrize("bins", [2, 3, 10])
def test_mi_binned_against_plug_in_with_dicts(sizes, bins):
    y = labels_of(sizes)
    rng = np.random.default_rng(bins)
    X = np.column_stack(
        [
            random_matrix(len(y), 4),
            rng.integers(0, 4, len(y)).astype(float),  # ties
            y + rng.integers(0, 2, len(y)),
        ]
    )  # ties, informative
    expected = [plug_in_mi(slow_codes(list(X[:, j]), bins), list(y)) for j in range(X.shape[1])]
    np.testing.assert_allclose(
        mi_score(X, y, estimator="binned", bins=bins), expected, rtol=1e-9, atol=1e-12
    )


@pytest.mark.parametrize("estimator", ["knn", "binned"])
@pytest.mark.parametrize("sizes", [(2, 30), (1, 4, 20), (3, 3, 3)])
def test_mi_never_negative_nor_nan(estimator, sizes):
    y = labels_of(sizes)
    rng = np.random.default_rng(7)
    n = len(y)
    X = np.column_stack(
        [
            rng.normal(size=(n, 3)),
            np.full(n, 0.1),  # constant
            rng.integers(0, 3, n),
            np.arange(n) % 2,
        ]
    )  # heavy ties
    mi = no_warnings(mi_score, X, y, estimator=estimator)
    assert np.isfinite(mi).all() and (mi >= 0).all()
    assert mi[3] == 0.0


# ------------------------------------------------------------------ ReliefF

# Four samples on the corners of a square after min-max scaling; one class-0 sample.
# Scaled: (0,0) (1,0) (0,1) (1,1).
CORNERS_X = np.array([[3.0, -2.0], [7.0, -2.0], [3.0, 10.0], [7.0, 10.0]])
CORNERS_Y = np.array([0, 1, 1, 1])


def test_relieff_by_hand_k1_with_ties_averaged():
    # P(0)/(1-P(1)) = P(1)/(1-P(0)) = 1. Per sample (hit diffs, miss diffs) with k = 1:
    #   R0 (0,0): no hit; misses 1, 2 tie at distance 1, half each: (1,0)/2 + (0,1)/2
    #                                                                  -> +(1/2, 1/2)
    #   R1 (1,0): hit 3 (distance 1): (0,1); miss 0: (1,0)             -> (1, -1)
    #   R2 (0,1): hit 3: (1,0); miss 0: (0,1)                          -> (-1, 1)
    #   R3 (1,1): hits 1, 2 tie, half each: (1/2, 1/2); miss 0: (1,1)  -> (1/2, 1/2)
    # W = (1, 1) / 4. (Ties to the lower index gave (2, 0) / 4, to the higher (0, 2) / 4:
    # their mean, as over the two orders of the tied samples.)
    np.testing.assert_allclose(
        relieff_score(CORNERS_X, CORNERS_Y, n_neighbors=1), [0.25, 0.25], atol=TOL
    )
    for rank, expected in (([0, 1, 2, 3], [0.5, 0.0]), ([3, 2, 1, 0], [0.0, 0.5])):
        assert relieff_by_order(CORNERS_X, CORNERS_Y, 1, rank) == pytest.approx(expected)


def test_relieff_by_hand_k2_and_a_class_smaller_than_k():
    #   R0: no hit; misses 1, 2: mean (0.5, 0.5)                    -> (0.5, 0.5)
    #   R1: hits 3, 2: mean (0.5, 1); only one miss, 0: (1, 0)       -> (0.5, -1)
    #   R2: hits 3, 1: mean (1, 0.5); miss 0: (0, 1)                 -> (-1, 0.5)
    #   R3: hits 1, 2: mean (0.5, 0.5); miss 0: (1, 1)               -> (0.5, 0.5)
    np.testing.assert_allclose(
        relieff_score(CORNERS_X, CORNERS_Y, n_neighbors=2), [0.125, 0.125], atol=TOL
    )


@pytest.mark.parametrize("sizes", [(6, 20), (3, 12, 20), (9, 2, 5)])
@pytest.mark.parametrize("k", [1, 7])
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_relieff_against_slow_loop(sizes, k, compiled, compiled_kernels):
    compiled_kernels(compiled)
    y = labels_of(sizes)
    X = random_matrix(len(y), seed=k)
    X[:, 2] = 4.2  # a constant feature: diff 0, weight 0
    expected = slow_relieff(X, y, k)
    np.testing.assert_allclose(relieff_score(X, y, n_neighbors=k), expected, rtol=1e-9, atol=TOL)
    assert expected[2] == 0.0


def test_relieff_against_slow_loop_with_many_exact_ties():
    # integers 0..4 in every column: scaled values are exact quarters, many equal distances
    rng = np.random.default_rng(11)
    X = rng.integers(0, 5, (30, 5)).astype(float)
    X[0], X[1] = 0.0, 4.0
    y = labels_of((8, 10, 12))
    for k in (1, 3, 7):
        np.testing.assert_allclose(
            relieff_score(X, y, n_neighbors=k), slow_relieff(X, y, k), rtol=1e-12, atol=TOL
        )


@st.composite
def tie_heavy_relieff_case(draw):
    """3-7 samples of 1-3 features with values in {0, 1, 2} (equal distances everywhere,
    duplicate rows across classes), 2 or 3 classes (one may hold a single sample), and k."""
    n = draw(st.integers(3, 7))
    p = draw(st.integers(1, 3))
    values = draw(st.lists(st.integers(0, 2), min_size=n * p, max_size=n * p))
    labels = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    if len(set(labels)) < 2:
        labels[0] = 1 - labels[1] if labels[1] < 2 else 0
    return np.array(values, dtype=float).reshape(n, p), np.array(labels), draw(st.integers(1, 4))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=tie_heavy_relieff_case(), compiled=st.booleans())
def test_relieff_is_the_mean_over_every_order_of_the_samples(case, compiled, compiled_kernels):
    """Ties averaged: the weights equal the authors' rule (ties to the lower index) averaged
    over every order of the rows, by brute force; so does the slow loop the tests on larger
    data use."""
    compiled_kernels(compiled)
    X, y, k = case
    expected = relieff_over_every_order(X, y, k)
    np.testing.assert_allclose(relieff_score(X, y, n_neighbors=k), expected, rtol=1e-12, atol=TOL)
    np.testing.assert_allclose(slow_relieff(X, y, k), expected, rtol=1e-12, atol=TOL)


@pytest.mark.parametrize(
    "method, params",
    [
        ("relieff", {"n_neighbors": 1}),
        ("relieff", {"n_neighbors": 3}),
        ("mi", {"n_neighbors": 1}),
        ("mi", {"estimator": "binned"}),
        ("mi", {"estimator": "binned", "binning": "uniform", "bins": 4}),
        ("mi", {"tie_noise": False}),
        ("d-mi", {"n_neighbors": 5, "n_clusters": 3}),
    ],
)
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_scores_are_the_same_in_any_order_of_the_samples(
    method, params, compiled, compiled_kernels
):
    """MI's and ReliefF's other settings on integer data of a few values, three classes
    and exact duplicate rows: equal bit for bit under permutations of the rows (the
    defaults: tests/unit/methods/test_row_order.py)."""
    compiled_kernels(compiled)
    rng = np.random.default_rng(4)
    y = labels_of((9, 14, 37))
    X = rng.integers(-2, 3, (len(y), 12)).astype(float)
    X[:, :3] += y[:, None]
    X[10:20] = X[0]  # identical rows of several classes
    if method.startswith("d-"):
        y = (y == 0).astype(int)
    expected = RANKERS[method](X, y, **params)
    for seed in range(3):
        rows = np.random.default_rng(seed).permutation(len(y))
        assert np.array_equal(RANKERS[method](X[rows], y[rows], **params), expected), seed


@st.composite
def summed_block(draw):
    """A block of values of very different magnitudes and signs (zeros, -0.0, repeats),
    the rows summed (a subset, some repeated), a centre and whether to square."""
    m, p = draw(st.integers(1, 40)), draw(st.integers(1, 4))
    value = st.one_of(
        st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=True),
        st.sampled_from([0.0, -0.0, 0.1, 1 / 3, 1e-300, 2.0**52, 1e15 + 0.5]),
        st.integers(-5, 5).map(float),
    )
    X = np.array(draw(st.lists(value, min_size=m * p, max_size=m * p))).reshape(m, p)
    rows = np.array(draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=2 * m)))
    centre = draw(st.one_of(st.none(), st.just(X.mean(axis=0))))
    return X, rows, centre, draw(st.booleans())


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=summed_block(), seed=st.integers(0, 2**32 - 1))
def test_column_sums_are_the_same_in_any_order_and_near_exact(case, seed, compiled_kernels):
    """The rankers' sums: equal bit for bit in any order of the rows, compiled (C or
    Fortran order) or numpy, and within (4 m)^4 2^-161 b (b: the column's bound on |v|
    over all rows) plus the result's rounding of the exact sum."""
    from fsengine.methods.rankers._sums import column_sums

    X, rows, centre, square = case
    compiled_kernels(True)
    expected = column_sums(X, rows, centre, square)
    shuffled = np.random.default_rng(seed).permutation(rows)
    assert np.array_equal(column_sums(X, shuffled, centre, square), expected)
    assert np.array_equal(column_sums(np.asfortranarray(X), shuffled, centre, square), expected)
    compiled_kernels(False)
    assert np.array_equal(column_sums(X, shuffled, centre, square), expected)
    for j in range(X.shape[1]):
        every = [x - (0.0 if centre is None else centre[j]) for x in X[:, j]]
        every = [v * v for v in every] if square else every
        values = [every[r] for r in rows]
        exact = math.fsum(values)
        bound = (4 * len(values)) ** 4 * 2.0**-161 * max(abs(v) for v in every)
        assert abs(expected[j] - exact) <= bound + math.ulp(exact), (j, expected[j], exact)


def test_column_sums_near_the_top_of_the_double_range_are_summed_sorted(compiled_kernels):
    """A column whose folds would overflow (|v| near 2^1000 / m) is summed in sorted order:
    still the same in any order of the rows, and equal to the sorted sum."""
    from fsengine.methods.rankers._sums import column_sums

    X = np.column_stack([np.array([3e305, -1e305, 2.5e304, 1e290, -7e300]), np.arange(5.0)])
    for compiled in (True, False):
        compiled_kernels(compiled)
        expected = column_sums(X)
        assert expected.tolist() == [np.sort(X[:, 0]).sum(), 10.0]
        for seed in range(4):
            rows = np.random.default_rng(seed).permutation(5)
            assert np.array_equal(column_sums(X[rows]), expected)


def test_mi_tie_free_columns_stay_scikit_learns_beside_tied_ones():
    """Tie noise goes only to columns with ties: the others give scikit-learn's
    per-column estimate (to the rounding of its final means), in any row order."""
    y = labels_of((12, 50))
    rng = np.random.default_rng(2)
    X = np.column_stack(
        [random_matrix(len(y), 6, seed=3), np.round(rng.normal(size=(len(y), 3)) + y[:, None], 1)]
    )
    tie_free = [j for j in range(X.shape[1]) if len(np.unique(X[:, j])) == len(y)]
    assert tie_free == list(range(6))
    expected = [_compute_mi_cd(X[:, j].copy(), y, 3) for j in tie_free]
    for seed in range(3):
        rows = np.random.default_rng(seed).permutation(len(y))
        got = mi_score(X[rows], y[rows])
        np.testing.assert_allclose(got[tie_free], expected, rtol=1e-13, atol=1e-15)
        assert got[6:].min() > 0  # the tied, informative columns are not lost to ties


# ------------------------------------------------------------------ Hellinger


def test_hellinger_by_hand_ten_bins():
    # range 0..10, width 1. + = {0, 2, 5} -> bins 0, 2, 5; - = {1, 5, 10, 10} -> bins 1, 5, 9, 9
    # (10 is the maximum -> last bin). Sum = 1/3 + 1/4 + 1/3 + (1/sqrt3 - 1/2)^2 + 1/2
    # = 2 - 1/sqrt3.
    x = np.array([[0.0], [2.0], [5.0], [1.0], [5.0], [10.0], [10.0]])
    y = np.array([1, 1, 1, 0, 0, 0, 0])
    assert hellinger_score(x, y)[0] == pytest.approx(math.sqrt(2 - 1 / SQRT3), rel=TOL)
    assert slow_hellinger(x[:, 0].tolist(), y.tolist()) == pytest.approx(math.sqrt(2 - 1 / SQRT3))


def test_hellinger_by_hand_edge_value_goes_to_upper_bin():
    # 5 bins of width 2 (edges 0,2,4,6,8): + = {0, 2, 5} -> 0, 1 (on the edge 2), 2;
    # - = {1, 5, 10, 10} -> 0, 2, 4, 4. Sum = 2 (1/sqrt3 - 1/2)^2 + 1/3 + 1/2 = 2 - 2/sqrt3.
    x = np.array([[0.0], [2.0], [5.0], [1.0], [5.0], [10.0], [10.0]])
    y = np.array([1, 1, 1, 0, 0, 0, 0])
    assert hellinger_score(x, y, bins=5)[0] == pytest.approx(math.sqrt(2 - 2 / SQRT3), rel=TOL)


def test_hellinger_identical_is_zero_and_disjoint_is_sqrt2():
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0])
    X = np.column_stack(
        [
            [1, 2, 3, 1, 1, 2, 2, 3, 3],  # + and - both 1/3 in each value
            [0, 1, 2, 8, 9, 10, 10, 9, 8],  # + in bins 0-2, - in bins 8-9
            np.full(9, 7.0),
        ]
    )  # constant
    scores = no_warnings(hellinger_score, X.astype(float), y)
    assert scores[0] == pytest.approx(0.0, abs=TOL)
    assert scores[1] == pytest.approx(SQRT2, rel=TOL)
    assert scores[2] == 0.0


@pytest.mark.parametrize("bins", [2, 3, 10, 17])
def test_hellinger_against_slow_histogram(bins):
    y = labels_of((7, 25))
    rng = np.random.default_rng(bins)
    X = np.column_stack(
        [
            rng.integers(-10, 11, len(y)).astype(float),  # edges exact ...
            rng.integers(0, 35, len(y)) * 0.5,
            random_matrix(len(y), 3, seed=bins),
        ]
    )
    X[0, 0], X[1, 0] = -10.0, 10.0  # ... with the range 20
    np.testing.assert_allclose(
        hellinger_score(X, y, bins=bins),
        per_column(slow_hellinger, X, y, bins),
        rtol=1e-12,
        atol=TOL,
    )


# ------------------------------------------------------------------ decomposition


@pytest.mark.parametrize(
    "n_min, n_maj, k", [(11, 72, 7), (4, 10, 3), (4, 9, 2), (5, 3, 1), (2, 2, 1), (3, 40, 13)]
)
def test_default_clusters_is_rounded_size_ratio(n_min, n_maj, k):
    # 72/11 = 6.55 -> 7; 10/4 = 2.5 -> 3 (halves round up); 9/4 = 2.25 -> 2; 3/5 -> 1
    assert default_clusters(np.r_[np.ones(n_min, int), np.zeros(n_maj, int)]) == k


def direction_groups(m=10, low=1.0, high=1000.0, seed=0):
    """Majority rows in 3 groups pointing along features 0, 1, 2 (cosines near 1 within a
    group, near 0 across), with lengths spread over low..high so that Euclidean k-means on
    the raw rows would split them by length instead. Returns (rows, group of each row)."""
    rng = np.random.default_rng(seed)
    groups = np.repeat([0, 1, 2], m)
    lengths = np.tile(np.geomspace(low, high, m), 3)
    rows = rng.uniform(0, 0.05, (3 * m, 3))
    rows[np.arange(3 * m), groups] = 1.0
    return rows * lengths[:, None], groups


def same_partition(a, b):
    """True if labelings a and b group the samples identically (labels may be permuted)."""
    return len(set(zip(a, b))) == len(set(a)) == len(set(b))


def test_pseudo_labels_label_set_sizes_and_determinism():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(47, 8))
    y = np.r_[np.ones(7, int), np.zeros(40, int)]  # k = round(40/7) = 6
    labels = pseudo_labels(X, y)
    assert set(labels[y == 1]) == {0}
    assert set(labels[y == 0]) == set(range(1, 7))  # 1..k, every cluster used
    assert sum(np.sum(labels == c) for c in range(7)) == len(y)
    assert np.array_equal(labels, compute_pseudo_labels(X, y, seed=0))  # same seed
    assert np.array_equal(compute_pseudo_labels(X, y, seed=3), compute_pseudo_labels(X, y, seed=3))
    assert set(pseudo_labels(X, y, n_clusters=4)) == {0, 1, 2, 3, 4}
    assert set(pseudo_labels(X, y, n_clusters=1)) == {0, 1}


def test_pseudo_labels_cache_returns_copies():
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(20, 4)), np.r_[np.ones(5, int), np.zeros(15, int)]
    first = pseudo_labels(X, y)
    first[:] = 99
    assert np.array_equal(pseudo_labels(X, y), compute_pseudo_labels(X, y))


def test_pseudo_labels_recover_direction_groups_exactly():
    rows, groups = direction_groups()
    X = np.vstack([rows, np.ones((10, 3))])
    y = np.r_[np.zeros(30, int), np.ones(10, int)]  # k = 30 / 10 = 3
    for seed in (0, 1, 2):
        labels = pseudo_labels(X, y, seed=seed)
        assert set(labels[30:]) == {0}
        assert same_partition(labels[:30], groups)
    # Euclidean k-means on the raw rows would not: it splits by length.
    raw = KMeans(n_clusters=3, n_init=3, random_state=0).fit(rows).labels_
    assert not same_partition(raw, groups)


def test_d_fisher_gains_rank_for_feature_separating_minority_from_one_subcluster():
    """Feature 3 puts the minority (about 10) far from majority group A (about 0) but
    inside groups B and C (spread over 0..20): as a whole the majority overlaps the
    minority. Feature 4 shifts the minority a little from every majority sample. Fisher
    prefers feature 4; D-Fisher, scoring against the pseudo-subclasses, feature 3."""
    m = 10
    # long rows, so that features 3 and 4 (|values| <= 20) barely tilt their directions
    rows, groups = direction_groups(m, low=100.0, high=10_000.0)
    rng = np.random.default_rng(1)
    one_group = np.where(
        groups == 0, np.linspace(-0.5, 0.5, 3 * m), np.tile(np.linspace(0, 20, m), 3)
    )
    shifted = rng.normal(0, 1, 4 * m) + np.r_[np.zeros(3 * m), np.full(m, 1.2)]
    X = np.column_stack(
        [
            np.vstack([rows, rng.uniform(50, 150, (m, 3))]),
            np.r_[one_group, np.linspace(9.5, 10.5, m)],
            shifted,
        ]
    )
    y = np.r_[np.zeros(3 * m, int), np.ones(m, int)]
    assert same_partition(pseudo_labels(X, y)[: 3 * m], groups)  # k = 30 / 10 = 3
    plain, decomposed = fisher_score(X, y), d_fisher_score(X, y)
    assert slow_ranking(plain).index(3) > slow_ranking(plain).index(4)
    assert slow_ranking(decomposed).index(3) == 0 < slow_ranking(decomposed).index(4)
    # and D-Fisher is the three-or-more-class Fisher of the true groups (clusters recovered)
    truth = np.r_[groups + 1, np.zeros(m, int)]
    np.testing.assert_allclose(decomposed, per_column(slow_fisher, X, truth), rtol=1e-9)


@pytest.mark.parametrize("method", ["d-fisher", "d-mi", "d-pcc", "d-s2n"])
def test_decomposition_rankers_score_the_pseudo_labels(method):
    rng = np.random.default_rng(8)
    X, y = rng.normal(size=(36, 5)), np.r_[np.ones(6, int), np.zeros(30, int)]
    labels = compute_pseudo_labels(X, y, n_clusters=4, seed=2)
    slow = {
        "d-fisher": slow_fisher,
        "d-pcc": lambda v, c: one_vs_rest_max(slow_pcc_binary, v, c),
        "d-s2n": lambda v, c: one_vs_rest_max(slow_s2n_binary, v, c),
    }
    got = RANKERS[method](X, y, n_clusters=4, seed=2)
    if method == "d-mi":
        expected = [_compute_mi_cd(X[:, j].copy(), labels, 3) for j in range(5)]
    else:
        expected = per_column(slow[method], X, labels)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ common interface


def interface_data():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 7))
    X[:, 2] = 5.0  # constant
    X[:, 4] = 0.0  # constant zero
    X[:, 5] = rng.integers(0, 3, 40)  # ties
    return X, np.r_[np.ones(8, int), np.zeros(32, int)]


@pytest.mark.parametrize("method", sorted(RANKERS))
def test_one_score_per_feature_never_nan_constant_zero_no_warnings(method):
    X, y = interface_data()
    scores = no_warnings(RANKERS[method], X, y)
    assert scores.shape == (7,) and scores.dtype == float
    assert not np.isnan(scores).any()
    assert scores[2] == 0.0 and scores[4] == 0.0


@pytest.mark.parametrize("value", [0.1, 1 / 3, 123.456, 1e4 + 0.1])
@pytest.mark.parametrize("method", sorted(RANKERS))
def test_constant_feature_of_inexact_value_scores_zero(method, value):
    """Regression: for a constant like 0.1 numpy's class means differ from the value in
    the last bit, and Fisher and S2N (and their D- forms) used to divide rounding noise by
    rounding noise (on these data Fisher ~0.05, S2N ~0.97, D-Fisher up to inf), so a
    constant feature could outrank every real one. Fixed in e539401 (range test)."""
    X, y = interface_data()
    X[:, 2] = value
    assert no_warnings(RANKERS[method], X, y)[2] == 0.0


@pytest.mark.parametrize("method", sorted(RANKERS))
def test_selector_ranks_by_descending_score_ties_to_lower_index(method):
    X, y = interface_data()
    X = np.column_stack([X, X[:, 0], X[:, 1]])  # exact duplicates: tied scores
    selector = RankerSelector(method=method, k=4).fit(X, y)
    assert np.array_equal(selector.scores_, RANKERS[method](X, y))
    assert selector.ranking_.tolist() == slow_ranking(selector.scores_.tolist())
    assert selector.get_support(indices=True).tolist() == sorted(slow_ranking(selector.scores_)[:4])
    assert selector.transform(X).shape == (40, 4)
    assert rank_features(selector.scores_).tolist() == selector.ranking_.tolist()


def test_ties_go_to_the_lower_index_by_hand():
    assert rank_features([1.0, 3.0, 3.0, math.inf, 0.0, math.inf]).tolist() == [3, 5, 1, 2, 0, 4]
    X = np.column_stack([TINY_X[:, 2], TINY_X[:, 0], TINY_X[:, 0], TINY_X[:, 1]])
    selector = RankerSelector("fisher", k=1).fit(X, TINY_Y)
    assert selector.get_support().tolist() == [False, True, False, False]


def test_selector_in_pipeline_with_dataframe():
    rng = np.random.default_rng(10)
    y = np.r_[np.ones(8, int), np.zeros(32, int)]
    names = [f"gene_{j}" for j in range(6)]
    frame = pd.DataFrame(rng.normal(size=(40, 6)), columns=names)
    frame["gene_4"] += 3 * y  # the strongest feature
    frame["gene_1"] += 1 * y  # the second
    pipe = Pipeline(
        [("select", RankerSelector(method="s2n", k=2)), ("model", LogisticRegression())]
    ).fit(frame, y)
    select = pipe.named_steps["select"]
    assert select.get_support().tolist() == [False, True, False, False, True, False]
    assert select.get_feature_names_out().tolist() == ["gene_1", "gene_4"]
    assert np.array_equal(select.transform(frame), frame[["gene_1", "gene_4"]].to_numpy())
    np.testing.assert_allclose(select.scores_, s2n_score(frame.to_numpy(), y), rtol=TOL)
    assert pipe.predict(frame).shape == (40,)
    assert pipe.score(frame, y) > 0.9


def test_selector_minority_one_versus_rest():
    y = np.array(["a", "a", "b", "b", "b", "c", "c", "c", "c", "c"])
    X = np.column_stack([np.arange(10.0), (y == "a") * 1.0 + np.linspace(0, 0.1, 10)])
    selector = RankerSelector("pcc", k=1, minority="a").fit(X, y)
    np.testing.assert_allclose(selector.scores_, pcc_score(X, (y == "a").astype(int)))
    assert selector.get_support(indices=True).tolist() == [1]
    # binary y: the minority defaults to the rarer class; params reach the ranker
    selector = RankerSelector("relieff", k=1, params={"n_neighbors": 2}).fit(X[2:], y[2:])
    np.testing.assert_allclose(
        selector.scores_, slow_relieff(X[2:], y[2:] == "b", 2), rtol=1e-12, atol=TOL
    )


# ------------------------------------------------------------------ run_selection

RUN_CASES = [  # (method, ranker parameters, k-means seed)
    ("fisher", {}, None),
    ("s2n", {}, None),
    ("pcc", {}, None),
    ("mi", {}, None),
    ("mi", {"estimator": "binned", "bins": 5}, None),
    ("relieff", {"n_neighbors": 3}, None),
    ("hellinger", {"bins": 8}, None),
    ("d-fisher", {}, None),
    ("d-mi", {"n_clusters": 3}, None),
    ("d-pcc", {}, None),
    ("d-s2n", {}, 4),
]


@pytest.mark.parametrize("method, params, seed", RUN_CASES)
def test_run_selection_equals_ranker_selector(srbct, method, params, seed):
    result = run_selection(srbct, "2", method, top=15, seed=seed, **params)
    selector_params = {**params, **({"seed": seed} if seed is not None else {})}
    selector = RankerSelector(method, k=15, params=selector_params, minority=2)
    selector.fit(srbct.X, srbct.labels)
    top = selector.ranking_[:15].tolist()
    assert list(result.selection.columns) == top
    assert sorted(result.selection.columns) == selector.get_support(indices=True).tolist()
    assert list(result.selection.features) == [srbct.feature_names[j] for j in top]
    np.testing.assert_array_equal(result.scores, selector.scores_)
    assert list(result.selection.scores) == [float(selector.scores_[j]) for j in top]
    assert top == slow_ranking(selector.scores_.tolist())[:15]
    assert result.params["method"] == method and result.params["top"] == 15


def test_run_ranking_small_dataset_by_hand():
    data = Dataset(
        X=TINY_X.copy(order="F"),
        labels=np.array(["x", "x", "x", "y", "y"]),
        feature_names=("f0", "f1", "f2"),
        label_column="class",
    )
    result = run_selection(data, "y", "fisher", top=2)
    assert result.selection.features == ("f0", "f2")
    assert result.selection.scores == pytest.approx((4.0, 1 / 16))
    everything = run_selection(data, "y", "fisher")
    assert everything.selection.columns == (0, 2, 1)
    assert run_selection(data, "y", "d-fisher").params["n_clusters"] == default_clusters(
        np.array([0, 0, 0, 1, 1])
    )


# ------------------------------------------------------------------ invalid input

X_OK, Y_OK = interface_data()

BAD_SCORER_CALLS = [
    ("nope", {}),
    ("fisher", {"bins": 3}),
    ("relieff", {"n_neighbors": 0}),
    ("relieff", {"n_neighbors": 2.5}),
    ("relieff", {"n_neighbors": True}),
    ("mi", {"n_neighbors": 0}),
    ("mi", {"estimator": "kde"}),
    ("mi", {"estimator": "binned", "bins": 1}),
    ("mi", {"estimator": "binned", "binning": "x"}),
    ("hellinger", {"bins": 1}),
    ("hellinger", {"bins": 2.0}),
    ("hellinger", {"bins": True}),
    ("d-fisher", {"n_clusters": 0}),
    ("d-fisher", {"n_clusters": 33}),
    ("d-pcc", {"n_clusters": 1.5}),
    ("d-s2n", {"bins": 3}),
]


@pytest.mark.parametrize("method, params", BAD_SCORER_CALLS)
def test_invalid_ranker_parameters_raise(method, params):
    with pytest.raises(FSEngineError):
        score_features(method, X_OK, Y_OK, **params)


@pytest.mark.parametrize(
    "X, y",
    [
        (np.array([[1.0, np.nan], [2.0, 3.0]]), [0, 1]),
        (np.array([[1.0, np.inf], [2.0, 3.0]]), [0, 1]),
        (np.arange(4.0), [0, 1, 0, 1]),
        (np.ones((3, 2)), [0, 1]),
        (np.ones((3, 2)), [1, 1, 1]),
    ],
)
@pytest.mark.parametrize("method", sorted(RANKERS))
def test_invalid_data_raises(method, X, y):
    with pytest.raises(FSEngineError):
        RANKERS[method](X, y)


def test_invalid_labels_for_binary_only_scorers_raise():
    with pytest.raises(FSEngineError):
        hellinger_score(THREE_X, THREE_Y)
    with pytest.raises(FSEngineError):
        pseudo_labels(TINY_X, TINY_Y + 1)  # labels must be 0/1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": 0},
        {"k": 8},
        {"k": True},
        {"k": 1.5},
        {"method": "nope"},
        {"minority": 7},
        {"params": {"n_neighbors": 0}, "method": "relieff"},
    ],
)
def test_invalid_selector_parameters_raise(kwargs):
    with pytest.raises(FSEngineError):
        RankerSelector(**kwargs).fit(X_OK, Y_OK)


def test_selector_defaults_to_the_smallest_class_ties_to_the_first():
    # The one label rule (fsengine.data.labels): the smallest class, ties to the first in order.
    X = np.array([[0.0, 5.0], [0.1, 1.0], [3.0, 2.0], [3.1, 4.0]])
    tied = RankerSelector(k=1).fit(X, [7, 7, 9, 9])  # 7 and 9 tie: 7 is the minority
    named = RankerSelector(k=1, minority=7).fit(X, [7, 7, 9, 9])
    assert tied.scores_.tolist() == named.scores_.tolist()
    flipped = RankerSelector(k=1, minority=9).fit(X, [7, 7, 9, 9])
    assert flipped.scores_.tolist() == named.scores_.tolist()  # Fisher is symmetric
    with pytest.raises(FSEngineError) as caught:
        RankerSelector(k=1).fit(X, [7, 8, 8, 8])  # the smallest class has 1 sample
    assert caught.value.parameter == "minority"


@pytest.mark.parametrize(
    "kwargs", [{"top": 0}, {"top": 4}, {"top": 1.0}, {"seed": 1}, {"bins": 3}, {"order": "random"}]
)
def test_invalid_run_parameters_raise(kwargs):
    data = Dataset(
        X=TINY_X.copy(order="F"), labels=TINY_Y, feature_names=("a", "b", "c"), label_column="class"
    )
    with pytest.raises(FSEngineError):
        run_selection(data, 1, "fisher", **kwargs)


def test_constant_features_score_zero_in_every_ranker():
    """Regression: a constant 3.3 has class means that differ in the last bit, and Fisher,
    S2N and D-Fisher once scored it 0.05, 0.97 and 20.8."""
    import warnings

    from fsengine.methods.rankers import RANKERS, score_features

    rng = np.random.default_rng(0)
    y = np.zeros(40, int)
    y[:8] = 1
    X = rng.normal(size=(40, 6))
    X[:, 2], X[:, 4] = 3.3, 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in RANKERS:
            scores = score_features(name, X, y)
            assert scores[2] == 0.0 and scores[4] == 0.0, name


def test_mi_breaks_ties_only_where_there_are_ties():
    """An informative feature of rounded values must not score 0 (the noise-free kNN
    estimator gives it 0); tie-free and constant columns are left untouched."""
    from sklearn.feature_selection import mutual_info_classif

    rng = np.random.default_rng(3)
    y = np.zeros(120, int)
    y[:20] = 1
    informative = np.round(rng.normal(size=120) + 1.5 * y, 1)  # ties, informative
    smooth = rng.normal(size=120) + y  # no ties
    X = np.column_stack([informative, smooth, np.full(120, 0.3)])
    with_noise = mi_score(X, y)
    raw = mi_score(X, y, tie_noise=False)
    assert with_noise[1] == raw[1]  # untouched column
    assert with_noise[2] == raw[2] == 0.0  # constant stays 0
    sklearn_value = mutual_info_classif(X[:, :1], y, random_state=0)[0]
    assert with_noise[0] > 0.1
    assert with_noise[0] == pytest.approx(sklearn_value, abs=0.03)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_mi_neighbour_counts_equal_the_definition_on_tied_values(seed, compiled, compiled_kernels):
    """The count of points within each point's radius against all pairs, with ties and zero
    radii."""
    compiled_kernels(compiled)
    from fsengine.methods.rankers._mi import _count_within

    rng = np.random.default_rng(seed)
    m, p = int(rng.integers(2, 40)), int(rng.integers(1, 6))
    values = np.round(rng.standard_normal((m, p)), int(rng.integers(0, 3)))
    radius = np.abs(np.round(rng.standard_normal((m, p)), 1)) * rng.choice([0.0, 0.5, 2.0])
    expected = np.array(
        [
            [
                sum((values[j, f] - values[i, f]) ** 2 <= radius[i, f] ** 2 for j in range(m))
                for f in range(p)
            ]
            for i in range(m)
        ]
    )
    assert _count_within(values, radius).tolist() == expected.tolist()


@pytest.mark.parametrize("shape", [(2, 1), (5, 3), (40, 7), (91, 300)])
def test_relieff_distances_equal_scipys_cityblock_bit_for_bit(shape):
    from scipy.spatial.distance import cdist

    from fsengine.methods.rankers._relieff_kernels import cityblock

    rng = np.random.default_rng(shape[0])
    X = rng.random(shape)
    X[:, : max(1, shape[1] // 2)] = np.round(X[:, : max(1, shape[1] // 2)], 1)  # ties
    assert np.array_equal(cityblock(np.ascontiguousarray(X.T)), cdist(X, X, "cityblock"))


@pytest.mark.parametrize("k", [1, 3, 7])
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_kth_distances_equal_the_definition(k, compiled, compiled_kernels):
    compiled_kernels(compiled)
    from fsengine.methods.rankers._mi import _exact_kth_distance

    rng = np.random.default_rng(k)
    values = np.round(rng.standard_normal((30, 20)), 1)
    got = _exact_kth_distance(values, k)
    for j in range(values.shape[1]):
        for i in range(values.shape[0]):
            others = np.sort(np.abs(np.delete(values[:, j], i) - values[i, j]))
            assert got[i, j] == others[k - 1]


@pytest.mark.parametrize("n,n_classes,k", [(30, 2, 5), (100, 2, 7), (150, 3, 1), (71, 4, 9)])
def test_relieff_is_the_same_compiled_or_not(n, n_classes, k, compiled_kernels):
    """Distances and weights' updates compiled equal numpy's to the last bit: classes of
    more than 32 samples (several blocks of summed rows), ties, k larger than a class."""
    rng = np.random.default_rng(11 + n)
    X = np.round(rng.standard_normal((n, 40)), 1)
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)
    compiled = relieff_score(X, y, n_neighbors=k)
    compiled_kernels(False)
    assert np.array_equal(relieff_score(X, y, n_neighbors=k), compiled)
