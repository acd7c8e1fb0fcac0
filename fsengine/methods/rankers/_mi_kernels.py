"""Compiled (numba) kernel of the kNN mutual-information estimator's neighbour counts."""

from __future__ import annotations

import numpy as np

from fsengine._compute.jit import kernel


@kernel("i8[:, ::1](f8[:, ::1], i8[:, ::1], f8[:, ::1])")
def count_within(rows, order, r2):
    """For each point and feature, how many points lie within its radius (itself included).

    The test is scikit-learn's KD-tree test ``(x_j - x_i)^2 <= r^2``. Along a sorted
    feature it holds on one contiguous run around the point (rounding of a difference
    and of a square is monotone). The points are visited in sorted order and each end of
    the run moves from where it was for the previous point, checked with the test itself
    (exact whatever the radii; few steps, as neighbouring points have similar radii).

    Parameters
    ----------
    rows : float64 array (p, m)
        One feature a row.
    order : int64 array (p, m)
        Each row's ascending order.
    r2 : float64 array (p, m)
        Squared radius of each point.

    Returns
    -------
    int64 array (p, m)
    """
    p, m = rows.shape
    out = np.empty((p, m), np.int64)
    s = np.empty(m)
    for f in range(p):
        o = order[f]
        for q in range(m):
            s[q] = rows[f, o[q]]
        lo, hi = 0, 1
        for q in range(m):
            x = s[q]
            r = r2[f, o[q]]
            # lo: the first position not too far below x.
            if lo > q:
                lo = q
            while lo > 0 and (s[lo - 1] >= x or (s[lo - 1] - x) * (s[lo - 1] - x) <= r):
                lo -= 1
            while not (s[lo] >= x or (s[lo] - x) * (s[lo] - x) <= r):
                lo += 1
            # hi: the first position too far above x.
            if hi < q + 1:
                hi = q + 1
            while hi > q + 1 and not (s[hi - 1] <= x or (s[hi - 1] - x) * (s[hi - 1] - x) <= r):
                hi -= 1
            while hi < m and (s[hi] <= x or (s[hi] - x) * (s[hi] - x) <= r):
                hi += 1
            out[f, o[q]] = hi - lo
    return out


@kernel("f8[:, ::1](f8[:, ::1], i8[:, ::1], i8)")
def kth_distances(rows, order, k):
    """Distance from each point to its k-th nearest other point, per feature, exactly (1-D).

    In sorted order the k nearest of a point lie in a window around it, so the k-th
    distance is ``min over s of max(left_s, right_(k-s))`` (``left_s``: the distance to
    the s-th point below, inf beyond the end; ``right`` likewise above).

    Parameters
    ----------
    rows : float64 array (p, m)
    order : int64 array (p, m)
        Each row's ascending order.
    k : int
        1 <= k <= m - 1.

    Returns
    -------
    float64 array (p, m)
    """
    p, m = rows.shape
    out = np.empty((p, m))
    v = np.empty(m)
    for f in range(p):
        o = order[f]
        for q in range(m):
            v[q] = rows[f, o[q]]
        for q in range(m):
            best = np.inf
            for left in range(k + 1):
                right = k - left
                d_left = 0.0
                if left:
                    d_left = v[q] - v[q - left] if q - left >= 0 else np.inf
                d_right = 0.0
                if right:
                    d_right = v[q + right] - v[q] if q + right < m else np.inf
                best = min(best, max(d_left, d_right))
            out[f, o[q]] = best
    return out
