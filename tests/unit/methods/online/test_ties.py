"""The order-invariant tie rule (``ties="average"``) of K-OFSD, SFSF's k-nearest model and
OSFS-ET, against a brute-force average over every order of the rows.

The definition used here is independent of the engine: distances summed feature by feature
as the authors' ``pdist(X, 'seuclidean')``, each sample's list by a stable sort of its
distance row (ties to the lower row index, the authors' rule), its card by the card's
formula; the average rule must equal the mean of that card over all n! orders of the rows.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from conftest import GLIOMA, SAMPLE
from fsengine import load_dataset
from fsengine._compute.sparse import nonzero_order
from fsengine.config import config_context
from fsengine.data.task import Task
from fsengine.methods.online import _point_search, _tie_average
from fsengine.methods.online._codes import ZHOU_DENSITY, ZHOU_GAP
from fsengine.methods.online._roughset.kofsd.selector import KOFSD, run_kofsd, run_kofsd_for_ks
from fsengine.methods.online._tie_average import (
    AveragedSet,
    NeighbourRule,
    exceeding_sum,
    invariant_weights,
    single_dependencies,
    tie_kernels,
)
from fsengine.methods.registry import get_method
from synthetic import RARE_TYPE, single_cell_counts, sparse_log_counts

CARDS = ("imbalanced", "consistency", "weight", "distance")


def _distances(X: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The authors' distances: ((w * d) * d) summed over the features in order, the root,
    a zero diagonal (NaN elsewhere when a feature is constant under 'seuclidean')."""
    n = len(X)
    sq = np.zeros((n, n))
    for j in range(X.shape[1]):
        d = X[:, j][:, None] - X[:, j][None, :]
        with np.errstate(invalid="ignore"):
            sq = sq + (weights[j] * d) * d
    with np.errstate(invalid="ignore"):
        dist = np.sqrt(sq)
    np.fill_diagonal(dist, 0.0)
    return dist


def _card(rule: NeighbourRule, same: int, same_d: float, other_d: float, label: int) -> float:
    """The card of a sample with ``same`` same-label neighbours among K (cards.py's
    formulas, written out)."""
    k = rule.k
    fraction = same / k
    if rule.card == "share":
        return fraction
    if rule.card == "imbalanced":
        return fraction if label == 1 else float(same == k)
    if rule.card == "consistency":
        return float(same == k)
    if rule.card == "weight":
        return fraction if fraction > rule.gamma else 0.0
    if fraction >= rule.gamma1:
        return 1.0
    if fraction <= rule.gamma2:
        return 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_same = same_d / same if same else math.nan
        mean_other = other_d / (k - same) if k - same else math.nan
    return float(mean_other - mean_same > 1e-12 * max(mean_same, mean_other))


def _index_cards(X, y, weights, rule: NeighbourRule) -> np.ndarray:
    """Every sample's card under the authors' rule (stable sort, ties to the lower index)."""
    dist = _distances(X, weights)
    n = len(y)
    cards = np.empty(n)
    for i in range(n):
        order = list(np.argsort(dist[i], kind="stable"))
        if rule.with_self:
            listed = order[: rule.need][1:] if rule.skip_first else order[: rule.need]
        else:
            listed = [j for j in order if j != i][: rule.need]
        same = [j for j in listed if y[j] == y[i]]
        other = [j for j in listed if y[j] != y[i]]
        cards[i] = _card(
            rule, len(same), sum(dist[i, j] for j in same), sum(dist[i, j] for j in other), y[i]
        )
    return cards


def _over_all_orders(X, y, weights, rule):
    """The mean over all row orders of each sample's card, and whether it varies."""
    n = len(y)
    total, low, high = np.zeros(n), np.full(n, np.inf), np.full(n, -np.inf)
    count = 0
    for perm in itertools.permutations(range(n)):
        perm = np.array(perm)
        cards = np.empty(n)
        cards[perm] = _index_cards(X[perm], y[perm], weights, rule)
        total += cards
        low, high = np.minimum(low, cards), np.maximum(high, cards)
        count += 1
    return total / count, high > low


def _rules(k: int, card: str) -> list[NeighbourRule]:
    return [
        NeighbourRule.kofsd(k, "reference", card),
        NeighbourRule.kofsd(k, "paper", card),
        NeighbourRule.k_nearest(k),
    ]


