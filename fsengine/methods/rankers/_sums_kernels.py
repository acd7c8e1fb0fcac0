"""Compiled (numba) kernel of the rankers' column sums whose result does not depend on the
order of the rows (:mod:`fsengine.methods.rankers._sums`)."""

from __future__ import annotations

import math

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


@njit(cache=True, inline="always")
def _folded_term(x, centre, square, s1, s2, s3):
    """The three folds of ``v = x - centre``, squared when asked."""
    v = x - centre
    if square:
        v = v * v
    return _folded(v, s1, s2, s3)


@kernel("f8[::1](f8[:, ::1], i8[::1], f8[::1], b1, f8[:, ::1])")
def column_sums(X, rows, centre, square, splits):
    """For each column j, the sum over ``rows`` of ``v = X[r, j] - centre[j]`` (``v * v``
    when ``square``) in three exact folds: with ``s = splits[0, j]``, ``h = (s + v) - s``
    is added to the first sum and ``v - h`` goes on to ``splits[1, j]``, then to
    ``splits[2, j]``; the result is ``(first + second) + third``, what
    :func:`fsengine.methods.rankers._sums.column_sums` computes with numpy, bit for bit.

    Parameters
    ----------
    X : (n, p) values.
    rows : (m,) the rows summed.
    centre : (p,) subtracted from each column.
    square : whether the differences are squared.
    splits : (3, p) the powers of two of the folds (:func:`fsengine.methods.rankers._sums.splits`).

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
            h1, h2, h3 = _folded_term(x[j], centre[j], square, s1[j], s2[j], s3[j])
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
            h1, h2, h3 = _folded_term(x[rows[q]], c, square, s1, s2, s3)
            first += h1
            second += h2
            third += h3
        out[j] = (first + second) + third
    return out


@njit(cache=True, inline="always")
def _power_above(bound):
    """The least power of two above ``bound`` (>= 0); 1 for 0
    (:func:`fsengine.methods.rankers._sums._power_above`)."""
    return math.ldexp(1.0, math.frexp(bound)[1])


@njit(cache=True)
def _group_sums(values, rows, z, group, member, count, centre, square, zeros, low, high, largest):
    """The sum over the samples of one group (``group[r] == member``, ``count`` of them) of
    one column's ``v = x - centre`` (squared when asked), in the three exact folds of
    :func:`column_sums` with the splits of :func:`fsengine.methods.rankers._sums.splits` for the
    column's extremes ``low``, ``high``: the same bits. The column is given by its ``z``
    non-zero ``values`` and their ``rows``; its ``zeros`` zeros in the group add one
    folded value ``zeros`` times, which is exact since every partial sum of a fold is.

    Returns
    -------
    (sum, huge)
        ``huge``: the bound is beyond the folds' range (the caller sums otherwise).
    """
    reach = max(abs(low - centre), abs(high - centre))
    bound = reach * reach if square else reach
    if not bound < largest / count:
        return 0.0, True
    s1 = _power_above(bound * (2.0 * count))
    step = _power_above(2.0 * count * 2.0**-53)
    s2 = s1 * step
    s3 = s2 * step
    first = second = third = 0.0
    for q in range(z):
        if group[rows[q]] == member:
            h1, h2, h3 = _folded_term(values[q], centre, square, s1, s2, s3)
            first += h1
            second += h2
            third += h3
    if zeros > 0:
        h1, h2, h3 = _folded_term(0.0, centre, square, s1, s2, s3)
        first += zeros * h1
        second += zeros * h2
        third += zeros * h3
    return (first + second) + third, False


@njit(cache=True)
def _column_moments(values, rows, z, group, n1, n0, largest, out, j):
    """One column's two-group moments into ``out[:, j]`` (:func:`group_moments`) from its
    ``z`` non-zero ``values`` at ``rows``."""
    inf = math.inf
    low1, high1, low0, high0 = inf, -inf, inf, -inf
    z1 = 0
    for q in range(z):
        v = values[q]
        if group[rows[q]]:
            z1 += 1
            low1 = min(low1, v)
            high1 = max(high1, v)
        else:
            low0 = min(low0, v)
            high0 = max(high0, v)
    zeros1 = n1 - z1
    zeros0 = n0 - (z - z1)
    if zeros1 > 0:
        low1 = min(low1, 0.0)
        high1 = max(high1, 0.0)
    if zeros0 > 0:
        low0 = min(low0, 0.0)
        high0 = max(high0, 0.0)
    low = min(low1, low0)
    high = max(high1, high0)
    huge = False
    for member, count, zeros, at in ((True, n1, zeros1, 0), (False, n0, zeros0, 2)):
        total, beyond = _group_sums(
            values, rows, z, group, member, count, 0.0, False, zeros, low, high, largest
        )
        mean = total / count
        scatter, beyond_squares = _group_sums(
            values, rows, z, group, member, count, mean, True, zeros, low, high, largest
        )
        huge = huge or beyond or beyond_squares
        out[at, j] = mean
        out[at + 1, j] = scatter
    out[4, j] = low1
    out[5, j] = high1
    out[6, j] = low0
    out[7, j] = high0
    out[8, j] = 1.0 if huge else 0.0


@kernel(
    "f8[:, ::1](f8[::1], i4[::1], i4[::1], b1[::1], f8)",
    "f8[:, ::1](f8[::1], i8[::1], i8[::1], b1[::1], f8)",
)
def group_moments(data, indices, indptr, group, largest):
    """Each column's mean and scatter (sum of squared deviations from the mean) in the
    group (``group`` true) and in the rest, and each group's extremes, from a CSC matrix,
    in one pass over its non-zeros: the bits of
    :func:`fsengine.methods.rankers._sums.mean_and_scatter` with the matrix's column extremes.

    Parameters
    ----------
    data, indices, indptr : a CSC matrix's arrays (n = ``group.shape[0]`` rows).
    group : (n,) the group's samples; both groups are non-empty.
    largest : the folds' largest bound (:data:`fsengine.methods.rankers._sums.LARGEST_BOUND`).

    Returns
    -------
    (9, b) rows: mean and scatter of the group, mean and scatter of the rest, the group's
    lowest and highest value, the rest's lowest and highest, and 1 where a bound is beyond
    the folds' range (those columns' sums are not valid).
    """
    n = group.shape[0]
    n1 = _members(group)
    b = indptr.shape[0] - 1
    out = np.empty((9, b))
    for j in range(b):
        lo = indptr[j]
        hi = indptr[j + 1]
        _column_moments(data[lo:hi], indices[lo:hi], hi - lo, group, n1, n - n1, largest, out, j)
    return out


@kernel("f8[:, ::1](f8[::1, :], b1[::1], f8)")
def group_moments_dense(X, group, largest):
    """:func:`group_moments` of a dense matrix (Fortran order): the same values."""
    n, b = X.shape
    n1 = _members(group)
    out = np.empty((9, b))
    values = np.empty(n)
    rows = np.empty(n, np.int64)
    for j in range(b):
        z = _nonzeros(X, j, values, rows)
        _column_moments(values, rows, z, group, n1, n - n1, largest, out, j)
    return out


@njit(cache=True)
def _members(group):
    """How many samples are in ``group``."""
    n1 = 0
    for i in range(group.shape[0]):
        if group[i]:
            n1 += 1
    return n1


@njit(cache=True)
def _nonzeros(X, j, values, rows):
    """Column j's non-zero values and their rows into ``values``, ``rows``; their count."""
    z = 0
    for i in range(X.shape[0]):
        v = X[i, j]
        if v != 0.0:
            values[z] = v
            rows[z] = i
            z += 1
    return z


