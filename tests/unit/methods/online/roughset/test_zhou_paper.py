"""OFS-A3M and OFS-Density, ``variant="paper"``: the printed algorithms.

Against the papers' worked examples (Zhou, Hu, Li, Wu, Information Sciences 481 (2019),
Table 1 and section 4.2-4.4; Pattern Recognition 86 (2019), Table 1 and section 4.2), values
worked out by hand, and whole streams against a slow definition-level implementation written
here from the printed Definitions and Algorithms (full distance matrix, Python's sort of each
sample's distances, plain loops), with hypothesis on degenerate data.
"""

import csv
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE
from fsengine import load_dataset, run_selection
from fsengine.cli import main
from fsengine.errors import FSEngineError
from fsengine.export.writers import select_arguments
from fsengine.methods.online import OFSA3M, OFSDensity, stream_events, stream_selection
from fsengine.methods.online._roughset.a3m_density import _Member, printed_neighbourhood
from fsengine.methods.online._roughset.octave_rng import OctaveRandom

METHODS = {"ofs_a3m": OFSA3M, "ofs_density": OFSDensity}

# A3M paper, Table 1 (f1..f4, d); the labels as 1 = class 1, 0 = class -1.
A3M_TABLE = np.array(
    [
        [3, 5.6, -66, 3.05],
        [5, 6.9, 95, 4.84],
        [8, 5.3, -28, 5.89],
        [13, 12.3, -35, 6.14],
        [6, 15.2, 72, 6.55],
        [5, 2.6, 42, 10.94],
        [9, 6.8, -33, 23.85],
        [15, 8.4, 15, 23.85],
    ]
)
A3M_Y = np.array([0, 1, 1, 1, 0, 1, 0, 0])
# Density paper, Table 1: f1, f2 as A3M's; f3, f4 small integers; the same labels.
DENSITY_TABLE = np.array(
    [
        [3, 5.6, 1, 1],
        [5, 6.9, 1, 2],
        [8, 5.3, 1, 1],
        [13, 12.3, 0, 1],
        [6, 15.2, 0, 3],
        [5, 2.6, 0, 2],
        [9, 6.8, 1, 2],
        [15, 8.4, 0, 2],
    ]
)
DENSITY_Y = np.array([0, 1, 1, 1, 0, 1, 0, 0])
NAMES = ["f1", "f2", "f3", "f4"]


def events_of(cls, X, y, **params):
    selector = cls(**params).start(y)
    events = list(stream_events(selector, X, [f"f{j + 1}" for j in range(X.shape[1])]))
    return selector.finish(), events


# ------------------------------------------------------------------ worked examples


def test_a3m_gap_neighbourhood_of_x3_as_printed():
    """Section 4.2: B = {f1, f2}, standardised Euclidean (standard deviations 4.1748 and
    4.0576), distances from x3 1.2, 0.8197, 2.1, 2.4865, 0.9794, 0.4405, 1.8426;
    D_max = 2.4865, D_min = 0.4405, G_mean = (2.4865 - 0.4405) / 7 = 0.2923, W_gap = 0.4385;
    steps 0.3792, 0.1597, 0.2206, then 0.6426 >= W_gap: GAP_B(x3) = {x7, x2, x6, x1}."""
    B = A3M_TABLE[:, :2]
    std = B.std(axis=0, ddof=1)
    np.testing.assert_allclose(std, [4.1748, 4.0576], atol=5e-5)
    dist = np.sqrt((((B[2] - B) / std) ** 2).sum(axis=1))
    printed = [1.2, 0.8197, 0, 2.1, 2.4865, 0.9794, 0.4405, 1.8426]
    np.testing.assert_allclose(dist, printed, atol=5e-4)
    g_mean = (2.4865 - 0.4405) / 7  # n - 1 = 7 with n = 8 samples
    assert round(g_mean, 4) == 0.2923 and round(1.5 * round(g_mean, 4), 5) == 0.43845
    assert list(printed_neighbourhood(dist, 2, "gap") + 1) == [7, 2, 6, 1]


