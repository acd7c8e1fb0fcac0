"""Compiled (numba) redundancy analysis of OSFS and Fast-OSFS on a running correlation matrix.

The selected features and the class are kept as one correlation matrix ``R`` (row 0: the
class; rows 1..m: the selected features in list order) and the unit centred columns of the
features. A test of "feature x independent of the class given S" then needs no data: the
partial correlation comes from ``R`` restricted to ``{x, class} + S`` by a Cholesky
factorisation of ``R[S, S]`` (|S| <= 3 by default: a few dozen flops), the same quantity as
the toolbox's ``S2 = C(1:2,1:2) - C(1:2,S) inv(C(S,S)) C(S,1:2)`` on the covariance, equal to
rounding.

Degenerate sets, decided by a tolerance instead of by rounding: a conditioning set whose
correlation matrix has determinant <= SINGULAR (two exact copies, a column and an exact
multiple of it) is singular (Octave: ``inv`` returns Inf, r is NaN); a tested feature or
class that is a linear function of S to within that share of its variance (an exact copy
of a member of S) has no residual (Octave: r NaN, or about 1e-8 from rounding). Both give
r = NaN, which every caller reads as independence.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import OSFS_ADDED, OSFS_REDUNDANT_AFTER, OSFS_REDUNDANT_BEFORE

#: Determinant of the conditioning set's correlation matrix, and residual share of the
#: tested feature's (or the class's) variance given it, at or below which the test is
#: degenerate (r = NaN). Exact copies leave about 1e-16; real, distinct genes far more.
SINGULAR = 1e-12

# Outcomes of a relevant feature (``add_feature``'s first return value).
REDUNDANT_BEFORE, ADDED, REDUNDANT_AFTER = OSFS_REDUNDANT_BEFORE, OSFS_ADDED, OSFS_REDUNDANT_AFTER


@njit(cache=True)
def independent(r, n, k, cutoff):
    """The toolbox's decision on a partial correlation r given k features, n samples:
    NaN is independence; ``|W| < cutoff`` with ``W = sqrt(n - k - 3) atanh(r)`` (``|df|`` when
    n - k - 3 < 0, where Octave's W is imaginary; 0 * inf, NaN, is dependent)."""
    if r != r:
        return True
    if r >= 1.0 or r <= -1.0:
        return False  # z infinite (|r| > 1 only by rounding: Octave's z is complex and large)
    z = 0.5 * math.log((1.0 + r) / (1.0 - r))
    df = n - k - 3
    w = math.sqrt(abs(df)) * z
    return abs(w) < cutoff


@njit(cache=True)
def partial_correlation(R, x, S, k, L, wx, wy):
    """Partial correlation of R-index x and the class (index 0) given ``S[:k]``; NaN when
    degenerate (:data:`SINGULAR`). L, wx, wy: work arrays of at least k (rows)."""
    det = 1.0
    for i in range(k):
        si = S[i]
        for j in range(i):
            s = R[si, S[j]]
            for t in range(j):
                s -= L[i, t] * L[j, t]
            L[i, j] = s / L[j, j]
        d = R[si, si]
        for t in range(i):
            d -= L[i, t] * L[i, t]
        det *= d
        if not det > SINGULAR:
            return math.nan
        L[i, i] = math.sqrt(d)
    rx = R[x, x]
    ry = R[0, 0]
    c = R[x, 0]
    for i in range(k):
        si = S[i]
        a = R[si, x]
        b = R[si, 0]
        for t in range(i):
            a -= L[i, t] * wx[t]
            b -= L[i, t] * wy[t]
        a /= L[i, i]
        b /= L[i, i]
        wx[i] = a
        wy[i] = b
        rx -= a * a
        ry -= b * b
        c -= a * b
    if not (rx > SINGULAR * R[x, x] and ry > SINGULAR * R[0, 0]):
        return math.nan
    return c / math.sqrt(rx * ry)


@njit(cache=True)
def first_independent(R, x, pool, p, last, max_k, n, cutoff, S, idx, L, wx, wy):
    """The first conditioning set, in the toolbox's order, given which R-index x is
    independent of the class.

    ``last < 0``: every subset of ``pool[:p]`` of size 1, then 2, ... up to
    ``min(max_k, p)``, each size in lexicographic order of positions (``compter_dep_2.m``).
    ``last >= 0``: only subsets containing ``last``, the others drawn from ``pool[:p]``:
    {last}, {pool0, last}, {pool1, last}, ..., {pool0, pool1, last}, ... up to
    ``min(max_k, p + 1)`` (``optimal_compter_dep_2.m``).

    Returns (size of the set, r); the set is ``S[:size]``; size 0: no set (r NaN).
    """
    total = p + 1 if last >= 0 else p
    kmax = min(max_k, total)
    for k in range(1, kmax + 1):
        free = k - 1 if last >= 0 else k
        for i in range(free):
            idx[i] = i
        while True:
            for i in range(free):
                S[i] = pool[idx[i]]
            if last >= 0:
                S[free] = last
            r = partial_correlation(R, x, S, k, L, wx, wy)
            if independent(r, n, k, cutoff):
                return k, r
            i = free - 1
            while i >= 0 and idx[i] == p - free + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, free):
                idx[j] = idx[j - 1] + 1
    return 0, math.nan


