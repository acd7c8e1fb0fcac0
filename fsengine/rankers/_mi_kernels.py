"""Compiled (numba) kernel of the kNN mutual-information estimator's neighbour counts."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def count_within(rows, sorted_rows, r2):
    """For each point and feature, how many points lie within its radius (itself included).

    The test is scikit-learn's KD-tree test ``(x_j - x_i)^2 <= r^2``. Along a sorted
    feature it holds on one contiguous run around the point (rounding of a difference
    and of a square is monotone), whose ends are found by binary search with the test
    itself.

    Parameters
    ----------
    rows : float64 array (p, m)
        One feature a row.
    sorted_rows : float64 array (p, m)
        The same rows, sorted.
    r2 : float64 array (p, m)
        Squared radius of each point.

    Returns
    -------
    int64 array (p, m)
    """
    p, m = rows.shape
    out = np.empty((p, m), np.int64)
    for f in range(p):
        s = sorted_rows[f]
        for q in range(m):
            x = rows[f, q]
            r = r2[f, q]
            # First position whose value passes (every earlier one is too far below).
            lo, hi = 0, m
            while lo < hi:
                mid = (lo + hi) // 2
                g = s[mid] - x
                if s[mid] < x and not (g * g <= r):
                    lo = mid + 1
                else:
                    hi = mid
            start = lo
            # First position after the run (too far above).
            lo, hi = start, m
            while lo < hi:
                mid = (lo + hi) // 2
                g = s[mid] - x
                if s[mid] <= x or g * g <= r:
                    lo = mid + 1
                else:
                    hi = mid
            out[f, q] = lo - start
    return out