def test_a3m_gap_divisor_is_n_minus_1():
    """The printed G_mean divides by n - 1 (the code by n - 2). One sample and four
    others at distances 1, 2, 3.9, 5: n - 1 = 4 gives W = 1.5 * 4 / 4 = 1.5, and the step
    1.9 is the first gap: {1, 2}; n - 2 = 3 would give W = 2 and no gap (all four)."""
    dist = np.array([0.0, 1.0, 2.0, 3.9, 5.0])
    assert list(printed_neighbourhood(dist, 0, "gap")) == [1, 2]


@pytest.mark.parametrize(
    "dist,expected",
    [
        ([0.0, 2.0, 2.0, 2.0, 2.0], [1, 2, 3, 4]),  # W = 0, but a step of 0 is no gap
        ([0.0, 1.0, 1.0, 1.0, 5.0], [1, 2, 3]),  # W = 1.5: the equal ones together
        ([0.0, 0.0, 0.0, 3.0, 3.0], [1, 2]),  # duplicates of x_0 are its neighbours
        ([7.0, 0.0, 0.0, 3.0, 3.0], [1, 2]),  # x_0's own entry is ignored
        ([0.0, 3.0, 1.0, 1.0, 9.0], [2, 3, 1]),  # W = 3: step 2 no gap, step 6 is
    ],
)
def test_gap_neighbourhood_by_hand(dist, expected):
    assert list(printed_neighbourhood(np.array(dist), 0, "gap")) == expected


def test_density_neighbourhood_of_x3_as_printed_and_as_the_code_has_it():
    """Density paper, section 4.2: B = {f1, f2}, Euclidean distances from x3 5.009, 3.4,
    8.602, 10.1, 4.036, 1.803, 7.655; Density(x3, x7) = 1.803 / 1, Density(x3, x2) = 3.4 / 2
    = 1.7 < 1.803: x2 is the first inflection point and IP_B(x3) = {x7}. The code's rule
    (keep while the density does not increase) gives {x7, x2, x6, x1}: 1.803, 1.7, 1.345,
    1.252, then 7.655 / 5 = 1.531 rises."""
    B = DENSITY_TABLE[:, :2]
    dist = np.sqrt(((B[2] - B) ** 2).sum(axis=1))
    printed = [5.009, 3.4, 0, 8.602, 10.1, 4.036, 1.803, 7.655]  # 7.6557 printed as 7.655
    np.testing.assert_allclose(dist, printed, atol=1e-3)
    order = [6, 1, 5, 0, 7, 3, 4]  # x7, x2, x6, x1, x8, x4, x5
    densities = [dist[t] / k for k, t in enumerate(order, start=1)]
    np.testing.assert_allclose(densities[:5], [1.803, 1.7, 1.345, 1.252, 1.531], atol=5e-4)
    assert list(printed_neighbourhood(dist, 2, "density") + 1) == [7]
    # the code's rule, from tests/reference/zhou_octave/README.md
    code, last = [], densities[0]
    for k, t in enumerate(order):
        if not (densities[k] == 0 or densities[k] <= last):
            break
        code.append(t + 1)
        last = densities[k]
    assert code == [7, 2, 6, 1]


def test_density_cards_of_x3_paper_and_reference():
    """x3 (class 1) on {f1, f2}: the paper variant's neighbourhood {x7} (class -1) gives
    card 0; the reference variant (the code, standardised Euclidean: the same order here)
    {x7, x2, x6, x1} gives 2 / 4."""
    for variant, card in (("paper", 0.0), ("reference", 0.5)):
        selector = OFSDensity(variant=variant).start(DENSITY_Y)
        _, weights = selector._singles(DENSITY_TABLE[:, :2])
        members = [
            _Member(n, j, j, np.ascontiguousarray(DENSITY_TABLE[:, j]), float(weights[j]), 0.0)
            for j, n in enumerate(NAMES[:2])
        ]
        selector._dependency(members)
        assert selector._cards[2] == card