@njit(cache=True)
def _remove_rows(R, units, ids, m, keep):
    """Compact the first m features (rows 1..m of R, rows 0..m-1 of units and ids) to those
    with ``keep``; returns the new count."""
    new = 0
    for a in range(m):
        if keep[a]:
            if new != a:
                units[new, :] = units[a, :]
                ids[new] = ids[a]
            new += 1
    rows = np.empty(new + 1, dtype=np.int64)
    rows[0] = 0
    q = 1
    for a in range(m):
        if keep[a]:
            rows[q] = a + 1
            q += 1
    for i in range(new + 1):
        for j in range(new + 1):
            R[i, j] = R[rows[i], rows[j]]
    return new


@njit(cache=True)
def _join_correlations(R, units, m, unit, corr, n):
    """R's row and column of an arriving feature as member ``m + 1``: its correlation with
    the class, with each of the ``m`` selected features (the dot product of the unit
    centred columns, summed in sample order) and with itself."""
    for i in range(m):
        s = 0.0
        for t in range(n):
            s += units[i, t] * unit[t]
        R[i + 1, m + 1] = s
        R[m + 1, i + 1] = s
    R[m + 1, 0] = corr
    R[0, m + 1] = corr
    s = 0.0
    for t in range(n):
        s += unit[t] * unit[t]
    R[m + 1, m + 1] = s


@njit(cache=True, inline="always")
def _write_given(given, ids, S, k, max_k, r):
    """``given`` = the arrival positions of the first ``k`` members of the conditioning
    set ``S`` (R's rows), and its partial correlation ``r`` last."""
    for i in range(k):
        given[i] = ids[S[i] - 1]
    given[max_k] = r


@njit(cache=True, inline="always")
def _write_removal(row, removed, ids, S, k, max_k, r):
    """One row of ``removals``: the removed feature's arrival position, the set that made
    it redundant (-1 padded to ``max_k``) and its partial correlation ``r``."""
    row[0] = removed
    for i in range(max_k):
        row[1 + i] = ids[S[i] - 1] if i < k else -1
    row[max_k + 1] = r


