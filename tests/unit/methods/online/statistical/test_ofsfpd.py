"""OFS-FPD (Hashemi, Pajoohan, Dowlatshahi): capacity, fuzzy Pareto dominance and the
objectives checked against values worked out by hand, and the engine's events checked
against a slow, loop-based implementation of the algorithm written from its definition.

The paper's printed numbers are not used (NOTES.md: they do not follow its own formula);
every expected value below is derived from the formula
    degree(u dominates v) = prod_i min(u_i, v_i) / prod_i u_i  (minimisation),
computed factor by factor as min(1, v_i / u_i), factor 1 where u_i <= v_i.
"""

import functools
import math

import numpy as np
import pytest

from fsengine import FSEngineError
from fsengine.methods.online import OFSFPD, OFSFPDEvent, feature_order, stream_events
from fsengine.methods.online._statistical.ofsfpd import capacity, dominance_degree, dominance_scores

R3 = 1 / math.sqrt(3)  # 0.57735...
R2 = 1 / math.sqrt(2)  # 0.70710...


# --------------------------------------------------------------------------- capacity

# ceil(log2 t), raised to 1 at t = 1: 2^1 = 2, 2^2 = 4, 2^3 = 8, 2^4 = 16, 2^5 = 32.
CAPACITY_BY_HAND = {
    1: 1,
    2: 1,
    3: 2,
    4: 2,
    5: 3,
    6: 3,
    7: 3,
    8: 3,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    13: 4,
    14: 4,
    15: 4,
    16: 4,
    17: 5,
    18: 5,
    19: 5,
    20: 5,
    1000: 10,  # 2^9 = 512 < 1000 <= 1024 = 2^10
    1024: 10,  # exactly 2^10
    1025: 11,  # just above 2^10
    12533: 14,
}  # 2^13 = 8192 < 12533 <= 16384 = 2^14


@pytest.mark.parametrize("t, expected", sorted(CAPACITY_BY_HAND.items()))
def test_capacity_by_hand(t, expected):
    assert capacity(t) == expected


@pytest.mark.parametrize("t", [0, -3])
def test_capacity_needs_at_least_one_feature(t):
    with pytest.raises(FSEngineError):
        capacity(t)


def test_events_report_capacity_of_all_arrivals_not_only_relevant_ones():
    y = np.array([1, 1, 0, 0])
    selector = OFSFPD().start(y)
    # Alternate a relevant feature with an anti-correlated (irrelevant) one.
    relevant, irrelevant = [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]
    caps = [selector.step(relevant if t % 2 else irrelevant).capacity for t in range(1, 21)]
    assert caps == [CAPACITY_BY_HAND[t] for t in range(1, 21)]


# --------------------------------------------------------------- fuzzy Pareto dominance


@pytest.mark.parametrize(
    "u, v, expected",
    [
        # (0.1*0.2*0.3) / (0.1*0.8*0.3) = 0.006 / 0.024
        ((0.1, 0.8, 0.3), (0.7, 0.2, 0.3), 0.25),
        # (0.1*0.2*0.3) / (0.7*0.2*0.3) = 0.006 / 0.042 = 1/7
        ((0.7, 0.2, 0.3), (0.1, 0.8, 0.3), 1 / 7),
        # better in every objective: every factor is 1
        ((0.1, 0.2, 0.3), (0.4, 0.5, 0.6), 1.0),
        # worse in every objective: (0.1/0.4) * (0.2/0.5) * (0.3/0.6) = 0.25 * 0.4 * 0.5
        ((0.4, 0.5, 0.6), (0.1, 0.2, 0.3), 0.05),
        # identical vectors dominate each other fully
        ((0.3, 0.3, 0.3), (0.3, 0.3, 0.3), 1.0),
        # zeros: factor 1 where u_i = 0 <= v_i; 0.2/0.5 from the second objective
        ((0.0, 0.5, 0.5), (0.0, 0.2, 0.9), 0.4),
        # the other way: 0.5/0.9 from the third objective
        ((0.0, 0.2, 0.9), (0.0, 0.5, 0.5), 5 / 9),
        # a positive u_i against v_i = 0 gives factor 0
        ((0.1, 0.2, 0.3), (0.0, 0.9, 0.9), 0.0),
        # negatives are clipped to 0: same as the (0, 0.5, 0.5) / (0, 0.2, 0.9) case
        ((-0.1, 0.5, 0.5), (-0.3, 0.2, 0.9), 0.4),
    ],
)
def test_dominance_degree_by_hand(u, v, expected):
    got = dominance_degree(np.array(u), np.array(v))
    assert math.isfinite(got)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_paper_first_example_is_not_reproduced_with_its_printed_numbers():
    u, v = np.array([0.1, 0.8, 0.3]), np.array([0.7, 0.2, 0.3])
    assert dominance_degree(u, v) != pytest.approx(0.8333, abs=1e-3)
    assert dominance_degree(v, u) != pytest.approx(0.4761, abs=1e-3)


