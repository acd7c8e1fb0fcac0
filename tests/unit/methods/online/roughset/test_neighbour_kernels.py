"""The compiled neighbour kernels against the definition, on tie-heavy data.

The truth is tests/kofsd_oracle.py (plain Python loops: every distance, a full
stable sort per sample) and, for large N, the dense path that sorts every row. Data are
drawn to make ties: integers 0..3, duplicated rows and columns, constant columns.
"""

import contextlib
import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kofsd_oracle
from fsengine import config
from fsengine._compute import budget, kernels
from fsengine.checks import check_block_not_kept
from fsengine.config import config_context
from fsengine.methods.online import KOFSD, _point_search, stream_events
from fsengine.methods.online._roughset.kofsd import _set_kernels
from fsengine.methods.online._roughset.kofsd import common as _common
from fsengine.methods.online._roughset.kofsd import neighbours as _neighbours
from fsengine.methods.online._roughset.kofsd import points as _points
from fsengine.methods.online._roughset.kofsd import selector as _kofsd
from fsengine.methods.online._roughset.kofsd import set_terms as _set_terms
from fsengine.methods.online._roughset.kofsd.neighbours import (
    DenseSetTerms,
    distance_terms,
    feature_weights,
    set_neighbour_stats,
    set_neighbour_stats_from_columns,
    set_plus_feature_stats,
    single_feature_counts,
    single_feature_neighbour_stats_for_ks,
)
from fsengine.methods.online._roughset.kofsd.selector import run_kofsd, run_kofsd_for_ks

CARDS = [
    {},
    {"card": "consistency"},
    {"card": "weight", "gamma": 0.4},
    {"card": "distance"},
    {"metric": "euclidean"},
]


@st.composite
def tie_heavy(draw, max_n=16, max_p=5):
    """(X, y): integer values 0..3, some rows and columns duplicated, maybe a constant column."""
    n = draw(st.integers(4, max_n))
    p = draw(st.integers(1, max_p))
    X = np.array(
        draw(st.lists(st.lists(st.integers(0, 3), min_size=p, max_size=p), min_size=n, max_size=n)),
        dtype=float,
    )
    for _ in range(draw(st.integers(0, 3))):  # duplicated rows
        X[draw(st.integers(0, n - 1))] = X[draw(st.integers(0, n - 1))]
    if p > 1 and draw(st.booleans()):  # a duplicated column
        X[:, draw(st.integers(0, p - 1))] = X[:, draw(st.integers(0, p - 1))]
    if draw(st.booleans()):  # a constant column
        X[:, draw(st.integers(0, p - 1))] = float(draw(st.integers(0, 3)))
    n_minority = draw(st.integers(2, n - 1))  # the label rule: >= 2 minority samples
    y = np.array(draw(st.permutations([1] * n_minority + [0] * (n - n_minority))))
    return X, y


def _oracle_counts(column, y, k, variant, metric):
    """Same-label neighbour counts and distance sums of every sample, by the definition."""
    w = kofsd_oracle._variance_weight(column, metric)
    dist = kofsd_oracle._distance_rows([column], [w])
    same, same_d, other_d = [], [], []
    for i in range(len(y)):
        neigh = kofsd_oracle._neighbours(dist[i], i, k, variant)
        same.append(sum(1 for j in neigh if y[j] == y[i]))
        same_d.append(sum(dist[i][j] for j in neigh if y[j] == y[i]))
        other_d.append(sum(dist[i][j] for j in neigh if y[j] != y[i]))
    return same, same_d, other_d


def _same_floats(a, b):
    return all((math.isnan(u) and math.isnan(v)) or u == v for u, v in zip(a, b))


@pytest.mark.parametrize("mode", ["walk", "window", "numpy"])
@settings(max_examples=300, deadline=None)
@given(
    data=tie_heavy(),
    variant=st.sampled_from(["reference", "paper"]),
    metric=st.sampled_from(["seuclidean", "euclidean"]),
    seed=st.integers(0, 10**6),
    n_ks=st.integers(1, 3),
)
def test_single_feature_counts_and_sums_equal_the_definition_for_every_k(
    mode, data, variant, metric, seed, n_ks
):
    """The walk (distance sums, several K), the sliding window (counts, up to
    WINDOW_MAX_KS values of K) and the numpy definition against the oracle."""
    X, y = data
    n = len(y)
    ks = sorted(
        np.random.default_rng(seed)
        .choice(np.arange(1, n), size=min(n_ks, n - 1), replace=False)
        .tolist()
    )
    w = feature_weights(X, metric)
    budget.force(mode != "numpy")
    if mode == "window":
        counts = single_feature_counts(X, y, ks, w, variant)[0]
        stats = [_neighbours.NeighbourStats(np.ascontiguousarray(c.T)) for c in counts]
    else:
        stats = single_feature_neighbour_stats_for_ks(X, y, ks, w, variant, with_distances=True)
    for k, st_k in zip(ks, stats):
        for j in range(X.shape[1]):
            same, same_d, other_d = _oracle_counts(X[:, j].tolist(), y.tolist(), k, variant, metric)
            assert st_k.same_count[:, j].tolist() == same
            if mode != "window":
                assert _same_floats(st_k.same_distance[:, j].tolist(), same_d)
                assert _same_floats(st_k.other_distance[:, j].tolist(), other_d)


