"""Grafting's re-optimisation: L1-penalised logistic regression on the model's columns.

The objective (Perkins, Lacker and Theiler 2003, eq. 1 of the survey of Hu et al. 2018)::

    C(w, b) = (1/n) sum_i ln(1 + exp(-y_i f_i)) + lam * sum_j |w_j|,   f = X w + b,

with y in {-1, +1} (``t`` = 1 for the minority class, 0 for the rest) and the bias ``b``
not penalised. Its gradient in the linear predictor is ``(p - t) / n``, p = sigmoid(f);
the gradient of the loss in ``w_j`` is ``x_j . (p - t) / n``.

:func:`reoptimise` solves it from a warm start: a projected Newton method on the orthant of
the current signs (a weight that would change sign is set to 0), ended only by a
certificate, the optimality conditions of the L1 problem checked on every column:

* a column with a weight: ``|dL/dw_j + lam * sign(w_j)| <= eps``;
* a column at 0: ``|dL/dw_j| <= (1 + slack) * lam`` (else it is given a weight again);
* the bias: ``|dL/db| <= eps``,

``eps`` raised to what rounding allows (:func:`attainable`). Each Newton step is tried whole,
then (where it would take a weight past 0) up to the point where the first weight reaches 0,
then halved (Armijo); where the Hessian is singular (more weights than the samples can fix)
the loss is flat along the step and that point is where the penalty has fallen most.

When the Newton method cannot certify its point, scipy's L-BFGS-B on the split
``w = w+ - w-`` (``w+, w- >= 0``, bias free) solves the problem and Newton polishes its
answer; the violation that remains is reported either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Newton iterations per re-optimisation, and halvings of the step per line search.
MAX_NEWTON, MAX_HALVINGS = 100, 60
#: Armijo's constant: the decrease asked of a step, as a share of the predicted one.
ARMIJO = 1e-4
#: Objective values this close (relative) differ by rounding: the step is judged by the
#: optimality conditions instead.
FLAT = 1e-12
#: A gradient ``x . r / n`` is known to about this many machine epsilons times max |x|.
ROUNDING = 1000 * float(np.finfo(float).eps)


@dataclass(frozen=True)
class Fit:
    """A solution of the L1-penalised logistic regression.

    Attributes
    ----------
    w : ndarray, shape (k,)
        Weights of the columns; exact zeros where the penalty holds a weight at 0.
    b : float
        Bias (not penalised).
    f : ndarray, shape (n,)
        Linear predictor ``X w + b``.
    p : ndarray, shape (n,)
        ``sigmoid(f)``: the model's probability of the minority class.
    violation : float
        Largest violation of the optimality conditions (0 when they all hold within the
        tolerances): see :func:`violation`.
    solver : str
        "newton", or "l-bfgs-b" when the fallback ran.
    """

    w: np.ndarray
    b: float
    f: np.ndarray
    p: np.ndarray
    violation: float
    solver: str


def sigmoid(f: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-f))`` without overflow."""
    return np.exp(-np.logaddexp(0.0, -f))


def mean_loss(f: np.ndarray, t: np.ndarray) -> float:
    """``(1/n) sum_i ln(1 + exp(-y_i f_i))``, y = 2 t - 1 (the BNLL of the printed loss)."""
    return float(np.mean(np.logaddexp(0.0, -(2.0 * t - 1.0) * f)))


def objective(f: np.ndarray, t: np.ndarray, w: np.ndarray, lam: float) -> float:
    """The penalised objective ``C(w, b)`` at linear predictor ``f``."""
    return mean_loss(f, t) + lam * float(np.sum(np.abs(w)))


def violation(X, t, w, p, lam: float, slack: float) -> float:
    """Largest violation of the optimality conditions of ``C`` at ``(w, b)`` (``p`` its
    probabilities): the larger of ``|dL/dw_j + lam sign(w_j)|`` over weighted columns,
    ``|dL/dw_j| - (1 + slack) lam`` over columns at 0 (when positive) and ``|dL/db|``."""
    r = (p - t) / len(t)
    g = X.T @ r
    on = w != 0
    worst = abs(float(np.sum(r)))
    if on.any():
        worst = max(worst, float(np.max(np.abs(g[on] + lam * np.sign(w[on])))))
    if (~on).any():
        worst = max(worst, float(np.max(np.abs(g[~on]))) - (1.0 + slack) * lam)
    return worst