@st.composite
def tie_heavy_cases(draw):
    n = draw(st.integers(3, 6))
    s = draw(st.integers(1, 3))
    levels = draw(st.integers(1, 3))
    low = draw(st.sampled_from([0, -levels]))  # negative values too: zeros between
    X = np.array(
        draw(st.lists(st.integers(low, levels), min_size=n * s, max_size=n * s)), dtype=float
    ).reshape(n, s)
    X[X == 0] = draw(st.sampled_from([0.0, -0.0]))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[draw(st.integers(0, n - 1))] = 1 - y[0] if y.min() == y.max() else y[0]
    if y.min() == y.max():
        y[0] = 1 - y[0]
    k = draw(st.integers(1, n - 2)) if n > 2 else 1
    card = draw(st.sampled_from(CARDS))
    which = draw(st.integers(0, 2))
    metric = draw(st.sampled_from(("seuclidean", "euclidean")))
    return X, y, k, _rules(k, card)[which], metric


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_heavy_cases())
def test_the_average_rule_is_the_mean_over_every_row_order(case):
    """On small tie-heavy sets (integers 0..3, constant columns, duplicates), every rule
    and card: the averaged dependency is the mean card over all n! orders of the rows, and
    its share of order-dependent samples is the share whose card differs between orders."""
    X, y, k, rule, metric = case
    weights = invariant_weights(X, metric)
    mean_cards, varies = _over_all_orders(X, y, weights, rule)
    points = AveragedSet(y, rule)
    for j in range(X.shape[1] - 1):
        points.add(X[:, j], weights[j])
    dependency, share = points.dependency_with(X[:, -1], weights[-1])
    at_once = AveragedSet.of_columns(y, rule, X[:, :-1], weights[:-1])
    assert at_once.dependency_with(X[:, -1], weights[-1]) == (dependency, share)
    assert dependency == pytest.approx(mean_cards.mean(), abs=1e-12)
    assert share == pytest.approx(varies.mean(), abs=1e-15)
    if X.shape[1] == 1:  # the single-feature path gives the same numbers, bit for bit
        deps, shares = single_dependencies(X, y, weights, rule)
        assert (deps[0], shares[0]) == (dependency, share)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", ["seuclidean", "euclidean"])
def test_one_sort_serves_the_weights_and_the_dependencies(seed, metric):
    """The block's non-zero values extracted and sorted once (:func:`nonzero_order`) give
    the weights and the single-feature dependencies of extracting and sorting them apart,
    bit for bit: log1p counts with ties, negative values, a constant and an all-zero column,
    K of 1 to 9, rows permuted; and a K-OFSD stream taking them so decides as before."""
    rng = np.random.default_rng(seed)
    X, y, _ = sparse_log_counts(n=600, p=12, seed=seed)
    X[:, 3] = -X[:, 3]  # negative values, its zeros between them and the others
    X[:, 5] = 2.0  # constant
    X[:, 7] = 0.0  # no non-zero value
    rows = rng.permutation(len(y)) if seed % 2 else np.arange(len(y))
    X, y = np.asfortranarray(X[rows]), y[rows]
    order = nonzero_order(X)
    weights = invariant_weights(X, metric)
    assert invariant_weights(X, metric, order).tobytes() == weights.tobytes()
    for k in (1, 4, 9):
        rule = NeighbourRule.kofsd(k, "reference", "imbalanced")
        apart = single_dependencies(X, y, weights, rule)
        shared = single_dependencies(X, y, weights, rule, order)
        assert [a.tobytes() for a in apart] == [b.tobytes() for b in shared]
    selector = KOFSD(k=3, metric=metric).start(y)
    together = selector._weights_and_singles(X, [1, 3, 9])
    assert together[0].tobytes() == selector._weights(X).tobytes()
    assert together[1].tobytes() == selector._single_for_ks(X, weights, [1, 3, 9])[0].tobytes()


@contextlib.contextmanager
def _tree_candidates(list_length):
    """Every set of more than one point finds its lists among candidates from S's lists of
    ``list_length`` points and a k-d tree, one point a kernel call
    (:mod:`fsengine.methods.online._point_search`)."""
    names = ("BRUTE_MAX_POINTS", "FIRST_CHUNK", "LIST_LENGTH")
    saved = [getattr(_point_search, name) for name in names]
    for name, value in zip(names, (1, 1, list_length)):
        setattr(_point_search, name, value)
    try:
        yield
    finally:
        for name, value in zip(names, saved):
            setattr(_point_search, name, value)


def _tests_both_ways(X, y, rule, metric, floor=-math.inf):
    """The test of S + f (S the first columns, f the last) comparing every point with every
    other, then from candidates (S's lists of 2 points, then 48), then from candidates on S
    made in one step (:meth:`AveragedSet.of_columns`: S's cards not measured)."""
    weights = invariant_weights(X, metric)
    results = []
    searches = (
        contextlib.nullcontext,
        lambda: _tree_candidates(2),
        lambda: _tree_candidates(48),
    )
    for search in searches:
        with search():
            points = AveragedSet(y, rule)
            for j in range(X.shape[1] - 1):
                points.add(X[:, j], weights[j])
            results.append(points.dependency_with(X[:, -1], weights[-1], floor))
    with _tree_candidates(2):
        points = AveragedSet.of_columns(y, rule, X[:, :-1], weights[:-1])
        results.append(points.dependency_with(X[:, -1], weights[-1], floor))
    return results


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_heavy_cases())
def test_lists_among_tree_candidates_give_every_point_s_result(case):
    """The lists of a set's points found among k-d tree candidates (checked exactly, more
    candidates where ties or rounding leave a doubt): the dependency and the share of
    every point compared with every other, bit for bit."""
    X, y, k, rule, metric = case
    every, *searched = _tests_both_ways(X, y, rule, metric)
    assert searched == [every] * 3


