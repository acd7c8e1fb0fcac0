"""CIE-OSFS (Wang et al. 2017): discretisation, independence tests and conditional entropies
by hand, redundancy and event fields, and the engine against a slow definition-level
implementation written here with plain Python (lists, dicts, loops, math.log2)."""

import math

import numpy as np
import pytest
from scipy import stats

from fsengine import FSEngineError
from fsengine._compute.discretise import discretise
from fsengine.methods.online import CIEOSFS, CIEOSFSEvent, feature_order, stream_events
from fsengine.methods.online._information.cieosfs import (
    conditional_entropy,
    independence_test,
    refine,
)

TOL = 1e-12


# ------------------------------------------------------------------ slow reference helpers


def slow_quantile(values, q):
    """numpy's default ("linear") quantile, written out: lerp at virtual index (n - 1) q."""
    s = sorted(values)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    t = h - lo
    a, b = s[lo], s[min(lo + 1, len(s) - 1)]
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t  # numpy's _lerp


def slow_codes(values, bins, binning):
    """Bin code = number of cuts strictly below the value (a value on a cut goes lower)."""
    if binning == "quantile":
        cuts = [slow_quantile(values, k / bins) for k in range(1, bins)]
    else:
        low, high = min(values), max(values)
        cuts = [low + (high - low) * (k / bins) for k in range(1, bins)]
    return [sum(v > c for c in cuts) for v in values]


def slow_test(codes, y, test):
    """(statistic, p_value) of the bins x 2 table, dof = occupied bins - 1."""
    n, n1 = len(y), sum(y)
    table = {}
    for c, d in zip(codes, y):
        table.setdefault(c, [0, 0])[d] += 1
    statistic = 0.0
    for row in table.values():
        for d, observed in enumerate(row):
            expected = sum(row) * (n1 if d else n - n1) / n
            if test == "g" and observed > 0:
                statistic += 2 * observed * math.log(observed / expected)
            elif test == "chi2":
                statistic += (observed - expected) ** 2 / expected
    dof = len(table) - 1
    return statistic, (float(stats.chi2.sf(statistic, dof)) if dof > 0 else 1.0)


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return 0.0 if sxx == 0 else sxy / math.sqrt(sxx * syy)


def slow_entropy(features, y):
    """H(D | B) in bits: blocks of samples with equal codes on every feature of B."""
    blocks = {}
    for i, d in enumerate(y):
        key = tuple(f[i] for f in features)
        blocks.setdefault(key, [0, 0])[d] += 1
    n = len(y)
    return -sum(c / n * math.log2(c / sum(row)) for row in blocks.values() for c in row if c)


def slow_cieosfs(X, y, names, order, bins=3, binning="quantile", test="g", significance=0.05):
    """Algorithm 1 of the paper, one dict per step (SF as a list of feature dicts)."""
    y = [int(v) for v in y]
    sf, steps = [], []
    for position, j in enumerate(order):
        values = [float(v) for v in X[:, j]]
        f = {
            "name": names[j],
            "arrival": position,
            "codes": slow_codes(values, bins, binning),
            "corr": abs(pearson(values, y)),
        }
        statistic, p = slow_test(f["codes"], y, test)
        removed = []
        if not p < significance:
            action = "irrelevant"
        else:
            candidates = sf + [f]
            ordered = sorted(candidates, key=lambda m: (-m["corr"], m["arrival"]))
            target = slow_entropy([m["codes"] for m in ordered], y)
            red = []
            for b in ordered:
                before = slow_entropy([m["codes"] for m in red], y)
                after = slow_entropy([m["codes"] for m in red + [b]], y)
                if before - after > TOL:
                    red.append(b)
                    if abs(after - target) <= TOL:
                        break
            removed = [m["name"] for m in candidates if m not in red]
            action = "added" if f in red else "redundant"
            sf = red
        steps.append(
            {
                "feature": names[j],
                "action": action,
                "score": f["corr"],
                "statistic": statistic,
                "p_value": p,
                "removed": removed,
                "selected": [m["name"] for m in sf],
                "selected_score": slow_entropy([m["codes"] for m in sf], y),
            }
        )
    return steps


def blocks_of(labels):
    """A partition given by labels, as a set of frozensets of (1-based) sample numbers."""
    groups = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), set()).add(i + 1)
    return {frozenset(g) for g in groups.values()}