@njit(cache=True)
def add_feature(
    R, units, ids, m, unit, corr, arrival, fast, retest_new, max_k, n, cutoff, given, removals
):
    """One relevant feature through OSFS's or Fast-OSFS's redundancy analysis.

    Parameters
    ----------
    R : ndarray (cap + 1, cap + 1)
        Correlations of [class, selected features in list order]; rows 0..m in use.
    units : ndarray (cap, n)
        Unit centred columns of the selected features (rows 0..m-1).
    ids : ndarray of int64 (cap,)
        Arrival positions of the selected features.
    m : int
        Number of selected features.
    unit : ndarray (n,)
        The arriving feature's unit centred column; ``corr`` its correlation with the class.
    arrival : int
        Its arrival position.
    fast : bool
        Fast-OSFS: first test it given every subset of the selected features (``compter_dep_2``)
        and reject it at the first independence.
    retest_new : bool
        OSFS: after the old features, test the new one given every subset of the others.
    max_k, n, cutoff
        Conditioning-set cap, samples, Fisher z cutoff.
    given : ndarray (max_k + 1,)
        Out: the set that made it redundant (arrival positions, -1 padded) and its r last.
    removals : ndarray (m + 1, max_k + 2)
        Out: per removal, the removed feature's arrival position, its set (-1 padded), r.

    Returns
    -------
    outcome, new m, number of removals
        outcome: REDUNDANT_BEFORE (Fast-OSFS rejected it), ADDED, or REDUNDANT_AFTER (it
        joined, possibly removed others, and was removed at the end of its own pass).

    Notes
    -----
    OSFS re-tests every selected feature given every subset of the others after each
    addition. A feature that stayed in an earlier pass was then found dependent given
    every subset of a superset of today's others minus the new feature, and the same test
    gives the same answer: only subsets containing the new feature can remove it, and the
    first of those in the toolbox's order is its first independent set. So old features
    are tested given subsets containing the new one, as Fast-OSFS's
    ``optimal_compter_dep_2`` does; the decisions and the reported sets are those of the
    full search. Fast-OSFS's re-test of the new feature at the end of the pass (given
    subsets containing the last surviving old feature) repeats tests it passed in the
    first phase and never removes it; it is skipped.
    """
    for i in range(given.shape[0]):
        given[i] = -1
    given[max_k] = math.nan
    _join_correlations(R, units, m, unit, corr, n)
    new = m + 1
    S = np.empty(max_k, dtype=np.int64)
    idx = np.empty(max_k, dtype=np.int64)
    L = np.zeros((max_k, max_k))
    wx = np.empty(max_k)
    wy = np.empty(max_k)
    pool = np.empty(m + 1, dtype=np.int64)
    if fast and m > 0:
        for i in range(m):
            pool[i] = i + 1
        k, r = first_independent(R, new, pool, m, -1, max_k, n, cutoff, S, idx, L, wx, wy)
        if k > 0:
            _write_given(given, ids, S, k, max_k, r)
            return REDUNDANT_BEFORE, m, 0
    units[m, :] = unit
    ids[m] = arrival
    m += 1
    keep = np.ones(m, dtype=np.bool_)
    n_removed = 0
    for f in range(1, m):  # the old features, in list order
        p = 0
        for a in range(1, m):
            if a != f and keep[a - 1]:
                pool[p] = a
                p += 1
        k, r = first_independent(R, f, pool, p, new, max_k, n, cutoff, S, idx, L, wx, wy)
        if k > 0:
            keep[f - 1] = False
            _write_removal(removals[n_removed], ids[f - 1], ids, S, k, max_k, r)
            n_removed += 1
    outcome = ADDED
    if retest_new:
        p = 0
        for a in range(1, m):
            if keep[a - 1]:
                pool[p] = a
                p += 1
        if p > 0:
            k, r = first_independent(R, new, pool, p, -1, max_k, n, cutoff, S, idx, L, wx, wy)
            if k > 0:
                keep[m - 1] = False
                _write_removal(removals[n_removed], arrival, ids, S, k, max_k, r)
                n_removed += 1
                outcome = REDUNDANT_AFTER
                _write_given(given, ids, S, k, max_k, r)
    if n_removed > 0:
        m = _remove_rows(R, units, ids, m, keep)
    return outcome, m, n_removed


@kernel(
    (
        "UniTuple(i8, 3)(f8[:, ::1], f8[:, ::1], i8[::1], i8, f8[:, ::1], f8[::1], i8[::1], i8, "
        "b1, i8, i8, f8, i8[::1], i8[::1], f8[:, ::1], f8[:, ::1], i8)"
    ),
)
def add_features(
    R,
    units,
    ids,
    m,
    block_units,
    corr,
    arrival,
    first,
    fast,
    max_k,
    n,
    cutoff,
    outcomes,
    sizes,
    given,
    removals,
    n_removals,
):
    """:func:`add_feature` for the relevant features ``first``, ``first + 1``, ... of a block
    (``block_units[j]``, ``corr[j]``, ``arrival[j]``), until all are done or the state arrays
    are full (``m`` = capacity, rows of ``units``).

    Per feature j: ``outcomes[j]``, ``sizes[j]`` (m after it), ``given[j]`` (as in
    :func:`add_feature`); removals are appended to ``removals`` (the feature's index j, then
    :func:`add_feature`'s row) from row ``n_removals``.

    Returns
    -------
    next feature to do, m, number of removal rows
    """
    cap = units.shape[0]
    row = np.empty(max_k + 1)
    rows = np.empty((cap + 1, max_k + 2))
    j = first
    while j < block_units.shape[0] and m < cap:
        outcome, m, k = add_feature(
            R,
            units,
            ids,
            m,
            block_units[j],
            corr[j],
            arrival[j],
            fast,
            not fast,
            max_k,
            n,
            cutoff,
            row,
            rows,
        )
        outcomes[j] = outcome
        sizes[j] = m
        given[j, :] = row
        for q in range(k):
            removals[n_removals, 0] = j
            removals[n_removals, 1:] = rows[q]
            n_removals += 1
        j += 1
    return j, m, n_removals