@pytest.mark.parametrize("k", [1, 3, 7])
@pytest.mark.parametrize("variant", ["reference", "paper"])
def test_tree_candidates_on_counts_give_every_point_s_result(k, variant):
    """Counts (integers: many ties at the cut) and log counts of 600 cells on 2 to 6
    genes: the same dependency and share from tree candidates, and with a floor the same
    or NaN only below it."""
    X, obs, _ = single_cell_counts(n_cells=600, n_genes=40, n_rare=12, seed=k)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(int)
    X = X.toarray().astype(float)
    for data in (X, np.log1p(X)):
        for genes in ([0, 1], [0, 5, 31, 2], [3, 4, 5, 6, 7, 39]):
            rule = NeighbourRule.kofsd(k, variant, "imbalanced")
            every, *searched = _tests_both_ways(data[:, genes], y, rule, "seuclidean")
            assert searched == [every] * 3
            floor = every[0] + 1e-6
            every, *searched = _tests_both_ways(data[:, genes], y, rule, "seuclidean", floor)
            for result in searched:
                assert result == every or math.isnan(result[0]) or math.isnan(every[0])


@pytest.mark.parametrize("list_length", [2, 48])
def test_set_tests_on_threads_give_the_one_at_a_time_dependencies(list_length):
    """Several tests of S + f at once, each on a thread (the average rule's tests of a block
    on many cells): the dependencies of one test at a time, bit for bit; with a level to
    exceed, the same up to the first column above it and NaN after; and S + that column
    keeps the cards of the test that admitted it, as after tests one at a time."""
    X, obs, _ = single_cell_counts(n_cells=700, n_genes=40, n_rare=14, seed=5)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(int)
    X = np.log1p(X.toarray().astype(float))
    weights = invariant_weights(X)
    rule = NeighbourRule.kofsd(3, "reference", "imbalanced")
    block, block_weights = X[:, 3:15], weights[3:15]
    with _tree_candidates(list_length):
        sets = []
        for _ in range(2):
            points = AveragedSet(y, rule)
            for j in range(3):
                points.add(X[:, j], weights[j])
            sets.append(points)
        one, many = sets
        alone = one.dependencies_with(block, block_weights)
        assert many.dependencies_with(block, block_weights, threads=3) == alone
        assert not any(math.isnan(d) for d in alone)
        level = float(np.median(alone))
        first = next(j for j, d in enumerate(alone) if d > level)
        expected = alone[: first + 1] + [math.nan] * (len(alone) - first - 1)
        for points, threads in ((one, 1), (many, 3)):
            got = points.dependencies_with(block, block_weights, stop_above=level, threads=threads)
            assert got[: first + 1] == expected[: first + 1]
            assert all(math.isnan(d) for d in got[first + 1 :])
            measure, points._measure = points._measure, None  # add() reuses the test's cards
            points.add(block[:, first], block_weights[first])
            points._measure = measure
        assert many._cards.expected.tolist() == one._cards.expected.tolist()
        fresh = AveragedSet(y, rule)
        for column, weight in [(X[:, j], weights[j]) for j in range(3)] + [
            (block[:, first], block_weights[first])
        ]:
            fresh.add(column, weight)
        assert fresh._cards.expected.tolist() == one._cards.expected.tolist()


def _every_point_measured(points: AveragedSet) -> AveragedSet:
    """``points`` measuring every point of S + f in each test (none known from S)."""
    points._known = lambda base_of, point_values: np.empty(0, dtype=np.int64)
    return points


def _same_test(got, expected, floor=None) -> bool:
    """Two (dependency, share) results are the same, NaN for NaN; with a floor above the
    dependency ``expected``, either may also have stopped (NaN) or not."""
    if floor is not None and (math.isnan(got[0]) or got == expected):
        return True
    return all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(got, expected))


@pytest.mark.parametrize("transform", ["counts", "log1p"])
@pytest.mark.parametrize("card", ["imbalanced", "distance"])
@pytest.mark.parametrize("variant", ["reference", "paper"])
@pytest.mark.parametrize("ball_width", [2, 16])
def test_points_whose_ball_keeps_value_zero_keep_their_cards(
    transform, card, variant, ball_width, monkeypatch
):
    """On sparse counts most points of S + f lie on a point of S whose samples and ball
    (the points up to its cut) have the value 0 on f: their cards are S's and are not
    measured. Along a stream of tests and additions, with and without a floor and with
    the rows permuted, the dependencies, shares and cards equal those of measuring every
    point, bit for bit, and many points are skipped (in the median test, a quarter or
    more with balls of 16). Balls of 2 points (many do not fit: measured in every test)
    with the distances summed from the points' coordinates, and of 16 with the set's
    summed terms."""
    monkeypatch.setattr(_tie_average, "BALL_WIDTH", ball_width)
    if ball_width == 2:
        monkeypatch.setattr(_tie_average, "TERMS_MAX_POINTS", 0)
    X, obs, _ = single_cell_counts(n_cells=1500, n_genes=60, n_rare=30, seed=11)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(int)
    X = X.toarray().astype(float)
    X = np.log1p(X) if transform == "log1p" else X
    weights = invariant_weights(X)
    rule = NeighbourRule.kofsd(3, variant, card)
    perm = np.random.default_rng(3).permutation(len(y))
    known_shares, runs = [], []
    for rows in (np.arange(len(y)), perm):
        with _tree_candidates(48):
            skipping, measuring = AveragedSet(y[rows], rule), AveragedSet(y[rows], rule)
            _every_point_measured(measuring)
            count_known = skipping._known

            def counted(base_of, point_values, count_known=count_known):
                known = count_known(base_of, point_values)
                known_shares.append(len(known) / len(base_of))
                return known

            skipping._known = counted
            results = []
            for j in range(X.shape[1]):
                column = X[rows, j]
                got = skipping.dependency_with(column, weights[j])
                assert _same_test(got, measuring.dependency_with(column, weights[j]))
                floor = got[0] + 1e-3
                for points in (skipping, measuring):
                    floored = points.dependency_with(column, weights[j], floor)
                    assert _same_test(floored, got, floor)
                results.append(got)
                if j % 7 == 0 and skipping.size < 6:  # genes join S along the stream
                    skipping.add(column, weights[j])
                    measuring.add(column, weights[j])
                    assert np.array_equal(skipping._cards.expected, measuring._cards.expected)
                    assert np.array_equal(skipping._cards.varies, measuring._cards.varies)
                    balls = [np.sort(s._cards.balls, axis=1) for s in (skipping, measuring)]
                    assert np.array_equal(*balls)
            runs.append(results)
    assert runs[0] == runs[1]  # the average rule: the rows' order does not matter
    assert np.median(known_shares) > (0.25 if ball_width == 16 else 0.05)


