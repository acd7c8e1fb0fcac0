"""Compiled (numba) per-column reductions that keep the reference's summation order.

Each column is summed strictly over its rows in order (as Octave's ``sum``), so a result
does not depend on the block a column arrives in; vectorising across columns does not
change any column's order of additions, so the results equal numpy's row-by-row
``total += row`` bit for bit.
"""

from __future__ import annotations

import numpy as np

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
    for i in range(n):
        for j in range(b):
            total[j] += a[i, j]
    return total


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
    for i in range(n):
        for j in range(b):
            d = a[i, j] - mean[j]
            ss[j] += d * d
    return 1.0 / (ss / (n - 1))