@pytest.mark.parametrize(
    "dist,expected",
    [
        ([0.0, 1.0, 3.0, 9.0], [1, 2, 3]),  # densities 1, 1.5, 3: no inflection point
        ([0.0, 1.0, 1.0, 5.0], [1, 2]),  # 1, 0.5 (< 1): {x_1}, with x_2 at the same distance
        ([0.0, 0.0, 0.0, 2.0, 2.5], [1, 2, 3]),  # 0, 0, 0.667, then 0.625 < 0.667
        ([0.0, 2.0, 3.0, 3.0, 3.0, 20.0], [1]),  # 2, 1.5 < 2: {x_1}
        ([0.0, 2.0, 5.0, 5.0, 5.0, 20.0], [1, 2, 3, 4]),  # 2, 2.5, 1.67: x_2..x_4 at 5
    ],
)
def test_density_neighbourhood_by_hand(dist, expected):
    assert list(printed_neighbourhood(np.array(dist), 0, "density")) == expected


def test_printed_neighbourhood_rejects_bad_input():
    with pytest.raises(FSEngineError, match="rule must be"):
        printed_neighbourhood(np.ones(4), 0, "knn")
    with pytest.raises(FSEngineError, match="one row"):
        printed_neighbourhood(np.ones(4), 4, "gap")


# Hand-derived gap neighbourhoods on A3M's Table 1 (1-based): f1 (std 4.1748) and f2 (std
# 4.0576), W_gap = 1.5 * (D_max - D_min) / 7 per sample. E.g. f1, x4 = 13: distances
# 0.479 (x8), 0.958, 1.198, 1.677, 1.916, 1.916, 2.395; W = 1.5 * 1.916 / 7 = 0.4106; the
# first step 0.479 is a gap: {x8}. x2 = x6 = 5 on f1: each is the other's neighbour at
# distance 0, and neither its own.
A3M_F1_NEIGHBOURS = [
    [2, 6, 5, 3, 7],
    [6, 5, 1, 3, 7],
    [7, 5, 2, 6],
    [8],
    [2, 6, 3, 1, 7],
    [2, 5, 1, 3, 7],
    [3],
    [4],
]
A3M_F2_NEIGHBOURS = [
    [3, 7, 2, 8, 6],
    [7, 1, 8, 3],
    [1, 7, 2, 6, 8],
    [5, 8],
    [4],
    [3, 1, 7, 2, 8],
    [2, 1, 3, 8],
    [2, 7],
]


def _hand_dependency(neighbours, y):
    total = 0.0
    for i, nb in enumerate(neighbours):
        total += sum(y[j - 1] == y[i] for j in nb) / len(nb)
    return total / len(y)


def test_a3m_single_dependencies_by_hand():
    """f1: cards 2/5, 2/5, 2/4, 0, 2/5, 2/5, 0, 0: 2.1 / 8 = 0.2625 (as printed in section
    4.4). f2: 2/5, 1/4, 2/5, 0, 0, 2/5, 2/4, 1/2: 2.45 / 8 = 0.30625; the printed example's
    0.33542 is the code's (gap divisor n - 2), reproduced by the reference variant."""
    paper = OFSA3M(variant="paper").start(A3M_Y).single_dependencies(A3M_TABLE[:, :2])
    assert paper[0] == _hand_dependency(A3M_F1_NEIGHBOURS, A3M_Y)
    assert paper[1] == _hand_dependency(A3M_F2_NEIGHBOURS, A3M_Y)
    assert paper[0] == pytest.approx(0.2625, abs=1e-12)
    assert paper[1] == pytest.approx(0.30625, abs=1e-12)
    reference = OFSA3M().start(A3M_Y).single_dependencies(A3M_TABLE[:, :2])
    assert round(reference[1], 5) == 0.33542


def test_a3m_printed_stream_example_is_the_codes_dependency():
    """Section 4.4 prints gamma(f1) = 0.2625, gamma(f2) = 0.33542, gamma(f1, f2) = 0.32292,
    gamma(f3) = 0.29464, gamma(f4) = 0.6, gamma(f1, f2, f4) = 0.55357 and selects
    {f1, f2, f4}: the dependencies are the code's (the reference variant has every one to
    the printed digits), the steps the printed algorithm's (Mean D_S = 0.29896, the mean of
    the single dependencies, discards f3; the code's threshold D_S / |S| = 0.16146 does
    not)."""
    selection, events = events_of(OFSA3M, A3M_TABLE, A3M_Y)
    assert [round(e.score, 5) for e in events] == [0.2625, 0.33542, 0.29464, 0.6]
    assert round(events[1].set_score_with_feature, 5) == 0.32292
    assert round(events[3].set_score_with_feature, 5) == 0.55357
    assert round((events[0].score + events[1].score) / 2, 5) == 0.29896
    assert round(events[1].next_threshold, 5) == 0.16146 and events[2].action == "rejected"
    assert selection.features == ("f1", "f2", "f4")