@pytest.mark.parametrize("transform", ["counts", "log1p"])
@pytest.mark.parametrize("card", ["imbalanced", "distance"])
@pytest.mark.parametrize("variant", ["reference", "paper"])
@pytest.mark.parametrize("search", ["every point", "candidates"])
def test_a_test_stops_exactly_when_the_set_cannot_be_exceeded(transform, card, variant, search):
    """K-OFSD adds f only when dep(S + f) exceeds dep(S); a test asked whether it exceeds a
    level stops once it certainly cannot, decided exactly. Along a stream on sparse counts
    (rows permuted too), for the level dep(S), the measured dep(S + f) itself and the
    double just below it: NaN exactly when the measured dependency does not exceed the
    level, else that dependency bit for bit. On counts most features change no card, so
    dep(S + f) equals dep(S) and those tests must stop. Few cells (every point compared
    with every other), or more with candidates from S's lists and the k-d trees."""
    n_cells = 200 if search == "every point" else 600
    X, obs, _ = single_cell_counts(n_cells=n_cells, n_genes=30, n_rare=n_cells // 50, seed=7)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(int)
    X = X.toarray().astype(float)
    X = np.log1p(X) if transform == "log1p" else X
    weights = invariant_weights(X)
    rule = NeighbourRule.kofsd(3, variant, card)
    tied, stopped = 0, 0
    for rows in (np.arange(len(y)), np.random.default_rng(1).permutation(len(y))):
        with _tree_candidates(48) if search == "candidates" else contextlib.nullcontext():
            points = AveragedSet(y[rows], rule)
            measure, ends = points._measure, []

            def measure_ended(*args, measure=measure, ends=ends):
                result = measure(*args)
                ends.append("stopped" if math.isnan(result[0]) else "measured whole")
                return result

            points._measure = measure_ended
            for j in range(X.shape[1]):
                column = X[rows, j]
                level = points.dependency()[0]
                full = points.dependency_with(column, weights[j])
                for above in (level, full[0], math.nextafter(full[0], -math.inf)):
                    got = points.dependency_with(column, weights[j], above=above)
                    if full[0] > above:
                        assert got == full
                    else:
                        assert math.isnan(got[0]) and math.isnan(got[1])
                    if above == level and full[0] == level:  # stopped before its last point?
                        tied += 1
                        stopped += ends[-1] == "stopped"
                if full[0] > level and points.size < 5:
                    points.add(column, weights[j])
    assert tied >= 10 and stopped >= 0.8 * tied


@pytest.mark.parametrize("n", [1, 3, 7, 1000, 49_999, 200_000, 2**40 + 3])
def test_the_sum_that_exceeds_a_dependency_is_the_least_such_double(n):
    """exceeding_sum(level, n) is the least double T with T / n above the level: the double
    below it gives at most the level."""
    rng = np.random.default_rng(n % 1000)
    levels = [0.0, 1.0, 0.5, 1 / 3, 0.99998, *rng.random(200), *(rng.integers(0, n, 50) / n)]
    for level in levels:
        total = exceeding_sum(float(level), n)
        assert total / n > level
        assert math.nextafter(total, -math.inf) / n <= level
    assert exceeding_sum(math.nan, n) == -math.inf
    assert exceeding_sum(-math.inf, n) == -math.inf


@pytest.mark.parametrize("draws", [3, 11, 19, 20, 35])
def test_a_card_that_is_the_same_in_every_order_is_that_card_exactly(draws):
    """Cut ties drawn only from samples of the sample's own label: every order gives the
    card 1, and so does the average, exactly (the recurrence's product of ratios alone gives
    0.9999999999999999 for 11 draws, 1.0000000000000002 for 19); with mixed ties, between
    the least and the greatest card."""
    from fsengine.methods.online._codes import CARD_CODES
    from fsengine.methods.online._tie_kernels import _expected

    imbalanced = CARD_CODES["imbalanced"]
    pmf = np.empty(draws + 1)
    k = draws + 2
    for label in (0, 1):
        card, varies = _expected(
            imbalanced, 0.0, 0.0, 0.0, k, label, 2, 0.0, 0.0, 1.0, 3 * draws, 3 * draws,
            draws, 0, 0, False, pmf,
        )  # fmt: skip
        assert (card, varies) == (1.0, False)
    tied = 3 * draws
    for tied_same in range(1, tied, 5):
        card, varies = _expected(
            imbalanced, 0.0, 0.0, 0.0, k, 1, 2, 0.0, 0.0, 1.0, tied, tied_same, draws, 0, 0,
            False, pmf,
        )  # fmt: skip
        least = 2 + max(0, draws - (tied - tied_same))
        greatest = 2 + min(draws, tied_same)
        assert least / k <= card <= greatest / k and varies
        # The minority card is the share of same-label samples: 2 + the mean draw, over K.
        assert card == pytest.approx((2 + draws * tied_same / tied) / k, rel=1e-12)


def _zhou_index_cards(X, y, weights, rule: int) -> np.ndarray:
    """Every sample's card under OFS-A3M's gap rule or OFS-Density's density rule, as the
    authors' ``dep_an`` computes it: the sorted distances D (stable sort), positions 2..L
    (GAP: position 2, then while D(j) - D(j-1) < 1.5 (D(n) - D(2)) / (n - 2); DENSITY:
    while D(j) / (j - 1) is 0 or at most the last one's), the share of same-label ones."""
    dist = _distances(X, weights)
    n = len(y)
    cards = np.empty(n)
    for i in range(n):
        order = np.argsort(dist[i], kind="stable")
        d = dist[i][order]
        if rule == ZHOU_GAP:
            gap = 1.5 * (d[n - 1] - d[1]) / (n - 2) if n > 2 else 0.0
            length = 2
            while length < n and d[length] - d[length - 1] < gap:
                length += 1
        else:
            last, length = d[1], 1
            while length < n:
                density = d[length] / length
                if not (density == 0.0 or density <= last):
                    break
                last, length = density, length + 1
        listed = order[1:length]
        cards[i] = np.mean(y[listed] == y[i]) if len(listed) else np.nan
    return cards


def _zhou_over_all_orders(X, y, weights, rule):
    """Each sample's mean card over all n! row orders under the gap or density rule (NaN
    where the density rule finds no neighbour), and whether it differs between orders."""
    n = len(y)
    total, low, high = np.zeros(n), np.full(n, np.inf), np.full(n, -np.inf)
    count = 0
    for perm in itertools.permutations(range(n)):
        perm = np.array(perm)
        cards = np.empty(n)
        cards[perm] = _zhou_index_cards(X[perm], y[perm], weights, rule)
        total, count = total + cards, count + 1
        low, high = np.fmin(low, cards), np.fmax(high, cards)
    return total / count, high > low


def _averaged_dependency(X, y, weights, rule):
    """The average rule's (dependency, share) of S + f: S the first columns, f the last."""
    points = AveragedSet(y, rule)
    for j in range(X.shape[1] - 1):
        points.add(X[:, j], weights[j])
    return points.dependency_with(X[:, -1], weights[-1])


def _with_a_constant_column(rng, constant: int):
    """Six samples, three columns of 0..2, column ``constant`` set to 1: (X, y, weights
    under "seuclidean", the constant's infinite)."""
    X = rng.integers(0, 3, size=(6, 3)).astype(float)
    X[:, constant] = 1.0
    y = rng.integers(0, 2, 6)
    y[:2] = (0, 1)
    return X, y, invariant_weights(X, "seuclidean")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_heavy_cases(), st.sampled_from((ZHOU_GAP, ZHOU_DENSITY)))