def h2(p):
    """Binary entropy in bits."""
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def run(selector, X, names, order=None, chunk=256):
    return list(stream_events(selector, X, names, order, chunk=chunk))


def random_data(seed, n=24, p=25):
    """8 minority of 24; columns 0-7 informative (shifted), 8 = copy of 0, 9 = 2 x column 1,
    10 = column 2 rounded (ties), the rest noise."""
    rng = np.random.default_rng(seed)
    y = rng.permutation([1] * 8 + [0] * (n - 8))
    X = rng.normal(size=(n, p))
    X[:, :8] += np.outer(y, rng.uniform(0.6, 1.8, size=8))
    X[:, 8] = X[:, 0]
    X[:, 9] = 2 * X[:, 1]
    X[:, 10] = np.round(X[:, 2])
    return X, y, [f"g{j}" for j in range(p)]


# ------------------------------------------------------------------ discretisation by hand


@pytest.mark.parametrize(
    "column, bins, expected",
    [
        # cuts at quantiles 1/3, 2/3 of 1..7: 3 and 5 (virtual indices 2 and 4); 3 and 5 go lower
        ([5, 1, 4, 2, 3, 6, 7], 3, [1, 0, 1, 0, 0, 2, 2]),
        # ties: cuts 1 (between two 1s) and 1 + (2 - 1) / 3; the middle bin stays empty
        ([1, 1, 1, 1, 2, 3], 3, [0, 0, 0, 0, 2, 2]),
        # cuts 10 and 20 exactly (virtual indices 1 and 2)
        ([30, 0, 20, 10], 3, [2, 0, 1, 0]),
        # median of 1..4 = 2.5
        ([4, 1, 3, 2], 2, [1, 0, 1, 0]),
        # interpolated cuts: n = 5, virtual indices 4/3, 8/3
        # -> 2 + 1/3 * 8 = 4.67, 10 + 2/3 * 20 = 23.3
        ([0, 2, 10, 30, 100], 3, [0, 0, 1, 2, 2]),
        ([7, 7, 7, 7], 3, [0, 0, 0, 0]),  # constant column: one bin
    ],
)
def test_quantile_bins_by_hand(column, bins, expected):
    codes = discretise(np.array(column, float)[:, None], bins)
    assert codes[:, 0].tolist() == expected


@pytest.mark.parametrize(
    "column, bins, expected",
    [
        ([0, 3, 6, 9], 3, [0, 0, 1, 2]),  # cuts 3 and 6, both go lower
        ([0, 1, 2, 3, 9], 3, [0, 0, 0, 0, 2]),  # equal width, not equal frequency
        ([-3, 0, 3], 3, [0, 1, 2]),  # cuts -1 and 1
        ([5, 1, 2], 2, [1, 0, 0]),  # cut 3
        ([2, 2, 2], 3, [0, 0, 0]),  # constant column
    ],
)
def test_uniform_bins_by_hand(column, bins, expected):
    codes = discretise(np.array(column, float)[:, None], bins, "uniform")
    assert codes[:, 0].tolist() == expected


def test_columns_of_a_block_are_cut_independently():
    block = np.array(
        [[5, 30, 7], [1, 0, 7], [4, 20, 7], [2, 10, 7], [3, 40, 7], [6, 50, 7], [7, 60, 7]], float
    )
    codes = discretise(block, 3)
    # column 1 cuts at 3 and 5; column 2 at 20 and 40 (both on a value: 20 and 40 go lower)
    assert codes.T.tolist() == [[1, 0, 1, 0, 0, 2, 2], [1, 0, 0, 0, 1, 2, 2], [0] * 7]


def test_discretise_matches_the_slow_definition_on_random_columns():
    rng = np.random.default_rng(5)
    block = np.column_stack([rng.normal(size=24), rng.integers(0, 4, 24), rng.exponential(size=24)])
    for bins in (2, 3, 5):
        for binning in ("quantile", "uniform"):
            got = discretise(block, bins, binning)
            for j in range(block.shape[1]):
                assert got[:, j].tolist() == slow_codes(block[:, j].tolist(), bins, binning)


# ------------------------------------------------------------------ independence test by hand

# 12 samples (8 of class 0, 4 of class 1), 3 bins of 4: class-1 counts 0, 1, 3.
CODES_12 = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
Y_12 = np.array([0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1])