@st.composite
def sparse_columns(draw, max_n=48, max_p=4):
    """(X, y) of sparse columns: mostly zeros (some -0.0), the rest drawn from negative and
    positive integers, with now and then values so close that their distance underflows
    to 0 (the window's exception)."""
    n = draw(st.integers(6, max_n))
    p = draw(st.integers(1, max_p))
    nonzero = st.sampled_from([-2.0, -1.0, 1.0, 2.0, 3.0, 1e-170, 2e-170, -0.0])
    X = np.zeros((n, p))
    for j in range(p):
        rows = draw(st.lists(st.integers(0, n - 1), max_size=n // 2, unique=True))
        X[rows, j] = draw(st.lists(nonzero, min_size=len(rows), max_size=len(rows)))
    n_minority = draw(st.integers(2, n - 1))
    y = np.array(draw(st.permutations([1] * n_minority + [0] * (n - n_minority))))
    return X, y


@settings(max_examples=300, deadline=None)
@given(
    data=sparse_columns(),
    variant=st.sampled_from(["reference", "paper"]),
    metric=st.sampled_from(["seuclidean", "euclidean"]),
    seed=st.integers(0, 10**6),
    n_ks=st.integers(1, 2),
)
def test_sparse_counts_keep_the_lowest_zeros_and_equal_the_definition(
    data, variant, metric, seed, n_ks
):
    """The window on a column's non-zero values and its K + 1 lowest zeros (the other
    zeros written afterwards) gives every sample's count of the definition: zeros far
    more than K + 1, negative values, -0.0, distances that underflow to 0."""
    X, y = data
    n = len(y)
    ks = sorted(
        np.random.default_rng(seed).choice(np.arange(1, min(n, 8)), size=n_ks, replace=False)
    )
    w = feature_weights(X, metric)
    budget.force(True)
    counts = single_feature_counts(X, y, ks, w, variant)[0]
    for t, k in enumerate(ks):
        for j in range(X.shape[1]):
            same = _oracle_counts(X[:, j].tolist(), y.tolist(), int(k), variant, metric)[0]
            assert counts[t, j].tolist() == same


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("variant", ["reference", "paper"])
def test_two_ks_on_a_block_of_several_column_groups_equal_each_k_alone(threads, variant):
    """Two values of K at once on a block wider than a group of columns (and on two
    threads): every count and dependency equals that of each K alone (a group's slice of
    the counts of both K is not contiguous, and must not be refused or misread)."""
    rng = np.random.default_rng(7)
    n, b = 600, 300
    X = np.where(rng.random((n, b)) < 0.15, rng.integers(1, 6, (n, b)), 0).astype(float)
    y = (rng.random(n) < 0.1).astype(np.int64)
    w = feature_weights(X, "seuclidean")
    budget.force(True)
    with config_context(kernel_threads=threads):
        both, deps = single_feature_counts(X, y, [3, 5], w, variant, card=0)
        for t, k in enumerate([3, 5]):
            alone, alone_deps = single_feature_counts(X, y, [k], w, variant, card=0)
            assert np.array_equal(both[t], alone[0])
            assert np.array_equal(deps[t], alone_deps[0])
    assert both.shape == (2, b, n) and 0 < deps.min() <= deps.max() <= 1


def _events(selector, X, order):
    events = stream_events(
        selector, X, [str(j) for j in range(X.shape[1])], np.array(order), chunk=3
    )
    return [
        (
            e.column,
            e.score,
            e.action,
            None if math.isnan(e.set_score_with_feature) else e.set_score_with_feature,
            e.selected_columns,
        )
        for e in events
    ]


#: The set paths: a dense set scoring whole rows, with short lists (made at once, remade
#: from hints, lengthened, skipped), with no list (every row whole); a set kept as
#: columns with its lists (one or two samples long: remade as the set grows); both on
#: several threads.
SET_PATHS = {
    "dense": {},
    "lists": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "LISTS_AFTER_ROWS"): 0,
        (_set_terms, "SHORTLIST_MIN"): 1,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
    },
    "walks": {(_neighbours.DenseSetTerms, "_uses_lists"): lambda self, ks: False},
    "columns": {(_kofsd, "DENSE_MAX_SAMPLES"): 0},
    "short columns": {
        (_kofsd, "DENSE_MAX_SAMPLES"): 0,
        (_set_terms, "COLUMN_LIST_LENGTH"): 2,
        (_set_terms, "COLUMN_LIST_MIN"): 2,
    },
    "numpy": {},
    # The set tests on distinct points (cards of the kernels): every point against every
    # other; from S's lists and k-d tree candidates, one point a kernel call (the early
    # rejection then stops between calls); lists of 2 or 3 points (most walks leave them:
    # the tree then), on three threads.
    "points": {(_points, "POINT_MIN_SAMPLES"): 0, (_points, "POINT_MAX_DISTINCT"): 1.0},
    "tree points": {
        (_points, "POINT_MIN_SAMPLES"): 0,
        (_points, "POINT_MAX_DISTINCT"): 1.0,
        (_point_search, "BRUTE_MAX_POINTS"): 0,
        (_point_search, "FIRST_CHUNK"): 1,
    },
    "short lists points": {
        (_points, "POINT_MIN_SAMPLES"): 0,
        (_points, "POINT_MAX_DISTINCT"): 1.0,
        (_point_search, "BRUTE_MAX_POINTS"): 0,
        (_point_search, "FIRST_CHUNK"): 1,
        (_point_search, "LIST_LENGTH"): 2,
    },
    "threaded tree points": {
        (_points, "POINT_MIN_SAMPLES"): 0,
        (_points, "POINT_MAX_DISTINCT"): 1.0,
        (_point_search, "BRUTE_MAX_POINTS"): 0,
        (_point_search, "FIRST_CHUNK"): 3,
        (_point_search, "LIST_LENGTH"): 3,
        (_point_search, "CANDIDATES_MAX"): 7,  # a call per point or two
    },
    # Kernels split over three threads however small the work (rows, candidates).
    "threads": {(_set_terms, "THREAD_MIN_WORK"): 1},
    "threaded columns": {
        (_set_terms, "THREAD_MIN_WORK"): 1,
        (_kofsd, "DENSE_MAX_SAMPLES"): 0,
        (_set_terms, "COLUMN_LIST_LENGTH"): 2,
        (_set_terms, "COLUMN_LIST_MIN"): 2,
        (_set_terms, "PRUNED_LISTS_MAX_SET"): 0,
    },
}


#: The process-wide settings (fsengine.config) of the paths that need them.
PATH_CONFIG = {
    "numpy": {"compiled": False},
    "threads": {"kernel_threads": 3},
    "threaded columns": {"kernel_threads": 3},
    "threaded tree points": {"kernel_threads": 3},
}


@contextlib.contextmanager
def set_path(path):
    """Patch the module settings that select a set path, then restore them."""
    saved = {key: getattr(*key) for key in SET_PATHS[path]}
    try:
        for (owner, name), value in SET_PATHS[path].items():
            setattr(owner, name, value)
        with config_context(**PATH_CONFIG.get(path, {})):
            yield
    finally:
        for (owner, name), value in saved.items():
            setattr(owner, name, value)


@pytest.mark.parametrize("path", list(SET_PATHS))
@settings(max_examples=150, deadline=None)
@given(
    data=tie_heavy(),
    params=st.sampled_from(CARDS),
    variant=st.sampled_from(["reference", "paper"]),
    alpha=st.sampled_from([0.0, 0.3, 0.5]),
    k_draw=st.integers(1, 100),
    order_seed=st.integers(0, 99),
)
def test_stream_equals_the_oracle_on_every_set_path(
    path, data, params, variant, alpha, k_draw, order_seed
):
    X, y = data
    n, p = X.shape
    k = 1 + k_draw % (n - 1)
    order = np.random.default_rng(order_seed).permutation(p).tolist()
    expected_events, expected_selected = kofsd_oracle.run(
        X.tolist(), y.tolist(), order, k, alpha, variant=variant, **params
    )
    with set_path(path):
        selector = KOFSD(k=k, alpha=alpha, variant=variant, **params).start(y)
        assert _events(selector, X, order) == expected_events
        columns = isinstance(selector._terms, _neighbours.ColumnSetTerms)
        assert columns is path.endswith("columns")
        if selector._terms is None:  # points: chosen when a feature passes alpha; none did
            assert path.endswith("points")
            assert not selector._passes_alpha_all(np.array(selector._seen_deps)).any()
        else:
            on_points = isinstance(selector._terms, _points.PointSetTerms)
            assert on_points is (path.endswith("points") and params.get("card") != "distance")
        assert (
            "methods.online._roughset.kofsd._knn_kernels" in kernels.loaded()
        ) or path == "numpy"
    assert list(selector.finish().columns) == expected_selected