def reoptimise(
    X: np.ndarray,
    t: np.ndarray,
    lam: float,
    w0: np.ndarray,
    b0: float,
    signs0: np.ndarray,
    eps: float,
    slack: float,
) -> Fit:
    """Minimise ``C`` over the columns of ``X`` from ``(w0, b0)``.

    Parameters
    ----------
    X : ndarray, shape (n, k)
        The model's columns (centred; see :class:`~fsengine.methods.online.Grafting`).
    t : ndarray of float, shape (n,)
        1 for the minority class, 0 for the rest.
    lam : float
        The L1 penalty.
    w0, b0 : ndarray (k,), float
        Warm start: the previous optimum, the new column's weight 0.
    signs0 : ndarray (k,)
        Signs the weights start on (the new column's: ``-sign(dL/dw)``; 0 = held at 0).
    eps : float
        Tolerance of the conditions on weighted columns and the bias.
    slack : float
        A column at 0 may have ``|dL/dw| <= (1 + slack) lam``.

    Returns
    -------
    Fit
    """
    eps = attainable(X, eps)
    fit = _newton(X, t, lam, w0, b0, signs0, eps, slack)
    if fit is not None:
        return fit
    w, b = _lbfgsb(X, t, lam, w0, b0, eps)
    polished = _newton(X, t, lam, w, b, np.sign(w), eps, slack)
    if polished is not None:
        return Fit(polished.w, polished.b, polished.f, polished.p, polished.violation, "l-bfgs-b")
    f = X @ w + b
    p = sigmoid(f)
    return Fit(w, b, f, p, violation(X, t, w, p, lam, slack), "l-bfgs-b")


def attainable(X: np.ndarray, eps: float) -> float:
    """``eps``, or what rounding allows if that is larger: a gradient ``x . r / n`` is known
    to about ``1000 machine-epsilon max(1, max |x|)``."""
    scale = max(1.0, float(np.max(np.abs(X)))) if X.size else 1.0
    return max(eps, ROUNDING * scale)


def _newton(X, t, lam, w0, b0, signs0, eps, slack) -> Fit | None:
    """Projected Newton on the orthant of the signs; None if it cannot certify its point."""
    n, k = X.shape
    w = np.array(w0, dtype=float)
    signs = np.array(signs0, dtype=float)
    w[signs == 0] = 0.0
    b = float(b0)
    f = X @ w + b
    value = objective(f, t, w, lam)
    p, g, worst = _state(X, t, lam, f, signs)
    for _ in range(MAX_NEWTON):
        if worst <= eps:
            off = np.flatnonzero(signs == 0)
            over = np.abs(g[off]) - (1.0 + slack) * lam
            if off.size == 0 or over.max() <= 0:
                return Fit(w, b, f, p, max(worst, 0.0), "newton")
            j = off[int(np.argmax(over))]  # held at 0 wrongly: free it on its side
            signs[j] = -np.sign(g[j])
            p, g, worst = _state(X, t, lam, f, signs)
            continue
        on = np.flatnonzero(signs != 0)
        A = np.empty((n, on.size + 1))
        A[:, :-1] = X if on.size == k else X[:, on]
        A[:, -1] = 1.0
        H = A.T @ (A * (p * (1.0 - p) / n)[:, None])
        grad = np.append(g[on] + lam * signs[on], np.sum(p - t) / n)
        step = _solve(H, -grad)
        if step is None:
            return None
        predicted = float(grad @ step)  # < 0: a descent direction
        # The step along which the first weight reaches 0, if before the full step: where
        # H is singular (more weights than the samples can fix), the loss is flat along
        # the step and the penalty falls until a weight reaches 0.
        toward = np.flatnonzero(step[:-1] * signs[on] < 0)
        reach = -w[on][toward] / step[:-1][toward]
        first = int(np.argmin(reach)) if toward.size else -1
        alphas = [1.0] + ([float(reach[first])] if toward.size and reach[first] < 1 else [])
        alpha = 1.0
        for attempt in range(MAX_HALVINGS):
            alpha = alphas[attempt] if attempt < len(alphas) else alpha * 0.5
            trial = w.copy()
            trial[on] = w[on] + alpha * step[:-1]
            if attempt == 1 and len(alphas) == 2:  # exactly at the breakpoint
                trial[on[toward[first]]] = 0.0
            crossed = on[np.sign(trial[on]) != signs[on]]
            trial[crossed] = 0.0
            b_trial = b + alpha * step[-1]
            f_trial = X @ trial + b_trial
            v_trial = objective(f_trial, t, trial, lam)
            if v_trial <= value + ARMIJO * alpha * predicted:
                break
            if alpha == 1.0 and crossed.size == 0 and v_trial - value <= FLAT * abs(value):
                # the values differ by rounding alone: take the step if the conditions improve
                if _state(X, t, lam, f_trial, signs)[2] < worst:
                    break
        else:
            return None
        if b_trial == b and np.array_equal(trial, w):
            return None  # no step moves the point any more
        signs[crossed] = 0.0
        w, b, f, value = trial, b_trial, f_trial, v_trial
        p, g, worst = _state(X, t, lam, f, signs)
    return None


