"""Grafting (Perkins and Theiler 2003) against independent truth.

* the first gradient of a tiny example worked out by hand;
* every event's score against a finite difference of the loss written out sample by
  sample (``(1/n) sum ln(1 + exp(-y_i f_i))``);
* the whole stream against a slow Grafting written here from the printed definition: the
  gradient test with the loss's gradient written out, each re-optimisation from scratch by
  plain proximal gradient descent (soft-thresholding; exact zeros), the members at 0 dropped;
* every model against scikit-learn's L1-penalised logistic regression (saga, which does not
  penalise the intercept; C = 1 / (n lambda) for the mean loss) fitted on the same columns:
  the same weights, and its support is the selected set;
* the optimality conditions checked from their definition after every step, on degenerate
  data drawn by hypothesis (constant and duplicated columns, a minority of two samples (the fewest
  the library accepts), separable classes).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fsengine import FSEngineError
from fsengine.methods.online import Grafting, GraftingEvent, stream_events, stream_selection
from fsengine.methods.online._embedded import solver

TOL = 1e-6  # the selector's default relative margin


# --------------------------------------------------------------------------- definitions
def loss_def(X: np.ndarray, t, w, b: float) -> float:
    """The printed mean loss, one sample at a time: (1/n) sum ln(1 + exp(-y_i f_i))."""
    n = len(t)
    total = 0.0
    for i in range(n):
        f = b + sum(float(w[j]) * float(X[i, j]) for j in range(len(w)))
        m = f if t[i] == 1 else -f  # y_i f_i, y = +1 for the minority class
        total += math.log1p(math.exp(-m)) if m > -30 else -m + math.log1p(math.exp(m))
    return total / n


def sigmoid_def(f: float) -> float:
    return 1.0 / (1.0 + math.exp(-f)) if f >= 0 else math.exp(f) / (1.0 + math.exp(f))


def gradient_def(X: np.ndarray, t, w, b: float, x) -> float:
    """dL/dw of a column x at w_x = 0: (1/n) sum_i x_i (sigmoid(f_i) - t_i)."""
    n = len(t)
    total = 0.0
    for i in range(n):
        f = b + sum(float(w[j]) * float(X[i, j]) for j in range(len(w)))
        total += float(x[i]) * (sigmoid_def(f) - t[i])
    return total / n


def proximal_gradient(X: np.ndarray, t: np.ndarray, lam: float, iterations: int = 200_000):
    """min (1/n) sum ln(1 + exp(-y f)) + lam |w|_1 from scratch, by proximal gradient steps
    of length 1/L (L = ||[X 1]||^2 / (4 n) bounds the loss's curvature), the bias free;
    soft-thresholding gives exact zeros. Accelerated (FISTA, restarted when the objective
    rises), then plain steps until a step moves nothing beyond rounding."""
    n, k = X.shape
    A = np.column_stack([X, np.ones(n)])
    L = np.linalg.norm(A, 2) ** 2 / (4 * n)
    y = 2 * t - 1

    def prox_step(z):
        p = 1.0 / (1.0 + np.exp(-(A @ z)))
        u = z - A.T @ (p - t) / n / L
        u[:k] = np.sign(u[:k]) * np.maximum(np.abs(u[:k]) - lam / L, 0.0)
        return u

    def value(z):
        return np.mean(np.logaddexp(0, -y * (A @ z))) + lam * np.abs(z[:k]).sum()

    z = v = np.zeros(k + 1)
    theta, last = 1.0, np.inf
    for _ in range(iterations // 2):
        new = prox_step(v)
        current = value(new)
        if current > last:  # restart the momentum
            theta, v, last = 1.0, z, np.inf
            continue
        theta_new = (1 + math.sqrt(1 + 4 * theta * theta)) / 2
        v = new + (theta - 1) / theta_new * (new - z)
        if np.max(np.abs(new - z)) < 1e-13:
            z = new
            break
        z, theta, last = new, theta_new, current
    for _ in range(iterations):
        new = prox_step(z)
        if np.max(np.abs(new - z)) <= 1e-15 * (1 + np.max(np.abs(z))):  # up to rounding
            break
        z = new
    return z[:k], float(z[k])


def slow_grafting(X: np.ndarray, y: np.ndarray, lam: float, tol: float = TOL):
    """Grafting from its definition: per feature, in order, the gradient test with the
    current model; a feature that passes enters, the model is refitted from scratch on the
    members and it, the members at 0 leave. Returns one record per feature."""
    n, p = X.shape
    t = (y == 1).astype(float)
    pi = t.mean()
    members: list[int] = []
    w, b = np.zeros(0), math.log(pi / (1 - pi))
    records = []
    for j in range(p):
        x = X[:, j]
        g = 0.0 if x.max() == x.min() else gradient_def(X[:, members], t, w, b, x)
        if abs(g) > (1 + tol) * lam:
            cols = members + [j]
            w_all, b = proximal_gradient(X[:, cols] - X[:, cols].mean(axis=0), t, lam)
            removed = [c for c, v in zip(cols, w_all) if v == 0]
            members = [c for c, v in zip(cols, w_all) if v != 0]
            w = w_all[w_all != 0]
            b -= float(w @ X[:, members].mean(axis=0))
            records.append(("added", abs(g), tuple(members), tuple(removed), w.copy(), b))
        else:
            records.append(("rejected", abs(g), tuple(members), (), w.copy(), b))
    return records


def stepwise(X, y, **params):
    """The engine one feature at a time: each event with the model after it."""
    selector = Grafting(**params).start(y)
    out = []
    for j in range(X.shape[1]):
        event = selector.step(X[:, j], f"g{j}", j)
        out.append((event, selector.model))
    return selector, out


def _data(seed: int, n: int = 30, p: int = 12, minority: int = 9):
    """Continuous data, a few informative columns, some near-copies (so that members
    get replaced), on different scales."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, minority, replace=False)] = 1
    signal = y + 0.6 * rng.normal(size=n)
    X = rng.normal(size=(n, p))
    X[:, 1] = signal + 0.8 * rng.normal(size=n)
    X[:, 4] = signal + 0.3 * rng.normal(size=n)
    X[:, 7] = signal + 0.1 * rng.normal(size=n)
    X[:, 9] += 1.5 * y
    return X * rng.uniform(0.5, 2.0, p), y


# --------------------------------------------------------------------------- by hand
def test_the_first_gradient_worked_out_by_hand():
    # t = (1, 1, 0, 0, 0): pi = 2/5, every p = 2/5 with no feature; x = (3, 1, 0, 0, 1):
    # dL/dw = (1/5) [3 (2/5 - 1) + 1 (2/5 - 1) + 0 + 0 + 1 (2/5)] = (1/5) (-9/5 - 3/5 + 2/5)
    #       = -2/5.
    y = np.array([1, 1, 0, 0, 0])
    x = np.array([3.0, 1.0, 0.0, 0.0, 1.0])
    event = Grafting(lam=0.41).start(y).step(x, "x")
    assert event.action == "rejected" and event.score == pytest.approx(0.4, abs=1e-15)
    assert event.selected == () and event.threshold == pytest.approx(0.41 * (1 + TOL))
    # the mean loss of the bias alone: -(2/5) ln(2/5) - (3/5) ln(3/5)
    assert event.selected_score == pytest.approx(-0.4 * math.log(0.4) - 0.6 * math.log(0.6))
    selector = Grafting(lam=0.39).start(y)
    event = selector.step(x + 7.0, "x")  # a shift changes nothing: the bias is free
    assert event.action == "added" and event.score == pytest.approx(0.4, abs=1e-14)
    assert event.selected == ("x",) and event.weight > 0
    # the optimum: dL/dw = -lambda on the member (its weight > 0), dL/db = 0 (by definition)
    cols, w, b = selector.model
    X = (x + 7.0)[:, None]
    t = y.astype(float)
    assert gradient_def(X, t, w, b, X[:, 0]) == pytest.approx(-0.39, abs=1e-9)
    assert gradient_def(X, t, w, b, np.ones(5)) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_every_score_is_the_finite_difference_of_the_written_out_loss(seed):
    X, y = _data(seed)
    t = y.astype(float)
    _, steps = stepwise(X, y, lam=0.08)
    cols, w, b = (), np.zeros(0), math.log(t.mean() / (1 - t.mean()))  # before the first
    h = 1e-5
    for event, (after_cols, after_w, after_b) in steps:
        x = X[:, event.column]
        M = np.column_stack([X[:, list(cols)], x])
        up = loss_def(M, t, np.append(w, h), b)
        down = loss_def(M, t, np.append(w, -h), b)
        assert event.score == pytest.approx(abs(up - down) / (2 * h), rel=1e-6, abs=1e-9)
        # selected_score is the model's mean loss, objective adds lam |w|_1
        after = loss_def(X[:, list(after_cols)], t, after_w, after_b)
        assert event.selected_score == pytest.approx(after, rel=1e-12)
        if event.action == "added":
            assert event.objective == pytest.approx(after + 0.08 * np.abs(after_w).sum(), 1e-12)
        cols, w, b = after_cols, after_w, after_b


# --------------------------------------------------------------------------- slow version
@pytest.mark.parametrize("seed", range(4))
def test_the_stream_is_the_slow_definition_level_grafting(seed):
    X, y = _data(seed)
    lam = 0.08
    expected = slow_grafting(X, y, lam)
    # no test is decided by less than its tolerance (then rounding could decide it)
    assert min(abs(r[1] - (1 + TOL) * lam) for r in expected) > 1e-7
    _, steps = stepwise(X, y, lam=lam)
    assert sum(r[0] == "added" for r in expected) >= 3
    for (action, score, members, removed, w, b), (event, (cols, w_fast, b_fast)) in zip(
        expected, steps
    ):
        assert event.action == action
        assert event.score == pytest.approx(score, rel=1e-9, abs=1e-12)
        assert event.selected_columns == members == cols
        assert event.removed == tuple(f"g{c}" for c in removed)
        np.testing.assert_allclose(w_fast, w, rtol=1e-6, atol=1e-9)
        assert b_fast == pytest.approx(b, rel=1e-6, abs=1e-9)


def test_members_do_leave_when_a_better_copy_arrives():
    """The slow test above covers removals: on seed 0 a member leaves (checked here, so
    that the comparison is not vacuous)."""
    X, y = _data(0)
    assert any(r[3] for r in slow_grafting(X, y, 0.08))


# --------------------------------------------------------------------------- scikit-learn
def _sklearn_l1(X, y, lam):
    """saga (its L1 penalty leaves the intercept free, unlike liblinear's), with a fixed
    random order: its stopping rule can end at w = 0 after a few epochs from some orders
    (random_state=2 on seed 0's first fit)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(
        l1_ratio=1.0,
        C=1.0 / (len(y) * lam),
        solver="saga",
        tol=1e-13,
        max_iter=1_000_000,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model.coef_[0], float(model.intercept_[0])


@pytest.mark.parametrize("seed", range(3))
def test_every_model_is_scikit_learns_l1_logistic_regression(seed):
    """After each feature that enters: scikit-learn fitted on the members before it and
    the new feature puts exactly the removed ones at 0, and gives the same weights."""
    X, y = _data(seed, n=40, p=14, minority=11)
    lam = 0.06
    _, steps = stepwise(X, y, lam=lam)
    before: tuple[int, ...] = ()
    checked = 0
    for event, (cols, w, b) in steps:
        if event.action == "added":
            offered = list(before) + [event.column]
            coef, intercept = _sklearn_l1(X[:, offered], y, lam)
            support = tuple(c for c, v in zip(offered, coef) if v != 0)
            assert support == cols, (support, cols)
            np.testing.assert_allclose(coef[coef != 0], w, rtol=1e-6, atol=1e-8)
            assert intercept == pytest.approx(b, rel=1e-6, abs=1e-8)
            checked += 1
        before = cols
    assert checked >= 3


# --------------------------------------------------------------------------- properties
def _kkt(X, y, cols, w, b, lam):
    """Largest violation of the optimality conditions, from their definition (gradients
    written out), on the members; and the largest |dL/dw| of the non-members given."""
    t = (y == 1).astype(float)
    M = X[:, list(cols)]
    worst = abs(gradient_def(M, t, w, b, np.ones(len(y))))
    for j in range(len(cols)):
        g = gradient_def(M, t, w, b, M[:, j])
        worst = max(worst, abs(g + lam * math.copysign(1.0, w[j])))
    return worst


@st.composite
def degenerate(draw):
    n = draw(st.integers(4, 14))
    minority = draw(st.integers(2, n - 1))  # 2: the fewest the library accepts
    y = np.array([1] * minority + [0] * (n - minority))
    p = draw(st.integers(1, 10))
    kind = draw(st.sampled_from(["integers", "separable", "rounded"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "integers":
        X = rng.integers(-3, 4, size=(n, p)).astype(float)
    elif kind == "rounded":
        X = np.round(rng.normal(size=(n, p)) * draw(st.sampled_from([0.1, 1.0, 30.0])), 1)
    else:  # classes apart on every column: the weights would grow without the penalty
        X = rng.normal(size=(n, p)) + 6.0 * y[:, None]
    for j in range(p):
        what = draw(st.sampled_from(["keep", "constant", "copy"]))
        if what == "constant":
            X[:, j] = draw(st.sampled_from([0.0, 2.5, -1e3]))
        elif what == "copy" and j > 0:
            X[:, j] = X[:, draw(st.integers(0, j - 1))]
    lam = draw(st.sampled_from([0.01, 0.05, 0.2, 0.5]))
    return X, y, lam


@settings(max_examples=150, deadline=None)
@given(degenerate())
def test_the_optimality_conditions_hold_after_every_step(case):
    X, y, lam = case
    assume(X.shape[0] >= 2)
    _, steps = stepwise(X, y, lam=lam)
    t = (y == 1).astype(float)
    previous = loss_def(np.zeros((len(y), 0)), t, [], math.log(t.mean() / (1 - t.mean())))
    for event, (cols, w, b) in steps:
        x = X[:, event.column]
        if x.max() == x.min():
            assert event.action == "rejected" and event.score == 0.0
        if event.action == "added":  # certified within tol * lam * 1e-4 or rounding
            assert event.violation <= solver.attainable(X - X.mean(axis=0), TOL * lam * 1e-4)
            assert _kkt(X, y, cols, w, b, lam) <= 1e-6 * max(1.0, lam)
            assert np.all(w != 0) and np.all(np.isfinite(w))
            # the penalty bounds the weights: lam |w|_1 <= C(w) <= C(0) = the bias's loss
            assert lam * np.abs(w).sum() <= previous + 1e-9
        # the objective never rises (an entering feature starts at 0; the optimum is lower)
        assert event.objective <= previous + 1e-12
        previous = event.objective
        # a copy of a member never enters
        if event.action == "added":
            for c in cols:
                if c != event.column:
                    assert not np.array_equal(X[:, c], x)


def test_constant_and_duplicated_columns_never_enter():
    X, y = _data(1)
    X = np.column_stack([X, np.full(len(y), 3.7), X[:, 7], X[:, 7] * 1.0])
    selector = Grafting(lam=0.08).start(y)
    events = list(stream_events(selector, X, [f"g{j}" for j in range(X.shape[1])]))
    assert events[-3].score == 0.0 and events[-3].action == "rejected"
    if "g7" in events[-2].selected:  # the copies of a member: |dL/dw| = lambda, not above
        assert events[-2].action == events[-1].action == "rejected"
        assert events[-2].score == pytest.approx(0.08, rel=1e-8)


def test_shifting_a_column_changes_nothing_and_standardising_removes_its_scale():
    X, y = _data(2)
    names = [f"g{j}" for j in range(X.shape[1])]
    base = stream_selection(Grafting(lam=0.08).start(y), X, names)
    shifted = stream_selection(Grafting(lam=0.08).start(y), X + 100.0, names)
    assert shifted.features == base.features
    np.testing.assert_allclose(shifted.scores, base.scores, rtol=1e-9)
    scaled = X * np.geomspace(1e-3, 1e3, X.shape[1])
    a = stream_selection(Grafting(lam=0.05, standardise=True).start(y), X, names)
    b = stream_selection(Grafting(lam=0.05, standardise=True).start(y), scaled, names)
    assert a.features == b.features and len(a) > 0
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-9)
    # on columns already of mean 0 and unit population sd, standardising is the identity
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    c = stream_selection(Grafting(lam=0.05).start(y), Z, names)
    assert c.features == a.features


def test_standardised_with_lambda_above_the_bound_selects_nothing_and_says_so():
    X, y = _data(3)
    pi = y.mean()
    bound = math.sqrt(pi * (1 - pi))  # Cauchy-Schwarz: |dL/dw| <= sqrt(pi (1 - pi))
    X[:, 0] = y  # the best a column can do: the class itself
    names = [f"g{j}" for j in range(X.shape[1])]
    selector = Grafting(lam=bound, standardise=True).start(y)
    events = list(stream_events(selector, X, names))
    assert all(e.action == "rejected" for e in events)
    assert events[0].score == pytest.approx(bound, rel=1e-12)  # reached by the class itself
    assert "selects nothing" in selector.warnings()[0]
    assert Grafting(lam=bound * 0.99, standardise=True).start(y).warnings() == []
    assert Grafting(lam=bound).start(y).warnings() == []  # unstandardised: no bound


def test_the_scipy_fallback_gives_the_same_stream(monkeypatch):
    """When Newton cannot certify, L-BFGS-B (scipy) solves and Newton polishes; when even
    that fails, L-BFGS-B's own answer is kept. Both give the stream of the Newton path."""
    X, y = _data(0)
    names = [f"g{j}" for j in range(X.shape[1])]
    newton = list(stream_events(Grafting(lam=0.08).start(y), X, names))
    original = solver._newton
    calls = {"n": 0}

    def first_fails(*args):
        calls["n"] += 1
        return None if calls["n"] % 2 == 1 else original(*args)

    monkeypatch.setattr(solver, "_newton", first_fails)
    polished = list(stream_events(Grafting(lam=0.08).start(y), X, names))
    monkeypatch.setattr(solver, "_newton", lambda *args: None)
    raw = list(stream_events(Grafting(lam=0.08).start(y), X, names))
    for a, b, c in zip(newton, polished, raw):
        assert a.action == b.action == c.action and a.selected == b.selected == c.selected
        assert b.weight == pytest.approx(a.weight, rel=1e-9, nan_ok=True)
        assert c.weight == pytest.approx(a.weight, rel=1e-4, nan_ok=True)
        if c.action == "added":
            assert c.violation < 1e-6
    assert sum(e.action == "added" for e in newton) >= 3


def test_the_selection_is_the_members_in_order_of_entry_with_their_entry_scores():
    X, y = _data(0)
    names = [f"g{j}" for j in range(X.shape[1])]
    selector = Grafting(lam=0.08).start(y)
    events = list(stream_events(selector, X, names))
    selection = selector.finish()
    assert selection.features == events[-1].selected
    entry = {e.feature: e.score for e in events if e.action == "added"}
    assert selection.scores == tuple(entry[f] for f in selection.features)
    assert all(isinstance(e, GraftingEvent) for e in events)


def test_bad_parameters_are_named_where_the_stream_starts():
    y = np.array([0, 1, 0, 1, 0, 0])
    unstarted = Grafting(lam=0.0)  # checked once, at the start, as scikit-learn at fit
    with pytest.raises(FSEngineError) as caught:
        unstarted.start(y)
    assert caught.value.parameter == "lam"
    with pytest.raises(FSEngineError) as caught:
        Grafting(tol=0.5).start(y)
    assert caught.value.parameter == "tol"
    with pytest.raises(FSEngineError) as caught:  # a name it does not take: at once
        Grafting(lambda_=0.1)
    assert caught.value.parameter == "lambda_"
