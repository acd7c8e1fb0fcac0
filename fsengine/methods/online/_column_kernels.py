"""Compiled (numba) per-column reductions that keep the reference's summation order.

Each column is summed strictly over its rows in order (as Octave's ``sum``), so a result
does not depend on the block a column arrives in; vectorising across columns does not
change any column's order of additions, so the results equal numpy's row-by-row
``total += row`` bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel


@kernel(
    "f8[::1](f8[:, ::1])",
    "f8[::1](f8[::1, :])",
    "f8[::1](f8[:, :])",
)
def column_sums(a):
    """Sum over axis 0 of a 2-D array, row by row."""
    n, b = a.shape
    total = np.zeros(b)
    for lo, hi in _column_groups(a):
        for i in range(n):
            for j in range(lo, hi):
                total[j] += a[i, j]
    return total


#: Columns a pass over a Fortran-ordered array reads side by side (each one sequential).
COLUMN_GROUP = 8


@njit(cache=True)
def _column_groups(a):
    """The groups of columns to take down the rows together: every column at once for a
    row-major ``a``, :data:`COLUMN_GROUP` at a time for a column-major one (a row's
    values then lie far apart). Which columns go together changes no column's order of
    additions."""
    b = a.shape[1]
    step = COLUMN_GROUP if a.strides[0] < a.strides[1] else max(b, 1)
    return [(lo, min(lo + step, b)) for lo in range(0, b, step)]


@kernel(
    "f8[::1](f8[:, ::1])",
    "f8[::1](f8[::1, :])",
    "f8[::1](f8[:, :])",
    error_model="numpy",
)
def seuclidean_weights(a):
    """``1 / var`` (n - 1) of every column of ``a`` (n, b), each sum taken in row order:
    the mean as ``sum / n``, then the squared deviations ``(x - mean) * (x - mean)``;
    inf for a constant column (var 0)."""
    n, b = a.shape
    mean = column_sums(a) / n
    ss = np.zeros(b)
    for lo, hi in _column_groups(a):
        for i in range(n):
            for j in range(lo, hi):
                d = a[i, j] - mean[j]
                ss[j] += d * d
    return 1.0 / (ss / (n - 1))