def test_a3m_paper_variant_on_the_printed_example():
    """With the printed divisor n - 1: f1 joins (0.2625); f2 (0.30625 >= 0.2625) does not
    raise the set's dependency (gamma(f1, f2) = 0.26042 < 0.2625): rejected; f3 (0.15417)
    is below Mean D_S = 0.2625; f4 (0.59375) raises it to 0.6375: {f1, f4}, Mean D_S =
    (0.2625 + 0.59375) / 2."""
    selection, events = events_of(OFSA3M, A3M_TABLE, A3M_Y, variant="paper")
    assert [e.action for e in events] == ["added", "rejected", "irrelevant", "added"]
    assert [round(e.score, 5) for e in events] == [0.2625, 0.30625, 0.15417, 0.59375]
    assert round(events[1].set_score_with_feature, 5) == 0.26042
    assert events[2].threshold == events[0].score
    assert round(events[3].selected_score, 5) == 0.6375
    assert events[3].next_threshold == (events[0].score + events[3].score) / 2
    assert selection.features == ("f1", "f4")
    expected, _ = definition_run(A3M_TABLE, A3M_Y, "ofs_a3m")
    assert expected == [0, 3]


# ------------------------------------------------------------------ decisions of the print


def test_a3m_zero_dependency_feature_is_tied_and_removes_itself():
    """x = 9, 0, 7, 2 (classes 1, 0, 0, 1): each sample's gap neighbourhood is its nearest
    sample, of the other class (e.g. x = 9: distances 2, 7, 9, W = 1.5 * 7 / 3 = 3.5, the
    step 5 is a gap), so gamma = 0. With S = {} (D_S = 0, Mean D_S = 0) it passes
    (0 < 0 is false), gamma(S + f) = 0 == D_S: it joins and, visited itself, has
    significance gamma({f}) - gamma({}) = 0 - 0: removed."""
    X, y = np.array([[9.0], [0.0], [7.0], [2.0]]), np.array([1, 0, 0, 1])
    selection, (event,) = events_of(OFSA3M, X, y, variant="paper")
    assert event.score == 0.0 and event.action == "tied"
    assert event.visited == ("f1",) and event.removed == ("f1",) and not selection.features
    assert event.selected_score == 0.0 and event.next_threshold == 0.0


def test_density_zero_dependency_first_feature_is_rejected():
    """x = 0, 4, 9, 5 (classes 1, 0, 0, 1): every density neighbourhood is of the other class
    (x = 0: densities 4, 5/2 = 2.5 < 4: {4}; x = 4: 1, 4/2 = 2, 5/3 = 1.67 < 2: {5, 0}), so
    gamma = 0. With Dep_S = 0 the ratio of eq. 15 is 0/0: rejected (the other reading, add
    and prune, would remove it again: the same S)."""
    X, y = np.array([[0.0], [4.0], [9.0], [5.0]]), np.array([1, 0, 0, 1])
    selection, (event,) = events_of(OFSDensity, X, y, variant="paper")
    assert event.score == 0.0 and event.action == "rejected" and not selection.features


@pytest.mark.parametrize("method", list(METHODS))
def test_exact_copy_passes_the_relevance_test_and_one_of_the_two_goes(method):
    """The copy's dependency alone equals Mean D_S (S = {f}): the reference variant of A3M
    discards it (strict test), the printed test (discard if below) lets it through; S's
    dependency is unchanged, so the redundancy loop runs over both (the new feature
    included) and the first one visited goes."""
    rng = np.random.default_rng(3)
    y = np.array([1] * 8 + [0] * 22)
    x = rng.standard_normal(30) + y
    X = np.column_stack([x, x])
    seen = set()
    for seed in range(8):
        selection, events = events_of(METHODS[method], X, y, variant="paper", rand_state=seed)
        assert events[1].action == ("tied" if method == "ofs_a3m" else "tolerated")
        assert set(events[1].visited) == {"f1", "f2"} and len(selection.features) == 1
        assert events[1].removed == (events[1].visited[0],)
        seen.add(selection.features)
    assert seen == {("f1",), ("f2",)}
    if method == "ofs_a3m":
        _, events = events_of(OFSA3M, X, y)
        assert events[1].action == "irrelevant"