def test_g_statistic_by_hand():
    # Expected per bin: 8/3 of class 0 and 4/3 of class 1; the empty cell contributes 0.
    g = 2 * (
        4 * math.log(4 / (8 / 3))
        + 3 * math.log(3 / (8 / 3))
        + 1 * math.log(1 / (4 / 3))
        + 1 * math.log(1 / (8 / 3))
        + 3 * math.log(3 / (4 / 3))
    )
    statistic, p = independence_test(CODES_12[:, None], Y_12, 3, "g")
    assert statistic[0] == pytest.approx(g, rel=1e-12)
    assert p[0] == pytest.approx(stats.chi2.sf(g, 2), rel=1e-9)


def test_chi2_statistic_by_hand():
    # (O - E)^2 / E: bin 0: 2/3 + 4/3, bin 1: 1/24 + 1/12, bin 2: 25/24 + 25/12; total 5.25.
    statistic, p = independence_test(CODES_12[:, None], Y_12, 3, "chi2")
    assert statistic[0] == pytest.approx(5.25, rel=1e-12)
    assert p[0] == pytest.approx(math.exp(-5.25 / 2), rel=1e-9)  # chi-square, 2 dof
    assert p[0] == pytest.approx(stats.chi2.sf(5.25, 2), rel=1e-9)


@pytest.mark.parametrize("test", ["g", "chi2"])
def test_dof_counts_only_occupied_bins(test):
    codes = np.where(CODES_12 == 1, 0, CODES_12)  # bins 0 (8 samples) and 2 (4)
    # class-1 counts: bin 0 has 1 of 8, bin 2 has 3 of 4; expected 16/3, 8/3 and 8/3, 4/3.
    if test == "g":
        hand = 2 * (
            7 * math.log(7 / (16 / 3))
            + 1 * math.log(1 / (8 / 3))
            + 1 * math.log(1 / (8 / 3))
            + 3 * math.log(3 / (4 / 3))
        )
    else:
        hand = (
            (7 - 16 / 3) ** 2 / (16 / 3)
            + (1 - 8 / 3) ** 2 / (8 / 3)
            + (1 - 8 / 3) ** 2 / (8 / 3)
            + (3 - 4 / 3) ** 2 / (4 / 3)
        )
    statistic, p = independence_test(codes[:, None], Y_12, 3, test)
    assert statistic[0] == pytest.approx(hand, rel=1e-12)
    assert p[0] == pytest.approx(stats.chi2.sf(hand, 1), rel=1e-9)


@pytest.mark.parametrize("test", ["g", "chi2"])
def test_single_bin_and_proportional_bins_have_no_evidence(test):
    constant = np.zeros(12, dtype=np.int64)
    proportional = np.array([0, 0, 1, 1, 2, 2, 0, 1, 0, 1, 2, 2])
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    # bins hold samples {0,1,6,8}, {2,3,7,9}, {4,5,10,11}: one of class 1 each (3/12 of 4).
    statistic, p = independence_test(np.column_stack([constant, proportional]), y, 3, test)
    assert statistic.tolist() == [0.0, 0.0]
    assert p.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("test", ["g", "chi2"])
def test_independence_test_matches_the_slow_definition(test):
    rng = np.random.default_rng(11)
    y = rng.permutation([1] * 7 + [0] * 23)
    codes = rng.integers(0, 4, size=(30, 40))
    codes[:, 0] = 2  # one occupied bin
    codes[:, 1] = np.where(y == 1, 3, 0)  # perfect separation
    statistic, p = independence_test(codes, y, 4, test)
    for j in range(codes.shape[1]):
        hand_stat, hand_p = slow_test(codes[:, j].tolist(), y.tolist(), test)
        assert statistic[j] == pytest.approx(hand_stat, rel=1e-10, abs=1e-12)
        assert p[j] == pytest.approx(hand_p, rel=1e-8, abs=1e-300)


# ------------------------------------------------------------------ conditional entropy by hand