@njit(cache=True)
def _rank_sum(values, rows, z, n, group, n1):
    """The sum of the average ranks (1 .. n) of the ``n1`` samples in ``group`` for one
    column given by its ``z`` non-zero ``values`` at ``rows`` (its zeros are one run of
    ties)."""
    zeros_in_group = n1
    negative = 0
    for q in range(z):
        if group[rows[q]]:
            zeros_in_group -= 1
        if values[q] < 0.0:
            negative += 1
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
    return total


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
    n1 = _members(group)
    out = np.empty(b)
    values = np.empty(n)
    rows = np.empty(n, np.int64)
    for j in range(b):
        z = _nonzeros(X, j, values, rows)
        out[j] = _rank_sum(values, rows, z, n, group, n1)
    return out


@kernel(
    "f8[::1](f8[::1], i4[::1], i4[::1], b1[::1])",
    "f8[::1](f8[::1], i8[::1], i8[::1], b1[::1])",
)
def group_rank_sums_sparse(data, indices, indptr, group):
    """:func:`group_rank_sums` of a CSC matrix that stores no zero (explicit zeros removed
    first), in O(z log z) a column after one pass over ``group``."""
    n = group.shape[0]
    n1 = _members(group)
    b = indptr.shape[0] - 1
    out = np.empty(b)
    for j in range(b):
        lo = indptr[j]
        hi = indptr[j + 1]
        out[j] = _rank_sum(data[lo:hi], indices[lo:hi], hi - lo, n, group, n1)
    return out


