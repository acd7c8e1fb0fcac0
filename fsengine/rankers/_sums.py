"""Sums over samples whose result does not depend on the order of the samples.

Floating-point addition is not associative: a column summed in row order changes in its
last bits when the rows are permuted, and so do the means, variances and scores built on
it (issue 40). :func:`column_sums` sums each column in two exact folds (the error-free
splitting of reproducible summation, Demmel and Nguyen, "Fast reproducible floating-point
summation", ARITH 2013): with s a power of two above 2 m max|v| (m values), every
``hi = (s + v) - s`` is a multiple of s 2^-53 and at most about s / (2m) in magnitude, so
every partial sum of them is exact, in whatever order; the remainders ``v - hi`` are exact
too and are folded once more the same way. The result, the sum of the two folds, depends
on the set of values alone, and is more accurate than a sum in order (what the folds leave
out is below m^3 2^-104 max|v|, against some m 2^-53 max|v| for a sum in order). A
column's sum depends on that column alone.
"""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled

#: The kernel family of the sums.
SUMS_KERNELS = "rankers._sums_kernels"


def _power_above(bound: np.ndarray) -> np.ndarray:
    """The least power of two above each ``bound`` (>= 0); 1 for 0."""
    return np.ldexp(1.0, np.frexp(bound)[1])


def _two_folds(values: np.ndarray) -> np.ndarray:
    """The sums over axis 0 of ``values`` (m, p), in the kernel's two exact folds."""
    m = values.shape[0]
    if m == 0:
        return np.zeros(values.shape[1])
    first = _power_above(np.abs(values).max(axis=0) * (2.0 * m))
    high = (first + values) - first
    rest = values - high
    second = _power_above(np.abs(rest).max(axis=0) * (2.0 * m))
    low = (second + rest) - second
    return high.sum(axis=0) + low.sum(axis=0)  # both exact in any order


def column_sums(
    X: np.ndarray,
    rows: np.ndarray | None = None,
    centre: np.ndarray | None = None,
    square: bool = False,
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

    Returns
    -------
    float array (n_features,)
    """
    n, p = X.shape
    rows = np.arange(n, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    if use_compiled(len(rows) * p, SUMS_KERNELS):
        zero = np.zeros(p) if centre is None else np.ascontiguousarray(centre, dtype=float)
        return kernels.load(SUMS_KERNELS).column_sums(X, rows, zero, bool(square))
    values = X[rows]
    if centre is not None:
        values = values - centre
    if square:
        values = values * values
    return _two_folds(values)


def mean_and_scatter(
    X: np.ndarray, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Every column's mean over the samples ``rows`` (all when None) and its sum of squared
    deviations from that mean, both by :func:`column_sums`.

    Returns
    -------
    mean, scatter : float arrays (n_features,)
    """
    count = X.shape[0] if rows is None else len(rows)
    mean = column_sums(X, rows) / count
    return mean, column_sums(X, rows, mean, square=True)
