"""Compiled (numba) kernel of the rankers' column sums whose result does not depend on the
order of the rows (:mod:`fsengine.rankers._sums`)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel


@njit(cache=True)
def power_above(bound):
    """The least power of two above ``bound`` (>= 0); 1 for 0."""
    return math.ldexp(1.0, math.frexp(bound)[1])


@kernel(
    "f8[::1](f8[:, ::1], i8[::1], f8[::1], b1)",
    "f8[::1](f8[:, :], i8[::1], f8[::1], b1)",
)
def column_sums(X, rows, centre, square):
    """For each column j, the sum over ``rows`` of ``v = X[r, j] - centre[j]`` (``v * v``
    when ``square``) in two exact folds: ``hi = (s + v) - s`` with s a power of two above
    2 m max|v|, whose sum is exact in any order, then the same on ``v - hi``; the result
    is the sum of the two. :func:`fsengine.rankers._sums.column_sums` computes the same
    with numpy, bit for bit.

    Parameters
    ----------
    X : (n, p) values.
    rows : (m,) the rows summed.
    centre : (p,) subtracted from each column.
    square : whether the differences are squared.

    Returns
    -------
    (p,) the sums.
    """
    m = rows.shape[0]
    p = X.shape[1]
    top = np.zeros(p)
    for q in range(m):
        x = X[rows[q]]
        for j in range(p):
            v = x[j] - centre[j]
            if square:
                v = v * v
            top[j] = max(top[j], abs(v))
    first = np.empty(p)
    for j in range(p):
        first[j] = power_above(top[j] * (2.0 * m))
    high = np.zeros(p)
    top[:] = 0.0
    for q in range(m):
        x = X[rows[q]]
        for j in range(p):
            v = x[j] - centre[j]
            if square:
                v = v * v
            h = (first[j] + v) - first[j]
            high[j] += h
            top[j] = max(top[j], abs(v - h))
    second = np.empty(p)
    for j in range(p):
        second[j] = power_above(top[j] * (2.0 * m))
    low = np.zeros(p)
    for q in range(m):
        x = X[rows[q]]
        for j in range(p):
            v = x[j] - centre[j]
            if square:
                v = v * v
            r = v - ((first[j] + v) - first[j])
            low[j] += (second[j] + r) - second[j]
    return high + low