@pytest.mark.parametrize("path", list(SET_PATHS))
@pytest.mark.parametrize("params", CARDS, ids=repr)
def test_no_set_path_keeps_a_block_the_stream_reuses(path, params):
    """Every set path (the columns and points ones stand for many samples) gives the same
    events and selection when each block is overwritten with NaN once handed back
    (fsengine.checks.check_block_not_kept: blocks of one feature and of seven, rounded
    values and counts). A set that keeps a view of a block (the pruning feature, the
    columns of S) reads NaN in later set tests and decides otherwise."""
    with set_path(path):
        check_block_not_kept(KOFSD(k=3, alpha=0.0, **params))


@pytest.mark.parametrize("path", list(SET_PATHS))
@settings(max_examples=150, deadline=None)
@given(
    data=tie_heavy(max_n=24, max_p=8),
    params=st.sampled_from(CARDS),
    variant=st.sampled_from(["reference", "paper"]),
    alpha=st.sampled_from([0.0, 0.3, 0.5]),
    k_draw=st.integers(1, 100),
)
def test_selection_only_runs_stop_rejections_early_and_select_the_same(
    path, data, params, variant, alpha, k_draw
):
    """score_rejections=False: the same decisions and selection as the oracle; a rejection
    may report NaN (stopped early), any other reported score is the oracle's."""
    X, y = data
    n, p = X.shape
    k = 1 + k_draw % (n - 1)
    order = list(range(p))
    expected_events, expected_selected = kofsd_oracle.run(
        X.tolist(), y.tolist(), order, k, alpha, variant=variant, **params
    )
    with set_path(path):
        selector = KOFSD(k=k, alpha=alpha, variant=variant, **params).start(y)
        selector.score_rejections = False
        got = _events(selector, X, order)
    assert [e[:3] + e[4:] for e in got] == [e[:3] + e[4:] for e in expected_events]
    for g, e in zip(got, expected_events):
        assert g[3] == e[3] or (g[3] is None and g[2] == "rejected")
    assert list(selector.finish().columns) == expected_selected


@pytest.mark.parametrize("path", list(SET_PATHS))
@settings(max_examples=150, deadline=None)
@given(
    data=tie_heavy(max_n=24, max_p=10),
    params=st.sampled_from(CARDS),
    variant=st.sampled_from(["reference", "paper"]),
    alpha=st.sampled_from([0.0, 0.3, 0.5]),
    k_draw=st.integers(1, 100),
    order_seed=st.integers(0, 99),
    chunk=st.sampled_from([1, 3, 256]),
)
def test_runs_without_events_select_as_the_oracle_on_every_set_path(
    path, data, params, variant, alpha, k_draw, order_seed, chunk
):
    """stream_selection (set tests batched against the same set, stopped once a feature
    cannot be added, candidates after the first addition skipped) selects exactly the
    oracle's features, in order."""
    from fsengine.methods.online import stream_selection

    X, y = data
    n, p = X.shape
    k = 1 + k_draw % (n - 1)
    order = np.random.default_rng(order_seed).permutation(p)
    _, expected_selected = kofsd_oracle.run(
        X.tolist(), y.tolist(), order.tolist(), k, alpha, variant=variant, **params
    )
    with set_path(path):
        selector = KOFSD(k=k, alpha=alpha, variant=variant, **params).start(y)
        selection = stream_selection(selector, X, [str(j) for j in range(p)], order, chunk=chunk)
    assert list(selection.columns) == expected_selected


@settings(max_examples=80, deadline=None)
@given(
    data=tie_heavy(max_n=14, max_p=6),
    params=st.sampled_from(CARDS),
    variant=st.sampled_from(["reference", "paper"]),
)
def test_one_pass_for_every_k_equals_one_run_per_k(data, params, variant):
    X, y = data
    ks = list(range(1, len(y)))
    shared = run_kofsd_for_ks(X, y, ks, variant=variant, alpha=0.3, chunk=2, **params)
    for k in ks:
        assert shared[k] == run_kofsd(X, y, k=k, variant=variant, alpha=0.3, **params)[0]


@pytest.mark.parametrize("values", ["integers 0..3", "rounded to 0", "rounded to 1", "continuous"])
@pytest.mark.parametrize(
    "n, shortlist_min, max_share, whole_max, lists_after",
    [(120, 4, 2, 0, 0.0), (420, 48, 8, 0, 0.0), (700, 48, 8, 640, 1.0)],
)
def test_set_tests_from_shortlists_equal_whole_rows(
    values, n, shortlist_min, max_share, whole_max, lists_after, monkeypatch
):
    """DenseSetTerms (partial lists built, remade from hints, lengthened, skipped; made
    only after N whole rows on a set) against the dense kernel that scores every row, bit
    for bit, through replacements and additions."""
    monkeypatch.setattr(_set_terms, "SHORTLIST_MIN", shortlist_min)
    monkeypatch.setattr(_set_terms, "SHORTLIST_MAX_SHARE", max_share)
    monkeypatch.setattr(_set_terms, "WHOLE_ROWS_MAX", whole_max)
    monkeypatch.setattr(_set_terms, "LISTS_AFTER_ROWS", lists_after)
    rng = np.random.default_rng(len(values) + n)
    X = {
        "integers 0..3": lambda: rng.integers(0, 4, (n, 14)).astype(float),
        "rounded to 0": lambda: np.round(rng.standard_normal((n, 14))),
        "rounded to 1": lambda: np.round(rng.standard_normal((n, 14)), 1),
        "continuous": lambda: rng.standard_normal((n, 14)),
    }[values]()
    X[:, 5] = X[:, 2]  # a duplicated column
    X[7] = X[3]  # duplicated samples
    X[:, 9] = 2.0  # a constant column
    y = (rng.random(n) < 0.2).astype(int)
    w = feature_weights(X)
    terms, sq = DenseSetTerms(n), None
    steps = [
        ("replace", 0),
        ("add", 1),
        ("add", 3),
        ("replace", 4),
        ("add", 2),
        ("add", 6),
        ("add", 8),
        ("add", 10),
        ("add", 11),
        ("replace", 9),
        ("add", 12),
    ]
    candidates = [5, 7, 13, 9]
    for action, j in steps:
        getattr(terms, action)(X[:, j], w[j])
        term = distance_terms(X[:, j], w[j])
        sq = term if action == "replace" or sq is None else sq + term
        assert np.array_equal(terms.sq, sq, equal_nan=True)
        for ks, variant in (([7], "reference"), ([1, 3, 9], "paper")):
            got = terms.stats_with(X[:, candidates], w[candidates], y, ks, variant, True)[0]
            want = set_plus_feature_stats(sq, X[:, candidates], w[candidates], y, ks, variant, True)
            for g, e in zip(got, want):
                assert np.array_equal(g.same_count, e.same_count)
                assert np.array_equal(g.same_distance, e.same_distance, equal_nan=True)
                assert np.array_equal(g.other_distance, e.other_distance, equal_nan=True)
    assert terms.list_tests >= (len(steps) if lists_after == 0 else 1)  # the lists served
    assert terms.list_full_rows < terms.list_tests * n * len(candidates)  # and spared rows