# A decision table of 8 samples x1..x8: d is the class, a and b two binary features.
D = [0, 0, 0, 0, 1, 1, 1, 1]
A = [0, 0, 0, 1, 1, 1, 1, 0]
B = [0, 0, 1, 0, 1, 1, 0, 1]
E = [0, 0, 1, 1, 0, 0, 1, 1]  # independent of d alone
# U/{}    = {x1..x8}                                       d: 4 x 0, 4 x 1    -> H = 1
# U/{a}   = {x1,x2,x3,x8} {x4,x5,x6,x7}                    d: 0001, 0111      -> H = h(1/4)
# U/{b}   = {x1,x2,x4,x7} {x3,x5,x6,x8}                    d: 0001, 0111      -> H = h(1/4)
# U/{e}   = {x1,x2,x5,x6} {x3,x4,x7,x8}                    d: 0011, 0011      -> H = 1
# U/{a,b} = {x1,x2} {x3,x8} {x4,x7} {x5,x6}                d: 00, 01, 01, 11  -> H = 2/8 + 2/8
# U/{a,e} = the same partition as U/{a,b}                                     -> H = 1/2
# U/{a,b,d} is all pure                                                       -> H = 0
PARTITION_A = {frozenset({1, 2, 3, 8}), frozenset({4, 5, 6, 7})}
PARTITION_AB = {frozenset({1, 2}), frozenset({3, 8}), frozenset({4, 7}), frozenset({5, 6})}


def _partition(*features):
    labels = np.zeros(8, dtype=np.int64)
    for f in features:
        labels = refine(labels, np.array(f))
    return labels


def test_refine_builds_the_partitions_by_hand():
    assert blocks_of(_partition()) == {frozenset(range(1, 9))}
    assert blocks_of(_partition(A)) == PARTITION_A
    assert blocks_of(_partition(A, B)) == PARTITION_AB
    assert blocks_of(_partition(B, A)) == PARTITION_AB
    assert blocks_of(_partition(A, E)) == PARTITION_AB
    labels = _partition(A, B)
    assert sorted(set(labels.tolist())) == [0, 1, 2, 3]  # labels 0 .. m - 1


def test_refine_with_gapped_codes_still_gives_labels_0_to_m_minus_1():
    labels = refine(np.array([0, 0, 1, 1, 1]), np.array([0, 2, 2, 2, 0]))
    assert blocks_of(labels) == {frozenset({1}), frozenset({2}), frozenset({3, 4}), frozenset({5})}
    assert sorted(set(labels.tolist())) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "features, hand",
    [
        ((), 1.0),
        ((A,), -(1 / 4 * math.log2(1 / 4) + 3 / 4 * math.log2(3 / 4))),
        ((B,), -(1 / 4 * math.log2(1 / 4) + 3 / 4 * math.log2(3 / 4))),
        ((E,), 1.0),
        ((A, B), 2 / 8 * 1 + 2 / 8 * 1),
        ((A, E), 0.5),
        ((A, B, D), 0.0),
        ((D,), 0.0),
    ],
)
def test_conditional_entropy_by_hand(features, hand):
    y = np.array(D)
    assert conditional_entropy(_partition(*features), y) == pytest.approx(hand, abs=1e-15)
    assert slow_entropy(list(features), D) == pytest.approx(hand, abs=1e-15)


def test_conditional_entropy_is_in_bits_with_unequal_classes():
    # 6 of class 0, 2 of class 1, one block: h(1/4) = 0.811278 bits.
    y = np.array([0, 0, 1, 0, 0, 1, 0, 0])
    assert conditional_entropy(np.zeros(8, dtype=np.int64), y) == pytest.approx(0.8112781244591328)
    # blocks {1,2,3} and {4..8}: 3/8 h(1/3) + 5/8 h(1/5)
    labels = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    assert conditional_entropy(labels, y) == pytest.approx(3 / 8 * h2(1 / 3) + 5 / 8 * h2(1 / 5))


# ------------------------------------------------------------------ the selector on the table


def _table_stream():
    """The decision table repeated 3 times (24 samples), streamed as a, b, c = d, a copy of a,
    a times 2, and e (bins with exactly the class proportions). b's raw value at x5 is 0.6, so
    |corr(b)| = 0.8 / sqrt(3.48) = 0.4289 < |corr(a)| = 0.5; its 2 quantile bins are still b."""
    b_raw = [0, 0, 1, 0, 0.6, 1, 0, 1]
    cols = [A, b_raw, D, A, [2 * v for v in A], E]
    X = np.array([col * 3 for col in cols], float).T
    return X, np.array(D * 3), ["a", "b", "c", "a_copy", "a_x2", "e"]


