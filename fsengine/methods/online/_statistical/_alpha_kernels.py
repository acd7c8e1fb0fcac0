"""Compiled (numba) walk of Alpha-investing over a block of arriving features.

The model is kept as an orthonormal basis Q of its columns (Gram-Schmidt, each new column
orthogonalised twice) and the residual r of the class vector y on it, so testing a feature
costs its projections on Q, not a new inverse: the drop in the residual sum of squares when
x joins the model is ``(r . x)^2 / d`` with ``d = |x|^2 - |Q x|^2`` the squared length of x's
component outside the model (recomputed explicitly when that difference is small, so
exact copies and multiples are caught). Every dot product sums over the samples in order,
one feature at a time, so a feature's numbers do not depend on the block it arrives in.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import (
    ALPHA_ACCEPTED,
    ALPHA_COLLINEAR,
    ALPHA_REJECTED,
    ALPHA_TAKEN,
)

#: Below this share of |x|^2 the cheap ``|x|^2 - |Q x|^2`` is recomputed explicitly.
RECHECK_SHARE = 1e-6
#: A column whose component outside the model is below this share of |x|^2 (in squared
#: length) is a linear combination of the model's columns: X'X is singular, no test.
COLLINEAR_SHARE = 1e-20
#: A model whose residual sum of squares is below this share of |y|^2 fits y exactly
#: (sigma^2 = 0): no further feature can be tested.
EXACT_FIT_SHARE = 1e-24

# Codes of the outcome of a step.
REJECTED, ACCEPTED, TAKEN, COLLINEAR = (
    ALPHA_REJECTED,
    ALPHA_ACCEPTED,
    ALPHA_TAKEN,
    ALPHA_COLLINEAR,
)


#: Features whose projections are computed together (a tile stays in the first-level cache).
TILE = 64


@njit(cache=True)
def _project_tile(Q, rows_lo, rows_hi, X, lo, hi, out):
    """``out[k, j] = sum_s Q[k, s] X[s, j]`` for rows_lo <= k < rows_hi and lo <= j < hi,
    each summed over s in order (so a value does not depend on the tile). Row views let
    the inner loop run vectorised across features."""
    n = X.shape[0]
    width = hi - lo
    for k in range(rows_lo, rows_hi):
        out[k, lo:hi] = 0.0
    for s in range(n):
        x_row = X[s, lo:hi]
        for k in range(rows_lo, rows_hi):
            a = Q[k, s]
            out_row = out[k, lo:hi]
            for j in range(width):
                out_row[j] += a * x_row[j]


@njit(cache=True)
def _orthogonal_part(Q, m, x):
    """x minus its projection on the first m rows of Q, projected out twice."""
    n = x.shape[0]
    part = x.copy()
    for _ in range(2):
        for k in range(m):
            c = 0.0
            for s in range(n):
                c += Q[k, s] * part[s]
            for s in range(n):
                part[s] -= c * Q[k, s]
    return part


@njit(cache=True)
def _sum_squares(v):
    total = 0.0
    for s in range(v.shape[0]):
        total += v[s] * v[s]
    return total


@njit(cache=True)
def _t_test_p(drop, rss_new, df):
    """Two-sided p-value of the t test of the new coefficient, ``t^2 = drop / (rss_new / df)``:
    ``I_{df / (df + t^2)}(df / 2, 1 / 2)`` (regularised incomplete beta by its continued
    fraction); NaN when undefined."""
    if not (df > 0 and rss_new > 0 and drop >= 0):
        return math.nan
    t2 = drop / (rss_new / df)
    x = df / (df + t2)
    return _betainc(0.5 * df, 0.5, x)


@njit(cache=True)
def _betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b) (continued fraction, modified Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1.0) / (a + b + 2.0):  # the fraction converges fast on the other side
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(log_front) * h / a


@kernel(
    "void(f8[:, ::1], f8[:, ::1], f8[::1], f8[::1], b1, f8, f8, f8[:, ::1])",
)
def walk(X, Q, r, state, reference, payout, yy, out):
    """Alpha-investing on the columns of X (n, b), in order; updates the model in place.

    Parameters
    ----------
    X : ndarray (n, b), C-contiguous
    Q : ndarray (n, n)
        Rows 0..m-1: orthonormal basis of the model's columns.
    r : ndarray (n,)
        Residual of y on the model.
    state : ndarray (4,)
        [rss, wealth, m, arrivals so far]; rss is NaN once the model is degenerate.
    reference : bool
        The authors' code: the first arrival is taken untested, p = the likelihood ratio
        ``exp((rss_new - rss) / (2 rss / n))``. Otherwise the paper: every feature tested,
        p from the t test with intercept (Q starts with the constant column).
    payout : float
        Wealth earned by an accepted feature (delta_alpha).
    yy : float
        |y|^2 (or |y - mean|^2 with an intercept), for the exact-fit check.
    out : ndarray (b, 6)
        Per feature: alpha_i, rss_before, rss_with, p, outcome code, wealth after.
    """
    n, b = X.shape
    m = int(state[2])
    # Rows 0..m-1 of proj: the features' projections on Q; row n: on r; row n + 1: |x|^2.
    proj = np.empty((n + 2, b))
    for lo in range(0, b, TILE):
        hi = min(lo + TILE, b)
        _project_tile(Q, 0, m, X, lo, hi, proj)
        _project_tile(r.reshape(1, n), 0, 1, X, lo, hi, proj[n:])
        squares = proj[n + 1, lo:hi]
        squares[:] = 0.0
        for s in range(n):
            x_row = X[s, lo:hi]
            for j in range(hi - lo):
                squares[j] += x_row[j] * x_row[j]
        m = _walk_tile(X, lo, hi, proj, Q, r, state, reference, payout, yy, out)


@njit(cache=True)
def _walk_tile(X, lo, hi, proj, Q, r, state, reference, payout, yy, out):
    """The decisions on features lo..hi-1 of X, whose projections are in ``proj``."""
    n = X.shape[0]
    m = int(state[2])
    g = proj[n]
    xx = proj[n + 1]
    for j in range(lo, hi):
        i = int(state[3]) + 1  # 1-based arrival position
        state[3] = i
        rss, wealth = state[0], state[1]
        taken = reference and i == 1
        alpha = math.nan if taken else wealth / (2.0 * i)
        d = xx[j]
        for k in range(m):
            d -= proj[k, j] * proj[k, j]
        part = np.empty(0)
        if not d > RECHECK_SHARE * xx[j]:
            part = _orthogonal_part(Q, m, np.ascontiguousarray(X[:, j]))
            d = _sum_squares(part)
        collinear = m >= n or not d > COLLINEAR_SHARE * xx[j]
        drop = g[j] * g[j] / d if not collinear else math.nan
        rss_new = rss - drop
        if taken:
            p = math.nan
            code = TAKEN
        elif collinear:
            p = math.nan
            code = COLLINEAR
        else:
            if reference:
                sigma2 = rss / n
                p = math.exp(-drop / (2.0 * sigma2)) if rss > EXACT_FIT_SHARE * yy else math.nan
            else:
                p = (
                    _t_test_p(drop, rss_new, n - (m + 1))
                    if rss > EXACT_FIT_SHARE * yy
                    else math.nan
                )
            code = ACCEPTED if p < alpha else REJECTED
        out[j, 0] = alpha
        out[j, 1] = math.nan if taken else rss
        out[j, 2] = math.nan if collinear and not taken else rss_new
        out[j, 3] = p
        out[j, 4] = code
        if code == ACCEPTED or code == TAKEN:
            if not taken:
                wealth = wealth + payout - alpha
            if collinear:  # a zero first column: X'X singular, the model's rss is NaN
                state[0] = math.nan
                out[j, 2] = math.nan
            else:
                if part.shape[0] == 0:
                    part = _orthogonal_part(Q, m, np.ascontiguousarray(X[:, j]))
                norm = math.sqrt(_sum_squares(part))
                for s in range(n):
                    Q[m, s] = part[s] / norm
                c = 0.0
                for s in range(n):
                    c += Q[m, s] * r[s]
                for s in range(n):
                    r[s] -= c * Q[m, s]
                state[0] = rss_new
                if j + 1 < hi:  # the rest of the tile: projections on the new Q row and r
                    _project_tile(Q, m, m + 1, X, j + 1, hi, proj)
                    _project_tile(r.reshape(1, n), 0, 1, X, j + 1, hi, proj[n:])
                m += 1
                state[2] = m
        else:
            wealth = wealth - alpha
        state[1] = wealth
        out[j, 5] = wealth
    return m