def test_density_tolerated_step_adopts_the_lower_dependency():
    """Decision: after the fuzzy-equal branch Dep_S is the new S's dependency (it may be up
    to lambda below the old) and Mean Dep_S its mean single dependency; no restore step."""
    X, y = _noise(60, 400, seed=2)
    _, events = events_of(OFSDensity, X, y, variant="paper")
    tolerated = [e for e in events if e.action == "tolerated"]
    lower = [e for e in tolerated if e.set_score_with_feature < e_before(events, e)]
    assert lower, "the data must exercise a tolerated step that lowers the dependency"
    singles = {e.feature: e.score for e in events}
    for e in tolerated:
        assert e.selected_score == e.set_score_with_feature == e.set_score_after_removal
        mean = 0.0
        for name in e.selected:
            mean += singles[name]
        assert e.next_threshold == mean / len(e.selected)
        assert not e.restored
    assert "restored" not in {e.action for e in events}


def e_before(events, event):
    """S's dependency before ``event``'s step."""
    return events[event.step - 1].selected_score if event.step else 0.0


@pytest.mark.parametrize("tolerance", [0.0, 0.02, 0.2])
def test_density_tolerance_is_the_printed_lambda(tolerance):
    X, y = _noise(40, 150, seed=5)
    selection, events = events_of(OFSDensity, X, y, variant="paper", tolerance=tolerance)
    for e in events:
        if e.action in ("tolerated", "rejected"):
            old = e_before(events, e)
            near = old != 0 and abs((old - e.set_score_with_feature) / old) <= tolerance
            assert near == (e.action == "tolerated")
    expected, _ = definition_run(X, y, "ofs_density", tolerance=tolerance)
    assert list(selection.columns) == expected


def test_paper_variant_constant_feature_adds_nothing_to_a_distance():
    """A3M's standardised distance divides by a standard deviation of 0 for a constant
    feature; the paper variant takes its differences (all 0) as adding nothing: a constant
    feature's own dependency is then that of 'every other sample is a neighbour', and a set
    with it has the dependency of the set without it."""
    y = np.array([1, 1, 1, 0, 0, 0, 0])
    X = np.column_stack([np.full(7, 2.0), np.arange(7.0) ** 1.5])
    for cls in (OFSA3M, OFSDensity):
        selector = cls(variant="paper").start(y)
        singles, weights = selector._singles(X)
        everyone = (3 * (2 / 6) + 4 * (3 / 6)) / 7
        assert singles[0] == pytest.approx(everyone, abs=1e-15)
        members = [
            _Member(str(j), j, j, np.ascontiguousarray(X[:, j]), float(weights[j]), singles[j])
            for j in range(2)
        ]
        assert selector._dependency(members) == singles[1]


def test_reference_variant_is_the_default_and_tolerance_applies_to_the_paper_only():
    assert OFSDensity().params == {"rand_state": 0, "variant": "reference", "ties": "index"}
    assert OFSDensity(variant="paper").params == {
        "rand_state": 0,
        "variant": "paper",
        "tolerance": 0.05,
    }
    y = np.array([0, 1, 0, 1, 0, 0])
    with pytest.raises(FSEngineError, match="tolerance"):
        OFSDensity(variant="paper", tolerance=-0.1).start(y)
    with pytest.raises(FSEngineError, match="variant"):
        OFSA3M(variant="printed").start(y)