def test_selector_on_the_decision_table_by_hand():
    X, y, names = _table_stream()
    selector = CIEOSFS(bins=2).start(y)
    events = run(selector, X, names)
    h_a = h2(1 / 4)
    # a: bins {x1,x2,x3,x8} (9 of class 0, 3 of class 1 over 3 copies) and the mirror; E = 6.
    g_a = 4 * (9 * math.log(9 / 6) + 3 * math.log(3 / 6))
    g_c = 2 * 2 * 12 * math.log(12 / 6)
    expected = [
        # action, selected, removed, |corr|, G, H(D|SF)
        ("added", ("a",), (), 0.5, g_a, h_a),
        ("added", ("a", "b"), (), 0.8 / math.sqrt(3.48), g_a, 0.5),
        ("added", ("c",), ("a", "b"), 1.0, g_c, 0.0),
        ("redundant", ("c",), ("a_copy",), 0.5, g_a, 0.0),
        ("redundant", ("c",), ("a_x2",), 0.5, g_a, 0.0),
        ("irrelevant", ("c",), (), 0.0, 0.0, 0.0),
    ]
    for event, (action, selected, removed, corr, g, h) in zip(events, expected, strict=True):
        assert isinstance(event, CIEOSFSEvent)
        assert (event.action, event.selected, event.removed) == (action, selected, removed)
        assert event.score == pytest.approx(corr, abs=1e-12)
        assert event.statistic == pytest.approx(g, rel=1e-12, abs=1e-12)
        assert event.p_value == pytest.approx(stats.chi2.sf(g, 1), rel=1e-9)
        assert event.selected_score == pytest.approx(h, abs=1e-12)
    assert events[-1].p_value == 1.0
    assert selector.entropy == 0.0
    assert [e.selected_columns for e in events] == [(0,), (0, 1), (2,), (2,), (2,), (2,)]


def test_chi2_on_the_decision_table_by_hand():
    X, y, names = _table_stream()
    events = run(CIEOSFS(bins=2, test="chi2").start(y), X, names)
    # a: 4 cells of (9 - 6)^2 / 6 = 1.5; c: 4 cells of 6^2 / 6 = 6; e: 0
    assert [e.statistic for e in events] == pytest.approx([6.0, 6.0, 24.0, 6.0, 6.0, 0.0])
    assert [e.action for e in events] == [
        "added",
        "added",
        "added",
        "redundant",
        "redundant",
        "irrelevant",
    ]


def test_significance_level_decides_relevance():
    X, y, names = _table_stream()
    # a, b and the copies of a: G = 6.279, p = 0.0122; c: G = 33.3, p ~ 1e-8; e: p = 1.
    g_a = 4 * (9 * math.log(1.5) + 3 * math.log(0.5))
    assert stats.chi2.sf(g_a, 1) == pytest.approx(0.0122, abs=1e-4)
    events = run(CIEOSFS(bins=2, significance=0.01).start(y), X, names)
    assert [e.action for e in events] == [
        "irrelevant",
        "irrelevant",
        "added",
        "irrelevant",
        "irrelevant",
        "irrelevant",
    ]


def test_finish_orders_sf_by_descending_corr_on_the_table():
    X, y, names = _table_stream()
    selector = CIEOSFS(bins=2).start(y)
    run(selector, X[:, :2], names[:2])
    result = selector.finish()
    assert result.method == "cie-osfs"
    assert result.features == ("a", "b") and result.columns == (0, 1)
    assert result.scores == pytest.approx([0.5, 0.8 / math.sqrt(3.48)], abs=1e-12)


# ------------------------------------------------------------------ redundant copies, noise