def test_the_gap_and_density_rules_average_over_every_row_order(case, rule):
    """OFS-A3M's and OFS-Density's neighbourhoods: the averaged dependency is the mean card
    over all n! orders of the rows (NaN where OFS-Density finds no neighbour), and the
    single-feature path gives the same numbers."""
    X, y, _, _, metric = case
    weights = invariant_weights(X, metric)
    mean_cards, varies = _zhou_over_all_orders(X, y, weights, rule)
    averaged = NeighbourRule.neighbourhood(rule)
    dependency, share = _averaged_dependency(X, y, weights, averaged)
    expected = mean_cards.mean()
    if math.isnan(expected):
        assert math.isnan(dependency)
    else:
        assert dependency == pytest.approx(expected, abs=1e-12)
        assert share == pytest.approx(np.mean(varies), abs=1e-15)
    if X.shape[1] == 1:
        deps, shares = single_dependencies(X, y, weights, averaged)
        assert deps[0] == dependency or (math.isnan(deps[0]) and math.isnan(dependency))
        assert shares[0] == share or math.isnan(expected)


def test_the_average_rule_on_a_hand_worked_case():
    """Five samples on one feature, values 0 0 0 1 2, labels 1 1 0 0 0; K-OFSD's reference,
    K = 2, Card_Imbalanced. Sample 0 (minority, value 0): its list is the three samples at
    distance 0 (itself and samples 1, 2), the first of which is dropped; the two left are a
    uniform pair of {0, 1, 2}: same-label pairs {0, 1} (1/3) give 2/2, the others 1/2:
    E = 1/3 + 2/3 * 1/2 = 2/3. Sample 1: the same, 2/3. Sample 2 (majority): 1 only if
    both are majority, impossible (it is the only majority sample at distance 0): 0 in
    every order, so 4 of the 5 samples have a card that depends on the order. Sample 3
    (value 1): its list is itself, then two of the four samples at distance 1 (samples 0,
    1, 2 of value 0 and 4 of value 2); card 1 only if both are majority ({2, 4}: 1 of 6
    pairs): 1/6. Sample 4 (value 2): itself, then sample 3 (distance 1), then one of the
    three at distance 2 (majority: sample 2, 1 of 3): 1/3. Dependency (2/3 + 2/3 + 0 + 1/6
    + 1/3) / 5 = 11/30."""
    X = np.array([[0.0], [0.0], [0.0], [1.0], [2.0]])
    y = np.array([1, 1, 0, 0, 0])
    rule = NeighbourRule.kofsd(2, "reference", "imbalanced")
    deps, shares = single_dependencies(X, y, np.ones(1), rule)
    assert deps[0] == pytest.approx(11 / 30, abs=1e-15)
    assert shares[0] == 4 / 5


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 60).flatmap(
        lambda pop: st.tuples(st.just(pop), st.integers(0, pop), st.integers(0, pop))
    )
)
def test_the_hypergeometric_draw_matches_scipy(args):
    from fsengine.methods.online._tie_kernels import _hypergeometric

    population, successes, draws = args
    pmf = np.empty(draws + 1)
    _hypergeometric(population, successes, draws, pmf)
    expected = stats.hypergeom(population, successes, draws).pmf(np.arange(draws + 1))
    np.testing.assert_allclose(pmf, expected, rtol=1e-12, atol=1e-300)