def test_better_everywhere_dominates_with_degree_exactly_one():
    assert dominance_degree(np.array([0.1, 0.1, 0.1]), np.array([0.2, 0.9, 0.1])) == 1.0


def test_paper_three_feature_example_scores_by_hand():
    F = np.array([[0.2, 0.4, 0.5], [0.8, 0.7, 0.1], [0.6, 0.6, 0.6]])
    # F1: by F2 (0.2*0.4*0.1)/(0.8*0.7*0.1) = 1/7; by F3 (0.2*0.4*0.5)/0.216 = 0.185185...
    # F2: by F1 (0.2*0.4*0.1)/(0.2*0.4*0.5) = 0.2; by F3 (0.6*0.6*0.1)/0.216 = 1/6
    # F3: by F1 every factor is 1 -> 1.0; by F2 (0.6*0.6*0.1)/0.056 = 0.643
    expected = [0.04 / 0.216, 0.2, 1.0]
    assert dominance_scores(F) == pytest.approx(expected, rel=1e-12)
    assert int(np.argmax(dominance_scores(F))) == 2  # feature 3 is removed


def test_dominance_scores_of_a_single_row_is_zero():
    assert dominance_scores(np.array([[0.3, 0.2, 0.1]])).tolist() == [0.0]


# ------------------------------------------------------------------ relevance rule

Y4 = np.array([1, 1, 0, 0])
F_CLASS = [1.0, 1.0, 0.0, 0.0]  # corr 1, cos 1
F_ANTI = [0.0, 0.0, 1.0, 1.0]  # corr -1, cos 0
F_ORTHO = [1.0, 0.0, 1.0, 0.0]  # corr exactly 0


@pytest.mark.parametrize("relevance", ["positive", "absolute"])
def test_zero_correlation_is_irrelevant(relevance):
    event = OFSFPD(relevance=relevance).start(Y4).step(F_ORTHO, "f")
    assert event.score == 0.0
    assert (event.entered, event.action, event.selected) == (False, "irrelevant", ())


def test_negative_correlation_irrelevant_when_positive_relevant_when_absolute():
    pos = OFSFPD(relevance="positive").start(Y4).step(F_ANTI, "f")
    ab = OFSFPD(relevance="absolute").start(Y4).step(F_ANTI, "f")
    assert pos.score == pytest.approx(-1.0) and ab.score == pytest.approx(-1.0)
    assert (pos.entered, pos.action, pos.selected) == (False, "irrelevant", ())
    assert (ab.entered, ab.action, ab.selected) == (True, "added", ("f",))
    assert ab.selected_score == pytest.approx(-1.0)  # mean of the signed correlations


@pytest.mark.parametrize("relevance", ["positive", "absolute"])
@pytest.mark.parametrize("value", [0.0, 1.0, 5.0, -2.0, 0.5])
def test_constant_feature_with_exact_mean_is_irrelevant(relevance, value):
    event = OFSFPD(relevance=relevance).start(np.array([1] * 7 + [0] * 13)).step(np.full(20, value))
    assert not event.entered and event.action == "irrelevant"