@kernel(
    "b1(f8[::1], i4[::1], i8[::1], i8, i8[::1], b1[::1], f8[:, ::1], f8[:, ::1], i8[:, ::1])",
    "b1(f8[::1], i8[::1], i8[::1], i8, i8[::1], b1[::1], f8[:, ::1], f8[:, ::1], i8[:, ::1])",
)
def band_group_extremes(data, indices, pointers, first_row, position, group, low, high, stored):
    """One band of rows of a CSR matrix, added to each column's extremes and count of
    non-zero values in the group (row 1 of ``low``, ``high``, ``stored``) and in the rest
    (row 0); zeros, stored or not, are left out (the caller counts them).

    Parameters
    ----------
    data, indices, pointers : the band's CSR arrays (pointers from 0).
    first_row : the band's first row in the matrix (``group``'s index).
    position : (n_columns of the file,) each stored column's column in the result, -1
        for a column left out.
    group : (n,) the group's rows.
    low, high, stored : (2, p) updated in place.

    Returns
    -------
    bool
        Whether every row's columns were strictly ascending and in range (else the
        caller reads the matrix otherwise: what was added is not valid).
    """
    width = position.shape[0]
    for r in range(pointers.shape[0] - 1):
        g = 1 if group[first_row + r] else 0
        last = -1
        for q in range(pointers[r], pointers[r + 1]):
            c = indices[q]
            if c <= last or c >= width:
                return False
            last = c
            j = position[c]
            v = data[q]
            if j < 0 or v == 0.0:
                continue
            stored[g, j] += 1
            low[g, j] = min(low[g, j], v)
            high[g, j] = max(high[g, j], v)
    return True


@kernel(
    "void(f8[::1], i4[::1], i8[::1], i8, i8[::1], b1[::1], f8[:, ::1], b1, f8[:, :, ::1],"
    " f8[:, :, ::1])",
    "void(f8[::1], i8[::1], i8[::1], i8, i8[::1], b1[::1], f8[:, ::1], b1, f8[:, :, ::1],"
    " f8[:, :, ::1])",
)
def band_group_folds(
    data, indices, pointers, first_row, position, group, centre, square, splits, folds
):
    """One band of rows of a CSR matrix (columns ascending in each row, checked by
    :func:`band_group_extremes`) added to the three exact folds of each column's sum of
    ``v - centre`` (squared when asked) over its non-zero values in the group (index 1)
    and the rest (index 0): :func:`_group_sums` row by row; each fold's sum is exact, so
    the rows' order does not change it.

    Parameters
    ----------
    data, indices, pointers, first_row, position, group : as :func:`band_group_extremes`.
    centre : (2, p) subtracted from each group's values.
    square : whether the differences are squared.
    splits : (2, p, 3) the folds' powers of two (:func:`fsengine.methods.rankers._sums.splits`),
        a column's three side by side.
    folds : (2, p, 3) the three folds' sums, updated in place.
    """
    for r in range(pointers.shape[0] - 1):
        g = 1 if group[first_row + r] else 0
        for q in range(pointers[r], pointers[r + 1]):
            j = position[indices[q]]
            v = data[q]
            if j < 0 or v == 0.0:
                continue
            h1, h2, h3 = _folded_term(
                v, centre[g, j], square, splits[g, j, 0], splits[g, j, 1], splits[g, j, 2]
            )
            folds[g, j, 0] += h1
            folds[g, j, 1] += h2
            folds[g, j, 2] += h3