def test_the_dependency_is_the_exactly_rounded_mean():
    """The kernels sum the samples' cards exactly: math.fsum of them, over n, in any order."""
    rng = np.random.default_rng(3)
    expected = rng.random((50, 2))
    codes = rng.integers(0, 50, 400)
    y = rng.integers(0, 2, 400)
    varies = np.zeros((50, 2), dtype=bool)
    mean, _ = tie_kernels().sample_mean(expected, varies, codes, y)
    assert mean == math.fsum(expected[codes, y]) / 400
    perm = rng.permutation(400)
    assert tie_kernels().sample_mean(expected, varies, codes[perm], y[perm])[0] == mean


def test_nan_cards_sum_to_nan_without_growing_the_partial_sums():
    """OFS-Density gives a sample without neighbours a NaN card (a constant feature): a
    thousand of them sum to NaN. Each once took a slot of the exact sum's fixed array of
    partial sums, writing past its end (a crash of the process, 'malloc(): smallbin double
    linked list corrupted', in the estimates' benchmark)."""
    y = np.zeros(1000, dtype=np.int64)
    y[:50] = 1
    rule = NeighbourRule.neighbourhood(ZHOU_DENSITY)
    deps, _ = single_dependencies(np.ones((1000, 3)), y, np.full(3, np.inf), rule)
    assert np.isnan(deps).all()
    points = AveragedSet(y, rule)
    assert math.isnan(points.dependency_with(np.ones(1000), np.inf)[0])
    expected = np.full((1, 2), np.nan)
    assert math.isnan(
        tie_kernels().sample_mean(expected, np.zeros((1, 2), bool), np.zeros(1000, np.int64), y)[0]
    )
    # the summation itself, in Python (numba's compiled code does not check bounds)
    from fsengine.methods.online._tie_kernels import MAX_PARTIALS, _add_exact, _rounded_total

    partials, count = np.zeros(MAX_PARTIALS), 0
    for value in [0.1, math.nan, 1e300, math.nan] * 100:
        count = _add_exact.py_func(partials, count, value)
    assert count < MAX_PARTIALS - 1 and math.isnan(_rounded_total.py_func(partials, count))
    expected = np.array([[np.inf, 1.0]])
    assert (
        tie_kernels().sample_mean(expected, np.zeros((1, 2), bool), np.zeros(1000, np.int64), y)[0]
        == np.inf
    )


def _permuted_selections(method: str, X, y, names, params, seeds=(0, 1, 2)):
    out = []
    for seed in seeds:
        perm = np.random.default_rng(seed).permutation(len(y))
        result = get_method(method).select(X[perm], y[perm], names, params=params)
        out.append(result.selection.features)
    return out


def _discrete_values(n=400, p=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int64)
    y[rng.choice(n, 20, replace=False)] = 1
    X = rng.integers(-2, 3, size=(n, p)).astype(float)
    X[y == 1, :6] = np.clip(X[y == 1, :6] + 2, -2, 2)
    return X, y, [f"g{j}" for j in range(p)]


def _rounded_glioma():
    task = Task.from_dataset(load_dataset(GLIOMA), None)
    return np.round(task.X[:, :300], 0), task.y, list(task.names[:300])


DATA = {
    "counts": lambda: sparse_log_counts(600, 40, seed=1),
    "discrete": _discrete_values,
    "rounded GLIOMA": _rounded_glioma,
}
AVERAGED = [
    ("ofs-a3m", {"ties": "average"}),
    ("ofs-density", {"ties": "average"}),
    ("kofsd", {"ties": "average"}),
    ("kofsd", {"ties": "average", "variant": "paper", "card": "consistency", "k": 3}),
    ("kofsd", {"ties": "average", "card": "distance", "k": 5}),
    ("sfsf", {"ties": "average"}),
    ("osfs-et", {"ties": "average"}),
]


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("method,params", AVERAGED)
def test_averaged_selections_do_not_depend_on_the_row_order(data, method, params):
    X, y, names = DATA[data]()
    selections = _permuted_selections(method, X, y, names, params)
    assert selections[0] == selections[1] == selections[2]
    assert selections[0]  # something to compare