def _x_and_copies(seed):
    rng = np.random.default_rng(seed)
    y = rng.permutation([1] * 8 + [0] * 16)
    x = rng.normal(size=24) + 3 * y
    return np.column_stack([x, x.copy(), 2 * x]), y, ["x", "x_copy", "x_x2"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_only_one_of_a_feature_and_its_copies_stays(seed, chunk):
    X, y, names = _x_and_copies(seed)
    events = run(CIEOSFS().start(y), X, names, chunk=chunk)
    assert events[0].action == "added" and events[0].selected == ("x",)
    for event in events:
        assert len(event.selected) == 1 and event.selected_score == events[0].selected_score
    for event in events[1:]:  # whoever arrives, one of the three leaves
        assert len(event.removed) == 1
        assert event.removed[0] in names and event.removed[0] not in event.selected


@pytest.mark.parametrize("seed", range(4))
def test_copies_streamed_one_by_one_are_redundant_and_the_original_stays(seed):
    X, y, names = _x_and_copies(seed)
    events = run(CIEOSFS().start(y), X, names, chunk=1)
    for event, name in zip(events[1:], ["x_copy", "x_x2"]):
        assert (event.action, event.removed, event.selected) == ("redundant", (name,), ("x",))
        assert event.score == events[0].score  # a tie: the earlier arrival goes first
        assert event.statistic == events[0].statistic and event.p_value == events[0].p_value


@pytest.mark.parametrize("seed", range(6))
def test_at_most_one_of_a_feature_and_its_copies_is_ever_selected(seed):
    X, y, names = random_data(seed)
    order = feature_order(X.shape[1], "random", seed)
    for event in run(CIEOSFS().start(y), X, names, order):
        assert len({"g0", "g8"} & set(event.selected)) <= 1
        assert len({"g1", "g9"} & set(event.selected)) <= 1


@pytest.mark.parametrize("test", ["g", "chi2"])
def test_noise_with_the_class_proportions_in_every_bin_is_discarded(test):
    # 18 samples, 6 of class 1; raw values 1..18 cut into 3 bins of 6, each with 2 of class 1.
    y = np.array([1, 0, 0, 1, 0, 0] * 3)
    noise = np.arange(1.0, 19.0)
    informative = y * 3.0 + np.arange(18) / 18
    selector = CIEOSFS(test=test).start(y)
    first = selector.step(informative, "signal")
    event = selector.step(noise, "noise")
    assert first.action == "added"
    assert event.action == "irrelevant"
    assert (event.statistic, event.p_value, event.removed) == (0.0, 1.0, ())
    assert event.selected == ("signal",) and event.selected_score == first.selected_score


def test_a_constant_feature_is_irrelevant_with_score_zero():
    y = np.array([0, 1] * 6)
    event = CIEOSFS().start(y).step(np.full(12, 0.1), "flat")
    assert (event.action, event.score, event.statistic, event.p_value) == (
        "irrelevant",
        0.0,
        0.0,
        1.0,
    )
    assert event.selected == () and event.selected_score == pytest.approx(1.0)


# ------------------------------------------------------------------ engine vs slow oracle


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("order", ["natural", "random"])
@pytest.mark.parametrize("test", ["g", "chi2"])
@pytest.mark.parametrize("bins", [2, 3])
@pytest.mark.parametrize("binning", ["quantile", "uniform"])
def test_engine_matches_the_slow_definition_after_every_step(seed, order, test, bins, binning):
    X, y, names = random_data(seed)
    perm = feature_order(X.shape[1], order, seed + 100)
    params = dict(bins=bins, binning=binning, test=test)
    events = run(CIEOSFS(**params).start(y), X, names, perm, chunk=1)
    expected = slow_cieosfs(X, y, names, perm.tolist(), **params)
    for event, want in zip(events, expected, strict=True):
        assert event.feature == want["feature"]
        assert (event.action, list(event.selected), list(event.removed)) == (
            want["action"],
            want["selected"],
            want["removed"],
        ), f"step {event.step}"
        assert event.score == pytest.approx(want["score"], abs=1e-12)
        assert event.statistic == pytest.approx(want["statistic"], rel=1e-10, abs=1e-12)
        assert event.p_value == pytest.approx(want["p_value"], rel=1e-8)
        assert event.selected_score == pytest.approx(want["selected_score"], abs=1e-12)


def test_the_random_data_sets_exercise_every_branch():
    """The oracle comparison above is only as good as its data: check that those data sets
    give irrelevant, added and redundant steps, SF of 2+ features and old features removed."""
    seen = set()
    for seed in (0, 1, 2):
        X, y, names = random_data(seed)
        for bins in (2, 3):
            for step in slow_cieosfs(X, y, names, list(range(X.shape[1])), bins=bins):
                seen.add(step["action"])
                if len(step["selected"]) >= 2:
                    seen.add("sf of 2+")
                if set(step["removed"]) - {step["feature"]}:
                    seen.add("old removed")
    assert seen == {"irrelevant", "added", "redundant", "sf of 2+", "old removed"}


# ------------------------------------------------------------------ interface


def _decisions(events):
    return [
        (e.step, e.feature, e.column, e.action, e.selected, e.selected_columns, e.removed)
        for e in events
    ]


def _numbers(events):
    return [(e.score, e.statistic, e.p_value, e.selected_score) for e in events]


@pytest.mark.parametrize("seed", [0, 3])
def test_step_and_chunked_stream_make_the_same_decisions(seed):
    X, y, names = random_data(seed)
    order = feature_order(X.shape[1], "random", seed)
    one = CIEOSFS().start(y)
    by_step = [one.step(X[:, j], names[j], int(j)) for j in order]
    by_chunk = run(CIEOSFS().start(y), X, names, order, chunk=5)
    assert _decisions(by_step) == _decisions(by_chunk)
    for a, b in zip(_numbers(by_step), _numbers(by_chunk)):
        assert a == pytest.approx(b, rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("seed", [0, 3])
def test_step_and_chunked_stream_events_are_bit_identical(seed):
    """stream_events promises events identical to one step per feature.

    Fails at commit 682bde5: there |corr| (y_unit @ centred, (centred ** 2).sum(axis=0)) and
    the test statistic (terms.sum over axes (0, 2)) took different numpy summation paths for a
    block of width 1 and of width 5, so score / statistic differed in the last bits."""
    X, y, names = random_data(seed)
    order = feature_order(X.shape[1], "random", seed)
    one = CIEOSFS().start(y)
    by_step = [one.step(X[:, j], names[j], int(j)) for j in order]
    by_chunk = run(CIEOSFS().start(y), X, names, order, chunk=5)
    assert by_step == by_chunk


def _copy_layouts(seed):
    """x, then copies of x, in two chunkings: [x, x_copy, x_x2] as one block of 3, and
    [x, noise] + [x_copy] as blocks of 2 and 1."""
    X, y, names = _x_and_copies(seed)
    noise = np.random.default_rng(seed + 1000).normal(size=24)
    yield X, y, names, 3
    yield np.column_stack([X[:, 0], noise, X[:, 1]]), y, ["x", "noise", "x_copy"], 2


def test_a_copy_never_displaces_the_selected_original_whatever_the_chunking():
    """Ties on |corr| go to the earlier arrival, so a copy (exact or x 2) of a selected feature
    is always "redundant" and the original stays, however the stream is chunked.

    Fails at commit 682bde5: the engine's |corr| of one and the same column depended on the
    width of its block and its position there (numpy's y_unit @ centred and sum(axis=0)), so
    a copy could get a |corr| one ulp above the original's, be "added" and remove it. With
    that code: seed 0, one block [x, x_copy, x_x2] -> x_x2 replaced x; seed 5, blocks
    [x, noise] + [x_copy] -> x_copy replaced x (7 of the 40 cases below)."""
    failures = []
    for seed in range(20):
        for X, y, names, chunk in _copy_layouts(seed):
            chunked = run(CIEOSFS().start(y), X, names, chunk=chunk)
            one_by_one = run(CIEOSFS().start(y), X, names, chunk=1)
            if chunked[-1].selected != ("x",) or _decisions(chunked) != _decisions(one_by_one):
                failures.append(
                    (seed, chunk, chunked[-1].selected, [repr(e.score) for e in chunked])
                )
    assert failures == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finish_returns_sf_by_descending_corr_with_corr_as_scores(seed):
    X, y, names = random_data(seed)
    selector = CIEOSFS(bins=2).start(y)
    events = run(selector, X, names)
    result = selector.finish()
    assert result.features == events[-1].selected == selector.selected
    assert result.columns == events[-1].selected_columns
    assert [names[c] for c in result.columns] == list(result.features)
    hand = [abs(pearson(X[:, c].tolist(), y.tolist())) for c in result.columns]
    assert list(result.scores) == pytest.approx(hand, abs=1e-12)
    assert list(result.scores) == sorted(result.scores, reverse=True)
    assert len(result) >= 1


def test_params_and_initial_entropy():
    y = np.array([0, 0, 0, 1, 0, 0, 0, 1])
    selector = CIEOSFS().start(y)
    assert selector.params == {"bins": 3, "binning": "quantile", "test": "g", "significance": 0.05}
    assert selector.entropy == pytest.approx(h2(1 / 4))
    assert selector.finish().features == ()


def test_invalid_binning_and_test_raise_in_the_helpers_too():
    with pytest.raises(FSEngineError):
        discretise(np.zeros((4, 1)), 3, "equal")
    with pytest.raises(FSEngineError):
        independence_test(np.zeros((4, 1), dtype=np.int64), np.array([0, 1, 0, 1]), 3, "fisher")


def test_an_affine_copy_never_displaces_the_original_on_a_rounding_tie():
    """3 x, x + 1 and 0.1 x have the same bins and mathematically the same |corr| as x, so by
    "ties: earlier arrival first" each is redundant next to x and x stays. Regression: the
    sort once compared |corr| exactly, so whichever rounded one ulp higher won (seed 1,
    x + 1: 0.7120978376369209 vs 0.7120978376369207); |corr| within 1e-12 now tie."""
    failures = []
    for seed in range(10):
        X, y, _ = _x_and_copies(seed)
        x = X[:, 0]
        for label, copy in [("x_x3", 3 * x), ("x_plus_1", x + 1), ("x_div_10", 0.1 * x)]:
            events = run(CIEOSFS().start(y), np.column_stack([x, copy]), ["x", label], chunk=1)
            if (events[1].action, events[1].selected) != ("redundant", ("x",)):
                failures.append((seed, label, repr(events[0].score), repr(events[1].score)))
    assert failures == []


@pytest.mark.parametrize("seed", range(40))
def test_compiled_entropies_and_reducts_equal_the_numpy_definitions_bit_for_bit(seed):
    """The compiled refine, H(D | B) and greedy reduct (what CIEOSFS runs) against the numpy
    functions of this module and a plain loop over them: equal to the last bit."""
    from fsengine.methods.online._information import _cie_kernels
    from fsengine.methods.online._information.cieosfs import ENTROPY_TOLERANCE

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 300)), int(rng.integers(1, 9))
    y = (rng.random(n) < rng.uniform(0.05, 0.6)).astype(np.int64)
    codes = rng.integers(0, rng.integers(1, 7), (m, n)).astype(np.int64)
    codes[rng.random(m) < 0.3] *= 2  # gapped codes
    partition = np.zeros(n, dtype=np.int64)
    work, present = np.empty(n, np.int64), np.empty((n + 1) * 65, np.int64)
    counts, terms = np.empty(2 * n + 2, np.int64), np.empty(2 * n + 2)
    for row in codes:
        _cie_kernels.refine(partition, row, work, present)
        partition = refine(partition, row)
        assert np.array_equal(work, partition)
        assert _cie_kernels.conditional_entropy(partition, y, counts, terms) == conditional_entropy(
            partition, y
        )
    # The greedy reduct, by the definition: keep a member when it lowers H(D | RED).
    target = conditional_entropy(partition, y)
    red, current, expected = (
        np.zeros(n, dtype=np.int64),
        conditional_entropy(np.zeros(n, np.int64), y),
        [],
    )
    for row in codes:
        if current - target <= ENTROPY_TOLERANCE:
            break
        candidate = refine(red, row)
        entropy = conditional_entropy(candidate, y)
        expected.append(current - entropy > ENTROPY_TOLERANCE)
        if expected[-1]:
            red, current = candidate, entropy
    keep = np.zeros(m, dtype=bool)
    got = _cie_kernels.greedy_reduct(codes, y, ENTROPY_TOLERANCE, keep)
    assert keep.tolist() == expected + [False] * (m - len(expected)) and got == current


