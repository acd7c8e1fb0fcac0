"""Sums over samples whose result does not depend on the order of the samples.

Floating-point addition is not associative: a column summed in row order changes in its
last bits when the rows are permuted, and so do the means, variances and scores built on
it (issue 40). :func:`column_sums` sums each column in exact folds, the error-free
splitting of reproducible summation (Demmel and Nguyen, "Fast reproducible floating-point
summation", ARITH 2013). If every value satisfies ``|v| <= b`` and s is a power of two
above ``2 m b`` (m values), ``h = (s + v) - s`` is exact, a multiple of ``s 2^-53``, and
at most about ``s / (2m)`` in magnitude: every partial sum of the h is exact, so their sum
is the same in any order. The remainders ``v - h`` are exact too, at most ``s 2^-53``, and
go through a second and a third fold the same way; the result, ``(first + second) +
third``, depends on the set of values alone. It is more accurate than a sum in order: what
the three folds leave out is below ``(4 m)^4 2^-161 b``, against some ``m 2^-53 b`` lost by
a sum in order.

The bound b of a column comes from its smallest and largest value over all samples
(:func:`splits`), so one pass over the summed samples does everything, and a column's sum
depends on that column alone (blocks of columns, sparse or dense, give the same bits).
"""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine._compute.sparse import is_sparse

#: The kernel family of the sums.
SUMS_KERNELS = "methods.rankers._sums_kernels"
#: The folds' bound must keep 2 m b far from overflow; columns beyond are summed sorted.
LARGEST_BOUND = 2.0**1000


def _power_above(bound: np.ndarray) -> np.ndarray:
    """The least power of two above each ``bound`` (>= 0); 1 for 0."""
    return np.ldexp(1.0, np.frexp(bound)[1])


def splits(bound: np.ndarray, count: int) -> np.ndarray:
    """The powers of two of the three folds of ``count`` values bounded by ``bound``.

    Parameters
    ----------
    bound : float array (p,)
        Each column's bound on |v|.
    count : int
        The number of values summed, m.

    Returns
    -------
    float array (3, p)
        ``s1`` above ``2 m b``, then ``s2`` above ``2 m s1 2^-53`` (the remainders of the
        first fold are at most ``s1 2^-53``), then ``s3`` likewise from ``s2``.
    """
    first = _power_above(bound * (2.0 * count))
    step = _power_above(2.0 * count * 2.0**-53)  # s1 a power of two: P(s1 t) = s1 P(t)
    second = first * step
    return np.ascontiguousarray(np.stack([first, second, second * step]))


def _bound(low: np.ndarray, high: np.ndarray, centre, square: bool) -> np.ndarray:
    """A bound on |v| for v = x - centre (squared when asked) with low <= x <= high,
    computed with the same roundings as v (which are monotone)."""
    if centre is None:
        reach = np.maximum(np.abs(low), np.abs(high))
    else:
        reach = np.maximum(np.abs(low - centre), np.abs(high - centre))
    return reach * reach if square else reach