def _state(X, t, lam, f, signs):
    """Probabilities, the loss's gradient in every weight, and the largest violation of
    the conditions on the weighted columns (signs != 0) and the bias."""
    p = sigmoid(f)
    r = (p - t) / len(t)
    g = X.T @ r
    on = signs != 0
    worst = abs(float(np.sum(r)))
    if on.any():
        worst = max(worst, float(np.max(np.abs(g[on] + lam * signs[on]))))
    return p, g, worst


def _solve(H: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """``H^-1 rhs``, H positive semi-definite by construction: accepted when finite and a
    descent direction (``rhs . step > 0``, rhs the negative gradient); else ``H + mu I``
    with a growing damping mu."""
    scale = float(np.max(np.diag(H))) if H.size else 1.0
    if not (scale > 0 and math.isfinite(scale)):
        return None
    mu = 0.0
    for _ in range(12):
        try:
            step = np.linalg.solve(H + mu * np.eye(len(H)) if mu else H, rhs)
        except np.linalg.LinAlgError:
            step = None
        if step is not None and np.all(np.isfinite(step)) and float(rhs @ step) > 0:
            return step
        mu = 1e-12 * scale if mu == 0 else mu * 100.0
    return None


def _lbfgsb(X, t, lam, w0, b0, eps):
    """scipy's L-BFGS-B on the split ``w = w+ - w-`` of the columns scaled to unit
    root mean square (the penalty of column j becomes ``lam / scale_j``)."""
    from scipy.optimize import minimize

    n, k = X.shape
    scale = np.sqrt(np.mean(X * X, axis=0))
    scale[scale == 0] = 1.0
    Xs = X / scale
    pen = lam / scale
    ysign = 2.0 * t - 1.0

    def value_and_gradient(z):
        v = z[:k] - z[k : 2 * k]
        f = Xs @ v + z[-1]
        m = ysign * f
        r = (sigmoid(f) - t) / n
        gv = Xs.T @ r
        value = float(np.mean(np.logaddexp(0.0, -m))) + float(pen @ (z[:k] + z[k : 2 * k]))
        return value, np.concatenate([gv + pen, -gv + pen, [np.sum(r)]])

    v0 = np.asarray(w0, dtype=float) * scale
    z0 = np.concatenate([np.maximum(v0, 0.0), np.maximum(-v0, 0.0), [float(b0)]])
    result = minimize(
        value_and_gradient,
        z0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * (2 * k) + [(None, None)],
        options={"maxiter": 100_000, "maxfun": 200_000, "ftol": 0.0, "gtol": eps, "maxcor": 30},
    )
    z = result.x
    return (z[:k] - z[k : 2 * k]) / scale, float(z[-1])