def test_the_authors_rule_depends_on_the_row_order_on_counts():
    """What the average rule is for: on sparse counts the authors' rule selects different
    genes for different orders of the same samples."""
    X, y, names = sparse_log_counts(600, 40, seed=1)
    selections = _permuted_selections("kofsd", X, y, names, {})
    assert len(set(selections)) > 1


def test_a_real_microarray_gene_depends_on_the_row_order_and_the_average_is_its_mean():
    """GLIOMA's gene g15 has 27 distinct values over 50 samples (24 share one): its
    dependency under the authors' rule ranges widely over row orders, and the average
    rule is the mean over orders (2,000 random orders, within 4 standard errors)."""
    task = Task.from_dataset(load_dataset(GLIOMA), None)
    column, y = task.X[:, [15]], task.y
    averaged = KOFSD(ties="average").start(y).single_dependencies(column)[0]
    rng = np.random.default_rng(0)
    values = []
    for _ in range(2000):
        perm = rng.permutation(len(y))
        values.append(KOFSD().start(y[perm]).single_dependencies(column[perm])[0])
    values = np.array(values)
    assert values.max() - values.min() > 0.3
    assert abs(values.mean() - averaged) < 4 * values.std() / math.sqrt(len(values))


def test_without_ties_the_average_rule_selects_as_the_authors_rule():
    """On SRBCT (continuous values) and on normal draws no tie decides a neighbourhood:
    both rules select the same genes."""
    task = Task.from_dataset(load_dataset(SAMPLE), "2")
    for X, y, names in (
        (task.X, task.y, list(task.names)),
        (np.random.default_rng(4).normal(size=(60, 300)), task.y[:60], None),
    ):
        index, _ = run_kofsd(X, y, names)
        average, _ = run_kofsd(X, y, names, ties="average")
        assert index.features == average.features


def test_a_sweep_over_k_equals_each_k_run_alone():
    X, y, names = sparse_log_counts(300, 30, seed=2)
    swept = run_kofsd_for_ks(X, y, [1, 3, 5], names, ties="average")
    for k in (1, 3, 5):
        assert swept[k].features == run_kofsd(X, y, names, k=k, ties="average")[0].features


def test_sparse_input_gives_the_dense_events():
    from scipy import sparse

    X, y, names = sparse_log_counts(300, 30, seed=3)
    method = get_method("kofsd")
    dense = method.select(X, y, names, params={"ties": "average"})
    sparse_run = method.select(sparse.csc_array(X), y, names, params={"ties": "average"})
    assert dense.selection == sparse_run.selection
    assert dense.events == sparse_run.events


def _counts_file(tmp_path, perm=None):
    X, y, names = sparse_log_counts(600, 40, seed=1)
    counts = np.rint(np.expm1(X)).astype(int)
    if perm is not None:
        counts, y = counts[perm], y[perm]
    lines = [",".join(names + ["label"])]
    lines += [
        ",".join(map(str, row)) + ("," + ("rare" if label else "common"))
        for row, label in zip(counts, y)
    ]
    path = tmp_path / f"counts{'' if perm is None else '_permuted'}.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _cli(capsys, *argv):
    from fsengine.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_says_when_the_row_order_decided(tmp_path, capsys):
    """Under the authors' rule on counts: one line on stderr with the shares and the
    switch; the same command with --ties average: no such line, and the same selection CSV
    for the rows in another order."""
    path = _counts_file(tmp_path)
    code, _, err = _cli(capsys, "select", path, "--minority", "rare")
    notes = [line for line in err.splitlines() if "depends on which of several" in line]
    assert code == 0 and len(notes) == 1
    assert notes[0].startswith("fsengine: note: under the authors' tie rule, the card of ")
    assert notes[0].endswith("--ties average gives the same selection for any order")
    share = float(notes[0].split("the card of ")[1].split(" %")[0])
    X, y, _ = sparse_log_counts(600, 40, seed=1)
    counts = np.rint(np.expm1(X))
    rule = NeighbourRule.kofsd(7, "reference", "imbalanced")
    expected = single_dependencies(counts, y, invariant_weights(counts), rule)[1].mean()
    assert share == pytest.approx(100 * expected, abs=0.05)

    code, averaged, err = _cli(capsys, "select", path, "--minority", "rare", "--ties", "average")
    assert code == 0 and "depends on which of several" not in err
    perm = np.random.default_rng(7).permutation(600)
    code, permuted, _ = _cli(
        capsys, "select", _counts_file(tmp_path, perm), "--minority", "rare", "--ties", "average"
    )
    assert code == 0 and permuted == averaged