@pytest.mark.parametrize("rounding", [None, 1, 0])
def test_large_n_set_path_equals_the_dense_path(rounding):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((1500, 4))
    if rounding is not None:
        X = np.round(X, rounding)  # 0 decimals: about 7 values per column
    y = (rng.random(1500) < 0.1).astype(int)
    w = feature_weights(X)
    sq = sum(distance_terms(X[:, j], w[j]) for j in range(4))
    for k in (1, 7, 30):
        for variant in ("reference", "paper"):
            dense = set_neighbour_stats(sq, y, k, variant, with_distances=True)
            scan = set_neighbour_stats_from_columns(X.T, w, y, k, variant, with_distances=True)
            assert np.array_equal(dense.same_count, scan.same_count)
            assert np.array_equal(dense.same_distance, scan.same_distance)
            assert np.array_equal(dense.other_distance, scan.other_distance)


@pytest.mark.parametrize("engine", ["columns", "points"])
def test_large_n_needs_no_n_by_n_memory(engine, monkeypatch):
    if engine == "columns":
        monkeypatch.setattr(_points, "POINT_MIN_SAMPLES", 10**9)
    n = 20000  # an N x N float matrix: 3.2 GB
    rng = np.random.default_rng(0)
    X = np.round(rng.standard_normal((n, 6)), 1)  # tied values
    y = (rng.random(n) < 0.1).astype(int)
    w = feature_weights(X)
    single_feature_neighbour_stats_for_ks(X[:, :1], y, [7], w[:1])  # compile outside
    set_neighbour_stats_from_columns(X[:50, :2].T, w[:2], y[:50], 7)
    tracemalloc.start()
    single_feature_neighbour_stats_for_ks(X, y, [7], w)
    set_neighbour_stats_from_columns(X[:, :3].T, w[:3], y, 7)
    selector = KOFSD(k=7, alpha=0.0).start(y)
    list(stream_events(selector, X, [str(j) for j in range(6)]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if engine == "points":
        # The points' summed terms (at most TERMS_MAX_POINTS squared), their coordinates,
        # members and candidate lists: O(P (|S| + K)) besides.
        assert isinstance(selector._terms, _points.PointSetTerms)
        assert peak < 2 * _points.TERMS_MAX_POINTS**2 * 8 + n * 8 * 60
        assert peak < n * n * 8 / 20
        return
    assert isinstance(selector._terms, _neighbours.ColumnSetTerms)
    # O(N (L + |S|)): the lists (indices, terms, roots: 24 bytes an entry), a few
    # per-sample arrays, and each thread's rows of approximate terms; N * N * 8 would be
    # 3.2 GB.
    from fsengine.methods.online._roughset.kofsd._set_kernels import APPROX_ROWS

    lists = n * _set_terms.COLUMN_LIST_LENGTH * 24
    assert peak < lists + n * 8 * 40 + APPROX_ROWS * n * 8 * 4
    assert peak < n * n * 8 / 20


@pytest.mark.parametrize("rounding", [None, 1, 0])
@pytest.mark.parametrize("length", [6, 128])
def test_columns_set_tests_equal_the_dense_ones_as_the_set_grows(rounding, length, monkeypatch):
    """A set kept as columns (lists remade by pruned walks, then from approximate terms; rows
    the lists miss from approximate terms) against the dense set scoring whole rows, bit
    for bit, as the set grows to 9 features; short lists make most rows miss."""
    monkeypatch.setattr(_set_terms, "COLUMN_LIST_LENGTH", length)
    monkeypatch.setattr(_set_terms, "COLUMN_LIST_MIN", min(4, length))
    rng = np.random.default_rng(5)
    n = 700
    X = rng.standard_normal((n, 12)) * rng.uniform(0.5, 50, 12) + rng.uniform(-1e3, 1e3, 12)
    if rounding is not None:
        X = np.round(X, rounding)
    X[:, 11] = X[:, 3]  # a copy of a set feature
    X[9] = X[4]  # duplicated samples
    y = (rng.random(n) < 0.15).astype(int)
    w = feature_weights(X)
    columns, sq = _neighbours.ColumnSetTerms(n), None
    for j in range(9):
        (columns.add if j else columns.replace)(X[:, j], w[j])
        term = distance_terms(X[:, j], w[j])
        sq = term if sq is None else sq + term
        candidates = [9, 10, 11]
        for ks, variant in (([7], "reference"), ([1, 4], "paper")):
            got = columns.stats_with(X[:, candidates], w[candidates], y, ks, variant, True)[0]
            want = set_plus_feature_stats(sq, X[:, candidates], w[candidates], y, ks, variant, True)
            for g, e in zip(got, want):
                assert np.array_equal(g.same_count, e.same_count)
                assert np.array_equal(g.same_distance, e.same_distance)
                assert np.array_equal(g.other_distance, e.other_distance)
    assert columns.rows_listed > n  # lists were remade


@given(
    st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, -1.0, 1e-12, np.inf]), min_size=2, max_size=3000),
    st.integers(1, 200),
    st.sampled_from([0.0, 1e-12, 0.5]),
)
@settings(max_examples=200, deadline=None)
def test_candidates_are_every_value_up_to_the_order_statistic_plus_the_pad(values, want, pad):
    """The compiled candidate search (a threshold guessed from a sample, raised when too few
    values are below it) against the sorted definition: every value up to the want-th
    smallest plus the pad is collected, in index order, and nothing left out is below
    ``beyond``; on long tie-heavy rows and short ones."""
    from fsengine.methods.online._roughset.kofsd._set_kernels import (
        THRESHOLD_SAMPLE,
        _candidates,
    )

    a = np.asarray(values, dtype=float)
    finite = int(np.isfinite(a).sum())
    if finite == 0:
        a[0] = 1.0
        finite = 1
    want = min(want, finite)
    n = len(a)
    buf, vals = np.empty(n, dtype=np.int64), np.empty(n)
    c, t_q, beyond = _candidates(a, want, pad, np.empty(THRESHOLD_SAMPLE), buf, vals)
    assert t_q == np.sort(a)[want - 1] + pad
    collected = buf[:c]
    assert np.all(np.diff(collected) > 0)
    assert set(np.flatnonzero(a <= t_q)) <= set(collected.tolist())
    left_out = np.setdiff1d(np.arange(n), collected[a[collected] <= t_q])
    assert np.all(a[left_out] >= beyond) and beyond > t_q