@pytest.mark.parametrize(
    "method,params,expected",
    [
        ("ofs-a3m", [], ["g0", "g122", "g845"]),
        ("ofs-density", [], ["g122", "g246"]),
        ("ofs-density", ["--tolerance", "0"], None),
    ],
)
def test_command_line_runs_the_paper_variant_on_srbct(method, params, expected, tmp_path):
    """``select --variant paper`` end to end on SRBCT (minority 2): the same selection as
    run_selection, a trace of the printed actions, and a run record that repeats it. The
    selections were checked against the definition-level run of this file (2,308 features,
    once: too slow for every run)."""
    out, trace = tmp_path / "s.csv", tmp_path / "t.csv"
    argv = ["select", str(SAMPLE), "--minority", "2", "--method", method, "--variant", "paper"]
    assert main([*argv, *params, "--out", str(out), "--trace", str(trace)]) == 0
    tolerance = {"tolerance": float(params[1])} if params else {}
    run = run_selection(load_dataset(SAMPLE), 2, method=method, variant="paper", **tolerance)
    lines = out.read_text().splitlines()[1:]
    assert [line.split(",")[1] for line in lines] == list(run.selection.features)
    if expected is not None:
        assert list(run.selection.features) == expected
    reference = run_selection(load_dataset(SAMPLE), 2, method=method)
    assert run.selection.features != reference.selection.features
    actions = {row["action"] for row in csv.DictReader(trace.open())}
    assert actions <= {"irrelevant", "added", "tied", "tolerated", "rejected"}
    assert run.params["variant"] == "paper"
    repeat = select_arguments(run.params)
    assert repeat[repeat.index("--variant") + 1] == "paper"
    assert ("--tolerance" in repeat) == (method == "ofs-density")


# ------------------------------------------------------------------ definition level


def _noise(n, p, seed):
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, n // 4, replace=False)] = 1
    return np.round(rng.standard_normal((n, p)), 1), y


def seq_sum(values):
    total = 0.0
    for v in values:
        total += v
    return total


def definition_weights(X, metric):
    """A3M: 1 / (sample variance), 0 for a constant column; Density: 1."""
    n, m = X.shape
    if metric == "euclidean":
        return [1.0] * m
    weights = []
    for k in range(m):
        mean = seq_sum(X[:, k]) / n
        var = seq_sum([(v - mean) ** 2 for v in X[:, k]]) / (n - 1)
        weights.append(1.0 / var if var != 0 else 0.0)
    return weights


def definition_cut(D, n, rule):
    """How many of the sorted distances D (the n - 1 others) are neighbours, by the print:
    A3M Definitions 8-9 (first step >= W_gap, not 0), Density Definition 7 (before the first
    k with D(k)/k < D(k-1)/(k-1)), equal distances together."""
    m = len(D)
    if rule == "gap":
        w_gap = 1.5 * ((D[-1] - D[0]) / (n - 1))
        for k in range(1, m):
            if D[k] - D[k - 1] > 0 and D[k] - D[k - 1] >= w_gap:
                return k
        return m
    count = m
    for k in range(2, m + 1):
        if D[k - 1] / k < D[k - 2] / (k - 1):
            count = k - 1
            break
    while count < m and D[count] == D[count - 1]:
        count += 1
    return count


def definition_dependency(X_S, y, rule, weights):
    """Algorithm 1 of either paper: the card of each sample (share of its printed
    neighbourhood with its class), added in sample order, over n; 0 for the empty set."""
    n, m = X_S.shape
    if m == 0:
        return 0.0
    total = 0.0
    for i in range(n):
        others = []
        for t in range(n):
            if t != i:
                s = 0.0
                for k in range(m):
                    g = X_S[i, k] - X_S[t, k]
                    s += (weights[k] * g) * g
                others.append((math.sqrt(s), t))
        others.sort()
        count = definition_cut([d for d, _ in others], n, rule)
        total += sum(y[t] == y[i] for _, t in others[:count]) / count
    return total / n


