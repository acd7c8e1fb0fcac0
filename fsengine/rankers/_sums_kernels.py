"""Compiled (numba) kernel of the rankers' column sums whose result does not depend on the
order of the rows (:mod:`fsengine.rankers._sums`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel


@njit(cache=True, inline="always")
def _folded(v, s1, s2, s3):
    """The three folds of one value: (h1, h2, h3), each exact."""
    h1 = (s1 + v) - s1
    v = v - h1
    h2 = (s2 + v) - s2
    return h1, h2, (s3 + (v - h2)) - s3


@kernel("f8[::1](f8[:, ::1], i8[::1], f8[::1], b1, f8[:, ::1])")
def column_sums(X, rows, centre, square, splits):
    """For each column j, the sum over ``rows`` of ``v = X[r, j] - centre[j]`` (``v * v``
    when ``square``) in three exact folds: with ``s = splits[0, j]``, ``h = (s + v) - s``
    is added to the first sum and ``v - h`` goes on to ``splits[1, j]``, then to
    ``splits[2, j]``; the result is ``(first + second) + third``, what
    :func:`fsengine.rankers._sums.column_sums` computes with numpy, bit for bit.

    Parameters
    ----------
    X : (n, p) values.
    rows : (m,) the rows summed.
    centre : (p,) subtracted from each column.
    square : whether the differences are squared.
    splits : (3, p) the powers of two of the folds (:func:`fsengine.rankers._sums.splits`).

    Returns
    -------
    (p,) the sums.
    """
    m = rows.shape[0]
    p = X.shape[1]
    first = np.zeros(p)
    second = np.zeros(p)
    third = np.zeros(p)
    s1 = splits[0]
    s2 = splits[1]
    s3 = splits[2]
    for q in range(m):
        x = X[rows[q]]
        for j in range(p):
            v = x[j] - centre[j]
            if square:
                v = v * v
            h1, h2, h3 = _folded(v, s1[j], s2[j], s3[j])
            first[j] += h1
            second[j] += h2
            third[j] += h3
    return (first + second) + third


@kernel("f8[::1](f8[::1, :], i8[::1], f8[::1], b1, f8[:, ::1])")
def column_sums_by_column(X, rows, centre, square, splits):
    """:func:`column_sums` for a Fortran-ordered ``X``, one column after the other (each
    fold's sum is exact, so the order of the additions does not change it)."""
    m = rows.shape[0]
    p = X.shape[1]
    out = np.empty(p)
    for j in range(p):
        x = X[:, j]
        c = centre[j]
        s1 = splits[0, j]
        s2 = splits[1, j]
        s3 = splits[2, j]
        first = second = third = 0.0
        for q in range(m):
            v = x[rows[q]] - c
            if square:
                v = v * v
            h1, h2, h3 = _folded(v, s1, s2, s3)
            first += h1
            second += h2
            third += h3
        out[j] = (first + second) + third
    return out


@kernel("f8[::1](f8[::1, :], b1[::1])")
def group_rank_sums(X, group):
    """For each column, the sum of the average ranks (1 .. n, ties sharing their mean) of
    the samples in ``group``: scipy's ``rankdata(X, axis=0)[group].sum(axis=0)``, exactly
    (sums of halves), in O(n + z log z) a column of z non-zero values: its zeros are one
    run of tied ranks.

    Parameters
    ----------
    X : (n, b) finite values, one column per feature (Fortran order).
    group : (n,) the samples whose ranks are summed.
    """
    n, b = X.shape
    out = np.empty(b)
    values = np.empty(n)
    rows = np.empty(n, np.int64)
    for j in range(b):
        z = 0
        zeros_in_group = 0
        negative = 0
        for i in range(n):
            v = X[i, j]
            if v != 0.0:
                values[z] = v
                rows[z] = i
                z += 1
                if v < 0.0:
                    negative += 1
            elif group[i]:
                zeros_in_group += 1
        n_zero = n - z
        # The zeros hold ranks negative + 1 .. negative + n_zero.
        total = zeros_in_group * ((2.0 * negative + n_zero + 1.0) / 2.0)
        order = np.argsort(values[:z])
        q = 0
        while q < z:
            v = values[order[q]]
            r = q
            while r + 1 < z and values[order[r + 1]] == v:
                r += 1
            base = 0.0 if v < 0.0 else float(n_zero)  # the positives rank after the zeros
            rank = base + (q + r + 2) / 2.0
            for t in range(q, r + 1):
                if group[rows[order[t]]]:
                    total += rank
            q = r + 1
        out[j] = total
    return out