def column_sums(
    X: np.ndarray,
    rows: np.ndarray | None = None,
    centre: np.ndarray | None = None,
    square: bool = False,
    extremes: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """For each column, the sum over the samples ``rows`` of its values, minus ``centre``
    and squared when asked: the same bits in any order of the samples.

    Parameters
    ----------
    X : float array (n_samples, n_features)
    rows : int array, optional
        The samples summed (all when None).
    centre : float array (n_features,), optional
        Subtracted from each column first (a mean: sums of deviations).
    square : bool
        Sum the squares of the (centred) values.
    extremes : (low, high), optional
        Each column's smallest and largest value over all samples, when the caller has
        them (else computed here).

    Returns
    -------
    float array (n_features,)
    """
    n, p = X.shape
    rows = np.arange(n, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    if len(rows) == 0:
        return np.zeros(p)
    low, high = (X.min(axis=0), X.max(axis=0)) if extremes is None else extremes
    bound = _bound(low, high, centre, square)
    huge = ~(bound < LARGEST_BOUND / len(rows))
    with np.errstate(over="ignore"):  # the huge columns' splits: not used
        fold = splits(bound, len(rows))
    if use_compiled(len(rows) * p, SUMS_KERNELS):
        zero = np.zeros(p) if centre is None else np.ascontiguousarray(centre, dtype=float)
        family = kernels.load(SUMS_KERNELS)
        if X.flags.f_contiguous and not X.flags.c_contiguous:  # a column at a time
            sums = family.column_sums_by_column(X, rows, zero, bool(square), fold)
        else:
            X = np.ascontiguousarray(X)
            sums = family.column_sums(X, rows, zero, bool(square), fold)
    else:  # the kernel's folds on whole arrays: each sum is exact, so its order is free
        values = X[rows]
        if centre is not None:
            values = values - centre
        if square:
            values = values * values
        first = (fold[0] + values) - fold[0]
        values = values - first
        second = (fold[1] + values) - fold[1]
        values = values - second
        third = (fold[2] + values) - fold[2]
        sums = (first.sum(axis=0) + second.sum(axis=0)) + third.sum(axis=0)
    if huge.any():  # values near the top of the double range: summed in sorted order
        for j in np.flatnonzero(huge):
            values = X[rows, j] - (0.0 if centre is None else centre[j])
            sums[j] = np.sort(values * values if square else values).sum()
    return sums


def mean_and_scatter(
    X: np.ndarray,
    rows: np.ndarray | None = None,
    extremes: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Every column's mean over the samples ``rows`` (all when None) and its sum of squared
    deviations from that mean, both by :func:`column_sums`.

    Returns
    -------
    mean, scatter : float arrays (n_features,)
    """
    if extremes is None:
        extremes = (X.min(axis=0), X.max(axis=0))
    count = X.shape[0] if rows is None else len(rows)
    mean = column_sums(X, rows, extremes=extremes) / count
    return mean, column_sums(X, rows, mean, square=True, extremes=extremes)


def group_sums(X, group: np.ndarray) -> dict[str, np.ndarray]:
    """Every column's mean and scatter (sum of squared deviations from the mean) in the
    group and in the rest, and each one's extremes, in one pass over the non-zeros of a CSC
    ``X`` (or each column of a dense one): the means and scatters of :func:`mean_and_scatter`
    over each one's rows with the matrix's column extremes, bit for bit, in any order of the
    rows.

    Parameters
    ----------
    X : float64 array (n, p), or a canonical CSC array storing no zero
    group : bool array (n,)
        The group; it and the rest are non-empty.

    Returns
    -------
    dict of float arrays (p,)
        ``mean1``, ``scatter1``, ``low1``, ``high1`` of the group; ``mean0``, ``scatter0``,
        ``low0``, ``high0`` of the rest.
    """
    family = kernels.load(SUMS_KERNELS)
    group = np.ascontiguousarray(group, dtype=np.bool_)
    if is_sparse(X):
        out = family.group_moments(X.data, X.indices, X.indptr, group, LARGEST_BOUND)
    else:
        out = family.group_moments_dense(np.asfortranarray(X), group, LARGEST_BOUND)
    names = ("mean1", "scatter1", "mean0", "scatter0", "low1", "high1", "low0", "high0")
    sums = dict(zip(names, out))
    huge = np.flatnonzero(out[8])
    if huge.size:  # values near the top of the double range: the sums' own fallback
        dense = X[:, huge].toarray() if is_sparse(X) else X[:, huge]
        extremes = dense.min(axis=0), dense.max(axis=0)
        for name, rows in (("1", np.flatnonzero(group)), ("0", np.flatnonzero(~group))):
            mean, scatter = mean_and_scatter(dense, rows, extremes)
            sums["mean" + name][huge], sums["scatter" + name][huge] = mean, scatter
    return sums


def flat_and_constant(sums: dict) -> tuple[np.ndarray, np.ndarray]:
    """From two groups' extremes (:func:`group_sums`): the columns with one value in each
    group but not overall (they separate the groups), and those with one value overall.

    Returns
    -------
    flat, constant : bool arrays (p,)
    """
    low1, high1, low0, high0 = (sums[k] for k in ("low1", "high1", "low0", "high0"))
    constant = np.maximum(high1, high0) == np.minimum(low1, low0)
    return (high1 == low1) & (high0 == low0) & ~constant, constant