def definition_run(X, y, method, seed=0, tolerance=0.05):
    """Algorithm 2 of either paper with plain loops: (selected columns, actions)."""
    rule, metric = ("gap", "seuclidean") if method == "ofs_a3m" else ("density", "euclidean")
    weights = definition_weights(X, metric)
    rng = OctaveRandom(seed)

    def dep(cols):
        cols = sorted(cols)
        return definition_dependency(X[:, cols], y, rule, [weights[c] for c in cols])

    single = [dep([j]) for j in range(X.shape[1])]
    S, dep_S, mean, actions = [], 0.0, 0.0, []
    for i in range(X.shape[1]):
        if single[i] < mean:
            actions.append("irrelevant")
            continue
        dep_new = dep(S + [i])
        if method == "ofs_a3m":
            near = dep_new == dep_S
        else:
            near = dep_S != 0 and abs((dep_S - dep_new) / dep_S) <= tolerance
        if dep_new > dep_S:
            S = S + [i]
            actions.append("added")
        elif near:
            R = S + [i]
            for f in [R[k] for k in rng.randperm(len(R))]:
                rest = [c for c in R if c != f]
                if dep(R) - dep(rest) == 0:
                    R = rest
            S = R
            actions.append("tied" if method == "ofs_a3m" else "tolerated")
        else:
            actions.append("rejected")
            continue
        dep_S = dep(S)
        mean = seq_sum([single[c] for c in S]) / len(S) if S else 0.0
    return S, (single, actions)