# Regression: a constant column whose value is not exactly representable (0.3, 0.001,
# 123.456, ...) has a mean that differs from its values by rounding; its correlation must
# still be undefined (it once came out as +-1e-16 and entered S).
@pytest.mark.parametrize("relevance", ["positive", "absolute"])
def test_constant_feature_is_never_relevant(relevance):
    admitted = []
    for n in (7, 10, 13, 20):
        y = np.array([1] * (n // 3) + [0] * (n - n // 3))
        for value in (0.1, 0.3, 0.7, 1.1, 3.3, 0.001, 123.456):
            event = OFSFPD(relevance=relevance).start(y).step(np.full(n, value))
            if event.entered or event.action != "irrelevant":
                admitted.append((n, value, event.score))
    assert admitted == []


# --------------------------------------------------------- a stream worked out by hand
#
# y = (1, 1, 0, 0); centred y / |.| = (.5, .5, -.5, -.5).
#   f1 = (1,1,0,0): corr 1,    cos 1
#   f2 = (1,0,0,0): corr 1/sqrt3 (centred (.75,-.25,-.25,-.25), norm sqrt(.75), dot .5), cos 1/sqrt2
#   f3 = (1,0,1,0): corr 0
#   f4 = (0,1,0,0): corr 1/sqrt3, cos 1/sqrt2
#   f5 = (0,0,1,1): corr -1,   cos 0
#   f6 = (1,1,0,1): corr 1/sqrt3 (centred (.25,.25,-.75,.25)), cos 2/sqrt6
# Between features: corr(f1,f2) = corr(f1,f4) = corr(f1,f6) = 1/sqrt3, corr(f1,f5) = -1,
# corr(f4,f5) = corr(f5,f6) = -1/sqrt3, corr(f4,f6) = (centred dot .25) / .75 = 1/3.

HAND = {
    "f1": [1, 1, 0, 0],
    "f2": [1, 0, 0, 0],
    "f3": [1, 0, 1, 0],
    "f4": [0, 1, 0, 0],
    "f5": [0, 0, 1, 1],
    "f6": [1, 1, 0, 1],
}


def _hand_stream(relevance, upto):
    selector = OFSFPD(relevance=relevance).start(Y4)
    events = [selector.step(np.array(HAND[n], float), n) for n in list(HAND)[:upto]]
    return selector, events


@pytest.mark.parametrize("relevance", ["positive", "absolute"])
def test_hand_stream_first_ranking_step(relevance):
    _, (e1, e2) = _hand_stream(relevance, 2)
    assert (e1.action, e1.selected, e1.capacity, e1.dominance) == ("added", ("f1",), 1, ())
    # t = 2, capacity 1, S = {f1, f2}. Objectives (E1, E2, E3):
    #   f1 = (1/sqrt3, 0, 0), f2 = (1/sqrt3, 1 - 1/sqrt3, 1 - 1/sqrt2).
    # f1 dominates f2 with degree 1; f2 dominates f1 with 0 (E2: 0 / (1 - 1/sqrt3)).
    assert e2.score == pytest.approx(R3)
    assert e2.entered and e2.action == "rejected"
    assert e2.dropped == ("f2",) and e2.selected == ("f1",) and e2.capacity == 1
    assert e2.dominance == pytest.approx((0.0,), abs=1e-12)
    assert e2.selected_score == pytest.approx(1.0)


@pytest.mark.parametrize("relevance", ["positive", "absolute"])
def test_hand_stream_irrelevant_then_added_without_ranking(relevance):
    _, events = _hand_stream(relevance, 4)
    e3, e4 = events[2], events[3]
    assert (e3.action, e3.entered, e3.dropped, e3.dominance) == ("irrelevant", False, (), ())
    assert e3.selected == ("f1",) and e3.capacity == 2
    assert (e4.action, e4.entered, e4.dropped, e4.dominance) == ("added", True, (), ())
    assert e4.selected == ("f1", "f4") and e4.capacity == 2
    assert e4.selected_score == pytest.approx((1 + R3) / 2)


def test_hand_stream_absolute_objectives_by_hand():
    selector, events = _hand_stream("absolute", 5)
    assert events[4].action == "added" and events[4].selected == ("f1", "f4", "f5")
    # E1 = min |corr| to the others; E2 = 1 - |corr|; E3 = 1 - |cos| (f5 is orthogonal to y).
    expected = [
        [R3, 0.0, 0.0],  # f1: |corr| 1/sqrt3 (f4) and 1 (f5)
        [R3, 1 - R3, 1 - R2],  # f4: 1/sqrt3 (f1) and 1/sqrt3 (f5)
        [R3, 0.0, 1.0],
    ]  # f5: 1 (f1) and 1/sqrt3 (f4)
    assert selector.objectives() == pytest.approx(np.array(expected), abs=1e-12)


def test_hand_stream_absolute_four_way_ranking_with_tie_broken_by_arrival():
    selector, events = _hand_stream("absolute", 6)
    e6 = events[5]
    # t = 6, capacity 3, S = {f1, f4, f5, f6}:
    #   f1 = (1/sqrt3, 0, 0)
    #   f4 = (1/3, 1 - 1/sqrt3, 1 - 1/sqrt2)
    #   f5 = (1/sqrt3, 0, 1)
    #   f6 = (1/3, 1 - 1/sqrt3, 1 - 2/sqrt6)
    # f1: every other has E2 > 0 or E3 > 0 where f1 has 0          -> score 0
    # f4: f6 is <= in every objective                              -> score 1
    # f5: f1 is <= in every objective                              -> score 1
    # f6: by f1 (1/3)/(1/sqrt3); by f4 (1 - 2/sqrt6)/(1 - 1/sqrt2) = 0.6265 (largest);
    #     by f5 (1/3)/(1/sqrt3) * (1 - 2/sqrt6)/1 = 0.106
    # f4 and f5 tie at 1: f4 arrived first and is kept.
    f6_score = (1 - 2 / math.sqrt(6)) / (1 - R2)
    assert f6_score > 1 / 3 / R3
    assert e6.capacity == 3 and e6.entered and e6.action == "added"
    assert e6.selected == ("f1", "f6", "f4")
    assert e6.dropped == ("f5",)
    assert e6.dominance == pytest.approx((0.0, f6_score, 1.0), abs=1e-12)
    assert e6.selected_score == pytest.approx((1 + R3 + R3) / 3)
    # finish re-ranks S without f5: f1 (1/sqrt3,0,0) 0; f6 0.6265 (by f4); f4 1 (by f6)
    final = selector.finish()
    assert final.features == ("f1", "f6", "f4")
    assert final.scores == pytest.approx((1.0, R3, R3))
    assert final.columns == (0, 5, 3)  # default column = arrival position


@pytest.mark.parametrize("names", [("a", "b"), ("z", "a")])
def test_identical_features_tie_goes_to_the_first_arrival(names):
    # Identical columns have identical objectives: each dominates the other with degree 1.
    selector = OFSFPD().start(Y4)
    f = np.array([3.0, 2.0, 1.0, 0.5])
    selector.step(f, names[0])
    event = selector.step(f.copy(), names[1])
    assert event.dominance == (1.0,)
    assert event.selected == (names[0],) and event.dropped == (names[1],)
    assert event.action == "rejected"


def test_tie_breaking_by_arrival_among_three_identical():
    selector = OFSFPD().start(Y4)
    f = [2.0, 3.0, 1.0, 0.0]
    events = [selector.step(f, n) for n in ("c", "b", "a")]
    # t = 2: cap 1 -> keep c, drop b; t = 3: cap 2 -> S = {c, a}, no ranking.
    assert events[1].selected == ("c",) and events[1].dropped == ("b",)
    assert events[2].selected == ("c", "a") and events[2].dominance == ()
    assert selector.finish().features == ("c", "a")


Y8 = np.array([1, 1, 1, 0, 0, 0, 0, 0])
A8 = np.array([1.8, 2.3, 1.8, -1.3, 0.9, 0.4, -0.5, 0.6])
X8 = np.array([0.9, 0.8, 0.5, 0.5, -0.7, -0.2, -0.5, 0.6])


# Regression: a tie at degree 1 must be decided by arrival, not by rounding.
# B = 2A + 1 has exactly A's correlations (with y and with X), so in exact arithmetic
# E1(X) = E1(A) = E1(B) = |corr(A, X)| and E2(A) = E2(B) < E2(X); B's cosine is the
# best of the three, so B is <= A and <= X in every objective: A and X are both dominated
# with degree exactly 1 and the tie must go to X (arrived first), dropping A. Without a
# tolerance E2(B) came out one ulp above E2(A), A scored 0.9999999999999993 and X was
# dropped instead.
def test_exact_tie_from_an_affine_duplicate_goes_to_the_first_arrival():
    B8 = 2 * A8 + 1
    yl = [float(v) for v in Y8]
    # The hand argument's premises, checked from the definitions:
    assert _pearson(list(A8), yl) > _pearson(list(X8), yl) > 0
    assert _cosine(list(B8), yl) > max(_cosine(list(A8), yl), _cosine(list(X8), yl))
    selector = OFSFPD().start(Y8)
    selector.step(-Y8.astype(float), "Z")  # t = 1: irrelevant (corr -1)
    selector.step(X8, "X")  # t = 2: cap 1, S = {X}
    selector.step(A8, "A")  # t = 3: cap 2, S = {X, A}
    event = selector.step(B8, "B")  # t = 4: cap 2, S = {X, A, B} -> rank
    assert event.dropped == ("A",)
    assert set(event.selected) == {"B", "X"}
    assert event.dominance[1] == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------------------ finish()


def test_finish_on_empty_and_single_member_sets():
    selector = OFSFPD().start(Y4)
    assert selector.finish().features == ()
    selector.step(F_ORTHO, "zero")
    assert selector.finish().features == ()
    selector.step(F_CLASS, "one")
    final = selector.finish()
    assert (final.features, final.columns, final.method) == (("one",), (1,), "ofs-fpd")
    assert final.scores == pytest.approx((1.0,))


# ------------------------------------- slow, definition-level OFS-FPD written with loops


def _pearson(a, b):
    """Pearson correlation from the definition; NaN when either column is constant."""
    n = len(a)
    if len(set(a)) == 1 or len(set(b)) == 1:
        return math.nan
    ma, mb = sum(a) / n, sum(b) / n
    sab = sum((a[i] - ma) * (b[i] - mb) for i in range(n))
    saa = sum((a[i] - ma) ** 2 for i in range(n))
    sbb = sum((b[i] - mb) ** 2 for i in range(n))
    return sab / math.sqrt(saa * sbb)


def _cosine(a, b):
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.0
    return sum(a[i] * b[i] for i in range(len(a))) / (na * nb)


TOL = 1e-12  # objectives / scores this close are equal in exact arithmetic


def _degree(u, v):
    """Degree to which u dominates v: prod min(u_i, v_i) / prod u_i, factor by factor.

    Objectives equal up to rounding (e.g. E1 of a perfectly correlated pair) count as
    equal, so the factor is 1 as it is in exact arithmetic.
    """
    d = 1.0
    for ui, vi in zip(u, v):
        ui, vi = max(ui, 0.0), max(vi, 0.0)
        if ui > vi + TOL:
            d *= vi / ui
    return d


def _rank(scores, arrivals):
    """Indices by score ascending; scores equal up to rounding tie, earlier arrival first."""

    def cmp(i, j):
        if abs(scores[i] - scores[j]) > 1e3 * TOL:
            return -1 if scores[i] < scores[j] else 1
        return arrivals[i] - arrivals[j]

    return sorted(range(len(scores)), key=functools.cmp_to_key(cmp))


def _slow_capacity(t):
    k = 0
    while 2**k < t:
        k += 1
    return max(1, k)


def slow_ofsfpd(X, y, names, order, relevance):
    """One dict per arrival: entered, dropped, selected, dominance, capacity."""
    y = [float(v) for v in y]
    members = []  # dicts: name, arrival, corr, x
    out = []
    for t, col in enumerate(order, start=1):
        x = [float(v) for v in X[:, col]]
        cap = _slow_capacity(t)
        r = _pearson(x, y)
        entered = (r > 0) if relevance == "positive" else (abs(r) > 0)
        if entered:
            members.append({"name": names[col], "arrival": t, "corr": r, "x": x})
        dropped, dominance = (), ()
        if len(members) > cap:
            objectives = []
            for f in members:
                e1 = min(abs(_pearson(f["x"], g["x"])) for g in members if g is not f)
                rel, cos = f["corr"], _cosine(f["x"], y)
                if relevance == "absolute":
                    rel, cos = abs(rel), abs(cos)
                objectives.append((e1, 1 - rel, 1 - cos))
            scores = [
                max(_degree(objectives[i], objectives[j]) for i in range(len(members)) if i != j)
                for j in range(len(members))
            ]
            ranked = _rank(scores, [m["arrival"] for m in members])
            dropped = tuple(members[j]["name"] for j in ranked[cap:])
            dominance = tuple(scores[j] for j in ranked[:cap])
            members = [members[j] for j in ranked[:cap]]
        out.append(
            {
                "entered": entered,
                "dropped": dropped,
                "dominance": dominance,
                "selected": tuple(m["name"] for m in members),
                "capacity": cap,
                "score": r,
            }
        )
    return out


def _dataset(seed, n=20, d=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + rng.normal(size=(1, d))  # non-zero column means
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, size=n // 3, replace=False)] = 1  # 1 = minority
    X[:, ::4] += 0.8 * y[:, None]  # a few truly relevant columns
    return X, y, [f"g{i}" for i in range(d)]


CASES = [
    (seed, order, relevance)
    for seed in (0, 1, 2, 3)
    for order in ("natural", "random")
    for relevance in ("positive", "absolute")
]


@pytest.mark.parametrize("seed, order_kind, relevance", CASES)
def test_engine_matches_slow_definition(seed, order_kind, relevance):
    X, y, names = _dataset(seed)
    order = feature_order(X.shape[1], order_kind, seed=seed)
    expected = slow_ofsfpd(X, y, names, order, relevance)
    selector = OFSFPD(relevance=relevance).start(y)
    got = [selector.step(X[:, c], names[c], int(c)) for c in order]
    n_rankings = 0
    for t, (e, want) in enumerate(zip(got, expected), start=1):
        assert isinstance(e, OFSFPDEvent)
        assert (e.step, e.feature, e.column) == (t - 1, names[order[t - 1]], order[t - 1])
        assert e.entered == want["entered"], t
        assert e.dropped == want["dropped"], t
        assert e.selected == want["selected"], t
        assert e.capacity == want["capacity"], t
        assert e.score == pytest.approx(want["score"], abs=1e-12)
        assert e.dominance == pytest.approx(want["dominance"], abs=1e-9)
        assert e.selected_columns == tuple(names.index(s) for s in e.selected)
        n_rankings += bool(e.dominance)
    assert n_rankings > 5  # the comparison exercised the ranking


@pytest.mark.parametrize("seed, order_kind, relevance", CASES[:4])
def test_action_is_consistent_with_entered_and_dropped(seed, order_kind, relevance):
    X, y, names = _dataset(seed)
    order = feature_order(X.shape[1], order_kind, seed=seed)
    selector = OFSFPD(relevance=relevance).start(y)
    for c in order:
        e = selector.step(X[:, c], names[c], int(c))
        expected = (
            "irrelevant" if not e.entered else "rejected" if names[c] in e.dropped else "added"
        )
        assert e.action == expected
        assert len(e.selected) <= e.capacity
        if e.dominance:
            assert len(e.dominance) == len(e.selected)
            assert list(e.dominance) == sorted(e.dominance)
        corrs = [_pearson(list(X[:, names.index(s)]), list(map(float, y))) for s in e.selected]
        assert e.selected_score == pytest.approx(sum(corrs) / len(corrs) if corrs else 0.0)


@pytest.mark.parametrize("relevance", ["positive", "absolute"])
def test_finish_ranks_by_dominance_with_correlation_scores(relevance):
    X, y, names = _dataset(5)
    selector = OFSFPD(relevance=relevance).start(y)
    for c in range(X.shape[1]):
        selector.step(X[:, c], names[c], c)
    final = selector.finish()
    assert set(final.features) == set(selector.selected)
    yl = list(map(float, y))
    cols = [list(X[:, names.index(f)]) for f in final.features]
    assert final.scores == pytest.approx([_pearson(c, yl) for c in cols], abs=1e-12)
    # Scores of the final set by the definition, ascending (ties by arrival = column here).
    objectives = []
    for i, c in enumerate(cols):
        e1 = min(abs(_pearson(c, g)) for j, g in enumerate(cols) if j != i)
        rel, cos = _pearson(c, yl), _cosine(c, yl)
        if relevance == "absolute":
            rel, cos = abs(rel), abs(cos)
        objectives.append((e1, 1 - rel, 1 - cos))
    scores = [
        max(_degree(objectives[i], objectives[j]) for i in range(len(cols)) if i != j)
        for j in range(len(cols))
    ]
    assert scores == sorted(scores)
    assert final.columns == tuple(names.index(f) for f in final.features)


# --------------------------------------------------------- step vs chunked streaming


def _run_step(X, y, names, order, relevance):
    selector = OFSFPD(relevance=relevance).start(y)
    return [selector.step(X[:, c], names[c], int(c)) for c in order]


def _run_stream(X, y, names, order, relevance):
    return list(stream_events(OFSFPD(relevance=relevance).start(y), X, names, order, chunk=7))


DECISION_FIELDS = (
    "step",
    "feature",
    "column",
    "action",
    "selected",
    "selected_columns",
    "entered",
    "dropped",
    "capacity",
)


@pytest.mark.parametrize("seed, order_kind, relevance", CASES)
def test_step_and_stream_events_make_the_same_decisions(seed, order_kind, relevance):
    X, y, names = _dataset(seed)
    order = feature_order(X.shape[1], order_kind, seed=seed)
    a, b = _run_step(X, y, names, order, relevance), _run_stream(X, y, names, order, relevance)
    assert len(a) == len(b) == X.shape[1]
    for p, q in zip(a, b):
        assert [getattr(p, f) for f in DECISION_FIELDS] == [getattr(q, f) for f in DECISION_FIELDS]
        assert p.score == pytest.approx(q.score, abs=1e-12)
        assert p.selected_score == pytest.approx(q.selected_score, abs=1e-12)
        assert p.dominance == pytest.approx(q.dominance, abs=1e-12)


# Regression: stream_events documents "events are identical to calling step once per
# feature"; column statistics once depended on the block's width in the last bits.
@pytest.mark.parametrize("relevance", ["positive", "absolute"])
def test_step_and_stream_events_give_identical_events(relevance):
    X, y, names = _dataset(0)
    order = feature_order(X.shape[1], "random", seed=0)
    assert _run_step(X, y, names, order, relevance) == _run_stream(X, y, names, order, relevance)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_dominance_scores_equal_the_numpy_definition_bit_for_bit(seed):
    """The ranking step's kernel against dominance_scores, with ties, zeros and negatives."""
    from fsengine.methods.online._columns import TIE_TOLERANCE
    from fsengine.methods.online._statistical import _fpd_kernels

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 18))
    objectives = np.round(rng.uniform(-0.05, 1.0, (m, 3)), int(rng.integers(1, 4)))
    if m > 2:
        objectives[1] = objectives[0]  # an exact tie
        objectives[2, 0] = objectives[0, 0] + 1e-13  # equal within the tolerance
    got = _fpd_kernels.dominance_scores(objectives, TIE_TOLERANCE)
    assert got.tolist() == dominance_scores(objectives).tolist()