def test_compiled_pairwise_sum_is_numpys_sum():
    from fsengine.methods.online._information._cie_kernels import _pairwise_sum

    rng = np.random.default_rng(7)
    for n in [*range(1, 300), 511, 1000, 4097]:
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
        assert 0.0 + _pairwise_sum(a, 0, n) == a.sum()


@pytest.mark.parametrize("chunk", [1, 4, 256])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_selection_without_events_equals_the_traced_run(seed, chunk):
    """stream_selection (a block's relevant features through one compiled reduct call)
    ends with the traced run's SF, in the same order, and the same H(D | SF); on the
    oracle's data sets (copies, ties, old members removed) and the copy layouts."""
    from fsengine.methods.online import stream_selection

    cases = [random_data(seed)] + [(X, y, names) for X, y, names, _ in _copy_layouts(seed)]
    for X, y, names in cases:
        order = feature_order(X.shape[1], "random", seed)
        for bins in (2, 3):
            traced = CIEOSFS(bins=bins).start(y)
            events = run(traced, X, names, order, chunk=chunk)
            quiet = CIEOSFS(bins=bins).start(y)
            selection = stream_selection(quiet, X, names, order, chunk=chunk)
            assert selection == traced.finish()
            assert quiet.entropy == traced.entropy == events[-1].selected_score
            assert quiet.n_seen == traced.n_seen == X.shape[1]