@st.composite
def degenerate(draw):
    """Few samples, tied values, constant columns, copies, scaled copies, duplicate rows."""
    n = draw(st.integers(5, 13))
    p = draw(st.integers(1, 7))
    minority = draw(st.integers(2, n // 2))
    y = np.zeros(n, dtype=int)
    y[draw(st.permutations(range(n)))[:minority]] = 1
    levels = draw(st.sampled_from([2, 3, 5, 50]))
    X = np.array(
        draw(st.lists(st.integers(0, levels - 1), min_size=n * p, max_size=n * p)), float
    ).reshape(n, p)
    X = X * draw(st.sampled_from([1.0, 0.1, 0.37]))
    for j in range(p):
        kind = draw(st.sampled_from(["plain"] * 4 + ["constant", "copy", "scaled"]))
        if kind == "constant":
            X[:, j] = draw(st.sampled_from([0.0, 3.0, 0.1]))
        elif kind in ("copy", "scaled") and j > 0:
            X[:, j] = X[:, draw(st.integers(0, j - 1))] * (1.0 if kind == "copy" else -2.0)
    if draw(st.booleans()):  # duplicate samples
        X[1] = X[0]
    return X, y


@pytest.mark.parametrize("method", list(METHODS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=degenerate(),
    seed=st.integers(0, 5),
    tolerance=st.sampled_from([0.0, 0.05, 0.1, 0.5]),
)
def test_paper_variant_equals_the_definition(method, data, seed, tolerance):
    X, y = data
    params = {"variant": "paper", "rand_state": seed}
    if method == "ofs_density":
        params["tolerance"] = tolerance
    expected, (single, actions) = definition_run(X, y, method, seed, tolerance)
    selection, events = events_of(METHODS[method], X, y, **params)
    assert list(selection.columns) == expected
    assert [e.score for e in events] == single
    assert [e.action for e in events] == actions
    selector = METHODS[method](**params).start(y)
    selector.score_rejections = False
    quiet = stream_selection(selector, X, [str(j) for j in range(X.shape[1])])
    assert list(quiet.columns) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=degenerate(), metric=st.sampled_from(["seuclidean", "euclidean"]))
def test_single_and_set_dependencies_equal_the_definition(data, metric):
    """The one-feature walk over sorted values and the set kernel, on every prefix set."""
    X, y = data
    cls = OFSA3M if metric == "seuclidean" else OFSDensity
    rule = "gap" if cls is OFSA3M else "density"
    weights = definition_weights(X, metric)
    selector = cls(variant="paper").start(y)
    singles = selector.single_dependencies(X)
    for j in range(X.shape[1]):
        assert singles[j] == definition_dependency(X[:, [j]], y, rule, [weights[j]])
    _, w = selector._singles(X)
    members = [
        _Member(str(j), j, j, np.ascontiguousarray(X[:, j]), float(w[j]), singles[j])
        for j in range(X.shape[1])
    ]
    for j in range(1, X.shape[1] + 1):
        assert selector._dependency(members[:j]) == definition_dependency(
            X[:, :j], y, rule, weights[:j]
        )
        selector._set_members(members[:j])


@st.composite
def columns_like_users(draw):
    """Continuous, rounded, counts, offsets with small differences, binary, skewed."""
    n = draw(st.integers(5, 70))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, draw(st.integers(2, n // 2)), replace=False)] = 1
    kind = draw(st.sampled_from(["normal", "rounded", "counts", "offset", "binary", "skewed"]))
    if kind == "normal":
        X = rng.standard_normal((n, 5))
    elif kind == "rounded":
        X = np.round(rng.standard_normal((n, 5)) * 3, 1)
    elif kind == "counts":
        X = rng.poisson(draw(st.sampled_from([0.5, 3.0, 40.0])), (n, 5)).astype(float)
    elif kind == "offset":
        X = 10000.0 + np.round(rng.standard_normal((n, 5)) * 5, draw(st.integers(0, 3)))
    elif kind == "binary":
        X = (rng.random((n, 5)) < draw(st.floats(0.02, 0.5))).astype(float)
    else:
        X = np.exp(rng.standard_normal((n, 5)) * 2)
    return X, y


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=columns_like_users())
def test_single_dependencies_equal_the_definition_on_users_columns(data):
    X, y = data
    for cls, rule, metric in ((OFSA3M, "gap", "seuclidean"), (OFSDensity, "density", "euclidean")):
        weights = definition_weights(X, metric)
        got = cls(variant="paper").start(y).single_dependencies(X)
        expected = [
            definition_dependency(X[:, [j]], y, rule, [weights[j]]) for j in range(X.shape[1])
        ]
        assert list(got) == expected


@st.composite
def wider_sets(draw):
    """More samples than a row's first sorted batch (24): evenly spaced values (no gap, no
    inflection point: the whole row), binary columns (ties across the batch's edge), levels,
    tenths, normals."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, m = draw(st.integers(25, 70)), draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["even", "binary", "levels", "tenths", "normal"]))
    if kind == "even":
        X = np.column_stack([rng.permutation(n) * 1.0 for _ in range(m)])
    elif kind == "binary":
        X = (rng.random((n, m)) < 0.4).astype(float)
    elif kind == "levels":
        X = rng.integers(0, 4, (n, m)).astype(float)
    elif kind == "tenths":
        X = rng.integers(0, 6, (n, m)) * 0.1
    else:
        X = rng.standard_normal((n, m))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, draw(st.integers(2, n // 2)), replace=False)] = 1
    return X, y


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=wider_sets(), metric=st.sampled_from(["seuclidean", "euclidean"]))
def test_set_dependencies_at_more_samples_equal_the_definition(data, metric):
    """The set kernel's nearest batch, the cut beyond it and the whole-row fallback."""
    X, y = data
    cls, rule = (OFSA3M, "gap") if metric == "seuclidean" else (OFSDensity, "density")
    weights = definition_weights(X, metric)
    selector = cls(variant="paper").start(y)
    singles, w = selector._singles(X)
    members = [
        _Member(str(j), j, j, np.ascontiguousarray(X[:, j]), float(w[j]), singles[j])
        for j in range(X.shape[1])
    ]
    for j in range(1, X.shape[1] + 1):
        expected = definition_dependency(X[:, :j], y, rule, weights[:j])
        assert selector._dependency(members[:j]) == expected
        floor = expected + 0.01
        assert selector._dependency(members[:j], floor) in (expected, -1.0)
        assert selector._dependency(members[:j], expected) == expected
        selector._set_members(members[:j])


@pytest.mark.parametrize("method", list(METHODS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=wider_sets(), seed=st.integers(0, 3))
def test_paper_streams_at_more_samples_equal_the_definition(method, data, seed):
    X, y = data
    X = np.column_stack([X, X[:, ::-1] + 0.5, np.round(X * 0.7, 0)])
    expected, (single, actions) = definition_run(X, y, method, seed)
    selection, events = events_of(METHODS[method], X, y, variant="paper", rand_state=seed)
    assert list(selection.columns) == expected and [e.action for e in events] == actions
    selector = METHODS[method](variant="paper", rand_state=seed).start(y)
    selector.score_rejections = False
    quiet = stream_selection(selector, X, [str(j) for j in range(X.shape[1])])
    assert list(quiet.columns) == expected