def test_continuous_values_give_no_note(capsys):
    code, _, err = _cli(capsys, "select", SAMPLE, "--minority", "2")
    assert code == 0 and "tie rule" not in err


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(2, 80),
    share=st.floats(0.0, 1.0),
    seed=st.integers(0, 10**6),
    scale=st.sampled_from([1.0, 1e-3, 7.3, 1e6]),
    compiled=st.booleans(),
)
def test_invariant_weights_are_the_sums_over_each_sorted_column(n, share, seed, scale, compiled):
    """Counts with zeros (and -0.0), negative and repeated values: each weight is the
    definition's bit for bit, the mean and the squared deviations summed one at a time
    over the whole sorted column (the zeros' run included)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 6, size=(n, 5)).astype(float) * scale / 3
    X[rng.random((n, 5)) > share] = 0.0
    X[rng.random((n, 5)) < 0.1] = -0.0
    X[:, 4] = 0.0  # a constant column: infinite weight
    expected = np.empty(5)
    for j in range(5):
        total = 0.0
        for v in np.sort(X[:, j]):
            total += v
        mean = total / n
        total = 0.0
        for v in np.sort((X[:, j] - mean) ** 2):
            total += v
        with np.errstate(divide="ignore"):
            expected[j] = 1.0 / (total / (n - 1))
    with config_context(compiled=compiled):  # numpy, or the kernel's merged runs
        assert invariant_weights(X).tolist() == expected.tolist()


@pytest.mark.parametrize("constant", [0, 1, 2])
@pytest.mark.parametrize("card", ["imbalanced", "consistency"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_set_with_a_constant_feature_is_the_mean_over_every_row_order(constant, card, k):
    """A constant feature in S or as f (infinite weight under "seuclidean": every distance
    between two samples NaN, each sample's others all tied): the dependency and the share
    are the mean over all n! orders of the rows, for every first-K rule."""
    rng = np.random.default_rng(10 * k + constant)
    for _ in range(3):
        X, y, weights = _with_a_constant_column(rng, constant)
        assert np.isinf(weights[constant])
        for rule in _rules(k, card):
            mean_cards, varies = _over_all_orders(X, y, weights, rule)
            dependency, share = _averaged_dependency(X, y, weights, rule)
            assert dependency == pytest.approx(mean_cards.mean(), abs=1e-12)
            assert share == pytest.approx(varies.mean(), abs=1e-15)


@pytest.mark.parametrize("constant", [0, 2])
@pytest.mark.parametrize("rule", [ZHOU_GAP, ZHOU_DENSITY])
def test_the_gap_and_density_rules_with_a_constant_feature_average_every_order(constant, rule):
    """OFS-A3M's and OFS-Density's neighbourhoods on a set holding a constant feature (in
    S, or as f): the mean card over all n! orders of the rows."""
    rng = np.random.default_rng(constant + rule)
    for _ in range(3):
        X, y, weights = _with_a_constant_column(rng, constant)
        mean_cards, varies = _zhou_over_all_orders(X, y, weights, rule)
        dependency, share = _averaged_dependency(X, y, weights, NeighbourRule.neighbourhood(rule))
        expected = mean_cards.mean()
        if math.isnan(expected):
            assert math.isnan(dependency)
        else:
            assert dependency == pytest.approx(expected, abs=1e-12)
            assert share == pytest.approx(np.mean(varies), abs=1e-15)


@settings(max_examples=300, deadline=None)
@given(
    terms=st.lists(
        st.tuples(
            st.one_of(
                st.floats(0.0, 1.0),
                st.floats(-1e6, 1e6, allow_subnormal=False),
                st.sampled_from([0.0, 1e-310, 2.0**-901, 3.0**600, 1 / 3, 7 / 11]),
            ),
            st.integers(0, 5000),
        ),
        max_size=12,
    )
)
def test_copies_add_exactly_as_one_at_a_time(terms):
    """``count`` copies of a value added in two exact steps (the product and its error)
    leave the same correctly rounded total as adding them one at a time, also for values
    too small or too large for the product's error (added one at a time then)."""
    from fsengine.methods.online._codes import MAX_PARTIALS
    from fsengine.methods.online._tie_kernels import _add_copies, _add_exact, _rounded_total

    one_at_a_time, copies = np.zeros(MAX_PARTIALS), np.zeros(MAX_PARTIALS)
    n_one = n_copies = 0
    for value, count in terms:
        for _ in range(count):
            n_one = _add_exact(one_at_a_time, n_one, value)
        n_copies = _add_copies(copies, n_copies, value, count)
    expected = _rounded_total(one_at_a_time, n_one)
    assert _rounded_total(copies, n_copies) == expected
    assert expected == float(sum(Fraction(v) * c for v, c in terms))


def test_a_matrix_is_judged_once_while_it_lives(monkeypatch):
    """ties_default passes over a matrix once (a page asks for each of five selectors):
    asked again for the same object, the first judgement; another object, its own; the
    judgement leaves with its matrix."""
    import gc

    calls = []
    judge = _tie_average._judge_ties
    monkeypatch.setattr(_tie_average, "_judge_ties", lambda X: calls.append(1) or judge(X))
    counts = np.random.default_rng(0).poisson(1.0, size=(50, 4)).astype(float)
    assert _tie_average.ties_default(counts)[0] == "average"
    assert _tie_average.ties_default(counts)[0] == "average"
    assert len(calls) == 1
    continuous = counts + 0.5 * np.random.default_rng(1).random(counts.shape)
    assert _tie_average.ties_default(continuous) == ("index", "")
    assert len(calls) == 2
    key = id(continuous)
    del continuous
    gc.collect()
    assert key not in _tie_average._JUDGED