def _kernel_dependencies(X, y, first, accept_above, accepted):
    """Card_Imbalanced dependencies of S + f (S the first column of X, f each other column)
    from one set-test kernel call for candidates numbered ``first``.. of a larger batch."""
    from fsengine.methods.online._codes import CARD_IMBALANCED

    n, c = X.shape[0], X.shape[1] - 1
    w = feature_weights(X)
    sq = distance_terms(X[:, 0], w[0])
    deps, cards = np.empty(c), np.zeros((c, n))
    test = _common.SetTest(
        set_arrays=(True, sq, np.empty((0, n)), np.empty(0)),
        set_finite=True,
        lists=_common.empty_lists(n),
        prune=_common.NO_PRUNE,
        candidates=np.ascontiguousarray(X[:, 1:].T),
        candidate_weights=w[1:],
        labels=np.asarray(y, dtype=np.int64),
        ks=np.array([3]),
        paper=False,
        with_distances=False,
        outputs=_common.stats_arrays(1, n, c, False),
        card=CARD_IMBALANCED,
        gamma=0.0,
        early=False,
        reject_sum=-np.inf,
        rejected=np.zeros(c, bool),
        rows=np.arange(n),
        set_cards=np.ones(n),
        n_low=-1,
        cards_out=cards,
        deps_out=deps,
        approximation=_common.NO_APPROXIMATION,
        first=first,
        accept_above=accept_above,
        accepted=accepted,
        whole=True,
        sharing=_common.unshared(),
    )
    _common.run_set_test(_common.set_kernels(), test)
    return deps


