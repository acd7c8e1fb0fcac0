"""OSFS and Fast-OSFS: parity with the authors' code, and the engine against a slow,
definition-level implementation.

The reference outputs come from the LOFS toolbox's unmodified ``osfs_z.m`` and
``fast_osfs_z.m`` run in GNU Octave 7.3 (tests/reference/lofs_octave/README.md): every
selection in order, every traced decision (action, |corr| with the class, set size after),
every removal (step, removed feature, conditioning set, |partial correlation|) and, for
Fast-OSFS, the set that rejected each redundant feature.

The slow implementation below is written from the README's description alone: for each
relevant feature, every selected feature is re-tested given every subset (OSFS) or every
subset containing b's last element (Fast-OSFS, new feature re-tested too), each test from
``numpy.cov`` of ``[x, class, S]`` and an explicit inverse. The engine tests old features
only given subsets that contain the new one (OSFS) and skips Fast-OSFS's re-test of the new
feature; the two must agree on every decision.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import GLIOMA, LOFS_REFERENCE, REFERENCE, SAMPLE
from fsengine.methods.online import OSFS, FastOSFS, stream_events, stream_selection
from fsengine.methods.online._statistical._osfs_kernels import SINGULAR
from fsengine.methods.online._statistical.fisher_z import (
    fisher_z_cutoff,
    fisher_z_statistic,
    independent,
)

SETS = ["ds1", "ds2", "ds3", "ds4", "ds5", "ds6", "ds7", "SRBCT", "GLIOMA"]
METHODS = {"osfs": OSFS, "fast_osfs": FastOSFS}
CASES = [(s, m) for s in SETS for m in METHODS]
OCTAVE_CUTOFF = 2.5758293035488999  # sqrt(2)*erfinv(2*(1-0.01/2)-1) in Octave 7.3
#: Below this the reference's |partial correlation| is rounding noise of an exact copy
#: (README: "r of about 1e-8 or NaN"); the engine reports such a test as undefined (NaN).
ROUNDING_NOISE = 1e-6

_DATA: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def _data(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name not in _DATA:
        if name.startswith("ds"):
            folder = LOFS_REFERENCE if name in ("ds6", "ds7") else REFERENCE
            X = np.loadtxt(folder / f"{name}_X.csv", delimiter=",")
            y = np.loadtxt(folder / f"{name}_y.csv").astype(int)
        else:
            from fsengine import load_dataset

            ds = load_dataset(SAMPLE if name == "SRBCT" else GLIOMA)
            X, y = ds.X, ds.binarise(ds.resolve_class("2"))
        _DATA[name] = (X, y)
    return _DATA[name]


def _rows(path) -> np.ndarray:
    text = path.read_text().strip()
    return np.loadtxt(path, delimiter=",", ndmin=2) if text else np.zeros((0, 6))


def _events(cls, X, y, **params):
    names = [str(j) for j in range(X.shape[1])]
    selector = cls(**params).start(y)
    events = list(stream_events(selector, X, names))
    return events, selector.finish()


def _same_r(mine: float, ref: float) -> bool:
    """|partial correlation| equal to 1e-12, or both undefined / rounding noise."""
    if math.isnan(mine):
        return math.isnan(ref) or ref < ROUNDING_NOISE
    return abs(mine - ref) <= 1e-12


def _columns(names: str | tuple[str, ...]) -> tuple[int, ...]:
    """1-based columns of a "|"-joined set or a tuple of names (names are 0-based)."""
    parts = names.split("|") if isinstance(names, str) else names
    return tuple(int(v) + 1 for v in parts)


# ------------------------------------------------------------------ reference parity
@pytest.mark.parametrize("name,method", CASES, ids=[f"{s}-{m}" for s, m in CASES])
def test_reference_selection_and_trace(name, method):
    X, y = _data(name)
    cls = METHODS[method]
    events, selection = _events(cls, X, y)
    ref = (LOFS_REFERENCE / f"{name}_{method}_selected.csv").read_text().strip()
    assert [c + 1 for c in selection.columns] == ([int(v) for v in ref.split(",")] if ref else [])

    trace = np.loadtxt(LOFS_REFERENCE / f"{name}_{method}_trace.csv", delimiter=",", ndmin=2)
    assert len(events) == len(trace)
    codes = cls.spec.action_codes
    assert [codes[e.action] for e in events] == trace[:, 1].astype(int).tolist()
    np.testing.assert_allclose(
        [e.score for e in events], trace[:, 2], rtol=0, atol=1e-12, equal_nan=True
    )
    assert [len(e.selected) for e in events] == trace[:, 7].astype(int).tolist()

    # Fast-OSFS: the set that rejected each redundant feature, and its |r|
    for e, row in zip(events, trace):
        if row[1] == 2:
            assert _columns(e.given) == tuple(int(c) for c in row[3:6] if c), e.step
            assert _same_r(e.given_correlation, row[6]), (e.step, e.given_correlation, row[6])

    removed = _rows(LOFS_REFERENCE / f"{name}_{method}_removed.csv")
    mine = [
        (e.step + 1, int(q) + 1, _columns(s), r)
        for e in events
        for q, s, r in zip(e.removed, e.removed_given, e.removed_correlation)
    ]
    expected = [(int(r[0]), int(r[1]), tuple(int(c) for c in r[2:5] if c), r[5]) for r in removed]
    assert [m[:3] for m in mine] == [x[:3] for x in expected]
    for m, x in zip(mine, expected):
        assert _same_r(m[3], x[3]), (m, x)


@pytest.mark.parametrize("name,method", CASES, ids=[f"{s}-{m}" for s, m in CASES])
def test_selection_without_events_is_the_same(name, method):
    X, y = _data(name)
    names = [str(j) for j in range(X.shape[1])]
    events, selection = _events(METHODS[method], X, y)
    quiet = stream_selection(METHODS[method]().start(y), X, names, chunk=97)
    assert quiet == selection
    assert events[-1].selected == selection.features


def test_reference_runs_cover_every_action_and_degenerate_test():
    """The parity suite is only as strong as what it exercises."""
    seen, undefined = set(), 0
    for name, method in CASES:
        X, y = _data(name)
        events, _ = _events(METHODS[method], X, y)
        seen |= {(method, e.action) for e in events}
        undefined += sum(math.isnan(r) for e in events for r in e.removed_correlation)
    for method in METHODS:
        assert {a for m, a in seen if m == method} == {
            "zero-sum",
            "irrelevant",
            "redundant",
            "added",
        }
    assert undefined >= 3  # ds7: exact copies and a singular set


def test_ds7_singular_set_removes_the_strong_feature():
    """ds7 step 7 (README): OSFS removes 5 given {6, 7} (exact copies: singular), then 6
    given {7}, and keeps 7."""
    X, y = _data("ds7")
    events, selection = _events(OSFS, X, y)
    e = events[6]
    assert e.removed == ("4", "5") and e.removed_given == ("5|6", "6")
    assert all(math.isnan(r) for r in e.removed_correlation)
    assert selection.columns == (6,)


def test_zero_sum_column_is_tested_in_the_paper_variant():
    """ds6 column 6 is informative and sums to exactly 0: skipped by the code only."""
    X, y = _data("ds6")
    assert X[:, 5].sum() == 0 and abs(np.corrcoef(X[:, 5], y)[0, 1]) > 0.5
    for cls in METHODS.values():
        reference, _ = _events(cls, X, y)
        paper, _ = _events(cls, X, y, variant="paper")
        assert reference[5].action == "zero-sum" and math.isnan(reference[5].score)
        assert paper[5].action != "zero-sum" and paper[5].score > 0.5


# ------------------------------------------------------------------ Fisher z details
def test_fisher_z_follows_octave_at_small_samples_and_ties():
    cutoff = fisher_z_cutoff(0.01)
    assert cutoff == OCTAVE_CUTOFF
    assert independent(math.nan, 50, 1, cutoff)
    assert not independent(1.0, 50, 1, cutoff) and not independent(-1.0, 50, 0, cutoff)
    # n - |S| - 3 = 0: W = 0 (independent), or 0 * inf = NaN (dependent)
    assert fisher_z_statistic(0.9, 5, 2) == 0.0 and independent(0.9, 5, 2, cutoff)
    assert math.isnan(fisher_z_statistic(1.0, 5, 2)) and not independent(1.0, 5, 2, cutoff)
    # n - |S| - 3 < 0: Octave's W is imaginary; |W| = sqrt(|df|) |z|
    assert fisher_z_statistic(0.5, 4, 3) == pytest.approx(math.sqrt(2) * math.atanh(0.5))


def test_strict_threshold_a_tie_is_dependent():
    w = OCTAVE_CUTOFF
    assert not abs(w) < OCTAVE_CUTOFF  # the comparison the code makes
    r = math.tanh(w / math.sqrt(57))
    stat = fisher_z_statistic(r, 60, 0)
    assert independent(r, 60, 0, OCTAVE_CUTOFF) == (abs(stat) < OCTAVE_CUTOFF)


# ------------------------------------------------------------------ slow implementation
def _in_order_sum(column) -> float:
    total = 0.0
    for v in column:
        total += float(v)
    return total


def _slow_r(data: np.ndarray, x: int, target: int, S: tuple[int, ...]) -> float:
    """Partial correlation of x and the class given S, as ``my_cond_indep_fisher_z.m``
    computes it (cov, explicit inverse), NaN for the degenerate tests the README lists:
    a constant column, a singular set, a tested variable that is a linear function of S
    (judged on the correlation matrix, tolerance SINGULAR)."""
    cols = [x, target, *S]
    if np.ptp(data[:, x]) == 0:
        return math.nan
    C = np.cov(data[:, cols], rowvar=False)
    block = C[:2, :2]
    if S:
        d = np.sqrt(np.diag(C))
        Rm = C / np.outer(d, d)
        RSS = Rm[2:, 2:]
        if not np.linalg.det(RSS) > SINGULAR:
            return math.nan
        for v in (0, 1):
            explained = Rm[v, 2:] @ np.linalg.solve(RSS, Rm[2:, v])
            if not 1.0 - explained > SINGULAR:
                return math.nan
        block = block - C[:2, 2:] @ np.linalg.inv(C[2:, 2:]) @ C[2:, :2]
    product = block[0, 0] * block[1, 1]
    if not product > 0:
        return math.nan
    return float(block[0, 1] / math.sqrt(product))


def _slow_independent(r: float, n: int, k: int, cutoff: float) -> bool:
    if math.isnan(r):
        return True
    if abs(r) >= 1.0:
        return False
    w = math.sqrt(n - k - 3) * 0.5 * math.log((1 + r) / (1 - r))
    return abs(w) < cutoff


def _all_subsets(b, max_k):
    for k in range(1, min(max_k, len(b)) + 1):
        yield from itertools.combinations(b, k)


def _with_last(b, max_k):
    for k in range(1, min(max_k, len(b)) + 1):
        for rest in itertools.combinations(b[:-1], k - 1):
            yield (*rest, b[-1])


def slow_osfs(X, y, fast=False, alpha=0.01, max_conditioning=3, variant="reference"):
    """OSFS / Fast-OSFS literally: per step (action, |corr|, given set, its r, removals)."""
    n, p = X.shape
    data = np.column_stack([X, y]).astype(float)
    target = p
    cutoff = fisher_z_cutoff(alpha)

    def first_hit(f, b, subsets):
        for S in subsets(b, max_conditioning):
            r = _slow_r(data, f, target, S)
            if _slow_independent(r, n, len(S), cutoff):
                return S, r
        return None

    selected, steps = [], []
    for i in range(p):
        if variant == "reference" and _in_order_sum(X[:, i]) == 0:
            steps.append(("zero-sum", math.nan, (), math.nan, []))
            continue
        r = _slow_r(data, i, target, ())
        if _slow_independent(r, n, 0, cutoff):
            steps.append(("irrelevant", abs(r), (), math.nan, []))
            continue
        if fast and selected:
            hit = first_hit(i, selected, _all_subsets)
            if hit:
                steps.append(("redundant", abs(r), hit[0], abs(hit[1]), []))
                continue
        selected.append(i)
        current, removals = list(selected), []
        for f in selected:
            b = [g for g in current if g != f]
            if b:
                hit = first_hit(f, b, _with_last if fast else _all_subsets)
                if hit:
                    current = b
                    removals.append((f, hit[0], abs(hit[1])))
        selected = current
        own = [h for h in removals if h[0] == i]
        if own:
            steps.append(("redundant", abs(r), own[0][1], own[0][2], removals))
        else:
            steps.append(("added", abs(r), (), math.nan, removals))
    return selected, steps


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9


def _assert_engine_is_slow(X, y, method, **params):
    cls = METHODS[method]
    events, selection = _events(cls, X, y, **params)
    selected, steps = slow_osfs(X, y, fast=method == "fast_osfs", **params)
    assert list(selection.columns) == selected
    for e, (action, dep, given_set, given_r, removals) in zip(events, steps, strict=True):
        assert e.action == action, (e.step, e.action, action)
        assert _close(e.score, dep), (e.step, e.score, dep)
        assert tuple(int(g) for g in e.given) == tuple(given_set), e.step
        assert _close(e.given_correlation, given_r), (e.step, e.given_correlation, given_r)
        mine = [
            (int(q), tuple(int(g) for g in s.split("|")))
            for q, s in zip(e.removed, e.removed_given)
        ]
        assert mine == [(f, tuple(S)) for f, S, _ in removals], e.step
        for a, (_, _, b) in zip(e.removed_correlation, removals):
            assert _close(a, b), (e.step, a, b)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("max_conditioning", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["ds1", "ds4", "ds6", "ds7"])
def test_engine_equals_slow_implementation_on_fixtures(name, method, max_conditioning):
    X, y = _data(name)
    _assert_engine_is_slow(X, y, method, max_conditioning=max_conditioning)


@pytest.mark.parametrize("method", METHODS)
def test_engine_equals_slow_implementation_on_srbct_slice(method):
    X, y = _data("SRBCT")
    _assert_engine_is_slow(X[:, :400], y, method)
    _assert_engine_is_slow(np.round(X[:, :400], 1), y, method, alpha=0.05, variant="paper")


@st.composite
def degenerate_data(draw):
    """Tie-heavy small matrices: rounded and integer columns, constants, exact copies and
    multiples, zero-sum columns, exact sums of two columns (singular sets), copies of the
    class, informative columns."""
    n = draw(st.integers(8, 24))
    p = draw(st.integers(2, 12))
    n_minority = draw(st.integers(2, n - 2))
    y = np.zeros(n, dtype=int)
    y[:n_minority] = 1
    y = y[draw(st.permutations(range(n)))]
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    columns = []
    for _ in range(p):
        kind = draw(
            st.sampled_from(
                [
                    "informative",
                    "informative",
                    "rounded",
                    "integer",
                    "constant",
                    "copy",
                    "multiple",
                    "zero-sum",
                    "sum",
                    "class",
                ]
            )
        )
        if kind in ("copy", "multiple", "sum") and not columns:
            kind = "informative"
        if kind == "informative":
            c = np.round(rng.normal(size=n) + rng.uniform(1, 3) * y, draw(st.integers(0, 2)))
        elif kind == "rounded":
            c = np.round(rng.normal(size=n), 1)
        elif kind == "integer":
            c = rng.integers(-2, 3, size=n).astype(float)
        elif kind == "constant":
            c = np.full(n, draw(st.sampled_from([0.0, 2.0, 0.1, -3.0])))
        elif kind == "copy":
            c = columns[draw(st.integers(0, len(columns) - 1))].copy()
        elif kind == "multiple":
            factor = draw(st.sampled_from([-2.0, 3.0, 0.5, -1.0]))
            c = factor * columns[draw(st.integers(0, len(columns) - 1))]
        elif kind == "zero-sum":
            c = rng.integers(-3, 4, size=n).astype(float) + 2.0 * y
            c[0] -= _in_order_sum(c)  # integers: exactly 0 in any order
        elif kind == "sum":
            a, b = draw(st.integers(0, len(columns) - 1)), draw(st.integers(0, len(columns) - 1))
            c = columns[a] + columns[b]
        else:
            c = 2.0 * y - 1.0
        columns.append(np.asarray(c, dtype=float))
    return np.column_stack(columns), y


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=degenerate_data(),
    alpha=st.sampled_from([0.01, 0.05, 0.2]),
    max_conditioning=st.integers(1, 3),
    variant=st.sampled_from(["reference", "paper"]),
)
def test_engine_equals_slow_implementation_on_degenerate_data(
    method, data, alpha, max_conditioning, variant
):
    X, y = data
    _assert_engine_is_slow(
        X, y, method, alpha=alpha, max_conditioning=max_conditioning, variant=variant
    )
