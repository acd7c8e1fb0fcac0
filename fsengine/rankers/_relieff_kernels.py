"""Compiled (numba) kernels of ReliefF: the sample distances and the weights' update."""

from __future__ import annotations

import numpy as np

from fsengine._compute.jit import kernel


@kernel("f8[:, ::1](f8[:, ::1])")
def cityblock(columns):
    """Manhattan distances between the samples, from ``columns`` (p, n), one feature a row.

    Each pair's sum runs over the features in order from 0.0, as
    ``scipy.spatial.distance.cdist(..., "cityblock")`` sums, so the distances are the same
    to the last bit; the features are the outer loop, so that the pairs of one sample are
    updated together (vectorised), and each pair is computed once.
    """
    p, n = columns.shape
    dist = np.zeros((n, n))
    for f in range(p):
        col = columns[f]
        for i in range(n):
            a = col[i]
            row = dist[i]
            for j in range(i + 1, n):
                row[j] += abs(a - col[j])
    for i in range(n):
        for j in range(i + 1, n):
            dist[j, i] = dist[i, j]
    return dist


@kernel("void(f8[:, ::1], i8[::1], i8[:, ::1], f8, i8, f8[::1])")
def add_neighbour_diffs(scaled, rows, nearest, factor, block, weights):
    """``weights += factor * (mean over j of |scaled[rows[b]] - scaled[nearest[b, j]]|)``
    summed over each ``block`` of rows, in numpy's order for the same expression on a
    (block, k, p) array: the k differences added in order then divided by k, the block's
    rows added in order, then scaled by ``factor`` and added to ``weights``, block by block,
    so that the weights are numpy's to the last bit.

    Parameters
    ----------
    scaled : (n, p) the min-max scaled features.
    rows : (r,) the samples R.
    nearest : (r, k) each one's k nearest hits or misses of one class.
    factor, block : float, int
        -1 for hits, P(C) / (1 - P(class(R))) for misses; rows summed together.
    weights : (p,) updated in place.
    """
    r, k = nearest.shape
    p = scaled.shape[1]
    mean = np.empty(p)
    total = np.empty(p)
    for lo in range(0, r, block):
        for b in range(lo, min(lo + block, r)):
            x = scaled[rows[b]]
            first = scaled[nearest[b, 0]]
            for a in range(p):
                mean[a] = abs(x[a] - first[a])
            for j in range(1, k):
                other = scaled[nearest[b, j]]
                for a in range(p):
                    mean[a] += abs(x[a] - other[a])
            for a in range(p):
                mean[a] = mean[a] / k
            if b == lo:
                total[:] = mean
            else:
                for a in range(p):
                    total[a] += mean[a]
        for a in range(p):
            weights[a] += factor * total[a]