def test_set_tests_skip_only_the_candidates_after_an_acceptance():
    """Candidates are numbered within the whole batch (``first`` + their place): one
    already accepted elsewhere (``accepted``) skips only the later ones, and an acceptance
    here records its number in the batch."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, 6))
    y = (rng.random(40) < 0.3).astype(int)
    everything = _kernel_dependencies(X, y, 0, np.inf, np.array([99]))
    assert np.all(np.isfinite(everything))
    accepted = np.array([6])  # candidate 6 of the batch, elsewhere
    deps = _kernel_dependencies(X, y, 5, np.inf, accepted)
    assert np.array_equal(deps[:2], everything[:2]) and np.all(np.isnan(deps[2:]))
    assert accepted[0] == 6
    accepted = np.array([99])  # every candidate here is accepted
    deps = _kernel_dependencies(X, y, 5, -np.inf, accepted)
    assert deps[0] == everything[0] and np.all(np.isnan(deps[1:]))
    assert accepted[0] == 5


#: The set paths for integer-valued data and long columns: a dense set kept as columns
#: (lists made by the tests where a row first needs one or its list missed, resized), a
#: dense set keeping its summed terms with lists remade after every addition or never,
#: lists ordered by one or two buckets (the sorted bucket) and thresholds guessed from
#: one or three values, and on several threads (each candidate's rows in interleaved
#: parts that share their progress towards a rejection). A set of one feature is searched by runs
#: of equal values wherever they hold 4 samples on average (tie_heavy's integers 0..3 from
#: 16 samples on), on every path.
COLUMN_SET_PATHS = {
    "column lists": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "SUMS_MAX_SAMPLES"): 0,
        (_set_terms, "SHORTLIST_MIN"): 1,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
    },
    "column lists wider": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "SUMS_MAX_SAMPLES"): 0,
        (_set_terms, "SHORTLIST_MIN"): 3,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
    },
    "summed lists remade": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "LISTS_AFTER_ROWS"): 0,
        (_set_terms, "SHORTLIST_MIN"): 2,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
        (_set_terms, "DENSE_LIST_MIN"): 10**6,
    },
    "summed lists kept": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "LISTS_AFTER_ROWS"): 0,
        (_set_terms, "SHORTLIST_MIN"): 3,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
        (_set_terms, "DENSE_LIST_MIN"): 0,
    },
    "buckets": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "LISTS_AFTER_ROWS"): 0,
        (_set_terms, "SHORTLIST_MIN"): 4,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
        (_set_kernels, "LIST_BUCKETS"): 2,
        (_set_kernels, "LIST_SAMPLE"): 3,
    },
    "column buckets": {
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "SUMS_MAX_SAMPLES"): 0,
        (_set_terms, "SHORTLIST_MIN"): 5,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
        (_set_kernels, "LIST_BUCKETS"): 1,
        (_set_kernels, "LIST_SAMPLE"): 1,
    },
    "threaded column lists": {
        (_set_terms, "THREAD_MIN_WORK"): 1,
        (_set_terms, "WHOLE_ROWS_MAX"): 0,
        (_set_terms, "SUMS_MAX_SAMPLES"): 0,
        (_set_terms, "SHORTLIST_MIN"): 1,
        (_set_terms, "SHORTLIST_MAX_SHARE"): 1,
    },
}

#: The list-making kernels read the bucket and sample counts when they start: where a path
#: changes them, they run as Python (numba's ``py_func``, in place of the built kernel the
#: selector calls; the helpers stay compiled).
_LIST_KERNELS = ("build_dense_lists", "build_lists_from_columns")


@contextlib.contextmanager
def column_set_path(path):
    """Patch the settings of one of COLUMN_SET_PATHS, then restore them."""
    settings = COLUMN_SET_PATHS[path]
    saved = {key: getattr(*key) for key in settings}
    swapped = {}
    try:
        for (owner, name), value in settings.items():
            setattr(owner, name, value)
        family = kernels.load("methods.online._roughset.kofsd._set_kernels")
        if any(owner is _set_kernels for owner, _ in settings):
            for name in _LIST_KERNELS:
                swapped[name] = getattr(family, name)
                setattr(family, name, getattr(_set_kernels, name).py_func)
        threads = {"kernel_threads": 3} if path == "threaded column lists" else {}
        with config_context(**threads):
            yield
    finally:
        for name, kernel in swapped.items():
            setattr(family, name, kernel)
        for (owner, name), value in saved.items():
            setattr(owner, name, value)


@pytest.mark.parametrize("path", list(COLUMN_SET_PATHS))
@settings(max_examples=60, deadline=None)
@given(
    data=tie_heavy(max_n=24, max_p=6),
    params=st.sampled_from(CARDS),
    variant=st.sampled_from(["reference", "paper"]),
    alpha=st.sampled_from([0.0, 0.3, 0.5]),
    k_draw=st.integers(1, 100),
    order_seed=st.integers(0, 99),
)
def test_stream_equals_the_oracle_on_every_column_set_path(
    path, data, params, variant, alpha, k_draw, order_seed
):
    """Every event (dependencies of S + f included, rejections scored) as the oracle's, on
    the paths of COLUMN_SET_PATHS."""
    X, y = data
    n, p = X.shape
    k = 1 + k_draw % (n - 1)
    order = np.random.default_rng(order_seed).permutation(p).tolist()
    expected_events, expected_selected = kofsd_oracle.run(
        X.tolist(), y.tolist(), order, k, alpha, variant=variant, **params
    )
    with column_set_path(path):
        selector = KOFSD(k=k, alpha=alpha, variant=variant, **params).start(y)
        assert isinstance(selector._terms, _neighbours.DenseSetTerms)
        assert _events(selector, X, order) == expected_events
    assert list(selector.finish().columns) == expected_selected


@pytest.mark.parametrize("path", list(COLUMN_SET_PATHS))
@settings(max_examples=60, deadline=None)
@given(
    data=tie_heavy(max_n=24, max_p=10),
    params=st.sampled_from(CARDS),
    variant=st.sampled_from(["reference", "paper"]),
    alpha=st.sampled_from([0.0, 0.3, 0.5]),
    k_draw=st.integers(1, 100),
    order_seed=st.integers(0, 99),
    chunk=st.sampled_from([1, 3, 256]),
)
def test_runs_without_events_select_as_the_oracle_on_every_column_set_path(
    path, data, params, variant, alpha, k_draw, order_seed, chunk
):
    """stream_selection (early rejection, rows in the order of their cards and of the
    other label's nearness, candidates after an addition skipped) selects exactly the
    oracle's features on the paths of COLUMN_SET_PATHS."""
    from fsengine.methods.online import stream_selection

    X, y = data
    n, p = X.shape
    k = 1 + k_draw % (n - 1)
    order = np.random.default_rng(order_seed).permutation(p)
    _, expected_selected = kofsd_oracle.run(
        X.tolist(), y.tolist(), order.tolist(), k, alpha, variant=variant, **params
    )
    with column_set_path(path):
        selector = KOFSD(k=k, alpha=alpha, variant=variant, **params).start(y)
        selection = stream_selection(selector, X, [str(j) for j in range(p)], order, chunk=chunk)
    assert list(selection.columns) == expected_selected


@pytest.mark.parametrize("values", ["integers 0..3", "integers like madelon", "rounded to 1"])
@pytest.mark.parametrize("n, threads", [(300, 1), (1700, 2)])
def test_column_set_tests_equal_whole_rows_as_the_set_grows(values, n, threads, monkeypatch):
    """A dense set kept as columns with lists (at once, remade, resized; a set of one
    feature by runs) against the kernel that scores every row of the summed terms, bit
    for bit, through replacements and additions; also with early rejection, where every
    candidate not rejected has the definition's dependency (the set's cards taken as
    candidate 0's: a rejection is a sum below the bar, or no card above the set's)."""
    monkeypatch.setattr(_set_terms, "WHOLE_ROWS_MAX", 0)
    monkeypatch.setattr(_set_terms, "SUMS_MAX_SAMPLES", 0)
    monkeypatch.setattr(_set_terms, "SHORTLIST_MIN", 8)
    monkeypatch.setattr(_set_terms, "THREAD_MIN_WORK", 1)
    monkeypatch.setitem(config._settings, "kernel_threads", threads)
    rng = np.random.default_rng(n + len(values))
    X = {
        "integers 0..3": lambda: rng.integers(0, 4, (n, 14)).astype(float),
        "integers like madelon": lambda: np.rint(480 + 40 * rng.standard_normal((n, 14))),
        "rounded to 1": lambda: np.round(rng.standard_normal((n, 14)), 1),
    }[values]()
    X[:, 5] = X[:, 2]  # a duplicated column
    X[7] = X[3]  # duplicated samples
    y = (rng.random(n) < 0.2).astype(int)
    w = feature_weights(X)
    terms, sq = DenseSetTerms(n), None
    steps = [("replace", 0), ("add", 1), ("add", 3), ("replace", 4), ("add", 2)]
    steps += [("add", j) for j in (6, 8, 10, 11, 12)]
    candidates = [5, 7, 13, 9]
    for action, j in steps:
        getattr(terms, action)(X[:, j], w[j])
        term = distance_terms(X[:, j], w[j])
        sq = term if action == "replace" or sq is None else sq + term
        assert np.array_equal(terms.sq, sq)
        for ks, variant in (([7], "reference"), ([1, 3, 9], "paper")):
            got = terms.stats_with(X[:, candidates], w[candidates], y, ks, variant, True)[0]
            want = set_plus_feature_stats(sq, X[:, candidates], w[candidates], y, ks, variant, True)
            for g, e in zip(got, want):
                assert np.array_equal(g.same_count, e.same_count)
                assert np.array_equal(g.same_distance, e.same_distance)
                assert np.array_equal(g.other_distance, e.other_distance)
        whole = set_plus_feature_stats(sq, X[:, candidates], w[candidates], y, [7])[0]
        cards = (whole.same_count == 7).astype(float)
        cards[y == 1] = whole.same_count[y == 1] / 7
        deps = cards.mean(axis=0)
        terms.set_cards(cards[:, 0], y)
        reject_sum = np.sort(deps)[1] * n  # about half the candidates cannot reach it
        got, _ = terms.dependencies_with(
            X[:, candidates], w[candidates], y, 7, "reference", "imbalanced", 0.0, reject_sum
        )
        kept = ~np.isnan(got)
        for c in range(len(candidates)):
            total = 0.0
            for i in range(n):
                total += cards[i, c]
            if kept[c]:
                assert got[c] == total / n
            else:  # below the bar, or no card above the set's (candidate 0's here)
                assert total < reject_sum + 1e-9 or np.all(cards[:, c] <= cards[:, 0])
    assert terms.list_tests > 0 and terms.list_full_rows < terms.list_tests * n * len(candidates)


@st.composite
def tied_rows(draw):
    """A row of terms with many equal values (and a zero for the sample itself)."""
    n = draw(st.integers(2, 300))
    values = draw(
        st.lists(
            st.sampled_from([0.0, 0.5, 1.0, 1.0 + 2**-52, 2.0, 3.0, 1e300, np.inf]),
            min_size=n,
            max_size=n,
        )
    )
    row = np.array(values)
    i = draw(st.integers(0, n - 1))
    row[i] = 0.0
    return row, i


@given(tied_rows(), st.integers(1, 40), st.sampled_from([1, 2, 16]), st.sampled_from([1, 3, 256]))
@settings(max_examples=300, deadline=None)
def test_lists_hold_every_sample_below_their_bound_with_keys_below_their_terms(
    row_i, length, buckets, sample
):
    """_list_from_row, bucketed (any number of buckets, tiny samples): the list holds other
    samples with their exact terms, each key (a root) is at most the root of every term
    from its place on, no sample outside the list is below the bound, and the bound is
    above every key."""
    module = _set_kernels
    row, i = row_i
    n = len(row)
    saved = module.LIST_BUCKETS, module.LIST_SAMPLE
    module.LIST_BUCKETS, module.LIST_SAMPLE = buckets, sample
    try:
        arrays = _common.empty_lists(n, length)
        module.build_dense_lists.py_func(row[None, :].repeat(n, axis=0), np.array([i]), *arrays)
    finally:
        module.LIST_BUCKETS, module.LIST_SAMPLE = saved
    idx, terms, keys, lengths, bound = (a[i] for a in arrays)
    listed = idx[:lengths]
    assert len(set(listed.tolist())) == lengths and i not in listed.tolist()
    assert np.array_equal(terms[:lengths], row[listed])
    for j in range(lengths):
        assert keys[j] <= np.sqrt(terms[j:lengths]).min()
        assert keys[j] <= np.sqrt(bound)
    outside = np.setdiff1d(np.delete(np.arange(n), i), listed)
    assert np.all(row[outside] >= bound)
    assert lengths == min(length, n - 1) or lengths >= min(length, n - 1) // 2 or bound == np.inf


def test_resized_lists_keep_valid_bounds():
    """Lists cut to a shorter width: the bound of a cut list is at most the first dropped
    key's term, so no dropped sample is below it; lists widened keep their samples."""
    rng = np.random.default_rng(4)
    n = 40
    sq = rng.integers(0, 5, (n, n)).astype(float)
    sq = sq + sq.T
    np.fill_diagonal(sq, 0.0)
    arrays = _common.empty_lists(n, 12)
    from fsengine.methods.online._roughset.kofsd._set_kernels import build_dense_lists

    build_dense_lists(sq, np.arange(n, dtype=np.int64), *arrays)
    listed = np.arange(12)[None, :] < arrays[3][:, None]
    below = ((arrays[1] < arrays[4][:, None]) & listed).sum(axis=1)
    for width in (3, 20):
        resized, counted = _common.resized_lists(arrays, below, width)
        for i in range(n):
            length = resized[3][i]
            listed = resized[0][i, :length]
            outside = np.setdiff1d(np.delete(np.arange(n), i), listed)
            assert np.all(sq[i, outside] >= resized[4][i])
            assert np.array_equal(resized[1][i, :length], sq[i, listed])
            assert counted[i] == np.count_nonzero(resized[1][i, :length] < resized[4][i])


@pytest.mark.parametrize("path", list(COLUMN_SET_PATHS))
@settings(max_examples=150, deadline=None)
@given(
    data=tie_heavy(max_n=40, max_p=8),
    steps=st.lists(st.tuples(st.booleans(), st.integers(0, 7)), min_size=1, max_size=9),
    variant=st.sampled_from(["reference", "paper"]),
    k_draw=st.integers(1, 100),
    metric=st.sampled_from(["seuclidean", "euclidean"]),
)
def test_column_set_terms_equal_the_definition_through_any_changes(
    path, data, steps, variant, k_draw, metric
):
    """A dense set's tests (each K's counts and distance sums; the dependencies with early
    rejection) against every distance of the definition, bit for bit, after every change
    of a random sequence of replacements and additions (lists made, raised, remade,
    resized), on tie-heavy data and the paths of COLUMN_SET_PATHS."""
    X, y = data
    n, p = X.shape
    k = 1 + k_draw % (n - 1)
    w = feature_weights(X, metric)
    candidates = list(range(p))
    with column_set_path(path):
        terms, sq = DenseSetTerms(n), None
        for replace, j in steps:
            j %= p
            replace = replace or sq is None
            (terms.replace if replace else terms.add)(X[:, j], w[j])
            term = distance_terms(X[:, j], w[j])
            sq = term if replace else sq + term
            assert np.array_equal(terms.sq, sq, equal_nan=True)
            got = terms.stats_with(X, w, y, [k], variant, True)[0][0]
            want = set_plus_feature_stats(sq, X, w, y, [k], variant, True)[0]
            assert np.array_equal(got.same_count, want.same_count)
            assert np.array_equal(got.same_distance, want.same_distance, equal_nan=True)
            assert np.array_equal(got.other_distance, want.other_distance, equal_nan=True)
            same = want.same_count
            cards = np.where(y[:, None] == 1, same / k, (same == k).astype(float))
            totals = [sum(cards[i, c] for i in range(n)) for c in candidates]
            terms.set_cards(cards[:, 0], y)
            bar = sorted(totals)[len(totals) // 2]
            deps, _ = terms.dependencies_with(X, w, y, k, variant, "imbalanced", 0.0, bar)
            for c in candidates:
                if np.isnan(deps[c]):  # below the bar, or no card above the set's
                    assert totals[c] < bar + 1e-9 or np.all(cards[:, c] <= cards[:, 0])
                else:
                    assert deps[c] == totals[c] / n


@given(
    st.lists(st.integers(0, 4), min_size=2, max_size=40),
    st.lists(st.integers(0, 1), min_size=40, max_size=40),
)
@settings(max_examples=300, deadline=None)
def test_samples_nearer_than_the_other_label_on_one_feature(values, labels):
    """The order of a set of one feature's tests: per sample, how many samples are strictly
    nearer on the feature than its nearest sample of the other label (n if none)."""
    v = np.array(values, dtype=float)
    n = len(v)
    y = np.array(labels[:n])
    got = _common.nearer_than_other_label(v, np.argsort(v, kind="stable"), y)
    for i in range(n):
        other = np.flatnonzero(y != y[i])
        if len(other) == 0:
            assert got[i] == n
            continue
        gap = np.abs(v[other] - v[i]).min()
        assert got[i] == max(np.count_nonzero(np.abs(v - v[i]) < gap) - 1, 0)


@settings(max_examples=150, deadline=None)
@given(
    data=tie_heavy(max_n=30, max_p=6),
    k_draw=st.integers(1, 100),
    parts=st.integers(2, 4),
    bar_draw=st.integers(0, 100),
    reverse=st.booleans(),
    runs=st.booleans(),
)
def test_parts_sharing_their_progress_reject_as_one_pass(
    data, k_draw, parts, bar_draw, reverse, runs
):
    """Early rejection over interleaved parts of the rows that share their progress
    (the set-test kernel's parts, run one after the other in either order, then the final
    check)
    rejects exactly the candidates one pass over every row rejects, and the others get
    the same dependencies; also with the set of one feature searched by runs of equal
    values, each candidate sorted by the caller."""
    from fsengine.methods.online._codes import CARD_IMBALANCED

    X, y = data
    n, p = X.shape
    if p < 2:
        return
    k = 1 + k_draw % (n - 1)
    w = feature_weights(X)
    if not 0.0 < w[0] < np.inf:
        return
    sq = distance_terms(X[:, 0], w[0])
    cand = np.ascontiguousarray(X[:, 1:].T)
    y = np.asarray(y, dtype=np.int64)
    set_cards = np.where(np.arange(n) % 3 == 0, 0.5, 1.0)
    order = np.argsort((set_cards >= 1.0).astype(np.int64), kind="stable").astype(np.int64)
    n_low = int(np.count_nonzero(set_cards < 1.0))
    bar = n * bar_draw / 100.0

    columns, col_w, prune = np.empty((0, n)), np.empty(0), _common.NO_PRUNE
    if runs:  # the set's one feature and its sorted order: rows by runs of equal values
        columns, col_w = np.ascontiguousarray(X[:, :1].T), w[:1].copy()
        ascending = np.argsort(X[:, 0], kind="stable")
        position = np.empty(n, dtype=np.int64)
        position[ascending] = np.arange(n)
        prune = (columns[0], float(w[0]), ascending.astype(np.int64), position)

    def run(j, rows, whole, sharing):
        cards, deps, rejected = np.zeros((1, n)), np.empty(1), np.zeros(1, bool)
        test = _common.SetTest(
            set_arrays=(True, sq, columns, col_w),
            set_finite=True,
            lists=_common.empty_lists(n),
            prune=prune,
            candidates=cand[j : j + 1],
            candidate_weights=w[1 + j : 2 + j],
            labels=y,
            ks=np.array([k]),
            paper=False,
            with_distances=False,
            outputs=_common.stats_arrays(1, n, 1, False),
            card=CARD_IMBALANCED,
            gamma=0.0,
            early=True,
            reject_sum=bar,
            rejected=rejected,
            rows=rows,
            set_cards=set_cards,
            n_low=n_low,
            cards_out=cards,
            deps_out=deps,
            approximation=_common.NO_APPROXIMATION,
            first=0,
            accept_above=np.inf,
            accepted=np.array([1]),
            whole=whole,
            sharing=sharing,
        )
        _common.run_set_test(_common.set_kernels(), test)
        return rejected, cards, deps

    no_order = np.empty((0, 0), np.int64)
    for j in range(p - 1):
        if not 0.0 < w[1 + j] < np.inf:
            continue
        one_rejected, _, one_deps = run(j, order, True, _common.unshared())
        progress = np.zeros((parts, 2))
        rejected, cards = np.zeros(1, bool), np.zeros((1, n))
        for part in sorted(range(parts), reverse=reverse):
            got, part_cards, _ = run(
                j,
                np.ascontiguousarray(order[part::parts]),
                False,
                (progress, part, np.argsort(cand[j])[None, :] if runs else no_order),
            )
            rejected |= got
            cards += part_cards
            if got[0]:
                break
        if not rejected[0]:
            rejected[0] = _set_terms.rejected_by_parts(progress, n, bar, n_low)
        assert rejected[0] == one_rejected[0]
        if not rejected[0]:
            from fsengine.methods.online._roughset.kofsd._set_kernels import mean_in_order

            assert mean_in_order(cards[0]) == one_deps[0]


def test_final_check_of_parts_applies_both_rules():
    """_rejected_by_parts: (a) n minus the parts' deficits below the bar; (b) the parts'
    low rows add up to n_low (a part at -inf found one above its card on S)."""
    check = _set_terms.rejected_by_parts
    assert check(np.array([[3.0, 0.0], [2.5, 0.0]]), 10, 4.6, -1)  # 10 - 5.5 < 4.6
    assert not check(np.array([[3.0, 0.0], [2.0, 0.0]]), 10, 4.6, -1)
    assert check(np.array([[0.0, 2.0], [0.0, 3.0]]), 10, -np.inf, 5)
    assert not check(np.array([[0.0, 2.0], [0.0, -np.inf]]), 10, -np.inf, 5)
    assert not check(np.array([[0.0, 2.0], [0.0, 2.0]]), 10, -np.inf, 5)


def test_distinct_values_counted_by_hand():
    """The median column's distinct values against half the samples: 2 of 6, 6 of 6 and
    3 of 6 (a NaN-free block; 0 and -0.0 are one value)."""
    block = np.array(
        [[0, 1.5, 0], [0, 2.5, 0], [3, 3.5, 0], [0, 4.5, 7], [3, 5.5, -0.0], [0, 6.5, 8]]
    )
    assert _points.shares_points(block[:, [0]]) and _points.shares_points(block[:, [2]])
    assert not _points.shares_points(block[:, [1]])
    assert _points.shares_points(block)  # median of (2, 6, 3): 3 of 6
    assert not _points.shares_points(block[:, [1, 1, 0]])  # median 6


@pytest.mark.parametrize("kind", ["normal", "counts", "log counts"])
def test_many_samples_test_sets_on_points_only_where_samples_share_values(kind):
    """From POINT_MIN_SAMPLES samples the stream tests sets on points for counts and log
    counts (few distinct values a gene) and on the samples for continuous values, where
    every sample is a point of its own (4.8x slower on points at 4,000 x 500); the other
    engine, forced, gives the same events."""
    rng = np.random.default_rng(3)
    n, p = _points.POINT_MIN_SAMPLES, 12
    y = (rng.random(n) < 0.05).astype(int)
    if kind == "normal":
        X = rng.standard_normal((n, p)) + 1.5 * y[:, None] * (np.arange(p) < 3)
    else:
        X = rng.poisson(0.3 + 2.0 * y[:, None] * (np.arange(p) < 3), size=(n, p)).astype(float)
        X = np.log1p(X) if kind == "log counts" else X
    selector = KOFSD(k=5, alpha=0.0).start(y)
    names = [str(j) for j in range(p)]
    events = list(stream_events(selector, X, names))
    on_points = isinstance(selector._terms, _points.PointSetTerms)
    assert on_points is (kind != "normal")
    other = KOFSD(k=5, alpha=0.0).start(y)
    other._terms = other._sample_terms() if on_points else _points.PointSetTerms(n)
    assert [repr(e) for e in stream_events(other, X, names)] == [repr(e) for e in events]


@pytest.mark.parametrize("kind", ["normal", "counts"])
def test_a_sweep_over_k_on_many_samples_equals_each_k_run_alone(kind, monkeypatch):
    """The sweep over K decides without a stream's blocks: from POINT_MIN_SAMPLES samples
    (lowered here to 100 of 400) each K's selector chooses its set tests when its first
    features pass alpha, and selects as that K run alone."""
    monkeypatch.setattr(_points, "POINT_MIN_SAMPLES", 100)
    rng = np.random.default_rng(5)
    n, p = 400, 16
    y = (rng.random(n) < 0.1).astype(int)
    shift = 1.5 * y[:, None] * (np.arange(p) < 4)
    if kind == "normal":
        X = rng.standard_normal((n, p)) + shift
    else:
        X = rng.poisson(0.4 + shift).astype(float)
    ks = [1, 3, 5]
    swept = run_kofsd_for_ks(X, y, ks, alpha=0.0, chunk=4)
    for k in ks:
        assert swept[k] == run_kofsd(X, y, k=k, alpha=0.0)[0]
